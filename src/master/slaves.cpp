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
  if (auto it = slavePids_.find(from); it != slavePids_.end()) {
    if (Slave* s = slave(it->second); s != nullptr && s->active) {
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
  }
  auto owned = std::make_unique<Slave>();
  Slave* s = owned.get();
  s->id.set_value(nextId("S"));
  s->info = info;
  s->info.mutable_id()->CopyFrom(s->id);
  s->pid = from;
  s->version = message.version();
  s->total = Resources(info.resources());
  s->registeredTime = now();
  slaves_[s->id.value()] = std::move(owned);
  slavePids_[from] = s->id.value();
  link(from);
  metrics_.slavesRegistered++;
  resizeCluster(s->total, +1);
  LOG(INFO) << "Registered slave " << s->id.value() << " at " << from << " (" << info.hostname()
            << ") with " << s->total.toString();
  dispatch(allocator_.pid(), &AllocatorActor::addSlave, s->id, s->info, s->total,
           std::unordered_map<std::string, Resources>{});
  SlaveRegisteredMessage reply;
  reply.mutable_slave_id()->CopyFrom(s->id);
  reply.mutable_connection()->CopyFrom(connection(flags_));
  send(from, std::move(reply));
}

void Master::reregisterSlave(const UPID& from, const ReregisterSlaveMessage& message) {
  const SlaveInfo& info = message.slave();
  if (!info.IsInitialized() || !info.has_id() || info.id().value().empty()) {
    LOG(WARNING) << "Refusing re-registration of the slave at " << from
                 << ": SlaveInfo needs its hostname and id";
    ShutdownMessage shutdown;
    shutdown.set_message("Re-registration refused: SlaveInfo needs its hostname and id");
    send(from, std::move(shutdown));
    return;
  }
  Slave* s = slave(info.id().value());
  if (s != nullptr) {
    if (s->pid != from) {
      slavePids_.erase(s->pid);
      s->pid = from;
      slavePids_[from] = s->id.value();
    }
    link(from);  // a broken connection took the old link with it
    s->missedPings = 0;
    s->pongPending = false;
    LOG(INFO) << "Slave " << s->id.value() << " at " << from << " re-registered";
    if (!s->active) activateSlave(*s);
  } else {
    // A slave this master has not seen (the master restarted): take it and
    // what runs on it back.
    auto owned = std::make_unique<Slave>();
    s = owned.get();
    s->id = info.id();
    s->info = info;
    s->pid = from;
    s->version = message.version();
    s->total = Resources(info.resources());
    s->registeredTime = now();
    slaves_[s->id.value()] = std::move(owned);
    slavePids_[from] = s->id.value();
    link(from);
    metrics_.slavesRegistered++;
    resizeCluster(s->total, +1);
    std::unordered_map<std::string, Resources> used;
    for (const ExecutorInfo& executor : message.executor_infos()) {
      const std::string& frameworkId = executor.framework_id().value();
      s->executors[frameworkId][executor.executor_id().value()] = executor;
      Resources resources(executor.resources());
      s->used += resources;
      used[frameworkId] += resources;
      if (Framework* f = framework(frameworkId)) {
        f->executors[s->id.value()][executor.executor_id().value()] = executor;
        f->used += resources;
      } else {
        orphans_[frameworkId].insert(s->id.value());
      }
    }
    for (const Task& task : message.tasks()) {
      auto record = std::make_unique<TaskRecord>();
      record->task = task;
      record->task.mutable_slave_id()->CopyFrom(s->id);
      record->resources = Resources(task.resources());
      record->latest.mutable_task_id()->CopyFrom(task.task_id());
      record->latest.set_state(task.state());
      record->latest.mutable_slave_id()->CopyFrom(s->id);
      const std::string& frameworkId = task.framework_id().value();
      bool terminal = isTerminalState(task.state());
      if (!terminal) {
        s->used += record->resources;
        used[frameworkId] += record->resources;
      } else {
        record->recovered = true;
      }
      if (Framework* f = framework(frameworkId)) {
        f->tasks[task.task_id().value()] = record.get();
        if (!terminal) f->used += record->resources;
      } else {
        orphans_[frameworkId].insert(s->id.value());
      }
      if (!terminal) trackTask(*s, *record);
      countTaskState(task.state(), +1);
      s->tasks[frameworkId][task.task_id().value()] = std::move(record);
    }
    LOG(INFO) << "Re-registered slave " << s->id.value() << " at " << from << " with "
              << message.tasks_size() << " tasks";
    dispatch(allocator_.pid(), &AllocatorActor::addSlave, s->id, s->info, s->total, used);
  }
  SlaveReregisteredMessage reply;
  reply.mutable_slave_id()->CopyFrom(s->id);
  reply.mutable_connection()->CopyFrom(connection(flags_));
  send(from, std::move(reply));
}

void Master::unregisterSlave(const UPID& from, const UnregisterSlaveMessage& message) {
  Slave* s = slaveFrom(from, message.slave_id(), "UnregisterSlaveMessage");
  if (s == nullptr) return;
  removeSlave(*s, "the slave unregistered");
}

void Master::pong(const UPID& from, const PongSlaveMessage&) {
  auto it = slavePids_.find(from);
  if (it == slavePids_.end()) return;
  if (Slave* s = slave(it->second)) {
    s->pongPending = false;
    s->missedPings = 0;
  }
}

// Every --slave_ping_timeout: a slave that has not answered the previous
// ping missed it; one that missed --max_slave_ping_timeouts in a row is
// removed. One pass over the slaves per period, not per event.
void Master::pingSlaves() {
  std::vector<Slave*> dead;
  for (auto& [id, s] : slaves_) {
    if (s->pongPending && ++s->missedPings >= flags_.max_slave_ping_timeouts) {
      dead.push_back(s.get());
      continue;
    }
    PingSlaveMessage ping;
    // A slave told it is not connected re-registers.
    ping.set_connected(s->active);
    send(s->pid, std::move(ping));
    s->pongPending = true;
  }
  for (Slave* s : dead) {
    metrics_.slaveShutdownsScheduled++;
    removeSlave(*s, "it missed " + std::to_string(flags_.max_slave_ping_timeouts) +
                        " health checks in a row");
  }
  delay(flags_.slave_ping_timeout, [this] { pingSlaves(); });
}

void Master::removeSlave(Slave& s, const std::string& reason, bool shutdown) {
  const SlaveID slaveId = s.id;
  LOG(WARNING) << "Removing slave " << slaveId.value() << " at " << s.pid << ": " << reason;

  // Its offers are void; the resources leave with the slave.
  std::vector<std::string> offers(s.offers.begin(), s.offers.end());
  for (const std::string& offerId : offers) rescindOffer(offerId, false);

  std::vector<TaskRecord*> tasks;
  for (auto& [frameworkId, byId] : s.tasks) {
    for (auto& [taskId, task] : byId) tasks.push_back(task.get());
  }
  for (TaskRecord* task : tasks) {
    if (!isTerminalState(task->task.state())) {
      const std::string message = "Slave removed: " + reason;
      if (Framework* f = framework(task->task.framework_id().value())) {
        sendMasterUpdate(*f, slaveId, task->task.task_id(), TASK_LOST,
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
  for (auto& [frameworkId, byId] : s.executors) {
    if (Framework* f = framework(frameworkId)) {
      for (const auto& [executorId, info] : byId) f->used -= Resources(info.resources());
      f->executors.erase(slaveId.value());
    }
  }
  s.executors.clear();

  for (auto& [id, f] : frameworks_) {
    LostSlaveMessage lost;
    lost.mutable_slave_id()->CopyFrom(slaveId);
    send(f->pid, std::move(lost));
  }
  if (shutdown) {
    ShutdownMessage message;
    message.set_message("Slave removed: " + reason);
    send(s.pid, std::move(message));
  }

  dispatch(allocator_.pid(), &AllocatorActor::removeSlave, slaveId);
  slavePids_.erase(s.pid);
  metrics_.slavesRemoved++;
  if (!s.active) inactiveSlaves_--;
  resizeCluster(s.total, -1);
  slaves_.erase(slaveId.value());
}

void Master::deactivateSlave(Slave& s) {
  if (!s.active) return;
  s.active = false;
  inactiveSlaves_++;
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
  s.active = true;
  inactiveSlaves_--;
  LOG(INFO) << "Slave " << s.id.value() << " at " << s.pid << " is back; offering it again";
  dispatch(allocator_.pid(), &AllocatorActor::activateSlave, s.id);
}

void Master::resizeCluster(const Resources& resources, int sign) {
  if (sign > 0) {
    clusterTotal_ += resources;
  } else {
    clusterTotal_ -= resources;
  }
  if (guaranteed_.empty()) return;
  // Whether the cluster can hold every guarantee at once (only scalars are
  // guaranteed): said in the log when that changes, and in /master/roles.
  bool fit = clusterTotal_.flatten().contains(guaranteed_);
  if (fit == guaranteesFit_) return;
  guaranteesFit_ = fit;
  if (fit) {
    LOG(INFO) << "The cluster (" << clusterTotal_.flatten().toString()
              << ") can now meet every --guarantees at once (" << guaranteed_.toString() << ")";
  } else {
    LOG(WARNING) << "The cluster (" << clusterTotal_.flatten().toString()
                 << ") cannot meet every --guarantees at once (" << guaranteed_.toString()
                 << "); revocation frees what it can";
  }
}

}  // namespace mesos::internal::master
