#include "exec/command_task.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <glog/logging.h>

#include "exec/health_check.hpp"
#include "exec/spawn.hpp"
#include "exec/task_cgroup.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal {

namespace {

using namespace std::chrono_literals;

// How long killing what a task left in its cgroup may take (normally ms).
constexpr std::chrono::milliseconds kCgroupDestroyTimeout = 10s;

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

CommandTask::CommandTask(TaskInfo task, Options options, Callback callback)
    : Actor(process::generateId("command-task")),
      task_(std::move(task)),
      options_(std::move(options)),
      callback_(std::move(callback)) {}

CommandTask::~CommandTask() {
  if (reaper_.joinable()) reaper_.join();
  // The reaper only observed the exit; reap the zombie if nobody did.
  if (pid_ > 0 && !reaped_) waitpid(pid_, nullptr, WNOHANG);
}

void CommandTask::initialize() {
  const std::string& id = task_.task_id().value();
  if (!task_.has_command() || !task_.command().has_value() || task_.command().value().empty()) {
    end(TASK_FAILED, "Task '" + id +
                         "' has no command to run (it needs TaskInfo.command with a value)");
    return;
  }
  const CommandInfo& command = task_.command();
  if (command.has_user()) {
    LOG(WARNING) << "Running task " << id << " as the executor's user, not '" << command.user()
                 << "' (switching users is not supported)";
  }
  std::optional<HealthCheckSpec> healthCheck;
  if (task_.has_health_check()) {
    auto spec = parseHealthCheck(task_.health_check());
    if (!spec) {
      end(TASK_FAILED, "Task '" + id + "' has an invalid health check: " + spec.error().message);
      return;
    }
    healthCheck = std::move(spec).value();
  }

  const std::map<std::string, std::string> environment =
      withEnvironmentOf(options_.environment, command);
  SpawnOptions spawnOptions{
      options_.directory, environment, /*quietStdio=*/false,
      options_.cgroup ? joinFilesOf(*options_.cgroup) : std::vector<std::string>{}};
  auto spawned = spawnCommand(command, spawnOptions);
  if (!spawned) {
    end(TASK_FAILED,
        "Failed to launch the command of task '" + id + "': " + spawned.error().message);
    return;
  }
  const pid_t pid = *spawned;
  pid_ = pid;
  LOG(INFO) << "Forked command of task " << id << " at pid " << pid_;

  const process::Pid<CommandTask> self(this->self());
  reaper_ = std::thread([pid, self, id, cgroup = options_.cgroup] {
    // WNOWAIT: the exited command stays a zombie, so its pid (and its
    // process group id) cannot be reused until the actor has signalled the
    // rest of the group and reaped it.
    siginfo_t info{};
    int result;
    do {
      result = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
    } while (result != 0 && errno == EINTR);
    // The task ends with everything it started, setsid daemons included.
    // (Blocking: this thread, not the actor.)
    if (cgroup) {
      if (auto destroyed = cgroups::destroy(*cgroup, kCgroupDestroyTimeout); !destroyed) {
        LOG(ERROR) << "Cannot destroy cgroup " << cgroup->name() << " of task " << id << ": "
                   << destroyed.error().message;
      }
    }
    process::dispatch(self, &CommandTask::commandEnded, result == 0);
  });

  callback_(Event{Event::Kind::kRunning, TASK_RUNNING, "", std::nullopt, std::nullopt});
  if (healthCheck) {
    healthChecker_ = runtime().spawn<HealthChecker>(
        std::move(*healthCheck), ProbeContext{options_.directory, environment, ""},
        [self](const HealthChecker::Event& event) {
          process::dispatch(self, &CommandTask::healthChanged, event);
        });
  }
}

void CommandTask::stopHealthChecks() {
  if (healthChecker_) process::dispatch(healthChecker_.pid(), &HealthChecker::stop);
}

void CommandTask::healthChanged(const HealthChecker::Event& event) {
  // Nothing after a kill has begun: the next update is the terminal one.
  if (killing_ || exited_) return;
  const std::string& id = task_.task_id().value();
  if (event.changed) {
    LOG(INFO) << "Task " << id << " is " << (event.healthy ? "healthy" : "unhealthy")
              << (event.message.empty() ? "" : ": " + event.message);
    callback_(Event{Event::Kind::kHealth, TASK_RUNNING, event.message, event.healthy,
                    TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED});
  }
  if (event.kill) {
    LOG(WARNING) << "Killing task " << id << " after " << event.consecutiveFailures
                 << " failed health check(s) in a row";
    kill(std::nullopt, TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED,
         "Task killed after " + std::to_string(event.consecutiveFailures) +
             " failed health check(s) in a row (" + event.message + ")");
  }
}

void CommandTask::kill(std::optional<process::Duration> grace,
                       std::optional<TaskStatus::Reason> reason, std::string message) {
  if (pid_ <= 0 || exited_) return;
  stopHealthChecks();
  if (!grace) {
    grace = options_.killGracePeriod;
    if (task_.has_kill_policy() && task_.kill_policy().has_grace_period()) {
      grace = std::chrono::duration_cast<process::Duration>(std::chrono::nanoseconds(
          std::max<int64_t>(0, task_.kill_policy().grace_period().nanoseconds())));
    }
  }
  const process::TimePoint deadline = runtime().clock().now() + *grace;
  if (killing_) {
    if (deadline >= escalationDeadline_) return;
    cancel(escalation_);
  } else {
    LOG(INFO) << "Sending SIGTERM to the process group of task " << task_.task_id().value();
    killing_ = true;
    killReason_ = reason;
    killMessage_ = std::move(message);
    if (::killpg(pid_, SIGTERM) != 0) PLOG(WARNING) << "killpg(" << pid_ << ", SIGTERM)";
  }
  escalationDeadline_ = deadline;
  escalation_ = delay(*grace, [this] { escalate(); });
}

void CommandTask::killNow() {
  if (pid_ > 0 && !exited_) {
    LOG(WARNING) << "Killing the process group of task " << task_.task_id().value()
                 << " as the executor exits";
    ::killpg(pid_, SIGKILL);
  }
}

void CommandTask::escalate() {
  if (exited_) return;
  LOG(INFO) << "Task " << task_.task_id().value()
            << " outlived its grace period; sending SIGKILL";
  if (::killpg(pid_, SIGKILL) != 0) PLOG(WARNING) << "killpg(" << pid_ << ", SIGKILL)";
}

void CommandTask::commandEnded(bool observed) {
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
    end(TASK_FAILED,
        "Failed to get the exit status of the command: " + std::string(std::strerror(errno)));
    return;
  }
  std::string message = describeWaitStatus(status);
  LOG(INFO) << message << " (task " << task_.task_id().value() << ", pid " << pid_ << ")";
  TaskState state = TASK_FAILED;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    state = TASK_FINISHED;
  } else if (killing_) {
    state = TASK_KILLED;
  }
  end(state, std::move(message));
}

void CommandTask::end(TaskState state, std::string message) {
  if (ended_) return;
  ended_ = true;
  Event event{Event::Kind::kEnded, state, std::move(message), std::nullopt, std::nullopt};
  if (state == TASK_FAILED && pid_ <= 0) LOG(ERROR) << event.message;
  if (pid_ <= 0 && options_.cgroup) {
    // Never started: its cgroup is empty.
    if (auto removed = cgroups::remove(*options_.cgroup); !removed) {
      LOG(WARNING) << "Cannot remove cgroup " << options_.cgroup->name() << " of task "
                   << task_.task_id().value() << ": " << removed.error().message;
    }
  }
  if (state == TASK_KILLED && !killMessage_.empty()) {
    event.message = killMessage_ + ": " + event.message;
  }
  if (state == TASK_KILLED && killReason_) {
    event.reason = killReason_;
    if (*killReason_ == TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED) event.healthy = false;
  }
  callback_(event);
}

}  // namespace mesos::internal
