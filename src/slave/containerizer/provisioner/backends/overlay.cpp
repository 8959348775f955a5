#include "slave/containerizer/provisioner/backends/overlay.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "slave/containerizer/rootfs.hpp"

namespace mesos::internal::slave::provisioner {

bool OverlayBackend::supported() {
  if (::geteuid() != 0) return false;
  std::ifstream filesystems("/proc/filesystems");
  std::string line;
  while (std::getline(filesystems, line)) {
    if (line.size() >= 7 && line.compare(line.size() - 7, 7, "overlay") == 0) return true;
  }
  return false;
}

Result<std::string> OverlayBackend::provision(const std::vector<std::string>& layers,
                                              const std::string& directory) {
  if (layers.empty()) return Error{"the image has no layers"};
  if (directory.find_first_of(":,") != std::string::npos) {
    return Error{"the overlay backend cannot use '" + directory + "': it holds ':' or ','"};
  }
  std::error_code error;
  for (const char* sub : {"rootfs", "upper", "work", "links"}) {
    std::filesystem::create_directories(directory + "/" + sub, error);
    if (error) return Error{"cannot create '" + directory + "/" + sub + "': " + error.message()};
  }
  // Layer paths hold ':' ("sha256:..."), which lowerdir= separates with:
  // the mount names them through short links of its own instead.
  std::string lower;
  for (size_t i = layers.size(); i-- > 0;) {
    std::string link = directory + "/links/" + std::to_string(i);
    ::unlink(link.c_str());
    if (::symlink(layers[i].c_str(), link.c_str()) != 0) {
      return Error{"cannot link '" + link + "' to '" + layers[i] + "': " + std::strerror(errno)};
    }
    lower += (lower.empty() ? "" : ":") + link;
  }
  // Overlayfs wants two lower directories when there is no upper one; with
  // an upper one, one lower directory is enough.
  std::string options =
      "lowerdir=" + lower + ",upperdir=" + directory + "/upper,workdir=" + directory + "/work";
  if (options.size() >= static_cast<size_t>(::getpagesize())) {
    return Error{"the overlay mount options for " + std::to_string(layers.size()) +
                 " layers exceed a page; use a shorter provisioner directory or the copy backend"};
  }
  std::string rootfs = directory + "/rootfs";
  if (inContainer_) {
    // Written whole under another name, then renamed: the helper never
    // reads half of it. Root's, and writable by root only (it checks).
    const std::string file = overlayOptionsFile(rootfs);
    const std::string partial = file + ".partial";
    int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return Error{"cannot create '" + partial + "': " + std::strerror(errno)};
    const bool written = ::fchmod(fd, 0644) == 0 && ::write(fd, options.data(), options.size()) ==
                                                        static_cast<ssize_t>(options.size());
    const int error = errno;
    ::close(fd);
    if (!written || ::rename(partial.c_str(), file.c_str()) != 0) {
      return Error{"cannot write '" + file + "': " + std::strerror(written ? errno : error)};
    }
    return rootfs;
  }
  if (::mount("overlay", rootfs.c_str(), "overlay", 0, options.c_str()) != 0) {
    return Error{"cannot mount overlayfs at '" + rootfs + "': " + std::strerror(errno)};
  }
  return rootfs;
}

}  // namespace mesos::internal::slave::provisioner
