// fig10-slaves: --count emulated slaves in one process, for the Figure 10
// harness (bench/fig10/main.cpp starts it). Each slave is an actor of its
// own, `slave(<index>)@<this runtime's address>`, that speaks the slave's
// side of the v0 protocol to a real master over TCP:
//
//   - registers (RegisterSlaveMessage, version 1.0.0, resources
//     cpus:<slots>;mem:<slots * 1024>), retrying with backoff until
//     SlaveRegisteredMessage comes; at most --registration_window slaves of
//     this process wait for an answer at once, so registration goes as fast
//     as the master answers without a thundering herd;
//   - answers PingSlaveMessage with PongSlaveMessage, and re-registers when
//     a ping says the master thinks it is disconnected;
//   - runs a task (RunTaskMessage) as a timer: TaskInfo.data holds the
//     task's duration in milliseconds, as decimal text (fig10-frameworks
//     and the probes put it there); sends TASK_RUNNING at once and
//     TASK_FINISHED when the timer fires;
//   - sends status updates the way a slave's status update manager does:
//     each with a fresh 16-byte random UUID and pid = the slave's UPID, one
//     task's updates in order, the next only once the master has forwarded
//     the scheduler's acknowledgement of the previous; an unacknowledged
//     update is re-sent after --status_update_retry_s, doubling up to ten
//     minutes;
//   - honours KillTaskMessage (TASK_KILLED), ShutdownFrameworkMessage (the
//     framework's tasks are dropped) and ShutdownMessage (the master removed
//     the slave: it stops, and is counted as removed); takes
//     UpdateFrameworkMessage and does nothing with it.
//
// With --zk=zk://.../path instead of --master, the slaves follow the leading
// master of that group (zk::MasterDetector, one ZooKeeper session for the
// whole process), as real slaves do: the first leader gets the
// registrations above; on every later change each slave re-registers with
// the new leader after a random wait in [0, --registration_backoff_factor]
// (ReregisterSlaveMessage with its running tasks as Task protos, the
// ExecutorInfos of its tasks' executors and its frameworks' FrameworkInfos),
// retrying with the same backoff as a registration. bench/failover_bench
// uses this mode.
//
// Reports go to stdout as "slaves ..." lines (bench/fig10/lines.hpp); logs
// to stderr. SIGTERM or SIGINT end the process at once. In --zk mode also:
//
//   leader <generation> <pid|none> <wall_s>
//       the detector saw a new leading master (or none) at wall-clock time
//       <wall_s> (seconds since the epoch); the generation counts leaders
//       seen, from 1.
//   reregistered_all <generation> <wall_s> <messages>
//       every slave of this process (but those the master removed) is
//       registered with that generation's leader; <wall_s> is when the last
//       of them got its SlaveReregisteredMessage (or SlaveRegisteredMessage),
//       <messages> how many (re-)registration messages they sent for it (more
//       than one a slave when some went unanswered: sent to a master not yet
//       elected, or answered later than the retry).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "basics.hpp"
#include "common/uuid.hpp"
#include "lines.hpp"
#include "messages.pb.h"
#include "process/actor.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "process/signals.hpp"
#include "zk/detector.hpp"
#include "zk/url.hpp"

DEFINE_string(master, "", "The master's UPID, master@ip:port (or --zk).");
DEFINE_string(zk, "",
              "zk://host:port[,...]/path: follow the leading master of that group instead of "
              "one --master.");
DEFINE_int32(count, 1000, "Slaves to emulate in this process.");
DEFINE_int32(first, 0, "Index of the first slave (hostnames fig10-slave-<index>).");
DEFINE_int32(slots, 2, "Task slots per slave; a slot is 1 cpu and 1024 MB of memory.");
DEFINE_int32(registration_window, 256,
             "Slaves of this process that may wait for the master's answer to their "
             "registration at once.");
DEFINE_double(registration_backoff_factor, 1,
              "Seconds: the first bound of the random wait between registration attempts "
              "(doubling up to a minute); with --zk also the bound of the random wait before "
              "re-registering with a new leader.");
DEFINE_double(status_update_retry_s, 10,
              "Seconds before an unacknowledged status update is sent again (then doubling, "
              "up to 600).");
DEFINE_double(report_interval_s, 0.05, "Seconds between 'slaves' report lines.");
DEFINE_string(ip, "127.0.0.1", "Address this process listens on.");
DEFINE_uint32(workers, 0, "Worker threads of the runtime (0: one per core).");

namespace {

using namespace mesos;
using namespace mesos::internal;
using process::Duration;
using process::TimerId;
using process::UPID;
using fig10::scalar;
using fig10::wallTime;

constexpr char kVersion[] = "1.0.0";
constexpr Duration kMaxRegistrationBackoff = std::chrono::seconds(60);
constexpr Duration kMaxUpdateBackoff = std::chrono::seconds(600);

Duration seconds(double s) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
}

// What this process reports; the only state its slaves share. Relaxed
// counters, read by the reporting thread.
struct Counters {
  std::atomic<int64_t> registered{0};
  std::atomic<int64_t> running{0};
  std::atomic<int64_t> removed{0};
  std::atomic<int64_t> resent{0};
  std::atomic<int64_t> registrationMessages{0};  // Register- and ReregisterSlaveMessages sent
  std::atomic<bool> announced{false};  // "registered_all" was sent
};
Counters counters;

class EmulatedSlave;

// Lets at most --registration_window slaves wait for the master at once.
class Registrar : public process::Actor {
 public:
  explicit Registrar(size_t window) : Actor("registrar"), window_(window) {}

  void start(std::vector<process::Pid<EmulatedSlave>> slaves);
  // A slave of the window got its answer: the next one may go.
  void registeredOne();

 private:
  void next();

  const size_t window_;
  std::deque<process::Pid<EmulatedSlave>> waiting_;
  size_t inFlight_ = 0;
};

// --zk mode: follows the leading master through ZooKeeper, moves every slave
// of this process to each new leader, and says when all are registered
// with it ("leader" and "reregistered_all" lines).
class Follower : public process::Actor {
 public:
  Follower(std::unique_ptr<zk::MasterDetector> detector, process::Pid<Registrar> registrar)
      : Actor("follower"), detector_(std::move(detector)), registrar_(std::move(registrar)) {}

  // The slaves to move; the first leader detected starts their registration.
  void start(std::vector<process::Pid<EmulatedSlave>> slaves);
  // A slave got SlaveRegisteredMessage or SlaveReregisteredMessage, at wall
  // time `at`, from the leader of `generation`.
  void registeredWith(uint64_t generation, double at);

 private:
  void watch();
  void detected(const std::optional<MasterInfo>& leader);
  // Tells the slaves whose random wait has passed to re-register, then
  // waits for the next one's: one timer for the process, not one a slave.
  void release(uint64_t generation);

  const std::unique_ptr<zk::MasterDetector> detector_;
  const process::Pid<Registrar> registrar_;
  std::vector<process::Pid<EmulatedSlave>> slaves_;
  std::optional<MasterInfo> seen_;  // what the detector said last
  std::optional<UPID> leader_;
  uint64_t generation_ = 0;
  // This generation's waits after detection, shortest first: (wait, slave).
  std::vector<std::pair<Duration, size_t>> waits_;
  size_t released_ = 0;  // waits_[0, released_) have been told
  process::TimePoint detectedAt_{};
  bool registrationStarted_ = false;
  int64_t expected_ = 0;  // slaves to hear from for this generation
  int64_t heard_ = 0;
  double latest_ = 0;
  int64_t messagesBefore_ = 0;  // counters.registrationMessages when it began
};

// The task-state half of a slave: one entry per task it knows, with the
// status updates not yet acknowledged (the front one is on the wire).
struct TaskEntry {
  Task task;  // ids, resources and latest state, as re-registration reports it
  bool running = false;  // holds its slot
  std::optional<TimerId> finishTimer;
  std::deque<StatusUpdate> pending;
  std::optional<TimerId> retryTimer;
  Duration backoff{};
};

class EmulatedSlave : public process::Actor {
 public:
  // `master` is the fixed master, or, with a `follower`, none until the
  // follower names the leader.
  EmulatedSlave(int index, UPID master, process::Pid<Registrar> registrar,
                std::optional<process::Pid<Follower>> follower, const SlaveInfo& prototype)
      : Actor("slave(" + std::to_string(index) + ")"),
        index_(index),
        master_(std::move(master)),
        registrar_(std::move(registrar)),
        follower_(std::move(follower)),
        prototype_(prototype) {}

  // From the registrar: register now.
  void beginRegistration() {
    if (state_ != State::kIdle) return;
    state_ = State::kRegistering;
    attemptRegistration(Duration::zero());
  }

  // From the follower: `master` leads now (the leader of `generation`).
  // A registered slave re-registers with it after a random wait in [0,
  // --registration_backoff_factor], as a real slave does; one still
  // registering goes on with the new master. The follower keeps the
  // waits of all slaves and calls reregisterNow() when this one's ends.
  void follow(UPID master, uint64_t generation) {
    master_ = std::move(master);
    generation_ = generation;
    if (state_ == State::kRegistered) {
      state_ = State::kRegistering;
      counters.registered--;
    }
    if (state_ != State::kRegistering) return;  // not started yet, or removed
    if (registrationTimer_) cancel(*registrationTimer_);
    registrationTimer_.reset();
    waitingForRelease_ = true;
  }

  // From the follower: the random wait after `generation` was detected ended.
  void reregisterNow(uint64_t generation) {
    if (generation != generation_ || !waitingForRelease_) return;
    waitingForRelease_ = false;
    attemptRegistration(Duration::zero());
  }

 protected:
  void initialize() override {
    on(&EmulatedSlave::registered);
    on(&EmulatedSlave::reregistered);
    on(&EmulatedSlave::ping);
    on(&EmulatedSlave::runTask);
    on(&EmulatedSlave::killTask);
    on(&EmulatedSlave::shutdownFramework);
    on(&EmulatedSlave::updateFramework);
    on(&EmulatedSlave::acknowledgement);
    on(&EmulatedSlave::shutdown);
  }

 private:
  enum class State { kIdle, kRegistering, kRegistered, kRemoved };

  SlaveInfo info() const {
    SlaveInfo info = prototype_;
    info.set_hostname("fig10-slave-" + std::to_string(index_));
    info.set_port(self().address.port);
    if (!slaveId_.value().empty()) *info.mutable_id() = slaveId_;
    return info;
  }

  // Sends RegisterSlaveMessage (or, once the master gave an id,
  // ReregisterSlaveMessage with the tasks) and tries again after a random
  // wait in [bound/2, bound], the bound doubling from
  // --registration_backoff_factor up to a minute.
  void attemptRegistration(Duration backoff) {
    if (registrationTimer_) cancel(*registrationTimer_);
    registrationTimer_.reset();
    if (state_ != State::kRegistering) return;
    counters.registrationMessages++;
    if (slaveId_.value().empty()) {
      RegisterSlaveMessage message;
      *message.mutable_slave() = info();
      message.set_version(kVersion);
      send(master_, std::move(message));
    } else {
      prepareReregistration();
      sendRaw(master_, ReregisterSlaveMessage::descriptor()->full_name(), reregistration_);
    }
    Duration bound = backoff == Duration::zero() ? seconds(FLAGS_registration_backoff_factor)
                                                 : std::min(backoff * 2, kMaxRegistrationBackoff);
    static thread_local std::mt19937_64 random{std::random_device{}()};
    std::uniform_int_distribution<int64_t> pick(bound.count() / 2, bound.count());
    Duration wait(pick(random));
    registrationTimer_ = delay(wait, [this, bound] {
      registrationTimer_.reset();
      attemptRegistration(bound);
    });
  }

  // Following a leader, the master is that very actor; a fixed master may
  // answer from another address than the one it was named by.
  bool fromMaster(const UPID& from) const {
    return from.id == master_.id && (!follower_ || from.address == master_.address);
  }

  void registered(const UPID& from, const SlaveRegisteredMessage& message) {
    if (!fromMaster(from) || state_ != State::kRegistering) return;
    slaveId_ = message.slave_id();
    changed();
    becomeRegistered();
    if (++counters.registered == FLAGS_count && !counters.announced.exchange(true)) {
      fig10::emitLine("registered_all");
    }
    process::dispatch(registrar_, &Registrar::registeredOne);
    reportRegistered();
  }

  void reregistered(const UPID& from, const SlaveReregisteredMessage& message) {
    if (!fromMaster(from) || state_ != State::kRegistering) return;
    if (message.slave_id().value() != slaveId_.value()) return;
    becomeRegistered();
    counters.registered++;
    reportRegistered();
  }

  // Following a leader: tell the follower this slave is back.
  void reportRegistered() {
    if (!follower_) return;
    process::dispatch(*follower_, &Follower::registeredWith, generation_, wallTime());
  }

  void becomeRegistered() {
    state_ = State::kRegistered;
    if (registrationTimer_) cancel(*registrationTimer_);
    registrationTimer_.reset();
    for (TaskEntry& entry : tasks_) {
      if (!entry.pending.empty() && !entry.retryTimer) sendFront(entry);
    }
  }

  void ping(const UPID& from, const PingSlaveMessage& message) {
    send(from, PongSlaveMessage());
    if (fromMaster(from) && !message.connected() && state_ == State::kRegistered) {
      LOG(WARNING) << self() << ": the master considers this slave disconnected; re-registering";
      state_ = State::kRegistering;
      counters.registered--;
      attemptRegistration(Duration::zero());
    }
  }

  void runTask(const UPID& from, const RunTaskMessage& message) {
    if (!fromMaster(from) || state_ == State::kRemoved) return;
    const TaskInfo& info = message.task();
    // Masters fill FrameworkInfo.id (the deprecated framework_id too).
    const FrameworkID& frameworkId = message.framework().id();
    changed();
    TaskEntry& entry = tasks_.emplace_back();
    entry.task.set_name(info.name());
    *entry.task.mutable_task_id() = info.task_id();
    *entry.task.mutable_framework_id() = frameworkId;
    *entry.task.mutable_slave_id() = slaveId_;
    *entry.task.mutable_resources() = info.resources();
    if (info.has_executor()) {
      *entry.task.mutable_executor_id() = info.executor().executor_id();
      noteExecutor(info.executor(), frameworkId);
    }
    noteFramework(message.framework());
    entry.task.set_state(TASK_RUNNING);
    entry.running = true;
    counters.running++;
    queueUpdate(entry, TASK_RUNNING);

    long long ms = std::strtoll(info.data().c_str(), nullptr, 10);
    std::string taskId = info.task_id().value();
    std::string framework = frameworkId.value();
    entry.finishTimer = delay(std::chrono::milliseconds(std::max(0LL, ms)), [=, this] {
      TaskEntry* done = find(framework, taskId);
      if (done == nullptr || !done->running) return;
      done->finishTimer.reset();
      stop(*done, TASK_FINISHED);
    });
  }

  void killTask(const UPID& from, const KillTaskMessage& message) {
    if (!fromMaster(from)) return;
    changed();
    TaskEntry* entry = find(message.framework_id().value(), message.task_id().value());
    if (entry == nullptr) {
      // Unknown here: the master learns it is lost, reliably.
      TaskEntry& lost = tasks_.emplace_back();
      *lost.task.mutable_task_id() = message.task_id();
      *lost.task.mutable_framework_id() = message.framework_id();
      *lost.task.mutable_slave_id() = slaveId_;
      lost.task.set_state(TASK_LOST);
      queueUpdate(lost, TASK_LOST);
      return;
    }
    if (!entry->running) return;
    if (entry->finishTimer) cancel(*entry->finishTimer);
    entry->finishTimer.reset();
    stop(*entry, TASK_KILLED);
  }

  void shutdownFramework(const UPID& from, const ShutdownFrameworkMessage& message) {
    if (!fromMaster(from)) return;
    const std::string& framework = message.framework_id().value();
    changed();
    std::erase_if(tasks_, [&](TaskEntry& entry) {
      if (entry.task.framework_id().value() != framework) return false;
      drop(entry);
      return true;
    });
    forgetUnused();
  }

  // A scheduler's new pid. Updates go through the master, so nothing
  // changes here; handled only so that the message is not logged as
  // unexpected (a master sends one per slave of a re-registered framework).
  void updateFramework(const UPID&, const UpdateFrameworkMessage&) {}

  void shutdown(const UPID& from, const ShutdownMessage& message) {
    if (!fromMaster(from) || state_ == State::kRemoved) return;
    LOG(WARNING) << self() << " removed by the master: " << message.message();
    if (state_ == State::kRegistered) counters.registered--;
    counters.removed++;
    state_ = State::kRemoved;
    changed();
    if (registrationTimer_) cancel(*registrationTimer_);
    registrationTimer_.reset();
    for (TaskEntry& entry : tasks_) drop(entry);
    tasks_.clear();
    executors_.clear();
    frameworks_.clear();
  }

  void acknowledgement(const UPID& from, const StatusUpdateAcknowledgementMessage& message) {
    if (!fromMaster(from)) return;
    TaskEntry* entry = find(message.framework_id().value(), message.task_id().value());
    if (entry == nullptr || entry->pending.empty() ||
        entry->pending.front().uuid() != message.uuid()) {
      return;  // a duplicate, or for an update this slave no longer has
    }
    if (entry->retryTimer) cancel(*entry->retryTimer);
    entry->retryTimer.reset();
    entry->pending.pop_front();
    if (!entry->pending.empty()) {
      entry->backoff = seconds(FLAGS_status_update_retry_s);
      sendFront(*entry);
      return;
    }
    if (entry->running) {
      prepareReregistration();  // a task runs, its update is through: quiet
      return;
    }
    // Its terminal update is acknowledged: the task is complete.
    std::string framework = entry->task.framework_id().value();
    std::string task = entry->task.task_id().value();
    changed();
    std::erase_if(tasks_, [&](const TaskEntry& e) {
      return e.task.task_id().value() == task && e.task.framework_id().value() == framework;
    });
    forgetUnused();
  }

  // The executors and frameworks of this slave's tasks, as re-registration
  // reports them. An executor here lives as long as it has tasks (none runs
  // to say otherwise), and a framework as long as it has tasks here.
  void noteExecutor(const ExecutorInfo& executor, const FrameworkID& frameworkId) {
    for (const ExecutorInfo& known : executors_) {
      if (known.executor_id().value() == executor.executor_id().value() &&
          known.framework_id().value() == frameworkId.value()) {
        return;
      }
    }
    ExecutorInfo& added = executors_.emplace_back(executor);
    *added.mutable_framework_id() = frameworkId;
  }

  void noteFramework(const FrameworkInfo& framework) {
    for (const FrameworkInfo& known : frameworks_) {
      if (known.id().value() == framework.id().value()) return;
    }
    frameworks_.push_back(framework);
  }

  void forgetUnused() {
    auto used = [&](const std::string& frameworkId, const ExecutorID* executorId) {
      return std::any_of(tasks_.begin(), tasks_.end(), [&](const TaskEntry& entry) {
        return entry.task.framework_id().value() == frameworkId &&
               (executorId == nullptr ||
                entry.task.executor_id().value() == executorId->value());
      });
    };
    std::erase_if(executors_, [&](const ExecutorInfo& executor) {
      return !used(executor.framework_id().value(), &executor.executor_id());
    });
    std::erase_if(frameworks_, [&](const FrameworkInfo& framework) {
      return !used(framework.id().value(), nullptr);
    });
  }

  TaskEntry* find(const std::string& frameworkId, const std::string& taskId) {
    for (TaskEntry& entry : tasks_) {
      if (entry.task.task_id().value() == taskId &&
          entry.task.framework_id().value() == frameworkId) {
        return &entry;
      }
    }
    return nullptr;
  }

  // The task ends in `state`: its slot is free, the update goes out.
  void stop(TaskEntry& entry, TaskState state) {
    changed();
    entry.running = false;
    counters.running--;
    entry.task.set_state(state);
    queueUpdate(entry, state);
  }

  // What re-registration reports changed: the message is built anew.
  void changed() { reregistration_.clear(); }

  // The ReregisterSlaveMessage, serialized, is built once for every attempt
  // until something changes, and ahead of time once the slave is quiet:
  // after a failover 10,000 slaves in this process re-register at once,
  // and the master, not this emulator, should have the machine's CPU.
  void prepareReregistration() {
    if (!reregistration_.empty() || slaveId_.value().empty()) return;
    ReregisterSlaveMessage message;
    *message.mutable_slave() = info();
    message.set_version(kVersion);
    for (const TaskEntry& entry : tasks_) {
      if (entry.running) *message.add_tasks() = entry.task;
    }
    for (const ExecutorInfo& executor : executors_) *message.add_executor_infos() = executor;
    for (const FrameworkInfo& framework : frameworks_) *message.add_frameworks() = framework;
    reregistration_ = message.SerializeAsString();
  }

  // Forgets the task without telling anyone (its framework is gone).
  void drop(TaskEntry& entry) {
    changed();
    if (entry.finishTimer) cancel(*entry.finishTimer);
    if (entry.retryTimer) cancel(*entry.retryTimer);
    entry.finishTimer.reset();
    entry.retryTimer.reset();
    if (entry.running) counters.running--;
    entry.running = false;
  }

  void queueUpdate(TaskEntry& entry, TaskState state) {
    StatusUpdate update;
    double now = wallTime();
    std::string uuid = randomUuid();
    *update.mutable_framework_id() = entry.task.framework_id();
    *update.mutable_slave_id() = slaveId_;
    update.set_timestamp(now);
    update.set_uuid(uuid);
    TaskStatus* status = update.mutable_status();
    *status->mutable_task_id() = entry.task.task_id();
    status->set_state(state);
    *status->mutable_slave_id() = slaveId_;
    status->set_timestamp(now);
    status->set_source(state == TASK_LOST ? TaskStatus::SOURCE_SLAVE : TaskStatus::SOURCE_EXECUTOR);
    status->set_uuid(uuid);
    entry.pending.push_back(std::move(update));
    if (entry.pending.size() == 1 && state_ == State::kRegistered) {
      entry.backoff = seconds(FLAGS_status_update_retry_s);
      sendFront(entry);
    }
  }

  void sendFront(TaskEntry& entry) {
    StatusUpdateMessage message;
    *message.mutable_update() = entry.pending.front();
    message.mutable_update()->set_latest_state(entry.pending.back().status().state());
    message.set_pid(self().toString());
    send(master_, std::move(message));
    std::string framework = entry.task.framework_id().value();
    std::string task = entry.task.task_id().value();
    std::string uuid = entry.pending.front().uuid();
    entry.retryTimer = delay(entry.backoff, [=, this] {
      TaskEntry* again = find(framework, task);
      if (again == nullptr) return;
      again->retryTimer.reset();
      if (again->pending.empty() || again->pending.front().uuid() != uuid) return;
      if (state_ != State::kRegistered) return;  // re-sent once registered again
      again->backoff = std::min(again->backoff * 2, kMaxUpdateBackoff);
      counters.resent++;
      sendFront(*again);
    });
  }

  const int index_;
  UPID master_;  // changes only when following a leader
  const process::Pid<Registrar> registrar_;
  const std::optional<process::Pid<Follower>> follower_;
  const SlaveInfo& prototype_;
  State state_ = State::kIdle;
  uint64_t generation_ = 0;  // of master_, when following
  SlaveID slaveId_;
  std::optional<TimerId> registrationTimer_;
  bool waitingForRelease_ = false;  // for the follower's reregisterNow()
  std::string reregistration_;  // ReregisterSlaveMessage, serialized; empty after a change
  std::vector<TaskEntry> tasks_;  // a handful: linear search is cheapest
  std::vector<ExecutorInfo> executors_;
  std::vector<FrameworkInfo> frameworks_;
};

void Registrar::start(std::vector<process::Pid<EmulatedSlave>> slaves) {
  waiting_.assign(slaves.begin(), slaves.end());
  next();
}

void Registrar::registeredOne() {
  if (inFlight_ > 0) inFlight_--;
  next();
}

void Registrar::next() {
  while (inFlight_ < window_ && !waiting_.empty()) {
    process::dispatch(waiting_.front(), &EmulatedSlave::beginRegistration);
    waiting_.pop_front();
    inFlight_++;
  }
}

void Follower::start(std::vector<process::Pid<EmulatedSlave>> slaves) {
  slaves_ = std::move(slaves);
  watch();
}

void Follower::watch() {
  detector_->detect(seen_).then(self(), [this](const std::optional<MasterInfo>& leader) {
    detected(leader);
  });
}

void Follower::detected(const std::optional<MasterInfo>& leader) {
  double at = wallTime();
  seen_ = leader;
  watch();
  if (!leader) {
    // The slaves keep their master until the next one leads.
    fig10::emitLine("leader " + std::to_string(generation_) + " none " + std::to_string(at));
    return;
  }
  auto pid = UPID::parse(leader->pid());
  if (!pid) {
    LOG(WARNING) << "Ignoring the leading master's pid '" << leader->pid()
                 << "': " << pid.error().message;
    return;
  }
  if (leader_ && *leader_ == *pid) return;
  leader_ = *pid;
  generation_++;
  expected_ = FLAGS_count - counters.removed.load();
  heard_ = 0;
  latest_ = 0;
  messagesBefore_ = counters.registrationMessages.load();
  char line[200];
  std::snprintf(line, sizeof(line), "leader %llu %s %.6f",
                static_cast<unsigned long long>(generation_), pid->toString().c_str(), at);
  fig10::emitLine(line);
  for (const auto& slave : slaves_) {
    process::dispatch(slave, &EmulatedSlave::follow, *pid, generation_);
  }
  static thread_local std::mt19937_64 random{std::random_device{}()};
  std::uniform_int_distribution<int64_t> pick(0,
                                              seconds(FLAGS_registration_backoff_factor).count());
  waits_.clear();
  for (size_t i = 0; i < slaves_.size(); ++i) waits_.emplace_back(Duration(pick(random)), i);
  std::sort(waits_.begin(), waits_.end());
  released_ = 0;
  detectedAt_ = runtime().clock().now();
  release(generation_);
  if (!registrationStarted_) {
    registrationStarted_ = true;
    process::dispatch(registrar_, &Registrar::start, slaves_);
  }
}

void Follower::release(uint64_t generation) {
  if (generation != generation_) return;
  Duration elapsed = runtime().clock().now() - detectedAt_;
  while (released_ < waits_.size() && waits_[released_].first <= elapsed) {
    process::dispatch(slaves_[waits_[released_].second], &EmulatedSlave::reregisterNow,
                      generation);
    released_++;
  }
  if (released_ == waits_.size()) return;
  // In steps of at least a millisecond: a few hundred timers a failover.
  delay(std::max<Duration>(waits_[released_].first - elapsed, std::chrono::milliseconds(1)),
        [this, generation] { release(generation); });
}

void Follower::registeredWith(uint64_t generation, double at) {
  if (generation != generation_) return;
  latest_ = std::max(latest_, at);
  if (++heard_ != expected_) return;
  char line[120];
  std::snprintf(line, sizeof(line), "reregistered_all %llu %.6f %lld",
                static_cast<unsigned long long>(generation_), latest_,
                static_cast<long long>(counters.registrationMessages.load() - messagesBefore_));
  fig10::emitLine(line);
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Emulated slaves for bench/fig10 and bench/failover_bench (started by them).");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  if (FLAGS_minloglevel < google::GLOG_WARNING) FLAGS_minloglevel = google::GLOG_WARNING;

  if (FLAGS_master.empty() == FLAGS_zk.empty()) {
    std::cerr << "fig10-slaves: give either --master=master@ip:port or --zk=zk://host:port/path"
              << std::endl;
    return 1;
  }
  UPID master;
  std::optional<zk::Url> url;
  if (!FLAGS_master.empty()) {
    auto parsed = UPID::parse(FLAGS_master);
    if (!parsed) {
      std::cerr << "fig10-slaves: --master: " << parsed.error().message << std::endl;
      return 1;
    }
    master = *parsed;
  } else {
    auto parsed = zk::parseUrl(FLAGS_zk);
    if (!parsed) {
      std::cerr << "fig10-slaves: --zk: " << parsed.error().message << std::endl;
      return 1;
    }
    url = *parsed;
  }
  if (FLAGS_count <= 0 || FLAGS_slots <= 0 || FLAGS_registration_window <= 0 ||
      !(FLAGS_registration_backoff_factor > 0)) {
    std::cerr << "fig10-slaves: --count, --slots, --registration_window and "
                 "--registration_backoff_factor must be positive"
              << std::endl;
    return 1;
  }
  process::blockStopSignals();

  process::Runtime::Options options;
  options.ip = FLAGS_ip;
  options.workers = FLAGS_workers;
  // TLS as every program takes it: LIBPROCESS_SSL_* (docs/benchmarks.md).
  auto tls = process::TlsOptions::fromEnvironment();
  CHECK(tls.ok()) << tls.error().message;
  options.tls = std::move(tls).value();
  auto runtime = process::Runtime::create(options);
  if (!runtime) {
    std::cerr << "fig10-slaves: " << runtime.error().message << std::endl;
    return 1;
  }

  SlaveInfo prototype;
  prototype.set_hostname("fig10-slave");
  *prototype.add_resources() = scalar("cpus", FLAGS_slots);
  *prototype.add_resources() = scalar("mem", 1024.0 * FLAGS_slots);
  prototype.set_checkpoint(false);

  auto registrar =
      (*runtime)->spawn<Registrar>(static_cast<size_t>(FLAGS_registration_window));
  process::Spawned<Follower> follower;
  std::optional<process::Pid<Follower>> followerPid;
  if (url) {
    follower = (*runtime)->spawn<Follower>(zk::MasterDetector::zookeeper(**runtime, *url),
                                           registrar.pid());
    followerPid = follower.pid();
  }
  std::vector<process::Spawned<EmulatedSlave>> slaves;
  std::vector<process::Pid<EmulatedSlave>> pids;
  slaves.reserve(static_cast<size_t>(FLAGS_count));
  for (int i = 0; i < FLAGS_count; ++i) {
    slaves.push_back((*runtime)->spawn<EmulatedSlave>(FLAGS_first + i, master, registrar.pid(),
                                                      followerPid, prototype));
    pids.push_back(slaves.back().pid());
  }
  if (followerPid) {
    // Registration starts once the first leader is known.
    process::dispatch(*followerPid, &Follower::start, std::move(pids));
  } else {
    process::dispatch(registrar.pid(), &Registrar::start, std::move(pids));
  }

  std::thread reporter([] {
    const int64_t slots = int64_t{FLAGS_count} * FLAGS_slots;
    for (;;) {
      std::this_thread::sleep_for(seconds(FLAGS_report_interval_s));
      fig10::emitLine("slaves " +
                      std::to_string(counters.registered.load(std::memory_order_relaxed)) + " " +
                      std::to_string(counters.running.load(std::memory_order_relaxed)) + " " +
                      std::to_string(slots) + " " +
                      std::to_string(counters.removed.load(std::memory_order_relaxed)) + " " +
                      std::to_string(counters.resent.load(std::memory_order_relaxed)));
    }
  });
  reporter.detach();

  process::awaitStopSignal();
  // Nothing here needs an orderly end: the master goes too.
  std::_Exit(0);
}
