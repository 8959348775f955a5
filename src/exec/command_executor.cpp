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
// every callback to CommandExecutorProcess, an actor that reports the task's
// updates and decides when to exit. The task itself (its process group, its
// kill with grace, its health checks) is a CommandTask (exec/command_task.hpp),
// an actor that reports by dispatch. Nothing blocks either actor.
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
#include "exec/forwarding_executor.hpp"
#include "exec/command_task.hpp"
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

  void launch(const TaskInfo& task) {
    if (launched_) {
      update(task.task_id(), TASK_FAILED,
             "Attempted to run multiple tasks using a \"command\" executor");
      return;
    }
    launched_ = true;
    taskId_ = task.task_id();
    const process::Pid<CommandExecutorProcess> self(this->self());
    task_ = runtime().spawn<CommandTask>(
        task,
        CommandTask::Options{options_.directory, currentEnvironment(), options_.killGracePeriod,
                             /*cgroup=*/std::nullopt},
        [self](const CommandTask::Event& event) {
          process::dispatch(self, &CommandExecutorProcess::taskEvent, event);
        });
  }

  // `grace`: the kill's own kill policy (a v1 KILL's, or a draining
  // slave's), else the task's TaskInfo.kill_policy, else --kill_grace_period.
  void kill(const TaskID& taskId, std::optional<std::chrono::nanoseconds> grace) {
    if (!launched_ || taskId.value() != taskId_.value()) {
      LOG(WARNING) << "Ignoring a kill for unknown task " << taskId.value();
      return;
    }
    killTask(grace ? std::optional<process::Duration>(
                         std::chrono::duration_cast<process::Duration>(*grace))
                   : std::nullopt);
  }

  void shutdown() {
    LOG(INFO) << "Shutting down";
    if (!running_) {
      // Nothing runs: nothing to report.
      if (!terminalSent_) driver_->stop();
      return;
    }
    killTask(shutdownGrace());
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
    if (!running_) {
      driver_->stop();
      return;
    }
    killTask(shutdownGrace());
  }

  // After the driver stopped (main thread): the task must not outlive us.
  void killRemaining() {
    if (task_) process::dispatch(task_.pid(), &CommandTask::killNow);
  }

 private:
  void killTask(std::optional<process::Duration> grace) {
    if (task_) {
      process::dispatch(task_.pid(), &CommandTask::kill, grace,
                        std::optional<TaskStatus::Reason>(), std::string());
    }
  }

  void taskEvent(const CommandTask::Event& event) {
    switch (event.kind) {
      case CommandTask::Event::Kind::kRunning:
        running_ = true;
        update(taskId_, TASK_RUNNING);
        break;
      case CommandTask::Event::Kind::kHealth:
        update(taskId_, TASK_RUNNING, event.message, event.healthy, event.reason);
        break;
      case CommandTask::Event::Kind::kEnded:
        running_ = false;
        finish(event.state, event.message, event.healthy, event.reason);
        break;
    }
  }

  // What the task gets between SIGTERM and SIGKILL on shutdown: a second
  // less than the slave gives this executor.
  process::Duration shutdownGrace() const {
    process::Duration grace = options_.shutdownGracePeriod - 1s;
    return grace < process::Duration::zero() ? process::Duration::zero() : grace;
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
  bool running_ = false;       // its command runs
  bool terminalSent_ = false;
  bool signalled_ = false;     // SIGTERM or SIGINT came: exit once the task ended
  process::Spawned<CommandTask> task_;
};

using CommandExecutor = ForwardingExecutor<CommandExecutorProcess>;

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

  CommandExecutor executor("command");
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
