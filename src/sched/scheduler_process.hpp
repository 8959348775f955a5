// The scheduler driver's actor: it registers the framework with the master,
// turns the master's messages into Scheduler callbacks, and turns the
// driver's calls into messages to the master (or, for framework messages,
// straight to slaves).
//
// State machine: not connected -> (Register/Reregister, retried with
// backoff) -> connected -> (master's connection breaks: disconnected(),
// retry) -> connected ... Stop and abort come from the driver: `running`
// goes false first (so events already queued are ignored), then stop() or
// abort() runs here and wakes the driver's join().
//
// Every method runs on this actor: callbacks never run concurrently, and no
// state here needs a lock. The driver (MesosSchedulerDriver) reaches it only
// through dispatch(), plus the `running` flag.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "authentication/authentication.hpp"
#include "mesos/scheduler.hpp"

#include "messages.pb.h"
#include "process/actor.hpp"
#include "process/runtime.hpp"
#include "process/upid.hpp"
#include "zk/detector.hpp"

namespace mesos::internal {

// The first registration retry comes within this (Apache Mesos's scheduler
// flag registration_backoff_factor, read from MESOS_REGISTRATION_BACKOFF_-
// FACTOR); each later one within twice the last bound, up to
// kRegistrationRetryIntervalMax. After a new leading master is detected the
// first attempt waits a random time within it.
constexpr process::Duration kRegistrationBackoffFactor = std::chrono::seconds(2);
constexpr process::Duration kRegistrationRetryIntervalMax = std::chrono::minutes(1);

class SchedulerProcess : public process::Actor {
 public:
  // `driver` and `scheduler` are borrowed; the driver owns this actor and
  // outlives it.
  // `master`: the master, or none when `detector` finds the leader (zk://).
  SchedulerProcess(MesosSchedulerDriver* driver, Scheduler* scheduler, FrameworkInfo framework,
                   process::UPID master, std::shared_ptr<zk::MasterDetector> detector,
                   bool implicitAcknowledgements, std::optional<Credential> credential);

  // False once the driver is stopped or aborted: from then on events from
  // the master are ignored. Written by the driver, under its mutex.
  std::atomic<bool> running{true};

  // The driver's calls, dispatched here. Those that need the master do
  // nothing (but log) while disconnected.
  void stop(bool failover);
  void abort();
  void requestResources(const std::vector<Request>& requests);
  void launchTasks(const std::vector<OfferID>& offerIds, const std::vector<TaskInfo>& tasks,
                   const Filters& filters);
  void acceptOffers(const std::vector<OfferID>& offerIds,
                    const std::vector<Offer::Operation>& operations, const Filters& filters);
  void killTask(const TaskID& taskId);
  void reviveOffers();
  void suppressOffers();
  void reviveRoles(const std::vector<std::string>& roles);
  void suppressRoles(const std::vector<std::string>& roles);
  void updateFramework(const FrameworkInfo& info, const std::vector<std::string>& suppressedRoles);
  void acknowledgeStatusUpdate(const TaskStatus& status);
  void sendFrameworkMessage(const ExecutorID& executorId, const SlaveID& slaveId,
                            const std::string& data);
  void reconcileTasks(const std::vector<TaskStatus>& statuses);

 protected:
  void initialize() override;
  void exited(const process::UPID& pid) override;

 private:
  // Reports `tasks` TASK_LOST to the scheduler: they cannot be launched
  // while the driver is not registered.
  void reportLost(const std::vector<TaskInfo>& tasks);
  // Gives the task's executor this framework's id when it has none.
  void prepareTask(TaskInfo* task) const;
  // The offers are used up: forget them, keeping the addresses of the
  // slaves `tasks` go to (for framework messages).
  void useOffers(const std::vector<OfferID>& offerIds, const std::vector<TaskInfo>& tasks);
  // Master -> scheduler.
  void registered(const process::UPID& from, const FrameworkRegisteredMessage& message);
  void reregistered(const process::UPID& from, const FrameworkReregisteredMessage& message);
  void resourceOffers(const process::UPID& from, const ResourceOffersMessage& message);
  void rescindOffer(const process::UPID& from, const RescindResourceOfferMessage& message);
  void statusUpdate(const process::UPID& from, const StatusUpdateMessage& message);
  void lostSlave(const process::UPID& from, const LostSlaveMessage& message);
  void lostExecutor(const process::UPID& from, const ExitedExecutorMessage& message);
  void frameworkMessage(const process::UPID& from, const ExecutorToFrameworkMessage& message);
  void error(const process::UPID& from, const FrameworkErrorMessage& message);

  // Sends one (re-)registration and schedules the next attempt within
  // `maxBackoff` (jittered), unless connected or stopped by then.
  void doReliableRegistration(process::Duration maxBackoff);
  // Starts a fresh registration sequence, replacing any pending retry:
  // authenticates first when the driver has a credential.
  void startRegistration();
  // Registration with this master, or authentication first.
  void registerOrAuthenticate();
  // One authentication attempt that gives up after a random time within
  // [minTimeout, maxTimeout] and then retries with a doubled maximum.
  void authenticate(process::Duration minTimeout, process::Duration maxTimeout);
  void authenticated(uint64_t attempt, const authentication::Outcome& outcome);
  void cancelAuthentication();
  void linkMaster();
  void detect();
  void detected(const std::optional<MasterInfo>& leader);

  // True when a message needing a connection may be handled: the driver is
  // running, connected, and `from` is the master. Logs why not otherwise.
  bool accept(const process::UPID& from, const char* what) const;
  // Hands `update` to the scheduler and, with implicit acknowledgements,
  // acknowledges it. `generated`: made by this driver (nothing to ack).
  void deliverStatusUpdate(const StatusUpdate& update, bool generated);
  void sendAcknowledgement(const SlaveID& slaveId, const TaskID& taskId,
                           const std::string& uuid);

  MesosSchedulerDriver* const driver_;
  Scheduler* const scheduler_;
  FrameworkInfo framework_;
  process::UPID master_;  // empty while no master leads
  std::shared_ptr<zk::MasterDetector> detector_;
  std::optional<MasterInfo> detected_;
  process::Duration backoffFactor_ = kRegistrationBackoffFactor;
  const bool implicitAcknowledgements_;

  bool connected_ = false;
  // Whether the next ReregisterFrameworkMessage asks to take the framework
  // over from another scheduler: true until the first registration when
  // FrameworkInfo came with an id.
  bool failover_;
  bool linked_ = false;  // a link to master_ is in place (exited() not yet seen)
  std::optional<process::TimerId> registrationTimer_;

  std::mt19937_64 random_;

  // Authentication (with a credential).
  const std::optional<Credential> credential_;
  std::unique_ptr<authentication::Authenticatee> authenticatee_;
  authentication::AttemptActors authenticatees_;
  process::UPID authenticating_;  // the attempt under way (in authenticatees_)
  uint64_t authenticationAttempt_ = 0;
  std::optional<process::TimerId> authenticationTimer_;
  process::Duration authenticationTimeoutMin_ = std::chrono::seconds(5);
  process::Duration authenticationTimeoutMax_ = std::chrono::minutes(1);
  process::Duration authenticationBackoffFactor_ = std::chrono::seconds(1);

  // offer id -> (slave id, slave pid), from the offers not yet used.
  std::unordered_map<std::string, std::pair<std::string, process::UPID>> savedOffers_;
  // slave id -> slave pid, for slaves this framework launched tasks on.
  std::unordered_map<std::string, process::UPID> savedSlavePids_;
};

}  // namespace mesos::internal
