#include "sched/scheduler_process.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <glog/logging.h>

#include "common/flags.hpp"
#include "process/dispatch.hpp"

#include "scheduler.pb.h"

namespace mesos::internal {

namespace {

// Fields the protocol marks required may be missing from what a peer sent
// (the runtime parses partially); a message without them is dropped.
template <typename M>
bool complete(const M& message, const process::UPID& from) {
  if (message.IsInitialized()) return true;
  LOG(WARNING) << "Ignoring " << M::descriptor()->full_name() << " from " << from
               << ": required fields missing: " << message.InitializationErrorString();
  return false;
}

// A positive duration from the environment variable `name` ("5secs").
void durationFromEnvironment(const char* name, process::Duration* out) {
  const char* text = std::getenv(name);
  if (text == nullptr) return;
  auto parsed = flags::parseDuration(text);
  if (parsed && *parsed > flags::Duration::zero()) {
    *out = std::chrono::duration_cast<process::Duration>(*parsed);
  } else {
    LOG(WARNING) << "Ignoring " << name << "='" << text
                 << "': not a positive duration such as 2secs";
  }
}

double wallClockSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

SchedulerProcess::SchedulerProcess(MesosSchedulerDriver* driver, Scheduler* scheduler,
                                   FrameworkInfo framework, process::UPID master,
                                   std::shared_ptr<zk::MasterDetector> detector,
                                   bool implicitAcknowledgements,
                                   std::optional<Credential> credential)
    : Actor(process::generateId("scheduler")),
      driver_(driver),
      scheduler_(scheduler),
      framework_(std::move(framework)),
      master_(std::move(master)),
      detector_(std::move(detector)),
      implicitAcknowledgements_(implicitAcknowledgements),
      failover_(framework_.has_id() && !framework_.id().value().empty()),
      random_(std::random_device{}()),
      credential_(std::move(credential)) {
  durationFromEnvironment("MESOS_REGISTRATION_BACKOFF_FACTOR", &backoffFactor_);
  if (credential_) {
    durationFromEnvironment("MESOS_AUTHENTICATION_TIMEOUT_MIN", &authenticationTimeoutMin_);
    durationFromEnvironment("MESOS_AUTHENTICATION_TIMEOUT_MAX", &authenticationTimeoutMax_);
    durationFromEnvironment("MESOS_AUTHENTICATION_BACKOFF_FACTOR",
                            &authenticationBackoffFactor_);
    authenticationTimeoutMax_ = std::max(authenticationTimeoutMax_, authenticationTimeoutMin_);
    auto authenticatee = authentication::createAuthenticatee("crammd5");
    CHECK(authenticatee) << authenticatee.error().message;
    authenticatee_ = std::move(authenticatee).value();
  }
}

void SchedulerProcess::initialize() {
  on(&SchedulerProcess::registered);
  on(&SchedulerProcess::reregistered);
  on(&SchedulerProcess::resourceOffers);
  on(&SchedulerProcess::rescindOffer);
  on(&SchedulerProcess::statusUpdate);
  on(&SchedulerProcess::lostSlave);
  on(&SchedulerProcess::lostExecutor);
  on(&SchedulerProcess::frameworkMessage);
  on(&SchedulerProcess::error);

  if (detector_) {
    LOG(INFO) << "Scheduler driver " << self() << " looking for the leading master for "
              << "framework '" << framework_.name() << "'";
    detect();
    return;
  }
  LOG(INFO) << "Scheduler driver " << self() << " registering framework '" << framework_.name()
            << "'" << (failover_ ? " (failing over " + framework_.id().value() + ")" : "")
            << " with master " << master_;
  startRegistration();
}

void SchedulerProcess::detect() {
  detector_->detect(detected_).then(self(), [this](const std::optional<MasterInfo>& leader) {
    detected(leader);
  });
}

// A new leading master (or none): the framework is disconnected from the
// old one and registers with the new one after a random wait within the
// backoff factor (so that many frameworks do not arrive at once).
void SchedulerProcess::detected(const std::optional<MasterInfo>& leader) {
  detected_ = leader;
  detect();
  if (!running.load()) return;
  process::UPID pid;
  if (leader) {
    auto parsed = zk::masterPid(*leader);
    if (parsed) {
      pid = *parsed;
    } else {
      LOG(WARNING) << "Ignoring " << parsed.error().message;
    }
  }
  if (pid && pid == master_) return;
  if (registrationTimer_) {
    cancel(*registrationTimer_);
    registrationTimer_.reset();
  }
  if (connected_) {
    LOG(WARNING) << "The leading master changed from " << master_ << "; framework "
                 << framework_.id().value() << " is disconnected";
    connected_ = false;
    scheduler_->disconnected(driver_);
  }
  master_ = pid;
  linked_ = false;
  if (!master_) {
    LOG(INFO) << "No leading master; waiting for one";
    return;
  }
  LOG(INFO) << "New leading master detected at " << master_ << "; "
            << (framework_.has_id() && !framework_.id().value().empty()
                    ? "re-registering framework " + framework_.id().value()
                    : "registering framework '" + framework_.name() + "'");
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  auto wait = std::chrono::duration_cast<process::Duration>(backoffFactor_ * jitter(random_));
  cancelAuthentication();
  registrationTimer_ = delay(wait, [this] {
    registrationTimer_.reset();
    linkMaster();
    registerOrAuthenticate();
  });
}

void SchedulerProcess::exited(const process::UPID& pid) {
  if (authenticatees_.stopped(pid)) return;
  if (pid != master_) return;
  linked_ = false;
  if (!running.load()) return;
  if (!connected_) {
    // Registration retries are still running and will reach the master
    // when it is back.
    VLOG(1) << "Master " << pid << " is not reachable; still trying to register";
    return;
  }
  LOG(WARNING) << "Lost the connection to master " << pid << "; re-registering framework "
               << framework_.id().value();
  connected_ = false;
  scheduler_->disconnected(driver_);
  startRegistration();
}

void SchedulerProcess::linkMaster() {
  // A second link to a live local actor would mean a second exited().
  if (linked_ || !master_) return;
  linked_ = true;
  link(master_);
}

void SchedulerProcess::startRegistration() {
  if (registrationTimer_) {
    cancel(*registrationTimer_);
    registrationTimer_.reset();
  }
  cancelAuthentication();
  linkMaster();
  registerOrAuthenticate();
}

void SchedulerProcess::registerOrAuthenticate() {
  if (!credential_) {
    doReliableRegistration(backoffFactor_);
    return;
  }
  authenticate(authenticationTimeoutMin_,
               std::min(authenticationTimeoutMin_ + authenticationBackoffFactor_ * 2,
                        authenticationTimeoutMax_));
}

void SchedulerProcess::cancelAuthentication() {
  if (authenticationTimer_) {
    cancel(*authenticationTimer_);
    authenticationTimer_.reset();
  }
  ++authenticationAttempt_;  // an outcome already on its way is stale
  if (authenticating_) authenticatees_.end(runtime(), authenticating_);
  authenticating_ = process::UPID();
}

void SchedulerProcess::authenticate(process::Duration minTimeout, process::Duration maxTimeout) {
  cancelAuthentication();
  if (!running.load() || connected_ || !master_) return;
  LOG(INFO) << "Authenticating with master " << master_ << " as principal '"
            << credential_->principal() << "'";
  const uint64_t attempt = authenticationAttempt_;
  process::Pid<SchedulerProcess> self(this->self());
  authenticating_ = authenticatees_.add(authenticatee_->start(
      runtime(), master_, this->self(), *credential_,
      [self, attempt](const authentication::Outcome& outcome) {
        process::dispatch(self, &SchedulerProcess::authenticated, attempt, outcome);
      }));
  link(authenticating_);  // exited() drops its handle once it stopped
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  auto timeout = minTimeout + std::chrono::duration_cast<process::Duration>(
                                  (maxTimeout - minTimeout) * jitter(random_));
  authenticationTimer_ = delay(timeout, [this, attempt, minTimeout, maxTimeout] {
    authenticationTimer_.reset();
    if (attempt != authenticationAttempt_) return;
    LOG(WARNING) << "Authentication with master " << master_ << " timed out; retrying";
    authenticate(minTimeout, std::min(minTimeout + (maxTimeout - minTimeout) * 2,
                                      authenticationTimeoutMax_));
  });
}

void SchedulerProcess::authenticated(uint64_t attempt, const authentication::Outcome& outcome) {
  if (attempt != authenticationAttempt_) return;
  if (outcome.kind == authentication::Outcome::Kind::kError) {
    // Tried again when this attempt's time is up (not at once: a master
    // without an authenticator would be asked in a loop).
    LOG(WARNING) << "Failed to authenticate with master " << master_ << ": " << outcome.error
                 << "; trying again";
    authenticating_ = process::UPID();  // it stops by itself
    return;
  }
  cancelAuthentication();
  if (!running.load()) return;
  switch (outcome.kind) {
    case authentication::Outcome::Kind::kAuthenticated:
      LOG(INFO) << "Authenticated with master " << master_ << " as '" << outcome.principal << "'";
      doReliableRegistration(backoffFactor_);
      return;
    case authentication::Outcome::Kind::kRefused:
      LOG(ERROR) << "Master " << master_ << " refused authentication as principal '"
                 << credential_->principal() << "'";
      driver_->abort();
      scheduler_->error(driver_, "Master refused authentication");
      return;
    case authentication::Outcome::Kind::kError:
      return;
  }
}

void SchedulerProcess::doReliableRegistration(process::Duration maxBackoff) {
  registrationTimer_.reset();
  if (!running.load() || connected_ || !master_) return;

  if (framework_.has_id() && !framework_.id().value().empty()) {
    ReregisterFrameworkMessage message;
    *message.mutable_framework() = framework_;
    message.set_failover(failover_);
    send(master_, std::move(message));
  } else {
    RegisterFrameworkMessage message;
    *message.mutable_framework() = framework_;
    send(master_, std::move(message));
  }

  maxBackoff = std::min(maxBackoff, kRegistrationRetryIntervalMax);
  // Retry well within the failover timeout, or the master could give up on
  // a framework that is only waiting for its next attempt.
  double tenth = framework_.failover_timeout() / 10;
  if (tenth > 0 && tenth < std::chrono::duration<double>(maxBackoff).count()) {
    maxBackoff =
        std::chrono::duration_cast<process::Duration>(std::chrono::duration<double>(tenth));
  }
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  auto next = std::chrono::duration_cast<process::Duration>(maxBackoff * jitter(random_));
  VLOG(1) << "Will retry registration in " << std::chrono::duration<double>(next).count()
          << "s if necessary";
  registrationTimer_ = delay(next, [this, maxBackoff] { doReliableRegistration(maxBackoff * 2); });
}

bool SchedulerProcess::accept(const process::UPID& from, const char* what) const {
  if (!running.load()) {
    VLOG(1) << "Ignoring " << what << " from " << from << ": the driver is not running";
    return false;
  }
  if (!connected_) {
    VLOG(1) << "Ignoring " << what << " from " << from << ": the driver is not registered";
    return false;
  }
  if (from != master_) {
    LOG(WARNING) << "Ignoring " << what << " from " << from << ": it is not the master ("
                 << master_ << ")";
    return false;
  }
  return true;
}

void SchedulerProcess::registered(const process::UPID& from,
                                  const FrameworkRegisteredMessage& message) {
  if (!running.load()) {
    VLOG(1) << "Ignoring framework registered message: the driver is not running";
    return;
  }
  if (connected_) {
    VLOG(1) << "Ignoring framework registered message: already registered";
    return;
  }
  if (from != master_) {
    LOG(WARNING) << "Ignoring framework registered message from " << from
                 << ": it is not the master (" << master_ << ")";
    return;
  }
  if (!complete(message, from)) return;

  LOG(INFO) << "Framework registered with id " << message.framework_id().value();
  *framework_.mutable_id() = message.framework_id();
  connected_ = true;
  failover_ = false;
  linkMaster();
  driver_->setGuarantee({message.guarantee().begin(), message.guarantee().end()});
  scheduler_->registered(driver_, message.framework_id(), message.master_info());
}

void SchedulerProcess::reregistered(const process::UPID& from,
                                    const FrameworkReregisteredMessage& message) {
  if (!running.load()) {
    VLOG(1) << "Ignoring framework re-registered message: the driver is not running";
    return;
  }
  if (connected_) {
    VLOG(1) << "Ignoring framework re-registered message: already registered";
    return;
  }
  if (from != master_) {
    LOG(WARNING) << "Ignoring framework re-registered message from " << from
                 << ": it is not the master (" << master_ << ")";
    return;
  }
  if (!complete(message, from)) return;
  if (message.framework_id().value() != framework_.id().value()) {
    LOG(ERROR) << "Ignoring framework re-registered message for framework "
               << message.framework_id().value() << ": this driver runs framework "
               << framework_.id().value();
    return;
  }

  LOG(INFO) << "Framework re-registered with id " << message.framework_id().value();
  connected_ = true;
  failover_ = false;
  linkMaster();
  driver_->setGuarantee({message.guarantee().begin(), message.guarantee().end()});
  scheduler_->reregistered(driver_, message.master_info());
}

void SchedulerProcess::resourceOffers(const process::UPID& from,
                                      const ResourceOffersMessage& message) {
  if (!accept(from, "resource offers")) return;
  if (!complete(message, from)) return;
  // Inverse offers alone: the v0 API has no callback for them.
  if (message.offers_size() == 0) return;

  if (message.pids_size() != message.offers_size()) {
    LOG(WARNING) << "Resource offers message from " << from << " carries "
                 << message.pids_size() << " slave pids for " << message.offers_size()
                 << " offers; framework messages to those slaves go through the master";
  }
  for (int i = 0; i < message.offers_size() && i < message.pids_size(); ++i) {
    const Offer& offer = message.offers(i);
    auto pid = process::UPID::parse(message.pids(i));
    if (!pid) {
      VLOG(1) << "Not saving the slave pid of offer " << offer.id().value() << ": "
              << pid.error().message;
      continue;
    }
    savedOffers_[offer.id().value()] = {offer.slave_id().value(), *pid};
  }

  std::vector<Offer> offers(message.offers().begin(), message.offers().end());
  scheduler_->resourceOffers(driver_, offers);
}

void SchedulerProcess::rescindOffer(const process::UPID& from,
                                    const RescindResourceOfferMessage& message) {
  if (!accept(from, "offer rescission")) return;
  if (!complete(message, from)) return;
  VLOG(1) << "Offer " << message.offer_id().value() << " rescinded";
  savedOffers_.erase(message.offer_id().value());
  scheduler_->offerRescinded(driver_, message.offer_id());
}

void SchedulerProcess::statusUpdate(const process::UPID& from,
                                    const StatusUpdateMessage& message) {
  if (!accept(from, "status update")) return;
  if (!complete(message, from)) return;
  deliverStatusUpdate(message.update(), false);
}

void SchedulerProcess::deliverStatusUpdate(const StatusUpdate& update, bool generated) {
  if (!running.load()) {
    VLOG(1) << "Ignoring status update for task " << update.status().task_id().value()
            << ": the driver is not running";
    return;
  }
  if (!generated && update.framework_id().value() != framework_.id().value()) {
    LOG(WARNING) << "Ignoring status update for task " << update.status().task_id().value()
                 << " of framework " << update.framework_id().value()
                 << ": this driver runs framework " << framework_.id().value();
    return;
  }

  // Only an update with a uuid expects an acknowledgement; the scheduler
  // sees the uuid exactly when it should acknowledge (explicit mode).
  // Master-generated updates carry none; driver-generated ones never ack.
  const bool acknowledgeable = !generated && !update.uuid().empty();
  TaskStatus status = update.status();
  if (acknowledgeable) {
    status.set_uuid(update.uuid());
  } else {
    status.clear_uuid();
  }
  if (!status.has_slave_id() && update.has_slave_id()) {
    *status.mutable_slave_id() = update.slave_id();
  }

  scheduler_->statusUpdate(driver_, status);

  if (!implicitAcknowledgements_ || !acknowledgeable) return;
  // The callback may have stopped or aborted the driver: then the update
  // stays unacknowledged, and the slave re-sends it to whoever takes over.
  if (!running.load()) {
    VLOG(1) << "Not acknowledging the status update for task " << status.task_id().value()
            << ": the driver is not running";
    return;
  }
  if (!update.has_slave_id()) {
    LOG(WARNING) << "Cannot acknowledge the status update for task " << status.task_id().value()
                 << ": it names no slave";
    return;
  }
  sendAcknowledgement(update.slave_id(), status.task_id(), update.uuid());
}

void SchedulerProcess::sendAcknowledgement(const SlaveID& slaveId, const TaskID& taskId,
                                           const std::string& uuid) {
  StatusUpdateAcknowledgementMessage message;
  *message.mutable_slave_id() = slaveId;
  *message.mutable_framework_id() = framework_.id();
  *message.mutable_task_id() = taskId;
  message.set_uuid(uuid);
  send(master_, std::move(message));
}

void SchedulerProcess::lostSlave(const process::UPID& from, const LostSlaveMessage& message) {
  if (!accept(from, "lost slave message")) return;
  if (!complete(message, from)) return;
  VLOG(1) << "Slave " << message.slave_id().value() << " lost";
  savedSlavePids_.erase(message.slave_id().value());
  scheduler_->slaveLost(driver_, message.slave_id());
}

void SchedulerProcess::lostExecutor(const process::UPID& from,
                                    const ExitedExecutorMessage& message) {
  if (!accept(from, "exited executor message")) return;
  if (!complete(message, from)) return;
  VLOG(1) << "Executor " << message.executor_id().value() << " on slave "
          << message.slave_id().value() << " exited with status " << message.status();
  scheduler_->executorLost(driver_, message.executor_id(), message.slave_id(), message.status());
}

void SchedulerProcess::frameworkMessage(const process::UPID& from,
                                        const ExecutorToFrameworkMessage& message) {
  // Slaves send these straight to the scheduler, so any sender is fine.
  if (!running.load()) {
    VLOG(1) << "Ignoring framework message from " << from << ": the driver is not running";
    return;
  }
  if (!complete(message, from)) return;
  scheduler_->frameworkMessage(driver_, message.executor_id(), message.slave_id(),
                               message.data());
}

void SchedulerProcess::error(const process::UPID& from, const FrameworkErrorMessage& message) {
  if (!running.load()) {
    VLOG(1) << "Ignoring framework error message: the driver is not running";
    return;
  }
  if (from != master_) {
    LOG(WARNING) << "Ignoring framework error message from " << from
                 << ": it is not the master (" << master_ << ")";
    return;
  }
  if (!complete(message, from)) return;
  LOG(ERROR) << "Master " << from << " reported an error for framework "
             << framework_.id().value() << ": " << message.message();
  driver_->abort();
  scheduler_->error(driver_, message.message());
}

void SchedulerProcess::stop(bool failover) {
  LOG(INFO) << "Stopping framework " << framework_.id().value()
            << (failover ? " (it stays registered for a failover)" : "");
  if (connected_ && !failover) {
    UnregisterFrameworkMessage message;
    *message.mutable_framework_id() = framework_.id();
    send(master_, std::move(message));
  }
  connected_ = false;
  driver_->stopped();
  terminate();
}

void SchedulerProcess::abort() {
  LOG(INFO) << "Aborting framework " << framework_.id().value();
  if (connected_) {
    DeactivateFrameworkMessage message;
    *message.mutable_framework_id() = framework_.id();
    send(master_, std::move(message));
  } else {
    VLOG(1) << "Not deactivating the framework: the driver is not registered";
  }
  driver_->stopped();
}

void SchedulerProcess::requestResources(const std::vector<Request>& requests) {
  if (!connected_) {
    VLOG(1) << "Dropping resource request: the driver is not registered";
    return;
  }
  ResourceRequestMessage message;
  *message.mutable_framework_id() = framework_.id();
  for (const Request& request : requests) *message.add_requests() = request;
  send(master_, std::move(message));
}

void SchedulerProcess::launchTasks(const std::vector<OfferID>& offerIds,
                                   const std::vector<TaskInfo>& tasks, const Filters& filters) {
  if (!connected_) {
    reportLost(tasks);
    return;
  }
  LaunchTasksMessage message;
  *message.mutable_framework_id() = framework_.id();
  *message.mutable_filters() = filters;
  for (const TaskInfo& task : tasks) {
    TaskInfo* copy = message.add_tasks();
    *copy = task;
    prepareTask(copy);
  }
  for (const OfferID& offerId : offerIds) *message.add_offer_ids() = offerId;
  useOffers(offerIds, tasks);
  send(master_, std::move(message));
}

void SchedulerProcess::acceptOffers(const std::vector<OfferID>& offerIds,
                                    const std::vector<Offer::Operation>& operations,
                                    const Filters& filters) {
  std::vector<TaskInfo> tasks;
  for (const Offer::Operation& operation : operations) {
    if (operation.type() == Offer::Operation::LAUNCH) {
      tasks.insert(tasks.end(), operation.launch().task_infos().begin(),
                   operation.launch().task_infos().end());
    } else if (operation.type() == Offer::Operation::LAUNCH_GROUP) {
      const auto& group = operation.launch_group().task_group().tasks();
      tasks.insert(tasks.end(), group.begin(), group.end());
    }
  }
  if (!connected_) {
    reportLost(tasks);
    return;
  }
  // As Apache Mesos drivers do: a scheduler Call in a libprocess message.
  scheduler::Call call;
  *call.mutable_framework_id() = framework_.id();
  call.set_type(scheduler::Call::ACCEPT);
  scheduler::Call::Accept* accept = call.mutable_accept();
  *accept->mutable_filters() = filters;
  for (const OfferID& offerId : offerIds) *accept->add_offer_ids() = offerId;
  for (const Offer::Operation& operation : operations) {
    Offer::Operation* copy = accept->add_operations();
    *copy = operation;
    if (copy->type() == Offer::Operation::LAUNCH) {
      for (TaskInfo& task : *copy->mutable_launch()->mutable_task_infos()) prepareTask(&task);
    } else if (copy->type() == Offer::Operation::LAUNCH_GROUP) {
      auto* launch = copy->mutable_launch_group();
      if (launch->has_executor() && !launch->executor().has_framework_id()) {
        *launch->mutable_executor()->mutable_framework_id() = framework_.id();
      }
      for (TaskInfo& task : *launch->mutable_task_group()->mutable_tasks()) prepareTask(&task);
    }
  }
  useOffers(offerIds, tasks);
  send(master_, std::move(call));
}

void SchedulerProcess::reportLost(const std::vector<TaskInfo>& tasks) {
  LOG(WARNING) << "Not launching " << tasks.size()
               << " tasks: the driver is not registered with the master; reporting them lost";
  // The scheduler would otherwise wait forever for news of these tasks.
  for (const TaskInfo& task : tasks) {
    StatusUpdate update;
    *update.mutable_framework_id() = framework_.id();
    if (task.has_slave_id()) *update.mutable_slave_id() = task.slave_id();
    if (task.has_executor()) *update.mutable_executor_id() = task.executor().executor_id();
    update.set_timestamp(wallClockSeconds());
    TaskStatus* status = update.mutable_status();
    *status->mutable_task_id() = task.task_id();
    status->set_state(TASK_LOST);
    status->set_source(TaskStatus::SOURCE_MASTER);
    status->set_reason(TaskStatus::REASON_MASTER_DISCONNECTED);
    status->set_message("Master disconnected");
    status->set_timestamp(update.timestamp());
    if (task.has_slave_id()) *status->mutable_slave_id() = task.slave_id();
    deliverStatusUpdate(update, true);
  }
}

void SchedulerProcess::prepareTask(TaskInfo* task) const {
  if (task->has_executor() && !task->executor().has_framework_id()) {
    *task->mutable_executor()->mutable_framework_id() = framework_.id();
  }
}

void SchedulerProcess::useOffers(const std::vector<OfferID>& offerIds,
                                 const std::vector<TaskInfo>& tasks) {
  for (const OfferID& offerId : offerIds) {
    auto saved = savedOffers_.find(offerId.value());
    if (saved == savedOffers_.end()) {
      LOG(WARNING) << (tasks.empty() ? "Declining" : "Launching tasks on") << " offer "
                   << offerId.value() << ", which this driver does not know (used or rescinded?)";
      continue;
    }
    // Keep the pids of the slaves this framework runs tasks on, to send
    // framework messages straight to them.
    for (const TaskInfo& task : tasks) {
      if (task.slave_id().value() == saved->second.first) {
        savedSlavePids_[saved->second.first] = saved->second.second;
      } else {
        LOG(WARNING) << "Task " << task.task_id().value() << " names slave "
                     << task.slave_id().value() << " but offer " << offerId.value()
                     << " is for slave " << saved->second.first;
      }
    }
    savedOffers_.erase(saved);
  }
}

void SchedulerProcess::killTask(const TaskID& taskId) {
  if (!connected_) {
    VLOG(1) << "Dropping kill of task " << taskId.value() << ": the driver is not registered";
    return;
  }
  KillTaskMessage message;
  *message.mutable_framework_id() = framework_.id();
  *message.mutable_task_id() = taskId;
  send(master_, std::move(message));
}

void SchedulerProcess::reviveOffers() {
  if (!connected_) {
    VLOG(1) << "Dropping offer revival: the driver is not registered";
    return;
  }
  ReviveOffersMessage message;
  *message.mutable_framework_id() = framework_.id();
  send(master_, std::move(message));
}

void SchedulerProcess::suppressOffers() {
  if (!connected_) {
    VLOG(1) << "Dropping offer suppression: the driver is not registered";
    return;
  }
  // The v0 message set has no suppress message; Apache Mesos drivers send
  // this Call to the master as a libprocess message.
  scheduler::Call call;
  *call.mutable_framework_id() = framework_.id();
  call.set_type(scheduler::Call::SUPPRESS);
  send(master_, std::move(call));
}

void SchedulerProcess::reviveRoles(const std::vector<std::string>& roles) {
  if (!connected_) {
    VLOG(1) << "Dropping offer revival: the driver is not registered";
    return;
  }
  ReviveOffersMessage message;
  *message.mutable_framework_id() = framework_.id();
  for (const std::string& role : roles) message.add_roles(role);
  send(master_, std::move(message));
}

void SchedulerProcess::suppressRoles(const std::vector<std::string>& roles) {
  if (!connected_) {
    VLOG(1) << "Dropping offer suppression: the driver is not registered";
    return;
  }
  scheduler::Call call;
  *call.mutable_framework_id() = framework_.id();
  call.set_type(scheduler::Call::SUPPRESS);
  for (const std::string& role : roles) call.mutable_suppress()->add_roles(role);
  send(master_, std::move(call));
}

void SchedulerProcess::updateFramework(const FrameworkInfo& info,
                                       const std::vector<std::string>& suppressedRoles) {
  // Kept whether or not it reaches the master now: the next
  // (re-)registration carries it.
  FrameworkID id = framework_.id();
  framework_ = info;
  if (!id.value().empty()) *framework_.mutable_id() = id;
  if (!connected_) {
    VLOG(1) << "Keeping the updated FrameworkInfo for the next registration: the driver is not "
               "registered";
    return;
  }
  scheduler::Call call;
  *call.mutable_framework_id() = framework_.id();
  call.set_type(scheduler::Call::UPDATE_FRAMEWORK);
  *call.mutable_update_framework()->mutable_framework_info() = framework_;
  for (const std::string& role : suppressedRoles) {
    call.mutable_update_framework()->add_suppressed_roles(role);
  }
  send(master_, std::move(call));
}

void SchedulerProcess::acknowledgeStatusUpdate(const TaskStatus& status) {
  // Deliberately not checking `running`: acknowledgements asked for before
  // a stop still go out (the driver refuses those asked for after).
  if (!connected_) {
    VLOG(1) << "Dropping acknowledgement for task " << status.task_id().value()
            << ": the driver is not registered (the slave will re-send the update)";
    return;
  }
  if (status.uuid().empty() || !status.has_slave_id()) {
    VLOG(2) << "Status of task " << status.task_id().value() << " needs no acknowledgement";
    return;
  }
  sendAcknowledgement(status.slave_id(), status.task_id(), status.uuid());
}

void SchedulerProcess::sendFrameworkMessage(const ExecutorID& executorId, const SlaveID& slaveId,
                                            const std::string& data) {
  if (!connected_) {
    VLOG(1) << "Dropping framework message for executor " << executorId.value()
            << ": the driver is not registered";
    return;
  }
  FrameworkToExecutorMessage message;
  *message.mutable_slave_id() = slaveId;
  *message.mutable_framework_id() = framework_.id();
  *message.mutable_executor_id() = executorId;
  message.set_data(data);
  auto slave = savedSlavePids_.find(slaveId.value());
  if (slave != savedSlavePids_.end()) {
    send(slave->second, std::move(message));
  } else {
    VLOG(1) << "Sending the framework message for slave " << slaveId.value()
            << " through the master: its address is not known";
    send(master_, std::move(message));
  }
}

void SchedulerProcess::reconcileTasks(const std::vector<TaskStatus>& statuses) {
  if (!connected_) {
    VLOG(1) << "Dropping task reconciliation: the driver is not registered";
    return;
  }
  ReconcileTasksMessage message;
  *message.mutable_framework_id() = framework_.id();
  for (const TaskStatus& status : statuses) {
    TaskStatus* copy = message.add_statuses();
    *copy = status;
    // `state` is required on the wire but means nothing to reconciliation:
    // masters that parse strictly would drop the message without it.
    if (!copy->has_state()) copy->set_state(TASK_STAGING);
  }
  send(master_, std::move(message));
}

}  // namespace mesos::internal
