// Frameworks: registration, re-registration and failover, disconnection,
// removal.
#include <algorithm>

#include <glog/logging.h>

#include "common/ids.hpp"
#include "common/roles.hpp"
#include "master/master.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using allocator::AllocatorActor;
using process::dispatch;

namespace {

// The guarantee of `role` (--guarantees) into a (re)registration answer.
template <typename M>
void addGuarantee(const allocator::Config& config, const FrameworkInfo& info, M& message) {
  // A MULTI_ROLE framework's first role's.
  std::vector<std::string> roles = roles::ofFramework(info);
  if (roles.empty()) return;
  auto it = config.guarantees.find(roles.front());
  if (it != config.guarantees.end()) *message.mutable_guarantee() = it->second.proto();
}

}  // namespace

std::optional<std::string> Master::validateFrameworkInfo(FrameworkInfo& info) const {
  if (!info.IsInitialized()) {
    return "FrameworkInfo is missing required fields: " + info.InitializationErrorString();
  }
  if (info.name().empty()) return "FrameworkInfo.name is empty";
  bool multiRole = std::any_of(
      info.capabilities().begin(), info.capabilities().end(), [](const auto& capability) {
        return capability.type() == FrameworkInfo::Capability::MULTI_ROLE;
      });
  if (!multiRole && info.roles_size() > 0) {
    return "FrameworkInfo.roles needs the MULTI_ROLE capability (or use FrameworkInfo.role)";
  }
  if (multiRole && info.has_role()) {
    return "FrameworkInfo.role must not be set with the MULTI_ROLE capability (use roles)";
  }
  std::vector<std::string> roles = roles::ofFramework(info);
  for (size_t i = 0; i < roles.size(); i++) {
    if (auto valid = roles::validate(roles[i]); !valid) return valid.error().message;
    if (std::find(roles.begin(), roles.begin() + static_cast<long>(i), roles[i]) !=
        roles.begin() + static_cast<long>(i)) {
      return "FrameworkInfo.roles names role '" + roles[i] + "' twice";
    }
  }
  if (info.has_id() && !info.id().value().empty()) {
    if (auto valid = validateId("framework id", info.id().value()); !valid) {
      return valid.error().message;
    }
  }
  if (info.has_failover_timeout() && !(info.failover_timeout() >= 0)) {
    return "FrameworkInfo.failover_timeout must be a non-negative number of seconds";
  }
  if (!config_.roles.empty()) {
    for (const std::string& role : roles) {
      if (std::find(config_.roles.begin(), config_.roles.end(), role) != config_.roles.end()) {
        continue;
      }
      std::string known;
      for (const std::string& name : config_.roles) known += (known.empty() ? "" : ", ") + name;
      return "Role '" + role + "' is not one of the master's --roles (" + known + ")";
    }
  }
  return std::nullopt;
}

Framework* Master::frameworkFrom(const UPID& from, const FrameworkID& id, const char* what) {
  Framework* f = framework(id.value());
  if (f == nullptr) {
    LOG(WARNING) << "Ignoring " << what << " from " << from << " for unknown framework '"
                 << id.value() << "'";
    metrics_.invalidFrameworkMessages++;
    return nullptr;
  }
  if (f->pid != from) {
    LOG(WARNING) << "Ignoring " << what << " for framework " << id.value() << " from " << from
                 << ", which is not its scheduler (" << f->pid << ")";
    metrics_.invalidFrameworkMessages++;
    return nullptr;
  }
  return f;
}

void Master::registerFramework(const UPID& from, const RegisterFrameworkMessage& message) {
  registerWith(from, message.framework(), {});
}

void Master::registerWith(const UPID& from, FrameworkInfo info,
                          const std::vector<std::string>& suppressed) {
  auto error = validateFrameworkInfo(info);
  if (!error) error = suppressedOutside(info, suppressed);
  if (!error) error = checkFrameworkAuthentication(from, info);
  if (error) {
    LOG(WARNING) << "Refusing registration of a framework at " << from << ": " << *error;
    FrameworkErrorMessage reply;
    reply.set_message(*error);
    send(from, std::move(reply));
    return;
  }
  if (info.has_id() && !info.id().value().empty()) {
    FrameworkErrorMessage reply;
    reply.set_message("Registering with a framework id is not allowed; re-register instead");
    send(from, std::move(reply));
    return;
  }
  if (auto denied = authorizeFramework(info)) {
    FrameworkErrorMessage reply;
    reply.set_message(*denied);
    send(from, std::move(reply));
    return;
  }
  // A retry from a scheduler whose registration we answered already (the
  // answer was lost): answer again with the same id.
  if (auto it = frameworkPids_.find(from); it != frameworkPids_.end()) {
    if (Framework* f = framework(it->second); f != nullptr && f->pid == from) {
      LOG(INFO) << "Framework " << f->id.value() << " at " << from
                << " registered already; answering again";
      FrameworkRegisteredMessage reply;
      reply.mutable_framework_id()->CopyFrom(f->id);
      reply.mutable_master_info()->CopyFrom(info_);
      addGuarantee(config_, f->info, reply);
      send(from, std::move(reply));
      return;
    }
  }
  FrameworkInfo withId = info;
  withId.mutable_id()->set_value(nextId("F"));
  Framework* f = addFramework(withId, from, suppressed);
  LOG(INFO) << "Registered framework " << f->id.value() << " (" << info.name() << ") at "
            << from;
  FrameworkRegisteredMessage reply;
  reply.mutable_framework_id()->CopyFrom(f->id);
  reply.mutable_master_info()->CopyFrom(info_);
  addGuarantee(config_, f->info, reply);
  send(from, std::move(reply));
}

void Master::reregisterFramework(const UPID& from, const ReregisterFrameworkMessage& message) {
  reregisterWith(from, message.framework(), message.failover(), {});
}

void Master::reregisterWith(const UPID& from, FrameworkInfo info, bool failover,
                            const std::vector<std::string>& suppressed) {
  auto error = validateFrameworkInfo(info);
  if (!error) error = suppressedOutside(info, suppressed);
  if (!error) error = checkFrameworkAuthentication(from, info);
  if (error) {
    LOG(WARNING) << "Refusing re-registration of a framework at " << from << ": " << *error;
    FrameworkErrorMessage reply;
    reply.set_message(*error);
    send(from, std::move(reply));
    return;
  }
  if (!info.has_id() || info.id().value().empty()) {
    FrameworkErrorMessage reply;
    reply.set_message("Re-registering needs FrameworkInfo.id; register instead");
    send(from, std::move(reply));
    return;
  }
  if (auto denied = authorizeFramework(info)) {
    FrameworkErrorMessage reply;
    reply.set_message(*denied);
    send(from, std::move(reply));
    return;
  }
  const std::string& id = info.id().value();
  if (registry_.completedFramework(id) != nullptr) {
    FrameworkErrorMessage reply;
    reply.set_message("Framework " + id + " was removed; register as a new framework");
    send(from, std::move(reply));
    return;
  }
  Framework* f = framework(id);
  if (f != nullptr && f->info.principal() != info.principal()) {
    // Not said to the scheduler: it would learn the framework's principal.
    LOG(WARNING) << "Refusing re-registration of framework " << id << " at " << from
                 << " with principal '" << info.principal() << "': it registered with '"
                 << f->info.principal() << "'";
    FrameworkErrorMessage reply;
    reply.set_message("Changing framework's principal is not allowed.");
    send(from, std::move(reply));
    return;
  }
  // A retry, answered already: the slaves know where its scheduler is.
  const bool retry = f != nullptr && f->pid == from && f->active;
  if (f == nullptr) {
    // Unknown here (this master started after it registered): take it back.
    f = addFramework(info, from, suppressed);
    f->newPid = failover;
    LOG(INFO) << "Re-registered framework " << id << " (" << info.name() << ") at " << from;
  } else if (auto refused = f->registered ? resubscribe(*f, info, suppressed) : std::nullopt) {
    LOG(WARNING) << "Refusing re-registration of framework " << id << " at " << from << ": "
                 << *refused;
    FrameworkErrorMessage reply;
    reply.set_message(*refused);
    send(from, std::move(reply));
    return;
  } else if (f->pid != from) {
    failoverFramework(*f, from);
    f->newPid = true;
  } else {
    LOG(INFO) << "Framework " << id << " at " << from << " re-registered";
    if (!f->active) {
      registry_.setActive(*f, true);
      dispatch(allocator_.pid(), &AllocatorActor::activateFramework, f->id);
    }
    if (f->failoverTimer) {
      cancel(*f->failoverTimer);
      f->failoverTimer.reset();
    }
  }
  registry_.setReregistered(*f, now());
  operatorEvents_.frameworkUpdated(*f);
  // Slaves holding its tasks learn where the scheduler is now and send
  // again the updates it has not acknowledged (those sent while it was
  // away went nowhere). Not again for a retry: after a failover each
  // framework's retries would walk all its tasks while tens of thousands of
  // slaves wait for their answers.
  if (!retry) {
    for (const std::string& slaveId : slavesOf(*f)) {
      if (Slave* s = slave(slaveId)) {
        UpdateFrameworkMessage update;
        *update.mutable_framework_id() = f->id;
        update.set_pid(from.toString());
        *update.mutable_framework_info() = f->info;
        send(s->pid, std::move(update));
      }
    }
  }
  FrameworkReregisteredMessage reply;
  reply.mutable_framework_id()->CopyFrom(f->id);
  reply.mutable_master_info()->CopyFrom(info_);
  addGuarantee(config_, f->info, reply);
  send(from, std::move(reply));
}

// Tasks and executors that slaves reported before the framework came back
// are its own from now on (the registry kept them under its id).
Framework* Master::addFramework(const FrameworkInfo& info, const UPID& pid,
                                const std::vector<std::string>& suppressed) {
  Framework& f = registry_.registerFramework(info, pid, now(), isSchedulerStream(pid));
  frameworkPids_[pid] = f.id.value();
  link(pid);
  metrics_.frameworksRegistered++;
  operatorEvents_.frameworkAdded(f);
  dispatch(allocator_.pid(), &AllocatorActor::addFramework, f.id, f.info,
           std::unordered_map<std::string, Resources>{}, true, suppressed);
  return &f;
}

std::optional<std::string> Master::suppressedOutside(const FrameworkInfo& info,
                                                     const std::vector<std::string>& suppressed) {
  std::vector<std::string> roles = roles::ofFramework(info);
  for (const std::string& role : suppressed) {
    if (std::find(roles.begin(), roles.end(), role) == roles.end()) {
      return "Suppressed role '" + role + "' is not one of the framework's roles";
    }
  }
  return std::nullopt;
}

std::optional<std::string> Master::resubscribe(Framework& f, const FrameworkInfo& info,
                                               const std::vector<std::string>& suppressed) {
  FrameworkInfo next = info;
  *next.mutable_id() = f.id;
  // Nothing changed, and nothing to suppress: the usual failover.
  if (suppressed.empty() && next.SerializeAsString() == f.info.SerializeAsString()) {
    return std::nullopt;
  }
  return updateFramework(f, std::move(next), suppressed);
}

void Master::failoverFramework(Framework& f, const UPID& newPid) {
  LOG(INFO) << "Framework " << f.id.value() << " failed over from " << f.pid << " to " << newPid;
  if (f.pid) {
    FrameworkErrorMessage error;
    error.set_message("Framework failed over");
    send(f.pid, std::move(error));
  }
  frameworkPids_.erase(f.pid);
  forgetAuthentication(f.pid);
  registry_.setPid(f, newPid, isSchedulerStream(newPid));
  frameworkPids_[newPid] = f.id.value();
  link(newPid);
  if (f.failoverTimer) {
    cancel(*f.failoverTimer);
    f.failoverTimer.reset();
  }
  // Offers made to the old scheduler are void (the new one never saw them).
  offers_.recoverOf(f);
  if (!f.active) {
    registry_.setActive(f, true);
    dispatch(allocator_.pid(), &AllocatorActor::activateFramework, f.id);
  }
}

void Master::unregisterFramework(const UPID& from, const UnregisterFrameworkMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "UnregisterFrameworkMessage");
  if (f == nullptr) return;
  LOG(INFO) << "Framework " << f->id.value() << " unregistered";
  removeFramework(*f);
}

void Master::deactivateFramework(const UPID& from, const DeactivateFrameworkMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "DeactivateFrameworkMessage");
  if (f == nullptr || !f->active) return;
  LOG(INFO) << "Deactivating framework " << f->id.value();
  registry_.setActive(*f, false);
  operatorEvents_.frameworkUpdated(*f);
  dispatch(allocator_.pid(), &AllocatorActor::deactivateFramework, f->id);
  offers_.rescindOf(*f);
}

void Master::disconnectFramework(Framework& f) {
  if (f.active) {
    registry_.setActive(f, false);
    operatorEvents_.frameworkUpdated(f);
    dispatch(allocator_.pid(), &AllocatorActor::deactivateFramework, f.id);
    // Nobody is listening for rescinds.
    offers_.recoverOf(f);
  }
  process::Duration timeout = flags_.framework_failover_timeout;
  if (f.info.has_failover_timeout()) {
    timeout = std::chrono::duration_cast<process::Duration>(
        std::chrono::duration<double>(f.info.failover_timeout()));
  }
  FrameworkID id = f.id;
  UPID pid = f.pid;
  LOG(INFO) << "Framework " << id.value() << " will be removed in "
            << std::chrono::duration<double>(timeout).count() << " s unless it fails over";
  if (f.failoverTimer) cancel(*f.failoverTimer);
  f.failoverTimer = delay(timeout, [this, id, pid] {
    Framework* current = framework(id.value());
    if (current == nullptr || current->pid != pid || current->active) return;
    LOG(INFO) << "Framework " << id.value() << " did not fail over in time; removing it";
    current->failoverTimer.reset();
    removeFramework(*current);
  });
}

void Master::removeFramework(Framework& f) {
  if (f.failoverTimer) cancel(*f.failoverTimer);
  closeSchedulerStream(f.pid);
  dispatch(allocator_.pid(), &AllocatorActor::deactivateFramework, f.id);
  // The scheduler unregistered or is gone: nothing more is sent to it.
  offers_.recoverOf(f);

  shutDownOnSlaves(f, "Framework removed");
  dispatch(allocator_.pid(), &AllocatorActor::removeFramework, f.id);
  frameworkPids_.erase(f.pid);
  forgetAuthentication(f.pid);
  unreachableTasks_.erase(f.id.value());
  metrics_.frameworksRemoved++;
  operatorEvents_.frameworkRemoved(f);
  registry_.unregisterFramework(f, now());
}

std::unordered_set<std::string> Master::slavesOf(const Framework& f) const {
  std::unordered_set<std::string> slaveIds;
  for (const auto& [taskId, task] : f.tasks) slaveIds.insert(task->slave->id.value());
  for (const auto& [slaveId, count] : f.executorSlaves) slaveIds.insert(slaveId);
  return slaveIds;
}

void Master::shutDownOnSlaves(Framework& f, const std::string& why) {
  const FrameworkID id = f.id;
  std::unordered_set<std::string> slaveIds = slavesOf(f);
  std::vector<TaskRecord*> tasks;
  for (const auto& [taskId, task] : f.tasks) tasks.push_back(task.get());
  // An unregistered `f` goes with its last task or executor: only `id`
  // from here on.
  for (const std::string& slaveId : slaveIds) {
    Slave* s = slave(slaveId);
    if (s == nullptr) continue;
    ShutdownFrameworkMessage shutdown;
    *shutdown.mutable_framework_id() = id;
    send(s->pid, std::move(shutdown));
  }
  for (TaskRecord* task : tasks) {
    // Tasks that ended already keep their state (TaskLifecycle::update() ignores
    // this for them).
    TaskStatus killed = task->latest;
    killed.set_state(TASK_KILLED);
    killed.set_source(TaskStatus::SOURCE_MASTER);
    killed.set_reason(TaskStatus::REASON_FRAMEWORK_REMOVED);
    killed.set_message(why);
    killed.set_timestamp(now());
    killed.clear_uuid();
    tasks_.update(*task, killed);
    tasks_.remove(*task);
  }
  for (const std::string& slaveId : slaveIds) {
    Slave* s = slave(slaveId);
    if (s == nullptr) continue;
    auto executors = s->executors.find(id.value());
    if (executors == s->executors.end()) continue;
    std::vector<ExecutorID> ids;
    for (const auto& [executorId, info] : executors->second) ids.push_back(info.executor_id());
    for (const ExecutorID& executorId : ids) tasks_.removeExecutor(*s, id, executorId);
  }
  // A draining slave may have nothing left now (draining.cpp).
  for (const std::string& slaveId : slaveIds) {
    if (Slave* s = slave(slaveId)) checkDrained(*s);
  }
}

void Master::resourceRequest(const UPID& from, const ResourceRequestMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "ResourceRequestMessage");
  if (f == nullptr) return;
  std::vector<Request> requests(message.requests().begin(), message.requests().end());
  dispatch(allocator_.pid(), &AllocatorActor::requestResources, f->id, requests);
}

void Master::reviveOffers(const UPID& from, const ReviveOffersMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "ReviveOffersMessage");
  if (f == nullptr) return;
  suppressOrRevive(*f, {message.roles().begin(), message.roles().end()}, false);
}

void Master::suppressOffers(const UPID& from, const SuppressOffersMessage& message) {
  Framework* f = frameworkFrom(from, message.framework_id(), "SuppressOffersMessage");
  if (f == nullptr) return;
  suppressOrRevive(*f, {message.roles().begin(), message.roles().end()}, true);
}

std::optional<std::string> Master::unknownRoles(const Framework& f,
                                                const std::vector<std::string>& named) const {
  std::vector<std::string> roles = roles::ofFramework(f.info);
  std::string unknown;
  for (const std::string& role : named) {
    if (std::find(roles.begin(), roles.end(), role) == roles.end()) {
      unknown += (unknown.empty() ? "'" : ", '") + role + "'";
    }
  }
  if (unknown.empty()) return std::nullopt;
  return "Framework " + f.id.value() + " does not have role" +
         (unknown.find(',') == std::string::npos ? " " : "s ") + unknown;
}

void Master::suppressOrRevive(Framework& f, const std::vector<std::string>& roles,
                              bool suppress) {
  if (auto unknown = unknownRoles(f, roles)) {
    LOG(WARNING) << "Ignoring " << (suppress ? "SUPPRESS" : "REVIVE") << ": " << *unknown;
    return;
  }
  if (roles.empty()) {
    if (suppress) {
      dispatch(allocator_.pid(), &AllocatorActor::suppressOffers, f.id);
    } else {
      dispatch(allocator_.pid(), &AllocatorActor::reviveOffers, f.id);
    }
  } else if (suppress) {
    dispatch(allocator_.pid(), &AllocatorActor::suppressRoles, f.id, roles);
  } else {
    dispatch(allocator_.pid(), &AllocatorActor::reviveRoles, f.id, roles);
  }
}

std::optional<std::string> Master::updateFramework(Framework& f, FrameworkInfo info,
                                                   const std::vector<std::string>& suppressed) {
  if (auto error = validateFrameworkInfo(info)) return *error;
  if (info.id().value() != f.id.value()) {
    return "'framework_info.id' (" + info.id().value() + ") is not the framework's (" +
           f.id.value() + ")";
  }
  if (info.principal() != f.info.principal()) return "Changing framework's principal is not allowed.";
  if (info.user() != f.info.user()) {
    return "Updating 'FrameworkInfo.user' is unsupported; attempted to update from '" +
           f.info.user() + "' to '" + info.user() + "'";
  }
  if (info.checkpoint() != f.info.checkpoint()) {
    return std::string("Updating 'FrameworkInfo.checkpoint' is unsupported");
  }
  const bool multiRole = roles::multiRole(info);
  if (multiRole != roles::multiRole(f.info)) {
    return std::string("Adding or removing the MULTI_ROLE capability is unsupported");
  }
  const std::vector<std::string> roles = roles::ofFramework(info);
  if (!multiRole && roles != roles::ofFramework(f.info)) {
    return "Changing 'FrameworkInfo.role' needs the MULTI_ROLE capability (from '" +
           f.info.role() + "' to '" + info.role() + "')";
  }
  for (const std::string& role : suppressed) {
    if (std::find(roles.begin(), roles.end(), role) == roles.end()) {
      return "Suppressed role '" + role + "' is not one of the framework's roles";
    }
  }
  if (auto denied = authorizeFramework(info)) return *denied;
  LOG(INFO) << "Updating framework " << f.id.value() << " (" << info.name() << ") with "
            << roles.size() << " role(s), " << suppressed.size() << " suppressed";
  registry_.setInfo(f, std::move(info));
  dispatch(allocator_.pid(), &AllocatorActor::updateFramework, f.id, f.info, suppressed);
  // The slaves running its tasks keep its FrameworkInfo (their /state, what
  // they checkpoint, what its executors are told next); the others learn it
  // with its next task.
  for (const std::string& slaveId : slavesOf(f)) {
    if (Slave* s = slave(slaveId)) {
      UpdateFrameworkMessage update;
      *update.mutable_framework_id() = f.id;
      update.set_pid(f.http ? std::string() : f.pid.toString());
      *update.mutable_framework_info() = f.info;
      send(s->pid, std::move(update));
    }
  }
  // Offers of roles it leaves are void.
  if (multiRole) {
    offers_.rescindOf(f, [&roles](const OfferRecord& record) {
      const std::string& role = record.offer.allocation_info().role();
      return std::find(roles.begin(), roles.end(), role) == roles.end();
    });
  }
  operatorEvents_.frameworkUpdated(f);
  return std::nullopt;
}

// A scheduler Call, from a v0 driver (inside a libprocess message) or a v1
// HTTP scheduler (through its SchedulerStream's pid): each type is served
// by the handler of the v0 message that says the same. SUBSCRIBE is only
// an HTTP request (scheduler_api.cpp).
void Master::schedulerCall(const UPID& from, const scheduler::Call& call) {
  Framework* f = frameworkFrom(from, call.framework_id(), "scheduler Call");
  if (f == nullptr) return;
  const FrameworkID id = f->id;
  switch (call.type()) {
    case scheduler::Call::TEARDOWN: {
      UnregisterFrameworkMessage message;
      *message.mutable_framework_id() = id;
      unregisterFramework(from, message);
      return;
    }
    case scheduler::Call::SUPPRESS:
      suppressOrRevive(*f, {call.suppress().roles().begin(), call.suppress().roles().end()}, true);
      return;
    case scheduler::Call::REVIVE:
      suppressOrRevive(*f, {call.revive().roles().begin(), call.revive().roles().end()}, false);
      return;
    case scheduler::Call::UPDATE_FRAMEWORK: {
      // From a v0 driver (the HTTP API answers in scheduler_api.cpp).
      const auto& update = call.update_framework();
      if (auto error = updateFramework(*f, update.framework_info(),
                                       {update.suppressed_roles().begin(),
                                        update.suppressed_roles().end()})) {
        LOG(WARNING) << "Refusing UPDATE_FRAMEWORK of framework " << id.value() << ": " << *error;
        FrameworkErrorMessage reply;
        reply.set_message("UPDATE_FRAMEWORK refused: " + *error);
        send(f->pid, std::move(reply));
      }
      return;
    }
    case scheduler::Call::ACCEPT:
      acceptOffers(from, *f, call.accept());
      return;
    case scheduler::Call::ACKNOWLEDGE_OPERATION_STATUS:
      acknowledgeOperationStatus(*f, call.acknowledge_operation_status());
      return;
    case scheduler::Call::RECONCILE_OPERATIONS:
      reconcileOperations(*f, call.reconcile_operations());
      return;
    case scheduler::Call::DECLINE: {
      LaunchTasksMessage decline;
      *decline.mutable_framework_id() = id;
      *decline.mutable_offer_ids() = call.decline().offer_ids();
      if (call.decline().has_filters()) *decline.mutable_filters() = call.decline().filters();
      launchTasks(from, decline);
      return;
    }
    case scheduler::Call::KILL: {
      KillTaskMessage message;
      *message.mutable_framework_id() = id;
      *message.mutable_task_id() = call.kill().task_id();
      if (call.kill().has_kill_policy()) *message.mutable_kill_policy() = call.kill().kill_policy();
      killTask(from, message);
      return;
    }
    case scheduler::Call::SHUTDOWN: {
      Slave* s = slave(call.shutdown().slave_id().value());
      if (s == nullptr) {
        LOG(WARNING) << "Ignoring SHUTDOWN of executor " << call.shutdown().executor_id().value()
                     << " of framework " << id.value() << ": slave "
                     << call.shutdown().slave_id().value() << " is not registered";
        return;
      }
      ShutdownExecutorMessage message;
      *message.mutable_executor_id() = call.shutdown().executor_id();
      *message.mutable_framework_id() = id;
      send(s->pid, std::move(message));
      return;
    }
    case scheduler::Call::ACKNOWLEDGE: {
      StatusUpdateAcknowledgementMessage message;
      *message.mutable_slave_id() = call.acknowledge().slave_id();
      *message.mutable_framework_id() = id;
      *message.mutable_task_id() = call.acknowledge().task_id();
      message.set_uuid(call.acknowledge().uuid());
      statusUpdateAcknowledgement(from, message);
      return;
    }
    case scheduler::Call::RECONCILE: {
      ReconcileTasksMessage message;
      *message.mutable_framework_id() = id;
      for (const auto& task : call.reconcile().tasks()) {
        TaskStatus* status = message.add_statuses();
        *status->mutable_task_id() = task.task_id();
        if (task.has_slave_id()) *status->mutable_slave_id() = task.slave_id();
        status->set_state(TASK_STAGING);  // required on the wire; not read
      }
      reconcileTasks(from, message);
      return;
    }
    case scheduler::Call::MESSAGE: {
      FrameworkToExecutorMessage message;
      *message.mutable_slave_id() = call.message().slave_id();
      *message.mutable_framework_id() = id;
      *message.mutable_executor_id() = call.message().executor_id();
      message.set_data(call.message().data());
      frameworkToExecutor(from, message);
      return;
    }
    case scheduler::Call::ACCEPT_INVERSE_OFFERS:
      answerInverseOffers(*f, call.accept_inverse_offers().inverse_offer_ids(),
                          call.accept_inverse_offers().filters(), true);
      return;
    case scheduler::Call::DECLINE_INVERSE_OFFERS:
      answerInverseOffers(*f, call.decline_inverse_offers().inverse_offer_ids(),
                          call.decline_inverse_offers().filters(), false);
      return;
    case scheduler::Call::REQUEST: {
      ResourceRequestMessage message;
      *message.mutable_framework_id() = id;
      *message.mutable_requests() = call.request().requests();
      resourceRequest(from, message);
      return;
    }
    default:
      LOG(WARNING) << "Ignoring scheduler Call " << scheduler::Call::Type_Name(call.type())
                   << " from framework " << id.value()
                   << ": SUBSCRIBE is an HTTP request (POST /api/v1/scheduler)";
      metrics_.invalidFrameworkMessages++;
  }
}

}  // namespace mesos::internal::master
