// cgroups/cpu, cgroups/mem, cgroups/pids: each executor in a cgroup of its
// own (cgroup v1 or v2, as --cgroups_hierarchy is), under the slave's own
// cgroup and --cgroups_root. CPU shares (v1 cpu.shares, v2 cpu.weight) and,
// with --cgroups_enable_cfs, a hard cap; a memory limit whose breach kills
// the container and fails its tasks (REASON_CONTAINER_LIMITATION_MEMORY);
// statistics from the cgroup; every process killed on destroy (freezer, or
// cgroup.kill), setsid and double forks included. One isolator serves all
// the cgroups/* names --isolation gives. docs/isolation.md.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "slave/containerizer/isolators/cgroups/cgroups.hpp"
#include "mesos/isolator.hpp"

namespace mesos::internal::isolation {

struct CgroupsOptions {
  std::string hierarchy = "/sys/fs/cgroup";  // --cgroups_hierarchy
  std::string root = "mesos";                // --cgroups_root
  bool enableCfs = false;                    // --cgroups_enable_cfs
  bool limitSwap = false;                    // --cgroups_limit_swap
  std::set<std::string> subsystems;          // of "cpu", "mem", "pids"
  mesos::isolation::LimitationCallback onLimitation;
};

class CgroupsIsolator : public mesos::isolation::Isolator {
 public:
  // Detects the layout and checks that every controller the subsystems need
  // is there and writable. Fails with one line naming what is missing.
  static Result<std::unique_ptr<CgroupsIsolator>> create(CgroupsOptions options);
  ~CgroupsIsolator() override;

  std::string name() const override;
  // Its state is under mutex_ (the OOM watcher's thread reads it too), and
  // a cgroup's destroy (kill(), cleanup()) waits without holding it.
  bool concurrent() const override { return true; }
  Result<void> recover(const std::map<std::string, pid_t>& known) override;
  Result<mesos::isolation::LaunchRequirements> prepare(
      const mesos::isolation::ContainerConfig& config) override;
  Result<void> isolate(const ContainerID& containerId, pid_t pid) override;
  Result<void> update(const ContainerID& containerId, const Resources& resources) override;
  Result<void> usage(const ContainerID& containerId, ResourceStatistics* statistics) override;
  Result<void> kill(const ContainerID& containerId) override;
  Result<void> cleanup(const ContainerID& containerId) override;
  std::optional<mesos::isolation::ContainerLimitation> limitation(
      const ContainerID& containerId) override;
  // The pids in the container's cgroup and below (v1: its first
  // hierarchy's; every hierarchy holds them all).
  std::optional<std::vector<pid_t>> processes(const ContainerID& containerId) override;

 private:
  struct Container {
    cgroups::Cgroup cgroup;
    std::unique_ptr<cgroups::OomWatcher> oom;  // with cgroups/mem
    uint64_t key = 0;  // its OOM watch's key in epollFd_ (0: none)
    uint64_t memLimit = 0;                     // bytes, as written
    uint64_t memWanted = 0;  // bytes, when a lower limit waits for usage to fall
    // The limit it went past, once found (by the watcher or limitation()).
    std::optional<mesos::isolation::ContainerLimitation> limitation = std::nullopt;
  };

  CgroupsIsolator(CgroupsOptions options, cgroups::Layout layout,
                  std::vector<std::string> controllers);
  Result<cgroups::Cgroup> cgroupOf(const std::string& containerId) const;
  Result<void> setMemory(const std::string& id, Container& container, uint64_t bytes);
  void watchLoop();
  // Adds the container's OOM watch to epollFd_, armed for one event (the
  // watcher re-arms it). Closing the watch's descriptor removes it.
  // REQUIRES: mutex_ held.
  void watchOom(const std::string& id, Container& container);
  // Stops watching the container for OOM. REQUIRES: mutex_ held.
  void forget(Container& container);
  // Whether `container` ran out of memory since it was last looked at; if so
  // records its limitation. REQUIRES: mutex_ held.
  bool outOfMemory(const std::string& id, Container& container);
  void wake();

  const CgroupsOptions options_;
  const cgroups::Layout layout_;
  const std::vector<std::string> controllers_;  // the cgroup controllers used

  std::mutex mutex_;  // guards containers_ (the watcher thread reads it)
  std::map<std::string, Container> containers_;
  std::map<uint64_t, std::string> watched_;  // OOM watch key -> container id
  uint64_t nextKey_ = 1;
  int epollFd_ = -1;  // the OOM watches and wakeFd_ (key 0)
  int wakeFd_ = -1;   // eventfd: the watcher stops
  std::atomic<bool> stopping_{false};
  std::thread watcher_;
};

}  // namespace mesos::internal::isolation
