// Slaves: registration, re-registration, health checks, removal.
#include <glog/logging.h>

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
  if (Slave* s = registry_.slaveAt(from); s != nullptr && s->active) {
    // A retry from a slave whose registration we answered already (the
    // answer was lost or is still on its way).
    LOG(INFO) << "Slave " << s->id.value() << " at " << from
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
    removeSlave(*s, "a new slave registered at its address " + from.toString(),
                /*shutdown=*/false);
  }
  SlaveID id;
  id.set_value(nextId("S"));
  Slave& s = registry_.addSlave(id, info, from, message.version(), now());
  operatorEvents_.agentAdded(s);
  link(from);
  metrics_.slavesRegistered++;
  resizeCluster();
  LOG(INFO) << "Registered slave " << s.id.value() << " at " << from << " (" << info.hostname()
            << ") with " << s.total.toString();
  dispatch(allocator_.pid(), &AllocatorActor::addSlave, s.id, s.info, s.total,
           std::unordered_map<std::string, Resources>{});
  SlaveRegisteredMessage reply;
  reply.mutable_slave_id()->CopyFrom(s.id);
  reply.mutable_connection()->CopyFrom(connection(flags_));
  send(from, std::move(reply));
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
  // `reconcile`: a slave this master knew, reporting its tasks anew.
  auto answer = [&](const Slave& slave, bool reconcile) {
    SlaveReregisteredMessage reply;
    reply.mutable_slave_id()->CopyFrom(slave.id);
    reply.mutable_connection()->CopyFrom(connection(flags_));
    if (reconcile) {
      // Tasks this master holds on the slave that it did not report (a
      // restarted slave that could not keep them): the slave answers each
      // with TASK_LOST. Only this slave's tasks are looked at.
      std::unordered_set<std::string> reported;
      for (const Task& task : message.tasks()) {
        reported.insert(task.framework_id().value() + "/" + task.task_id().value());
      }
      std::map<std::string, ReconcileTasksMessage> missing;
      for (const TaskRecord* task : slave.tasks) {
        if (isTerminalState(task->task.state())) continue;
        const std::string& frameworkId = task->framework->id.value();
        if (reported.count(frameworkId + "/" + task->task.task_id().value())) continue;
        ReconcileTasksMessage& lost = missing[frameworkId];
        *lost.mutable_framework_id() = task->framework->id;
        *lost.add_statuses() = task->latest;
      }
      for (auto& [frameworkId, lost] : missing) {
        LOG(WARNING) << "Slave " << slave.id.value() << " re-registered without "
                     << lost.statuses_size() << " task(s) of framework " << frameworkId
                     << " that this master knows there";
        *reply.add_reconciliations() = std::move(lost);
      }
    }
    send(from, std::move(reply));
  };
  Slave* s = slave(info.id().value());
  if (s != nullptr && s->pid == from && s->active) {
    // A retry whose answer is on its way (after a failover thousands of
    // slaves retry before the new leader has answered them all): answer
    // again, nothing else.
    VLOG(1) << "Slave " << s->id.value() << " at " << from << " re-registered already";
    s->missedPings = 0;
    s->pongPending = false;
    answer(*s, false);
    return;
  }
  const bool known = s != nullptr;
  if (s != nullptr) {
    if (s->pid != from) registry_.setPid(*s, from);
    link(from);  // a broken connection took the old link with it
    s->missedPings = 0;
    s->pongPending = false;
    LOG(INFO) << "Slave " << s->id.value() << " at " << from << " re-registered";
    if (!s->active) activateSlave(*s);
  } else {
    // A slave this master has not seen (the master restarted): take it and
    // what runs on it back.
    SlaveID id = info.id();  // `info` is moved into the registry
    s = &registry_.addSlave(id, std::move(*message.mutable_slave()), from, message.version(),
                            now());
    operatorEvents_.agentAdded(*s);
    link(from);
    metrics_.slavesRegistered++;
    resizeCluster();
    // The reported executors and tasks are moved into the registry, not
    // copied: after a failover this runs for every slave in a burst.
    for (ExecutorInfo& executor : *message.mutable_executor_infos()) {
      FrameworkID frameworkId = executor.framework_id();
      registry_.addExecutor(*s, frameworkId, std::move(executor));
    }
    for (Task& task : *message.mutable_tasks()) {
      TaskRecord* adopted = registry_.adoptTask(*s, std::move(task), nextLaunchOrder_++);
      if (adopted == nullptr) continue;
      operatorEvents_.taskAdded(*adopted);
      if (!adopted->released) trackTask(*s, *adopted);
      if (!deferredByTask_.empty()) answerDeferred(*adopted);
    }
    // Frameworks not back yet are kept for their failover timeout.
    for (const FrameworkInfo& framework : message.frameworks()) noteReportedFramework(framework);
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
            << message.tasks_size() << " tasks";
    reregistered_.slaves++;
    reregistered_.tasks += static_cast<uint64_t>(message.tasks_size());
    if (!reregistered_.pending) {
      reregistered_.pending = true;
      delay(std::chrono::seconds(1), [this] {
        LOG(INFO) << "Re-registered " << reregistered_.slaves << " slaves this master had not "
                  << "seen, with " << reregistered_.tasks << " tasks, in the last second";
        reregistered_ = {};
      });
    }
    dispatch(allocator_.pid(), &AllocatorActor::addSlave, s->id, s->info, s->total,
             std::move(used));
  }
  answerDeferred(*s);
  answer(*s, known);
}

void Master::unregisterSlave(const UPID& from, const UnregisterSlaveMessage& message) {
  Slave* s = slaveFrom(from, message.slave_id(), "UnregisterSlaveMessage");
  if (s == nullptr) return;
  removeSlave(*s, "the slave unregistered");
}

void Master::pong(const UPID& from, const PongSlaveMessage&) {
  if (Slave* s = registry_.slaveAt(from)) {
    s->pongPending = false;
    s->missedPings = 0;
  }
}

// Every --slave_ping_timeout: a slave that has not answered the previous
// ping missed it; one that missed --max_slave_ping_timeouts in a row is
// removed. One pass over the slaves per period, not per event.
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
    metrics_.slaveShutdownsScheduled++;
    removeSlave(*s, "it missed " + std::to_string(flags_.max_slave_ping_timeouts) +
                        " health checks in a row");
  }
  delay(flags_.slave_ping_timeout, [this] { pingSlaves(); });
}

void Master::removeSlave(Slave& s, const std::string& reason, bool shutdown) {
  const SlaveID slaveId = s.id;
  const UPID pid = s.pid;
  LOG(WARNING) << "Removing slave " << slaveId.value() << " at " << pid << ": " << reason;
  forgetAuthentication(pid);

  // Its offers are void; the resources leave with the slave.
  std::vector<std::string> offers(s.offers.begin(), s.offers.end());
  for (const std::string& offerId : offers) rescindOffer(offerId, false);

  std::vector<TaskRecord*> tasks(s.tasks.begin(), s.tasks.end());
  for (TaskRecord* task : tasks) {
    if (!isTerminalState(task->task.state())) {
      const std::string message = "Slave removed: " + reason;
      if (task->framework->registered) {
        sendMasterUpdate(*task->framework, slaveId, task->task.task_id(), TASK_LOST,
                         TaskStatus::REASON_SLAVE_REMOVED, message,
                         task->task.has_executor_id()
                             ? std::optional<ExecutorID>(task->task.executor_id())
                             : std::nullopt);
      }
      TaskStatus lost = task->latest;
      lost.set_state(TASK_LOST);
      lost.set_source(TaskStatus::SOURCE_MASTER);
      lost.set_reason(TaskStatus::REASON_SLAVE_REMOVED);
      lost.set_message(message);
      lost.set_timestamp(now());
      lost.clear_uuid();
      // The allocator drops the slave's resources itself.
      updateTask(*task, lost, false);
    }
    removeTask(*task);
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
  if (shutdown) {
    ShutdownMessage message;
    message.set_message("Slave removed: " + reason);
    send(pid, std::move(message));
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
  std::vector<std::string> offers(s.offers.begin(), s.offers.end());
  for (const std::string& offerId : offers) rescindOffer(offerId, true);
}

void Master::activateSlave(Slave& s) {
  if (s.active) return;
  registry_.setActive(s, true);
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
