// The overlay backend: the layers as the read-only lower directories of an
// overlayfs mount at <directory>/rootfs, with <directory>/upper taking the
// container's writes and <directory>/work as overlayfs's work directory.
// With `inContainer`, the mount is left to the launch helper, in the
// container's own mount namespace: provision() writes the options to
// overlayOptionsFile(<directory>/rootfs) (rootfs.hpp) and mounts nothing on
// the host. Needs root and a kernel with overlayfs; the store's whiteouts are in
// overlayfs's own form (layer_archive.hpp), so it reads them as they are.
#pragma once

#include "slave/containerizer/provisioner/backends/backend.hpp"

namespace mesos::internal::slave::provisioner {

class OverlayBackend : public Backend {
 public:
  explicit OverlayBackend(bool inContainer = false) : inContainer_(inContainer) {}

  std::string name() const override { return "overlay"; }
  Result<std::string> provision(const std::vector<std::string>& layers,
                                const std::string& directory) override;

  // True when this process may mount overlayfs: root, and the kernel lists
  // it in /proc/filesystems.
  static bool supported();

 private:
  bool inContainer_;
};

}  // namespace mesos::internal::slave::provisioner
