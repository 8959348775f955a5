// The classic (v0) C++ scheduler API: a framework implements Scheduler and
// drives the cluster through a SchedulerDriver, normally MesosSchedulerDriver,
// which speaks the libprocess message protocol to the master.
//
//   class MyScheduler : public mesos::Scheduler { ... };
//   MyScheduler scheduler;
//   mesos::FrameworkInfo framework;
//   framework.set_name("my framework");   // user and hostname default to ours
//   mesos::MesosSchedulerDriver driver(&scheduler, framework, "10.0.0.1:5050");
//   mesos::Status status = driver.run();  // returns after stop() or abort()
//
// Threading: the driver runs on one actor of a process::Runtime. Every
// Scheduler callback runs on that actor, one at a time and never
// concurrently, in the order the driver received the events. Driver methods
// may be called from any thread, including from inside callbacks; they hand
// the work to the actor and return at once without waiting for it.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mesos.pb.h"

namespace process {
class Runtime;
template <typename T>
class Spawned;
}  // namespace process

namespace mesos {

namespace internal {
class SchedulerProcess;
}  // namespace internal

class SchedulerDriver;

/// The callbacks a framework's scheduler implements. All of them run on the
/// driver's actor, one at a time, never concurrently with each other. A
/// callback may call any SchedulerDriver method except join() and run(), and
/// must not destroy the driver. Callbacks should return quickly: while one
/// runs, the driver handles no other event.
class Scheduler {
 public:
  virtual ~Scheduler() = default;

  /// The master registered the framework and assigned it `frameworkId`
  /// (also when a scheduler failed over to an existing framework id).
  /// `masterInfo` describes the master.
  virtual void registered(SchedulerDriver* driver, const FrameworkID& frameworkId,
                          const MasterInfo& masterInfo) = 0;

  /// The framework re-registered with a master after a disconnection; its
  /// framework id is unchanged.
  virtual void reregistered(SchedulerDriver* driver, const MasterInfo& masterInfo) = 0;

  /// The connection to the master broke. The driver keeps trying to
  /// re-register; reregistered() follows when it succeeds. Until then calls
  /// that need the master are dropped (launchTasks reports TASK_LOST).
  virtual void disconnected(SchedulerDriver* driver) = 0;

  /// New offers. Each offer's resources stay reserved for this framework
  /// until it launches tasks on them, declines them, or the master rescinds
  /// the offer (offerRescinded()). An offer id is valid for one launch or
  /// decline.
  virtual void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) = 0;

  /// The offer is no longer valid (its slave was lost, it timed out, or its
  /// resources went elsewhere). Launching on it yields TASK_LOST.
  virtual void offerRescinded(SchedulerDriver* driver, const OfferID& offerId) = 0;

  /// A task changed state. With implicit acknowledgements (the default) the
  /// driver acknowledges the update to the master once this callback
  /// returns; otherwise the scheduler must call acknowledgeStatusUpdate()
  /// with this status when status.has_uuid(), or the slave re-sends it.
  virtual void statusUpdate(SchedulerDriver* driver, const TaskStatus& status) = 0;

  /// An executor sent `data` (best effort: messages may be lost).
  virtual void frameworkMessage(SchedulerDriver* driver, const ExecutorID& executorId,
                                const SlaveID& slaveId, const std::string& data) = 0;

  /// The slave is gone (its tasks are reported lost by status updates).
  virtual void slaveLost(SchedulerDriver* driver, const SlaveID& slaveId) = 0;

  /// The executor exited or was killed; `status` is its wait status.
  virtual void executorLost(SchedulerDriver* driver, const ExecutorID& executorId,
                            const SlaveID& slaveId, int status) = 0;

  /// An unrecoverable error (the master refused or removed the framework,
  /// the master address is unusable...). The driver is already aborted when
  /// this runs: no more callbacks follow.
  virtual void error(SchedulerDriver* driver, const std::string& message) = 0;
};

/// The scheduler's handle on the cluster. Every method returns the driver's
/// status after the call: DRIVER_RUNNING once started, DRIVER_NOT_STARTED
/// before start(), DRIVER_STOPPED after stop(), DRIVER_ABORTED after abort()
/// or a fatal error. A method called when the driver is not running does
/// nothing and returns that status. Methods that talk to the master are
/// asynchronous: a DRIVER_RUNNING result means the request was queued, not
/// that the master has seen it; requests made while disconnected from the
/// master are dropped (see each method).
class SchedulerDriver {
 public:
  virtual ~SchedulerDriver() = default;

  /// Starts registering with the master. Returns DRIVER_RUNNING on success.
  /// On failure (an unusable master address, a FrameworkInfo without a
  /// name) the driver is aborted: Scheduler::error() is called on the
  /// calling thread with the reason and DRIVER_ABORTED is returned. A second
  /// call returns the status unchanged.
  virtual Status start() = 0;

  /// Stops the driver. With `failover` false the framework is unregistered:
  /// the master kills its tasks and forgets it. With `failover` true the
  /// driver only disconnects, so that another scheduler registering with the
  /// same FrameworkInfo id can take over the framework and its tasks before
  /// the framework's failover_timeout passes. Returns DRIVER_STOPPED, or
  /// DRIVER_ABORTED if the driver had been aborted. join() returns after it.
  virtual Status stop(bool failover = false) = 0;

  /// Stops processing events and asks the master to deactivate the framework
  /// (no more offers), without unregistering it: its tasks keep running. The
  /// driver can then only be stopped. Returns DRIVER_ABORTED (or the status,
  /// if the driver was not running).
  virtual Status abort() = 0;

  /// Blocks the calling thread until the driver is stopped or aborted and
  /// returns DRIVER_STOPPED or DRIVER_ABORTED; returns the status at once if
  /// the driver was never started. Before returning it waits (at most 2 s)
  /// until the driver's last messages, such as the unregistration stop()
  /// sends, are written to the network, so that the program may exit right
  /// after. REQUIRES: not called from a callback.
  virtual Status join() = 0;

  /// start() then join(); returns start()'s status if it fails.
  virtual Status run() = 0;

  /// Asks the master for resources (a hint to the allocator). Dropped while
  /// disconnected.
  virtual Status requestResources(const std::vector<Request>& requests) = 0;

  /// Launches `tasks` on the resources of `offerIds` (all on one slave) and
  /// gives the rest back, refused for `filters.refuse_seconds()` (default
  /// 5 s). An empty `tasks` declines the offers. Tasks with an executor that
  /// has no framework_id get this framework's. While disconnected from the
  /// master nothing is sent and each task is reported TASK_LOST (reason
  /// REASON_MASTER_DISCONNECTED) through statusUpdate(). The master reports
  /// invalid tasks through statusUpdate() too (TASK_ERROR or TASK_LOST).
  virtual Status launchTasks(const std::vector<OfferID>& offerIds,
                             const std::vector<TaskInfo>& tasks,
                             const Filters& filters = Filters()) = 0;
  /// launchTasks() on a single offer.
  virtual Status launchTasks(const OfferID& offerId, const std::vector<TaskInfo>& tasks,
                             const Filters& filters = Filters()) = 0;

  /// Applies `operations` to the resources of `offerIds` (all on one slave)
  /// and gives the rest back, refused for `filters.refuse_seconds()`. This
  /// master serves LAUNCH operations (their tasks launch as with
  /// launchTasks()); other operation types are refused with a warning in
  /// the master's log and their resources go back. Sent as Apache Mesos
  /// drivers send it: a scheduler Call (ACCEPT) in a libprocess message.
  /// While disconnected nothing is sent and the LAUNCH operations' tasks are
  /// reported TASK_LOST, as launchTasks() does.
  virtual Status acceptOffers(const std::vector<OfferID>& offerIds,
                              const std::vector<Offer::Operation>& operations,
                              const Filters& filters = Filters()) = 0;

  /// Asks the master to kill the task; the outcome arrives as a status
  /// update (TASK_KILLED, or TASK_LOST for a task the master does not know).
  /// Dropped while disconnected.
  virtual Status killTask(const TaskID& taskId) = 0;

  /// Declines an offer: launchTasks(offerId, {}, filters).
  virtual Status declineOffer(const OfferID& offerId, const Filters& filters = Filters()) = 0;

  /// Removes this framework's filters and resumes offers after
  /// suppressOffers(). Dropped while disconnected.
  virtual Status reviveOffers() = 0;

  /// Asks the master to stop sending offers until reviveOffers(). Dropped
  /// while disconnected.
  virtual Status suppressOffers() = 0;

  /// The same for some roles of a MULTI_ROLE framework only (none: all
  /// roles).
  virtual Status reviveOffers(const std::vector<std::string>& roles) = 0;
  virtual Status suppressOffers(const std::vector<std::string>& roles) = 0;

  /// Changes the framework's FrameworkInfo at run time (UPDATE_FRAMEWORK):
  /// a MULTI_ROLE framework's roles, its name, labels...; `suppressedRoles`
  /// (of its new roles) get no offers. The driver re-registers with it
  /// from now on (also when disconnected: the next registration carries
  /// it). The master answers a refusal with error().
  virtual Status updateFramework(const FrameworkInfo& frameworkInfo,
                                 const std::vector<std::string>& suppressedRoles) = 0;

  /// Acknowledges a status update received by statusUpdate(), so that the
  /// slave stops re-sending it. Only for drivers created with
  /// implicitAcknowledgements = false; with implicit acknowledgements the
  /// call is refused (an error is logged, nothing is sent). Statuses without
  /// a uuid or a slave_id need no acknowledgement and are ignored. Dropped
  /// while disconnected (the slave re-sends the update later).
  virtual Status acknowledgeStatusUpdate(const TaskStatus& status) = 0;

  /// Sends `data` to an executor: straight to the slave when its address is
  /// known from an offer this framework launched on, otherwise through the
  /// master. Best effort. Dropped while disconnected.
  virtual Status sendFrameworkMessage(const ExecutorID& executorId, const SlaveID& slaveId,
                                      const std::string& data) = 0;

  /// Asks the master for the latest state of these tasks (each answer
  /// arrives as a status update with reason REASON_RECONCILIATION); an empty
  /// list asks about every task of the framework. Dropped while
  /// disconnected.
  virtual Status reconcileTasks(const std::vector<TaskStatus>& statuses) = 0;
};

/// The SchedulerDriver that talks to a master over the libprocess protocol
/// (compatible with Apache Mesos v0 masters).
///
/// `master` is "host:port", "master@host:port" or "ip:port" (port 5050 when
/// left out; a host name is resolved to an IPv4 address by start(), on the
/// calling thread), or "zk://host:port[,host:port...]/path": the masters'
/// group in ZooKeeper, whose leader the driver follows (on a new leader the
/// scheduler gets disconnected() if it was connected, the driver registers
/// again after a random wait within MESOS_REGISTRATION_BACKOFF_FACTOR,
/// default 2 s, and the scheduler gets reregistered()), or "file:///path"
/// naming a file that holds one of these. A malformed address makes start()
/// abort with an error naming the problem.
///
/// Registration: start() sends RegisterFrameworkMessage, or, when
/// `framework` has an id, ReregisterFrameworkMessage with failover set (to
/// take over that framework), and retries with randomized exponential
/// backoff (under 2 s, doubling, at most 1 min and at most a tenth of the
/// framework's failover_timeout) until the master answers. When the master's
/// connection breaks the scheduler gets disconnected() and the driver
/// re-registers the same way. Messages that claim to come from the master
/// but come from another address are ignored (and logged).
///
/// An empty FrameworkInfo user or hostname is filled in with the OS user
/// and this host's name.
class MesosSchedulerDriver : public SchedulerDriver {
 public:
  /// The driver runs on process::Runtime::global(). `scheduler` is borrowed
  /// and must outlive the driver. Acknowledgements are implicit.
  MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                       const std::string& master);
  /// As above; with `implicitAcknowledgements` false the scheduler must
  /// acknowledge status updates itself (acknowledgeStatusUpdate()).
  MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                       const std::string& master, bool implicitAcknowledgements);
  /// As above, on `runtime` instead of the global runtime (tests, and
  /// programs that host several runtimes). `runtime` is borrowed and must
  /// outlive the driver.
  MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                       const std::string& master, bool implicitAcknowledgements,
                       process::Runtime* runtime);
  /// With a credential: before each registration with a master the driver
  /// authenticates as `credential` (CRAM-MD5; the master's --credentials
  /// must hold the principal and secret). FrameworkInfo.principal, when
  /// empty, becomes the credential's principal. An authentication that
  /// times out is retried with backoff (between 5 s and 1 min;
  /// MESOS_AUTHENTICATION_TIMEOUT_MIN, MESOS_AUTHENTICATION_TIMEOUT_MAX,
  /// MESOS_AUTHENTICATION_BACKOFF_FACTOR change that); one the master
  /// refuses (wrong secret, unknown principal) aborts the driver and calls
  /// Scheduler::error() with "Master refused authentication".
  MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                       const std::string& master, const Credential& credential);
  MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                       const std::string& master, bool implicitAcknowledgements,
                       const Credential& credential);
  MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                       const std::string& master, bool implicitAcknowledgements,
                       const Credential& credential, process::Runtime* runtime);

  /// Terminates the driver's actor and waits for it (without unregistering
  /// the framework: call stop() for that). REQUIRES: not called from a
  /// callback of this driver.
  ~MesosSchedulerDriver() override;

  MesosSchedulerDriver(const MesosSchedulerDriver&) = delete;
  MesosSchedulerDriver& operator=(const MesosSchedulerDriver&) = delete;

  Status start() override;
  Status stop(bool failover = false) override;
  Status abort() override;
  Status join() override;
  Status run() override;
  Status requestResources(const std::vector<Request>& requests) override;
  Status launchTasks(const std::vector<OfferID>& offerIds, const std::vector<TaskInfo>& tasks,
                     const Filters& filters = Filters()) override;
  Status launchTasks(const OfferID& offerId, const std::vector<TaskInfo>& tasks,
                     const Filters& filters = Filters()) override;
  Status acceptOffers(const std::vector<OfferID>& offerIds,
                      const std::vector<Offer::Operation>& operations,
                      const Filters& filters = Filters()) override;
  Status killTask(const TaskID& taskId) override;
  Status declineOffer(const OfferID& offerId, const Filters& filters = Filters()) override;
  Status reviveOffers() override;
  Status suppressOffers() override;
  Status reviveOffers(const std::vector<std::string>& roles) override;
  Status suppressOffers(const std::vector<std::string>& roles) override;
  Status updateFramework(const FrameworkInfo& frameworkInfo,
                         const std::vector<std::string>& suppressedRoles) override;
  Status acknowledgeStatusUpdate(const TaskStatus& status) override;
  Status sendFrameworkMessage(const ExecutorID& executorId, const SlaveID& slaveId,
                              const std::string& data) override;
  Status reconcileTasks(const std::vector<TaskStatus>& statuses) override;

  /// The guarantee of this framework's role (the master's --guarantees):
  /// resources the framework's role may hold without its tasks being revoked,
  /// and that the master frees for it (by killing tasks of frameworks above
  /// their own guarantees) when it has waited too long for them. As given by
  /// the latest registration or re-registration answer; empty before the
  /// first one, and when the role has no guarantee or the master does not
  /// report guarantees (Apache Mesos masters do not). Already up to date when
  /// Scheduler::registered() and reregistered() run. Any thread may call it;
  /// it does not wait for the driver's actor.
  std::vector<Resource> guarantee() const;

 private:
  friend class internal::SchedulerProcess;

  // Runs `call(process)` on the actor if the driver is running; returns the
  // status either way.
  template <typename F>
  Status dispatchIfRunning(F call);
  // The actor has handled stop() or abort(): wakes join().
  void stopped();

  Scheduler* const scheduler_;
  FrameworkInfo framework_;
  const std::string master_;
  const bool implicitAcknowledgements_;
  process::Runtime* runtime_;  // nullptr: the global runtime
  std::unique_ptr<Credential> credential_;  // nullptr: the driver does not authenticate

  // From the actor: the guarantee in a (re)registration answer.
  void setGuarantee(std::vector<Resource> guarantee);

  mutable std::mutex mutex_;
  std::condition_variable stoppedChanged_;
  Status status_ = DRIVER_NOT_STARTED;  // guarded by mutex_
  bool stopped_ = false;                // guarded by mutex_; set by the actor
  std::vector<Resource> guarantee_;     // guarded by mutex_; set by the actor
  std::unique_ptr<process::Spawned<internal::SchedulerProcess>> process_;  // guarded by mutex_
};

}  // namespace mesos
