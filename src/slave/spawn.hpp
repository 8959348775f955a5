// posix_spawn's attribute and file-action objects, freed when they go: the
// launcher, the fetcher and the docker program's runs start their children
// with them.
#pragma once

#include <signal.h>
#include <spawn.h>

namespace mesos::internal::slave {

struct SpawnState {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnState() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnState() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  // A new session (and process group, so the whole tree can be signalled),
  // no signal blocked and every signal's default action: how each child of
  // the slave starts.
  void newSession() { cleanStart(POSIX_SPAWN_SETSID); }
  // The same in a process group of its own within the caller's session.
  void newProcessGroup() {
    posix_spawnattr_setpgroup(&attr, 0);
    cleanStart(POSIX_SPAWN_SETPGROUP);
  }
  SpawnState(const SpawnState&) = delete;
  SpawnState& operator=(const SpawnState&) = delete;

 private:
  // `group` (a new session or process group), no signal blocked, every
  // signal's default action.
  void cleanStart(short group) {
    posix_spawnattr_setflags(
        &attr, static_cast<short>(group | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    sigset_t all;
    sigfillset(&all);
    posix_spawnattr_setsigdefault(&attr, &all);
  }
};

}  // namespace mesos::internal::slave
