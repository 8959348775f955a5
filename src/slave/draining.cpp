// Draining (docs/draining.md): the master's DrainSlaveMessage, for an
// operator's DRAIN_AGENT. The slave kills every task it has, each with at
// most the config's max_grace_period between the kill and the forced end
// (the executor gets it as the KillTaskMessage's kill_policy when the
// task's own TaskInfo.kill_policy does not give less), refuses new
// tasks, and keeps the config checkpointed until nothing of frameworks is
// left, so that a slave restarted meanwhile drains on.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <glog/logging.h>

#include "slave/protobufs.hpp"
#include "slave/slave.hpp"

namespace mesos::internal::slave {

void Slave::drain(const process::UPID& from, const DrainSlaveMessage& message) {
  if (!wellFormed(from, message) || !fromMaster(from, "DrainSlaveMessage")) return;
  startDrain(message.config());
}

void Slave::startDrain(const DrainConfig& config) {
  if (frameworks_.empty()) {
    LOG(INFO) << "Told to drain; nothing of frameworks is here, so the drain is complete";
    drainConfig_ = config;
    checkDrained();
    return;
  }
  size_t tasks = 0;
  for (const auto& [id, fw] : frameworks_) {
    for (const auto& [executorId, executor] : fw->executors) {
      tasks += executor->queuedTasks.size() + executor->launchedTasks.size();
    }
  }
  LOG(INFO) << "Draining: killing " << tasks << " tasks of " << frameworks_.size()
            << " frameworks"
            << (config.has_max_grace_period()
                    ? ", each with at most " +
                          std::to_string(config.max_grace_period().nanoseconds() / 1e9) +
                          " s of grace"
                    : std::string(", each with its own kill policy's or its executor's "
                                  "grace period"))
            << (config.mark_gone() ? "; the agent is marked gone once drained" : "");
  if (recovery_ && info_.has_id()) {
    checkpointFile(meta::drainConfigPath(flags_.work_dir, info_.id().value()), config,
                   "the drain config");
  }
  drainConfig_ = config;
  std::vector<std::pair<std::string, std::string>> executors;
  for (const auto& [id, fw] : frameworks_) {
    for (const auto& [executorId, executor] : fw->executors) executors.emplace_back(id, executorId);
  }
  // Killing may remove executors and frameworks: looked up again each time.
  for (const auto& [frameworkId, executorId] : executors) {
    Framework* fw = framework(frameworkId);
    if (fw == nullptr) continue;
    Executor* executor = fw->executor(executorId);
    if (executor != nullptr) drainExecutor(*fw, executor);
  }
}

namespace {

// The kill policy a draining kill carries: max_grace_period when the task's
// own kill policy names no grace or a longer one (Apache's rule), else none,
// for the executor uses the task's own.
std::optional<KillPolicy> drainKillPolicy(const DrainConfig& config, const KillPolicy* task) {
  if (!config.has_max_grace_period()) return std::nullopt;
  if (task != nullptr && task->has_grace_period() &&
      task->grace_period().nanoseconds() <= config.max_grace_period().nanoseconds()) {
    return std::nullopt;
  }
  KillPolicy policy;
  *policy.mutable_grace_period() = config.max_grace_period();
  return policy;
}

}  // namespace

void Slave::drainExecutor(Framework& fw, Executor* executor) {
  std::vector<std::pair<TaskID, std::optional<KillPolicy>>> tasks;
  auto add = [&](const auto& task) {  // a queued TaskInfo or a launched Task
    const KillPolicy* own = task.has_kill_policy() ? &task.kill_policy() : nullptr;
    tasks.emplace_back(task.task_id(),
                       drainConfig_ ? drainKillPolicy(*drainConfig_, own) : std::nullopt);
  };
  for (const TaskInfo& task : executor->queuedTasks) add(task);
  // An executor that has not (re-)registered takes no kill yet; it is
  // drained once it does.
  if (executor->state == Executor::State::kRunning) {
    for (const auto& [taskId, task] : executor->launchedTasks) add(task);
  }
  const FrameworkID frameworkId = fw.id;
  for (const auto& [taskId, policy] : tasks) {
    KillTaskMessage kill;
    *kill.mutable_framework_id() = frameworkId;
    *kill.mutable_task_id() = taskId;
    if (policy) *kill.mutable_kill_policy() = *policy;
    this->kill(kill);
  }
}

void Slave::markDrainUpdate(const Framework& fw, TaskStatus* status) const {
  if (!drainConfig_) return;
  if (status->state() != TASK_KILLING && status->state() != TASK_KILLED) return;
  status->set_reason(TaskStatus::REASON_SLAVE_DRAINING);
  if (!drainConfig_->mark_gone()) return;
  for (const auto& capability : fw.info.capabilities()) {
    if (capability.type() == FrameworkInfo::Capability::PARTITION_AWARE) {
      status->set_state(TASK_GONE_BY_OPERATOR);
      return;
    }
  }
}

void Slave::checkDrained() {
  if (!drainConfig_ || !frameworks_.empty()) return;
  LOG(INFO) << "Drained: nothing of frameworks is left on this slave";
  drainConfig_.reset();
  if (!info_.has_id()) return;
  const std::string path = meta::drainConfigPath(flags_.work_dir, info_.id().value());
  std::error_code error;
  std::filesystem::remove(path, error);
  if (error) LOG(WARNING) << "Cannot remove " << path << ": " << error.message();
}

}  // namespace mesos::internal::slave
