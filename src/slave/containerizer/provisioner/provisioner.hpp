// The provisioner: a container's root filesystem from an image of the store
// (store.hpp), through the backend --image_provisioner_backend names. The
// slave pulls with the mesos-provisioner helper first (provisioner_main.cpp);
// provisioning itself only mounts or copies, in the slave's process, off an
// actor's thread (it blocks).
#pragma once

#include <memory>
#include <string>

#include "mesos/result.hpp"
#include "slave/containerizer/provisioner/backends/backend.hpp"
#include "slave/containerizer/provisioner/store.hpp"

namespace mesos::internal::slave::provisioner {

class Provisioner {
 public:
  // `backend` is "overlay", "copy", "bind", or "" for Apache Mesos's
  // default: overlay where it is supported, else copy. Fails for an unknown
  // name, or overlay where it is not supported (not root, or no overlayfs).
  // With `mountInContainer`, the overlay backend leaves its mount to the
  // launch helper, in the container's own mount namespace (overlay.hpp);
  // the other backends mount or copy here either way.
  static Result<Provisioner> create(const std::string& backend, bool mountInContainer = false);

  const std::string& backend() const { return name_; }

  // Makes `<directory>/rootfs` from `image`'s layers in `store`, and returns
  // its path. On failure, what was made is removed and nothing stays mounted.
  Result<std::string> provision(const Store& store, const StoredImage& image,
                                const std::string& directory) const;

  // Unmounts and removes `directory` (any backend's); no error when it is
  // already gone.
  Result<void> destroy(const std::string& directory) const;

 private:
  Provisioner(std::string name, std::unique_ptr<Backend> backend)
      : name_(std::move(name)), backend_(std::move(backend)) {}

  std::string name_;
  std::unique_ptr<Backend> backend_;
};

}  // namespace mesos::internal::slave::provisioner
