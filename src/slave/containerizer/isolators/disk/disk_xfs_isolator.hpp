// disk/xfs: a container's sandbox is an XFS project of its own, as Apache
// Mesos's isolator of the same name does it. The sandbox directory gets a
// project id from --xfs_project_range, inherited by everything created
// below it; the filesystem counts the project's blocks as they are written,
// so usage is exact and costs no walk. With --enforce_container_disk_quota
// the project's hard limit is the container's `disk`: a write past it
// fails with EDQUOT as it happens (disk/du only finds it at its next walk).
//
// Needs --work_dir on XFS mounted with project quotas (`-o prjquota`); the
// slave refuses to start otherwise, saying which (docs/isolation.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "mesos/isolator.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::isolation {

struct DiskXfsOptions {
  std::string workDir;       // --work_dir: the sandboxes are below it
  std::string projectRange;  // --xfs_project_range, "[first-last]"
  bool enforce = false;      // --enforce_container_disk_quota: a hard limit
};

class DiskXfsIsolator : public mesos::isolation::Isolator {
 public:
  // Fails when --work_dir is not on XFS with project quotas enforced, or the
  // range is not "[first-last]" with 0 < first <= last.
  static Result<std::unique_ptr<DiskXfsIsolator>> create(DiskXfsOptions options);

  std::string name() const override { return "disk/xfs"; }
  Result<void> recover(const std::map<std::string, pid_t>& known) override;
  void recovered(const mesos::isolation::ContainerConfig& config) override;
  Result<mesos::isolation::LaunchRequirements> prepare(
      const mesos::isolation::ContainerConfig& config) override;
  Result<void> isolate(const ContainerID&, pid_t) override { return {}; }
  Result<void> update(const ContainerID& containerId, const Resources& resources) override;
  Result<void> usage(const ContainerID& containerId, ResourceStatistics* statistics) override;
  Result<void> kill(const ContainerID&) override { return {}; }
  Result<void> cleanup(const ContainerID& containerId) override;

  // Why `directory` cannot hold XFS projects with quotas (nothing when it
  // can), and the block device of its filesystem.
  static Result<std::string> projectQuotaDevice(const std::string& directory);

 private:
  DiskXfsIsolator(DiskXfsOptions options, std::string device, uint32_t first, uint32_t last);

  struct Project {
    std::string directory;
    uint32_t id = 0;
    uint64_t limit = 0;  // bytes; 0: none
  };
  // Sets the project's limit (0: none) on the filesystem.
  Result<void> setLimit(uint32_t id, uint64_t bytes);
  Result<void> assign(const Project& project);

  const DiskXfsOptions options_;
  const std::string device_;
  const uint32_t first_;
  const uint32_t last_;
  std::mutex mutex_;                           // guards what follows
  std::map<std::string, Project> containers_;  // by container id
  std::set<uint32_t> used_;
};

}  // namespace mesos::internal::isolation
