// The overlay backend: the layers as the read-only lower directories of an
// overlayfs mount at <directory>/rootfs, with <directory>/upper taking the
// container's writes and <directory>/work as overlayfs's work directory.
// Needs root and a kernel with overlayfs; the store's whiteouts are in
// overlayfs's own form (layer_archive.hpp), so it reads them as they are.
#pragma once

#include "slave/containerizer/provisioner/backends/backend.hpp"

namespace mesos::internal::slave::provisioner {

class OverlayBackend : public Backend {
 public:
  std::string name() const override { return "overlay"; }
  Result<std::string> provision(const std::vector<std::string>& layers,
                                const std::string& directory) override;

  // True when this process may mount overlayfs: root, and the kernel lists
  // it in /proc/filesystems.
  static bool supported();
};

}  // namespace mesos::internal::slave::provisioner
