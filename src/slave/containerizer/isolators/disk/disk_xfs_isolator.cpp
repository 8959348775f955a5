#include "slave/containerizer/isolators/disk/disk_xfs_isolator.hpp"

#include <fcntl.h>
#include <linux/dqblk_xfs.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <glog/logging.h>

#include "slave/containerizer/isolators/disk/sandbox_disk.hpp"

namespace mesos::internal::isolation {

namespace {

constexpr uint64_t kBlock = 512;  // the unit of XFS quota block counts

std::string errnoText() { return std::strerror(errno); }

// The container's `disk` in bytes; 0 (no limit) when it has none.
uint64_t diskLimit(const Resources& resources) {
  return sandboxDiskLimit(resources).value_or(0);
}

// A path of /proc/self/mountinfo, its octal escapes (\040 for a space)
// undone.
std::string unescape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      out += static_cast<char>(std::strtol(text.substr(i + 1, 3).c_str(), nullptr, 8));
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

struct Mount {
  std::string point;
  std::string type;
  std::string source;
};

// The mount holding `path` (the longest mount point above it).
std::optional<Mount> mountOf(const std::string& path) {
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::optional<Mount> best;
  std::string line;
  while (std::getline(mountinfo, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point, options, field;
    fields >> id >> parent >> device >> root >> point >> options;
    while (fields >> field && field != "-") {
    }
    Mount mount;
    fields >> mount.type >> mount.source;
    mount.point = unescape(point);
    mount.source = unescape(mount.source);
    const bool above =
        mount.point == "/" || path == mount.point || path.rfind(mount.point + "/", 0) == 0;
    if (above && (!best || mount.point.size() >= best->point.size())) best = mount;
  }
  return best;
}

// Sets `id` as the project of `path` (a directory's new entries inherit
// it; 0 also stops that).
Result<void> setProject(const std::filesystem::path& path, bool directory, uint32_t id) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0) return Error{"cannot open " + path.string() + ": " + errnoText()};
  struct fsxattr attributes {};
  Result<void> result;
  if (::ioctl(fd, FS_IOC_FSGETXATTR, &attributes) != 0) {
    result = Error{"cannot read the XFS attributes of " + path.string() + ": " + errnoText()};
  } else {
    attributes.fsx_projid = id;
    if (directory && id != 0) attributes.fsx_xflags |= FS_XFLAG_PROJINHERIT;
    if (directory && id == 0) attributes.fsx_xflags &= ~FS_XFLAG_PROJINHERIT;
    if (::ioctl(fd, FS_IOC_FSSETXATTR, &attributes) != 0) {
      result = Error{"cannot set the XFS project of " + path.string() + ": " + errnoText()};
    }
  }
  ::close(fd);
  return result;
}

std::optional<uint32_t> projectOf(const std::string& directory) {
  int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct fsxattr attributes {};
  std::optional<uint32_t> id;
  if (::ioctl(fd, FS_IOC_FSGETXATTR, &attributes) == 0) id = attributes.fsx_projid;
  ::close(fd);
  return id;
}

}  // namespace

Result<std::string> DiskXfsIsolator::projectQuotaDevice(const std::string& directory) {
  struct statfs fs {};
  if (::statfs(directory.c_str(), &fs) != 0) {
    return Error{"cannot read the filesystem of " + directory + ": " + errnoText()};
  }
  if (fs.f_type != XFS_SUPER_MAGIC) {
    return Error{directory +
                 " is not on XFS (disk/xfs needs --work_dir on XFS mounted with "
                 "-o prjquota; disk/du works on any filesystem)"};
  }
  std::error_code ec;
  std::string path = std::filesystem::canonical(directory, ec).string();
  if (ec) return Error{"cannot resolve " + directory + ": " + ec.message()};
  auto mount = mountOf(path);
  if (!mount || mount->type != "xfs") {
    return Error{"cannot find the XFS mount holding " + path + " in /proc/self/mountinfo"};
  }
  struct fs_quota_stat stat {};
  if (::quotactl(QCMD(Q_XGETQSTAT, PRJQUOTA), mount->source.c_str(), 0,
                 reinterpret_cast<caddr_t>(&stat)) != 0) {
    return Error{"the XFS filesystem at " + mount->point + " (" + mount->source +
                 ") has no project quotas (" + errnoText() +
                 "): mount it with -o prjquota, on a kernel built with XFS quota support"};
  }
  if ((stat.qs_flags & FS_QUOTA_PDQ_ACCT) == 0 || (stat.qs_flags & FS_QUOTA_PDQ_ENFD) == 0) {
    return Error{"the XFS filesystem at " + mount->point + " (" + mount->source +
                 ") does not account and enforce project quotas: mount it with -o prjquota"};
  }
  return mount->source;
}

Result<std::unique_ptr<DiskXfsIsolator>> DiskXfsIsolator::create(DiskXfsOptions options) {
  unsigned long first = 0;
  unsigned long last = 0;
  char close = 0;
  int end = 0;
  const std::string& range = options.projectRange;
  if (std::sscanf(range.c_str(), "[%lu-%lu%c%n", &first, &last, &close, &end) != 3 ||
      close != ']' || static_cast<size_t>(end) != range.size() || first == 0 || first > last ||
      last > UINT32_MAX) {
    return Error{"--xfs_project_range: '" + range +
                 "' is not [first-last] with 0 < first <= last (e.g. [5000-10000])"};
  }
  std::error_code ec;
  std::filesystem::create_directories(options.workDir, ec);
  auto device = projectQuotaDevice(options.workDir);
  if (!device) return device.error();
  return std::unique_ptr<DiskXfsIsolator>(new DiskXfsIsolator(
      std::move(options), *device, static_cast<uint32_t>(first), static_cast<uint32_t>(last)));
}

DiskXfsIsolator::DiskXfsIsolator(DiskXfsOptions options, std::string device, uint32_t first,
                                 uint32_t last)
    : options_(std::move(options)), device_(std::move(device)), first_(first), last_(last) {}

Result<void> DiskXfsIsolator::setLimit(uint32_t id, uint64_t bytes) {
  struct fs_disk_quota quota {};
  quota.d_version = FS_DQUOT_VERSION;
  quota.d_flags = FS_PROJ_QUOTA;
  quota.d_fieldmask = FS_DQ_BSOFT | FS_DQ_BHARD;
  quota.d_id = id;
  quota.d_blk_softlimit = quota.d_blk_hardlimit = (bytes + kBlock - 1) / kBlock;
  if (::quotactl(QCMD(Q_XSETQLIM, PRJQUOTA), device_.c_str(), static_cast<int>(id),
                 reinterpret_cast<caddr_t>(&quota)) != 0) {
    return Error{"cannot set the limit of XFS project " + std::to_string(id) + ": " + errnoText()};
  }
  return {};
}

// The sandbox and everything in it (it may hold fetched files already);
// links, volumes among them, are left alone.
Result<void> DiskXfsIsolator::assign(const Project& project) {
  if (auto root = setProject(project.directory, true, project.id); !root) return root;
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(project.directory, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::filesystem::file_status status = it->symlink_status(ec);
    if (ec) break;
    bool directory = std::filesystem::is_directory(status);
    if (!directory && !std::filesystem::is_regular_file(status)) continue;
    if (auto set = setProject(it->path(), directory, project.id); !set) return set;
  }
  if (ec) return Error{"cannot walk " + project.directory + ": " + ec.message()};
  return {};
}

Result<void> DiskXfsIsolator::recover(const std::map<std::string, pid_t>&) {
  // The kept containers come with their sandboxes in recovered().
  return {};
}

void DiskXfsIsolator::recovered(const mesos::isolation::ContainerConfig& config) {
  std::optional<uint32_t> id = projectOf(config.directory);
  if (!id || *id < first_ || *id > last_) {
    // Launched before disk/xfs was on: given a project now.
    if (auto prepared = prepare(config); !prepared) {
      LOG(WARNING) << "disk/xfs: container " << config.containerId.value() << ": "
                   << prepared.error().message;
    }
    return;
  }
  std::lock_guard lock(mutex_);
  Project& project = containers_[config.containerId.value()];
  project = Project{config.directory, *id, options_.enforce ? diskLimit(config.resources) : 0};
  used_.insert(*id);
}

Result<mesos::isolation::LaunchRequirements> DiskXfsIsolator::prepare(
    const mesos::isolation::ContainerConfig& config) {
  std::lock_guard lock(mutex_);
  std::optional<uint32_t> id;
  for (uint64_t candidate = first_; candidate <= last_; candidate++) {
    if (used_.count(static_cast<uint32_t>(candidate)) == 0) {
      id = static_cast<uint32_t>(candidate);
      break;
    }
  }
  if (!id) {
    return Error{"disk/xfs: every project id of --xfs_project_range (" + options_.projectRange +
                 ") is in use"};
  }
  Project project{config.directory, *id, options_.enforce ? diskLimit(config.resources) : 0};
  if (auto limited = setLimit(project.id, project.limit); !limited) return limited.error();
  if (auto assigned = assign(project); !assigned) return assigned.error();
  used_.insert(*id);
  containers_[config.containerId.value()] = std::move(project);
  return mesos::isolation::LaunchRequirements{};
}

Result<void> DiskXfsIsolator::update(const ContainerID& containerId, const Resources& resources) {
  if (!options_.enforce) return {};
  std::lock_guard lock(mutex_);
  auto it = containers_.find(containerId.value());
  if (it == containers_.end()) return {};
  uint64_t limit = diskLimit(resources);
  if (limit == it->second.limit) return {};
  if (auto set = setLimit(it->second.id, limit); !set) return set;
  it->second.limit = limit;
  return {};
}

Result<void> DiskXfsIsolator::usage(const ContainerID& containerId,
                                    ResourceStatistics* statistics) {
  uint32_t id = 0;
  uint64_t limit = 0;
  {
    std::lock_guard lock(mutex_);
    auto it = containers_.find(containerId.value());
    if (it == containers_.end()) return {};
    id = it->second.id;
    limit = it->second.limit;
  }
  struct fs_disk_quota quota {};
  if (::quotactl(QCMD(Q_XGETQUOTA, PRJQUOTA), device_.c_str(), static_cast<int>(id),
                 reinterpret_cast<caddr_t>(&quota)) != 0) {
    return Error{"cannot read the usage of XFS project " + std::to_string(id) + ": " + errnoText()};
  }
  statistics->set_disk_used_bytes(quota.d_bcount * kBlock);
  if (limit > 0) statistics->set_disk_limit_bytes(limit);
  return {};
}

Result<void> DiskXfsIsolator::cleanup(const ContainerID& containerId) {
  std::lock_guard lock(mutex_);
  auto it = containers_.find(containerId.value());
  if (it == containers_.end()) return {};
  Project project = it->second;
  containers_.erase(it);
  // The sandbox stays until it is garbage collected: its files go back to
  // project 0, so that the id starts empty for its next container.
  Project none{project.directory, 0, 0};
  std::error_code ec;
  if (std::filesystem::exists(project.directory, ec)) {
    if (auto reset = assign(none); !reset) {
      // Kept out of use: its blocks would count against its next owner.
      LOG(WARNING) << "disk/xfs: " << reset.error().message << "; project " << project.id
                   << " stays out of use";
      return reset;
    }
  }
  used_.erase(project.id);
  return setLimit(project.id, 0);
}

}  // namespace mesos::internal::isolation
