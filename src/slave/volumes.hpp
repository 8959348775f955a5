// Persistent volumes and checkpointed resources on the slave
// (docs/persistent-volumes.md):
//
//   <work_dir>/meta/resources/resources.info   the dynamic reservations and
//       persistent volumes the master last sent (a CheckpointResourcesMessage,
//       written whole with checkpoint::write); kept across slave ids
//   <work_dir>/volumes/roles/<role>/<persistence id>   a volume's directory;
//       a hierarchical role's '/' is written as a space ("eng backend"), as
//       Apache Mesos does, so that a sub-role is never a directory inside a
//       volume of its parent
//
// A task or executor using a volume finds it at <sandbox>/<container_path>,
// a symbolic link to the volume's directory. The functions here block on
// the disk (no fsync but the checkpoint's): the slave calls them on its actor
// for a message from the master or a task launch, both rare.
#pragma once

#include <map>
#include <string>

#include "mesos/resources.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::slave::volumes {

// <work_dir>/meta/resources/resources.info.
std::string resourcesInfoPath(const std::string& workDir);

// <work_dir>/volumes/roles/<role, '/' as ' '>/<id>.
std::string volumePath(const std::string& workDir, const std::string& role,
                       const std::string& id);
// The same for a persistent volume (its reservation role and persistence
// id).
std::string volumePath(const std::string& workDir, const Resource& volume);

// What resources.info holds: nothing when there is no such file; fails,
// naming the file, when it cannot be read or does not hold valid resources.
Result<Resources> readCheckpointed(const std::string& workDir);

// The persistent volumes of `resources`, keyed "<role>/<persistence id>"
// (which names the volume on a slave).
std::map<std::string, Resource> byKey(const Resources& resources);

// Checks what a volume's role and id must be to name a directory: a valid
// role (common/roles.hpp) and an id by the rule of ids (common/ids.hpp).
Result<void> validateVolume(const Resource& volume);

// Makes the volume's directory (and its parents) when missing, mode 0755.
// Fails naming the directory.
Result<void> createVolume(const std::string& path);

// Removes the volume's directory and everything in it without following
// any symbolic link (a link inside it is removed, not what it points to;
// `path` itself must be a directory, not a link). A path already gone is a
// success. Fails naming what cannot be removed.
Result<void> removeVolume(const std::string& path);

// Gives the directory `path` itself (not what is in it) to `user` (its uid
// and primary group). Fails naming the user or the directory.
Result<void> giveVolume(const std::string& path, const std::string& user);

// Puts a symbolic link to `target` at <sandbox>/<containerPath>, making the
// directories between inside the sandbox without following a link there
// (the sandbox may hold what a task made). `containerPath` must be relative
// and free of "." and ".." components. An existing link to `target` is
// kept; anything else in its place is an error naming the path.
Result<void> linkVolume(const std::string& sandbox, const std::string& containerPath,
                        const std::string& target);

}  // namespace mesos::internal::slave::volumes
