// Slaves: registration, re-registration, health checks, removal.
#include <glog/logging.h>

#include <functional>
#include <string_view>

#include "common/operations.hpp"
#include "master/master.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using allocator::AllocatorActor;
using process::dispatch;

Slave* Master::slaveFrom(const UPID& from, const SlaveID& id, const char* what) {
  Slave* s = slave(id.value());
  if (s == nullptr) {
    LOG(WARNING) << "Ignoring " << what << " from " << from << " for unknown slave '"
                 << id.value() << "'";
    return nullptr;
  }
  if (s->pid != from) {
    LOG(WARNING) << "Ignoring " << what << " for slave " << id.value() << " from " << from
                 << ", which is not that slave (" << s->pid << ")";
    return nullptr;
  }
  return s;
}

namespace {

MasterSlaveConnection connection(const MasterFlags& flags) {
  MasterSlaveConnection c;
  c.set_total_ping_timeout_seconds(std::chrono::duration<double>(flags.slave_ping_timeout).count() *
                                   flags.max_slave_ping_timeouts);
  return c;
}

}  // namespace

void Master::registerSlave(const UPID& from, const RegisterSlaveMessage& message) {
  if (!slaveAuthenticated(from, "registration")) return;
  const SlaveInfo& info = message.slave();
  std::string error;
  if (!info.IsInitialized()) {
    error = "SlaveInfo is missing required fields: " + info.InitializationErrorString();
  } else if (auto valid = Resources::validate(info.resources()); !valid) {
    error = "invalid resources: " + valid.error().message;
  }
  if (!error.empty()) {
    LOG(WARNING) << "Refusing registration of the slave at " << from << ": " << error;
    ShutdownMessage shutdown;
    shutdown.set_message("Registration refused: " + error);
    send(from, std::move(shutdown));
    return;
  }
  if (onDownMachine(info, from)) {
    LOG(WARNING) << "Refusing registration of the slave at " << from << " ("
                 << info.hostname() << "): its machine is DOWN for maintenance";
    ShutdownMessage shutdown;
    shutdown.set_message("Machine is `DOWN`");
    send(from, std::move(shutdown));
    return;
  }
  if (Slave* s = registry_.slaveAt(from); s != nullptr && s->active) {
    // A retry from a slave whose registration we answered already (the
    // answer was lost or is still on its way).
    VLOG(1) << "Slave " << s->id.value() << " at " << from
            << " registered already; answering again";
    SlaveRegisteredMessage reply;
    reply.mutable_slave_id()->CopyFrom(s->id);
    reply.mutable_connection()->CopyFrom(connection(flags_));
    send(from, std::move(reply));
    return;
  } else if (s != nullptr) {
    // The slave that was here lost its connection and a registration (not
    // a re-registration) comes from its address: a new slave process that
    // did not recover the old one's tasks. The old one is gone.
    removeAgent(*s, Removal::kUnregistered,
                "a new slave registered at its address " + from.toString());
  }
  // A retry while its admission is being stored.
  if (!admitting_.insert(from).second) return;
  SlaveInfo admitted = info;
  admitted.mutable_id()->set_value(nextId("S"));
  // Admitted in the registry first, then registered and answered.
  dispatch(registrar_.pid(), &registrar::Registrar::admit, admitted, now())
      .then(self(), [this, from, admitted, version = message.version(),
                     capabilities = message.agent_capabilities(),
                     checkpointed = message.checkpointed_resources()](const Result<bool>& done) {
        admitting_.erase(from);
        if (!done) return registryFailed(done.error());
        Slave& s = registry_.addSlave(admitted.id(), admitted, from, version, now());
        registry_.setCapabilities(s, capabilities);
        withCheckpointed(s, checkpointed);
        operatorEvents_.agentAdded(s);
        link(from);
        metrics_.slavesRegistered++;
        resizeCluster();
        LOG(INFO) << "Registered slave " << s.id.value() << " at " << from << " ("
                  << admitted.hostname() << ") with " << s.total.toString();
        dispatch(allocator_.pid(), &AllocatorActor::addSlave, s.id, s.info, s.capabilityTypes(),
                 s.total, std::unordered_map<std::string, Resources>{});
        SlaveRegisteredMessage reply;
        reply.mutable_slave_id()->CopyFrom(s.id);
        reply.mutable_connection()->CopyFrom(connection(flags_));
        send(from, std::move(reply));
      });
}

namespace {

// The answer to a re-registration. For a slave this master held
// (`reported` set): the tasks the master holds there that the slave did not
// report (a restarted slave that could not keep them), which the slave
// answers with TASK_LOST (TASK_DROPPED for a partition-aware framework). Only this slave's tasks are looked at.
SlaveReregisteredMessage reregistered(const Slave& slave, const MasterFlags& flags,
                                      const ReregisterSlaveMessage* reported) {
  SlaveReregisteredMessage reply;
  reply.mutable_slave_id()->CopyFrom(slave.id);
  reply.mutable_connection()->CopyFrom(connection(flags));
  if (reported == nullptr) return reply;
  std::unordered_set<std::string> tasks;
  for (const Task& task : reported->tasks()) {
    tasks.insert(task.framework_id().value() + "/" + task.task_id().value());
  }
  std::map<std::string, ReconcileTasksMessage> missing;
  for (const TaskRecord* task : slave.tasks) {
    if (isTerminalState(task->task.state())) continue;
    const std::string& frameworkId = task->framework->id.value();
    if (tasks.count(frameworkId + "/" + task->task.task_id().value())) continue;
    ReconcileTasksMessage& lost = missing[frameworkId];
    *lost.mutable_framework_id() = task->framework->id;
    // The slave answers by the framework's capabilities (TASK_DROPPED for a
    // partition-aware one).
    *lost.mutable_framework() = task->framework->info;
    *lost.add_statuses() = task->latest;
  }
  for (auto& [frameworkId, lost] : missing) {
    LOG(WARNING) << "Slave " << slave.id.value() << " re-registered without "
                 << lost.statuses_size() << " task(s) of framework " << frameworkId
                 << " that this master knows there";
    *reply.add_reconciliations() = std::move(lost);
  }
  return reply;
}

}  // namespace

void Master::slaveRegistration(const UPID& from, const std::string& name,
                               const std::string& body) {
  if (leading_) ++metrics_.messages[name];
  if (leading_ && !recovering_) {
    handleSlaveRegistration(from, name, body);
    return;
  }
  std::string key = name + " " + from.toString();
  if (auto it = keptRegistrations_.find(key); it != keptRegistrations_.end()) {
    if (std::shared_ptr<std::string> kept = it->second.lock()) {
      *kept = body;  // the latest counts; it keeps the first one's place
      return;
    }
    keptRegistrations_.erase(it);
  }
  if (keptRegistrations_.size() >= kMaxHeld) {
    std::erase_if(keptRegistrations_, [](const auto& kept) { return kept.second.expired(); });
  }
  auto kept = std::make_shared<std::string>(body);
  const bool asStandby = !leading_;
  auto call = [this, from, name, key, kept, asStandby] {
    if (auto it = keptRegistrations_.find(key);
        it != keptRegistrations_.end() && it->second.lock() == kept) {
      keptRegistrations_.erase(it);
    }
    if (asStandby) ++metrics_.messages[name];
    handleSlaveRegistration(from, name, *kept);
  };
  if (asStandby ? standby(from, name, std::move(call)) : hold(std::move(call))) {
    keptRegistrations_[key] = kept;
  }
}

void Master::handleSlaveRegistration(const UPID& from, const std::string& name,
                                     const std::string& body) {
  if (name == RegisterSlaveMessage::descriptor()->name()) {
    RegisterSlaveMessage message;
    if (!message.ParsePartialFromString(body)) {
      LOG(WARNING) << "Dropping a malformed RegisterSlaveMessage from " << from;
      return;
    }
    registerSlave(from, message);
    return;
  }
  const size_t digest = std::hash<std::string_view>{}(body);
  if (Slave* s = registry_.slaveAt(from);
      s != nullptr && s->active && s->reregistration == digest &&
      removing_.count(s->id.value()) == 0 && !onDownMachine(s->info, from) &&
      slaveAuthenticated(from, "re-registration")) {
    // The retry of a re-registration answered already, as it was then.
    s->missedPings = 0;
    s->pongPending = false;
    send(from, reregistered(*s, flags_, nullptr));
    return;
  }
  ReregisterSlaveMessage message;
  if (!message.ParsePartialFromString(body)) {
    LOG(WARNING) << "Dropping a malformed ReregisterSlaveMessage from " << from;
    return;
  }
  reregisterSlave(from, std::move(message));
  if (Slave* s = registry_.slaveAt(from); s != nullptr && s->active) {
    s->reregistration = digest;
  }
}

void Master::reregisterSlave(const UPID& from, ReregisterSlaveMessage&& message) {
  if (!slaveAuthenticated(from, "re-registration")) return;
  const SlaveInfo& info = message.slave();
  if (!info.IsInitialized() || !info.has_id() || info.id().value().empty()) {
    LOG(WARNING) << "Refusing re-registration of the slave at " << from
                 << ": SlaveInfo needs its hostname and id";
    ShutdownMessage shutdown;
    shutdown.set_message("Re-registration refused: SlaveInfo needs its hostname and id");
    send(from, std::move(shutdown));
    return;
  }
  const std::string id = info.id().value();
  auto refuse = [&](const std::string& why) {
    metrics_.slaveReregistrationsRefused++;
    LOG(WARNING) << "Refusing re-registration of slave " << id << " at " << from << ": " << why;
    ShutdownMessage shutdown;
    shutdown.set_message("Re-registration refused: " + why);
    send(from, std::move(shutdown));
  };
  if (gone_.count(id) != 0) {
    return refuse("the agent was marked gone; start it with a new work directory to register "
                  "it anew");
  }
  if (removed_.count(id) != 0) {
    return refuse("the agent was removed (it unregistered, or a new slave took its address); "
                  "start it with a new work directory to register it anew");
  }
  if (onDownMachine(info, from)) {
    return refuse("its machine is DOWN for maintenance (docs/maintenance.md)");
  }
  if (removing_.count(id) != 0 || readmitting_.count(id) != 0) {
    // A change of it is being stored; it retries.
    VLOG(1) << "Dropping re-registration of slave " << id << " at " << from
            << " while a change of it is stored";
    return;
  }
  Slave* s = slave(id);
  if (s != nullptr && s->pid == from && s->active) {
    // A retry whose answer is on its way (after a failover thousands of
    // slaves retry before the new leader has answered them all): answer
    // again, nothing else.
    VLOG(1) << "Slave " << s->id.value() << " at " << from << " re-registered already";
    s->missedPings = 0;
    s->pongPending = false;
    // A slave upgraded in place (its restart unnoticed) declares more.
    if (registry_.setCapabilities(*s, message.agent_capabilities())) {
      dispatch(allocator_.pid(), &AllocatorActor::updateSlaveCapabilities, s->id,
               s->capabilityTypes());
    }
    killOrphans(*s, message);
    send(from, reregistered(*s, flags_, nullptr));
    return;
  }
  if (s != nullptr) {
    // A slave this master holds, reporting its tasks anew.
    if (s->pid != from) registry_.setPid(*s, from);
    link(from);  // a broken connection took the old link with it
    s->missedPings = 0;
    s->pongPending = false;
    LOG(INFO) << "Slave " << s->id.value() << " at " << from << " re-registered";
    if (registry_.setCapabilities(*s, message.agent_capabilities())) {
      dispatch(allocator_.pid(), &AllocatorActor::updateSlaveCapabilities, s->id,
               s->capabilityTypes());
    }
    if (!s->active) activateSlave(*s);
    // It may have missed a CheckpointResourcesMessage while disconnected.
    if (!(operations::checkpointable(s->total) == Resources(message.checkpointed_resources()))) {
      checkpointOn(*s);
    }
    killOrphans(*s, message);
    answerDeferred(*s);
    send(from, reregistered(*s, flags_, &message));
    resumeDrain(*s);
    return;
  }

  // A slave this master does not hold: one the registry lists (after a
  // failover), one back from unreachable, or one it does not know. Back from
  // unreachable, the tasks of frameworks that are not partition-aware are
  // shut down: their frameworks were told TASK_LOST.
  const bool wasUnreachable = unreachable_.count(id) != 0;
  std::unordered_set<std::string> shutDown;
  if (wasUnreachable) {
    std::unordered_map<std::string, const FrameworkInfo*> reported;
    for (const FrameworkInfo& f : message.frameworks()) {
      if (f.has_id()) reported[f.id().value()] = &f;
    }
    auto consider = [&](const std::string& frameworkId) {
      const Framework* f = framework(frameworkId);
      auto it = reported.find(frameworkId);
      bool aware = f != nullptr ? partitionAware(f->info)
                                : it != reported.end() && partitionAware(*it->second);
      if (!aware) shutDown.insert(frameworkId);
    };
    for (const Task& task : message.tasks()) consider(task.framework_id().value());
    for (const ExecutorInfo& executor : message.executor_infos()) {
      consider(executor.framework_id().value());
    }
  }
  auto readmit = [this, from, id, wasUnreachable](ReregisterSlaveMessage&& message,
                                                   const std::unordered_set<std::string>& shutDown) {
    recovered_.erase(id);
    if (wasUnreachable) {
      unreachable_.erase(id);
      LOG(INFO) << "Slave " << id << " at " << from << " is back from unreachable"
                << (shutDown.empty() ? std::string()
                                     : "; shutting down " + std::to_string(shutDown.size()) +
                                           " frameworks that are not partition-aware there");
    }
    Slave& s = readmitSlave(from, std::move(message), shutDown);
    answerDeferred(s);
    send(from, reregistered(s, flags_, nullptr));
    resumeDrain(s);
    recoveredSettled();
  };
  auto listed = recovered_.find(id);
  if (listed != recovered_.end() &&
      listed->second->SerializeAsString() == info.SerializeAsString()) {
    // Listed as it is: nothing to store.
    readmit(std::move(message), shutDown);
    return;
  }
  // Stored first: back from unreachable, new to the registry, or changed.
  readmitting_.insert(id);
  auto kept = std::make_shared<ReregisterSlaveMessage>(std::move(message));
  dispatch(registrar_.pid(), &registrar::Registrar::admit, kept->slave(), now())
      .then(self(), [this, id, kept, shutDown, readmit](const Result<bool>& done) {
        readmitting_.erase(id);
        if (!done) return registryFailed(done.error());
        if (gone_.count(id) != 0 || slave(id) != nullptr) return;  // changed meanwhile
        readmit(std::move(*kept), shutDown);
      });
}

Slave& Master::readmitSlave(const UPID& from, ReregisterSlaveMessage&& message,
                            const std::unordered_set<std::string>& shutDown) {
  SlaveID id = message.slave().id();  // the SlaveInfo is moved into the registry
  const int reportedTasks = message.tasks_size();
  Slave* s = &registry_.addSlave(id, std::move(*message.mutable_slave()), from, message.version(),
                                 now());
  registry_.setCapabilities(*s, message.agent_capabilities());
  withCheckpointed(*s, message.checkpointed_resources());
  // AGENT_ADDED shows its stored deactivation and drain (Apache's does).
  restoreDrain(*s);
  operatorEvents_.agentAdded(*s);
  link(from);
  metrics_.slavesRegistered++;
  resizeCluster();
  // The reported executors and tasks are moved into the registry, not
  // copied: after a failover this runs for every slave in a burst.
  for (ExecutorInfo& executor : *message.mutable_executor_infos()) {
    if (shutDown.count(executor.framework_id().value()) != 0) continue;
    FrameworkID frameworkId = executor.framework_id();
    registry_.addExecutor(*s, frameworkId, std::move(executor));
  }
  for (Task& task : *message.mutable_tasks()) {
    if (shutDown.count(task.framework_id().value()) != 0) continue;
    if (!unreachableTasks_.empty()) {
      if (auto it = unreachableTasks_.find(task.framework_id().value());
          it != unreachableTasks_.end()) {
        it->second.byId.erase(task.task_id().value());
      }
    }
    TaskRecord* adopted = tasks_.adopt(*s, std::move(task));
    if (adopted == nullptr) continue;
    if (!deferredByTask_.empty()) answerDeferred(*adopted);
  }
  s->shutDownFrameworks = shutDown;
  for (const std::string& frameworkId : shutDown) {
    ShutdownFrameworkMessage shutdown;
    shutdown.mutable_framework_id()->set_value(frameworkId);
    send(from, std::move(shutdown));
  }
  // Frameworks not back yet are kept for their failover timeout.
  for (const FrameworkInfo& reported : message.frameworks()) {
    if (reported.has_id() && shutDown.count(reported.id().value()) != 0) continue;
    noteReportedFramework(reported);
    // Its scheduler failed over since the election: this slave knows the
    // old one.
    if (const Framework* f = framework(reported.id().value()); f != nullptr && f->newPid) {
      UpdateFrameworkMessage update;
      *update.mutable_framework_id() = f->id;
      update.set_pid(f->http ? std::string() : f->pid.toString());
      *update.mutable_framework_info() = f->info;
      send(from, std::move(update));
    }
  }
  // What each framework holds here, for the allocator.
  std::unordered_map<std::string, Resources> used;
  for (const auto& [frameworkId, executors] : s->executors) {
    for (const auto& [executorId, executor] : executors) {
      used[frameworkId] += Resources(executor.resources());
    }
  }
  for (const TaskRecord* task : s->tasks) {
    if (!task->released) used[task->framework->id.value()] += task->resources;
  }
  // After a failover thousands come back at once: one line a second
  // says how many (each one at VLOG(1)).
  VLOG(1) << "Re-registered slave " << s->id.value() << " at " << from << " with "
          << reportedTasks << " tasks";
  reregistered_.slaves++;
  reregistered_.tasks += static_cast<uint64_t>(reportedTasks);
  if (!reregistered_.pending) {
    reregistered_.pending = true;
    delay(std::chrono::seconds(1), [this] {
      LOG(INFO) << "Re-registered " << reregistered_.slaves << " slaves this master had not "
                << "seen, with " << reregistered_.tasks << " tasks, in the last second";
      reregistered_ = {};
    });
  }
  dispatch(allocator_.pid(), &AllocatorActor::addSlave, s->id, s->info, s->capabilityTypes(),
           s->total, std::move(used));
  if (s->deactivated) dispatch(allocator_.pid(), &AllocatorActor::deactivateSlave, s->id);
  return *s;
}

void Master::killOrphans(Slave& s, const ReregisterSlaveMessage& message) {
  std::unordered_set<std::string> shutDown;
  for (const Task& task : message.tasks()) {
    if (isTerminalState(task.state())) continue;
    const std::string& frameworkId = task.framework_id().value();
    if (registry_.task(frameworkId, task.task_id().value()) != nullptr) continue;
    if (registry_.framework(frameworkId) == nullptr &&
        registry_.unregisteredFramework(frameworkId) == nullptr) {
      // A framework this master removed, or never knew.
      if (shutDown.insert(frameworkId).second) {
        LOG(WARNING) << "Slave " << s.id.value() << " re-registered with tasks of framework "
                     << frameworkId << ", which this master does not run; shutting it down there";
        ShutdownFrameworkMessage shutdown;
        shutdown.mutable_framework_id()->set_value(frameworkId);
        send(s.pid, std::move(shutdown));
      }
      continue;
    }
    LOG(WARNING) << "Slave " << s.id.value() << " re-registered with task "
                 << task.task_id().value() << " of framework " << frameworkId
                 << ", which this master does not hold; killing it";
    KillTaskMessage kill;
    kill.mutable_framework_id()->set_value(frameworkId);
    *kill.mutable_task_id() = task.task_id();
    send(s.pid, std::move(kill));
  }
}

void Master::unregisterSlave(const UPID& from, const UnregisterSlaveMessage& message) {
  Slave* s = slaveFrom(from, message.slave_id(), "UnregisterSlaveMessage");
  if (s == nullptr) return;
  removeAgent(*s, Removal::kUnregistered, "the slave unregistered");
}

void Master::pong(const UPID& from, const PongSlaveMessage&) {
  if (Slave* s = registry_.slaveAt(from)) {
    s->pongPending = false;
    s->missedPings = 0;
  }
}

// Every --slave_ping_timeout: a slave that has not answered the previous
// ping missed it; one that missed --max_slave_ping_timeouts in a row is
// marked unreachable. One pass over the slaves per period, not per event.
void Master::pingSlaves() {
  std::vector<Slave*> dead;
  registry_.forEachSlave([&](Slave& s) {
    if (s.pongPending && ++s.missedPings >= flags_.max_slave_ping_timeouts) {
      dead.push_back(&s);
      return;
    }
    PingSlaveMessage ping;
    // A slave told it is not connected re-registers.
    ping.set_connected(s.active);
    send(s.pid, std::move(ping));
    s.pongPending = true;
  });
  for (Slave* s : dead) {
    if (removing_.count(s->id.value()) == 0) scheduleUnreachable(*s);
  }
  delay(flags_.slave_ping_timeout, [this] { pingSlaves(); });
}

void Master::removeSlave(Slave& s, Removal removal, const std::string& reason) {
  const SlaveID slaveId = s.id;
  const UPID pid = s.pid;
  const bool unreachable = removal == Removal::kUnreachable;
  const double since = now();
  LOG(WARNING) << (unreachable ? "Marked slave " : "Removed slave ") << slaveId.value() << " at "
               << pid << (unreachable ? " unreachable: " : ": ") << reason;
  forgetAuthentication(pid);
  if (unreachable) {
    unreachable_[slaveId.value()] = UnreachableAgent{s.info, since};
    metrics_.slaveUnreachableCompleted++;
    metrics_.slaveRemovalsUnhealthy++;
  } else if (removal == Removal::kUnregistered) {
    metrics_.slaveRemovalsUnregistered++;
    forgetDrain(slaveId.value());
    if (removed_.insert(slaveId.value()).second) removedOrder_.push_back(slaveId.value());
    while (removedOrder_.size() > 10000) {
      removed_.erase(removedOrder_.front());
      removedOrder_.pop_front();
    }
  }

  // Its offers are void; the resources leave with the slave.
  offers_.dropOn(s);

  const std::string message = (unreachable ? "Slave unreachable: " : "Slave removed: ") + reason;
  std::vector<TaskRecord*> tasks(s.tasks.begin(), s.tasks.end());
  for (TaskRecord* task : tasks) {
    if (!isTerminalState(task->task.state())) {
      Framework& f = *task->framework;
      TaskState state = stateFor(f, unreachable                   ? TASK_UNREACHABLE
                                    : removal == Removal::kGone ? TASK_GONE_BY_OPERATOR
                                                                : TASK_GONE);
      const TaskStatus::Reason why = removal == Removal::kGone
                                         ? TaskStatus::REASON_SLAVE_REMOVED_BY_OPERATOR
                                         : TaskStatus::REASON_SLAVE_REMOVED;
      if (f.registered) {
        sendMasterUpdate(f, slaveId, task->task.task_id(), state, why, message,
                         task->task.has_executor_id()
                             ? std::optional<ExecutorID>(task->task.executor_id())
                             : std::nullopt,
                         state == TASK_UNREACHABLE ? std::optional<double>(since) : std::nullopt);
      }
      if (state == TASK_UNREACHABLE) rememberUnreachableTask(*task, since);
      TaskStatus status = task->latest;
      status.set_state(state);
      status.set_source(TaskStatus::SOURCE_MASTER);
      status.set_reason(why);
      status.set_message(message);
      status.set_timestamp(since);
      status.clear_uuid();
      // The allocator drops the slave's resources itself.
      tasks_.update(*task, status, false);
      registry_.release(*task);
    }
    tasks_.remove(*task);
  }
  std::vector<std::pair<std::string, std::string>> executors;  // framework id, executor id
  for (const auto& [frameworkId, byId] : s.executors) {
    for (const auto& [executorId, info] : byId) executors.emplace_back(frameworkId, executorId);
  }
  for (const auto& [frameworkId, executorId] : executors) {
    registry_.removeExecutor(s, frameworkId, executorId);
  }

  registry_.forEachFramework([&](Framework& f) {
    LostSlaveMessage lost;
    lost.mutable_slave_id()->CopyFrom(slaveId);
    send(f.pid, std::move(lost));
  });
  // An unregistered or gone slave is told to go (an unreachable one may come
  // back; one whose address a new slave took is not there any more).
  const Slave* at = registry_.slaveAt(pid);
  if (removal != Removal::kUnreachable && (at == nullptr || at == &s) &&
      admitting_.count(pid) == 0) {
    ShutdownMessage shutdown;
    shutdown.set_message("Slave removed: " + reason);
    send(pid, std::move(shutdown));
  }

  dispatch(allocator_.pid(), &AllocatorActor::removeSlave, slaveId);
  metrics_.slavesRemoved++;
  operatorEvents_.agentRemoved(s.id);
  registry_.removeSlave(s);
  resizeCluster();
}

void Master::deactivateSlave(Slave& s) {
  if (!s.active) return;
  registry_.setActive(s, false);
  LOG(WARNING) << "Slave " << s.id.value() << " at " << s.pid
               << " disconnected; offering nothing on it until it re-registers (its tasks stay "
               << "until then, or until it misses " << flags_.max_slave_ping_timeouts
               << " pings)";
  dispatch(allocator_.pid(), &AllocatorActor::deactivateSlave, s.id);
  offers_.rescindOn(s);
}

void Master::activateSlave(Slave& s) {
  if (s.active) return;
  registry_.setActive(s, true);
  if (s.deactivated) {
    LOG(INFO) << "Slave " << s.id.value() << " at " << s.pid
              << " is back; it stays deactivated (docs/draining.md)";
    return;
  }
  LOG(INFO) << "Slave " << s.id.value() << " at " << s.pid << " is back; offering it again";
  dispatch(allocator_.pid(), &AllocatorActor::activateSlave, s.id);
}

void Master::resizeCluster() {
  if (guaranteed_.empty()) return;
  // Whether the cluster can hold every guarantee at once (only scalars are
  // guaranteed): said in the log when that changes, and in /master/roles.
  Resources cluster = registry_.clusterTotal().flatten();
  bool fit = cluster.contains(guaranteed_);
  if (fit == guaranteesFit_) return;
  guaranteesFit_ = fit;
  if (fit) {
    LOG(INFO) << "The cluster (" << cluster.toString() << ") can now meet every --guarantees at "
              << "once (" << guaranteed_.toString() << ")";
  } else {
    LOG(WARNING) << "The cluster (" << cluster.toString() << ") cannot meet every --guarantees "
                 << "at once (" << guaranteed_.toString() << "); revocation frees what it can";
  }
}

}  // namespace mesos::internal::master
