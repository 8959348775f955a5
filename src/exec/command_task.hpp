// CommandTask: one task's command run as its own process tree. The command
// executor runs one; the default executor one per task of its groups.
//
// The actor starts the task's CommandInfo in the sandbox as the leader of a
// new process group (exec/spawn.hpp), watches it from a reaper thread, runs
// its HealthCheck (exec/health_checker.hpp), and kills it on request: SIGTERM
// to the process group, SIGKILL after the grace period. Given a cgroup of its
// own (exec/task_cgroup.hpp), the command starts in it, and once the command
// has ended everything left in it (processes that left the group included)
// is killed and the cgroup removed, before kEnded. It reports by
// callback (called on this actor; the owner dispatches to itself): once
// kRunning (or straight kEnded when the task cannot start), kHealth at each
// change of health, and kEnded exactly once, with the terminal state.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "exec/health_checker.hpp"
#include "slave/containerizer/isolators/cgroups/cgroups.hpp"
#include "mesos.pb.h"
#include "process/actor.hpp"
#include "process/runtime.hpp"

namespace mesos::internal {

class CommandTask : public process::Actor {
 public:
  struct Event {
    enum class Kind { kRunning, kHealth, kEnded };
    Kind kind = Kind::kRunning;
    TaskState state = TASK_RUNNING;  // kEnded: TASK_FINISHED, TASK_FAILED or TASK_KILLED
    std::string message;             // "Command exited with status 1", a health message...
    std::optional<bool> healthy;
    std::optional<TaskStatus::Reason> reason;
  };
  using Callback = std::function<void(const Event&)>;

  struct Options {
    std::string directory;                            // the sandbox: the working directory
    std::map<std::string, std::string> environment;   // before the command's own variables
    process::Duration killGracePeriod;                // when neither kill nor task names one
    // The task's own cgroup, made by the owner; destroyed once the command
    // ended. None: the task's processes are its process group alone.
    std::optional<cgroups::Cgroup> cgroup;
  };

  // Starts `task.command()` once spawned. A task without a command, or with
  // an invalid health check, or whose command cannot be started ends at once
  // as TASK_FAILED with a message saying why.
  CommandTask(TaskInfo task, Options options, Callback callback);
  // Joins the reaper (the command has ended or was SIGKILLed by killNow()).
  ~CommandTask() override;

  // Kills the task: SIGTERM to its process group now, SIGKILL after `grace`
  // (the kill's own), else the task's kill_policy.grace_period, else
  // Options::killGracePeriod. A second kill may only bring SIGKILL closer.
  // `reason` and `message` prefix the terminal update's (a failed health
  // check, a failed sibling of a group). No-op once the command ended.
  void kill(std::optional<process::Duration> grace, std::optional<TaskStatus::Reason> reason,
            std::string message);
  // SIGKILL to the process group now, without a report: the executor exits.
  void killNow();

 protected:
  void initialize() override;

 private:
  void healthChanged(const HealthChecker::Event& event);
  void escalate();
  void commandEnded(bool observed);
  void end(TaskState state, std::string message);
  void stopHealthChecks();

  const TaskInfo task_;
  const Options options_;
  const Callback callback_;

  pid_t pid_ = -1;  // the command, leader of its process group
  std::thread reaper_;
  bool killing_ = false;  // SIGTERM sent
  process::TimerId escalation_ = 0;
  process::TimePoint escalationDeadline_{};
  bool exited_ = false;
  bool reaped_ = false;
  bool ended_ = false;  // kEnded reported
  // Why the task is being killed, when not by request (the terminal
  // update's reason and the start of its message).
  std::optional<TaskStatus::Reason> killReason_;
  std::string killMessage_;
  // Declared last: it goes first, aborting a check under way.
  process::Spawned<HealthChecker> healthChecker_;
};

}  // namespace mesos::internal
