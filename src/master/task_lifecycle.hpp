// A task's life in the master: checked, added, updated, removed; long tasks'
// slots and short tasks' duration limit (the paper's section 4.3); tasks
// killed for a revocation (section 3.3.1). The master's handlers (tasks.cpp,
// slaves.cpp, frameworks.cpp, operations.cpp) go through this class; the
// registry (registry.hpp) holds the records.
//
// Invariants:
// - A task's resources count as used from add() (or adopt(), unless it is
//   terminal already) until they are released: when the task becomes
//   terminal (update()) or is removed. At that moment, and only then, they
//   go back to the allocator (OfferBook::giveBack()), unless the task's
//   slave is leaving (update() with recover=false: the resources leave
//   with it).
// - Slave::longUsed is the sum of the resources of its long tasks not
//   released; a short task not released has a --short_task_max_duration
//   timer when the flag is set, and no other task has one.
// - launchOrder grows with every task added or adopted: revocation takes
//   the youngest first.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "master/registry.hpp"
#include "mesos/allocator.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::master {

class Master;
struct TaskContext;  // validation.hpp

// A task is long when its TaskInfo.labels hold a label with this key and
// the value "true" (docs/allocation.md, "Long tasks").
inline constexpr char kLongTaskLabel[] = "long";
bool isLongTask(const Labels& labels);

class TaskLifecycle {
 public:
  explicit TaskLifecycle(Master& master) : m_(master) {}

  // Whether `framework` may launch `task` on `context.slave` with what the
  // offers still hold: its ACL, the task's shape and resources
  // (validateTask()), and the slave's long-task slots counting `alsoLong`
  // (long tasks checked earlier in the same call). The resources it uses,
  // or why not (the message for TASK_ERROR).
  Result<Resources> check(const Framework& framework, const TaskInfo& task,
                          const TaskContext& context, const Resources& alsoLong) const;
  // A task launched now, with its executor if it is new.
  TaskRecord& add(Framework& framework, Slave& slave, const TaskInfo& task);
  // A task a re-registering slave reported (Registry::adoptTask()); null
  // when refused.
  TaskRecord* adopt(Slave& slave, Task task);
  // Records the task's latest status. Terminal states are final: a later
  // status changes nothing.
  void update(TaskRecord& task, const TaskStatus& status, bool recover = true);
  // Forgets the task (its resources released first if they were not).
  void remove(TaskRecord& task);
  // The executor is gone: what it held itself goes back.
  void removeExecutor(Slave& slave, const FrameworkID& frameworkId, const ExecutorID& executorId);

  // From the allocator: free resources on a slave for a framework below its
  // guarantee (revocation.cpp).
  void revoke(const allocator::Revocation& revocation);

 private:
  // long_tasks.cpp
  Result<void> checkLongTaskShare(const Slave& slave, const TaskInfo& task,
                                  const Resources& alsoLong) const;
  // The task's resources count now: a long one's go into Slave::longUsed, a
  // short one's duration limit starts.
  void track(Slave& slave, TaskRecord& task);
  // Undoes track(); safe to call more than once.
  void untrack(TaskRecord& task);
  void shortTaskExpired(const SlaveID& slaveId, const FrameworkID& frameworkId,
                        const std::string& taskId, uint64_t launchOrder);
  // Whether a framework's role would drop below its guarantee without
  // `resources` (short-task expiry never takes those).
  bool protectedByGuarantee(const FrameworkID& frameworkId, const Resources& resources) const;

  // revocation.cpp
  // Kills one task for a revocation (KillTaskMessage to its slave).
  void revokeTask(TaskRecord& task, const std::string& beneficiary);
  // After --revocation_grace_period: shuts down the executors of the revoked
  // tasks (task id, launch order) that are still not terminal.
  void revocationGraceExpired(const FrameworkID& frameworkId,
                              const std::vector<std::pair<std::string, uint64_t>>& tasks);

  Master& m_;
  uint64_t nextLaunchOrder_ = 0;  // TaskRecord::launchOrder of the next task
};

}  // namespace mesos::internal::master
