// mesos-executor: the built-in command executor. The slave runs it for a
// task that carries a CommandInfo and no ExecutorInfo. It runs that one
// command in the sandbox, in its own process group, reports TASK_RUNNING and
// then TASK_FINISHED (exit status 0), TASK_FAILED ("Command exited with
// status N", "Command terminated with signal S") or TASK_KILLED, and exits
// once the slave has acknowledged the terminal update. A task with a
// HealthCheck is checked by a HealthChecker (docs/health-checks.md): health
// changes go out as TASK_RUNNING updates with `healthy` set, and a task that
// fails its check consecutive_failures times in a row is killed.
//
// Structure: CommandExecutor (the mesos::Executor the driver calls) forwards
// every callback to CommandExecutorProcess, an actor that owns the task's
// state and its timers. A reaper thread waits for the command and hands its
// end to the actor; the health checker is an actor of its own that reports
// by dispatch. Nothing blocks the actor.
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <glog/logging.h>

#include "common/flags.hpp"
#include "exec/executor_process.hpp"
#include "exec/health_check.hpp"
#include "exec/health_checker.hpp"
#include "exec/spawn.hpp"
#include "mesos/executor.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "process/signals.hpp"

namespace mesos::internal {

namespace {

using namespace std::chrono_literals;

struct CommandExecutorFlags : flags::FlagSet {
  CommandExecutorFlags() {
    add(&kill_grace_period, "kill_grace_period",
        "How long a killed task's process group gets between SIGTERM and SIGKILL, "
        "unless the task's kill_policy or the kill's names a grace period",
        flags::Duration(3s));
    add(&shutdown_grace_period, "shutdown_grace_period",
        "How long the slave allows this executor to shut down (the slave sets "
        "MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD); on shutdown the task gets this less one "
        "second between SIGTERM and SIGKILL",
        flags::Duration(5s));
    add(&acknowledgement_timeout, "acknowledgement_timeout",
        "How long to wait for the slave to acknowledge the task's last status update "
        "before exiting anyway; for a checkpointing framework, MESOS_RECOVERY_TIMEOUT more "
        "(the slave may be restarting)",
        flags::Duration(5s));
  }
  flags::Duration kill_grace_period;
  flags::Duration shutdown_grace_period;
  flags::Duration acknowledgement_timeout;
};

std::string describeWaitStatus(int status) {
  if (WIFEXITED(status)) {
    return "Command exited with status " + std::to_string(WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status)) {
    const char* name = strsignal(WTERMSIG(status));
    return "Command terminated with signal " +
           (name != nullptr ? std::string(name) : std::to_string(WTERMSIG(status)));
  }
  return "Command ended with wait status " + std::to_string(status);
}

}  // namespace

class CommandExecutorProcess : public process::Actor {
 public:
  struct Options {
    std::string directory;  // the sandbox: the command's working directory
    ExecutorID executorId;
    process::Duration killGracePeriod;
    process::Duration shutdownGracePeriod;
    process::Duration acknowledgementTimeout;
  };

  CommandExecutorProcess(MesosExecutorDriver* driver, Options options)
      : Actor(process::generateId("command-executor")),
        driver_(driver),
        options_(std::move(options)) {}

  // Runs on the main thread once the actor is gone.
  ~CommandExecutorProcess() override {
    if (reaper_.joinable()) reaper_.join();
    // The reaper only observed the exit; reap the zombie if nobody did.
    if (pid_ > 0 && !reaped_) waitpid(pid_, nullptr, WNOHANG);
  }

  void launch(const TaskInfo& task) {
    if (launched_) {
      update(task.task_id(), TASK_FAILED,
             "Attempted to run multiple tasks using a \"command\" executor");
      return;
    }
    launched_ = true;
    taskId_ = task.task_id();
    if (task.has_kill_policy() && task.kill_policy().has_grace_period()) {
      killGracePeriod_ = std::chrono::duration_cast<process::Duration>(std::chrono::nanoseconds(
          std::max<int64_t>(0, task.kill_policy().grace_period().nanoseconds())));
    }

    if (!task.has_command() || !task.command().has_value() || task.command().value().empty()) {
      fail("Task '" + task.task_id().value() +
           "' has no command to run (the command executor needs TaskInfo.command with a "
           "value)");
      return;
    }
    const CommandInfo& command = task.command();
    if (command.has_user()) {
      LOG(WARNING) << "Running task " << taskId_.value() << " as the executor's user, not '"
                   << command.user() << "' (switching users is not supported)";
    }

    std::optional<HealthCheckSpec> healthCheck;
    if (task.has_health_check()) {
      auto spec = parseHealthCheck(task.health_check());
      if (!spec) {
        fail("Task '" + task.task_id().value() + "' has an invalid health check: " +
             spec.error().message);
        return;
      }
      healthCheck = std::move(spec).value();
    }

    const std::map<std::string, std::string> environment =
        withEnvironmentOf(currentEnvironment(), command);
    auto spawned = spawnCommand(command, SpawnOptions{options_.directory, environment});
    if (!spawned) {
      fail("Failed to launch the command of task '" + task.task_id().value() +
           "': " + spawned.error().message);
      return;
    }
    const pid_t pid = *spawned;
    pid_ = pid;
    LOG(INFO) << "Forked command of task " << taskId_.value() << " at pid " << pid_;

    const process::Pid<CommandExecutorProcess> self(this->self());
    reaper_ = std::thread([pid, self] {
      // WNOWAIT: the exited command stays a zombie, so its pid (and its
      // process group id) cannot be reused until the actor has signalled the
      // rest of the group and reaped it.
      siginfo_t info{};
      int result;
      do {
        result = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
      } while (result != 0 && errno == EINTR);
      process::dispatch(self, &CommandExecutorProcess::commandEnded, result == 0);
    });

    update(taskId_, TASK_RUNNING);
    if (healthCheck) startHealthChecks(std::move(*healthCheck), environment);
  }

  // `grace`: the kill's own kill policy (a v1 KILL's, or a draining
  // slave's), else the task's TaskInfo.kill_policy, else --kill_grace_period.
  void kill(const TaskID& taskId, std::optional<std::chrono::nanoseconds> grace) {
    if (!launched_ || taskId.value() != taskId_.value()) {
      LOG(WARNING) << "Ignoring a kill for unknown task " << taskId.value();
      return;
    }
    stopHealthChecks();
    terminateTask(grace ? std::chrono::duration_cast<process::Duration>(*grace)
                        : killGracePeriod());
  }

  void shutdown() {
    LOG(INFO) << "Shutting down";
    if (pid_ <= 0) {
      // Nothing runs: nothing to report.
      if (!terminalSent_) driver_->stop();
      return;
    }
    stopHealthChecks();
    terminateTask(shutdownGrace());
  }

  // SIGTERM or SIGINT: the slave is stopping (it signals every process of
  // the executor's session) or an operator asks. The task's process group
  // gets SIGTERM, then SIGKILL after the shutdown grace, and the executor
  // exits as soon as the task has ended, without waiting for a slave that
  // is going away to acknowledge the last update.
  void stopSignal(int signal) {
    LOG(INFO) << "Got signal " << signal << " (" << strsignal(signal)
              << "); killing the task and exiting";
    signalled_ = true;
    if (pid_ <= 0 || exited_) {
      driver_->stop();
      return;
    }
    stopHealthChecks();
    terminateTask(shutdownGrace());
  }

  // After the driver stopped (main thread): the task must not outlive us.
  void killRemaining() {
    if (pid_ > 0 && !exited_) {
      LOG(WARNING) << "Killing the process group of task " << taskId_.value()
                   << " as the executor exits";
      ::killpg(pid_, SIGKILL);
    }
  }

 private:
  // Checks run in the sandbox with the task's environment.
  void startHealthChecks(HealthCheckSpec spec,
                         const std::map<std::string, std::string>& environment) {
    const process::Pid<CommandExecutorProcess> self(this->self());
    healthChecker_ = runtime().spawn<HealthChecker>(
        std::move(spec), ProbeContext{options_.directory, environment},
        [self](const HealthChecker::Event& event) {
          process::dispatch(self, &CommandExecutorProcess::healthChanged, event);
        });
  }

  void stopHealthChecks() {
    if (healthChecker_) process::dispatch(healthChecker_.pid(), &HealthChecker::stop);
  }

  // From the health checker: the task's health changed, or it must go.
  void healthChanged(const HealthChecker::Event& event) {
    // Nothing after a kill has begun: the next update is the terminal one.
    if (killing_ || exited_) return;
    if (event.changed) {
      LOG(INFO) << "Task " << taskId_.value() << " is "
                << (event.healthy ? "healthy" : "unhealthy")
                << (event.message.empty() ? "" : ": " + event.message);
      update(taskId_, TASK_RUNNING, event.message, event.healthy,
             TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED);
    }
    if (event.kill) {
      LOG(WARNING) << "Killing task " << taskId_.value() << " after "
                   << event.consecutiveFailures << " failed health check(s) in a row";
      killedUnhealthy_ = "Task killed after " + std::to_string(event.consecutiveFailures) +
                         " failed health check(s) in a row (" + event.message + ")";
      terminateTask(killGracePeriod());
    }
  }

  // The task's kill_policy.grace_period, else --kill_grace_period.
  process::Duration killGracePeriod() const {
    return killGracePeriod_ ? *killGracePeriod_ : options_.killGracePeriod;
  }

  // Sends SIGTERM to the task's process group now and SIGKILL after `grace`,
  // or brings an escalation already scheduled forward to `grace` from now.
  void terminateTask(process::Duration grace) {
    if (pid_ <= 0 || exited_) return;
    const process::TimePoint deadline = runtime().clock().now() + grace;
    if (killing_) {
      if (deadline >= escalationDeadline_) return;
      cancel(escalation_);
    } else {
      LOG(INFO) << "Sending SIGTERM to the process group of task " << taskId_.value();
      killing_ = true;
      if (::killpg(pid_, SIGTERM) != 0) {
        PLOG(WARNING) << "killpg(" << pid_ << ", SIGTERM)";
      }
    }
    escalationDeadline_ = deadline;
    escalation_ = delay(grace, [this] { escalate(); });
  }

  // What the task gets between SIGTERM and SIGKILL on shutdown: a second
  // less than the slave gives this executor.
  process::Duration shutdownGrace() const {
    process::Duration grace = options_.shutdownGracePeriod - 1s;
    return grace < process::Duration::zero() ? process::Duration::zero() : grace;
  }

  void escalate() {
    if (exited_) return;
    LOG(INFO) << "Task " << taskId_.value() << " outlived its grace period; sending SIGKILL";
    if (::killpg(pid_, SIGKILL) != 0) PLOG(WARNING) << "killpg(" << pid_ << ", SIGKILL)";
  }

  // From the reaper: the command ended (observed == false: waitid failed).
  void commandEnded(bool observed) {
    exited_ = true;
    stopHealthChecks();
    if (killing_) cancel(escalation_);
    // Whatever the command left running in its group ends with it.
    ::killpg(pid_, SIGKILL);
    int status = 0;
    pid_t result;
    do {
      result = waitpid(pid_, &status, WNOHANG);
    } while (result < 0 && errno == EINTR);
    reaped_ = result == pid_;

    if (!observed || !reaped_) {
      fail("Failed to get the exit status of the command: " + std::string(std::strerror(errno)));
      return;
    }
    const std::string message = describeWaitStatus(status);
    LOG(INFO) << message << " (task " << taskId_.value() << ", pid " << pid_ << ")";
    TaskState state = TASK_FAILED;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      state = TASK_FINISHED;
    } else if (killing_) {
      state = TASK_KILLED;
    }
    if (killedUnhealthy_ && state == TASK_KILLED) {
      finish(state, *killedUnhealthy_ + ": " + message, false,
             TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED);
      return;
    }
    finish(state, message);
  }

  void fail(const std::string& message) {
    LOG(ERROR) << message;
    finish(TASK_FAILED, message);
  }

  // Sends the task's terminal update; the driver stops once it is
  // acknowledged, or at once when a stop signal came.
  void finish(TaskState state, const std::string& message,
              std::optional<bool> healthy = std::nullopt,
              std::optional<TaskStatus::Reason> reason = std::nullopt) {
    terminalSent_ = true;
    update(taskId_, state, message, healthy, reason);
    if (signalled_) {
      driver_->stop();
    } else {
      driver_->stopWhenAcknowledged(options_.acknowledgementTimeout);
    }
  }

  void update(const TaskID& taskId, TaskState state, const std::string& message = "",
              std::optional<bool> healthy = std::nullopt,
              std::optional<TaskStatus::Reason> reason = std::nullopt) {
    TaskStatus status;
    *status.mutable_task_id() = taskId;
    *status.mutable_executor_id() = options_.executorId;
    status.set_state(state);
    status.set_source(TaskStatus::SOURCE_EXECUTOR);
    if (!message.empty()) status.set_message(message);
    if (healthy) status.set_healthy(*healthy);
    if (reason) status.set_reason(*reason);
    driver_->sendStatusUpdate(status);
  }

  MesosExecutorDriver* const driver_;
  const Options options_;

  bool launched_ = false;      // a task was given (later ones fail)
  TaskID taskId_;
  std::optional<process::Duration> killGracePeriod_;  // the task's kill policy's
  pid_t pid_ = -1;             // the command, leader of its process group
  std::thread reaper_;
  bool killing_ = false;       // SIGTERM sent
  process::TimerId escalation_ = 0;
  process::TimePoint escalationDeadline_{};
  bool exited_ = false;        // the command ended
  bool reaped_ = false;
  bool terminalSent_ = false;
  bool signalled_ = false;     // SIGTERM or SIGINT came: exit once the task ended
  // Set when failed health checks made us kill the task: the terminal
  // update's message starts with it.
  std::optional<std::string> killedUnhealthy_;
  // Declared last: it goes first (on the main thread, after this actor has
  // ended), aborting a check under way.
  process::Spawned<HealthChecker> healthChecker_;
};

// The Executor the driver calls: hands each callback to the actor.
class CommandExecutor : public Executor {
 public:
  // REQUIRES: called before the driver starts.
  void attach(process::Pid<CommandExecutorProcess> process) { process_ = std::move(process); }

  void registered(ExecutorDriver*, const ExecutorInfo& executorInfo, const FrameworkInfo&,
                  const SlaveInfo& slaveInfo) override {
    LOG(INFO) << "Registered executor " << executorInfo.executor_id().value() << " on "
              << slaveInfo.hostname();
  }
  void reregistered(ExecutorDriver*, const SlaveInfo& slaveInfo) override {
    LOG(INFO) << "Re-registered on " << slaveInfo.hostname();
  }
  void disconnected(ExecutorDriver*) override { LOG(INFO) << "Disconnected from the slave"; }
  void launchTask(ExecutorDriver*, const TaskInfo& task) override {
    process::dispatch(process_, &CommandExecutorProcess::launch, task);
  }
  void killTask(ExecutorDriver*, const TaskID& taskId) override {
    process::dispatch(process_, &CommandExecutorProcess::kill, taskId,
                      std::optional<std::chrono::nanoseconds>());
  }
  void killTaskWithGrace(ExecutorDriver*, const TaskID& taskId,
                         std::chrono::nanoseconds grace) override {
    process::dispatch(process_, &CommandExecutorProcess::kill, taskId,
                      std::optional<std::chrono::nanoseconds>(grace));
  }
  void frameworkMessage(ExecutorDriver*, const std::string&) override {
    VLOG(1) << "Ignoring a framework message: the command executor takes none";
  }
  void shutdown(ExecutorDriver*) override {
    process::dispatch(process_, &CommandExecutorProcess::shutdown);
  }
  void error(ExecutorDriver*, const std::string& message) override {
    LOG(ERROR) << "Executor driver error: " << message;
  }

 private:
  process::Pid<CommandExecutorProcess> process_;
};

}  // namespace mesos::internal

int main(int argc, char** argv) {
  using namespace mesos;
  using namespace mesos::internal;

  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  // Before any thread starts: SIGTERM and SIGINT are taken by one thread
  // below and turned into an orderly kill of the task (the task itself gets
  // default dispositions and an empty mask).
  process::blockStopSignals();

  CommandExecutorFlags flags;
  auto load = flags.load("MESOS_EXECUTOR_", argc, argv);
  if (!load) {
    std::cerr << argv[0] << ": " << load.error().message << std::endl;
    return 1;
  }
  if (flags.help()) {
    std::cout << flags.usage(argv[0]);
    return 0;
  }

  const std::map<std::string, std::string> variables = currentEnvironment();
  auto environment = parseExecutorEnvironment(variables);
  if (!environment) {
    std::cerr << argv[0] << ": " << environment.error().message << std::endl;
    return 1;
  }

  // A checkpointing framework's last update outlives a slave restart: the
  // executor waits for the restarted slave to take it.
  process::Duration acknowledgementTimeout =
      std::chrono::duration_cast<process::Duration>(flags.acknowledgement_timeout);
  if (environment->checkpoint) acknowledgementTimeout += environment->recoveryTimeout;

  CommandExecutor executor;
  // Declared before the actor: the actor calls the driver until it is gone.
  MesosExecutorDriver driver(&executor, variables);
  process::Spawned<CommandExecutorProcess> process =
      process::Runtime::global().spawn<CommandExecutorProcess>(
          &driver, CommandExecutorProcess::Options{
                       environment->directory, environment->executorId,
                       std::chrono::duration_cast<process::Duration>(flags.kill_grace_period),
                       std::chrono::duration_cast<process::Duration>(flags.shutdown_grace_period),
                       acknowledgementTimeout});
  executor.attach(process.pid());
  std::thread([pid = process.pid()] {
    int signal = process::awaitStopSignal();
    process::dispatch(pid, &CommandExecutorProcess::stopSignal, signal);
  }).detach();

  const Status status = driver.run();
  LOG(INFO) << "Executor driver ended in " << Status_Name(status);
  process::dispatch(process.pid(), &CommandExecutorProcess::killRemaining).await();
  process.reset();
  return status == DRIVER_STOPPED ? 0 : 1;
}
