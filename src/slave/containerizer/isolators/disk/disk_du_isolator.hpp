// disk/du: measures the disk a container's sandbox uses, as Apache Mesos's
// disk/du isolator does: a walk of the sandbox every
// --container_disk_watch_interval, counting the blocks each file holds
// (du -k -s), each inode once, not crossing into other filesystems. With
// --enforce_container_disk_quota a container found using more than its
// `disk` resource is reported as limited (REASON_CONTAINER_LIMITATION_DISK)
// and the slave kills it; without, usage is only measured. Nothing stops a
// write: the limit is found at the next walk (docs/isolation.md).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "mesos/isolator.hpp"

namespace mesos::internal::isolation {

struct DiskDuOptions {
  std::chrono::milliseconds interval{15000};  // --container_disk_watch_interval
  bool enforce = false;                       // --enforce_container_disk_quota
  mesos::isolation::LimitationCallback onLimitation;
};

class DiskDuIsolator : public mesos::isolation::Isolator {
 public:
  explicit DiskDuIsolator(DiskDuOptions options);
  ~DiskDuIsolator() override;

  std::string name() const override { return "disk/du"; }
  Result<void> recover(const std::map<std::string, pid_t>& known) override;
  void recovered(const mesos::isolation::ContainerConfig& config) override;
  Result<mesos::isolation::LaunchRequirements> prepare(
      const mesos::isolation::ContainerConfig& config) override;
  Result<void> isolate(const ContainerID&, pid_t) override { return {}; }
  Result<void> update(const ContainerID& containerId, const Resources& resources) override;
  Result<void> usage(const ContainerID& containerId, ResourceStatistics* statistics) override;
  Result<void> kill(const ContainerID&) override { return {}; }
  Result<void> cleanup(const ContainerID& containerId) override;
  std::optional<mesos::isolation::ContainerLimitation> limitation(
      const ContainerID& containerId) override;

  // The bytes the files below `directory` hold on disk (du -k -s, in bytes).
  static uint64_t measure(const std::string& directory);

 private:
  struct Watched {
    std::string directory;
    std::optional<uint64_t> limit;  // bytes; none until the resources say
    std::optional<uint64_t> used;   // the last walk's
    std::optional<mesos::isolation::ContainerLimitation> limited;
  };
  void watch();
  // Walks every watched sandbox once; reports what went past its limit.
  void walk();

  const DiskDuOptions options_;
  std::mutex mutex_;  // guards containers_ and stopping_
  std::condition_variable wake_;
  std::map<std::string, Watched> containers_;
  bool stopping_ = false;
  std::thread watcher_;
};

}  // namespace mesos::internal::isolation
