#include "slave/containerizer/isolators/posix/posix_isolator.hpp"

#include <unistd.h>

#include "common/processes.hpp"

namespace mesos::internal::isolation {

std::string PosixIsolator::name() const {
  if (cpu_ && mem_) return "posix/cpu,posix/mem";
  return cpu_ ? "posix/cpu" : "posix/mem";
}

Result<void> PosixIsolator::recover(const std::map<std::string, pid_t>& known) {
  leaders_ = known;
  return {};
}

Result<mesos::isolation::LaunchRequirements> PosixIsolator::prepare(
    const mesos::isolation::ContainerConfig& config) {
  leaders_.emplace(config.containerId.value(), -1);
  return mesos::isolation::LaunchRequirements{};
}

Result<void> PosixIsolator::isolate(const ContainerID& containerId, pid_t pid) {
  leaders_[containerId.value()] = pid;
  return {};
}

Result<void> PosixIsolator::update(const ContainerID&, const Resources&) { return {}; }

Result<void> PosixIsolator::usage(const ContainerID& containerId, ResourceStatistics* statistics) {
  auto it = leaders_.find(containerId.value());
  if (it == leaders_.end()) return Error{"unknown container " + containerId.value()};
  if (it->second <= 0) return {};
  std::vector<ProcessEntry> table = processTable();
  uint64_t user = 0, system = 0, rss = 0, threads = 0;
  std::vector<const ProcessEntry*> members = containerMembers(table, it->second);
  for (const ProcessEntry* member : members) {
    user += member->userTicks;
    system += member->systemTicks;
    rss += member->rssPages;
    threads += member->threads;
  }
  statistics->set_processes(static_cast<uint32_t>(members.size()));
  statistics->set_threads(static_cast<uint32_t>(threads));
  if (cpu_) {
    const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
    statistics->set_cpus_user_time_secs(static_cast<double>(user) / tick);
    statistics->set_cpus_system_time_secs(static_cast<double>(system) / tick);
  }
  if (mem_) statistics->set_mem_rss_bytes(rss * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)));
  return {};
}

Result<void> PosixIsolator::kill(const ContainerID&) { return {}; }

Result<void> PosixIsolator::cleanup(const ContainerID& containerId) {
  leaders_.erase(containerId.value());
  return {};
}

}  // namespace mesos::internal::isolation
