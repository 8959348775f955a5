// The slave's HTTP endpoints: /slave(N)/state (also state.json) and
// /slave(N)/health.
#include <glog/logging.h>

#include "common/state_json.hpp"
#include "slave/machine.hpp"
#include "slave/slave.hpp"

namespace mesos::internal::slave {

using process::Future;
using process::http::Request;
using process::http::Response;

namespace {

json::Value queuedTaskModel(const TaskInfo& task, const FrameworkID& frameworkId) {
  json::Object object;
  object["id"] = task.task_id().value();
  object["name"] = task.name();
  object["framework_id"] = frameworkId.value();
  object["executor_id"] = task.has_executor() ? task.executor().executor_id().value() : "";
  object["slave_id"] = task.slave_id().value();
  object["state"] = "TASK_STAGING";
  object["resources"] = json::fromResources(Resources(task.resources()));
  return object;
}

const char* executorStateName(Executor::State state) {
  switch (state) {
    case Executor::State::kRegistering: return "REGISTERING";
    case Executor::State::kRunning: return "RUNNING";
    case Executor::State::kTerminating: return "TERMINATING";
    case Executor::State::kTerminated: return "TERMINATED";
  }
  return "UNKNOWN";
}

json::Value executorModel(const Executor& executor) {
  json::Object object;
  object["id"] = executor.info.executor_id().value();
  object["name"] = executor.info.name();
  object["source"] = executor.info.source();
  object["container"] = executor.containerId.value();
  object["directory"] = executor.directory;
  object["state"] = executorStateName(executor.state);
  object["pid"] = executor.pid ? executor.pid.toString() : "";
  object["resources"] = json::fromResources(executor.resources());
  json::Array tasks;
  for (const auto& [id, task] : executor.launchedTasks) tasks.push_back(json::fromTask(task));
  object["tasks"] = std::move(tasks);
  json::Array queued;
  for (const TaskInfo& task : executor.queuedTasks) {
    queued.push_back(queuedTaskModel(task, executor.frameworkId));
  }
  object["queued_tasks"] = std::move(queued);
  json::Array completed;
  for (const auto& [id, task] : executor.terminatedTasks) completed.push_back(json::fromTask(task));
  for (const Task& task : executor.completedTasks) completed.push_back(json::fromTask(task));
  object["completed_tasks"] = std::move(completed);
  return object;
}

json::Value frameworkModel(const Framework& framework) {
  json::Object object;
  object["id"] = framework.id.value();
  object["name"] = framework.info.name();
  object["user"] = framework.info.user();
  object["role"] = framework.info.role();
  object["hostname"] = framework.info.hostname();
  object["checkpoint"] = framework.info.checkpoint();
  object["failover_timeout"] = framework.info.failover_timeout();
  object["pid"] = framework.pid ? framework.pid.toString() : "";
  json::Array executors;
  for (const auto& [id, executor] : framework.executors) executors.push_back(executorModel(*executor));
  object["executors"] = std::move(executors);
  json::Array completed;
  for (const auto& executor : framework.completedExecutors) completed.push_back(executorModel(*executor));
  object["completed_executors"] = std::move(completed);
  return object;
}

}  // namespace

json::Value Slave::state() const {
  json::Object object;
  object["version"] = kVersion;
  object["id"] = info_.has_id() ? info_.id().value() : "";
  object["pid"] = self().toString();
  object["hostname"] = info_.hostname();
  object["start_time"] = startTime_;
  object["resources"] = json::fromResources(Resources(info_.resources()));
  object["attributes"] = json::fromAttributes(info_.attributes());
  object["master_hostname"] = master_ ? master_->address.ipString() : "";
  object["registered"] = state_ == State::kRunning;

  json::Object flags;
  for (const auto& [name, value] : flags_.values()) flags[name] = value;
  object["flags"] = std::move(flags);

  json::Array frameworks;
  for (const auto& [id, framework] : frameworks_) frameworks.push_back(frameworkModel(*framework));
  object["frameworks"] = std::move(frameworks);
  json::Array completed;
  for (const auto& framework : completedFrameworks_) completed.push_back(frameworkModel(*framework));
  object["completed_frameworks"] = std::move(completed);
  return object;
}

Future<Response> Slave::stateEndpoint(const Request&) {
  return Response::ok(json::stringify(state()));
}

Future<Response> Slave::healthEndpoint(const Request&) {
  return Response::ok("", "text/plain");
}

}  // namespace mesos::internal::slave
