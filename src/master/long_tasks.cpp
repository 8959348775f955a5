// Long-task slots (the paper's section 4.3): so that short tasks do not wait
// behind long ones, tasks labelled long=true may hold together at most
// --long_task_share of each slave's total of each scalar resource, and a task
// that is not long and still runs --short_task_max_duration after its launch
// is revoked like a task revoked for a guarantee (revocation.cpp): killed,
// its final update marked REASON_CONTAINER_PREEMPTED, and its executor shut
// down if it has not ended after --revocation_grace_period.
//
// Cost: the cap check reads one running sum per slave (Slave::longUsed,
// kept as long tasks are tracked and released), never the slave's tasks.
// The duration limit is one timer per short task, started at launch and
// cancelled when the task's resources are released, so nothing scans the
// tasks either; with the flag unset no timer exists.
#include <cstdio>

#include <glog/logging.h>

#include "common/roles.hpp"
#include "master/master.hpp"
#include "master/task_lifecycle.hpp"

namespace mesos::internal::master {

namespace {

// Resources are kept to three decimals; anything closer than this is equal.
constexpr double kEpsilon = 1e-6;

// 0.5 -> "50%", 0.125 -> "12.5%".
std::string percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", fraction * 100);
  std::string text = buffer;
  if (text.ends_with(".0")) text.resize(text.size() - 2);
  return text + "%";
}

}  // namespace

bool isLongTask(const Labels& labels) {
  for (const Label& label : labels.labels()) {
    if (label.key() == kLongTaskLabel && label.value() == "true") return true;
  }
  return false;
}

Result<void> TaskLifecycle::checkLongTaskShare(const Slave& s, const TaskInfo& task,
                                               const Resources& alsoLong) const {
  if (m_.flags_.long_task_share >= 1 || !isLongTask(task.labels())) return {};
  Resources resources(task.resources());
  for (const Resource& resource : resources) {
    if (resource.type() != Value::SCALAR) continue;
    const std::string& name = resource.name();
    double total = s.total.scalar(name);
    // Validation already refused resources the slave does not have.
    if (total <= 0) continue;
    double after = s.longUsed.scalar(name) + alsoLong.scalar(name) + resources.scalar(name);
    if (after > m_.flags_.long_task_share * total + kEpsilon) {
      return Error{"long tasks may hold at most " + percent(m_.flags_.long_task_share) +
                   " of slave " + s.id.value() + "'s " + name + "; this task would bring them to " +
                   percent(after / total)};
    }
  }
  return {};
}

void TaskLifecycle::track(Slave& s, TaskRecord& task) {
  task.isLong = isLongTask(task.task.labels());
  if (task.isLong) {
    s.longUsed += task.resources;
    task.countedLong = true;
    return;
  }
  if (!m_.flags_.short_task_max_duration) return;
  SlaveID slaveId = s.id;
  FrameworkID frameworkId = task.task.framework_id();
  std::string taskId = task.task.task_id().value();
  uint64_t launchOrder = task.launchOrder;
  task.expiry = m_.delay(*m_.flags_.short_task_max_duration,
                         [this, slaveId, frameworkId, taskId, launchOrder] {
                           shortTaskExpired(slaveId, frameworkId, taskId, launchOrder);
                         });
}

void TaskLifecycle::untrack(TaskRecord& task) {
  if (task.expiry) {
    m_.cancel(*task.expiry);
    task.expiry.reset();
  }
  if (task.countedLong) {
    task.countedLong = false;
    task.slave->longUsed -= task.resources;
  }
}

void TaskLifecycle::shortTaskExpired(const SlaveID& slaveId, const FrameworkID& frameworkId,
                                     const std::string& taskId, uint64_t launchOrder) {
  // Found under its framework id even when the framework has not
  // re-registered since a master failover.
  TaskRecord* found = m_.registry_.task(frameworkId.value(), taskId);
  if (found == nullptr || found->slave->id.value() != slaveId.value() ||
      found->launchOrder != launchOrder) {
    return;
  }
  TaskRecord& task = *found;
  task.expiry.reset();
  if (task.released || task.revoked || isTerminalState(task.task.state())) return;
  if (protectedByGuarantee(frameworkId, task.resources)) {
    LOG(INFO) << "Task " << taskId << " of framework " << frameworkId.value()
              << " ran past --short_task_max_duration but stays: without it its role would "
              << "hold less than its guarantee";
    return;
  }
  LOG(INFO) << "Task " << taskId << " of framework " << frameworkId.value() << " on slave "
            << slaveId.value() << " is not long and still " << TaskState_Name(task.task.state())
            << " after --short_task_max_duration="
            << flags::formatDuration(*m_.flags_.short_task_max_duration) << "; revoking it";
  m_.metrics_.shortTasksExpired++;
  revokeTask(task, "the short-task duration limit");
  std::vector<std::pair<std::string, uint64_t>> revoked{{taskId, launchOrder}};
  m_.delay(m_.flags_.revocation_grace_period,
           [this, frameworkId, revoked] { revocationGraceExpired(frameworkId, revoked); });
}

// Whether taking `resources` from the framework would leave its role
// holding less than its guarantee (what the role's frameworks use and are
// offered, as the allocator counts it). Rare (one expiry), so a pass over
// the frameworks will do.
bool TaskLifecycle::protectedByGuarantee(const FrameworkID& frameworkId,
                                         const Resources& resources) const {
  Framework* f = m_.framework(frameworkId.value());
  if (f == nullptr) return false;  // its role is unknown until it re-registers
  // A MULTI_ROLE framework: its first role (--guarantees predate it).
  const std::string role = roles::ofFramework(f->info).empty() ? "*" : roles::ofFramework(f->info)[0];
  auto guarantee = m_.config_.guarantees.find(role);
  if (guarantee == m_.config_.guarantees.end()) return false;
  Resources held;
  m_.registry_.forEachFramework([&](const Framework& other) {
    std::vector<std::string> roles = roles::ofFramework(other.info);
    if (!roles.empty() && roles[0] == role) held += (other.used + other.offered).unallocated();
  });
  return !(held - resources).flatten().contains(guarantee->second);
}

}  // namespace mesos::internal::master
