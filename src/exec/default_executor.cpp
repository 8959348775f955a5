// mesos-default-executor: the executor the slave runs for an ExecutorInfo of
// type DEFAULT, which runs task groups (LAUNCH_GROUP; docs/task-groups.md).
//
// Each task of a group runs as its own process tree (a CommandTask, the same
// code the command executor runs its one task with), in a cgroup of its own
// below the container's when the slave has a cgroups isolator
// (exec/task_cgroup.hpp), in the executor's sandbox, which the tasks share
// with the volumes the slave put there. Each task gets TASK_STARTING,
// TASK_RUNNING, health updates when it is checked, and one terminal update.
// As Apache's default executor does, a task that ends in TASK_FAILED or
// TASK_KILLED (a kill from the scheduler included) has the other tasks of
// its group killed, each with its kill policy (SIGTERM, its grace period,
// SIGKILL); and the executor exits once no task is left running, after the
// slave acknowledged the last update.
//
// Structure: DefaultExecutor (the mesos::Executor the driver calls) hands
// every callback to DefaultExecutorProcess, the actor that owns the tasks;
// the CommandTasks report back by dispatch. Nothing blocks either.
#include <signal.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <glog/logging.h>

#include "exec/command_task.hpp"
#include "exec/executor_process.hpp"
#include "exec/task_cgroup.hpp"
#include "mesos/executor.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "process/signals.hpp"

namespace mesos::internal {

namespace {

using namespace std::chrono_literals;

// Apache's default executor's grace when neither the kill nor the task
// names one.
constexpr process::Duration kDefaultKillGracePeriod = 3s;
// How long the last updates may wait for the slave's acknowledgement
// (a checkpointing framework's slave gets MESOS_RECOVERY_TIMEOUT more).
constexpr process::Duration kAcknowledgementTimeout = 5s;

bool hasCapability(const FrameworkInfo& framework, FrameworkInfo::Capability::Type type) {
  for (const auto& capability : framework.capabilities()) {
    if (capability.type() == type) return true;
  }
  return false;
}

}  // namespace

class DefaultExecutorProcess : public process::Actor {
 public:
  struct Options {
    std::string directory;  // the sandbox the tasks share
    ExecutorID executorId;
    process::Duration shutdownGracePeriod;
    process::Duration acknowledgementTimeout;
  };

  DefaultExecutorProcess(MesosExecutorDriver* driver, Options options)
      : Actor(process::generateId("default-executor")),
        driver_(driver),
        options_(std::move(options)) {}

  void registered(const FrameworkInfo& framework) { framework_ = framework; }

  void launchGroup(const TaskGroupInfo& group) {
    if (shuttingDown_) {
      // Apache's answer to a group that comes while the executor goes.
      TaskState state = hasCapability(framework_, FrameworkInfo::Capability::PARTITION_AWARE)
                            ? TASK_DROPPED
                            : TASK_LOST;
      for (const TaskInfo& task : group.tasks()) {
        update(task.task_id(), state, "The executor is shutting down");
      }
      return;
    }
    const uint64_t number = nextGroup_++;
    std::vector<std::string>& members = groups_[number];
    for (const TaskInfo& info : group.tasks()) members.push_back(info.task_id().value());
    LOG(INFO) << "Launching a group of " << members.size() << " task(s)";

    const process::Pid<DefaultExecutorProcess> self(this->self());
    const std::map<std::string, std::string> environment = currentEnvironment();
    const std::optional<TaskCgroupsConfig> cgroups = taskCgroupsConfig(environment);
    for (const TaskInfo& info : group.tasks()) {
      const std::string id = info.task_id().value();
      auto task = std::make_unique<Task>();
      task->id = info.task_id();
      task->group = number;
      update(task->id, TASK_STARTING);
      Task* added = task.get();
      tasks_[id] = std::move(task);
      active_++;
      CommandTask::Options options{options_.directory, environment, kDefaultKillGracePeriod,
                                   std::nullopt};
      if (cgroups) {
        // Never outside its cgroup: the task would outlive its kill.
        auto cgroup = makeTaskCgroup(*cgroups, id);
        if (!cgroup) {
          LOG(ERROR) << "Cannot create the cgroup of task " << id << ": " << cgroup.error().message;
          process::dispatch(
              self, &DefaultExecutorProcess::taskEvent, id,
              CommandTask::Event{
                  CommandTask::Event::Kind::kEnded, TASK_FAILED,
                  "The cgroup of task '" + id + "' could not be created: " + cgroup.error().message,
                  std::nullopt, std::nullopt});
          continue;
        }
        options.cgroup = std::move(cgroup).value();
      }
      added->process = runtime().spawn<CommandTask>(
          info, std::move(options), [self, id](const CommandTask::Event& event) {
            process::dispatch(self, &DefaultExecutorProcess::taskEvent, id, event);
          });
    }
  }

  void kill(const TaskID& taskId, std::optional<std::chrono::nanoseconds> grace) {
    if (shuttingDown_) {
      LOG(WARNING) << "Ignoring the kill of task " << taskId.value()
                   << ": the executor is shutting down";
      return;
    }
    auto it = tasks_.find(taskId.value());
    if (it == tasks_.end() || it->second->ended) {
      LOG(WARNING) << "Ignoring the kill of task " << taskId.value()
                   << ": it is not running here";
      return;
    }
    LOG(INFO) << "Killing task " << taskId.value();
    killTask(*it->second,
             grace ? std::optional<process::Duration>(
                         std::chrono::duration_cast<process::Duration>(*grace))
                   : std::nullopt,
             "");
  }

  void shutdown() {
    LOG(INFO) << "Shutting down";
    shutdownTasks();
  }

  // SIGTERM or SIGINT (the slave is stopping, or an operator asks): every
  // task is killed with the shutdown grace and the executor exits once they
  // have ended, without waiting for acknowledgements.
  void stopSignal(int signal) {
    LOG(INFO) << "Got signal " << signal << " (" << strsignal(signal)
              << "); killing the tasks and exiting";
    signalled_ = true;
    shutdownTasks();
  }

  // After the driver stopped (main thread): no task outlives the executor.
  void killRemaining() {
    for (auto& [id, task] : tasks_) {
      if (!task->ended && task->process) {
        process::dispatch(task->process.pid(), &CommandTask::killNow);
      }
    }
  }

 private:
  struct Task {
    TaskID id;
    uint64_t group = 0;
    bool ended = false;    // its terminal update went out
    bool killing = false;  // a kill was sent to it
    process::Spawned<CommandTask> process;  // reset on the main thread, with this actor
  };

  void shutdownTasks() {
    shuttingDown_ = true;
    if (active_ == 0) {
      driver_->stop();
      return;
    }
    process::Duration grace = options_.shutdownGracePeriod - 1s;
    if (grace < process::Duration::zero()) grace = process::Duration::zero();
    for (auto& [id, task] : tasks_) {
      if (!task->ended) killTask(*task, grace, "");
    }
  }

  void killTask(Task& task, std::optional<process::Duration> grace, const std::string& message) {
    // A task that could not start ends by its own pending event.
    if (!task.process) return;
    if (!task.killing && hasCapability(framework_, FrameworkInfo::Capability::TASK_KILLING_STATE)) {
      update(task.id, TASK_KILLING);
    }
    task.killing = true;
    process::dispatch(task.process.pid(), &CommandTask::kill, grace,
                      std::optional<TaskStatus::Reason>(), message);
  }

  void taskEvent(const std::string& id, const CommandTask::Event& event) {
    auto it = tasks_.find(id);
    if (it == tasks_.end() || it->second->ended) return;
    Task& task = *it->second;
    switch (event.kind) {
      case CommandTask::Event::Kind::kRunning:
        update(task.id, TASK_RUNNING);
        return;
      case CommandTask::Event::Kind::kHealth:
        update(task.id, TASK_RUNNING, event.message, event.healthy, event.reason);
        return;
      case CommandTask::Event::Kind::kEnded:
        break;
    }
    task.ended = true;
    active_--;
    if (event.healthy && !*event.healthy) unhealthy_ = true;
    // As Apache's: once a task was killed for failing its checks, every
    // terminal update says unhealthy.
    update(task.id, event.state, event.message,
           unhealthy_ ? std::optional<bool>(false) : std::nullopt, event.reason);

    if (!shuttingDown_ && (event.state == TASK_FAILED || event.state == TASK_KILLED) &&
        killedGroups_.insert(task.group).second) {
      const std::string why = "Killed because task '" + id + "' of its group ended in " +
                              TaskState_Name(event.state);
      for (const std::string& other : groups_[task.group]) {
        Task& sibling = *tasks_.at(other);
        if (sibling.ended || sibling.killing) continue;
        LOG(INFO) << "Killing task " << other << ": task " << id << " of its group ended in "
                  << TaskState_Name(event.state);
        killTask(sibling, std::nullopt, why);
      }
    }

    if (active_ == 0) {
      LOG(INFO) << "No task runs any more; the executor exits";
      shuttingDown_ = true;
      if (signalled_) {
        driver_->stop();
      } else {
        driver_->stopWhenAcknowledged(options_.acknowledgementTimeout);
      }
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
  FrameworkInfo framework_;

  std::map<std::string, std::unique_ptr<Task>> tasks_;  // every task given, by id
  size_t active_ = 0;                                   // not yet ended
  std::map<uint64_t, std::vector<std::string>> groups_;  // task ids by group, in order
  std::set<uint64_t> killedGroups_;  // groups whose tasks were killed for one that ended
  uint64_t nextGroup_ = 0;
  bool shuttingDown_ = false;  // no more groups; exit once the tasks have ended
  bool signalled_ = false;
  bool unhealthy_ = false;  // a task was killed for failing its health checks
};

// The Executor the driver calls: hands each callback to the actor.
class DefaultExecutor : public Executor {
 public:
  // REQUIRES: called before the driver starts.
  void attach(process::Pid<DefaultExecutorProcess> process) { process_ = std::move(process); }

  void registered(ExecutorDriver*, const ExecutorInfo& executorInfo,
                  const FrameworkInfo& frameworkInfo, const SlaveInfo& slaveInfo) override {
    LOG(INFO) << "Registered default executor " << executorInfo.executor_id().value() << " on "
              << slaveInfo.hostname();
    process::dispatch(process_, &DefaultExecutorProcess::registered, frameworkInfo);
  }
  void reregistered(ExecutorDriver*, const SlaveInfo& slaveInfo) override {
    LOG(INFO) << "Re-registered on " << slaveInfo.hostname();
  }
  void disconnected(ExecutorDriver*) override { LOG(INFO) << "Disconnected from the slave"; }
  void launchTask(ExecutorDriver* driver, const TaskInfo& task) override {
    // The master gives a DEFAULT executor only groups; a lone task is run
    // as a group of one.
    TaskGroupInfo group;
    *group.add_tasks() = task;
    launchTaskGroup(driver, ExecutorInfo(), group);
  }
  void launchTaskGroup(ExecutorDriver*, const ExecutorInfo&, const TaskGroupInfo& group) override {
    process::dispatch(process_, &DefaultExecutorProcess::launchGroup, group);
  }
  void killTask(ExecutorDriver*, const TaskID& taskId) override {
    process::dispatch(process_, &DefaultExecutorProcess::kill, taskId,
                      std::optional<std::chrono::nanoseconds>());
  }
  void killTaskWithGrace(ExecutorDriver*, const TaskID& taskId,
                         std::chrono::nanoseconds grace) override {
    process::dispatch(process_, &DefaultExecutorProcess::kill, taskId,
                      std::optional<std::chrono::nanoseconds>(grace));
  }
  void frameworkMessage(ExecutorDriver*, const std::string&) override {
    VLOG(1) << "Ignoring a framework message: the default executor takes none";
  }
  void shutdown(ExecutorDriver*) override {
    process::dispatch(process_, &DefaultExecutorProcess::shutdown);
  }
  void error(ExecutorDriver*, const std::string& message) override {
    LOG(ERROR) << "Executor driver error: " << message;
  }

 private:
  process::Pid<DefaultExecutorProcess> process_;
};

}  // namespace mesos::internal

int main(int argc, char** argv) {
  using namespace mesos;
  using namespace mesos::internal;

  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::cout << "Usage: " << argv[0]
                << "\n  Run by the slave for an executor of type DEFAULT; runs its task groups."
                   "\n  Configured through the MESOS_* variables the slave sets.\n";
      return 0;
    }
  }
  // Before any thread starts: SIGTERM and SIGINT are taken by one thread
  // below and turned into an orderly kill of the tasks.
  process::blockStopSignals();

  const std::map<std::string, std::string> variables = currentEnvironment();
  auto environment = parseExecutorEnvironment(variables);
  if (!environment) {
    std::cerr << argv[0] << ": " << environment.error().message << std::endl;
    return 1;
  }
  process::Duration acknowledgementTimeout = kAcknowledgementTimeout;
  if (environment->checkpoint) acknowledgementTimeout += environment->recoveryTimeout;

  DefaultExecutor executor;
  // Declared before the actor: the actor calls the driver until it is gone.
  MesosExecutorDriver driver(&executor, variables);
  process::Spawned<DefaultExecutorProcess> process =
      process::Runtime::global().spawn<DefaultExecutorProcess>(
          &driver, DefaultExecutorProcess::Options{environment->directory,
                                                   environment->executorId,
                                                   environment->shutdownGracePeriod,
                                                   acknowledgementTimeout});
  executor.attach(process.pid());
  std::thread([pid = process.pid()] {
    int signal = process::awaitStopSignal();
    process::dispatch(pid, &DefaultExecutorProcess::stopSignal, signal);
  }).detach();

  const Status status = driver.run();
  LOG(INFO) << "Executor driver ended in " << Status_Name(status);
  process::dispatch(process.pid(), &DefaultExecutorProcess::killRemaining).await();
  process.reset();
  return status == DRIVER_STOPPED ? 0 : 1;
}
