// The durable registry of agents (docs/high-availability.md) and partition
// awareness (docs/partition-awareness.md): reading the registry before
// leading, storing each admission and removal before acting on it, agents
// that become unreachable (rate-limited), the agents a new leader waits
// for, what reconciliation answers for tasks the master does not hold, and
// the registry's garbage collection.
#include <glog/logging.h>

#include <algorithm>
#include <chrono>
#include <string_view>
#include <unordered_set>

#include "common/state_json.hpp"
#include "master/master.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using allocator::AllocatorActor;
using process::dispatch;
using registrar::Registrar;

namespace {

double seconds(process::Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

bool Master::partitionAware(const FrameworkInfo& info) {
  for (const auto& capability : info.capabilities()) {
    if (capability.type() == FrameworkInfo::Capability::PARTITION_AWARE) return true;
  }
  return false;
}

TaskState Master::stateFor(const Framework& framework, TaskState state) {
  return partitionAware(framework.info) ? state : TASK_LOST;
}

bool Master::hold(std::function<void()> call) {
  if (held_.size() >= kMaxHeld) {
    LOG_IF(WARNING, heldDropped_++ % 10000 == 0)
        << "Dropping a message while the registry is read: " << kMaxHeld
        << " are held already (its sender retries)";
    return false;
  }
  held_.push_back(std::move(call));
  return true;
}

void Master::recoverRegistry() {
  recovering_ = true;
  LOG(INFO) << "Reading the registry of agents (" << flags_.registryKind() << ")";
  // The answers go ahead of what the mailbox holds by then: every slave's
  // re-registration, each only held until the registry is read. The agents
  // stay in `read` (50,000 of them are not copied into a closure).
  auto read = dispatch(registrar_.pid(), &Registrar::recover);
  read.thenAhead(self(), [this, read](const Result<std::vector<registry::Agent>>& agents) {
    if (!agents) return registryRecovered(agents);
    // The maintenance schedule and modes (maintenance.cpp), read with the
    // agents.
    dispatch(registrar_.pid(), &Registrar::maintenance)
        .thenAhead(self(), [this, read](const registry::Maintenance& maintenance) {
          recoverMaintenance(maintenance);
          // Quota and weights (roles.cpp): the allocator has them before
          // anything is allocated.
          dispatch(registrar_.pid(), &Registrar::settings)
              .thenAhead(self(), [this, read](const registry::Settings& settings) {
                recoverSettings(settings);
                registryRead_ = read;  // recovered_ points into it
                registryRecovered(read.get());
              });
        });
  });
}

void Master::registryRecovered(const Result<std::vector<registry::Agent>>& agents) {
  if (!agents) {
    registryFailed(agents.error());
    return;
  }
  // The listed agents come back in a burst: room for them now.
  recovered_.reserve(agents.value().size());
  registry_.reserveSlaves(agents.value().size());
  for (const registry::Agent& agent : agents.value()) {
    const std::string& id = agent.info().id().value();
    // The operator's deactivation and drain (draining.cpp) of agents that
    // may come back.
    if (agent.state() != registry::Agent::GONE) {
      if (agent.deactivated()) deactivated_.insert(id);
      if (agent.has_drain()) draining_[id] = agent.drain();
    }
    switch (agent.state()) {
      case registry::Agent::ADMITTED:
        if (slave(id) == nullptr) recovered_[id] = &agent.info();
        break;
      case registry::Agent::UNREACHABLE:
        unreachable_[id] = UnreachableAgent{agent.info(), agent.since()};
        break;
      case registry::Agent::GONE:
        gone_[id] = agent.since();
        break;
    }
  }
  recoveredAtStart_ = recovered_.size();
  if (recovered_.empty()) registryRead_.reset();
  LOG(INFO) << "The registry lists " << recovered_.size() << " agents to wait for, "
            << unreachable_.size() << " unreachable and " << gone_.size() << " gone; handling "
            << held_.size() << " messages held meanwhile";
  // The agents the registry lists have until the window closes to come
  // back (after an election the window is open already).
  if (windowOpen_ || !recovered_.empty()) {
    windowOpen_ = true;
    delay(flags_.slave_reregister_timeout, [this] { reregistrationWindowClosed(); });
  }
  delay(flags_.registry_gc_interval, [this] { collectRegistryGarbage(); });
  handleHeld();
}

void Master::handleHeld() {
  // In turns, each its own event: the runtime holds an event's writes
  // until it ends, so after a failover the answers to the first slaves go
  // out while the others are handled, not all after the last one (before
  // they all retry). What comes meanwhile is held behind, in order.
  constexpr size_t kHeldTurn = 500;
  for (size_t n = 0; n < kHeldTurn && !held_.empty(); ++n) {
    std::function<void()> call = std::move(held_.front());
    held_.pop_front();
    call();
    if (lost_) return;
  }
  if (!held_.empty()) {
    dispatch(self(), [this] { handleHeld(); });
    return;
  }
  recovering_ = false;
}

void Master::registryFailed(const Error& error) {
  if (lost_) return;
  LOG(ERROR) << "The registry of agents failed: " << error.message;
  lostLeadership("the registry of agents failed: " + error.message);
}

void Master::removeAgent(Slave& s, Removal removal, const std::string& reason) {
  const std::string id = s.id.value();
  if (!removing_.insert(id).second) return;
  deactivateSlave(s);
  auto stored = removal == Removal::kUnreachable
                    ? dispatch(registrar_.pid(), &Registrar::markUnreachable, s.id, now())
                    : dispatch(registrar_.pid(), &Registrar::remove, std::vector<SlaveID>{s.id});
  stored.then(self(), [this, id, removal, reason](const Result<bool>& done) {
    removing_.erase(id);
    if (!done) return registryFailed(done.error());
    Slave* s = slave(id);
    if (s == nullptr) return;
    removeSlave(*s, removal, reason);
  });
}

void Master::scheduleUnreachable(Slave& s) {
  const std::string id = s.id.value();
  metrics_.slaveUnreachableScheduled++;
  if (!removalRate_) {
    metrics_.slaveShutdownsScheduled++;
    removeAgent(s, Removal::kUnreachable,
                "it missed " + std::to_string(flags_.max_slave_ping_timeouts) +
                    " health checks in a row");
    return;
  }
  if (!unreachableQueued_.insert(id).second) return;
  metrics_.slaveShutdownsScheduled++;
  unreachableQueue_.push_back(id);
  LOG(WARNING) << "Slave " << id << " at " << s.pid << " missed "
               << flags_.max_slave_ping_timeouts << " health checks in a row; it is marked "
               << "unreachable when --agent_removal_rate_limit allows (" << unreachableQueue_.size()
               << " waiting)";
  if (!unreachableTimer_) nextScheduledUnreachable();
}

void Master::nextScheduledUnreachable() {
  unreachableTimer_ = false;
  while (!unreachableQueue_.empty()) {
    std::string id = unreachableQueue_.front();
    unreachableQueue_.pop_front();
    unreachableQueued_.erase(id);
    Slave* s = slave(id);
    // One that answered meanwhile (or re-registered, or went) is spared.
    if (s == nullptr || s->missedPings < flags_.max_slave_ping_timeouts) {
      metrics_.slaveUnreachableCanceled++;
      LOG(INFO) << "Slave " << id << " is not marked unreachable after all: it "
                << (s == nullptr ? "is gone" : "answered again");
      continue;
    }
    removeAgent(*s, Removal::kUnreachable,
                "it missed " + std::to_string(flags_.max_slave_ping_timeouts) +
                    " health checks in a row");
    // The next one waits for its turn.
    auto wait = std::chrono::duration_cast<process::Duration>(
        std::chrono::duration<double>(seconds(removalRate_->per) / removalRate_->count));
    unreachableTimer_ = true;
    delay(wait, [this] { nextScheduledUnreachable(); });
    return;
  }
}

std::string Master::unreachableTasksJson(const Framework& f) const {
  auto it = unreachableTasks_.find(f.id.value());
  if (it == unreachableTasks_.end()) return {};
  std::string joined;
  std::unordered_set<std::string_view> shown;  // `order` may name a task twice
  for (const std::string& id : it->second.order) {
    auto task = it->second.byId.find(id);
    if (task == it->second.byId.end() || !shown.insert(id).second) continue;
    Task copy = task->second.task;
    *copy.add_statuses() = task->second.status;
    if (!joined.empty()) joined += ',';
    joined += json::stringify(json::fromTask(copy));
  }
  return joined;
}

void Master::rememberUnreachableTask(const TaskRecord& task, double since) {
  if (flags_.max_unreachable_tasks_per_framework == 0) return;
  UnreachableTasks& tasks = unreachableTasks_[task.framework->id.value()];
  const std::string& id = task.task.task_id().value();
  TaskStatus status = task.latest;
  status.mutable_task_id()->CopyFrom(task.task.task_id());
  status.mutable_slave_id()->CopyFrom(task.task.slave_id());
  status.set_state(TASK_UNREACHABLE);
  status.set_reason(TaskStatus::REASON_SLAVE_REMOVED);
  status.set_source(TaskStatus::SOURCE_MASTER);
  status.mutable_unreachable_time()->set_nanoseconds(static_cast<int64_t>(since * 1e9));
  status.clear_uuid();
  Task copy = task.task;
  copy.set_state(TASK_UNREACHABLE);
  if (tasks.byId.insert_or_assign(id, UnreachableTask{std::move(copy), std::move(status)}).second) {
    tasks.order.push_back(id);
  }
  while (tasks.byId.size() > flags_.max_unreachable_tasks_per_framework && !tasks.order.empty()) {
    tasks.byId.erase(tasks.order.front());
    tasks.order.pop_front();
  }
}

void Master::markRecoveredUnreachable() {
  if (recovered_.empty()) return;
  auto limit = flags_.recoveryRemovalLimit();
  double share = static_cast<double>(recovered_.size()) /
                 static_cast<double>(std::max<size_t>(recoveredAtStart_, 1));
  if (limit && share > limit.value()) {
    std::string why = std::to_string(recovered_.size()) + " of the " +
                      std::to_string(recoveredAtStart_) +
                      " agents the registry lists did not re-register within "
                      "--slave_reregister_timeout, more than --recovery_agent_removal_limit=" +
                      flags_.recovery_agent_removal_limit +
                      "; not marking them unreachable (a human should look)";
    LOG(ERROR) << why;
    lostLeadership(why);
    return;
  }
  std::unordered_map<std::string, const SlaveInfo*> missing = std::move(recovered_);
  recovered_.clear();
  LOG(WARNING) << missing.size() << " agents the registry lists did not re-register within "
               << seconds(flags_.slave_reregister_timeout) << " s; marking them unreachable";
  double since = now();
  for (const auto& [id, listed] : missing) {
    const SlaveInfo& info = *listed;  // copied into the continuation below
    // Their waiting reconciliations are answered once they are stored
    // unreachable.
    std::vector<Deferred> waiting;
    if (auto it = deferredBySlave_.find(id); it != deferredBySlave_.end()) {
      waiting = std::move(it->second);
      deferredBySlave_.erase(it);
    }
    metrics_.recoverySlaveRemovals++;
    dispatch(registrar_.pid(), &Registrar::markUnreachable, info.id(), since)
        .then(self(), [this, info, since, waiting](const Result<bool>& done) {
          if (!done) return registryFailed(done.error());
          unreachable_[info.id().value()] = UnreachableAgent{info, since};
          lastState_.reset();  // /state counts unreachable agents
          for (const Deferred& d : waiting) {
            Framework* f = framework(d.frameworkId);
            if (f == nullptr) continue;
            sendMasterUpdate(*f, info.id(), d.taskId, stateFor(*f, TASK_UNREACHABLE),
                             TaskStatus::REASON_RECONCILIATION,
                             "Reconciliation: the task's agent did not re-register after the "
                             "failover and is unreachable",
                             std::nullopt, since);
          }
          registry_.forEachFramework([&](Framework& f) {
            LostSlaveMessage lost;
            lost.mutable_slave_id()->CopyFrom(info.id());
            send(f.pid, std::move(lost));
          });
        });
  }
  recoveredSettled();
}

void Master::recoveredSettled() {
  if (!recovered_.empty()) return;
  registryRead_.reset();
  std::vector<std::string> waiting = std::move(implicitWaiting_);
  implicitWaiting_.clear();
  for (const std::string& id : waiting) {
    if (Framework* f = framework(id)) reconcileImplicitly(*f);
  }
  if (!durableRegistry_) return;  // without a registry the window decides
  std::unordered_map<std::string, Deferred> byTask = std::move(deferredByTask_);
  deferredByTask_.clear();
  for (const auto& [key, d] : byTask) {
    Framework* f = framework(d.frameworkId);
    if (f == nullptr) continue;
    sendMasterUpdate(*f, SlaveID(), d.taskId, stateFor(*f, TASK_UNKNOWN),
                     TaskStatus::REASON_RECONCILIATION,
                     "Reconciliation: every agent the registry lists is back or unreachable, "
                     "and none has the task");
  }
}

void Master::reconcileImplicitly(Framework& f) {
  for (const auto& [id, task] : f.tasks) sendReconciliation(f, *task);
  if (!partitionAware(f.info)) return;
  auto it = unreachableTasks_.find(f.id.value());
  if (it == unreachableTasks_.end()) return;
  for (const auto& [taskId, unreachable] : it->second.byId) {
    const TaskStatus& status = unreachable.status;
    StatusUpdateMessage update;
    StatusUpdate* u = update.mutable_update();
    u->mutable_framework_id()->CopyFrom(f.id);
    u->mutable_slave_id()->CopyFrom(status.slave_id());
    u->set_timestamp(now());
    *u->mutable_status() = status;
    u->mutable_status()->set_reason(TaskStatus::REASON_RECONCILIATION);
    send(f.pid, std::move(update));
  }
}

void Master::collectRegistryGarbage() {
  delay(flags_.registry_gc_interval, [this] { collectRegistryGarbage(); });
  if (!leading_ || recovering_) return;
  // The oldest first: by age, then by count.
  std::vector<std::pair<double, std::string>> agents;
  agents.reserve(unreachable_.size() + gone_.size());
  for (const auto& [id, agent] : unreachable_) agents.emplace_back(agent.since, id);
  for (const auto& [id, since] : gone_) agents.emplace_back(since, id);
  std::sort(agents.begin(), agents.end());
  double oldest = now() - seconds(flags_.registry_max_agent_age);
  size_t excess = agents.size() > flags_.registry_max_agent_count
                      ? agents.size() - flags_.registry_max_agent_count
                      : 0;
  std::vector<SlaveID> prune;
  for (size_t i = 0; i < agents.size(); ++i) {
    if (i >= excess && agents[i].first >= oldest) break;
    SlaveID id;
    id.set_value(agents[i].second);
    prune.push_back(std::move(id));
  }
  if (prune.empty()) return;
  LOG(INFO) << "Forgetting " << prune.size() << " unreachable or gone agents (older than "
            << seconds(flags_.registry_max_agent_age) << " s, or beyond "
            << flags_.registry_max_agent_count << ")";
  dispatch(registrar_.pid(), &Registrar::remove, prune)
      .then(self(), [this, prune](const Result<bool>& done) {
        if (!done) return registryFailed(done.error());
        for (const SlaveID& id : prune) {
          unreachable_.erase(id.value());
          gone_.erase(id.value());
          forgetDrain(id.value());
        }
        lastState_.reset();
      });
}

process::Future<process::http::Response> Master::markAgentGone(const SlaveID& slaveId) {
  using process::http::Response;
  const std::string id = slaveId.value();
  auto answer = [](int status, const std::string& message) {
    return Response{status, "text/plain", message + "\n", {}};
  };
  if (gone_.count(id) != 0) return Response::ok("", "text/plain");
  if (markingGone_.count(id) != 0 || removing_.count(id) != 0 || readmitting_.count(id) != 0) {
    return answer(503, "Agent '" + id + "' is being changed in the registry; try again");
  }
  if (slave(id) == nullptr && unreachable_.count(id) == 0 && recovered_.count(id) == 0) {
    return answer(404, "Agent '" + id + "' not found");
  }
  markingGone_.insert(id);
  if (Slave* s = slave(id)) deactivateSlave(*s);
  auto promise = std::make_shared<process::Promise<Response>>();
  dispatch(registrar_.pid(), &Registrar::markGone, slaveId, now())
      .then(self(), [this, id, promise, answer](const Result<bool>& done) {
        markingGone_.erase(id);
        if (!done) {
          registryFailed(done.error());
          promise->set(answer(503, "The registry failed: " + done.error().message));
          return;
        }
        const double since = now();
        gone_[id] = since;
        forgetDrain(id);
        LOG(WARNING) << "Agent " << id << " was marked gone by an operator";
        if (recovered_.erase(id) != 0) recoveredSettled();
        if (unreachable_.erase(id) != 0) {
          // Its tasks that frameworks know as unreachable are gone for good.
          for (auto& [frameworkId, tasks] : unreachableTasks_) {
            Framework* f = framework(frameworkId);
            std::vector<std::string> ended;
            for (const auto& [taskId, task] : tasks.byId) {
              if (task.status.slave_id().value() != id) continue;
              ended.push_back(taskId);
              if (f != nullptr) {
                sendMasterUpdate(*f, task.status.slave_id(), task.status.task_id(),
                                 stateFor(*f, TASK_GONE_BY_OPERATOR),
                                 TaskStatus::REASON_SLAVE_REMOVED_BY_OPERATOR,
                                 "Agent marked gone by an operator");
              }
            }
            for (const std::string& taskId : ended) tasks.byId.erase(taskId);
          }
        }
        if (Slave* s = slave(id)) removeSlave(*s, Removal::kGone, "marked gone by an operator");
        lastState_.reset();
        promise->set(Response::ok("", "text/plain"));
      });
  return promise->future();
}

}  // namespace mesos::internal::master
