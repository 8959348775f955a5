// The bind backend: the single layer of a one-layer image bind-mounted
// read-only at <directory>/rootfs. Nothing is copied, and the container
// cannot write to its root filesystem (only to its volumes and sandbox).
#pragma once

#include "slave/containerizer/provisioner/backends/backend.hpp"

namespace mesos::internal::slave::provisioner {

class BindBackend : public Backend {
 public:
  std::string name() const override { return "bind"; }
  // Fails for an image of more than one layer.
  Result<std::string> provision(const std::vector<std::string>& layers,
                                const std::string& directory) override;
};

}  // namespace mesos::internal::slave::provisioner
