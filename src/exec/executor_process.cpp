#include "exec/executor_process.hpp"

#include <algorithm>
#include <chrono>
#include <string_view>

#include <glog/logging.h>

#include "common/flags.hpp"
#include "common/uuid.hpp"

extern char** environ;  // NOLINT: POSIX

namespace mesos::internal {

using process::UPID;

namespace {

// Drops a message that lacks required fields (handlers parse partially).
template <typename M>
bool wellFormed(const UPID& from, const M& message) {
  if (message.IsInitialized()) return true;
  LOG(WARNING) << "Dropping " << M::descriptor()->full_name() << " from " << from
               << ": missing required fields " << message.InitializationErrorString();
  return false;
}

double wallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<std::string> required(const std::map<std::string, std::string>& environment,
                             const std::string& name) {
  auto it = environment.find(name);
  if (it == environment.end() || it->second.empty()) {
    return Error{"Expecting '" + name +
                 "' to be set in the environment (the slave sets it when it launches the "
                 "executor)"};
  }
  return it->second;
}

Result<process::Duration> durationVariable(const std::map<std::string, std::string>& environment,
                                           const std::string& name, process::Duration fallback) {
  auto it = environment.find(name);
  if (it == environment.end() || it->second.empty()) return fallback;
  auto parsed = flags::parseDuration(it->second);
  if (!parsed) {
    return Error{"Cannot parse '" + name + "' value '" + it->second +
                 "' as a duration (e.g. \"5secs\", \"15mins\"): " + parsed.error().message};
  }
  return std::chrono::duration_cast<process::Duration>(parsed.value());
}

}  // namespace

std::map<std::string, std::string> currentEnvironment() {
  std::map<std::string, std::string> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    result.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  return result;
}

Result<ExecutorEnvironment> parseExecutorEnvironment(
    const std::map<std::string, std::string>& environment) {
  ExecutorEnvironment result;

  auto slavePid = required(environment, "MESOS_SLAVE_PID");
  if (!slavePid) return slavePid.error();
  auto slave = UPID::parse(slavePid.value());
  if (!slave) return Error{"Cannot parse 'MESOS_SLAVE_PID': " + slave.error().message};
  result.slave = slave.value();

  auto slaveId = required(environment, "MESOS_SLAVE_ID");
  if (!slaveId) return slaveId.error();
  result.slaveId.set_value(slaveId.value());

  auto frameworkId = required(environment, "MESOS_FRAMEWORK_ID");
  if (!frameworkId) return frameworkId.error();
  result.frameworkId.set_value(frameworkId.value());

  auto executorId = required(environment, "MESOS_EXECUTOR_ID");
  if (!executorId) return executorId.error();
  result.executorId.set_value(executorId.value());

  auto directory = required(environment, "MESOS_DIRECTORY");
  if (!directory) return directory.error();
  result.directory = directory.value();

  auto checkpoint = environment.find("MESOS_CHECKPOINT");
  result.checkpoint = checkpoint != environment.end() && checkpoint->second == "1";

  if (result.checkpoint) {
    auto timeout = durationVariable(environment, "MESOS_RECOVERY_TIMEOUT", result.recoveryTimeout);
    if (!timeout) return timeout.error();
    result.recoveryTimeout = timeout.value();
  }

  if (auto token = environment.find("MESOS_EXECUTOR_AUTHENTICATION_TOKEN");
      token != environment.end()) {
    result.authenticationToken = token->second;
  }

  auto grace = durationVariable(environment, "MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD",
                                result.shutdownGracePeriod);
  if (!grace) return grace.error();
  result.shutdownGracePeriod = grace.value();

  return result;
}

ExecutorProcess::ExecutorProcess(MesosExecutorDriver* driver, Executor* executor,
                                 ExecutorEnvironment environment)
    : Actor(process::generateId("executor")),
      driver_(driver),
      executor_(executor),
      environment_(std::move(environment)),
      slave_(environment_.slave),
      slaveId_(environment_.slaveId) {}

void ExecutorProcess::initialize() {
  on(&ExecutorProcess::registered);
  on(&ExecutorProcess::reregistered);
  on(&ExecutorProcess::reconnect);
  on(&ExecutorProcess::runTask);
  on(&ExecutorProcess::runTaskGroup);
  on(&ExecutorProcess::killTask);
  on(&ExecutorProcess::statusUpdateAcknowledgement);
  on(&ExecutorProcess::frameworkMessage);
  on(&ExecutorProcess::shutdownExecutor);

  LOG(INFO) << "Executor " << environment_.executorId.value() << " of framework "
            << environment_.frameworkId.value() << " started at " << self()
            << "; registering with slave " << slave_;
  presentToken();
  link(slave_);
  RegisterExecutorMessage message;
  *message.mutable_framework_id() = environment_.frameworkId;
  *message.mutable_executor_id() = environment_.executorId;
  send(slave_, std::move(message));
}

void ExecutorProcess::finalize() { driver_->actorDone(); }

void ExecutorProcess::presentToken() {
  if (!environment_.authenticationToken.empty()) {
    setAuthorization(slave_.address, "Bearer " + environment_.authenticationToken);
  }
}

bool ExecutorProcess::fromSlave(const UPID& from, const char* what) const {
  if (from == slave_) return true;
  LOG(WARNING) << "Ignoring " << what << " from " << from << ": it is not this executor's slave "
               << slave_;
  return false;
}

bool ExecutorProcess::delivering(const char* what) const {
  if (aborted_.load(std::memory_order_acquire)) {
    VLOG(1) << "Ignoring " << what << " because the driver is aborted";
    return false;
  }
  if (shuttingDown_) {
    VLOG(1) << "Ignoring " << what << " because the executor is shutting down";
    return false;
  }
  return true;
}

void ExecutorProcess::registered(const UPID& from, const ExecutorRegisteredMessage& message) {
  if (!wellFormed(from, message) || !fromSlave(from, "ExecutorRegisteredMessage") ||
      !delivering("ExecutorRegisteredMessage")) {
    return;
  }
  LOG(INFO) << "Executor registered on slave " << message.slave_id().value();
  connected_ = true;
  ++connection_;
  slaveId_ = message.slave_id();
  executor_->registered(driver_, message.executor_info(), message.framework_info(),
                        message.slave_info());
}

void ExecutorProcess::reregistered(const UPID& from, const ExecutorReregisteredMessage& message) {
  if (!wellFormed(from, message) || !fromSlave(from, "ExecutorReregisteredMessage") ||
      !delivering("ExecutorReregisteredMessage")) {
    return;
  }
  LOG(INFO) << "Executor re-registered on slave " << message.slave_id().value();
  connected_ = true;
  ++connection_;
  slaveId_ = message.slave_id();
  executor_->reregistered(driver_, message.slave_info());
}

void ExecutorProcess::reconnect(const UPID& from, const ReconnectExecutorMessage& message) {
  if (!wellFormed(from, message) || !delivering("ReconnectExecutorMessage")) return;
  if (!from) {
    LOG(WARNING) << "Ignoring ReconnectExecutorMessage without a sender address";
    return;
  }
  // A slave that restarted comes back on its host (its port may change).
  if (from.id != slave_.id || from.address.ip != slave_.address.ip) {
    LOG(WARNING) << "Ignoring ReconnectExecutorMessage from " << from
                 << ": it is not this executor's slave " << slave_ << " or its host";
    return;
  }
  LOG(INFO) << "Slave " << message.slave_id().value() << " at " << from
            << " asks this executor to reconnect";
  slave_ = from;
  presentToken();
  link(slave_);

  ReregisterExecutorMessage reregister;
  *reregister.mutable_executor_id() = environment_.executorId;
  *reregister.mutable_framework_id() = environment_.frameworkId;
  updates_.forEach([&](const StatusUpdate& update) { *reregister.add_updates() = update; });
  tasks_.forEach([&](const TaskInfo& task) { *reregister.add_tasks() = task; });
  send(slave_, std::move(reregister));
}

void ExecutorProcess::runTask(const UPID& from, const RunTaskMessage& message) {
  if (!wellFormed(from, message) || !fromSlave(from, "RunTaskMessage") ||
      !delivering("RunTaskMessage")) {
    return;
  }
  const TaskInfo& task = message.task();
  if (!connected_) {
    LOG(WARNING) << "Ignoring task " << task.task_id().value()
                 << " because the executor is not registered with the slave";
    return;
  }
  if (tasks_.contains(task.task_id().value())) {
    LOG(ERROR) << "Ignoring a second RunTaskMessage for task " << task.task_id().value();
    return;
  }
  tasks_.put(task.task_id().value(), task);
  VLOG(1) << "Executor asked to run task " << task.task_id().value();
  executor_->launchTask(driver_, task);
}

void ExecutorProcess::runTaskGroup(const UPID& from, const RunTaskGroupMessage& message) {
  if (!wellFormed(from, message) || !fromSlave(from, "RunTaskGroupMessage") ||
      !delivering("RunTaskGroupMessage")) {
    return;
  }
  const auto& tasks = message.task_group().tasks();
  if (!connected_) {
    LOG(WARNING) << "Ignoring a task group of " << tasks.size()
                 << " task(s) because the executor is not registered with the slave";
    return;
  }
  for (const TaskInfo& task : tasks) {
    if (tasks_.contains(task.task_id().value())) {
      LOG(ERROR) << "Ignoring a task group: its task " << task.task_id().value()
                 << " was given before";
      return;
    }
  }
  for (const TaskInfo& task : tasks) tasks_.put(task.task_id().value(), task);
  VLOG(1) << "Executor asked to run a group of " << tasks.size() << " task(s)";
  executor_->launchTaskGroup(driver_, message.executor(), message.task_group());
}

void ExecutorProcess::killTask(const UPID& from, const KillTaskMessage& message) {
  if (!wellFormed(from, message) || !fromSlave(from, "KillTaskMessage") ||
      !delivering("KillTaskMessage")) {
    return;
  }
  // Delivered even before registration: the executor may still want to act.
  if (!connected_) {
    LOG(WARNING) << "Kill for task " << message.task_id().value()
                 << " arrived while not registered with the slave";
  }
  if (message.has_kill_policy() && message.kill_policy().has_grace_period()) {
    executor_->killTaskWithGrace(driver_, message.task_id(),
                                 std::chrono::nanoseconds(std::max<int64_t>(
                                     0, message.kill_policy().grace_period().nanoseconds())));
    return;
  }
  executor_->killTask(driver_, message.task_id());
}

void ExecutorProcess::statusUpdateAcknowledgement(
    const UPID& from, const StatusUpdateAcknowledgementMessage& message) {
  // Acknowledgements still count while shutting down: the executor may be
  // waiting for its last update to be safe.
  if (!wellFormed(from, message) || !fromSlave(from, "StatusUpdateAcknowledgementMessage")) {
    return;
  }
  if (aborted_.load(std::memory_order_acquire)) return;
  if (!connected_) {
    LOG(WARNING) << "Ignoring an acknowledgement for task " << message.task_id().value()
                 << " while not registered with the slave";
    return;
  }
  if (!updates_.erase(message.uuid())) {
    LOG(WARNING) << "Ignoring an acknowledgement of unknown update "
                 << (uuidToString(message.uuid()).empty() ? "(not a UUID)"
                                                          : uuidToString(message.uuid()))
                 << " for task " << message.task_id().value();
    return;
  }
  VLOG(1) << "Slave acknowledged update " << uuidToString(message.uuid()) << " for task "
          << message.task_id().value();
  tasks_.erase(message.task_id().value());
  if (stopWhenAcknowledged_ && updates_.empty()) {
    LOG(INFO) << "Every status update is acknowledged; stopping the driver";
    driver_->stop();
  }
}

void ExecutorProcess::frameworkMessage(const UPID& from,
                                       const FrameworkToExecutorMessage& message) {
  if (!wellFormed(from, message) || !fromSlave(from, "FrameworkToExecutorMessage") ||
      !delivering("FrameworkToExecutorMessage")) {
    return;
  }
  if (!connected_) {
    LOG(WARNING) << "Ignoring a framework message while not registered with the slave";
    return;
  }
  executor_->frameworkMessage(driver_, message.data());
}

void ExecutorProcess::shutdownExecutor(const UPID& from, const ShutdownExecutorMessage&) {
  if (!fromSlave(from, "ShutdownExecutorMessage") || !delivering("ShutdownExecutorMessage")) {
    return;
  }
  shutdown("the slave at " + from.toString() + " asked");
}

void ExecutorProcess::exited(const UPID& pid) {
  if (pid != slave_) return;  // a link to a slave that was replaced
  if (!delivering("the slave's exit")) return;

  if (environment_.checkpoint && !connected_ && connection_ > 0) {
    // Lost again while reconnecting: a restarted slave asked for the
    // re-registration and died before acknowledging it. The timer started
    // when the executor was first disconnected still runs.
    LOG(INFO) << "Slave " << slave_
              << " exited before acknowledging the re-registration; still waiting for the slave "
                 "to reconnect";
    return;
  }
  if (environment_.checkpoint && connected_) {
    connected_ = false;
    LOG(INFO) << "Slave " << slave_ << " exited; the framework checkpoints, so waiting "
              << std::chrono::duration_cast<std::chrono::seconds>(environment_.recoveryTimeout)
                     .count()
              << "s for it to reconnect";
    const uint64_t connection = connection_;
    delay(environment_.recoveryTimeout, [this, connection] { recoveryTimedOut(connection); });
    executor_->disconnected(driver_);
    return;
  }
  connected_ = false;
  shutdown("the slave at " + slave_.toString() + " exited");
}

void ExecutorProcess::recoveryTimedOut(uint64_t connection) {
  // Reconnected since (connected_), or reconnected and lost again (a newer
  // timer covers that).
  if (connected_ || connection != connection_) return;
  if (!delivering("the recovery timeout")) return;
  shutdown("the slave did not reconnect within the recovery timeout");
}

void ExecutorProcess::shutdown(const std::string& reason) {
  LOG(INFO) << "Shutting down the executor: " << reason;
  shuttingDown_ = true;
  delay(environment_.shutdownGracePeriod, [this] {
    if (aborted_.load(std::memory_order_acquire)) return;  // abort() decided already
    LOG(INFO) << "The shutdown grace period is over; stopping the driver";
    driver_->stop();
  });
  executor_->shutdown(driver_);
}

void ExecutorProcess::sendStatusUpdate(const TaskStatus& status) {
  StatusUpdateMessage message;
  StatusUpdate* update = message.mutable_update();
  *update->mutable_framework_id() = environment_.frameworkId;
  *update->mutable_executor_id() = environment_.executorId;
  *update->mutable_slave_id() = slaveId_;
  *update->mutable_status() = status;
  const double now = wallSeconds();
  update->set_timestamp(now);
  const std::string uuid = randomUuid();
  update->set_uuid(uuid);

  TaskStatus* stamped = update->mutable_status();
  stamped->set_timestamp(now);
  stamped->set_uuid(uuid);
  *stamped->mutable_slave_id() = slaveId_;
  if (!stamped->has_executor_id()) *stamped->mutable_executor_id() = environment_.executorId;
  if (!stamped->has_source()) stamped->set_source(TaskStatus::SOURCE_EXECUTOR);

  message.set_pid(self().toString());
  VLOG(1) << "Sending status update " << uuidToString(uuid) << " for task "
          << status.task_id().value() << " in state " << TaskState_Name(status.state());
  updates_.put(uuid, *update);
  send(slave_, std::move(message));
}

void ExecutorProcess::sendFrameworkMessage(const std::string& data) {
  ExecutorToFrameworkMessage message;
  *message.mutable_slave_id() = slaveId_;
  *message.mutable_framework_id() = environment_.frameworkId;
  *message.mutable_executor_id() = environment_.executorId;
  message.set_data(data);
  send(slave_, std::move(message));
}

void ExecutorProcess::abort() {
  LOG(INFO) << "Executor driver aborted";
  driver_->actorDone();
}

void ExecutorProcess::reportError(const std::string& message) {
  LOG(ERROR) << message;
  executor_->error(driver_, message);
}

void ExecutorProcess::stopWhenAcknowledged(process::Duration timeout) {
  if (updates_.empty()) {
    driver_->stop();
    return;
  }
  LOG(INFO) << "Stopping once the slave acknowledges " << updates_.size()
            << " outstanding status update(s)";
  stopWhenAcknowledged_ = true;
  delay(timeout, [this] {
    if (updates_.empty() || aborted_.load(std::memory_order_acquire)) return;
    LOG(WARNING) << updates_.size()
                 << " status update(s) still unacknowledged; stopping the driver anyway";
    driver_->stop();
  });
}

}  // namespace mesos::internal
