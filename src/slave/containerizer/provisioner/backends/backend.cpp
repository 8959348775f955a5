#include "slave/containerizer/provisioner/backends/backend.hpp"

#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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
  (void)::umount2((directory + "/rootfs").c_str(), UMOUNT_NOFOLLOW);
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
