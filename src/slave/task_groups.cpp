// Task groups (LAUNCH_GROUP; docs/task-groups.md): the master sends one
// RunTaskGroupMessage; every task of it goes to the group's executor, and
// the executor gets them together in one RunTaskGroupMessage. A DEFAULT
// executor is ours, mesos-default-executor; a CUSTOM one runs its command
// and must understand groups (our executor driver's
// Executor::launchTaskGroup()). The tasks are otherwise the slave's usual
// tasks: checkpointed, queued until the executor registers, killed,
// updated and recovered as any other.
#include <glog/logging.h>

#include "slave/constants.hpp"
#include "slave/paths.hpp"
#include "slave/protobufs.hpp"
#include "slave/slave.hpp"

namespace mesos::internal::slave {

void Slave::runTaskGroup(const process::UPID& from, const RunTaskGroupMessage& message) {
  if (!wellFormed(from, message) || !fromMaster(from, "RunTaskGroupMessage")) return;
  const FrameworkID& frameworkId = message.executor().framework_id();
  const auto& group = message.task_group().tasks();
  if (frameworkId.value().empty()) {
    LOG(WARNING) << "Dropping a RunTaskGroupMessage from " << from
                 << ": its executor names no framework id";
    return;
  }
  std::vector<TaskID> ids;
  for (const TaskInfo& task : group) ids.push_back(task.task_id());
  LOG(INFO) << "Got a group of " << ids.size() << " task(s) for executor "
            << message.executor().executor_id().value() << " of framework "
            << frameworkId.value();
  if (ids.empty()) return;

  // All or none: the first task that cannot run here stops the group.
  for (const TaskInfo& task : group) {
    TaskInfo asRun = task;
    *asRun.mutable_executor() = message.executor();
    std::optional<Refusal> refused = refusal(frameworkId, message.framework(), asRun);
    if (!refused && (task.has_executor() || !task.has_command())) {
      refused = Refusal{TASK_ERROR, TaskStatus::REASON_TASK_GROUP_INVALID,
                        "Task '" + task.task_id().value() +
                            "' of a group needs a CommandInfo and no ExecutorInfo"};
    }
    if (refused) {
      if (refused->state) refused->message = "Task group refused: " + refused->message;
      refuse(frameworkId, ids, *refused);
      return;
    }
  }
  const bool isDefault = message.executor().type() == ExecutorInfo::DEFAULT;
  if (!isDefault && !message.executor().has_command()) {
    refuse(frameworkId, ids,
           Refusal{TASK_ERROR, TaskStatus::REASON_TASK_GROUP_INVALID,
                   "Task group refused: its executor has neither type DEFAULT nor a command"});
    return;
  }

  ExecutorInfo executorInfo =
      isDefault ? defaultExecutorInfo(message.executor()) : message.executor();
  Framework* fw = frameworkFor(frameworkId, message.framework(), "");
  Resources taskResources;
  for (const TaskInfo& task : message.task_group().tasks()) {
    taskResources += Resources(task.resources());
  }
  Executor* executor = executorFor(fw, executorInfo, false, ids, taskResources);
  if (executor == nullptr) return;

  // Kept as the master keeps them: each task with the group's executor.
  std::vector<TaskInfo> tasks;
  for (const TaskInfo& task : group) {
    TaskInfo asRun = task;
    *asRun.mutable_executor() = message.executor();
    checkpointTask(*executor, createTask(asRun, TASK_STAGING, frameworkId));
    tasks.push_back(std::move(asRun));
  }
  if (executor->state == Executor::State::kRegistering) {
    const uint64_t number = executor->nextGroup++;
    for (TaskInfo& task : tasks) {
      executor->queuedGroups[task.task_id().value()] = number;
      executor->queuedTasks.push_back(std::move(task));
    }
    resized(*executor);
    VLOG(1) << "Queued a group of " << ids.size() << " task(s) for executor "
            << executorInfo.executor_id().value();
  } else {
    sendTaskGroupToExecutor(*fw, executor, tasks);
  }
}

void Slave::sendTaskGroupToExecutor(const Framework& framework, Executor* executor,
                                    const std::vector<TaskInfo>& tasks) {
  RunTaskGroupMessage message;
  *message.mutable_framework() = framework.info;
  *message.mutable_executor() = executor->info;
  for (const TaskInfo& task : tasks) {
    executor->launchedTasks[task.task_id().value()] =
        createTask(task, TASK_STAGING, framework.id);
    // As the framework gave it: the group's executor runs it.
    TaskInfo* given = message.mutable_task_group()->add_tasks();
    *given = task;
    given->clear_executor();
  }
  resized(*executor);
  VLOG(1) << "Sending a group of " << tasks.size() << " task(s) to executor "
          << executor->info.executor_id().value() << " of framework " << framework.id.value();
  send(executor->pid, std::move(message));
}

ExecutorInfo Slave::defaultExecutorInfo(ExecutorInfo info) const {
  if (!info.has_name()) info.set_name("Default Executor");
  CommandInfo* command = info.mutable_command();
  command->set_shell(false);
  command->set_value(launcherBinaryPath(flags_.launcher_dir, kDefaultExecutor));
  command->clear_arguments();
  command->add_arguments(kDefaultExecutor);
  return info;
}

}  // namespace mesos::internal::slave
