// A task's life in the master (task_lifecycle.hpp states the invariants);
// long tasks are in long_tasks.cpp, revocation in revocation.cpp.
#include "master/task_lifecycle.hpp"

#include <glog/logging.h>

#include "master/master.hpp"
#include "master/validation.hpp"

namespace mesos::internal::master {

Result<Resources> TaskLifecycle::check(const Framework& framework, const TaskInfo& task,
                                       const TaskContext& context,
                                       const Resources& alsoLong) const {
  if (auto allowed = m_.authorizeTask(framework, task); !allowed) return allowed.error();
  auto used = validateTask(task, context);
  if (used) {
    if (auto share = checkLongTaskShare(context.slave, task, alsoLong); !share) {
      return share.error();
    }
  }
  return used;
}

TaskRecord& TaskLifecycle::add(Framework& framework, Slave& slave, const TaskInfo& info) {
  if (info.has_executor()) m_.registry_.addExecutor(slave, framework.id, info.executor());
  TaskRecord& task = m_.registry_.addTask(framework, slave, info, nextLaunchOrder_++);
  track(slave, task);
  m_.operatorEvents_.taskAdded(task);
  return task;
}

TaskRecord* TaskLifecycle::adopt(Slave& slave, Task task) {
  TaskRecord* adopted = m_.registry_.adoptTask(slave, std::move(task), nextLaunchOrder_++);
  if (adopted == nullptr) return nullptr;
  m_.operatorEvents_.taskAdded(*adopted);
  if (!adopted->released) track(slave, *adopted);
  return adopted;
}

void TaskLifecycle::update(TaskRecord& task, const TaskStatus& status, bool recover) {
  if (isTerminalState(task.task.state())) {
    // Terminal states are final: a later status (a retried update, the
    // master's own TASK_KILLED or TASK_LOST for a framework or slave that
    // goes away) does not rewrite what the framework was told.
    VLOG(1) << "Task " << task.task.task_id().value() << " is " << TaskState_Name(task.task.state())
            << " already; keeping that over " << TaskState_Name(status.state());
    return;
  }
  bool wasReleased = task.released;
  TaskState before = task.task.state();
  bool terminal = m_.registry_.updateTask(task, status);
  m_.operatorEvents_.taskUpdated(task, before);
  if (!terminal || wasReleased) return;
  untrack(task);
  if (recover) {
    m_.offers_.giveBack(task.task.framework_id(), task.task.slave_id(), task.resources);
  }
}

void TaskLifecycle::remove(TaskRecord& task) {
  untrack(task);
  if (!task.released) {
    m_.offers_.giveBack(task.task.framework_id(), task.task.slave_id(), task.resources);
  }
  m_.registry_.removeTask(task);
}

void TaskLifecycle::removeExecutor(Slave& slave, const FrameworkID& frameworkId,
                                   const ExecutorID& executorId) {
  Resources resources = m_.registry_.removeExecutor(slave, frameworkId.value(), executorId.value());
  if (!resources.empty()) m_.offers_.giveBack(frameworkId, slave.id, resources);
}

}  // namespace mesos::internal::master
