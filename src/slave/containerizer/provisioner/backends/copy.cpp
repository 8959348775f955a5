#include "slave/containerizer/provisioner/backends/copy.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "slave/containerizer/provisioner/layer_archive.hpp"

namespace mesos::internal::slave::provisioner {

namespace {

Error systemError(const std::string& what, int error) {
  return Error{what + ": " + std::strerror(error)};
}

void removeAll(const std::string& path) {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

bool opaque(const std::string& directory) {
  char value[4] = {0};
  ssize_t n = ::lgetxattr(directory.c_str(), kOpaqueXattr, value, sizeof(value));
  if (n == 1 && value[0] == 'y') return true;
  struct stat stats {};
  return ::lstat((directory + "/" + kOpaqueWhiteout).c_str(), &stats) == 0;
}

// Copies extended attributes but overlayfs's own.
void copyXattrs(const std::string& from, const std::string& to) {
  ssize_t size = ::llistxattr(from.c_str(), nullptr, 0);
  if (size <= 0) return;
  std::vector<char> names(static_cast<size_t>(size));
  size = ::llistxattr(from.c_str(), names.data(), names.size());
  for (ssize_t i = 0; i < size;) {
    std::string name(names.data() + i);
    i += static_cast<ssize_t>(name.size()) + 1;
    if (name.rfind("trusted.overlay.", 0) == 0) continue;
    ssize_t length = ::lgetxattr(from.c_str(), name.c_str(), nullptr, 0);
    if (length < 0) continue;
    std::vector<char> value(static_cast<size_t>(length) + 1);
    length = ::lgetxattr(from.c_str(), name.c_str(), value.data(), value.size());
    if (length >= 0) ::lsetxattr(to.c_str(), name.c_str(), value.data(), length, 0);
  }
}

void copyMetadata(const std::string& from, const std::string& to, const struct stat& stats) {
  if (::geteuid() == 0) ::lchown(to.c_str(), stats.st_uid, stats.st_gid);
  if (!S_ISLNK(stats.st_mode)) ::chmod(to.c_str(), stats.st_mode & 07777);
  copyXattrs(from, to);
  timespec times[2] = {stats.st_atim, stats.st_mtim};
  ::utimensat(AT_FDCWD, to.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

Result<void> copyFile(const std::string& from, const std::string& to, const struct stat& stats) {
  int source = ::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (source < 0) return systemError("cannot open '" + from + "'", errno);
  int target = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (target < 0) {
    int error = errno;
    ::close(source);
    return systemError("cannot create '" + to + "'", error);
  }
  off_t left = stats.st_size;
  while (left > 0) {
    ssize_t n = ::sendfile(target, source, nullptr, static_cast<size_t>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = n < 0 ? errno : EIO;
      ::close(source);
      ::close(target);
      return systemError("cannot copy '" + from + "' to '" + to + "'", error);
    }
    left -= n;
  }
  ::close(source);
  ::close(target);
  return {};
}

class LayerCopy {
 public:
  LayerCopy(std::string layer, std::string rootfs)
      : layer_(std::move(layer)), rootfs_(std::move(rootfs)) {}

  Result<void> run() { return copyDirectory(""); }

 private:
  // Copies the contents of the layer's directory `relative` (which exists in
  // the root filesystem already).
  Result<void> copyDirectory(const std::string& relative) {
    std::string from = relative.empty() ? layer_ : layer_ + "/" + relative;
    std::string to = relative.empty() ? rootfs_ : rootfs_ + "/" + relative;
    if (opaque(from)) {
      std::error_code error;
      for (const auto& entry : std::filesystem::directory_iterator(to, error)) {
        removeAll(entry.path().string());
      }
    }
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(from.c_str()), ::closedir);
    if (!dir) return systemError("cannot read '" + from + "'", errno);
    std::vector<std::string> names;
    while (dirent* entry = ::readdir(dir.get())) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    for (const std::string& name : names) {
      std::string child = relative.empty() ? name : relative + "/" + name;
      if (auto copied = copyEntry(child, name); !copied) return copied;
    }
    return {};
  }

  Result<void> copyEntry(const std::string& relative, const std::string& name) {
    std::string from = layer_ + "/" + relative;
    std::string to = rootfs_ + "/" + relative;
    struct stat stats {};
    if (::lstat(from.c_str(), &stats) != 0) return systemError("cannot read '" + from + "'", errno);

    // Whiteouts, in overlayfs's form or as the layer wrote them.
    if (name == kOpaqueWhiteout) return {};
    if (name.rfind(kWhiteoutPrefix, 0) == 0) {
      std::string parent = to.substr(0, to.size() - name.size());
      removeAll(parent + name.substr(std::strlen(kWhiteoutPrefix)));
      return {};
    }
    if (S_ISCHR(stats.st_mode) && stats.st_rdev == 0) {
      removeAll(to);
      return {};
    }

    struct stat existing {};
    bool exists = ::lstat(to.c_str(), &existing) == 0;
    if (S_ISDIR(stats.st_mode)) {
      if (exists && !S_ISDIR(existing.st_mode)) {
        removeAll(to);
        exists = false;
      }
      if (!exists && ::mkdir(to.c_str(), 0700) != 0) {
        return systemError("cannot create '" + to + "'", errno);
      }
      if (auto copied = copyDirectory(relative); !copied) return copied;
      copyMetadata(from, to, stats);
      return {};
    }
    if (exists) removeAll(to);

    if (stats.st_nlink > 1 && !S_ISDIR(stats.st_mode)) {
      auto key = std::make_pair(stats.st_dev, stats.st_ino);
      if (auto seen = links_.find(key); seen != links_.end()) {
        if (::link(seen->second.c_str(), to.c_str()) != 0) {
          return systemError("cannot link '" + to + "'", errno);
        }
        return {};
      }
      links_[key] = to;
    }
    if (S_ISREG(stats.st_mode)) {
      if (auto copied = copyFile(from, to, stats); !copied) return copied;
    } else if (S_ISLNK(stats.st_mode)) {
      std::vector<char> target(static_cast<size_t>(stats.st_size) + 1);
      ssize_t n = ::readlink(from.c_str(), target.data(), target.size());
      if (n < 0) return systemError("cannot read the link '" + from + "'", errno);
      if (::symlink(std::string(target.data(), static_cast<size_t>(n)).c_str(), to.c_str()) != 0) {
        return systemError("cannot create the link '" + to + "'", errno);
      }
    } else if (::mknod(to.c_str(), stats.st_mode, stats.st_rdev) != 0) {
      return systemError("cannot create the special file '" + to + "'", errno);
    }
    copyMetadata(from, to, stats);
    return {};
  }

  std::string layer_;
  std::string rootfs_;
  std::map<std::pair<dev_t, ino_t>, std::string> links_;
};

}  // namespace

Result<std::string> CopyBackend::provision(const std::vector<std::string>& layers,
                                           const std::string& directory) {
  if (layers.empty()) return Error{"the image has no layers"};
  std::string rootfs = directory + "/rootfs";
  std::error_code error;
  std::filesystem::create_directories(rootfs, error);
  if (error) return Error{"cannot create '" + rootfs + "': " + error.message()};
  for (const std::string& layer : layers) {
    LayerCopy copy(layer, rootfs);
    if (auto copied = copy.run(); !copied) {
      return Error{"cannot copy the layer '" + layer + "': " + copied.error().message};
    }
  }
  return rootfs;
}

}  // namespace mesos::internal::slave::provisioner
