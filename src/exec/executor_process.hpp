// ExecutorProcess: the executor driver's actor. It registers with the slave,
// turns the slave's messages into Executor callbacks (so callbacks run one at
// a time, on this actor), sends the executor's status updates and keeps them
// until the slave acknowledges them, and follows the slave's life: a slave
// that goes away means shutdown, or, for a checkpointing framework, a wait for
// a restarted slave to reconnect.
//
// Protocol (Apache Mesos v0, src/exec/exec.cpp; mesos-go v0 executor):
//   -> RegisterExecutorMessage{framework_id, executor_id}      on start
//   <- ExecutorRegisteredMessage                               registered()
//   <- ReconnectExecutorMessage  -> ReregisterExecutorMessage{unacknowledged
//      updates and tasks}; <- ExecutorReregisteredMessage      reregistered()
//   <- RunTaskMessage / RunTaskGroupMessage / KillTaskMessage / FrameworkToExecutorMessage
//   <- ShutdownExecutorMessage                                 shutdown()
//   -> StatusUpdateMessage{update, pid}; <- StatusUpdateAcknowledgementMessage
//   -> ExecutorToFrameworkMessage
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "mesos/executor.hpp"

#include "mesos/result.hpp"
#include "messages.pb.h"
#include "process/actor.hpp"
#include "process/runtime.hpp"

namespace mesos::internal {

// What the slave tells an executor through its environment.
struct ExecutorEnvironment {
  process::UPID slave;                       // MESOS_SLAVE_PID
  SlaveID slaveId;                           // MESOS_SLAVE_ID
  FrameworkID frameworkId;                   // MESOS_FRAMEWORK_ID
  ExecutorID executorId;                     // MESOS_EXECUTOR_ID
  std::string directory;                     // MESOS_DIRECTORY (the sandbox)
  bool checkpoint = false;                   // MESOS_CHECKPOINT == "1"
  process::Duration recoveryTimeout = std::chrono::minutes(15);     // MESOS_RECOVERY_TIMEOUT
  process::Duration shutdownGracePeriod = std::chrono::seconds(5);  // MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD
  // What this executor presents to its slave with every message
  // (MESOS_EXECUTOR_AUTHENTICATION_TOKEN; docs/security.md), if it was given one.
  std::string authenticationToken;
};

// Reads the variables above. Fails with one line naming the variable when a
// required one (the first five) is missing or empty, or a value does not
// parse (a UPID; durations as "5secs", "15mins").
Result<ExecutorEnvironment> parseExecutorEnvironment(
    const std::map<std::string, std::string>& environment);

// This OS process's environment variables.
std::map<std::string, std::string> currentEnvironment();

// Values in the order they were put, found by key (Apache's LinkedHashMap).
template <typename V>
class InsertionOrderedMap {
 public:
  bool contains(const std::string& key) const { return index_.contains(key); }
  bool empty() const { return index_.empty(); }
  size_t size() const { return index_.size(); }
  // Replaces the value when `key` is present (keeping its place).
  void put(const std::string& key, V value) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      values_[it->second].second = std::move(value);
      return;
    }
    values_.emplace(next_, std::make_pair(key, std::move(value)));
    index_.emplace(key, next_++);
  }
  const V* find(const std::string& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &values_.at(it->second).second;
  }
  bool erase(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    values_.erase(it->second);
    index_.erase(it);
    return true;
  }
  template <typename F>
  void forEach(F f) const {
    for (const auto& [seq, entry] : values_) f(entry.second);
  }

 private:
  std::map<uint64_t, std::pair<std::string, V>> values_;
  std::unordered_map<std::string, uint64_t> index_;
  uint64_t next_ = 0;
};

class ExecutorProcess : public process::Actor {
 public:
  // `driver` and `executor` are borrowed; the driver outlives this actor.
  ExecutorProcess(MesosExecutorDriver* driver, Executor* executor, ExecutorEnvironment environment);

  // Requests from the driver (dispatched onto this actor).
  void sendStatusUpdate(const TaskStatus& status);
  void sendFrameworkMessage(const std::string& data);
  void abort();
  void reportError(const std::string& message);
  void stopWhenAcknowledged(process::Duration timeout);

  // Called by the driver on its caller's thread: from now on no callback
  // starts (Apache sets the same flag before the abort event is queued).
  void markAborted() { aborted_.store(true, std::memory_order_release); }

 protected:
  void initialize() override;
  void finalize() override;
  void exited(const process::UPID& pid) override;

 private:
  // Has every message to the slave carry this executor's token, if any.
  void presentToken();
  void registered(const process::UPID& from, const ExecutorRegisteredMessage& message);
  void reregistered(const process::UPID& from, const ExecutorReregisteredMessage& message);
  void reconnect(const process::UPID& from, const ReconnectExecutorMessage& message);
  void runTask(const process::UPID& from, const RunTaskMessage& message);
  void runTaskGroup(const process::UPID& from, const RunTaskGroupMessage& message);
  void killTask(const process::UPID& from, const KillTaskMessage& message);
  void statusUpdateAcknowledgement(const process::UPID& from,
                                   const StatusUpdateAcknowledgementMessage& message);
  void frameworkMessage(const process::UPID& from, const FrameworkToExecutorMessage& message);
  void shutdownExecutor(const process::UPID& from, const ShutdownExecutorMessage& message);

  // Calls Executor::shutdown(), stops delivering the slave's messages and
  // stops the driver after the shutdown grace period.
  void shutdown(const std::string& reason);
  void recoveryTimedOut(uint64_t connection);
  // False (and logs why) when messages from the slave must be ignored.
  bool delivering(const char* what) const;
  // Whether `from` is this executor's slave; warns when not. Only the slave
  // that launched it (or took it over on recovery) gives it orders.
  bool fromSlave(const process::UPID& from, const char* what) const;

  MesosExecutorDriver* const driver_;
  Executor* const executor_;
  const ExecutorEnvironment environment_;
  process::UPID slave_;
  SlaveID slaveId_;

  std::atomic<bool> aborted_{false};
  bool connected_ = false;     // registered with the slave
  uint64_t connection_ = 0;    // counts (re)registrations; a recovery timer names one
  bool shuttingDown_ = false;  // Executor::shutdown() has run
  bool stopWhenAcknowledged_ = false;

  InsertionOrderedMap<StatusUpdate> updates_;  // unacknowledged, by uuid bytes
  InsertionOrderedMap<TaskInfo> tasks_;        // launched, no update acknowledged yet, by id
};

// Owns the driver's actor (keeps process/ types out of the public header).
struct ExecutorActorHandle {
  process::Spawned<ExecutorProcess> actor;
};

}  // namespace mesos::internal
