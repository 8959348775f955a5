// The status update path: executor -> slave -> status update manager ->
// master, acknowledgements back, and the slave's own updates (TASK_LOST,
// TASK_KILLED, TASK_FAILED) through the same reliable route.
#include <glog/logging.h>

#include "common/uuid.hpp"
#include "process/dispatch.hpp"
#include "slave/protobufs.hpp"
#include "slave/slave.hpp"

namespace mesos::internal::slave {

using process::UPID;

namespace {

// What the containerizer knows of the task's container (its networks and
// addresses, as Apache Mesos adds them to every update it forwards), over
// what the executor said of it.
void addContainerStatus(Containerizer& containerizer, const ContainerID& containerId,
                        TaskStatus* status) {
  auto known = containerizer.status(containerId);
  if (!known) return;
  ContainerStatus* container = status->mutable_container_status();
  if (known->network_infos_size() > 0) container->clear_network_infos();
  container->MergeFrom(*known);
}

}  // namespace

void Slave::statusUpdate(const UPID& from, const StatusUpdateMessage& message) {
  if (!wellFormed(from, message)) {
    metrics_.invalidStatusUpdates++;
    return;
  }
  StatusUpdate update = message.update();
  const std::string& taskId = update.status().task_id().value();

  Framework* fw = framework(update.framework_id().value());
  if (fw == nullptr) {
    LOG(WARNING) << "Dropping status update " << TaskState_Name(update.status().state())
                 << " for task " << taskId << " from " << from << ": unknown framework "
                 << update.framework_id().value();
    metrics_.invalidStatusUpdates++;
    return;
  }
  if (!isValidUuid(update.uuid())) {
    LOG(WARNING) << "Status update for task " << taskId << " from " << from
                 << " has no valid uuid; giving it one";
    update.set_uuid(randomUuid());
  }

  // Fill what the master and scheduler rely on.
  *update.mutable_slave_id() = info_.id();
  TaskStatus* status = update.mutable_status();
  *status->mutable_slave_id() = info_.id();
  if (update.has_executor_id() && !status->has_executor_id()) {
    *status->mutable_executor_id() = update.executor_id();
  }
  if (!status->has_source()) status->set_source(TaskStatus::SOURCE_EXECUTOR);
  if (!status->has_timestamp()) status->set_timestamp(update.timestamp());
  status->set_uuid(update.uuid());

  Executor* executor = fw->executorOfTask(taskId);
  if (executor == nullptr && update.has_executor_id()) {
    executor = fw->executor(update.executor_id().value());
  }
  // Only a task's own executor speaks for it, not another executor (by its
  // pid: a process on this host can still name that pid).
  if (executor == nullptr || !executor->pid || executor->pid != from) {
    LOG(WARNING) << "Dropping status update " << TaskState_Name(status->state()) << " for task "
                 << taskId << " of framework " << fw->id.value() << " from " << from << ": "
                 << (executor == nullptr ? std::string("no executor here runs it")
                                         : "it is not the task's executor " +
                                               (executor->pid ? executor->pid.toString()
                                                              : std::string("(not registered)")));
    metrics_.invalidStatusUpdates++;
    return;
  }
  if (!provesExecutor(executor, from, "status update " + std::string(TaskState_Name(status->state())) +
                                          " for task " + taskId)) {
    metrics_.invalidStatusUpdates++;
    return;
  }
  if (fw->terminating) {
    // The master shut the framework down here: it told the framework
    // TASK_LOST (or TASK_GONE) for these tasks, so what the executors say
    // now (the shutdown's TASK_KILLED) must never follow (Apache Mesos
    // drops it too). The executor is acknowledged, so that it exits at once.
    LOG(INFO) << "Dropping status update " << TaskState_Name(status->state()) << " for task "
              << taskId << ": framework " << fw->id.value() << " is shutting down here";
    metrics_.invalidStatusUpdates++;
    StatusUpdateAcknowledgementMessage ack;
    *ack.mutable_slave_id() = info_.id();
    *ack.mutable_framework_id() = update.framework_id();
    *ack.mutable_task_id() = status->task_id();
    ack.set_uuid(update.uuid());
    send(from, std::move(ack));
    return;
  }
  metrics_.validStatusUpdates++;
  markDrainUpdate(*fw, status);
  {
    // The kernel may act on a limit before the slave hears of it (cgroup
    // v2's OOM killer ends the task; its executor reports it failed): the
    // limit is then the reason.
    if (status->state() == TASK_FAILED && status->source() == TaskStatus::SOURCE_EXECUTOR) {
      if (auto limited = containerizer_->limitation(executor->containerId)) {
        status->set_source(TaskStatus::SOURCE_SLAVE);
        status->set_reason(limited->reason);
        status->set_message(limited->message);
        limitExecutor(executor, *limited);
      }
    }
    addContainerStatus(*containerizer_, executor->containerId, status);
    recordTaskState(executor, *status);
  }
  VLOG(1) << "Status update " << TaskState_Name(status->state()) << " for task " << taskId
          << " of framework " << fw->id.value() << " from " << from;

  // The executor's copy is acknowledged once the update is in the manager's
  // hands (the manager then owns delivering it to the master).
  UPID executorPid = from;
  if (message.has_pid() && !message.pid().empty()) {
    if (auto pid = UPID::parse(message.pid())) executorPid = *pid;
  }
  StatusUpdateAcknowledgementMessage ack;
  *ack.mutable_slave_id() = info_.id();
  *ack.mutable_framework_id() = update.framework_id();
  *ack.mutable_task_id() = status->task_id();
  ack.set_uuid(update.uuid());
  process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::update, update,
                    updatesLog(update.framework_id(), status->task_id()))
      .then(self(), [this, executorPid, ack](const Result<void>& result) {
        if (!result) {
          LOG(WARNING) << "Status update for task " << ack.task_id().value() << " refused: "
                       << result.error().message;
          return;
        }
        send(executorPid, ack);
      });
}

void Slave::recordTaskState(Executor* executor, const TaskStatus& status) {
  const std::string& taskId = status.task_id().value();
  bool terminal = isTerminalState(status.state());

  for (auto it = executor->queuedTasks.begin(); it != executor->queuedTasks.end(); ++it) {
    if (it->task_id().value() != taskId) continue;
    Task task = createTask(*it, status.state(), executor->frameworkId);
    *task.add_statuses() = status;
    executor->queuedTasks.erase(it);
    executor->queuedGroups.erase(taskId);
    if (terminal) {
      countTerminalTask(status.state());
      executor->terminatedTasks[taskId] = std::move(task);
      resized(*executor);
    } else {
      executor->launchedTasks[taskId] = std::move(task);
    }
    return;
  }
  if (auto it = executor->launchedTasks.find(taskId); it != executor->launchedTasks.end()) {
    it->second.set_state(status.state());
    *it->second.add_statuses() = status;
    if (terminal) {
      countTerminalTask(status.state());
      executor->terminatedTasks[taskId] = std::move(it->second);
      executor->launchedTasks.erase(it);
      resized(*executor);
    }
    return;
  }
  if (auto it = executor->terminatedTasks.find(taskId); it != executor->terminatedTasks.end()) {
    *it->second.add_statuses() = status;
  }
}

void Slave::countTerminalTask(TaskState state) {
  switch (state) {
    case TASK_FINISHED: metrics_.tasksFinished++; break;
    case TASK_FAILED: metrics_.tasksFailed++; break;
    case TASK_KILLED: metrics_.tasksKilled++; break;
    case TASK_LOST: metrics_.tasksLost++; break;
    case TASK_ERROR: metrics_.tasksError++; break;
    default: break;
  }
}

void Slave::sendSlaveUpdate(const FrameworkID& frameworkId, const ExecutorID* executorId,
                            const TaskID& taskId, TaskState state,
                            std::optional<TaskStatus::Reason> reason, const std::string& message) {
  SlaveID slaveId = info_.id();
  StatusUpdate update =
      createStatusUpdate(frameworkId, slaveId, taskId, state, reason, message, executorId);
  Framework* fw = framework(frameworkId.value());
  Executor* executor = fw == nullptr ? nullptr : fw->executorOfTask(taskId.value());
  if (executor != nullptr) {
    addContainerStatus(*containerizer_, executor->containerId, update.mutable_status());
    recordTaskState(executor, update.status());
  } else {
    countTerminalTask(state);  // a task that never reached an executor
  }
  process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::update, update,
                    updatesLog(frameworkId, taskId))
      .then(self(), [taskId](const Result<void>& result) {
        if (!result) {
          LOG(WARNING) << "Status update for task " << taskId.value()
                       << " refused: " << result.error().message;
        }
      });
}

void Slave::forwardStatusUpdate(StatusUpdate update) {
  if (state_ != State::kRunning || !master_) return;  // resent when registered again
  // Updates made before registration name no slave yet.
  if (update.slave_id().value().empty()) {
    *update.mutable_slave_id() = info_.id();
    *update.mutable_status()->mutable_slave_id() = info_.id();
  }
  if (Framework* fw = framework(update.framework_id().value())) {
    if (Executor* executor = fw->executorOfTask(update.status().task_id().value())) {
      const std::string& taskId = update.status().task_id().value();
      Task* task = nullptr;
      if (auto it = executor->launchedTasks.find(taskId); it != executor->launchedTasks.end()) {
        task = &it->second;
      } else if (auto it = executor->terminatedTasks.find(taskId);
                 it != executor->terminatedTasks.end()) {
        task = &it->second;
      }
      if (task != nullptr) {
        task->set_status_update_state(update.status().state());
        task->set_status_update_uuid(update.uuid());
      }
    }
  }
  StatusUpdateMessage message;
  *message.mutable_update() = std::move(update);
  message.set_pid(self().toString());
  send(*master_, std::move(message));
}

void Slave::statusUpdateAcknowledgement(const UPID& from,
                                        const StatusUpdateAcknowledgementMessage& message) {
  if (!wellFormed(from, message)) return;
  FrameworkID frameworkId = message.framework_id();
  TaskID taskId = message.task_id();
  process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::acknowledge, frameworkId,
                    taskId, message.uuid())
      .then(self(), [this, frameworkId, taskId](const Result<bool>& result) {
        acknowledged(frameworkId, taskId, result);
      });
}

void Slave::acknowledged(const FrameworkID& frameworkId, const TaskID& taskId,
                         const Result<bool>& result) {
  if (!result) {
    LOG(WARNING) << "Ignoring status update acknowledgement: " << result.error().message;
    return;
  }
  if (!*result) return;  // the stream goes on

  // The task's terminal update reached the master: the task is complete.
  Framework* fw = framework(frameworkId.value());
  Executor* executor = fw == nullptr ? nullptr : fw->executorOfTask(taskId.value());
  if (executor == nullptr) return;
  auto it = executor->terminatedTasks.find(taskId.value());
  if (it == executor->terminatedTasks.end()) return;
  executor->completedTasks.push_back(std::move(it->second));
  executor->terminatedTasks.erase(it);
  while (executor->completedTasks.size() > kMaxCompletedTasksPerExecutor) {
    executor->completedTasks.pop_front();
  }
  if (executor->state == Executor::State::kTerminated && !executor->incomplete()) {
    removeExecutor(fw, executor);
    if (fw->executors.empty()) removeFramework(fw);
  }
}

}  // namespace mesos::internal::slave
