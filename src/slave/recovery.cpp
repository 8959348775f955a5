// Checkpoints and recovery (docs/recovery.md): what the slave writes under
// <work_dir>/meta for checkpointing frameworks (meta.hpp), and how a
// restarted slave takes over the executors an earlier run left, ends the
// ones that died meanwhile, sends on the status updates the master had not
// acknowledged, and re-registers under the same slave id.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include <glog/logging.h>

#include "common/processes.hpp"
#include "process/dispatch.hpp"
#include "slave/checkpoint.hpp"
#include "slave/constants.hpp"
#include "slave/files.hpp"
#include "slave/paths.hpp"
#include "slave/protobufs.hpp"
#include "slave/reaper.hpp"
#include "slave/slave.hpp"

namespace mesos::internal::slave {

namespace {

// What the master would see differently: the slave must not come back
// under its old id as another machine.
std::string incompatibility(const SlaveInfo& checkpointed, const SlaveInfo& now) {
  if (checkpointed.hostname() != now.hostname()) {
    return "its hostname was " + checkpointed.hostname() + ", now " + now.hostname();
  }
  Resources before(checkpointed.resources());
  Resources after(now.resources());
  if (!(before == after)) {
    return "its resources were " + before.toString() + ", now " + after.toString();
  }
  std::string a, b;
  for (const Attribute& attribute : checkpointed.attributes()) a += attribute.ShortDebugString();
  for (const Attribute& attribute : now.attributes()) b += attribute.ShortDebugString();
  if (a != b) return "its attributes changed (--attributes)";
  return "";
}

// Whether the executor `run` recorded still runs: the pid is alive, not a
// zombie, and started when the recorded one did (a reused pid is another
// program).
bool stillRuns(const meta::RunState& run) {
  if (!run.forkedPid) return false;
  auto process = readProcess(*run.forkedPid);
  if (!process || process->zombie) return false;
  return run.startTicks == 0 || process->startTicks == run.startTicks;
}

// Whether the recorded pid now names another program (so that its
// session must not be searched for the old executor's processes).
bool pidReused(const meta::RunState& run) {
  if (!run.forkedPid) return false;
  auto process = readProcess(*run.forkedPid);
  return process && run.startTicks != 0 && process->startTicks != run.startTicks;
}

bool isCommandExecutor(const ExecutorInfo& info) {
  const CommandInfo& command = info.command();
  if (command.arguments_size() == 0 || command.arguments(0) != kCommandExecutor) return false;
  const std::string& program = command.value();
  const std::string name = std::string("/") + kCommandExecutor;
  return program.size() >= name.size() &&
         program.compare(program.size() - name.size(), name.size(), name) == 0;
}

bool isDockerExecutor(const ExecutorInfo& info) {
  const CommandInfo& command = info.command();
  return command.arguments_size() > 0 && command.arguments(0) == kDockerExecutor &&
         info.has_container() && info.container().type() == ContainerInfo::DOCKER;
}

}  // namespace

Result<std::optional<Slave::Recovered>> Slave::recoverCheckpoints(const Flags& flags,
                                                                  SlaveInfo* info,
                                                                  Containerizer* containerizer) {
  auto read = meta::recover(flags.work_dir, flags.strict);
  auto destroyAll = [&]() -> Result<void> {
    if (auto recovered = containerizer->recover({}); !recovered) {
      return Error{"--isolation: " + recovered.error().message};
    }
    return {};
  };
  if (!read) {
    return Error{"Cannot recover the checkpoints of an earlier run: " + read.error().message +
                 (flags.strict ? " (--strict=false recovers what can be read)" : "") +
                 "; to start as a new slave instead, remove " +
                 meta::latestSlavePath(flags.work_dir)};
  }
  if (!read->has_value()) {
    if (auto destroyed = destroyAll(); !destroyed) return destroyed.error();
    return std::optional<Recovered>();
  }
  meta::SlaveState state = std::move(**read);
  for (const std::string& line : state.skipped) {
    LOG(WARNING) << "Recovery: " << line;
  }
  if (std::string why = incompatibility(state.info, *info); !why.empty()) {
    return Error{"The checkpointed slave " + state.id.value() + " is not this one: " + why +
                 ". To start as a new slave, remove " + meta::latestSlavePath(flags.work_dir) +
                 " (or use --recover=cleanup)"};
  }

  Recovered recovered;
  std::vector<std::pair<ContainerID, pid_t>> doomed;  // live, but not to be kept
  for (auto& [frameworkId, framework] : state.frameworks) {
    for (auto& [executorId, executor] : framework.executors) {
      for (auto& [containerId, run] : executor.runs) {
        if (run.completed || state.rebooted) continue;
        bool keep =
            framework.info && framework.info->checkpoint() && executor.info && !run.shutDown;
        if (stillRuns(run)) {
          if (keep && flags.recover == "reconnect") {
            recovered.live[containerId] = *run.forkedPid;
          } else {
            doomed.emplace_back(run.id, *run.forkedPid);
          }
        }
      }
    }
  }

  for (const meta::RunState& run : state.orphans) {
    if (!state.rebooted && stillRuns(run)) doomed.emplace_back(run.id, *run.forkedPid);
  }

  if (auto kept = containerizer->recover(flags.recover == "reconnect" ? recovered.live
                                                                      : std::map<std::string, pid_t>{});
      !kept) {
    return Error{"--isolation: " + kept.error().message};
  }
  for (const auto& [id, pid] : doomed) {
    LOG(INFO) << "Killing executor process " << pid << " (container " << id.value()
              << ") left by an earlier run";
    containerizer->destroy(id, pid);
  }
  // The records of executors that were not to be kept have served.
  std::error_code ec;
  std::filesystem::remove_all(meta::slavePath(flags.work_dir, state.id.value()) + "/containers",
                              ec);

  if (flags.recover == "cleanup") {
    std::error_code ec;
    std::filesystem::remove(meta::latestSlavePath(flags.work_dir), ec);
    LOG(INFO) << "--recover=cleanup: killed " << doomed.size() << " executor(s) of slave "
              << state.id.value() << "; starting as a new slave";
    return std::optional<Recovered>();
  }

  *info->mutable_id() = state.id;
  LOG(INFO) << "Recovering slave " << state.id.value() << ": " << state.frameworks.size()
            << " checkpointed framework(s), " << recovered.live.size()
            << " executor(s) still running" << (state.rebooted ? " (the machine rebooted)" : "");
  recovered.state = std::move(state);
  return std::optional<Recovered>(std::move(recovered));
}

void Slave::recover() {
  if (!recovered_) return;
  Recovered recovered = std::move(*recovered_);
  recovered_.reset();
  for (auto& [frameworkId, state] : recovered.state.frameworks) {
    if (!state.info || !state.info->checkpoint()) continue;
    auto framework = std::make_unique<Framework>();
    framework->info = *state.info;
    framework->id = state.id;
    if (state.pid) framework->pid = *state.pid;
    Framework* fw = framework.get();
    frameworks_[frameworkId] = std::move(framework);
    for (const auto& [executorId, executor] : state.executors) {
      if (executor.info) recoverExecutor(fw, executor, recovered.live);
    }
  }

  // Each executor's state is known now; those whose process is gone end
  // as any executor that exits does (their tasks fail or are lost).
  for (auto& [frameworkId, state] : recovered.state.frameworks) {
    Framework* fw = framework(frameworkId);
    if (fw == nullptr) continue;
    std::vector<Executor*> dead;
    for (auto& [executorId, executor] : fw->executors) {
      if (executor->state == Executor::State::kTerminated) continue;
      if (recovered.live.count(executor->containerId.value()) == 0) dead.push_back(executor.get());
    }
    for (auto& [executorId, executor] : fw->executors) {
      if (executor->state == Executor::State::kTerminated ||
          recovered.live.count(executor->containerId.value()) == 0) {
        continue;
      }
      mesos::isolation::ContainerConfig config;
      config.containerId = executor->containerId;
      config.frameworkId = fw->id;
      config.executor = executor->info;
      // A Docker task's container is docker's: the isolators see only its
      // executor.
      if (!executor->dockerContainer.empty()) config.executor.clear_container();
      config.directory = executor->directory;
      config.resources = executor->resources();
      containerizer_->recovered(config);
    }
    for (Executor* executor : dead) {
      if (executor->killMessage.empty()) {
        executor->killMessage = recovered.state.rebooted
                                    ? "Executor did not survive a reboot of the machine"
                                    : "Executor exited while the slave was down";
      }
      executorTerminated(fw, executor, -1);
    }
  }
  for (auto it = frameworks_.begin(); it != frameworks_.end();) {
    Framework* fw = it->second.get();
    ++it;
    if (fw->executors.empty()) removeFramework(fw);
  }
  // A drain the earlier run had not finished goes on (docs/draining.md).
  const std::string drainPath = meta::drainConfigPath(flags_.work_dir, info_.id().value());
  if (std::filesystem::exists(drainPath)) {
    DrainConfig config;
    if (auto read = checkpoint::read(drainPath, &config); !read) {
      LOG(WARNING) << "Cannot read the drain config " << drainPath << " (" << read.error().message
                   << "); not draining";
    } else {
      LOG(INFO) << "Resuming the drain the earlier run of this slave had begun";
      startDrain(config);
    }
  }
}

void Slave::recoverExecutor(Framework* fw, const meta::ExecutorState& state,
                            const std::map<std::string, pid_t>& live) {
  // At most one run of an executor can still be running: that one, else
  // one not marked completed (it died with the slave), else the newest
  // completed one whose tasks are not all seen through.
  const meta::RunState* chosen = nullptr;
  for (const auto& [id, run] : state.runs) {
    if (run.shutDown) continue;
    if (!run.completed && (chosen == nullptr || chosen->completed)) chosen = &run;
  }

  for (const auto& [id, run] : state.runs) {
    if (run.shutDown) {
      // Its framework's tasks here were reported lost: what its executor
      // said after that must not reach the framework (recoverCheckpoints()
      // killed the executor).
      LOG(INFO) << "Not recovering run " << id << " of executor " << state.id.value()
                << " of framework " << fw->id.value()
                << ": the master had shut the framework down here";
      continue;
    }
    bool current = &run == chosen;
    auto executor = std::make_unique<Executor>();
    executor->info = *state.info;
    executor->frameworkId = fw->id;
    executor->containerId = run.id;
    executor->commandExecutor = isCommandExecutor(*state.info);
    if (isDockerExecutor(*state.info)) {
      executor->commandExecutor = true;
      executor->dockerContainer = docker::kNamePrefix + run.id.value();
    } else if (state.info->has_container() &&
               state.info->container().type() == ContainerInfo::DOCKER) {
      // A custom executor in a Docker container of its own: its process
      // here is its `docker run`.
      executor->dockerContainer = docker::kNamePrefix + run.id.value();
      executor->pulled = true;
    }
    executor->directory = executorRunPath(flags_.work_dir, info_.id(), fw->id, state.id, run.id);
    executor->metaPath = run.path;
    executor->recovered = true;

    for (const auto& [taskId, task] : run.tasks) {
      if (!task.info) continue;
      Task recoveredTask = *task.info;
      std::set<std::string> acknowledged;
      if (task.updates) {
        acknowledged.insert(task.updates->acknowledged.begin(), task.updates->acknowledged.end());
        for (const StatusUpdate& update : task.updates->updates) {
          recoveredTask.set_state(update.status().state());
          *recoveredTask.add_statuses() = update.status();
        }
        // The stream goes on where it stopped; the master gets what it
        // had not acknowledged once the slave is registered again.
        process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::recover,
                          task.updatesPath, *task.updates)
            .then(self(), [taskId = taskId](const Result<size_t>& queued) {
              if (!queued) {
                LOG(ERROR) << "Cannot recover the status updates of task " << taskId << ": "
                           << queued.error().message;
              } else if (*queued > 0) {
                LOG(INFO) << "Recovered " << *queued << " unacknowledged status update(s) of task "
                          << taskId;
              }
            });
      }
      bool terminal = isTerminalState(recoveredTask.state());
      bool seenThrough = false;
      if (terminal && task.updates) {
        for (const StatusUpdate& update : task.updates->updates) {
          if (isTerminalState(update.status().state()) &&
              acknowledged.count(update.uuid()) > 0) {
            seenThrough = true;
          }
        }
      }
      if (seenThrough) {
        executor->completedTasks.push_back(std::move(recoveredTask));
      } else if (terminal) {
        executor->terminatedTasks[taskId] = std::move(recoveredTask);
      } else {
        executor->launchedTasks[taskId] = std::move(recoveredTask);
      }
    }

    if (!current) {
      // An earlier run: only its updates matter (queued above); its tasks
      // stay listed until their terminal updates are acknowledged.
      if (!executor->incomplete() || fw->executor(state.id.value()) != nullptr) {
        if (run.completed) scheduleRemoval(*executor);
        continue;
      }
      executor->state = Executor::State::kTerminated;
      fw->executors[state.id.value()] = std::move(executor);
      continue;
    }

    if (files_) {
      const CommandInfo& command = executor->info.command();
      std::optional<std::string> user =
          command.has_user() ? command.user() : fw->info.user();
      process::dispatch(process::Pid<Files>(files_), &Files::attach, executor->directory,
                        executor->directory, user);
    }
    Executor* raw = executor.get();
    fw->executors[state.id.value()] = std::move(executor);
    if (!run.forkedPid) continue;  // never started: ends in recover()
    raw->osPid = *run.forkedPid;
    if (pidReused(run)) raw->osPid = -1;  // not ours: its session is someone else's
    // Taken over when its process still ran (recoverCheckpoints() looked);
    // the rest end in recover().
    if (raw->osPid <= 0 || live.count(run.id.value()) == 0) continue;

    process::Pid<Slave> me(self());
    FrameworkID frameworkId = fw->id;
    ExecutorID executorId = state.id;
    ContainerID containerId = run.id;
    Reaper::instance().watch(raw->osPid, [me, frameworkId, executorId, containerId](int status) {
      process::dispatch(me, &Slave::executorExited, frameworkId, executorId, containerId, status);
    });
    raw->state = Executor::State::kRegistering;
    if (run.libprocessPid) {
      raw->pid = *run.libprocessPid;
      LOG(INFO) << "Asking executor " << executorId.value() << " of framework "
                << frameworkId.value() << " at " << raw->pid << " (process " << raw->osPid
                << ") to reconnect";
      ReconnectExecutorMessage reconnect;
      *reconnect.mutable_slave_id() = info_.id();
      send(raw->pid, std::move(reconnect));
    } else {
      LOG(INFO) << "Executor " << executorId.value() << " of framework " << frameworkId.value()
                << " (process " << raw->osPid
                << ") had not registered before the restart; it will be killed unless it "
                << "re-registers in time";
    }
    raw->registrationTimer = delay(
        std::chrono::duration_cast<process::Duration>(flags_.executor_reregistration_timeout),
        [this, frameworkId, executorId, containerId] {
          registrationTimeout(frameworkId, executorId, containerId);
        });
    resized(*raw);
  }
}

void Slave::checkpointSlave() {
  if (!recovery_) return;
  checkpointFile(meta::slaveInfoPath(flags_.work_dir, info_.id().value()), info_,
                 "the slave's info");
  checkpointFile(meta::bootIdPath(flags_.work_dir), meta::currentBootId() + "\n", "the boot id");
  checkpointFile(meta::latestSlavePath(flags_.work_dir), info_.id().value() + "\n",
                 "the slave's id");
}

void Slave::checkpointFramework(const Framework& framework) {
  if (!recovery_) return;
  if (!framework.info.checkpoint()) return;
  const std::string& slaveId = info_.id().value();
  const std::string& frameworkId = framework.id.value();
  checkpointFile(meta::frameworkInfoPath(flags_.work_dir, slaveId, frameworkId), framework.info,
                 "framework " + frameworkId);
  checkpointFile(meta::frameworkPidPath(flags_.work_dir, slaveId, frameworkId),
                 framework.pid ? framework.pid.toString() : std::string(),
                 "the scheduler of framework " + frameworkId);
}

void Slave::checkpointExecutor(const Framework& framework, Executor* executor) {
  if (!recovery_) return;
  if (!framework.info.checkpoint()) return;
  const std::string& slaveId = info_.id().value();
  const std::string& executorId = executor->info.executor_id().value();
  executor->metaPath = meta::runPath(flags_.work_dir, slaveId, framework.id.value(), executorId,
                                     executor->containerId.value());
  checkpointFile(meta::executorInfoPath(flags_.work_dir, slaveId, framework.id.value(), executorId),
                 executor->info, "executor " + executorId);
  std::error_code ec;
  std::filesystem::create_directories(executor->metaPath + "/pids", ec);
  if (ec) {
    checkpointed(
        Error{"cannot create " + executor->metaPath + "/pids: " + ec.message(), ec.value()},
        "executor " + executorId);
  }
}

void Slave::checkpointForkedPid(const Executor& executor) {
  if (!recovery_) return;
  if (executor.osPid <= 0 || !info_.has_id()) return;
  auto process = readProcess(executor.osPid);
  uint64_t startTicks = process ? process->startTicks : 0;
  // A framework that does not checkpoint has its executor's process noted
  // too: a restarted slave kills it rather than leave it behind.
  std::string path = executor.metaPath.empty()
                         ? meta::containerPidPath(flags_.work_dir, info_.id().value(),
                                                  executor.containerId.value())
                         : meta::forkedPidPath(executor.metaPath);
  checkpointFile(path, meta::formatForkedPid(executor.osPid, startTicks),
                 "the process of executor " + executor.info.executor_id().value());
}

void Slave::checkpointTask(const Executor& executor, const Task& task) {
  if (executor.metaPath.empty()) return;
  checkpointFile(meta::taskInfoPath(executor.metaPath, task.task_id().value()), task,
                 "task " + task.task_id().value());
}

void Slave::checkpointExecutorPid(const Executor& executor) {
  if (executor.metaPath.empty() || !executor.pid) return;
  checkpointFile(meta::libprocessPidPath(executor.metaPath), executor.pid.toString() + "\n",
                 "the address of executor " + executor.info.executor_id().value());
}

void Slave::checkpointCompleted(const Executor& executor) {
  if (!recovery_) return;
  if (executor.metaPath.empty()) {
    if (info_.has_id()) {
      std::string path =
          meta::containerPidPath(flags_.work_dir, info_.id().value(), executor.containerId.value());
      unwrittenFiles_.erase(path);
      caughtUp();
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
    return;
  }
  checkpointFile(meta::completedPath(executor.metaPath), std::string(),
                 "the end of executor " + executor.info.executor_id().value());
}

void Slave::checkpointFile(const std::string& path, const google::protobuf::Message& message,
                           const std::string& what) {
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    checkpointed(Error{"cannot serialize the " + message.GetTypeName() + " for " + path},
                 what);
    return;
  }
  checkpointFile(path, bytes, what);
}

void Slave::checkpointFile(const std::string& path, const std::string& content,
                           const std::string& what) {
  Result<void> written = checkpoint::write(path, content);
  if (written) {
    unwrittenFiles_.erase(path);
  } else {
    unwrittenFiles_[path] = {content, what};
    if (!checkpointRetryTimer_) {
      checkpointRetryTimer_ = delay(kCheckpointRetryInterval, [this] { rewriteCheckpoints(); });
    }
  }
  checkpointed(written, what);
}

void Slave::rewriteCheckpoints() {
  checkpointRetryTimer_.reset();
  // A copy: checkpointFile() drops what it writes from unwrittenFiles_.
  std::map<std::string, UnwrittenFile> unwritten = unwrittenFiles_;
  for (const auto& [path, file] : unwritten) checkpointFile(path, file.content, file.what);
}

void Slave::forgetUnwrittenCheckpoints(const std::string& directory) {
  std::string prefix = directory + "/";
  for (auto it = unwrittenFiles_.lower_bound(prefix);
       it != unwrittenFiles_.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
    it = unwrittenFiles_.erase(it);
  }
  caughtUp();
}

void Slave::checkpointed(const Result<void>& written, const std::string& what) {
  if (!written) {
    metrics_.checkpointFailures++;
    if (!checkpointFailure_) {
      checkpointFailure_ = "cannot checkpoint " + what + ": " + written.error().message;
      LOG(ERROR) << "Cannot checkpoint " << what << ": " << written.error().message
                 << "; the slave goes on, keeps what it could not write and writes it once the "
                 << "disk takes it, reports itself unhealthy at /health meanwhile, and counts "
                 << "failed writes in slave/checkpoint_failures (not logged each)";
    } else {
      VLOG(1) << "Cannot checkpoint " << what << ": " << written.error().message;
    }
  }
  caughtUp();
}

void Slave::caughtUp() {
  if (checkpointFailure_ && unwrittenFiles_.empty() && unwrittenRecords_ == 0) {
    LOG(INFO) << "Checkpoints are written again: nothing waits for the disk any more ("
              << metrics_.checkpointFailures << " failed write(s) in all so far)";
    checkpointFailure_.reset();
  }
}

void Slave::updatesCheckpointed(Result<void> written, size_t unwritten) {
  unwrittenRecords_ = unwritten;
  checkpointed(written, "a status update stream");
}

std::string Slave::updatesLog(const FrameworkID& frameworkId, const TaskID& taskId) const {
  Framework* fw = framework(frameworkId.value());
  if (fw == nullptr || !fw->info.checkpoint()) return "";
  Executor* executor = fw->executorOfTask(taskId.value());
  if (executor == nullptr || executor->metaPath.empty()) return "";
  return meta::taskUpdatesPath(executor->metaPath, taskId.value());
}

}  // namespace mesos::internal::slave
