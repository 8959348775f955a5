// A provisioner backend stacks an image's layers (directories of the store,
// bottom first) into a container's root filesystem at `<directory>/rootfs`.
// Backends run in the slave's process: they mount and copy, and block while
// they do, so they are called off an actor's thread. None links libcurl.
#pragma once

#include <string>
#include <vector>

#include "mesos/result.hpp"

namespace mesos::internal::slave::provisioner {

class Backend {
 public:
  virtual ~Backend() = default;

  // "overlay", "copy" or "bind".
  virtual std::string name() const = 0;

  // Makes `<directory>/rootfs` (creating `directory` when missing) from
  // `layers`, and returns its path. On failure nothing stays mounted; the
  // caller removes `directory` with destroyRootfs().
  virtual Result<std::string> provision(const std::vector<std::string>& layers,
                                        const std::string& directory) = 0;
};

// Unmounts everything mounted at or below `directory` (deepest first), then
// removes it. No error when `directory` does not exist. Whatever backend
// provisioned it.
Result<void> destroyRootfs(const std::string& directory);

// The mount points at or below `directory`, from /proc/self/mountinfo.
std::vector<std::string> mountsBelow(const std::string& directory);

}  // namespace mesos::internal::slave::provisioner
