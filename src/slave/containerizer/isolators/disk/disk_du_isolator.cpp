#include "slave/containerizer/isolators/disk/disk_du_isolator.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>
#include <vector>

#include <glog/logging.h>

#include "slave/containerizer/isolators/disk/sandbox_disk.hpp"

namespace mesos::internal::isolation {

namespace {

std::string megabytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MB", static_cast<double>(bytes) / (1024 * 1024));
  return text;
}

}  // namespace

DiskDuIsolator::DiskDuIsolator(DiskDuOptions options)
    : options_(std::move(options)), watcher_([this] { watch(); }) {}

DiskDuIsolator::~DiskDuIsolator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  watcher_.join();
}

uint64_t DiskDuIsolator::measure(const std::string& directory) {
  struct stat root {};
  if (::lstat(directory.c_str(), &root) != 0) return 0;
  uint64_t bytes = static_cast<uint64_t>(root.st_blocks) * 512;
  std::set<std::pair<dev_t, ino_t>> linked;  // inodes with several names, counted once
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(
      directory, std::filesystem::directory_options::skip_permission_denied, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    struct stat entry {};
    if (::lstat(it->path().c_str(), &entry) != 0) continue;
    if (entry.st_dev != root.st_dev) {
      // A mount below the sandbox (a volume) is not the sandbox's disk.
      if (S_ISDIR(entry.st_mode)) it.disable_recursion_pending();
      continue;
    }
    if (!S_ISDIR(entry.st_mode) && entry.st_nlink > 1 &&
        !linked.emplace(entry.st_dev, entry.st_ino).second) {
      continue;
    }
    bytes += static_cast<uint64_t>(entry.st_blocks) * 512;
  }
  return bytes;
}

Result<void> DiskDuIsolator::recover(const std::map<std::string, pid_t>&) {
  // The kept containers come with their sandboxes in recovered().
  return {};
}

void DiskDuIsolator::recovered(const mesos::isolation::ContainerConfig& config) {
  (void)prepare(config);  // watched as one launched now: its sandbox and its disk
}

Result<mesos::isolation::LaunchRequirements> DiskDuIsolator::prepare(
    const mesos::isolation::ContainerConfig& config) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Watched& watched = containers_[config.containerId.value()];
    watched.directory = config.directory;
    watched.limit = sandboxDiskLimit(config.resources);
  }
  return mesos::isolation::LaunchRequirements{};
}

Result<void> DiskDuIsolator::update(const ContainerID& containerId, const Resources& resources) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = containers_.find(containerId.value());
  if (it == containers_.end()) return {};  // not one this isolator watches
  it->second.limit = sandboxDiskLimit(resources);
  return {};
}

Result<void> DiskDuIsolator::usage(const ContainerID& containerId,
                                   ResourceStatistics* statistics) {
  std::string directory;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = containers_.find(containerId.value());
    if (it == containers_.end()) return Error{"unknown container " + containerId.value()};
    if (it->second.limit) statistics->set_disk_limit_bytes(*it->second.limit);
    if (it->second.used) {
      statistics->set_disk_used_bytes(*it->second.used);
      return {};
    }
    directory = it->second.directory;
  }
  // Not walked yet: walked now.
  if (!directory.empty()) statistics->set_disk_used_bytes(measure(directory));
  return {};
}

Result<void> DiskDuIsolator::cleanup(const ContainerID& containerId) {
  std::lock_guard<std::mutex> lock(mutex_);
  containers_.erase(containerId.value());
  return {};
}

std::optional<mesos::isolation::ContainerLimitation> DiskDuIsolator::limitation(
    const ContainerID& containerId) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = containers_.find(containerId.value());
  if (it == containers_.end()) return std::nullopt;
  return it->second.limited;
}

void DiskDuIsolator::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, options_.interval, [this] { return stopping_; });
    if (stopping_) return;
    lock.unlock();
    walk();
    lock.lock();
  }
}

void DiskDuIsolator::walk() {
  std::vector<std::pair<std::string, std::string>> sandboxes;  // container id, directory
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [id, watched] : containers_) {
      if (!watched.directory.empty()) sandboxes.emplace_back(id, watched.directory);
    }
  }
  for (const auto& [id, directory] : sandboxes) {
    const uint64_t used = measure(directory);
    std::optional<mesos::isolation::ContainerLimitation> report;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = containers_.find(id);
      if (it == containers_.end()) continue;  // cleaned up meanwhile
      Watched& watched = it->second;
      watched.used = used;
      if (!options_.enforce || watched.limited || !watched.limit || used <= *watched.limit) {
        continue;
      }
      mesos::isolation::ContainerLimitation limited;
      limited.containerId.set_value(id);
      limited.reason = TaskStatus::REASON_CONTAINER_LIMITATION_DISK;
      limited.message = "Disk usage (" + megabytes(used) + ") exceeds quota (" +
                        megabytes(*watched.limit) + ")";
      Resource disk;
      disk.set_name("disk");
      disk.set_type(Value::SCALAR);
      disk.mutable_scalar()->set_value(static_cast<double>(*watched.limit) / (1024 * 1024));
      limited.resources = Resources(disk);
      watched.limited = limited;
      report = limited;
    }
    if (report && options_.onLimitation) options_.onLimitation(*report);
  }
}

}  // namespace mesos::internal::isolation
