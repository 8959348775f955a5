#include "slave/containerizer/provisioner/backends/bind.hpp"

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace mesos::internal::slave::provisioner {

Result<std::string> BindBackend::provision(const std::vector<std::string>& layers,
                                           const std::string& directory) {
  if (layers.size() != 1) {
    return Error{"the bind backend provisions only single-layer images; this one has " +
                 std::to_string(layers.size()) + " layers (use overlay or copy)"};
  }
  std::string rootfs = directory + "/rootfs";
  std::error_code error;
  std::filesystem::create_directories(rootfs, error);
  if (error) return Error{"cannot create '" + rootfs + "': " + error.message()};
  if (::mount(layers[0].c_str(), rootfs.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
    return Error{"cannot bind-mount '" + layers[0] + "' at '" + rootfs +
                 "': " + std::strerror(errno)};
  }
  if (::mount(nullptr, rootfs.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC,
              nullptr) != 0) {
    int saved = errno;
    ::umount2(rootfs.c_str(), MNT_DETACH);
    return Error{"cannot make '" + rootfs + "' read-only: " + std::strerror(saved)};
  }
  return rootfs;
}

}  // namespace mesos::internal::slave::provisioner
