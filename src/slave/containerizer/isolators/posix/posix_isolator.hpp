// posix/cpu and posix/mem: measure an executor's process tree from /proc
// (CPU times, resident memory, processes, threads) and enforce nothing; one
// isolator serves both names, with one scan of /proc a measurement. The
// container is the executor's session and what its descendants started (see
// containerMembers()); a process that left it with setsid after its parent
// died is not seen.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "mesos/isolator.hpp"

namespace mesos::internal::isolation {

class PosixIsolator : public mesos::isolation::Isolator {
 public:
  PosixIsolator(bool cpu, bool mem) : cpu_(cpu), mem_(mem) {}

  std::string name() const override;
  Result<void> recover(const std::map<std::string, pid_t>& known) override;
  Result<mesos::isolation::LaunchRequirements> prepare(
      const mesos::isolation::ContainerConfig& config) override;
  Result<void> isolate(const ContainerID& containerId, pid_t pid) override;
  Result<void> update(const ContainerID& containerId, const Resources& resources) override;
  Result<void> usage(const ContainerID& containerId, ResourceStatistics* statistics) override;
  Result<void> kill(const ContainerID& containerId) override;
  Result<void> cleanup(const ContainerID& containerId) override;

 private:
  const bool cpu_;  // posix/cpu: CPU times
  const bool mem_;  // posix/mem: resident memory
  std::map<std::string, pid_t> leaders_;  // container id -> executor pid
};

}  // namespace mesos::internal::isolation
