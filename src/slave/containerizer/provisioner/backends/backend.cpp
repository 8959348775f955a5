#include "slave/containerizer/provisioner/backends/backend.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "slave/containerizer/rootfs.hpp"

namespace mesos::internal::slave::provisioner {

namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      out += static_cast<char>(std::strtol(text.substr(i + 1, 3).c_str(), nullptr, 8));
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Removes what is below the directory `fd` (`path`, for messages), entry by
// entry, never into another mount: false, with `mounted` set, at the first
// entry whose mount id is not `mountId` (left as it is). Error when an
// entry cannot be removed.
Result<bool> removeBelow(int fd, const std::string& path, uint64_t mountId, std::string* mounted) {
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    ::close(fd);
    return Error{"cannot read '" + path + "': " + std::strerror(errno)};
  }
  Result<bool> result = true;
  while (struct dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct statx info {};
    if (::statx(fd, name.c_str(), AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_MNT_ID, &info) != 0) {
      result = Error{"cannot stat '" + path + "/" + name + "': " + std::strerror(errno)};
      break;
    }
    if (info.stx_mnt_id != mountId) {
      *mounted = path + "/" + name;
      result = false;
      break;
    }
    if (S_ISDIR(info.stx_mode)) {
      int child = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child < 0) {
        result = Error{"cannot open '" + path + "/" + name + "': " + std::strerror(errno)};
        break;
      }
      result = removeBelow(child, path + "/" + name, mountId, mounted);
      if (!result || !*result) break;
    }
    if (::unlinkat(fd, name.c_str(), S_ISDIR(info.stx_mode) ? AT_REMOVEDIR : 0) != 0) {
      result = Error{"cannot remove '" + path + "/" + name + "': " + std::strerror(errno)};
      break;
    }
  }
  ::closedir(dir);
  return result;
}

// Removes `directory` without a look at the mount table, when nothing is
// mounted at or below it: false (nothing below a mount point touched) when
// something is, or when the kernel has no mount ids in statx (before 5.8).
Result<bool> removeUnmounted(const std::string& directory) {
  struct statx self {};
  if (::statx(AT_FDCWD, directory.c_str(), AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &self) != 0 ||
      (self.stx_mask & STATX_MNT_ID) == 0 || isMountPoint(directory)) {
    return false;
  }
  int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Error{"cannot open '" + directory + "': " + std::strerror(errno)};
  std::string mounted;
  auto removed = removeBelow(fd, directory, self.stx_mnt_id, &mounted);
  if (!removed || !*removed) return removed;
  if (::rmdir(directory.c_str()) != 0) {
    return Error{"cannot remove '" + directory + "': " + std::strerror(errno)};
  }
  return true;
}

}  // namespace

std::vector<std::string> mountsBelow(const std::string& directory) {
  char resolved[PATH_MAX];
  std::string root = ::realpath(directory.c_str(), resolved) != nullptr ? resolved : directory;
  std::vector<std::string> mounts;
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mountinfo, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, source, target;
    fields >> id >> parent >> device >> source >> target;
    target = unescape(target);
    if (target == root || target.rfind(root + "/", 0) == 0) mounts.push_back(target);
  }
  return mounts;
}

Result<void> destroyRootfs(const std::string& directory) {
  if (::access(directory.c_str(), F_OK) != 0) return {};
  // What the backends mount (<directory>/rootfs) goes first, without a
  // look at the mount table: reading it costs in proportion to every
  // mount of the machine (a slave running a thousand containers from
  // images has a thousand). EINVAL when it is no mount (the copy backend).
  // The overlay backend for the slave mounts nothing here (the container's
  // own mount namespace has the mount): then the directory goes without a
  // look at the mount table either.
  (void)::umount2((directory + "/rootfs").c_str(), UMOUNT_NOFOLLOW);
  auto removed = removeUnmounted(directory);
  if (!removed) return Error{removed.error().message};
  if (*removed) return {};
  for (int round = 0;; ++round) {
    std::vector<std::string> mounts = mountsBelow(directory);
    if (mounts.empty()) break;
    if (round == 8) return Error{"'" + mounts.front() + "' is still mounted"};
    std::sort(mounts.begin(), mounts.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    for (const std::string& mount : mounts) {
      if (::umount2(mount.c_str(), UMOUNT_NOFOLLOW) != 0 && errno != EINVAL && errno != ENOENT) {
        if (::umount2(mount.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) != 0 && errno != EINVAL) {
          return Error{"cannot unmount '" + mount + "': " + std::strerror(errno)};
        }
      }
    }
  }
  std::error_code error;
  std::filesystem::remove_all(directory, error);
  if (error) return Error{"cannot remove '" + directory + "': " + error.message()};
  return {};
}

}  // namespace mesos::internal::slave::provisioner
