// The master actor: frameworks, slaves, offers, tasks and status updates.
//
// The master keeps soft state only: everything it knows it learned from the
// slaves and schedulers that registered, and would learn again after a
// failover. Resources move master -> allocator (what exists, what is free)
// and allocator -> master (offers); tasks move scheduler -> master -> slave;
// status updates slave -> master -> scheduler, and their acknowledgements
// back the same way.
//
// The handler table in initialize() is the protocol's table of contents. The
// state is owned by the Registry (registry.hpp), which states its
// invariants; the master changes it only through the registry's operations.
// The implementation is split by subject: frameworks.cpp, slaves.cpp,
// offer_book.cpp, task_lifecycle.cpp, tasks.cpp, revocation.cpp, long_tasks.cpp, http*.cpp,
// metrics.cpp.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "allocator/allocator_actor.hpp"
#include "authentication/http/endpoint_guard.hpp"
#include "authentication/authentication.hpp"
#include "common/json.hpp"
#include "common/operations.hpp"
#include "mesos/resources.hpp"
#include "common/task_states.hpp"
#include "master/flags.hpp"
#include "master/metrics.hpp"
#include "master/metrics_actor.hpp"
#include "master/offer_book.hpp"
#include "master/operator_events.hpp"
#include "master/registrar/registrar.hpp"
#include "master/registry.hpp"
#include "master/task_lifecycle.hpp"
#include "maintenance.pb.h"
#include "quota.pb.h"
#include "messages.pb.h"
#include "scheduler.pb.h"
#include "process/actor.hpp"
#include "process/runtime.hpp"
#include "zk/contender.hpp"
#include "zk/detector.hpp"
#include "zk/zookeeper.hpp"

namespace mesos::v1::scheduler {
class Call;
}  // namespace mesos::v1::scheduler

namespace mesos::internal::master {

class SchedulerStream;

using process::UPID;

class Master : public process::Actor {
 public:
  // `allocator` is the policy the master's allocator actor runs.
  // `id`: the actor's id (several masters may share a runtime: mesos-local
  // --num_masters).
  Master(const MasterFlags& flags, std::unique_ptr<allocator::Allocator> allocator,
         std::string id = "master");
  ~Master() override;

  // From the allocator actor: offer these resources to the framework.
  void offer(const FrameworkID& frameworkId, std::vector<allocator::SlaveResources> resources) {
    offers_.make(frameworkId, std::move(resources));
  }
  // From the allocator actor: free resources for a framework below its
  // guarantee (revocation.cpp).
  void revoke(const allocator::Revocation& revocation) { tasks_.revoke(revocation); }

  const MasterInfo& info() const { return info_; }
  // What a master that lost its leadership does once it has stopped acting
  // (election.cpp): by default, exit the process with status 1 (a
  // supervisor restarts it as a standby); masters sharing a process
  // (mesos-local, tests) terminate only themselves. Set before spawning.
  void setLostLeadershipAction(std::function<void(const std::string& why)> action) {
    lostLeadershipAction_ = std::move(action);
  }
  // Whether this master leads (always, without --zk). Call through
  // dispatch().
  bool leading() const { return leading_; }
  // How many slaves or frameworks one step of rendering /state,
  // /state-summary, /slaves, /frameworks or /tasks covers (tests make it
  // small to exercise the steps).
  void setStateChunk(size_t entries) { stateChunk_ = entries; }
  // Whether documents are assembled from cached fragments and a /state
  // unchanged since the last is served again (the default), or rendered
  // anew (tests compare the two). Call while the master is idle.
  void setStateCaching(bool caching) {
    registry_.setCaching(caching);
    stateCaching_ = caching;
  }
  // The allocator actor (tests use it to trigger allocation).
  const process::Pid<allocator::AllocatorActor>& allocatorPid() const { return allocator_.pid(); }

 protected:
  void initialize() override;
  void finalize() override;
  void exited(const UPID& pid) override;
  // With --zk: a leader whose lease lapsed handles nothing more
  // (election.cpp).
  bool admit() override;

 private:
  // election.cpp: leader election with --zk, the standby's behaviour, the
  // lease, and what the newly elected master does while slaves and
  // frameworks come back.
  void contend();
  void elected();
  void lostLeadership(const std::string& why);
  void watchLeader(std::optional<MasterInfo> previous);
  // A standby reads the registry ahead (--registry=zookeeper), then every
  // kPrefetchInterval what changed, so that once elected it reads and
  // parses only what changed since (docs/high-availability.md).
  void prefetchRegistry();
  static constexpr process::Duration kPrefetchInterval = std::chrono::seconds(5);
  bool prefetching_ = false;  // a read ahead is out, or waits for its next turn
  size_t prefetched_ = 0;     // the agents the last read ahead found
  // What schedulers and slaves send a standby: a peer whose detector named
  // this master before its own contender did (ZooKeeper tells them apart by
  // a few milliseconds) would otherwise lose its first registration to the
  // race and wait for its retry. A standby keeps such messages for twice
  // the session timeout (at most kMaxStandbyHeld) and handles them once
  // elected;
  // older ones, and all once it lost leadership, are dropped (one log line
  // per peer).
  // False when it was dropped.
  bool standby(const UPID& from, const std::string& what, std::function<void()> call);
  void dropAsStandby(const UPID& from, const std::string& what);
  static constexpr size_t kMaxStandbyHeld = 10000;
  // Reconciliation of `taskId` (on `slaveId`, when given) that waits for
  // the slave or the window's end.
  void deferReconciliation(const Framework& framework, const TaskID& taskId,
                           const std::optional<SlaveID>& slaveId);
  // A slave came back with these tasks: answers the reconciliations that
  // waited for them.
  void answerDeferred(const Slave& slave);
  void answerDeferred(const TaskRecord& task);
  void reregistrationWindowClosed();
  // A framework known only from a slave's report: kept until its failover
  // timeout counted from the election (at least --slave_reregister_timeout)
  // ends, then its tasks are killed.
  void noteReportedFramework(const FrameworkInfo& info);
  void reportedFrameworkExpired(const std::string& frameworkId);
  struct Deferred {
    std::string frameworkId;
    TaskID taskId;
  };

  bool leading_ = true;
  bool lost_ = false;  // leadership lost: nothing is handled any more
  std::shared_ptr<zk::Lease> lease_;  // with --zk
  process::Spawned<zk::ZooKeeper> zk_;
  process::Spawned<zk::LeaderContender> contender_;
  std::unique_ptr<zk::MasterDetector> detector_;
  std::optional<MasterInfo> leader_;  // the leader as detected (this master once elected)
  std::unordered_set<UPID> standbyLogged_;  // peers told about dropped messages
  // Messages a standby keeps, with when they came (steady clock).
  std::deque<std::pair<process::TimePoint, std::function<void()>>> standbyHeld_;
  std::function<void(const std::string&)> lostLeadershipAction_;
  // The re-registration window after an election is open: reconciliation
  // of tasks on slaves not yet back waits (--slave_reregister_timeout).
  bool windowOpen_ = false;
  // Reconciliations waiting: by slave id, and (no slave id given) by
  // "<framework id> <task id>".
  std::unordered_map<std::string, std::vector<Deferred>> deferredBySlave_;
  std::unordered_map<std::string, Deferred> deferredByTask_;
  std::unordered_set<std::string> reportedFrameworks_;  // with a removal timer
  struct Reregistered {
    uint64_t slaves = 0;
    uint64_t tasks = 0;
    bool pending = false;  // a summary line is due
  } reregistered_;  // slaves.cpp: unknown slaves re-registered, said once a second

  // frameworks.cpp
  void registerFramework(const UPID& from, const RegisterFrameworkMessage& message);
  void reregisterFramework(const UPID& from, const ReregisterFrameworkMessage& message);
  void unregisterFramework(const UPID& from, const UnregisterFrameworkMessage& message);
  void deactivateFramework(const UPID& from, const DeactivateFrameworkMessage& message);
  void resourceRequest(const UPID& from, const ResourceRequestMessage& message);
  void reviveOffers(const UPID& from, const ReviveOffersMessage& message);
  void suppressOffers(const UPID& from, const SuppressOffersMessage& message);
  // The v1 Call that Apache Mesos v0 drivers use for SUPPRESS (and REVIVE).
  void schedulerCall(const UPID& from, const scheduler::Call& call);
  void acceptOffers(const UPID& from, Framework& framework, const scheduler::Call::Accept& accept);
  Framework* addFramework(const FrameworkInfo& info, const UPID& pid,
                          const std::vector<std::string>& suppressed = {});
  static std::optional<std::string> suppressedOutside(const FrameworkInfo& info,
                                                      const std::vector<std::string>& suppressed);
  // A known framework re-registers: a changed FrameworkInfo (or roles to
  // suppress) is an update (updateFramework()); the reason when refused.
  std::optional<std::string> resubscribe(Framework& framework, const FrameworkInfo& info,
                                         const std::vector<std::string>& suppressed);
  void failoverFramework(Framework& framework, const UPID& newPid);
  // The slaves holding the framework's tasks or executors.
  std::unordered_set<std::string> slavesOf(const Framework& framework) const;
  // Its slaves shut it down (ShutdownFrameworkMessage); its tasks become
  // TASK_KILLED (`why`) and are forgotten, with its executors. An
  // unregistered entry is gone afterwards.
  void shutDownOnSlaves(Framework& framework, const std::string& why);
  void disconnectFramework(Framework& framework);
  void removeFramework(Framework& framework);
  std::optional<std::string> validateFrameworkInfo(FrameworkInfo& info) const;
  // SUPPRESS and REVIVE, of some roles of a MULTI_ROLE framework (none: all
  // roles); roles the framework does not have are refused, with a warning.
  void suppressOrRevive(Framework& framework, const std::vector<std::string>& roles,
                        bool suppress);
  // Why `named` are not all roles of the framework (none: they are).
  std::optional<std::string> unknownRoles(const Framework& framework,
                                          const std::vector<std::string>& named) const;
  // UPDATE_FRAMEWORK (and a re-registration with a changed FrameworkInfo):
  // the framework's info becomes `info`, its roles and which of them are
  // suppressed with it; offers of roles it left are rescinded. Refused,
  // changing nothing, with Apache's reasons (principal, user, checkpoint
  // changed; suppressed roles that are not its roles) and ours: the
  // MULTI_ROLE capability cannot come or go, nor a framework without it
  // change its role (docs/roles.md).
  std::optional<std::string> updateFramework(Framework& framework, FrameworkInfo info,
                                             const std::vector<std::string>& suppressed);
  // Registration and re-registration, with the roles that start suppressed
  // (v1 SUBSCRIBE's suppressed_roles).
  void registerWith(const UPID& from, FrameworkInfo info,
                    const std::vector<std::string>& suppressed);
  void reregisterWith(const UPID& from, FrameworkInfo info, bool failover,
                      const std::vector<std::string>& suppressed);
  // The framework `id` if `from` is its current scheduler; logs otherwise.
  Framework* frameworkFrom(const UPID& from, const FrameworkID& id, const char* what);

  // authentication.cpp: frameworks and slaves prove their principal before
  // they register (Apache Mesos's v0 authentication, docs/security.md).
  // AuthenticateMessage: a session actor authenticates the sender (the
  // client's authenticatee actor) for the pid the message names.
  void authenticate(const UPID& from, const AuthenticateMessage& message);
  void setUpAuthentication();
  // The session `attempt` for `pid` ended (or timed out: --authentication_v0_-
  // timeout); a stale attempt is ignored.
  void authenticationFinished(const UPID& pid, uint64_t attempt,
                              const authentication::Outcome& outcome);
  void authenticationTimedOut(const UPID& pid, uint64_t attempt);
  // Why the scheduler at `from` may not (re-)register with `info`: not
  // authenticated under --authenticate_frameworks, authenticating still, or
  // naming a principal other than its authenticated one. Otherwise sets
  // info.principal to the authenticated principal (if any) and returns none.
  std::optional<std::string> checkFrameworkAuthentication(const UPID& from, FrameworkInfo& info);
  // Whether the slave at `from` may (re-)register; logs why not.
  bool slaveAuthenticated(const UPID& from, const char* what);
  // `pid` is no longer a framework or slave: its authentication lapses.
  void forgetAuthentication(const UPID& pid);
  std::unique_ptr<authentication::Authenticator> authenticator_;
  struct Authenticating {
    uint64_t attempt = 0;
    UPID session;  // its actor, in sessions_
  };
  std::unordered_map<UPID, Authenticating> authenticating_;  // by client pid
  authentication::AttemptActors sessions_;
  std::unordered_map<UPID, std::string> authenticated_;      // client pid -> principal
  uint64_t nextAuthentication_ = 0;

  // Why the slave leaves: what the registry records and what its tasks
  // become (docs/partition-awareness.md).
  enum class Removal {
    kUnreachable,   // missed its pings, or did not come back after a failover: TASK_UNREACHABLE
    kUnregistered,  // it said it is going (or another slave took its address): TASK_GONE
    kGone,          // an operator marked it gone: TASK_GONE_BY_OPERATOR
  };

  // slaves.cpp
  void registerSlave(const UPID& from, const RegisterSlaveMessage& message);
  void reregisterSlave(const UPID& from, ReregisterSlaveMessage&& message);
  void unregisterSlave(const UPID& from, const UnregisterSlaveMessage& message);
  void pong(const UPID& from, const PongSlaveMessage& message);
  void pingSlaves();
  // Removes the slave (its removal stored): its tasks are TASK_UNREACHABLE
  // or TASK_GONE for partition-aware frameworks, TASK_LOST for the others
  // (REASON_SLAVE_REMOVED); every framework gets LostSlaveMessage; an
  // unregistered slave gets a ShutdownMessage.
  void removeSlave(Slave& slave, Removal removal, const std::string& reason);
  // Takes back a slave this master does not hold (after a failover, or back
  // from unreachable) with what it reports. Tasks and executors of the
  // frameworks in `shutDown` are not taken: the slave is told to shut those
  // frameworks down.
  Slave& readmitSlave(const UPID& from, ReregisterSlaveMessage&& message,
                      const std::unordered_set<std::string>& shutDown);
  // A slave this master holds re-registered: tasks it reports that the
  // master does not hold are killed (their framework shut down there when
  // the master does not know it).
  void killOrphans(Slave& slave, const ReregisterSlaveMessage& message);
  // Slaves' registrations and re-registrations, which a slave repeats until
  // it is answered: kept unparsed while this master cannot handle them (a
  // standby, or the registry being read), one per slave and kind (a retry
  // replaces the one kept, where it stands), so that after a failover the
  // retries of tens of thousands of slaves cost a copy each, not a parse.
  // A re-registration that repeats the one last handled from an active
  // slave is answered without being parsed.
  void slaveRegistration(const UPID& from, const std::string& name, const std::string& body);
  void handleSlaveRegistration(const UPID& from, const std::string& name,
                               const std::string& body);
  // The kept ones by kind and sender; expired once their call is handled
  // or dropped.
  std::unordered_map<std::string, std::weak_ptr<std::string>> keptRegistrations_;
  // The slave's connection broke: its offers are rescinded and it is offered
  // nothing until it re-registers (activateSlave()) or misses its pings.
  void deactivateSlave(Slave& slave);
  void activateSlave(Slave& slave);
  Slave* slaveFrom(const UPID& from, const SlaveID& id, const char* what);

  // slave_totals.cpp: the only changes of a slave's total, with their
  // invariants.
  // A (re-)registering slave's total with the reservations and volumes it
  // checkpointed; ignored, with a warning, when they do not fit it.
  void withCheckpointed(Slave& slave,
                        const google::protobuf::RepeatedPtrField<Resource>& checkpointed);
  // RESERVE, UNRESERVE, CREATE or DESTROY applied to the slave's total.
  void convert(Slave& slave, const operations::Conversion& conversion);
  // Tells the slave what to checkpoint of its total (its dynamic
  // reservations and volumes).
  void checkpointOn(Slave& slave);

  // operations.cpp: an ACCEPT's operations (a LaunchTasksMessage is an
  // ACCEPT with one LAUNCH), checked as a whole, then applied in order.
  void launchTasks(const UPID& from, const LaunchTasksMessage& message);
  void applyOffers(Framework& framework, const google::protobuf::RepeatedPtrField<OfferID>& ids,
                   const google::protobuf::RepeatedPtrField<Offer::Operation>& operations,
                   const Filters& filters);
  // The roles a framework may reserve for and use: FrameworkInfo.roles with
  // MULTI_ROLE, its `role` otherwise.
  static std::vector<std::string> frameworkRoles(const FrameworkInfo& info);
  // What RESERVE, UNRESERVE, CREATE and DESTROY need beyond their own shape
  // (operations::conversion()): roles (`roles`: the framework's; null for an
  // operator), principals, the ACLs, volumes that exist (or not) in `total`
  // and are not in use on `slave`. The error names every problem.
  Result<void> checkOperation(const std::optional<std::string>& principal,
                              const std::vector<std::string>* roles, bool refinement,
                              const Slave& slave, const Offer::Operation& operation,
                              const Resources& total) const;
  // An operation's status to its framework, if it carried an id; kept for
  // acknowledgement and reconciliation unless it is an error.
  void sendOperationStatus(Framework& framework, const Offer::Operation& operation,
                           const SlaveID& slaveId, OperationState state,
                           const std::string& message);

  void acknowledgeOperationStatus(Framework& framework,
                                  const scheduler::Call::AcknowledgeOperationStatus& ack);
  // The latest status of each operation named (all the framework's when
  // none is): OPERATION_UNKNOWN for one this master does not hold.
  void reconcileOperations(Framework& framework,
                           const scheduler::Call::ReconcileOperations& reconcile);

  // offer_book.cpp: the outstanding offers, and the only way resources go
  // back to the allocator.
  friend class OfferBook;
  OfferBook offers_{*this};

  // tasks.cpp
  void killTask(const UPID& from, const KillTaskMessage& message);
  void statusUpdate(const UPID& from, const StatusUpdateMessage& message);
  void statusUpdateAcknowledgement(const UPID& from,
                                   const StatusUpdateAcknowledgementMessage& message);
  void reconcileTasks(const UPID& from, const ReconcileTasksMessage& message);
  // The master's answer to reconciliation: the task's latest state.
  void sendReconciliation(Framework& framework, const TaskRecord& task);
  void frameworkToExecutor(const UPID& from, const FrameworkToExecutorMessage& message);
  void executorToFramework(const UPID& from, const ExecutorToFrameworkMessage& message);
  void exitedExecutor(const UPID& from, const ExitedExecutorMessage& message);
  // task_lifecycle.cpp, long_tasks.cpp, revocation.cpp: tasks from launch
  // to removal.
  friend class TaskLifecycle;
  TaskLifecycle tasks_{*this};
  // Sends a status update generated by the master itself (TASK_LOST,
  // TASK_ERROR...) to the framework.
  void sendMasterUpdate(Framework& framework, const SlaveID& slaveId, const TaskID& taskId,
                        TaskState state, TaskStatus::Reason reason, const std::string& message,
                        const std::optional<ExecutorID>& executorId = std::nullopt,
                        std::optional<double> unreachableTime = std::nullopt);

  // partitions.cpp: the durable registry of agents (master/registrar/,
  // docs/high-availability.md) and partition awareness
  // (docs/partition-awareness.md). The leading master stores each change
  // to the agents it knows before it acts on it; a new leader reads them all
  // before it handles anything (messages that arrive meanwhile are held).
  void recoverRegistry();
  void registryRecovered(const Result<std::vector<registry::Agent>>& agents);
  // The registry cannot be read or written: this master must not lead.
  void registryFailed(const Error& error);
  // Holds a handler's call while the registry is read (at most kMaxHeld).
  bool hold(std::function<void()> call);  // false when it was dropped
  // Handles what was held, in order, then lets messages through.
  void handleHeld();
  static constexpr size_t kMaxHeld = 200000;
  static bool partitionAware(const FrameworkInfo& info);
  // `state` for a partition-aware framework, TASK_LOST for any other.
  static TaskState stateFor(const Framework& framework, TaskState state);
  // Stores the removal, then removes the slave (removeSlave()); meanwhile
  // it is offered nothing and its messages are dropped.
  void removeAgent(Slave& slave, Removal removal, const std::string& reason);
  // A slave failed its health checks: marked unreachable now, or when
  // --agent_removal_rate_limit allows.
  void scheduleUnreachable(Slave& slave);
  void nextScheduledUnreachable();
  // The agent became unreachable (stored): its tasks are remembered per
  // framework for reconciliation (--max_unreachable_tasks_per_framework).
  void rememberUnreachableTask(const TaskRecord& task, double since);
  // Its tasks on unreachable agents as /state's JSON objects, joined by
  // commas (empty when none).
  std::string unreachableTasksJson(const Framework& framework) const;
  // Agents of the registry that did not re-register within
  // --slave_reregister_timeout of the election become unreachable, unless
  // they are more than --recovery_agent_removal_limit of them.
  void markRecoveredUnreachable();
  // The last agent the registry listed is back or unreachable: the
  // reconciliations that waited for that are answered.
  void recoveredSettled();
  // Implicit reconciliation: every task the master holds, and a
  // partition-aware framework's tasks on unreachable agents.
  void reconcileImplicitly(Framework& framework);
  // Every --registry_gc_interval: forgets unreachable and gone agents past
  // --registry_max_agent_age and beyond --registry_max_agent_count.
  void collectRegistryGarbage();
  // The operator API's MARK_AGENT_GONE: the agent (registered, unreachable,
  // or listed and not back) is stored as gone, then removed: its tasks are
  // TASK_GONE_BY_OPERATOR (partition-aware frameworks) or TASK_LOST, and it
  // is told to shut down and refused from now on. 200 when it is (or was)
  // gone, 404 for an agent the master does not know, 503 while another
  // change of it is being stored.
  process::Future<process::http::Response> markAgentGone(const SlaveID& slaveId);
  std::unordered_set<std::string> markingGone_;
  // draining.cpp: the operator API's DRAIN_AGENT, DEACTIVATE_AGENT and
  // REACTIVATE_AGENT (docs/draining.md). Each change is stored in the
  // registry before the master acts on it. The answers: 200 once stored,
  // 400 for an agent the master does not know (or one not deactivated, or
  // still DRAINING, for REACTIVATE_AGENT), 409 while it is marked gone.
  process::Future<process::http::Response> drainAgent(const SlaveID& slaveId,
                                                      std::optional<DurationInfo> maxGracePeriod,
                                                      bool markGone);
  process::Future<process::http::Response> deactivateAgent(const SlaveID& slaveId);
  process::Future<process::http::Response> reactivateAgent(const SlaveID& slaveId);
  // The slave (just admitted again, or re-registered) is draining or
  // drained: it is told to drain again (its deactivation is in place
  // already, restoreDrain()'s for one admitted again).
  void resumeDrain(Slave& slave);
  // A slave just added again (after a failover, or back from unreachable)
  // takes the deactivation and drain this master stores for it, before
  // anyone sees it; resumeDrain() then acts on them.
  void restoreDrain(Slave& slave);
  // A draining slave whose tasks are all gone (terminal and acknowledged)
  // becomes DRAINED, stored first; with mark_gone it is marked gone
  // instead.
  void checkDrained(Slave& slave);
  // The agent left for good (gone, or unregistered): its operator state
  // goes with it.
  void forgetDrain(const std::string& id);
  // Whether the slave may be offered (connected and not deactivated).
  bool offerable(const Slave& slave) const { return slave.active && !slave.deactivated; }
  std::unordered_set<std::string> deactivated_;            // by agent id
  std::unordered_map<std::string, DrainInfo> draining_;    // by agent id
  std::unordered_set<std::string> drainedStoring_;         // DRAINED being stored
  // The registry's own ZooKeeper session (--registry=zookeeper): its big
  // transactions never delay the election session's requests, whose
  // answers keep the leader's lease (ZooKeeper answers a session's
  // requests in order). Declared first: it outlives the registrar.
  process::Spawned<zk::ZooKeeper> registryZk_;
  process::Spawned<registrar::Registrar> registrar_;
  std::shared_ptr<const registrar::Stats> registrarStats_;
  bool durableRegistry_ = false;
  bool recovering_ = false;  // the registry is being read
  std::deque<std::function<void()>> held_;
  uint64_t heldDropped_ = 0;
  // Admitted in the registry, not back since this master took over: each
  // one's SlaveInfo as the registry's answer holds it. The answer is kept
  // (registryRead_) until none is left; after a failover 50,000 of them are
  // not copied while every slave waits.
  std::unordered_map<std::string, const SlaveInfo*> recovered_;
  std::optional<process::Future<Result<std::vector<registry::Agent>>>> registryRead_;
  size_t recoveredAtStart_ = 0;
  struct UnreachableAgent {
    SlaveInfo info;
    double since = 0;
  };
  std::unordered_map<std::string, UnreachableAgent> unreachable_;  // by agent id
  std::unordered_map<std::string, double> gone_;                   // by agent id: since
  // Changes of slaves being stored: registrations (by pid), re-registrations
  // and removals (by id); retries meanwhile are dropped.
  std::unordered_set<UPID> admitting_;
  std::unordered_set<std::string> readmitting_;
  std::unordered_set<std::string> removing_;
  // Slaves removed because they unregistered (the last 10,000): refused if
  // they try to re-register.
  std::unordered_set<std::string> removed_;
  std::deque<std::string> removedOrder_;
  struct UnreachableTask {
    Task task;          // as the master last held it, state TASK_UNREACHABLE
    TaskStatus status;  // TASK_UNREACHABLE, with unreachable_time
  };
  struct UnreachableTasks {
    std::unordered_map<std::string, UnreachableTask> byId;
    std::deque<std::string> order;  // oldest first
  };
  std::unordered_map<std::string, UnreachableTasks> unreachableTasks_;  // by framework id
  std::vector<std::string> implicitWaiting_;  // framework ids
  std::optional<MasterFlags::RemovalRate> removalRate_;
  std::deque<std::string> unreachableQueue_;  // slave ids waiting for the rate limit
  std::unordered_set<std::string> unreachableQueued_;
  bool unreachableTimer_ = false;

  // maintenance.cpp: maintenance schedules, machine modes and inverse
  // offers (docs/maintenance.md), as Apache Mesos 1.x has them. A machine is
  // a hostname (any case) and an IP; an agent is on the machine of its
  // SlaveInfo.hostname and its pid's IP. The schedule and the modes are
  // stored in the registry before the master answers or acts.
  struct Machine {
    MachineInfo info;  // mode DRAINING (with the window's unavailability) or DOWN
    // Each framework's latest answer to the inverse offers for this
    // machine's agents, by framework id.
    std::map<std::string, mesos::allocator::InverseOfferStatus> statuses;
  };
  struct InverseOfferRecord {
    InverseOffer offer;
    std::string machine;  // machineKey()
  };
  static std::string machineKey(const MachineID& id);
  // The machine in maintenance that `s` is on, if any.
  const Machine* maintenanceOf(const Slave& s) const;
  // Whether an agent with `info` at `pid` is on a DOWN machine (refused at
  // (re-)registration).
  bool onDownMachine(const SlaveInfo& info, const UPID& pid) const;
  // The registry's maintenance, read at recovery.
  void recoverMaintenance(const registry::Maintenance& stored);
  // Stores `next` (schedule and machines), then makes it the master's: the
  // inverse offers of machines that left DRAINING or changed window are
  // rescinded, offers of agents whose unavailability changed too, and the
  // agents on machines that went DOWN are removed. 200 once stored; 503
  // while another change is stored or the registry is read.
  process::Future<process::http::Response> changeMaintenance(registry::Maintenance next);
  void applyMaintenance(const registry::Maintenance& next);
  registry::Maintenance currentMaintenance() const;
  // The operations behind the endpoints and the v1 calls; each checks its
  // ACL for `principal` (400 with Apache's message for invalid input, 403
  // when not authorized).
  maintenance::Schedule maintenanceSchedule(const std::optional<std::string>& principal) const;
  maintenance::ClusterStatus maintenanceStatus(const std::optional<std::string>& principal) const;
  process::Future<process::http::Response> updateMaintenanceSchedule(
      const maintenance::Schedule& schedule, const std::optional<std::string>& principal);
  process::Future<process::http::Response> startMaintenance(
      const std::vector<MachineID>& machines, const std::optional<std::string>& principal);
  process::Future<process::http::Response> stopMaintenance(
      const std::vector<MachineID>& machines, const std::optional<std::string>& principal);
  process::Future<process::http::Response> maintenanceScheduleEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> maintenanceStatusEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> machineDownEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> machineUpEndpoint(
      const process::http::Request& request);
  // Sends inverse offers to the frameworks with tasks or executors on
  // agents of DRAINING machines that have none outstanding there (and did
  // not answer within their filter's refuse_seconds); again every
  // --allocation_interval while a machine is DRAINING.
  void makeInverseOffers();
  void offerInverse(Slave& s, Machine& machine,
                    const std::set<std::pair<std::string, std::string>>& outstanding, double time,
                    double clock, std::map<std::string, InverseOffersMessage>* messages);
  void rescindInverseOffers(const std::string& machine);
  // ACCEPT_INVERSE_OFFERS / DECLINE_INVERSE_OFFERS: the answer is recorded
  // for /maintenance/status.
  void answerInverseOffers(Framework& framework,
                           const google::protobuf::RepeatedPtrField<OfferID>& ids,
                           const Filters& filters, bool accept);
  std::map<std::string, Machine> machines_;  // by machineKey(): DRAINING or DOWN
  maintenance::Schedule schedule_;
  bool maintenanceChanging_ = false;
  std::unordered_map<std::string, InverseOfferRecord> inverseOffers_;  // by id
  // (framework id, agent id) -> until when no inverse offer is made there.
  std::map<std::pair<std::string, std::string>, double> inverseOfferRefused_;
  bool inverseOfferTimer_ = false;

  // roles.cpp: roles' weights and quota set at run time (docs/roles.md,
  // docs/quota.md), stored in the registry's "settings" node before they
  // take effect, and what /roles and GET_ROLES show of each role.
  struct RoleView {
    std::vector<std::string> frameworks;
    Resources allocated;  // used and offered, by its frameworks
    Resources offered;
    Resources reserved;   // reserved for it on registered agents
  };
  // Roles the principal may view (view_roles), or every role (`filter`
  // false: for the master's own checks).
  std::map<std::string, RoleView> roleViews(const std::optional<std::string>& principal,
                                            bool filter = true) const;
  // What a role consumes of its quota (its descendants' included): its
  // reservations and the unreserved resources its frameworks hold.
  std::map<std::string, double> consumedQuota(const std::string& role,
                                              const std::map<std::string, RoleView>& views) const;
  double weightOf(const std::string& role) const;
  void recoverSettings(const registry::Settings& stored);
  quota::QuotaStatus quotaStatus(const std::optional<std::string>& principal) const;
  std::vector<WeightInfo> weightInfos(const std::optional<std::string>& principal) const;
  // The changes behind the endpoints and the v1 calls: Apache's checks
  // (400 with its messages; 409 when old-style quota overcommits the
  // cluster; 403 when an ACL refuses), then stored, then applied. 200 once
  // stored; 503 while another change is stored or the registry is read.
  process::Future<process::http::Response> updateQuota(std::vector<quota::QuotaConfig> configs,
                                                       bool force, bool old,
                                                       const std::optional<std::string>& principal);
  // Apache's best effort once a role's new quota is stored: while the role
  // (its descendants included) holds more than its limits, counting its
  // outstanding offers, those offers are rescinded, by id, and their
  // resources go back to the allocator, which offers them again within the
  // limits. Tasks are never killed; reservations count as long as they
  // exist. Offers the allocator made before it had the new limits, still on
  // their way, are not caught.
  void rescindOffersAboveLimits(const std::string& role);
  process::Future<process::http::Response> removeQuota(const std::string& role,
                                                       const std::string& path,
                                                       const std::optional<std::string>& principal);
  process::Future<process::http::Response> updateWeights(
      std::vector<WeightInfo> weights, const std::optional<std::string>& principal);
  process::Future<process::http::Response> quotaEndpoint(const process::http::Request& request);
  process::Future<process::http::Response> weightsEndpoint(const process::http::Request& request);
  process::Future<process::http::Response> storeSettings(registry::Settings next);
  registry::Settings currentSettings() const;
  std::map<std::string, quota::QuotaConfig> quotas_;  // by role
  std::map<std::string, double> weights_;             // set at run time, by role
  bool settingsChanging_ = false;

  // http.cpp, http_state.cpp, http_tasks.cpp: the endpoints
  // (docs/endpoints.md). Each answers at /master/<name> and, as the
  // runtime's delegate, at /<name>.
  void installRoutes();
  // scheduler_api.cpp: the v1 scheduler HTTP API. A framework subscribed
  // over HTTP has a SchedulerStream's pid as its pid.
  static constexpr process::Duration kHeartbeatInterval = std::chrono::seconds(15);
  process::Future<process::http::Response> subscribe(const process::http::Request& request,
                                                     const v1::scheduler::Call& call);
  // Whether `pid` is a SchedulerStream's (a framework subscribed over HTTP).
  bool isSchedulerStream(const UPID& pid) const;
  // Ends the event stream whose SchedulerStream is `pid`, if it is one.
  void closeSchedulerStream(const UPID& pid);
  // Forgets the SchedulerStream `pid`, which terminated; false if `pid` is
  // not one.
  bool schedulerStreamEnded(const UPID& pid);
  struct HttpScheduler {
    std::string streamId;  // what its calls' Mesos-Stream-Id must say
    process::Spawned<SchedulerStream> stream;
  };
  std::unordered_map<std::string, HttpScheduler> httpSchedulers_;  // by stream actor id
  // authorization.cpp: HTTP authentication and the ACLs (docs/security.md).
  // Built from the flags; shared with the metrics actor.
  std::shared_ptr<authentication::EndpointGuard> guard_;
  // `handler` behind the guard, in `realm`.
  authentication::RouteHandler guarded(
      authentication::Realm realm, const std::string& path,
      process::Future<process::http::Response> (Master::*handler)(const process::http::Request&));
  // A readonly route whose JSON shows the request's principal only the
  // frameworks, tasks and executors view_* rules let it see, and flags only
  // with view_flags.
  authentication::RouteHandler viewed(
      const std::string& path,
      process::Future<process::http::Response> (Master::*handler)(const process::http::Request&));
  process::http::Response filterView(const process::http::Response& response,
                                     const std::optional<std::string>& principal);
  // Why the framework may not register (register_frameworks) with its
  // FrameworkInfo.principal and role; nullopt when it may.
  std::optional<std::string> authorizeFramework(const FrameworkInfo& info) const;
  // Why `framework` may not run `task` as its user (run_tasks, and the root
  // rule); an error naming the ACL and the user.
  Result<void> authorizeTask(const Framework& framework, const TaskInfo& task) const;
  // The v1 scheduler API with --authenticate_http_frameworks: why `request`
  // may not make `call` (its principal is not the framework's); for
  // SUBSCRIBE, FrameworkInfo.principal is set to the principal when unset.
  std::optional<process::http::Response> checkSchedulerPrincipal(
      const process::http::Request& request, v1::scheduler::Call& call);
  // operator_operations.cpp: an operator's RESERVE, UNRESERVE, CREATE or
  // DESTROY on a slave's free resources (POST /master/reserve etc., and the
  // v1 calls): 202 once applied, 400 for a malformed one, 403 when the ACLs
  // refuse it, 409 when the slave lacks the resources free.
  process::Future<process::http::Response> operate(const std::optional<std::string>& principal,
                                                   const std::string& slaveId,
                                                   const Offer::Operation& operation);
  process::Future<process::http::Response> operationEndpoint(const process::http::Request& request,
                                                             Offer::Operation::Type type);
  process::Future<process::http::Response> reserveEndpoint(const process::http::Request& request);
  process::Future<process::http::Response> unreserveEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> createVolumesEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> destroyVolumesEndpoint(
      const process::http::Request& request);
  // POST /master/teardown (frameworkId=<id>): teardown_frameworks.
  process::Future<process::http::Response> teardownEndpoint(
      const process::http::Request& request);
  // operator_api.cpp, operator_events.cpp, operator_stream.cpp: the v1
  // operator API at /api/v1 (docs/operator-http-api.md). The hooks
  // (operatorEvents_.taskAdded(...) etc.) cost nothing without subscribers;
  // the stream's fan-out runs on actors of its own.
  friend class OperatorApi;
  OperatorEvents operatorEvents_;
  process::Future<process::http::Response> operatorEndpoint(
      const process::http::Request& request);
  // webui.cpp: the web UI's routes ("/" and its static files).
  void installWebUi();
  // /master/metrics/snapshot: the same answer as /metrics/snapshot, asked of
  // the metrics actor, so that every master endpoint answers under /master/.
  process::Future<process::http::Response> metricsEndpoint(const process::http::Request& request);
  process::Future<process::http::Response> healthEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> schedulerCallEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> redirectEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> versionEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> flagsEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> rolesEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> stateEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> stateSummaryEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> slavesEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> frameworksEndpoint(
      const process::http::Request& request);
  process::Future<process::http::Response> tasksEndpoint(
      const process::http::Request& request);

  // Rendering that may be big happens in steps, each an event of its own, so
  // that the master handles other messages in between: a pass visits the
  // entries 0..count-1 in turn (ids from a list taken when it was made, or
  // the registry's slave slots or chunks of them); `visit` returns how many
  // entities it showed (an entry that went away meanwhile costs nothing).
  // Each entity is shown whole; the document is not one instant of the
  // whole cluster.
  struct Pass {
    Pass(size_t count, std::function<size_t(size_t index)> visit)
        : count(count), visit(std::move(visit)) {}
    Pass(std::vector<std::string> ids, std::function<bool(const std::string& id)> visit);
    size_t count;
    std::function<size_t(size_t index)> visit;
    std::function<void()> start;  // if set, runs when the pass begins
  };
  // A pass over the slaves, by slot (Registry::slaveInSlot).
  Pass slavePass(std::function<bool(const Slave& slave)> visit) const;
  // The slaves' /state objects, comma separated, appended to `pieces`, by
  // chunks of slots (Registry::slaveChunkPieces).
  Pass slaveChunkPass(Pieces* pieces) const;
  struct Steps;
  // Runs the passes in order, at most stateChunk_ visited entries per event,
  // then `done` (in the last step).
  void renderInSteps(std::vector<Pass> passes, std::function<void()> done);
  void runSteps(const std::shared_ptr<Steps>& steps);
  // The master's own facts at the top of /state.
  json::Object stateHead() const;
  // /state renders in progress, and the last one: requests that arrive
  // while one renders share it; one that arrives when nothing changed since
  // the last gets that (http_state.cpp).
  struct StateRender;
  std::shared_ptr<StateRender> stateRender_;
  std::optional<std::pair<uint64_t, process::Future<process::http::Response>>> lastState_;
  bool stateCaching_ = true;
  double startTime_ = 0;    // wall-clock seconds since the epoch, at initialize()
  double electedTime_ = 0;  // when it became the leading master (so far: at start)

 public:
  // For the metrics actor (runs on this actor via dispatch; metrics.cpp).
  std::string metricsJson();

 private:
  // Installs a handler that also counts the message in the metrics; a
  // standby keeps it for a while (standby()).
  template <typename M>
  void handle(void (Master::*handler)(const UPID&, const M&)) {
    std::string name = M::descriptor()->name();
    uint64_t* received = &metrics_.messages[name];  // map nodes stay put
    on<M>(std::function<void(const UPID&, const M&)>(
        [this, handler, name, received](const UPID& from, const M& message) {
          if (!leading_) {
            standby(from, name, [this, handler, from, message, received] {
              ++*received;
              (this->*handler)(from, message);
            });
            return;
          }
          ++*received;
          if (recovering_) {
            hold([this, handler, from, message] { (this->*handler)(from, message); });
            return;
          }
          (this->*handler)(from, message);
        }));
  }
  // The same for a handler that keeps (moves from) the message.
  template <typename M>
  void handle(void (Master::*handler)(const UPID&, M&&)) {
    std::string name = M::descriptor()->name();
    uint64_t* received = &metrics_.messages[name];
    onOwned<M>(std::function<void(const UPID&, M&&)>(
        [this, handler, name, received](const UPID& from, M&& message) {
          if (!leading_) {
            auto kept = std::make_shared<M>(std::move(message));
            standby(from, name, [this, handler, from, kept, received] {
              ++*received;
              (this->*handler)(from, std::move(*kept));
            });
            return;
          }
          ++*received;
          if (recovering_) {
            auto kept = std::make_shared<M>(std::move(message));
            hold([this, handler, from, kept] { (this->*handler)(from, std::move(*kept)); });
            return;
          }
          (this->*handler)(from, std::move(message));
        }));
  }

  double now() const;
  std::string nextId(const char* kind);
  Framework* framework(const std::string& id) { return registry_.framework(id); }
  Slave* slave(const std::string& id) { return registry_.slave(id); }

  MasterFlags flags_;
  allocator::Config config_;  // the allocation flags, parsed
  MasterInfo info_;
  std::unique_ptr<allocator::Allocator> policy_;  // until handed to the allocator actor
  process::Spawned<allocator::AllocatorActor> allocator_;
  process::Spawned<MetricsActor> metricsActor_;
  Metrics metrics_;

  size_t stateChunk_ = 500;
  uint64_t nextFrameworkId_ = 0;
  uint64_t nextSlaveId_ = 0;
  uint64_t nextOfferId_ = 0;

  Registry registry_;
  // Whose exit we watch: scheduler pids (slaves: Registry::slaveAt()).
  std::unordered_map<UPID, std::string> frameworkPids_;  // pid -> framework id
  // The sum of --guarantees, and whether the cluster's slaves can meet
  // every guarantee at once (slaves.cpp resizeCluster()).
  Resources guaranteed_;
  bool guaranteesFit_ = false;
  // Says in the log when the cluster's size changes whether it can meet the
  // guarantees.
  void resizeCluster();
};

}  // namespace mesos::internal::master
