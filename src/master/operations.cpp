// Offer operations (docs/reservations.md, docs/persistent-volumes.md,
// docs/task-groups.md): an ACCEPT's operations checked as a whole against the
// offers it names, then applied in order. A LaunchTasksMessage is an ACCEPT
// with one LAUNCH.
//
// Invariants kept here:
//  - an operation is applied only if every operation of its call passed
//    its checks (a task that fails its own checks fails alone, as Apache's);
//  - RESERVE, UNRESERVE, CREATE and DESTROY convert resources the offers
//    hold, in order, so that a later operation of the call sees the result
//    (a LAUNCH after a CREATE may use the volume); the slave's total changes
//    by the same conversion (slave_totals.cpp), the allocator hears of it
//    (updateAllocation) before the leftovers come back to it, and the slave
//    hears of it (CheckpointResourcesMessage) before any task that may use it;
//  - every offer the call names that was this framework's is used up by it.
#include <glog/logging.h>

#include <set>

#include "common/operations.hpp"
#include "common/roles.hpp"
#include "common/uuid.hpp"
#include "master/master.hpp"
#include "master/validation.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using allocator::AllocatorActor;
using process::dispatch;

namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

bool hasCapability(const FrameworkInfo& info, FrameworkInfo::Capability::Type type) {
  for (const auto& capability : info.capabilities()) {
    if (capability.type() == type) return true;
  }
  return false;
}

std::string operationName(const Offer::Operation& operation, size_t index) {
  std::string type = Offer::Operation::Type_IsValid(operation.type())
                         ? Offer::Operation::Type_Name(operation.type())
                         : std::to_string(static_cast<int>(operation.type()));
  std::string name = "operation " + std::to_string(index + 1) + " (" + type;
  if (operation.has_id()) name += " '" + operation.id().value() + "'";
  return name + ")";
}

// The tasks of one LAUNCH or LAUNCH_GROUP.
std::vector<const TaskInfo*> tasksOf(const Offer::Operation& operation) {
  std::vector<const TaskInfo*> out;
  if (operation.type() == Offer::Operation::LAUNCH) {
    for (const TaskInfo& task : operation.launch().task_infos()) out.push_back(&task);
  } else if (operation.type() == Offer::Operation::LAUNCH_GROUP) {
    for (const TaskInfo& task : operation.launch_group().task_group().tasks()) {
      out.push_back(&task);
    }
  }
  return out;
}

// Marks each resource without an allocation role as allocated to `role`
// (a MULTI_ROLE framework's operations need not say it); collects the
// other allocation roles named.
void allocate(google::protobuf::RepeatedPtrField<Resource>* resources, const std::string& role,
              std::set<std::string>* others) {
  for (Resource& resource : *resources) {
    if (!resource.has_allocation_info()) {
      resource.mutable_allocation_info()->set_role(role);
    } else if (resource.allocation_info().role() != role) {
      others->insert(resource.allocation_info().role());
    }
  }
}

void allocate(Offer::Operation* operation, const std::string& role,
              std::set<std::string>* others) {
  auto task = [&](TaskInfo* info) {
    allocate(info->mutable_resources(), role, others);
    if (info->has_executor()) allocate(info->mutable_executor()->mutable_resources(), role, others);
  };
  switch (operation->type()) {
    case Offer::Operation::LAUNCH:
      for (TaskInfo& info : *operation->mutable_launch()->mutable_task_infos()) task(&info);
      break;
    case Offer::Operation::LAUNCH_GROUP: {
      auto* group = operation->mutable_launch_group();
      if (group->has_executor()) allocate(group->mutable_executor()->mutable_resources(), role, others);
      for (TaskInfo& info : *group->mutable_task_group()->mutable_tasks()) task(&info);
      break;
    }
    case Offer::Operation::RESERVE:
      allocate(operation->mutable_reserve()->mutable_resources(), role, others);
      break;
    case Offer::Operation::UNRESERVE:
      allocate(operation->mutable_unreserve()->mutable_resources(), role, others);
      break;
    case Offer::Operation::CREATE:
      allocate(operation->mutable_create()->mutable_volumes(), role, others);
      break;
    case Offer::Operation::DESTROY:
      allocate(operation->mutable_destroy()->mutable_volumes(), role, others);
      break;
    default:
      break;
  }
}

// Why `slave` cannot hold `resource`, reserved or a volume (`what` is
// "reserve resources" or "create volume 'v'"), as Apache Mesos refuses it:
// a hierarchical role needs HIERARCHICAL_ROLE, a refined reservation
// RESERVATION_REFINEMENT. nullopt when it can.
std::optional<std::string> unfitFor(const Slave& slave, const Resource& resource,
                                    const std::string& what) {
  const int depth = resource.reservations_size();
  if (depth == 0) return std::nullopt;
  const std::string& role = resource.reservations(depth - 1).role();
  if (role.find('/') != std::string::npos &&
      !slave.declares(SlaveInfo::Capability::HIERARCHICAL_ROLE)) {
    return "cannot " + what + " for hierarchical role '" + role + "' on slave " + slave.id.value() +
           ", which does not declare HIERARCHICAL_ROLE";
  }
  if (depth > 1 && !slave.declares(SlaveInfo::Capability::RESERVATION_REFINEMENT)) {
    return "cannot " + what + " refining the reservation of '" +
           resource.reservations(depth - 2).role() + "' on slave " + slave.id.value() +
           ", which does not declare RESERVATION_REFINEMENT";
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> Master::frameworkRoles(const FrameworkInfo& info) {
  return roles::ofFramework(info);
}

Result<void> Master::checkOperation(const std::optional<std::string>& principal,
                                    const std::vector<std::string>* roles, bool refinement,
                                    const Slave& slave, const Offer::Operation& operation,
                                    const Resources& total) const {
  std::vector<std::string> problems;
  auto ours = [&](const std::string& role) {
    return roles == nullptr || std::find(roles->begin(), roles->end(), role) != roles->end();
  };
  auto authorized = [&](authorizer::Action action, const std::string& object) {
    return !guard_->authorizing() || guard_->authorized(action, principal, object);
  };
  const std::string who = authorizer::describe(principal);
  switch (operation.type()) {
    case Offer::Operation::RESERVE:
      for (const Resource& given : operation.reserve().resources()) {
        Resources canonical(given);
        if (canonical.empty()) continue;
        const Resource& r = *canonical.begin();
        const auto& top = r.reservations(r.reservations_size() - 1);
        if (!ours(top.role())) {
          problems.push_back("cannot reserve for role '" + top.role() +
                             "', which is not the framework's");
        } else if (r.has_allocation_info() && r.allocation_info().role() != top.role()) {
          problems.push_back("cannot reserve for role '" + top.role() +
                             "' resources offered to role '" + r.allocation_info().role() + "'");
        }
        if (top.has_principal() && principal && top.principal() != *principal) {
          problems.push_back("the reservation's principal '" + top.principal() + "' is not " +
                             who + " that asks for it");
        }
        if (r.reservations_size() > 1 && roles != nullptr && !refinement) {
          problems.push_back("refining the reservation of '" +
                             r.reservations(r.reservations_size() - 2).role() +
                             "' needs the RESERVATION_REFINEMENT capability");
        }
        if (auto refused = unfitFor(slave, r, "reserve resources")) problems.push_back(*refused);
        if (!authorized(authorizer::Action::kReserveResources, top.role())) {
          problems.push_back(who + " may not reserve resources for role '" + top.role() +
                             "' (ACL reserve_resources)");
        }
      }
      break;
    case Offer::Operation::UNRESERVE:
      for (const Resource& given : operation.unreserve().resources()) {
        Resources canonical(given);
        if (canonical.empty()) continue;
        const Resource& r = *canonical.begin();
        const auto& top = r.reservations(r.reservations_size() - 1);
        if (!ours(top.role())) {
          problems.push_back("cannot unreserve resources of role '" + top.role() +
                             "', which is not the framework's");
        }
        if (!authorized(authorizer::Action::kUnreserveResources, top.principal())) {
          problems.push_back(who + " may not unreserve resources reserved by '" +
                             top.principal() + "' (ACL unreserve_resources)");
        }
      }
      break;
    case Offer::Operation::CREATE: {
      for (const Resource& given : operation.create().volumes()) {
        Resources canonical(given);
        if (canonical.empty()) continue;
        const Resource& volume = *canonical.begin();
        const std::string& id = volume.disk().persistence().id();
        if (!ours(volume.role())) {
          problems.push_back("cannot create volume '" + id + "' for role '" + volume.role() +
                             "', which is not the framework's");
        }
        if (volume.disk().persistence().has_principal() && principal &&
            volume.disk().persistence().principal() != *principal) {
          problems.push_back("volume '" + id + "' names principal '" +
                             volume.disk().persistence().principal() + "', not " + who);
        }
        if (auto refused = unfitFor(slave, volume, "create volume '" + id + "'")) {
          problems.push_back(*refused);
        }
        if (operations::hasVolume(total, volume.role(), id)) {
          problems.push_back("volume '" + id + "' of role '" + volume.role() +
                             "' exists already on slave " + slave.id.value());
        }
        if (!authorized(authorizer::Action::kCreateVolume, volume.role())) {
          problems.push_back(who + " may not create volumes for role '" + volume.role() +
                             "' (ACL create_volumes)");
        }
      }
      break;
    }
    case Offer::Operation::DESTROY:
      for (const Resource& given : operation.destroy().volumes()) {
        Resources canonical(given);
        if (canonical.empty()) continue;
        const Resource& volume = *canonical.begin();
        const std::string& id = volume.disk().persistence().id();
        if (!ours(volume.role())) {
          problems.push_back("cannot destroy volume '" + id + "' of role '" + volume.role() +
                             "', which is not the framework's");
        }
        if (!operations::hasVolume(total, volume.role(), id)) {
          problems.push_back("volume '" + id + "' of role '" + volume.role() +
                             "' does not exist on slave " + slave.id.value());
        } else if (slave.used.unallocated().contains(canonical.unallocated())) {
          problems.push_back("volume '" + id + "' is in use by a task");
        }
        if (!authorized(authorizer::Action::kDestroyVolume,
                        volume.disk().persistence().principal())) {
          problems.push_back(who + " may not destroy volumes created by '" +
                             volume.disk().persistence().principal() + "' (ACL destroy_volumes)");
        }
      }
      break;
    default:
      break;
  }
  if (problems.empty()) return {};
  // Each problem once (a reservation of cpus and mem has the same one).
  std::vector<std::string> distinct;
  for (const std::string& problem : problems) {
    if (std::find(distinct.begin(), distinct.end(), problem) == distinct.end()) {
      distinct.push_back(problem);
    }
  }
  return Error{join(distinct)};
}

void Master::sendOperationStatus(Framework& f, const Offer::Operation& operation,
                                 const SlaveID& slaveId, OperationState state,
                                 const std::string& message) {
  if (!operation.has_id()) return;
  UpdateOperationStatusMessage update;
  *update.mutable_framework_id() = f.id;
  *update.mutable_slave_id() = slaveId;
  OperationStatus* status = update.mutable_status();
  *status->mutable_operation_id() = operation.id();
  status->set_state(state);
  if (!message.empty()) status->set_message(message);
  *status->mutable_slave_id() = slaveId;
  // Kept until acknowledged (and for reconciliation), with a uuid to
  // acknowledge it by; an error is not kept (nothing happened).
  if (state != OPERATION_ERROR) {
    status->mutable_uuid()->set_value(randomUuid());
    Operation& kept = f.operations[operation.id().value()];
    *kept.mutable_framework_id() = f.id;
    *kept.mutable_slave_id() = slaveId;
    *kept.mutable_info() = operation;
    *kept.mutable_latest_status() = *status;
    *kept.add_statuses() = *status;
    kept.mutable_uuid()->set_value(randomUuid());
  }
  *update.mutable_latest_status() = *status;
  send(f.pid, std::move(update));
}

void Master::acknowledgeOperationStatus(Framework& f,
                                        const scheduler::Call::AcknowledgeOperationStatus& ack) {
  auto it = f.operations.find(ack.operation_id().value());
  if (it == f.operations.end() || it->second.latest_status().uuid().value() != ack.uuid()) {
    LOG(WARNING) << "Ignoring an acknowledgement of operation '" << ack.operation_id().value()
                 << "' of framework " << f.id.value()
                 << ": no such operation status is waiting for one";
    return;
  }
  f.operations.erase(it);  // every status it gets is terminal
}

void Master::reconcileOperations(Framework& f,
                                 const scheduler::Call::ReconcileOperations& reconcile) {
  auto answer = [&](OperationStatus status) {
    status.clear_uuid();  // not sent reliably: nothing to acknowledge
    UpdateOperationStatusMessage update;
    *update.mutable_framework_id() = f.id;
    if (status.has_slave_id()) *update.mutable_slave_id() = status.slave_id();
    *update.mutable_status() = std::move(status);
    send(f.pid, std::move(update));
  };
  if (reconcile.operations_size() == 0) {
    for (const auto& [id, operation] : f.operations) answer(operation.latest_status());
    return;
  }
  for (const auto& wanted : reconcile.operations()) {
    auto it = f.operations.find(wanted.operation_id().value());
    if (it != f.operations.end()) {
      answer(it->second.latest_status());
      continue;
    }
    OperationStatus status;
    *status.mutable_operation_id() = wanted.operation_id();
    if (wanted.has_slave_id()) *status.mutable_slave_id() = wanted.slave_id();
    const std::string slaveId = wanted.slave_id().value();
    if (!slaveId.empty() && unreachable_.count(slaveId) != 0) {
      status.set_state(OPERATION_UNREACHABLE);
    } else if (!slaveId.empty() && recovered_.count(slaveId) != 0) {
      status.set_state(OPERATION_RECOVERING);
    } else {
      status.set_state(OPERATION_UNKNOWN);
    }
    answer(std::move(status));
  }
}

void Master::acceptOffers(const UPID&, Framework& f, const scheduler::Call::Accept& accept) {
  applyOffers(f, accept.offer_ids(), accept.operations(),
              accept.has_filters() ? accept.filters() : Filters());
}

void Master::launchTasks(const UPID& from, const LaunchTasksMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "LaunchTasksMessage");
  if (f == nullptr) return;
  google::protobuf::RepeatedPtrField<Offer::Operation> operations;
  if (message.tasks_size() > 0) {
    Offer::Operation* launch = operations.Add();
    launch->set_type(Offer::Operation::LAUNCH);
    *launch->mutable_launch()->mutable_task_infos() = message.tasks();
  }
  applyOffers(*f, message.offer_ids(), operations,
              message.has_filters() ? message.filters() : Filters());
}

void Master::applyOffers(Framework& f, const google::protobuf::RepeatedPtrField<OfferID>& ids,
                         const google::protobuf::RepeatedPtrField<Offer::Operation>& given,
                         const Filters& filters) {
  // The offers must exist, be this framework's, and be on one slave. Every
  // offer of this framework the call names is used up by it: on any error
  // they all go back to the allocator, unfiltered.
  std::vector<std::string> offerIds;  // this framework's offers, once each
  std::unordered_set<std::string> seen;
  std::vector<std::string> errors;
  Slave* s = nullptr;
  Resources offered;
  std::string allocationRole;  // the offers' (MULTI_ROLE frameworks)
  for (const OfferID& id : ids) {
    if (!seen.insert(id.value()).second) {
      errors.push_back("offer " + id.value() + " appears twice");
      continue;
    }
    const OfferRecord* record = offers_.find(id.value());
    if (record == nullptr) {
      errors.push_back("offer " + id.value() + " is no longer valid");
      continue;
    }
    const Offer& offer = record->offer;
    if (offer.framework_id().value() != f.id.value()) {
      errors.push_back("offer " + id.value() + " was not made to this framework");
      continue;
    }
    offerIds.push_back(id.value());
    Slave* offerSlave = slave(offer.slave_id().value());
    if (offerSlave == nullptr) {
      errors.push_back("offer " + id.value() + " is on a slave that is gone");
    } else if (s != nullptr && s != offerSlave) {
      errors.push_back("offers are on more than one slave (" + s->id.value() + " and " +
                       offerSlave->id.value() + ")");
    } else {
      s = offerSlave;
      offered += record->resources;
    }
    const std::string& offerRole = offer.allocation_info().role();
    if (offerIds.size() == 1) {
      allocationRole = offerRole;
    } else if (offerRole != allocationRole) {
      errors.push_back("offers are allocated to more than one role ('" + allocationRole +
                       "' and '" + offerRole + "')");
    }
  }
  size_t taskCount = 0;
  for (const Offer::Operation& operation : given) taskCount += tasksOf(operation).size();
  if (ids.empty() && !given.empty()) errors.push_back("no offers given");

  if (!errors.empty()) {
    std::string offerError = join(errors);
    LOG(WARNING) << "Framework " << f.id.value() << ": ACCEPT refused: " << offerError;
    for (const Offer::Operation& operation : given) {
      for (const TaskInfo* task : tasksOf(operation)) {
        sendMasterUpdate(f, task->slave_id(), task->task_id(), TASK_LOST,
                         TaskStatus::REASON_INVALID_OFFERS,
                         "Task launched with invalid offers: " + offerError);
        metrics_.tasksInvalid++;
        registry_.countRefused(TASK_LOST);
      }
      sendOperationStatus(f, operation, s != nullptr ? s->id : SlaveID(), OPERATION_ERROR,
                          "Invalid offers: " + offerError);
    }
    for (const std::string& offerId : offerIds) offers_.recover(offerId);
    return;
  }
  if (s == nullptr) return;  // no offers and no operations: nothing to do

  // A MULTI_ROLE framework's operations use resources allocated to the
  // offers' role: marked so where they do not say.
  google::protobuf::RepeatedPtrField<Offer::Operation> allocated;
  std::set<std::string> otherRoles;
  const bool multiRole = roles::multiRole(f.info);
  if (multiRole) {
    allocated = given;
    for (Offer::Operation& operation : allocated) allocate(&operation, allocationRole, &otherRoles);
  }
  const google::protobuf::RepeatedPtrField<Offer::Operation>& ops =
      multiRole ? allocated : given;
  if (taskCount == 0 && ops.empty()) metrics_.offersDeclined += offerIds.size();

  // Checked in order against what the offers hold, nothing applied yet.
  struct Checked {
    const TaskInfo* task;
    Result<Resources> used;
  };
  struct Step {
    const Offer::Operation* operation;
    operations::Conversion conversion;
    std::vector<Checked> tasks;
    std::string groupError;  // LAUNCH_GROUP: why none of its tasks runs
  };
  Resources available = offered;
  Resources total = s->total;
  std::vector<std::string> problems;  // the call's: nothing is applied
  for (const std::string& other : otherRoles) {
    problems.push_back("resources allocated to role '" + other + "' in offers allocated to role '" +
                       allocationRole + "'");
  }
  std::vector<Step> steps;
  steps.reserve(static_cast<size_t>(ops.size()));
  std::unordered_set<std::string> launched;  // task ids in this call
  std::unordered_set<std::string> newExecutors;
  size_t executorsOnSlave = s->executorCount;
  Resources longPending;  // long tasks checked earlier in the call
  const std::vector<std::string> roles = frameworkRoles(f.info);
  const std::optional<std::string> principal =
      f.info.has_principal() ? std::optional<std::string>(f.info.principal()) : std::nullopt;
  const bool refinement =
      hasCapability(f.info, FrameworkInfo::Capability::RESERVATION_REFINEMENT);

  auto checkTask = [&](const TaskInfo& task) -> Result<Resources> {
    TaskContext context{f, *s, available, launched, newExecutors, executorsOnSlave,
                        flags_.max_executors_per_slave};
    return tasks_.check(f, task, context, longPending);
  };
  auto take = [&](const TaskInfo& task, const Resources& used) {
    available -= used;
    if (isLongTask(task.labels())) longPending += Resources(task.resources());
    launched.insert(task.task_id().value());
    if (task.has_executor() &&
        registry_.executor(*s, f.id.value(), task.executor().executor_id().value()) == nullptr) {
      if (newExecutors.insert(task.executor().executor_id().value()).second) executorsOnSlave++;
    }
  };

  for (int i = 0; i < ops.size(); ++i) {
    const Offer::Operation& operation = ops.Get(i);
    const std::string name = operationName(operation, static_cast<size_t>(i));
    Step step{&operation, {}, {}, {}};
    if (operation.has_id()) {
      if (!f.http) {
        problems.push_back(name + ": operation feedback (Offer.Operation.id) needs the v1 "
                                  "scheduler API");
      } else if (operation.type() == Offer::Operation::LAUNCH ||
                 operation.type() == Offer::Operation::LAUNCH_GROUP) {
        problems.push_back(name + ": LAUNCH and LAUNCH_GROUP take no id (their tasks get "
                                  "status updates)");
      } else if (f.operations.count(operation.id().value()) != 0) {
        problems.push_back(name + ": the framework has an operation with this id already");
      }
    }
    switch (operation.type()) {
      case Offer::Operation::LAUNCH:
        for (const TaskInfo& task : operation.launch().task_infos()) {
          Result<Resources> used =
              task.has_executor() && task.executor().type() == ExecutorInfo::DEFAULT
                  ? Result<Resources>(Error{"an executor of type DEFAULT runs only task groups "
                                            "(LAUNCH_GROUP)"})
                  : checkTask(task);
          if (used) take(task, *used);
          step.tasks.push_back({&task, std::move(used)});
        }
        break;
      case Offer::Operation::LAUNCH_GROUP: {
        const auto& group = operation.launch_group();
        std::vector<std::string> wrong;
        if (!group.has_executor() || group.task_group().tasks_size() == 0) {
          wrong.push_back("a task group needs an executor and at least one task");
        } else if (group.executor().type() != ExecutorInfo::DEFAULT &&
                   !group.executor().has_command()) {
          wrong.push_back("the group's executor needs type DEFAULT or a CommandInfo");
        }
        // Each task is checked as if it named the group's executor, which
        // counts once; it fails the group, not the call.
        Resources before = available;
        auto launchedBefore = launched;
        Resources longBefore = longPending;
        auto executorsBefore = newExecutors;
        size_t countBefore = executorsOnSlave;
        for (const TaskInfo& task : group.task_group().tasks()) {
          if (!group.has_executor()) break;
          TaskInfo asRun = task;
          Result<Resources> used = Error{"(unchecked)"};
          if (task.has_executor()) {
            used = Error{"a task of a group must not set an executor (the group's runs it)"};
          } else if (!task.has_command()) {
            used = Error{"a task of a group needs a CommandInfo"};
          } else {
            // Checked as the task the executor runs: the task's command on
            // the group's executor.
            asRun.clear_command();
            *asRun.mutable_executor() = group.executor();
            used = checkTask(asRun);
          }
          if (used) {
            take(asRun, *used);
          } else {
            wrong.push_back("task '" + task.task_id().value() + "': " + used.error().message);
          }
          step.tasks.push_back({&task, std::move(used)});
        }
        if (!wrong.empty()) {
          step.groupError = "Task group is invalid: " + join(wrong);
          available = before;
          launched = std::move(launchedBefore);
          newExecutors = std::move(executorsBefore);
          executorsOnSlave = countBefore;
          longPending = std::move(longBefore);
        }
        break;
      }
      case Offer::Operation::RESERVE:
      case Offer::Operation::UNRESERVE:
      case Offer::Operation::CREATE:
      case Offer::Operation::DESTROY: {
        auto conversion = operations::conversion(operation);
        if (!conversion) {
          problems.push_back(name + ": " + conversion.error().message);
          break;
        }
        if (auto allowed = checkOperation(principal, &roles, refinement, *s, operation, total);
            !allowed) {
          problems.push_back(name + ": " + allowed.error().message);
          break;
        }
        auto next = operations::apply(available, *conversion);
        if (!next) {
          problems.push_back(name + ": the offers do not hold it: it " + next.error().message);
          break;
        }
        available = std::move(*next);
        total = operations::convertTotal(total, *conversion);
        step.conversion = std::move(*conversion);
        break;
      }
      default:
        problems.push_back(name + ": unknown operation type (this master knows LAUNCH, "
                                  "LAUNCH_GROUP, RESERVE, UNRESERVE, CREATE and DESTROY)");
    }
    steps.push_back(std::move(step));
  }

  if (!problems.empty()) {
    std::string message = "ACCEPT refused, nothing in it applied: " + join(problems);
    LOG(WARNING) << "Framework " << f.id.value() << ": " << message;
    for (const Offer::Operation& operation : ops) {
      for (const TaskInfo* task : tasksOf(operation)) {
        sendMasterUpdate(f, s->id, task->task_id(), TASK_ERROR,
                         TaskStatus::REASON_TASK_INVALID, message);
        metrics_.tasksInvalid++;
        registry_.countRefused(TASK_ERROR);
      }
      if (tasksOf(operation).empty()) metrics_.operationsError++;
      sendOperationStatus(f, operation, s->id, OPERATION_ERROR, message);
    }
    for (const std::string& offerId : offerIds) offers_.recover(offerId);
    return;
  }

  // Applied, in order.
  bool unsent = false;  // the slave's total changed since the slave was last told
  auto refuse = [&](const TaskInfo& task, const std::string& why, TaskStatus::Reason reason) {
    LOG(WARNING) << "Framework " << f.id.value() << ": task '" << task.task_id().value()
                 << "' is invalid: " << why;
    sendMasterUpdate(f, s->id, task.task_id(), TASK_ERROR, reason, why);
    metrics_.tasksInvalid++;
    registry_.countRefused(TASK_ERROR);
  };
  for (Step& step : steps) {
    const Offer::Operation& operation = *step.operation;
    if (!step.conversion.consumed.empty() || !step.conversion.converted.empty()) {
      dispatch(allocator_.pid(), &AllocatorActor::updateAllocation, f.id, s->id,
               step.conversion.consumed, step.conversion.converted);
      convert(*s, step.conversion);
      unsent = true;
      metrics_.operationsFinished++;
      LOG(INFO) << "Framework " << f.id.value() << " applied "
                << Offer::Operation::Type_Name(operation.type()) << " on slave "
                << s->id.value() << ": " << step.conversion.consumed.toString() << " -> "
                << step.conversion.converted.toString();
      sendOperationStatus(f, operation, s->id, OPERATION_FINISHED, "");
      continue;
    }
    if (unsent && !step.tasks.empty()) {
      checkpointOn(*s);  // before the tasks that may use it
      unsent = false;
    }
    if (operation.type() == Offer::Operation::LAUNCH) {
      for (Checked& checked : step.tasks) {
        const TaskInfo& task = *checked.task;
        if (!checked.used) {
          bool unauthorized = checked.used.error().message.rfind("Not authorized", 0) == 0;
          refuse(task, checked.used.error().message,
                 unauthorized ? TaskStatus::REASON_TASK_UNAUTHORIZED
                              : TaskStatus::REASON_TASK_INVALID);
          continue;
        }
        tasks_.add(f, *s, task);
        RunTaskMessage run;
        run.mutable_framework()->CopyFrom(f.info);
        run.set_pid(f.pid.toString());
        run.mutable_task()->CopyFrom(task);
        send(s->pid, std::move(run));
        metrics_.tasksLaunched++;
      }
    } else if (operation.type() == Offer::Operation::LAUNCH_GROUP) {
      const auto& group = operation.launch_group();
      if (!step.groupError.empty()) {
        for (const Checked& checked : step.tasks) {
          refuse(*checked.task, step.groupError, TaskStatus::REASON_TASK_GROUP_INVALID);
        }
        for (int i = static_cast<int>(step.tasks.size()); i < group.task_group().tasks_size();
             ++i) {
          refuse(group.task_group().tasks(i), step.groupError,
                 TaskStatus::REASON_TASK_GROUP_INVALID);
        }
        continue;
      }
      RunTaskGroupMessage run;
      *run.mutable_framework() = f.info;
      *run.mutable_executor() = group.executor();
      if (!run.executor().has_framework_id()) *run.mutable_executor()->mutable_framework_id() = f.id;
      for (const TaskInfo& task : group.task_group().tasks()) {
        TaskInfo asRun = task;
        *asRun.mutable_executor() = run.executor();
        tasks_.add(f, *s, asRun);
        *run.mutable_task_group()->add_tasks() = task;
        metrics_.tasksLaunched++;
      }
      send(s->pid, std::move(run));
    }
  }
  if (unsent) checkpointOn(*s);

  for (const std::string& offerId : offerIds) offers_.use(offerId);
  // Standing filters (Filters.offer_filters) reach the allocator even when
  // nothing is left over.
  if (!available.empty() || filters.has_offer_filters()) {
    offers_.giveBack(f.id, s->id, available, filters);
  }
}

}  // namespace mesos::internal::master
