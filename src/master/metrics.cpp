// /metrics/snapshot: the master's counters (Master::metricsJson(), on the
// master's actor) and the allocator's, gathered by MetricsActor.
#include <cctype>

#include "common/json.hpp"
#include "master/master.hpp"
#include "master/metrics_actor.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using json::Object;
using process::Future;
using process::http::Request;
using process::http::Response;

// Cost: O(frameworks + task states); nothing here walks slaves or tasks.
std::string Master::metricsJson() {
  Object metrics;
  metrics["master/uptime_secs"] = now() - startTime_;
  metrics["master/elected"] = leading_ ? 1 : 0;
  int64_t active = 0, inactive = 0;
  registry_.forEachFramework([&](const Framework& f) { (f.active ? active : inactive)++; });
  metrics["master/frameworks_active"] = active;
  metrics["master/frameworks_inactive"] = inactive;
  metrics["master/frameworks_connected"] = active;
  metrics["master/frameworks_disconnected"] = inactive;
  metrics["master/frameworks_removed"] = metrics_.frameworksRemoved;
  auto inactiveSlaves = static_cast<int64_t>(registry_.inactiveSlaveCount());
  auto slaves = static_cast<int64_t>(registry_.slaveCount());
  metrics["master/slaves_active"] = slaves - inactiveSlaves;
  metrics["master/slaves_inactive"] = inactiveSlaves;
  metrics["master/slaves_connected"] = slaves - inactiveSlaves;
  metrics["master/slaves_disconnected"] = inactiveSlaves;
  metrics["master/slave_registrations"] = metrics_.slavesRegistered;
  metrics["master/slave_removals"] = metrics_.slavesRemoved;
  metrics["master/slave_shutdowns_scheduled"] = metrics_.slaveShutdownsScheduled;
  metrics["master/slave_unreachable_scheduled"] = metrics_.slaveUnreachableScheduled;
  metrics["master/slave_unreachable_completed"] = metrics_.slaveUnreachableCompleted;
  metrics["master/slave_unreachable_canceled"] = metrics_.slaveUnreachableCanceled;
  metrics["master/slave_removals_reason_unhealthy"] = metrics_.slaveRemovalsUnhealthy;
  metrics["master/slave_removals_reason_unregistered"] = metrics_.slaveRemovalsUnregistered;
  metrics["master/recovery_slave_removals"] = metrics_.recoverySlaveRemovals;
  metrics["master/slave_reregistrations_refused"] = metrics_.slaveReregistrationsRefused;
  metrics["master/slaves_unreachable"] = static_cast<int64_t>(unreachable_.size());
  metrics["master/slaves_gone"] = static_cast<int64_t>(gone_.size());
  metrics["master/slaves_recovering"] = static_cast<int64_t>(recovered_.size());
  if (registrar_) {
    // Apache Mesos's registrar metrics, and the registry's contents.
    const registrar::Stats& registry = *registrarStats_;
    metrics["registrar/state_fetch_ms"] = static_cast<double>(registry.recoveryUs) / 1000.0;
    metrics["registrar/state_store_ms"] = static_cast<double>(registry.lastWriteUs) / 1000.0;
    metrics["registrar/queued_operations"] = static_cast<int64_t>(registry.queued);
    metrics["registrar/registry_size_bytes"] = static_cast<int64_t>(registry.bytes);
    metrics["registrar/writes"] = static_cast<int64_t>(registry.writes);
  }
  metrics["master/outstanding_offers"] = static_cast<int64_t>(registry_.offerCount());
  metrics["master/offers_sent"] = metrics_.offersSent;
  metrics["master/offers_declined"] = metrics_.offersDeclined;
  metrics["master/offers_rescinded"] = metrics_.offersRescinded;
  metrics["master/tasks_launched"] = metrics_.tasksLaunched;
  metrics["master/invalid_tasks"] = metrics_.tasksInvalid;
  metrics["master/operations/finished"] = metrics_.operationsFinished;
  metrics["master/operations/error"] = metrics_.operationsError;
  metrics["master/valid_status_updates"] = metrics_.statusUpdates - metrics_.invalidStatusUpdates;
  metrics["master/invalid_status_updates"] = metrics_.invalidStatusUpdates;
  metrics["master/invalid_framework_to_executor_messages"] = metrics_.invalidFrameworkMessages;
  metrics["master/tasks_revoked"] = metrics_.tasksRevoked;
  metrics["master/revocation_executor_shutdowns"] = metrics_.revocationExecutorShutdowns;
  metrics["master/short_tasks_expired"] = metrics_.shortTasksExpired;
  // master/tasks_<state>: for a state a task can leave, how many tasks the
  // master holds in it now; for a terminal state, how many tasks ever
  // reached it (each counted once, including the TASK_ERROR and TASK_LOST
  // the master itself sent for tasks it refused).
  const auto* states = TaskState_descriptor();
  for (int i = 0; i < states->value_count(); i++) {
    auto state = static_cast<TaskState>(states->value(i)->number());
    std::string name = TaskState_Name(state).substr(5);  // "TASK_RUNNING" -> "RUNNING"
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (isTerminalState(state)) {
      metrics["master/tasks_" + name] = registry_.tasksReached(state);
    } else {
      metrics["master/tasks_" + name] = registry_.tasksIn(state);
    }
  }
  for (const auto& [name, count] : metrics_.messages) {
    metrics["master/messages_" + name] = count;
  }
  return json::stringify(metrics);
}

MetricsActor::MetricsActor(process::Pid<Master> master,
                           process::Pid<allocator::AllocatorActor> allocator,
                           std::shared_ptr<const authentication::EndpointGuard> guard)
    : Actor(idFor(master.id)),
      master_(std::move(master)),
      allocator_(std::move(allocator)),
      guard_(std::move(guard)) {}

void MetricsActor::initialize() {
  if (!guard_) {
    route("/snapshot", &MetricsActor::snapshot);
    return;
  }
  route("/snapshot", guard_->guard(authentication::Realm::kReadonly, "/metrics/snapshot",
                                   [this](const Request& request) { return snapshot(request); }));
}

Future<Response> MetricsActor::snapshot(const Request&) {
  auto allocator = allocator_;
  return process::dispatch(master_, &Master::metricsJson)
      .then(self(), [allocator, self = self()](const std::string& master) {
        return process::dispatch(allocator, &allocator::AllocatorActor::stats)
            .then(self, [master](const allocator::AllocatorActor::Stats& stats) {
              auto parsed = json::parse(master);
              Object metrics = parsed ? parsed->object() : Object();
              metrics["allocator/allocation_runs"] = stats.cycles;
              metrics["allocator/allocation_run_ms"] = stats.lastCycleMs;
              metrics["allocator/revocations"] = stats.revocations;
              return Response::ok(json::stringify(metrics));
            });
      });
}

}  // namespace mesos::internal::master
