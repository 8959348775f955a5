#include "slave/monitor.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <glog/logging.h>

#include "common/json.hpp"

namespace mesos::internal::slave {

namespace {

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Monitor::Monitor(std::shared_ptr<Containerizer> containerizer,
                 std::optional<docker::Endpoint> docker)
    : Actor(process::generateId("monitor")),
      containerizer_(std::move(containerizer)),
      docker_(std::move(docker)) {}

process::http::Response Monitor::statistics(const std::vector<MonitoredExecutor>& executors) {
  json::Array entries;
  entries.reserve(executors.size());
  for (const MonitoredExecutor& executor : executors) {
    json::Object entry;
    entry["framework_id"] = executor.frameworkId.value();
    entry["executor_id"] = executor.executorId.value();
    entry["executor_name"] = executor.name;
    entry["source"] = executor.source;
    ResourceStatistics statistics = containerizer_->usage(executor.containerId, executor.resources);
    if (!executor.dockerContainer.empty() && docker_) {
      if (auto added = addDockerUsage(executor.dockerContainer, &statistics); !added) {
        VLOG(1) << "No usage of Docker container " << executor.dockerContainer << ": "
                << added.error().message;
      }
    }
    entry["statistics"] = json::fromProto(statistics);
    entries.push_back(std::move(entry));
  }
  return process::http::Response::ok(json::stringify(json::Value(std::move(entries))));
}

Result<void> Monitor::addDockerUsage(const std::string& name, ResourceStatistics* statistics) {
  // The container's first process, and from it the container's cgroups,
  // whichever cgroup driver the daemon uses.
  auto inspected = docker::run(docker::inspectArguments(*docker_, name));
  if (!inspected) return inspected.error();
  if (!inspected->succeeded()) return Error{inspected->reason()};
  auto state = docker::parseInspect(inspected->out);
  if (!state) return state.error();
  if (!state->running || state->pid <= 0) return Error{"it does not run"};
  auto memberships =
      cgroups::parseProcCgroup(readAll("/proc/" + std::to_string(state->pid) + "/cgroup"));
  if (!memberships) return memberships.error();
  if (!layout_) layout_ = cgroups::Layout::detect();
  if (!*layout_) return layout_->error();
  const cgroups::Layout& layout = layout_->value();
  const bool v2 = layout.version() == cgroups::Version::kV2;

  // Each hierarchy on its own (v1 may place the container differently in
  // each); the figures of all of them, summed onto the executor's.
  cgroups::Statistics total;
  for (const char* controller : {"cpu", "cpuacct", "memory"}) {
    if (v2 && std::string(controller) != "cpu") break;  // one hierarchy
    std::optional<std::string> path;
    for (const cgroups::Membership& membership : *memberships) {
      bool member = v2 ? membership.controllers.empty()
                       : std::find(membership.controllers.begin(), membership.controllers.end(),
                                   controller) != membership.controllers.end();
      if (member) path = membership.path;
    }
    if (!path || *path == "/" || (!v2 && !layout.has(controller))) continue;
    auto cgroup = layout.cgroup(
        path->substr(1), v2 ? std::vector<std::string>{} : std::vector<std::string>{controller},
        std::string("/"));
    if (!cgroup) return cgroup.error();
    auto measured = cgroups::statistics(*cgroup);
    if (!measured) return measured.error();
    auto take = [](auto& into, const auto& from) {
      if (from) into = from;
    };
    take(total.cpuUserSeconds, measured->cpuUserSeconds);
    take(total.cpuSystemSeconds, measured->cpuSystemSeconds);
    take(total.memoryBytes, measured->memoryBytes);
    take(total.memoryAnonBytes, measured->memoryAnonBytes);
    take(total.memoryFileBytes, measured->memoryFileBytes);
    if (std::string(controller) == "memory" || v2) {
      take(total.processes, measured->processes);
      take(total.threads, measured->threads);
    }
  }
  if (total.cpuUserSeconds) {
    statistics->set_cpus_user_time_secs(statistics->cpus_user_time_secs() + *total.cpuUserSeconds);
  }
  if (total.cpuSystemSeconds) {
    statistics->set_cpus_system_time_secs(statistics->cpus_system_time_secs() +
                                          *total.cpuSystemSeconds);
  }
  if (total.memoryBytes) {
    statistics->set_mem_total_bytes(statistics->mem_total_bytes() + *total.memoryBytes);
  }
  if (total.memoryAnonBytes) {
    statistics->set_mem_anon_bytes(statistics->mem_anon_bytes() + *total.memoryAnonBytes);
    statistics->set_mem_rss_bytes(statistics->mem_rss_bytes() + *total.memoryAnonBytes);
  }
  if (total.memoryFileBytes) {
    statistics->set_mem_file_bytes(statistics->mem_file_bytes() + *total.memoryFileBytes);
  }
  if (total.processes) {
    statistics->set_processes(statistics->processes() + static_cast<uint32_t>(*total.processes));
  }
  if (total.threads) {
    statistics->set_threads(statistics->threads() + static_cast<uint32_t>(*total.threads));
  }
  return {};
}

}  // namespace mesos::internal::slave
