// posix_spawn's attribute and file-action objects, freed when they go: the
// launcher and the fetcher start their children with them.
#pragma once

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
  SpawnState(const SpawnState&) = delete;
  SpawnState& operator=(const SpawnState&) = delete;
};

}  // namespace mesos::internal::slave
