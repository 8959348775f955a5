// Tasks: status updates and their acknowledgements, kills, reconciliation,
// framework messages, executor exits.
#include <glog/logging.h>

#include "master/master.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

namespace {

// The task among `f`'s last completed ones that ended by its own update
// (not one the master marked lost), or null; the newest first.
const CompletedTask* endedTask(const Framework& f, const std::string& id) {
  for (auto it = f.completed.rbegin(); it != f.completed.rend(); ++it) {
    if (it->id == id) {
      return isTerminalState(it->state) && it->state != TASK_LOST ? &*it : nullptr;
    }
  }
  return nullptr;
}

}  // namespace

using allocator::AllocatorActor;
using process::dispatch;

void Master::sendMasterUpdate(Framework& f, const SlaveID& slaveId, const TaskID& taskId,
                              TaskState state, TaskStatus::Reason reason,
                              const std::string& message,
                              const std::optional<ExecutorID>& executorId,
                              std::optional<double> unreachableTime) {
  StatusUpdateMessage update;
  StatusUpdate* u = update.mutable_update();
  u->mutable_framework_id()->CopyFrom(f.id);
  if (!slaveId.value().empty()) u->mutable_slave_id()->CopyFrom(slaveId);
  if (executorId) u->mutable_executor_id()->CopyFrom(*executorId);
  u->set_timestamp(now());
  TaskStatus* status = u->mutable_status();
  status->mutable_task_id()->CopyFrom(taskId);
  status->set_state(state);
  status->set_message(message);
  status->set_source(TaskStatus::SOURCE_MASTER);
  status->set_reason(reason);
  status->set_timestamp(u->timestamp());
  if (!slaveId.value().empty()) status->mutable_slave_id()->CopyFrom(slaveId);
  if (unreachableTime) {
    status->mutable_unreachable_time()->set_nanoseconds(
        static_cast<int64_t>(*unreachableTime * 1e9));
  }
  // No uuid: updates the master makes need no acknowledgement.
  send(f.pid, std::move(update));
}

void Master::statusUpdate(const UPID& from, const StatusUpdateMessage& message) {
  const StatusUpdate& update = message.update();
  metrics_.statusUpdates++;
  const Slave* sender = registry_.slaveAt(from);
  if (sender == nullptr || !update.has_slave_id() ||
      update.slave_id().value() != sender->id.value()) {
    LOG(WARNING) << "Ignoring status update for task '" << update.status().task_id().value()
                 << "' from " << from << ": it is not the registered slave it names";
    metrics_.invalidStatusUpdates++;
    return;
  }
  if (!update.IsInitialized()) {
    LOG(WARNING) << "Ignoring status update from " << from
                 << ": missing fields: " << update.InitializationErrorString();
    metrics_.invalidStatusUpdates++;
    return;
  }
  Framework* f = framework(update.framework_id().value());
  if (f == nullptr) {
    // The slave keeps it and retries until the framework is back; for a
    // removed framework that is expected and not worth a warning each.
    bool removed = registry_.completedFramework(update.framework_id().value()) != nullptr;
    LOG_IF(WARNING, !removed) << "Status update " << TaskState_Name(update.status().state())
                              << " for task " << update.status().task_id().value()
                              << " of unknown framework " << update.framework_id().value()
                              << "; dropping it";
    metrics_.invalidStatusUpdates++;
    return;
  }
  auto task = f->tasks.find(update.status().task_id().value());
  if (task != f->tasks.end() && task->second->slave != nullptr && task->second->slave != sender) {
    // Only the slave that runs a task speaks for it (a process on another
    // slave's host could otherwise end any framework's task).
    LOG(WARNING) << "Ignoring status update " << TaskState_Name(update.status().state())
                 << " for task '" << update.status().task_id().value() << "' of framework "
                 << f->id.value() << " from slave " << sender->id.value() << " at " << from
                 << ": the task is on slave "
                 << task->second->slave->id.value();
    metrics_.invalidStatusUpdates++;
    return;
  }
  if (task == f->tasks.end() && sender->shutDownFrameworks.count(f->id.value()) != 0) {
    LOG(INFO) << "Dropping status update " << TaskState_Name(update.status().state())
              << " for task " << update.status().task_id().value() << " of framework "
              << f->id.value() << " from slave " << sender->id.value()
              << ": the framework was told TASK_LOST when the slave was unreachable";
    metrics_.invalidStatusUpdates++;
    return;
  }
  if (task != f->tasks.end()) {
    tasks_.update(*task->second, update.status());
    if (update.has_uuid()) {
      task->second->task.set_status_update_state(update.status().state());
      task->second->task.set_status_update_uuid(update.uuid());
    }
  }
  if (task != f->tasks.end() && task->second->revoked && isTerminalState(update.status().state())) {
    // The framework learns why its task ended: revoked for another's
    // guarantee.
    StatusUpdateMessage preempted = message;
    preempted.mutable_update()->mutable_status()->set_reason(TaskStatus::REASON_CONTAINER_PREEMPTED);
    send(f->pid, std::move(preempted));
  } else {
    send(f->pid, message);
  }
  // A terminal update needing no acknowledgement ends the task now.
  if (task != f->tasks.end() && isTerminalState(update.status().state()) && !update.has_uuid()) {
    tasks_.remove(*task->second);
    if (Slave* s = slave(update.slave_id().value())) checkDrained(*s);
  }
}

void Master::statusUpdateAcknowledgement(const UPID& from,
                                         const StatusUpdateAcknowledgementMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "StatusUpdateAcknowledgementMessage");
  if (f == nullptr) return;
  Slave* s = slave(message.slave_id().value());
  if (s == nullptr) {
    LOG(WARNING) << "Dropping acknowledgement for task " << message.task_id().value()
                 << ": slave " << message.slave_id().value() << " is gone";
    return;
  }
  send(s->pid, message);
  auto task = f->tasks.find(message.task_id().value());
  if (task == f->tasks.end()) return;
  const Task& record = task->second->task;
  if (record.has_status_update_uuid() && record.status_update_uuid() == message.uuid() &&
      isTerminalState(record.status_update_state())) {
    tasks_.remove(*task->second);
    checkDrained(*s);
  }
}

void Master::killTask(const UPID& from, const KillTaskMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "KillTaskMessage");
  if (f == nullptr) return;
  auto task = f->tasks.find(message.task_id().value());
  if (task == f->tasks.end()) {
    LOG(WARNING) << "Framework " << f->id.value() << " asked to kill unknown task "
                 << message.task_id().value();
    sendMasterUpdate(*f, SlaveID(), message.task_id(), TASK_LOST,
                     TaskStatus::REASON_RECONCILIATION, "Task not known to the master");
    return;
  }
  Slave* s = slave(task->second->task.slave_id().value());
  if (s == nullptr) return;
  LOG(INFO) << "Killing task " << message.task_id().value() << " of framework "
            << f->id.value() << " on slave " << s->id.value();
  send(s->pid, message);
}

void Master::reconcileTasks(const UPID& from, const ReconcileTasksMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "ReconcileTasksMessage");
  if (f == nullptr) return;
  if (message.statuses_size() == 0) {
    // After a failover, the answer waits until every agent the registry
    // lists is back or unreachable (partitions.cpp).
    if (!recovered_.empty()) {
      VLOG(1) << "Implicit reconciliation of framework " << f->id.value() << " waits for "
              << recovered_.size() << " agents the registry lists";
      implicitWaiting_.push_back(f->id.value());
      return;
    }
    reconcileImplicitly(*f);
    return;
  }
  // Apache Mesos 1.x's answers for a task the master does not hold; a
  // framework that is not partition-aware gets TASK_LOST for each.
  for (const TaskStatus& status : message.statuses()) {
    auto task = f->tasks.find(status.task_id().value());
    if (task != f->tasks.end()) {
      sendReconciliation(*f, *task->second);
      continue;
    }
    // Ended and acknowledged: a reconciliation that crossed that
    // acknowledgement hears the same end again, not TASK_LOST.
    if (const CompletedTask* ended = endedTask(*f, status.task_id().value())) {
      SlaveID where;
      where.set_value(ended->slaveId);
      sendMasterUpdate(*f, where, status.task_id(), ended->state, TaskStatus::REASON_RECONCILIATION,
                       "Reconciliation: the task ended");
      continue;
    }
    const std::optional<std::string> slaveId =
        status.has_slave_id() && !status.slave_id().value().empty()
            ? std::optional<std::string>(status.slave_id().value())
            : std::nullopt;
    const SlaveID named = slaveId ? status.slave_id() : SlaveID();
    if (auto unreachable = unreachableTasks_.find(f->id.value());
        unreachable != unreachableTasks_.end()) {
      if (auto known = unreachable->second.byId.find(status.task_id().value());
          known != unreachable->second.byId.end()) {
        const TaskStatus& last = known->second.status;
        sendMasterUpdate(*f, last.slave_id(), status.task_id(), stateFor(*f, TASK_UNREACHABLE),
                         TaskStatus::REASON_RECONCILIATION,
                         "Reconciliation: the task's agent is unreachable", std::nullopt,
                         static_cast<double>(last.unreachable_time().nanoseconds()) / 1e9);
        continue;
      }
    }
    // The agent may still come back after a failover: the answer waits
    // for it (election.cpp). Without a durable registry, during the
    // re-registration window any agent not back may.
    bool waitForAgent = slaveId ? recovered_.count(*slaveId) != 0 : !recovered_.empty();
    if (!durableRegistry_ && windowOpen_) {
      waitForAgent = !slaveId || slave(*slaveId) == nullptr;
    }
    if (waitForAgent) {
      deferReconciliation(*f, status.task_id(),
                          slaveId ? std::optional<SlaveID>(status.slave_id()) : std::nullopt);
      continue;
    }
    if (slaveId && slave(*slaveId) != nullptr) {
      sendMasterUpdate(*f, named, status.task_id(), stateFor(*f, TASK_GONE),
                       TaskStatus::REASON_RECONCILIATION,
                       "Reconciliation: the task is unknown to its agent's master");
    } else if (auto agent = slaveId ? unreachable_.find(*slaveId) : unreachable_.end();
               agent != unreachable_.end()) {
      sendMasterUpdate(*f, named, status.task_id(), stateFor(*f, TASK_UNREACHABLE),
                       TaskStatus::REASON_RECONCILIATION,
                       "Reconciliation: the task's agent is unreachable", std::nullopt,
                       agent->second.since);
    } else if (slaveId && gone_.count(*slaveId) != 0) {
      sendMasterUpdate(*f, named, status.task_id(), stateFor(*f, TASK_GONE_BY_OPERATOR),
                       TaskStatus::REASON_RECONCILIATION,
                       "Reconciliation: the task's agent was marked gone");
    } else {
      sendMasterUpdate(*f, named, status.task_id(), stateFor(*f, TASK_UNKNOWN),
                       TaskStatus::REASON_RECONCILIATION,
                       "Reconciliation: task unknown to the master");
    }
  }
}

void Master::sendReconciliation(Framework& f, const TaskRecord& task) {
  StatusUpdateMessage update;
  StatusUpdate* u = update.mutable_update();
  u->mutable_framework_id()->CopyFrom(f.id);
  u->mutable_slave_id()->CopyFrom(task.task.slave_id());
  if (task.task.has_executor_id()) u->mutable_executor_id()->CopyFrom(task.task.executor_id());
  u->set_timestamp(now());
  TaskStatus* status = u->mutable_status();
  status->CopyFrom(task.latest);
  status->clear_uuid();
  status->mutable_task_id()->CopyFrom(task.task.task_id());
  status->mutable_slave_id()->CopyFrom(task.task.slave_id());
  // The state of the update the framework gets next (Apache Mesos's
  // answer too): a task that ended while its update waits for an
  // acknowledgement is not reported ended before that update arrives.
  status->set_state(task.task.has_status_update_state() ? task.task.status_update_state()
                                                        : task.task.state());
  status->set_source(TaskStatus::SOURCE_MASTER);
  status->set_reason(TaskStatus::REASON_RECONCILIATION);
  send(f.pid, std::move(update));
}

void Master::frameworkToExecutor(const UPID& from, const FrameworkToExecutorMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "FrameworkToExecutorMessage");
  if (f == nullptr) return;
  Slave* s = slave(message.slave_id().value());
  if (s == nullptr) {
    LOG(WARNING) << "Dropping framework message for executor " << message.executor_id().value()
                 << ": slave " << message.slave_id().value() << " is unknown";
    metrics_.invalidFrameworkMessages++;
    return;
  }
  send(s->pid, message);
}

void Master::executorToFramework(const UPID& from, const ExecutorToFrameworkMessage& message) {
  Slave* s = slaveFrom(from, message.slave_id(), "ExecutorToFrameworkMessage");
  if (s == nullptr) return;
  Framework* f = framework(message.framework_id().value());
  if (f == nullptr) {
    LOG(WARNING) << "Dropping executor message for unknown framework "
                 << message.framework_id().value();
    metrics_.invalidFrameworkMessages++;
    return;
  }
  send(f->pid, message);
}

void Master::exitedExecutor(const UPID& from, const ExitedExecutorMessage& message) {
  Slave* s = slaveFrom(from, message.slave_id(), "ExitedExecutorMessage");
  if (s == nullptr) return;
  LOG(INFO) << "Executor " << message.executor_id().value() << " of framework "
            << message.framework_id().value() << " on slave " << s->id.value()
            << " exited with status " << message.status();
  tasks_.removeExecutor(*s, message.framework_id(), message.executor_id());
  if (Framework* f = framework(message.framework_id().value())) send(f->pid, message);
}

}  // namespace mesos::internal::master
