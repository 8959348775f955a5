// Revocation (the paper's section 3.3.1): the allocator asks for resources
// to be freed on one slave for a framework below its role's guarantee. The
// master rescinds the victim's offers there, kills its youngest tasks there
// until enough is freed, and, after --revocation_grace_period, shuts down the
// executors of revoked tasks that have not ended. Freed resources come back
// to the allocator through the ordinary paths (rescinded offers at once,
// killed tasks with their terminal status update).
#include <algorithm>
#include <unordered_set>

#include <glog/logging.h>

#include "common/roles.hpp"
#include "master/master.hpp"
#include "master/task_lifecycle.hpp"

namespace mesos::internal::master {

namespace {

// Resources are kept to three decimals; anything closer than this is equal.
constexpr double kEpsilon = 1e-6;

// Whether `freed` covers `amount` on every scalar that `amount` names.
bool covers(const Resources& freed, const Resources& amount) {
  for (const Resource& resource : amount) {
    if (resource.type() != Value::SCALAR) continue;
    if (freed.scalar(resource.name()) + kEpsilon < amount.scalar(resource.name())) return false;
  }
  return true;
}

// Whether `taken` plus `more` stays within `limit` on every scalar of `more`.
bool within(const Resources& taken, const Resources& more, const Resources& limit) {
  for (const Resource& resource : more) {
    if (resource.type() != Value::SCALAR) continue;
    const std::string& name = resource.name();
    if (taken.scalar(name) + more.scalar(name) > limit.scalar(name) + kEpsilon) return false;
  }
  return true;
}

// Whether `more` adds to a scalar on which `freed` does not cover `amount`.
bool helps(const Resources& freed, const Resources& more, const Resources& amount) {
  for (const Resource& resource : amount) {
    if (resource.type() != Value::SCALAR) continue;
    const std::string& name = resource.name();
    if (freed.scalar(name) + kEpsilon < amount.scalar(name) && more.scalar(name) > kEpsilon) {
      return true;
    }
  }
  return false;
}

}  // namespace

void TaskLifecycle::revoke(const allocator::Revocation& revocation) {
  const std::string& frameworkId = revocation.frameworkId.value();
  const std::string& slaveId = revocation.slaveId.value();
  Framework* f = m_.framework(frameworkId);
  Slave* s = m_.slave(slaveId);
  if (f == nullptr || s == nullptr) {
    LOG(INFO) << "Ignoring revocation of " << revocation.amount.toString() << " from framework "
              << frameworkId << " on slave " << slaveId << ": the "
              << (f == nullptr ? "framework" : "slave") << " is gone";
    return;
  }
  LOG(INFO) << "Revoking " << revocation.amount.toString() << " (at most "
            << revocation.limit.toString() << ") from framework " << frameworkId
            << " on slave " << slaveId << " for framework "
            << revocation.beneficiary.value();

  // What this revocation frees for the beneficiary (only unreserved
  // resources and those reserved for its role count: another role's
  // reservation is never offered to it), and what it takes from the victim
  // in all (the limit keeps the victim's role at or above its own
  // guarantee).
  std::string role = revocation.beneficiaryRole.empty() ? "*" : revocation.beneficiaryRole;
  if (Framework* beneficiary = m_.framework(revocation.beneficiary.value());
      beneficiary != nullptr && revocation.beneficiaryRole.empty()) {
    role = beneficiary->info.role();
  }
  // A MULTI_ROLE victim gives up only what it holds in the role whose
  // share is taken.
  const bool multiRole = roles::multiRole(f->info) && !revocation.role.empty();
  auto inRole = [&](const Resources& resources) {
    return !multiRole || resources.allocationRole() == revocation.role;
  };
  auto usable = [&role](const Resources& resources) {
    Resources out = resources.role("*");
    if (role != "*") out += resources.role(role);
    return out;
  };
  Resources freed;
  Resources taken;

  // Outstanding offers first: they cost the framework no work.
  std::vector<std::string> offers;
  for (const std::string& offerId : s->offers) {
    const OfferRecord* offer = m_.offers_.find(offerId);
    if (offer->offer.framework_id().value() == frameworkId && inRole(offer->resources) &&
        !usable(offer->resources).empty()) {
      offers.push_back(offerId);
    }
  }
  for (const std::string& offerId : offers) {
    const Resources resources = m_.offers_.find(offerId)->resources;
    freed += usable(resources);
    taken += resources;
    LOG(INFO) << "Rescinding offer " << offerId << " (" << resources.toString()
              << ") of framework " << frameworkId << " for the revocation";
    m_.offers_.rescind(offerId);
  }

  // Then tasks, youngest first. Tasks revoked earlier and not yet ended are
  // on their way out: they count as freed and are not killed twice.
  std::vector<TaskRecord*> candidates;
  for (auto& [taskId, task] : f->tasks) {
    if (task->slave != s || task->released || isTerminalState(task->task.state()) ||
        !inRole(task->resources)) {
      continue;
    }
    if (task->revoked) {
      freed += usable(task->resources);
      taken += task->resources;
      continue;
    }
    candidates.push_back(task.get());
  }
  std::sort(candidates.begin(), candidates.end(), [](const TaskRecord* a, const TaskRecord* b) {
    return a->launchOrder > b->launchOrder;
  });

  std::vector<std::pair<std::string, uint64_t>> revoked;
  for (TaskRecord* task : candidates) {
    if (covers(freed, revocation.amount)) break;
    if (!helps(freed, usable(task->resources), revocation.amount)) continue;
    if (!within(taken, task->resources, revocation.limit)) continue;
    freed += usable(task->resources);
    taken += task->resources;
    revokeTask(*task, "framework " + revocation.beneficiary.value());
    revoked.emplace_back(task->task.task_id().value(), task->launchOrder);
  }

  if (!covers(freed, revocation.amount)) {
    LOG(INFO) << "Revocation from framework " << frameworkId << " on slave " << slaveId
              << " frees only " << freed.toString() << " of " << revocation.amount.toString()
              << ": no more of its tasks there fit within " << revocation.limit.toString();
  }
  if (revoked.empty()) return;

  FrameworkID id = f->id;
  m_.delay(m_.flags_.revocation_grace_period,
           [this, id, revoked] { revocationGraceExpired(id, revoked); });
}

void TaskLifecycle::revokeTask(TaskRecord& task, const std::string& beneficiary) {
  Slave* s = m_.slave(task.task.slave_id().value());
  if (s == nullptr) return;
  task.revoked = true;
  LOG(INFO) << "Revoking task " << task.task.task_id().value() << " of framework "
            << task.task.framework_id().value() << " on slave " << s->id.value() << " ("
            << task.resources.toString() << ") for " << beneficiary;
  KillTaskMessage kill;
  kill.mutable_framework_id()->CopyFrom(task.task.framework_id());
  kill.mutable_task_id()->CopyFrom(task.task.task_id());
  m_.send(s->pid, std::move(kill));
  m_.metrics_.tasksRevoked++;
}

void TaskLifecycle::revocationGraceExpired(
    const FrameworkID& frameworkId, const std::vector<std::pair<std::string, uint64_t>>& tasks) {
  // A framework that is gone had its executors shut down with it.
  Framework* f = m_.framework(frameworkId.value());
  if (f == nullptr) return;
  std::unordered_set<std::string> shutDown;  // slave id + executor id
  for (const auto& [taskId, launchOrder] : tasks) {
    auto it = f->tasks.find(taskId);
    // Gone, or a later task that reuses the id: the revoked one ended.
    if (it == f->tasks.end() || it->second->launchOrder != launchOrder) continue;
    TaskRecord& task = *it->second;
    if (task.released || isTerminalState(task.task.state())) continue;
    Slave* s = m_.slave(task.task.slave_id().value());
    if (s == nullptr) continue;
    // A command task runs in an executor named after the task.
    ExecutorID executorId;
    if (task.task.has_executor_id()) {
      executorId = task.task.executor_id();
    } else {
      executorId.set_value(taskId);
    }
    if (!shutDown.insert(s->id.value() + '\n' + executorId.value()).second) continue;
    LOG(INFO) << "Revoked task " << taskId << " of framework " << frameworkId.value()
              << " on slave " << s->id.value() << " is still "
              << TaskState_Name(task.task.state()) << " after the grace period; shutting down "
              << "executor " << executorId.value();
    ShutdownExecutorMessage shutdown;
    shutdown.mutable_framework_id()->CopyFrom(frameworkId);
    shutdown.mutable_executor_id()->CopyFrom(executorId);
    m_.send(s->pid, std::move(shutdown));
    m_.metrics_.revocationExecutorShutdowns++;
  }
}

}  // namespace mesos::internal::master
