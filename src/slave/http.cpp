// The slave's HTTP endpoints: /state (also state.json), /flags, /version,
// /metrics/snapshot, /health and /monitor/statistics (measured by the
// monitor, monitor.hpp).
#include <glog/logging.h>

#include "common/state_json.hpp"
#include "process/dispatch.hpp"
#include "slave/machine.hpp"
#include "slave/protobufs.hpp"
#include "slave/slave.hpp"

namespace mesos::internal::slave {

using process::Future;
using process::http::Request;
using process::http::Response;

namespace {

using authorizer::Action;

// What a principal may see of the slave's frameworks, executors and tasks.
struct Viewer {
  const authentication::EndpointGuard& guard;
  const std::optional<std::string>& principal;
  bool sees(Action action, const std::string& user) const {
    return guard.authorized(action, principal, user);
  }
};

std::string userOf(const TaskInfo& task, const std::string& fallback) {
  if (task.has_command() && task.command().has_user()) return task.command().user();
  if (task.has_executor() && task.executor().command().has_user()) {
    return task.executor().command().user();
  }
  return fallback;
}

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

json::Value executorModel(const Executor& executor, const std::string& isolation,
                          const std::string& user, const Viewer& viewer) {
  auto taskUser = [&](const Task& task) { return task.has_user() ? task.user() : user; };
  json::Object object;
  object["id"] = executor.info.executor_id().value();
  object["name"] = executor.info.name();
  object["source"] = executor.info.source();
  object["container"] = executor.containerId.value();
  object["isolation"] = isolation;  // the isolators around its container
  object["directory"] = executor.directory;
  object["state"] = executorStateName(executor.state);
  object["pid"] = executor.pid ? executor.pid.toString() : "";
  object["resources"] = json::fromResources(executor.resources());
  json::Array tasks;
  for (const auto& [id, task] : executor.launchedTasks) {
    if (viewer.sees(Action::kViewTask, taskUser(task))) tasks.push_back(json::fromTask(task));
  }
  object["tasks"] = std::move(tasks);
  json::Array queued;
  for (const TaskInfo& task : executor.queuedTasks) {
    if (viewer.sees(Action::kViewTask, userOf(task, user))) {
      queued.push_back(queuedTaskModel(task, executor.frameworkId));
    }
  }
  object["queued_tasks"] = std::move(queued);
  json::Array completed;
  for (const auto& [id, task] : executor.terminatedTasks) {
    if (viewer.sees(Action::kViewTask, taskUser(task))) completed.push_back(json::fromTask(task));
  }
  for (const Task& task : executor.completedTasks) {
    if (viewer.sees(Action::kViewTask, taskUser(task))) completed.push_back(json::fromTask(task));
  }
  object["completed_tasks"] = std::move(completed);
  return object;
}

json::Value frameworkModel(const Framework& framework, const std::string& isolation,
                           const Viewer& viewer) {
  const std::string& user = framework.info.user();
  auto visible = [&](const Executor& executor) {
    const CommandInfo& command = executor.info.command();
    return viewer.sees(Action::kViewExecutor, command.has_user() ? command.user() : user);
  };
  json::Object object;
  object["id"] = framework.id.value();
  object["name"] = framework.info.name();
  object["user"] = framework.info.user();
  if (framework.info.roles_size() > 0) {
    // A MULTI_ROLE framework (Apache Mesos shows its roles).
    json::Array roles;
    for (const std::string& role : framework.info.roles()) roles.push_back(role);
    object["roles"] = std::move(roles);
    object["role"] = framework.info.roles(0);
  } else {
    object["role"] = framework.info.role();
  }
  object["hostname"] = framework.info.hostname();
  object["checkpoint"] = framework.info.checkpoint();
  object["failover_timeout"] = framework.info.failover_timeout();
  object["pid"] = framework.pid ? framework.pid.toString() : "";
  json::Array executors;
  for (const auto& [id, executor] : framework.executors) {
    if (visible(*executor)) executors.push_back(executorModel(*executor, isolation, user, viewer));
  }
  object["executors"] = std::move(executors);
  json::Array completed;
  for (const auto& executor : framework.completedExecutors) {
    if (visible(*executor)) completed.push_back(executorModel(*executor, isolation, user, viewer));
  }
  object["completed_executors"] = std::move(completed);
  return object;
}

}  // namespace

// The guard puts each route in Apache's realm (mesos-agent-readonly;
// /health and /version in none). Which origins may read the answers is the
// runtime's business (process/cors.hpp).
void Slave::installRoutes() {
  using authentication::Realm;
  auto readonly = [this](const std::string& path,
                         Future<Response> (Slave::*handler)(const Request&)) {
    return guard_->guard(Realm::kReadonly, path, [this, handler](const Request& request) {
      return (this->*handler)(request);
    });
  };
  route("/state", readonly("/state", &Slave::stateEndpoint));
  route("/state.json", readonly("/state.json", &Slave::stateEndpoint));
  route("/flags", readonly("/flags", &Slave::flagsEndpoint));
  route("/version", &Slave::versionEndpoint);
  route("/metrics/snapshot", readonly("/metrics/snapshot", &Slave::metricsEndpoint));
  route("/health", &Slave::healthEndpoint);
  route("/monitor/statistics", readonly("/monitor/statistics", &Slave::monitorEndpoint));
  route("/monitor/statistics.json", readonly("/monitor/statistics", &Slave::monitorEndpoint));
}

json::Value Slave::stateFor(const std::optional<std::string>& principal) const {
  Viewer viewer{*guard_, principal};
  json::Object object = json::versionInfo();
  object["version"] = kVersion;
  object["id"] = info_.has_id() ? info_.id().value() : "";
  object["pid"] = self().toString();
  object["hostname"] = info_.hostname();
  object["start_time"] = startTime_;
  const Resources& total = totalResources_;
  object["resources"] = json::fromResources(total);
  object["reserved_resources"] = json::reservedResources(total);
  object["unreserved_resources"] = json::unreservedResources(total);
  // Each resource in full (reservations, volumes), as Apache's agent
  // renders them: {"eng": [{"name": "disk", ...}]} and [{"name": "cpus", ...}].
  std::map<std::string, json::Array> reservedByRole;
  json::Array unreservedFull;
  for (const Resource& resource : total) {
    if (resource.role() == "*") {
      unreservedFull.push_back(json::fromProto(resource));
    } else {
      reservedByRole[resource.role()].push_back(json::fromProto(resource));
    }
  }
  json::Object reservedFull;
  for (auto& [role, list] : reservedByRole) reservedFull[role] = std::move(list);
  object["reserved_resources_full"] = std::move(reservedFull);
  object["unreserved_resources_full"] = std::move(unreservedFull);
  object["attributes"] = json::fromAttributes(info_.attributes());
  object["master_hostname"] = master_ ? master_->address.ipString() : "";
  object["registered"] = state_ == State::kRunning;

  if (guard_->authorized(Action::kViewFlags, principal, std::nullopt)) {
    object["flags"] = json::fromFlags(flags_);
  }

  json::Array frameworks;
  const std::string isolation = containerizer_->isolation();
  for (const auto& [id, framework] : frameworks_) {
    if (viewer.sees(Action::kViewFramework, framework->info.user())) {
      frameworks.push_back(frameworkModel(*framework, isolation, viewer));
    }
  }
  object["frameworks"] = std::move(frameworks);
  json::Array completed;
  for (const auto& framework : completedFrameworks_) {
    if (viewer.sees(Action::kViewFramework, framework->info.user())) {
      completed.push_back(frameworkModel(*framework, isolation, viewer));
    }
  }
  object["completed_frameworks"] = std::move(completed);
  return object;
}

Future<Response> Slave::stateEndpoint(const Request& request) {
  return Response::ok(json::stringify(stateFor(request.principal)));
}

Future<Response> Slave::flagsEndpoint(const Request& request) {
  if (!guard_->authorized(Action::kViewFlags, request.principal, std::nullopt)) {
    return authentication::EndpointGuard::forbidden(
        "Not authorized to view the flags (ACL view_flags)");
  }
  json::Object body;
  body["flags"] = json::fromFlags(flags_);
  return Response::ok(json::stringify(body));
}

Future<Response> Slave::versionEndpoint(const Request&) {
  return Response::ok(json::stringify(json::versionInfo()));
}

json::Object Slave::metrics() const {
  uint64_t staging = 0, starting = 0, running = 0;
  uint64_t registering = 0, runningExecutors = 0, terminating = 0;
  Resources used;
  for (const auto& [frameworkId, framework] : frameworks_) {
    for (const auto& [executorId, executor] : framework->executors) {
      switch (executor->state) {
        case Executor::State::kRegistering: registering++; break;
        case Executor::State::kRunning: runningExecutors++; break;
        case Executor::State::kTerminating: terminating++; break;
        case Executor::State::kTerminated: break;
      }
      if (executor->state != Executor::State::kTerminated) used += executor->resources();
      staging += executor->queuedTasks.size();
      for (const auto& [taskId, task] : executor->launchedTasks) {
        switch (task.state()) {
          case TASK_STAGING: staging++; break;
          case TASK_STARTING: starting++; break;
          case TASK_RUNNING: running++; break;
          default: break;
        }
      }
    }
  }
  uint64_t activeFrameworks = 0;
  for (const auto& [id, framework] : frameworks_) {
    if (!framework->terminating) activeFrameworks++;
  }

  json::Object metrics;
  metrics["slave/registered"] = state_ == State::kRunning ? 1 : 0;
  metrics["slave/uptime_secs"] = wallTime() - startTime_;
  metrics["slave/frameworks_active"] = activeFrameworks;
  metrics["slave/tasks_staging"] = staging;
  metrics["slave/tasks_starting"] = starting;
  metrics["slave/tasks_running"] = running;
  metrics["slave/tasks_finished"] = metrics_.tasksFinished;
  metrics["slave/tasks_failed"] = metrics_.tasksFailed;
  metrics["slave/tasks_killed"] = metrics_.tasksKilled;
  metrics["slave/tasks_lost"] = metrics_.tasksLost;
  metrics["slave/tasks_error"] = metrics_.tasksError;
  metrics["slave/executors_registering"] = registering;
  metrics["slave/executors_running"] = runningExecutors;
  metrics["slave/executors_terminating"] = terminating;
  metrics["slave/executors_terminated"] = metrics_.executorsTerminated;
  metrics["slave/valid_status_updates"] = metrics_.validStatusUpdates;
  metrics["slave/invalid_status_updates"] = metrics_.invalidStatusUpdates;
  metrics["slave/valid_framework_messages"] = metrics_.validFrameworkMessages;
  metrics["slave/invalid_framework_messages"] = metrics_.invalidFrameworkMessages;
  metrics["slave/checkpoint_failures"] = metrics_.checkpointFailures;
  metrics["slave/checkpoints_failing"] = checkpointFailure_ ? 1 : 0;
  const Resources& total = totalResources_;
  for (const char* name : {"cpus", "gpus", "mem", "disk"}) {
    double totalValue = total.scalar(name);
    double usedValue = used.scalar(name);
    std::string prefix = std::string("slave/") + name;
    metrics[prefix + "_total"] = totalValue;
    metrics[prefix + "_used"] = usedValue;
    metrics[prefix + "_percent"] = totalValue > 0 ? usedValue / totalValue : 0.0;
  }
  return metrics;
}

Future<Response> Slave::metricsEndpoint(const Request&) {
  return Response::ok(json::stringify(metrics()));
}

// Healthy: 200 with an empty body (as Apache's). While checkpoints cannot
// be written: 503 with the reason on one line.
Future<Response> Slave::healthEndpoint(const Request&) {
  if (checkpointFailure_) {
    return Response::serviceUnavailable("Unhealthy: " + *checkpointFailure_ + "\n");
  }
  return Response::ok("", "text/plain");
}

Future<Response> Slave::monitorEndpoint(const Request&) {
  // The executors whose containers exist; the monitor measures them.
  std::vector<MonitoredExecutor> executors;
  for (const auto& [frameworkId, framework] : frameworks_) {
    for (const auto& [executorId, executor] : framework->executors) {
      if (executor->state == Executor::State::kTerminated || executor->osPid <= 0) continue;
      executors.push_back({executor->frameworkId, executor->info.executor_id(),
                           executor->info.name(), executor->info.source(), executor->containerId,
                           executor->resources(), executor->dockerContainer});
    }
  }
  return process::dispatch(monitor_.pid(), &Monitor::statistics, std::move(executors));
}

}  // namespace mesos::internal::slave
