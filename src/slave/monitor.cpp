#include "slave/monitor.hpp"

#include "common/json.hpp"

namespace mesos::internal::slave {

Monitor::Monitor(std::shared_ptr<Containerizer> containerizer)
    : Actor(process::generateId("monitor")), containerizer_(std::move(containerizer)) {}

process::http::Response Monitor::statistics(const std::vector<MonitoredExecutor>& executors) {
  json::Array entries;
  entries.reserve(executors.size());
  for (const MonitoredExecutor& executor : executors) {
    json::Object entry;
    entry["framework_id"] = executor.frameworkId.value();
    entry["executor_id"] = executor.executorId.value();
    entry["executor_name"] = executor.name;
    entry["source"] = executor.source;
    entry["statistics"] =
        json::fromProto(containerizer_->usage(executor.containerId, executor.resources));
    entries.push_back(std::move(entry));
  }
  return process::http::Response::ok(json::stringify(json::Value(std::move(entries))));
}

}  // namespace mesos::internal::slave
