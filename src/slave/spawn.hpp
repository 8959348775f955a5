// posix_spawn's attribute and file-action objects, freed when they go: the
// launcher and the fetcher start their children with them.
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
  void newSession() {
    posix_spawnattr_setflags(&attr,
                             POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    sigset_t all;
    sigfillset(&all);
    posix_spawnattr_setsigdefault(&attr, &all);
  }
  SpawnState(const SpawnState&) = delete;
  SpawnState& operator=(const SpawnState&) = delete;
};

}  // namespace mesos::internal::slave
