// Tasks and the executor lifecycle: launching executors into sandboxes,
// queueing tasks until the executor registers, killing tasks, shutting
// executors down with grace, and reporting executors that exit.
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>

#include <glog/logging.h>

#include "common/ids.hpp"
#include "common/uuid.hpp"
#include "process/dispatch.hpp"
#include "process/transport.hpp"
#include "slave/constants.hpp"
#include "slave/containerizer/isolators/docker/runtime_isolator.hpp"
#include "slave/environment.hpp"
#include "slave/executor_token.hpp"
#include "slave/files.hpp"
#include "slave/meta.hpp"
#include "slave/paths.hpp"
#include "slave/protobufs.hpp"
#include "slave/reaper.hpp"
#include "slave/slave.hpp"

namespace mesos::internal::slave {

using process::UPID;

namespace {

// Gives the sandbox `directory` and its stdout and stderr (created if
// missing) to `user` (its uid and primary group). Nothing else: whatever
// else is in the sandbox was put there by the fetcher as that user, and a
// walk by root through a directory the user can change could be led
// anywhere by a symbolic link. Fails naming the user when no such user
// exists, or the file that cannot be given.
Result<void> giveSandbox(const std::string& directory, const std::string& user) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  int error = ::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (found == nullptr) {
    if (error != 0) return Error{"cannot look up user '" + user + "': " + std::strerror(error)};
    return Error{"user '" + user + "' does not exist on this slave (tasks run as their "
                 "CommandInfo.user, else FrameworkInfo.user; see --switch_user)"};
  }
  // Its parent is the slave's: the user cannot put anything in its place.
  if (::lchown(directory.c_str(), found->pw_uid, found->pw_gid) != 0) {
    return Error{"cannot give " + directory + " to user '" + user + "': " + std::strerror(errno)};
  }
  for (const char* name : {"/stdout", "/stderr"}) {
    auto fd = openOutputFile(directory + name);
    if (!fd) return fd.error();
    int given = ::fchown(*fd, found->pw_uid, found->pw_gid);
    int cause = errno;
    ::close(*fd);
    if (given != 0) {
      return Error{"cannot give " + directory + name + " to user '" + user + "': " +
                   std::strerror(cause)};
    }
  }
  return {};
}

// The first id of `task` (or its framework's) that cannot name a
// directory (common/ids.hpp).
std::optional<Error> invalidIds(const FrameworkID& frameworkId, const TaskInfo& task) {
  if (auto valid = validateId("framework id", frameworkId.value()); !valid) return valid.error();
  if (auto valid = validateId("task id", task.task_id().value()); !valid) return valid.error();
  if (task.has_executor()) {
    const ExecutorInfo& executor = task.executor();
    if (auto valid = validateId("executor id", executor.executor_id().value()); !valid) {
      return valid.error();
    }
    if (executor.has_framework_id() && executor.framework_id().value() != frameworkId.value()) {
      return Error{"the executor's framework id '" + executor.framework_id().value() +
                   "' is not the task's"};
    }
  }
  return std::nullopt;
}

std::string describeExecutor(const Executor& executor) {
  return "executor " + executor.info.executor_id().value() + " of framework " +
         executor.frameworkId.value();
}

// Ends the docker program looking up or pulling the executor's image (its
// process group); dockerPulled() then ends the executor.
void killPull(const Executor& executor) {
  if (!executor.pullPid) return;
  if (pid_t pid = executor.pullPid->load(); pid > 0) ::kill(-pid, SIGKILL);
}

// The last non-empty line of the file `path` (at most its last 4 KiB) but
// docker's "See 'docker run --help'." hint, "" when there is none.
std::string lastLine(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text(4096, '\0');
  off_t size = ::lseek(fd, 0, SEEK_END);
  off_t from = size > static_cast<off_t>(text.size()) ? size - static_cast<off_t>(text.size()) : 0;
  ssize_t n = ::pread(fd, text.data(), text.size(), from);
  ::close(fd);
  text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  for (;;) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    size_t start = text.rfind('\n');
    std::string line = start == std::string::npos ? text : text.substr(start + 1);
    if (!line.starts_with("See 'docker") || start == std::string::npos) return line;
    text.resize(start);
  }
}

// A persistent volume of Executor::mountedVolumes as `docker run -v` takes
// it: the host's directory at its place in the sandbox the container sees.
Volume dockerVolume(const Volume& mounted) {
  Volume volume;
  volume.set_mode(mounted.mode());
  volume.set_container_path(std::string(docker::kMappedSandbox) + "/" + mounted.container_path());
  volume.set_host_path(mounted.source().host_path().path());
  return volume;
}

}  // namespace

Resources Executor::resources() const {
  Resources total(info.resources());
  for (const TaskInfo& task : queuedTasks) total += Resources(task.resources());
  for (const auto& [id, task] : launchedTasks) total += Resources(task.resources());
  return total;
}

bool Executor::hasTask(const std::string& taskId) const {
  for (const TaskInfo& task : queuedTasks) {
    if (task.task_id().value() == taskId) return true;
  }
  return launchedTasks.count(taskId) > 0 || terminatedTasks.count(taskId) > 0;
}

Executor* Framework::executorOfTask(const std::string& taskId) const {
  for (const auto& [id, executor] : executors) {
    if (executor->hasTask(taskId)) return executor.get();
  }
  return nullptr;
}

Framework* Slave::framework(const std::string& frameworkId) const {
  auto it = frameworks_.find(frameworkId);
  return it == frameworks_.end() ? nullptr : it->second.get();
}

void Slave::runTask(const UPID& from, const RunTaskMessage& message) {
  if (!wellFormed(from, message) || !fromMaster(from, "RunTaskMessage")) return;
  const TaskInfo& task = message.task();
  FrameworkID frameworkId = runTaskFrameworkId(message);
  if (frameworkId.value().empty()) {
    LOG(WARNING) << "Dropping RunTaskMessage for task " << task.task_id().value() << " from "
                 << from << ": it names no framework id";
    return;
  }
  LOG(INFO) << "Got task " << task.task_id().value() << " for framework " << frameworkId.value();

  if (auto refused = refusal(frameworkId, message.framework(), task)) {
    refuse(frameworkId, {task.task_id()}, *refused);
    return;
  }
  if (task.has_executor() == task.has_command()) {
    LOG(WARNING) << "Task " << task.task_id().value() << " is invalid: it needs exactly one of "
                 << "an executor and a command";
    refuse(frameworkId, {task.task_id()},
           Refusal{TASK_ERROR, TaskStatus::REASON_TASK_INVALID,
                   "Task must have exactly one of ExecutorInfo and CommandInfo"});
    return;
  }

  if (auto refused = containerizerRefusal(task)) {
    LOG(WARNING) << "Task " << task.task_id().value() << " of framework " << frameworkId.value()
                 << " failed: " << refused->message;
    refuse(frameworkId, {task.task_id()}, *refused);
    return;
  }

  bool command = !task.has_executor();
  ExecutorInfo executorInfo = command ? commandExecutorInfo(frameworkId, task) : task.executor();
  if (!executorInfo.has_framework_id()) *executorInfo.mutable_framework_id() = frameworkId;
  Framework* fw = frameworkFor(frameworkId, message.framework(), message.pid());
  Executor* executor =
      executorFor(fw, executorInfo, command, {task.task_id()}, Resources(task.resources()));
  if (executor == nullptr) return;

  checkpointTask(*executor, createTask(task, TASK_STAGING, frameworkId));
  if (executor->state == Executor::State::kRegistering) {
    executor->queuedTasks.push_back(task);
    resized(*executor);
    VLOG(1) << "Queued task " << task.task_id().value() << " for " << describeExecutor(*executor);
  } else {
    sendTaskToExecutor(*fw, executor, task);
  }
}

std::optional<Slave::Refusal> Slave::refusal(const FrameworkID& frameworkId,
                                             const FrameworkInfo& frameworkInfo,
                                             const TaskInfo& task) const {
  const std::string& id = task.task_id().value();
  if (state_ != State::kRunning) {
    LOG(WARNING) << "Task " << id << " is lost: the slave is not registered with the master";
    return Refusal{TASK_LOST, TaskStatus::REASON_SLAVE_DISCONNECTED, "Slave is not registered"};
  }
  if (task.slave_id().value() != info_.id().value()) {
    LOG(WARNING) << "Task " << id << " is lost: it is meant for slave "
                 << task.slave_id().value() << ", this is " << info_.id().value();
    return Refusal{TASK_LOST, TaskStatus::REASON_SLAVE_UNKNOWN, "Task was sent to the wrong slave"};
  }
  // The master checked them; they name directories here, so again.
  if (auto invalid = invalidIds(frameworkId, task)) {
    LOG(WARNING) << "Refusing a task of framework " << frameworkId.value() << ": "
                 << invalid->message;
    return Refusal{TASK_ERROR, TaskStatus::REASON_TASK_INVALID, invalid->message};
  }
  if (drainConfig_) {
    LOG(WARNING) << "Dropping task " << id << " of framework " << frameworkId.value()
                 << ": the slave is draining";
    bool aware = false;
    for (const auto& capability : frameworkInfo.capabilities()) {
      if (capability.type() == FrameworkInfo::Capability::PARTITION_AWARE) aware = true;
    }
    return Refusal{aware ? TASK_DROPPED : TASK_LOST, TaskStatus::REASON_SLAVE_DRAINING,
                   "Task was received while the slave was draining"};
  }
  if (Framework* fw = framework(frameworkId.value()); fw != nullptr) {
    if (fw->terminating) {
      LOG(WARNING) << "Task " << id << " is lost: framework " << frameworkId.value()
                   << " is shutting down";
      return Refusal{TASK_LOST, TaskStatus::REASON_FRAMEWORK_REMOVED,
                     "Framework is shutting down"};
    }
    if (fw->executorOfTask(id) != nullptr) {
      LOG(WARNING) << "Ignoring task " << id << " of framework " << frameworkId.value()
                   << ": a task with this id is already here";
      return Refusal{};  // no update: the task is here
    }
  }
  return std::nullopt;
}

std::optional<Slave::Refusal> Slave::containerizerRefusal(const TaskInfo& task) const {
  const std::vector<std::string> containerizers = flags_.containerizerList();
  auto enabled = [&](const std::string& name) {
    return std::find(containerizers.begin(), containerizers.end(), name) != containerizers.end();
  };
  const bool dockerTask =
      task.has_container() && task.container().type() == ContainerInfo::DOCKER;
  if (dockerTask && !enabled("docker")) {
    return Refusal{TASK_FAILED, TaskStatus::REASON_CONTAINER_LAUNCH_FAILED,
                   "The task's ContainerInfo is DOCKER, but this slave runs no Docker "
                   "containers (--containerizers=" + flags_.containerizers +
                       "; add docker to run it)"};
  }
  if (dockerTask && task.has_executor()) {
    return Refusal{TASK_FAILED, TaskStatus::REASON_CONTAINER_LAUNCH_FAILED,
                   "A DOCKER TaskInfo.container is for command tasks (no executor)"};
  }
  // A custom executor in a Docker container is the Docker containerizer's,
  // as in Apache Mesos (whose Mesos containerizer runs only MESOS
  // containers).
  const bool dockerExecutor = task.executor().has_container() &&
                              task.executor().container().type() == ContainerInfo::DOCKER;
  if (dockerExecutor && !enabled("docker")) {
    return Refusal{TASK_FAILED, TaskStatus::REASON_CONTAINER_LAUNCH_FAILED,
                   "The executor's ContainerInfo is DOCKER (a custom executor in a Docker "
                   "container), but this slave runs no Docker containers (--containerizers=" +
                       flags_.containerizers + "; add docker to run it)"};
  }
  if (!dockerTask && !dockerExecutor && !enabled("mesos")) {
    return Refusal{TASK_FAILED, TaskStatus::REASON_CONTAINER_LAUNCH_FAILED,
                   "The task needs the mesos containerizer (it is not a DOCKER container), but "
                   "this slave runs only --containerizers=" + flags_.containerizers};
  }
  return std::nullopt;
}

void Slave::refuse(const FrameworkID& frameworkId, const std::vector<TaskID>& tasks,
                   const Refusal& refusal) {
  if (!refusal.state) return;
  for (const TaskID& taskId : tasks) {
    sendSlaveUpdate(frameworkId, nullptr, taskId, *refusal.state, refusal.reason,
                    refusal.message);
  }
}

Framework* Slave::frameworkFor(const FrameworkID& frameworkId, const FrameworkInfo& info,
                               const std::string& pid) {
  Framework* fw = framework(frameworkId.value());
  if (fw == nullptr) {
    auto created = std::make_unique<Framework>();
    created->info = info;
    *created->info.mutable_id() = frameworkId;
    created->id = frameworkId;
    fw = created.get();
    frameworks_[frameworkId.value()] = std::move(created);
  }
  if (!pid.empty()) {
    if (auto parsed = UPID::parse(pid)) fw->pid = *parsed;
  }
  return fw;
}

Executor* Slave::executorFor(Framework* fw, const ExecutorInfo& executorInfo, bool command,
                             const std::vector<TaskID>& tasks, const Resources& taskResources) {
  const FrameworkID& frameworkId = fw->id;
  Executor* executor = fw->executor(executorInfo.executor_id().value());
  if (executor != nullptr && (executor->state == Executor::State::kTerminating ||
                              executor->state == Executor::State::kTerminated)) {
    LOG(WARNING) << tasks.size() << " task(s) lost: their " << describeExecutor(*executor)
                 << " is shutting down";
    for (const TaskID& taskId : tasks) {
      sendSlaveUpdate(frameworkId, &executorInfo.executor_id(), taskId, TASK_LOST,
                      TaskStatus::REASON_EXECUTOR_TERMINATED, "Executor is shutting down");
    }
    return nullptr;
  }
  if (executor != nullptr) {
    if (auto linked = linkVolumes(*fw, *executor, taskResources); !linked) {
      LOG(ERROR) << tasks.size() << " task(s) of framework " << frameworkId.value()
                 << " failed: " << linked.error().message;
      for (const TaskID& taskId : tasks) {
        sendSlaveUpdate(frameworkId, &executorInfo.executor_id(), taskId, TASK_FAILED,
                        TaskStatus::REASON_CONTAINER_LAUNCH_FAILED,
                        "Cannot give the task its volumes: " + linked.error().message);
      }
      return nullptr;
    }
    return executor;
  }
  auto launched = launchExecutor(fw, executorInfo, command, taskResources);
  if (!launched) {
    for (const TaskID& taskId : tasks) {
      sendSlaveUpdate(frameworkId, &executorInfo.executor_id(), taskId, TASK_FAILED,
                      TaskStatus::REASON_CONTAINER_LAUNCH_FAILED,
                      "Failed to launch executor " + executorInfo.executor_id().value() + ": " +
                          launched.error().message);
    }
    if (fw->executors.empty()) removeFramework(fw);
    return nullptr;
  }
  return *launched;
}

ExecutorInfo Slave::commandExecutorInfo(const FrameworkID& frameworkId,
                                        const TaskInfo& task) const {
  ExecutorInfo info;
  info.mutable_executor_id()->set_value(task.task_id().value());
  *info.mutable_framework_id() = frameworkId;
  info.set_source(task.task_id().value());
  std::string shown = task.command().shell()
                          ? "sh -c '" + task.command().value() + "'"
                          : task.command().value();
  info.set_name("Command Executor (Task: " + task.task_id().value() + ") (Command: " + shown + ")");
  CommandInfo* command = info.mutable_command();
  command->set_shell(false);
  if (task.has_container() && task.container().type() == ContainerInfo::DOCKER) {
    // The Docker containerizer's: the task runs as a container of the
    // Docker daemon; startExecutor() names it.
    info.set_name("Docker Executor (Task: " + task.task_id().value() + ") (Image: " +
                  task.container().docker().image() + ")");
    command->set_value(launcherBinaryPath(flags_.launcher_dir, kDockerExecutor));
    command->add_arguments(kDockerExecutor);
  } else {
    command->set_value(commandExecutorPath(flags_.launcher_dir));
    command->add_arguments(kCommandExecutor);
  }
  // The task's files are fetched into the executor's sandbox, where the
  // task runs.
  *command->mutable_uris() = task.command().uris();
  if (task.command().has_user()) command->set_user(task.command().user());
  *info.mutable_resources() = Resources::parse(kCommandExecutorResources)->proto();
  // The task's container is its executor's: the volumes are mounted for
  // both.
  if (task.has_container()) *info.mutable_container() = task.container();
  return info;
}

Result<Executor*> Slave::launchExecutor(Framework* framework, const ExecutorInfo& info,
                                        bool commandExecutor, const Resources& firstTask) {
  auto executor = std::make_unique<Executor>();
  executor->info = info;
  executor->frameworkId = framework->id;
  executor->commandExecutor = commandExecutor;
  executor->containerId.set_value(uuidToString(randomUuid()));
  if (info.has_container() && info.container().type() == ContainerInfo::DOCKER) {
    // A Docker task's container, or a custom executor's own.
    executor->dockerContainer = docker::kNamePrefix + executor->containerId.value();
  }
  tokenOf(executor.get());
  executor->directory = executorRunPath(flags_.work_dir, info_.id(), framework->id,
                                        info.executor_id(), executor->containerId);

  // A container from an image: refused before anything is made when this
  // slave cannot run it.
  auto imageName = dockerImageOf(info.container());
  if (!imageName) return imageName.error();
  if (!imageName->empty() && !images_) {
    return Error{"the container has an image ('" + *imageName +
                 "'), but this slave runs no images (--image_providers)"};
  }
  executor->imageName = *imageName;

  auto created = createSandbox(flags_.work_dir, info_.id(), framework->id, info.executor_id(),
                               executor->containerId);
  if (!created) {
    LOG(ERROR) << "Cannot launch " << describeExecutor(*executor) << ": "
               << created.error().message;
    return created.error();
  }
  // In place before anything runs in the sandbox.
  if (auto linked = linkVolumes(*framework, *executor, Resources(info.resources()) + firstTask);
      !linked) {
    LOG(ERROR) << "Cannot launch " << describeExecutor(*executor) << ": "
               << linked.error().message;
    return linked.error();
  }
  checkpointFramework(*framework);
  checkpointExecutor(*framework, executor.get());

  FrameworkID frameworkId = framework->id;
  ExecutorID executorId = info.executor_id();
  ContainerID containerId = executor->containerId;
  if (info.command().uris_size() > 0) {
    // Fetched first, off this actor; the executor starts once its files
    // are in place (fetched()). The registration timeout covers both: its
    // timer kills a fetch still running (registrationTimeout()), so the
    // fetch gets no timer of its own, which could fire first and fail the
    // task with another reason.
    executor->fetching = true;
    std::string user = info.command().has_user() ? info.command().user() : framework->info.user();
    FetchPlan plan = fetchPlan(flags_, info_.id(), info.command(), executor->directory, user);
    // The fetch runs as the executor will: into a sandbox that is already
    // the user's, with the user's rights.
    plan.runAs = executorUser(*framework, info);
    if (!plan.runAs.empty()) {
      if (auto given = giveSandbox(executor->directory, plan.runAs); !given) {
        LOG(ERROR) << "Cannot launch " << describeExecutor(*executor) << ": "
                   << given.error().message;
        return given.error();
      }
    }
    LOG(INFO) << "Fetching " << info.command().uris_size() << " URI(s) for "
              << describeExecutor(*executor) << " into " << executor->directory
              << (plan.runAs.empty() ? "" : " as user " + plan.runAs);
    fetcher_
        ->fetch(containerId.value(), plan, process::Duration::zero())
        .then(self(), [this, frameworkId, executorId,
                       containerId](const Result<process::Nothing>& result) {
          fetched(frameworkId, executorId, containerId, result);
        });
  } else if (!executor->imageName.empty()) {
    provisionImage(executor.get());
  } else if (auto started = startExecutor(executor.get(), *framework); !started) {
    LOG(ERROR) << "Cannot launch " << describeExecutor(*executor) << ": "
               << started.error().message;
    return started.error();
  }
  if (files_) {
    std::optional<std::string> user =
        info.command().has_user() ? info.command().user() : framework->info.user();
    process::dispatch(process::Pid<Files>(files_), &Files::attach, executor->directory,
                      executor->directory, user);
  }

  executor->registrationTimer =
      delay(std::chrono::duration_cast<process::Duration>(flags_.executor_registration_timeout),
            [this, frameworkId, executorId, containerId] {
              registrationTimeout(frameworkId, executorId, containerId);
            });
  Executor* raw = executor.get();
  framework->executors[info.executor_id().value()] = std::move(executor);
  return raw;
}

std::string Slave::executorUser(const Framework& framework, const ExecutorInfo& info) const {
  if (!flags_.switch_user || ::geteuid() != 0) return "";
  std::string user = info.command().has_user() ? info.command().user() : framework.info.user();
  return user == "root" ? "" : user;
}

Result<void> Slave::startExecutor(Executor* executor, const Framework& framework) {
  const ExecutorInfo& info = executor->info;
  if (executor->customInDocker() && !executor->pulled) {
    if (!docker_) return Error{"this slave runs no Docker containers (--containerizers)"};
    pullDockerImage(executor);
    return {};
  }
  // A command executor with an image stays on the host's root, as root,
  // and starts its task in the image as the task's user (taskInImage()).
  const bool taskInRootfs = executor->commandExecutor && !executor->rootfs.empty();
  LaunchSpec spec;
  spec.command = info.command();
  spec.directory = executor->directory;
  spec.environment = executorEnvironment(framework, *executor);
  spec.helperEnvironment = baseEnvironment_;
  spec.stdoutPath = executor->directory + "/stdout";
  spec.stderrPath = executor->directory + "/stderr";
  const std::string user = executorUser(framework, info);
  spec.user = taskInRootfs ? "" : user;
  if (!user.empty()) {
    // The sandbox is the user's (whatever was fetched into it is already).
    if (auto owned = giveSandbox(executor->directory, user); !owned) return owned.error();
  }
  if (executor->commandExecutor && !executor->dockerContainer.empty()) {
    // What mesos-docker-executor needs to run the task's container. The
    // container gets the task's own variables and the image's, never the
    // slave's (its PATH would hide the image's).
    for (std::string argument :
         {"--container=" + executor->dockerContainer, "--docker=" + flags_.docker,
          "--docker_socket=" + flags_.docker_socket,
          "--sandbox_directory=" + executor->directory,
          std::string("--mapped_directory=") + docker::kMappedSandbox,
          "--stop_timeout=" + mesos::flags::formatDuration(flags_.docker_stop_timeout),
          "--launcher_dir=" + flags_.launcher_dir}) {
      spec.command.add_arguments(std::move(argument));
    }
  }
  if (executor->customInDocker()) {
    // The executor is the container: its process here is `docker run`,
    // attached, so the container's output lands in the sandbox's files and
    // its end is this process's.
    auto run = dockerRunCommand(*executor, spec.environment);
    if (!run) return run.error();
    spec.command = std::move(run).value();
  }
  if (executor->image && !taskInRootfs) {
    // docker/runtime: the image's command and environment; what the
    // framework and the slave set wins.
    auto command = isolation::imageCommand(spec.command, *executor->image);
    if (!command) return command.error();
    spec.command = std::move(command).value();
    std::set<std::string> given;
    for (const auto& variable : info.command().environment().variables()) {
      given.insert(variable.name());
    }
    for (const auto& [name, value] : isolation::imageEnvironment(*executor->image)) {
      if (given.count(name) != 0 || name.rfind("MESOS_", 0) == 0 ||
          name.rfind("LIBPROCESS_", 0) == 0) {
        continue;
      }
      spec.environment[name] = value;
    }
  }
  mesos::isolation::ContainerConfig container;
  container.containerId = executor->containerId;
  container.frameworkId = executor->frameworkId;
  container.executor = info;
  for (const Volume& volume : executor->mountedVolumes) {
    *container.executor.mutable_container()->add_volumes() = volume;
  }
  // A Docker task's container is docker's (volumes, networking): the
  // isolators see only its executor.
  if (!executor->dockerContainer.empty()) container.executor.clear_container();
  container.directory = executor->directory;
  container.resources = executor->resources();
  container.user = spec.user;
  container.rootfs = executor->rootfs;
  container.executorInRootfs = !taskInRootfs;
  if (!taskInRootfs) container.image = executor->image;
  executor->launching = true;
  executor->launchedPid = std::make_shared<std::atomic<pid_t>>(-1);
  FrameworkID frameworkId = executor->frameworkId;
  ExecutorID executorId = info.executor_id();
  ContainerID containerId = executor->containerId;
  Resources launchedWith = container.resources;
  process::dispatch(containerizerActor_.pid(), &ContainerizerActor::launch, std::move(container),
                    std::move(spec), executor->launchedPid)
      .then(self(),
            [this, frameworkId, executorId, containerId, launchedWith](const Result<pid_t>& pid) {
              launched(frameworkId, executorId, containerId, launchedWith, pid);
            });
  return {};
}

void Slave::launched(FrameworkID frameworkId, ExecutorID executorId, ContainerID containerId,
                     Resources launchedWith, const Result<pid_t>& pid) {
  Framework* fw = framework(frameworkId.value());
  Executor* executor = fw == nullptr ? nullptr : fw->executor(executorId.value());
  if (executor == nullptr || executor->containerId.value() != containerId.value() ||
      !executor->launching) {
    // Not ours any more (the slave lets go of an executor only once it
    // ended, so this is not expected): what started goes.
    if (pid) {
      LOG(WARNING) << "Destroying container " << containerId.value() << " of executor "
                   << executorId.value() << ": it is no longer tracked";
      process::dispatch(containerizerActor_.pid(), &ContainerizerActor::destroy, containerId, *pid);
    }
    return;
  }
  executor->launching = false;
  if (!pid) {
    endBeforeStart(fw, executor, pid.error());
    return;
  }
  executor->osPid = *pid;
  checkpointForkedPid(*executor);
  LOG(INFO) << "Launched " << describeExecutor(*executor) << " as process " << *pid << " in "
            << executor->directory;
  process::Pid<Slave> me(self());
  Reaper::instance().watch(*pid, [me, frameworkId, executorId, containerId](int status) {
    process::dispatch(me, &Slave::executorExited, frameworkId, executorId, containerId, status);
  });
  if (executor->state == Executor::State::kTerminating) {
    // Shut down, timed out or past a limit while it was being launched.
    containerizer_->kill(executor->containerId, executor->osPid, SIGKILL);
    return;
  }
  // Tasks that came meanwhile grew the container.
  if (!(executor->resources() == launchedWith)) resized(*executor);
}

void Slave::fetched(FrameworkID frameworkId, ExecutorID executorId, ContainerID containerId,
                    const Result<process::Nothing>& result) {
  Framework* fw = framework(frameworkId.value());
  Executor* executor = fw == nullptr ? nullptr : fw->executor(executorId.value());
  if (executor == nullptr || executor->containerId.value() != containerId.value() ||
      !executor->fetching) {
    return;
  }
  executor->fetching = false;
  std::optional<Error> failure;
  if (!result) {
    failure = result.error();
  } else if (executor->state == Executor::State::kRegistering) {
    if (!executor->imageName.empty()) {
      provisionImage(executor);
      return;
    }
    if (auto started = startExecutor(executor, *fw); !started) failure = started.error();
  }
  if (!failure && executor->state == Executor::State::kRegistering) return;
  // Failed, or shut down or timed out while fetching: it ends here, and
  // its tasks with it.
  endBeforeStart(fw, executor, failure);
}

void Slave::pullDockerImage(Executor* executor) {
  executor->pulling = true;
  executor->pullPid = std::make_shared<std::atomic<pid_t>>(-1);
  const ContainerInfo::DockerInfo& docker = executor->info.container().docker();
  LOG(INFO) << "Looking up Docker image '" << docker.image() << "' for "
            << describeExecutor(*executor);
  process::Pid<Slave> me(self());
  FrameworkID frameworkId = executor->frameworkId;
  ExecutorID executorId = executor->info.executor_id();
  ContainerID containerId = executor->containerId;
  docker_->pull(docker.image(), docker.force_pull_image(), executor->pullPid,
                [me, frameworkId, executorId, containerId](std::optional<std::string> error) {
                  process::dispatch(me, &Slave::dockerPulled, frameworkId, executorId,
                                    containerId, std::move(error));
                });
}

void Slave::dockerPulled(FrameworkID frameworkId, ExecutorID executorId, ContainerID containerId,
                         std::optional<std::string> error) {
  Framework* fw = framework(frameworkId.value());
  Executor* executor = fw == nullptr ? nullptr : fw->executor(executorId.value());
  if (executor == nullptr || executor->containerId.value() != containerId.value() ||
      !executor->pulling) {
    return;
  }
  executor->pulling = false;
  executor->pullPid.reset();
  std::optional<Error> failure;
  if (error) {
    failure = Error{*error};
  } else if (executor->state == Executor::State::kRegistering) {
    executor->pulled = true;
    if (auto started = startExecutor(executor, *fw); !started) failure = started.error();
  }
  if (!failure && executor->state == Executor::State::kRegistering) return;
  // Failed, or shut down or timed out while pulling.
  endBeforeStart(fw, executor, failure);
}

Result<CommandInfo> Slave::dockerRunCommand(
    const Executor& executor, const std::map<std::string, std::string>& environment) const {
  docker::RunSpec run;
  run.name = executor.dockerContainer;
  run.container = executor.info.container();
  run.command = executor.info.command();
  run.command.clear_uris();
  run.resources = executor.resources();
  run.sandbox = executor.directory;
  // Its persistent volumes, in the sandbox as the container sees it.
  for (const Volume& volume : executor.mountedVolumes) {
    *run.container.add_volumes() = dockerVolume(volume);
  }
  // What lets the executor find and register with this slave, and the
  // operator's --executor_environment_variables; not the slave's own
  // variables (its PATH would hide the image's).
  for (const auto& [name, value] : environment) {
    if (name.starts_with("MESOS_") || name.starts_with("LIBPROCESS_") ||
        (flags_.executor_environment_variables && baseEnvironment_.count(name) != 0)) {
      run.environment[name] = value;
    }
  }
  run.environment["MESOS_DIRECTORY"] = docker::kMappedSandbox;
  // The token's value stays out of docker's arguments: docker takes it from
  // its own environment.
  if (run.environment.erase("MESOS_EXECUTOR_AUTHENTICATION_TOKEN") != 0) {
    run.passedVariables.push_back("MESOS_EXECUTOR_AUTHENTICATION_TOKEN");
  }
  if (run.container.docker().network() != ContainerInfo::DockerInfo::HOST) {
    // The slave's address is not the container's: the executor listens on
    // its own and advertises that (libprocess's default).
    run.environment.erase("LIBPROCESS_IP");
    run.environment.erase("LIBPROCESS_ADVERTISE_IP");
  }
  auto argv = docker::runArguments({flags_.docker, flags_.docker_socket}, run);
  if (!argv) return Error{"cannot run the executor's container: " + argv.error().message};
  CommandInfo command;
  command.set_shell(false);
  command.set_value(argv->front());
  for (const std::string& argument : *argv) command.add_arguments(argument);
  return command;
}

void Slave::endBeforeStart(Framework* fw, Executor* executor, const std::optional<Error>& failure) {
  if (failure) {
    LOG(ERROR) << "Cannot launch " << describeExecutor(*executor) << ": " << failure->message;
    if (!executor->killReason) {
      executor->killReason = TaskStatus::REASON_CONTAINER_LAUNCH_FAILED;
      executor->killMessage = failure->message;
    }
  }
  executorTerminated(fw, executor, -1);
}

void Slave::provisionImage(Executor* executor) {
  executor->provisioning = true;
  LOG(INFO) << "Provisioning image '" << executor->imageName << "' for "
            << describeExecutor(*executor);
  FrameworkID frameworkId = executor->frameworkId;
  ExecutorID executorId = executor->info.executor_id();
  ContainerID containerId = executor->containerId;
  const ContainerInfo& container = executor->info.container();
  const bool forcePull = container.mesos().has_image() && !container.mesos().image().cached();
  images_->provision(containerId.value(), executor->imageName, forcePull)
      .then(self(),
            [this, frameworkId, executorId, containerId](const Result<ProvisionedImage>& result) {
              provisioned(frameworkId, executorId, containerId, result);
            });
}

void Slave::provisioned(FrameworkID frameworkId, ExecutorID executorId, ContainerID containerId,
                        const Result<ProvisionedImage>& result) {
  Framework* fw = framework(frameworkId.value());
  Executor* executor = fw == nullptr ? nullptr : fw->executor(executorId.value());
  if (executor == nullptr || executor->containerId.value() != containerId.value() ||
      !executor->provisioning) {
    // Its executor is gone: so is what was made for it.
    images_->destroy(containerId.value());
    return;
  }
  executor->provisioning = false;
  std::optional<Error> failure;
  if (!result) {
    failure = result.error();
  } else if (executor->state == Executor::State::kRegistering) {
    LOG(INFO) << "Provisioned image '" << result->reference << "' ("
              << (result->cached ? "cached" : "pulled") << ") for " << describeExecutor(*executor)
              << " at " << result->rootfs;
    executor->rootfs = result->rootfs;
    const std::string isolation = "," + containerizer_->isolation() + ",";
    if (isolation.find(",docker/runtime,") != std::string::npos) executor->image = result->config;
    // A command task that cannot run in the image fails now, before its
    // executor starts.
    if (executor->commandExecutor) {
      for (const TaskInfo& task : executor->queuedTasks) {
        if (auto runnable = taskInImage(*fw, *executor, task, false); !runnable) {
          failure = runnable.error();
        }
      }
    }
    if (!failure) {
      if (auto started = startExecutor(executor, *fw); !started) failure = started.error();
    }
  }
  if (!failure && executor->state == Executor::State::kRegistering) return;
  // Failed, or shut down or timed out while provisioning: it ends here
  // (and its root filesystem, whatever was made of it, with it).
  endBeforeStart(fw, executor, failure);
}

Result<TaskInfo> Slave::taskInImage(const Framework& framework, const Executor& executor,
                                    TaskInfo task, bool write) const {
  CommandInfo command = task.command();
  if (executor.image) {
    auto merged = isolation::imageCommand(command, *executor.image);
    if (!merged) return Error{"task " + task.task_id().value() + ": " + merged.error().message};
    command = isolation::withImageEnvironment(std::move(merged).value(), *executor.image);
  } else if (!command.shell() && !command.has_value()) {
    return Error{"task " + task.task_id().value() +
                 " has no command to run (and docker/runtime, which would run the image's, is "
                 "not in --isolation)"};
  }
  // The launch helper, started by the executor (root), enters the root
  // filesystem the executor's own helper prepared, and becomes the task's
  // user.
  const std::string helper = launcherBinaryPath(flags_.launcher_dir, kLaunchHelper);
  std::vector<std::string> enter = {helper, "--chroot=" + executor.rootfs};
  if (executor.image && !executor.image->workingDir.empty()) {
    enter.push_back("--working_dir=" + executor.image->workingDir);
  }
  const std::string user = executorUser(framework, executor.info);
  if (!user.empty()) {
    enter.push_back("--user=" + user);
    enter.push_back("--no_new_privileges");
  } else if (executor.image && !executor.image->user.empty()) {
    enter.push_back("--image_user=" + executor.image->user);
  }
  enter.push_back("--");
  // The command's variables (the framework's, the image's) go through a
  // file only root reads, which the helper opens before anything else:
  // they never reach the helper's own environment while it runs as root
  // (LD_PRELOAD...).
  const std::string directory = images_->directory(executor.containerId.value());
  std::optional<Error> unwritten;
  auto wrap = [&](const CommandInfo& original, const std::string& name) {
    const std::string file = directory + "/" + name;
    if (write) {
      std::map<std::string, std::string> variables;
      for (const auto& variable : original.environment().variables()) {
        if (validVariable(variable.name(), variable.value())) {
          variables[variable.name()] = variable.value();
        }
      }
      const std::string text = encodeEnvironment(variables);
      int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
      bool whole =
          fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      int error = errno;
      if (fd >= 0) ::close(fd);
      if (!whole) unwritten = Error{"cannot write " + file + ": " + std::strerror(error)};
    }
    CommandInfo wrapped;
    wrapped.set_shell(false);
    wrapped.set_value(helper);
    for (const std::string& argument : enter) {
      if (argument == "--") wrapped.add_arguments("--environment_file=" + file);
      wrapped.add_arguments(argument);
    }
    if (original.shell()) {
      for (const char* argument : {"/bin/sh", "-c"}) wrapped.add_arguments(argument);
      wrapped.add_arguments(original.value());
    } else {
      wrapped.add_arguments(original.value());
      for (int i = 1; i < original.arguments_size(); ++i) {
        wrapped.add_arguments(original.arguments(i));
      }
    }
    *wrapped.mutable_uris() = original.uris();
    return wrapped;
  };
  *task.mutable_command() = wrap(command, "task.environment");
  if (task.has_health_check() && task.health_check().has_command()) {
    CommandInfo check = task.health_check().command();
    if (executor.image) check = isolation::withImageEnvironment(std::move(check), *executor.image);
    *task.mutable_health_check()->mutable_command() = wrap(check, "health_check.environment");
  }
  if (unwritten) return *unwritten;
  return task;
}

void Slave::releaseImage(const std::string& id, bool image) {
  if (!images_) return;
  if (!image && !images_->provisioned(id)) return;
  images_->destroy(id).then(self(), [id](const Result<process::Nothing>& destroyed) {
    if (!destroyed) {
      LOG(ERROR) << "Cannot remove the root filesystem of container " << id << ": "
                 << destroyed.error().message;
    } else {
      VLOG(1) << "Removed the root filesystem of container " << id;
    }
  });
}

std::map<std::string, std::string> Slave::executorEnvironment(const Framework& framework,
                                                              const Executor& executor) const {
  std::map<std::string, std::string> env = baseEnvironment_;
  // The slave's TLS settings: the executor talks to it over TLS too.
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    size_t eq = text.find('=');
    if (eq != std::string_view::npos && text.starts_with("LIBPROCESS_SSL_")) {
      env[std::string(text.substr(0, eq))] = std::string(text.substr(eq + 1));
    }
  }
  // The executor listens where the slave does and, when that is not what
  // the slave advertises, advertises the slave's address too.
  env["LIBPROCESS_IP"] = runtime().listenAddress().ipString();
  if (runtime().listenAddress().ip != self().address.ip) {
    env["LIBPROCESS_ADVERTISE_IP"] = self().address.ipString();
  }
  env["LIBPROCESS_PORT"] = "0";
  env["MESOS_SLAVE_PID"] = self().toString();
  env["MESOS_AGENT_PID"] = self().toString();
  env["MESOS_SLAVE_ID"] = info_.id().value();
  env["MESOS_AGENT_ID"] = info_.id().value();
  env["MESOS_FRAMEWORK_ID"] = framework.id.value();
  env["MESOS_EXECUTOR_ID"] = executor.info.executor_id().value();
  env["MESOS_CONTAINER_ID"] = executor.containerId.value();
  env["MESOS_DIRECTORY"] = executor.directory;
  env["MESOS_SANDBOX"] = executor.directory;
  env["MESOS_CHECKPOINT"] = framework.info.checkpoint() ? "1" : "0";
  env["MESOS_RECOVERY_TIMEOUT"] = mesos::flags::formatDuration(flags_.recovery_timeout);
  env["MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD"] =
      mesos::flags::formatDuration(flags_.executor_shutdown_grace_period);
  if (!executor.token.empty()) env["MESOS_EXECUTOR_AUTHENTICATION_TOKEN"] = executor.token;
  if (executor.info.command().has_environment()) {
    for (const auto& variable : executor.info.command().environment().variables()) {
      if (!validVariable(variable.name(), variable.value())) {
        LOG(WARNING) << "Leaving variable '" << variable.name() << "' out of the environment of "
                     << describeExecutor(executor)
                     << ": a name must be non-empty without '=', a value without NUL bytes";
        continue;
      }
      env[variable.name()] = variable.value();
    }
  }
  return env;
}

void Slave::sendTaskToExecutor(const Framework& framework, Executor* executor,
                               const TaskInfo& task) {
  RunTaskMessage message;
  *message.mutable_framework() = framework.info;
  setRunTaskFrameworkId(&message, framework.id);
  if (framework.pid) message.set_pid(framework.pid.toString());
  *message.mutable_task() = task;
  if (executor->commandExecutor && !executor->rootfs.empty()) {
    auto inImage = taskInImage(framework, *executor, task, true);
    if (inImage) {
      *message.mutable_task() = std::move(inImage).value();
    } else {
      // Checked before the executor started (provisioned()): never here.
      // The task must not run on the host's root instead.
      LOG(ERROR) << "Task " << task.task_id().value()
                 << " cannot run in its image: " << inImage.error().message;
      message.mutable_task()->mutable_command()->Clear();
      message.mutable_task()->mutable_command()->set_value("exit 127");
    }
  }
  if (executor->commandExecutor && !executor->dockerContainer.empty()) {
    // mesos-docker-executor mounts the task's persistent volumes with the
    // container's own (`docker run -v`), in the sandbox as it sees it.
    for (const Volume& volume : executor->mountedVolumes) {
      *message.mutable_task()->mutable_container()->add_volumes() = dockerVolume(volume);
    }
  }
  executor->launchedTasks[task.task_id().value()] = createTask(task, TASK_STAGING, framework.id);
  resized(*executor);
  VLOG(1) << "Sending task " << task.task_id().value() << " to " << describeExecutor(*executor);
  send(executor->pid, std::move(message));
}

void Slave::sendQueuedTasks(const Framework& framework, Executor* executor) {
  std::vector<TaskInfo> queued;
  queued.swap(executor->queuedTasks);
  std::map<std::string, uint64_t> groupOf;
  groupOf.swap(executor->queuedGroups);
  std::set<uint64_t> sent;
  for (const TaskInfo& task : queued) {
    auto group = groupOf.find(task.task_id().value());
    if (group == groupOf.end()) {
      sendTaskToExecutor(framework, executor, task);
      continue;
    }
    // A group goes whole, where its first task stood in the queue.
    if (!sent.insert(group->second).second) continue;
    std::vector<TaskInfo> members;
    for (const TaskInfo& other : queued) {
      auto it = groupOf.find(other.task_id().value());
      if (it != groupOf.end() && it->second == group->second) members.push_back(other);
    }
    sendTaskGroupToExecutor(framework, executor, members);
  }
}

void Slave::registerExecutor(const UPID& from, const RegisterExecutorMessage& message) {
  if (!wellFormed(from, message)) return;
  const std::string& frameworkId = message.framework_id().value();
  const std::string& executorId = message.executor_id().value();
  auto refuse = [&](const std::string& why) {
    LOG(WARNING) << "Shutting down executor " << executorId << " of framework " << frameworkId
                 << " at " << from << ": " << why;
    ShutdownExecutorMessage shutdown;
    *shutdown.mutable_executor_id() = message.executor_id();
    *shutdown.mutable_framework_id() = message.framework_id();
    send(from, std::move(shutdown));
  };

  Framework* fw = framework(frameworkId);
  if (fw == nullptr) return refuse("unknown framework");
  if (fw->terminating) return refuse("the framework is shutting down");
  Executor* executor = fw->executor(executorId);
  if (executor == nullptr) return refuse("unknown executor");
  if (executor->state != Executor::State::kRegistering) {
    return refuse("it is not waiting to register (already registered or shutting down)");
  }
  if (!provesExecutor(executor, from, "registration")) return;
  executor->presentsToken = !messageAuthorization().empty();

  executor->state = Executor::State::kRunning;
  executor->pid = from;
  if (executor->registrationTimer) cancel(*executor->registrationTimer);
  executor->registrationTimer.reset();
  LOG(INFO) << "Executor " << executorId << " of framework " << frameworkId
            << " registered from " << from;
  checkpointExecutorPid(*executor);

  ExecutorRegisteredMessage registered;
  *registered.mutable_executor_info() = executor->info;
  *registered.mutable_framework_id() = fw->id;
  *registered.mutable_framework_info() = fw->info;
  *registered.mutable_slave_id() = info_.id();
  *registered.mutable_slave_info() = info_;
  send(from, std::move(registered));

  sendQueuedTasks(*fw, executor);
  if (drainConfig_) drainExecutor(*fw, executor);
}

void Slave::reregisterExecutor(const UPID& from, const ReregisterExecutorMessage& message) {
  if (!wellFormed(from, message)) return;
  const std::string& frameworkId = message.framework_id().value();
  const std::string& executorId = message.executor_id().value();
  Framework* fw = framework(frameworkId);
  Executor* executor = fw == nullptr ? nullptr : fw->executor(executorId);
  // Only an executor this slave took over on recovery, and was waiting for,
  // re-registers: a running executor's pid is not up for grabs.
  if (executor != nullptr && !fw->terminating &&
      !(executor->recovered && executor->state == Executor::State::kRegistering) &&
      executor->state != Executor::State::kTerminating &&
      executor->state != Executor::State::kTerminated) {
    LOG(WARNING) << "Ignoring re-registration of executor " << executorId << " of framework "
                 << frameworkId << " from " << from << ": it is "
                 << (executor->recovered ? "already re-registered" : "not being recovered")
                 << " (its pid is " << executor->pid << ")";
    return;
  }
  if (executor == nullptr || fw->terminating ||
      executor->state == Executor::State::kTerminating ||
      executor->state == Executor::State::kTerminated) {
    LOG(WARNING) << "Shutting down re-registering executor " << executorId << " of framework "
                 << frameworkId << " at " << from << ": not known here (or shutting down)";
    ShutdownExecutorMessage shutdown;
    *shutdown.mutable_executor_id() = message.executor_id();
    *shutdown.mutable_framework_id() = message.framework_id();
    send(from, std::move(shutdown));
    return;
  }
  if (!provesExecutor(executor, from, "re-registration")) return;
  executor->presentsToken = !messageAuthorization().empty();
  bool changed = executor->pid != from;
  executor->pid = from;
  if (executor->state == Executor::State::kRegistering) {
    executor->state = Executor::State::kRunning;
    if (executor->registrationTimer) cancel(*executor->registrationTimer);
    executor->registrationTimer.reset();
  }
  LOG(INFO) << "Executor " << executorId << " of framework " << frameworkId
            << " re-registered from " << from;
  if (changed) checkpointExecutorPid(*executor);
  ExecutorReregisteredMessage reregistered;
  *reregistered.mutable_slave_id() = info_.id();
  *reregistered.mutable_slave_info() = info_;
  send(from, std::move(reregistered));

  if (executor->recovered) {
    // Updates the executor sent while the slave was away (or whose
    // acknowledgement it did not get): taken as if sent now; the status
    // update manager drops those it already holds.
    for (const StatusUpdate& update : message.updates()) {
      StatusUpdateMessage resent;
      *resent.mutable_update() = update;
      resent.set_pid(from.toString());
      statusUpdate(from, resent);
    }
    // A task checkpointed as launched that the executor does not know and
    // that has no update never reached it (the slave died on the way).
    std::set<std::string> known;
    for (const TaskInfo& task : message.tasks()) known.insert(task.task_id().value());
    for (const StatusUpdate& update : message.updates()) {
      known.insert(update.status().task_id().value());
    }
    std::vector<TaskID> lost;
    for (const auto& [taskId, task] : executor->launchedTasks) {
      if (task.state() == TASK_STAGING && task.statuses_size() == 0 && !known.count(taskId)) {
        lost.push_back(task.task_id());
      }
    }
    for (const TaskID& taskId : lost) {
      LOG(WARNING) << "Task " << taskId.value() << " never reached its executor " << executorId
                   << " before the slave restarted: TASK_LOST";
      sendSlaveUpdate(fw->id, &message.executor_id(), taskId, TASK_LOST,
                      TaskStatus::REASON_SLAVE_RESTARTED,
                      "Task was launched while the slave restarted and never reached its "
                      "executor");
    }
    resized(*executor);
  }

  sendQueuedTasks(*fw, executor);
  if (drainConfig_) drainExecutor(*fw, executor);
}

void Slave::killTask(const UPID& from, const KillTaskMessage& message) {
  if (!wellFormed(from, message) || !fromMaster(from, "KillTaskMessage")) return;
  kill(message);
}

void Slave::kill(const KillTaskMessage& message) {
  const std::string& taskId = message.task_id().value();
  Framework* fw = framework(message.framework_id().value());
  if (fw == nullptr) {
    LOG(WARNING) << "Ignoring kill of task " << taskId << ": framework "
                 << message.framework_id().value() << " has nothing on this slave";
    return;
  }
  Executor* executor = fw->executorOfTask(taskId);
  if (executor == nullptr) {
    LOG(WARNING) << "Kill of unknown task " << taskId << " of framework " << fw->id.value()
                 << ": TASK_LOST";
    sendSlaveUpdate(fw->id, nullptr, message.task_id(), TASK_LOST,
                    TaskStatus::REASON_TASK_UNKNOWN, "Cannot find the task on this slave");
    return;
  }

  for (auto it = executor->queuedTasks.begin(); it != executor->queuedTasks.end(); ++it) {
    if (it->task_id().value() != taskId) continue;
    // As Apache's slave does: a queued task of a group takes its whole
    // group with it (the group runs all or none).
    std::vector<TaskID> killed{message.task_id()};
    if (auto group = executor->queuedGroups.find(taskId); group != executor->queuedGroups.end()) {
      for (const auto& [other, number] : executor->queuedGroups) {
        if (number != group->second || other == taskId) continue;
        TaskID id;
        id.set_value(other);
        killed.push_back(id);
      }
    }
    ExecutorID executorId = executor->info.executor_id();
    for (const TaskID& id : killed) {
      LOG(INFO) << "Killing queued task " << id.value() << " of framework " << fw->id.value();
      executor->queuedGroups.erase(id.value());
      sendSlaveUpdate(fw->id, &executorId, id, TASK_KILLED, std::nullopt,
                      id.value() == taskId
                          ? "Task killed before it was given to its executor"
                          : "Task killed before it was given to its executor, with task '" +
                                taskId + "' of its group");
    }
    // A command executor exists only for its task, a default executor
    // for its groups.
    if ((executor->commandExecutor || executor->info.type() == ExecutorInfo::DEFAULT) &&
        executor->queuedTasks.empty() && executor->launchedTasks.empty()) {
      shutdownExecutor(fw, executor);
    }
    return;
  }

  if (executor->terminatedTasks.count(taskId) > 0) {
    LOG(INFO) << "Ignoring kill of task " << taskId << ": it has already ended";
    return;
  }
  if (executor->state != Executor::State::kRunning) {
    LOG(WARNING) << "Ignoring kill of task " << taskId << ": its " << describeExecutor(*executor)
                 << " is shutting down";
    return;
  }
  LOG(INFO) << "Asking " << describeExecutor(*executor) << " to kill task " << taskId;
  send(executor->pid, message);
}

void Slave::shutdownFramework(const UPID& from, const ShutdownFrameworkMessage& message) {
  if (!wellFormed(from, message) || !fromMaster(from, "ShutdownFrameworkMessage")) return;
  Framework* fw = framework(message.framework_id().value());
  if (fw == nullptr) {
    LOG(WARNING) << "Ignoring shutdown of framework " << message.framework_id().value()
                 << ": it has nothing on this slave";
    return;
  }
  LOG(INFO) << "Shutting down framework " << fw->id.value();
  // Written first, so that a slave restarted before its executors are gone
  // does not bring back what they still had to say.
  if (recovery_ && fw->info.checkpoint()) {
    for (auto& [id, executor] : fw->executors) {
      if (executor->metaPath.empty()) continue;
      checkpointFile(meta::shutDownPath(executor->metaPath), std::string(),
                     "the shutdown of framework " + fw->id.value());
    }
  }
  shutdownFrameworkNow(fw);
}

void Slave::shutdownFrameworkNow(Framework* fw) {
  fw->terminating = true;
  process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::cleanup, fw->id);
  std::vector<Executor*> executors;
  for (auto& [id, executor] : fw->executors) executors.push_back(executor.get());
  for (Executor* executor : executors) {
    if (executor->state == Executor::State::kTerminated) {
      removeExecutor(fw, executor);
    } else {
      shutdownExecutor(fw, executor);
    }
  }
  if (fw->executors.empty()) removeFramework(fw);
}

void Slave::shutdownExecutorMessage(const UPID& from, const ShutdownExecutorMessage& message) {
  if (!fromMaster(from, "ShutdownExecutorMessage")) return;
  if (!message.has_framework_id() || !message.has_executor_id()) {
    LOG(WARNING) << "Dropping ShutdownExecutorMessage from " << from
                 << ": it needs framework_id and executor_id";
    return;
  }
  Framework* fw = framework(message.framework_id().value());
  Executor* executor = fw == nullptr ? nullptr : fw->executor(message.executor_id().value());
  if (executor == nullptr) {
    LOG(WARNING) << "Ignoring shutdown of unknown executor " << message.executor_id().value()
                 << " of framework " << message.framework_id().value();
    return;
  }
  shutdownExecutor(fw, executor);
}

void Slave::shutdownExecutor(Framework* fw, Executor* executor) {
  if (executor->state == Executor::State::kTerminating ||
      executor->state == Executor::State::kTerminated) {
    return;
  }
  LOG(INFO) << "Shutting down " << describeExecutor(*executor);
  bool registered = executor->state == Executor::State::kRunning;
  executor->state = Executor::State::kTerminating;
  if (executor->registrationTimer) cancel(*executor->registrationTimer);
  executor->registrationTimer.reset();

  FrameworkID frameworkId = fw->id;
  ExecutorID executorId = executor->info.executor_id();
  ContainerID containerId = executor->containerId;
  auto grace = std::chrono::duration_cast<process::Duration>(flags_.executor_shutdown_grace_period);
  if (registered) {
    // First the executor's own shutdown, then SIGTERM, then SIGKILL.
    ShutdownExecutorMessage message;
    *message.mutable_executor_id() = executorId;
    *message.mutable_framework_id() = frameworkId;
    send(executor->pid, std::move(message));
    executor->shutdownTimer = delay(grace, [this, frameworkId, executorId, containerId] {
      signalExecutor(frameworkId, executorId, containerId, SIGTERM);
    });
  } else {
    signalExecutor(frameworkId, executorId, containerId, SIGTERM);
  }
}

void Slave::signalExecutor(FrameworkID frameworkId, ExecutorID executorId,
                           ContainerID containerId, int signal) {
  Framework* fw = framework(frameworkId.value());
  Executor* executor = fw == nullptr ? nullptr : fw->executor(executorId.value());
  if (executor == nullptr || executor->containerId.value() != containerId.value() ||
      executor->state == Executor::State::kTerminated) {
    return;
  }
  executor->shutdownTimer.reset();
  if (executor->fetching) {
    fetcher_->kill(containerId.value(), "the executor is shutting down");
    return;
  }
  if (executor->provisioning) {
    images_->kill(containerId.value(), "the executor is shutting down");
    return;
  }
  if (executor->pulling) {
    killPull(*executor);
    return;
  }
  if (executor->launching) return;  // launched() kills it
  LOG(INFO) << "Sending " << (signal == SIGKILL ? "SIGKILL" : "SIGTERM") << " to "
            << describeExecutor(*executor) << " (process group " << executor->osPid << ")";
  containerizer_->kill(executor->containerId, executor->osPid, signal);
  if (signal == SIGTERM) {
    auto grace =
        std::chrono::duration_cast<process::Duration>(flags_.executor_shutdown_grace_period);
    executor->shutdownTimer = delay(grace, [this, frameworkId, executorId, containerId] {
      signalExecutor(frameworkId, executorId, containerId, SIGKILL);
    });
  }
}

void Slave::destroyContainers(const std::vector<std::pair<ContainerID, pid_t>>& containers) {
  if (containers.empty()) return;
  using std::chrono::milliseconds;
  std::vector<pid_t> leaders;
  for (const auto& [id, pid] : containers) leaders.push_back(pid);

  // This waits on the actor's thread: the shutdown messages sent so far
  // must not wait behind it.
  process::Transport::WriteBatch::flushThread();
  LOG(INFO) << "Sending SIGTERM to the processes of " << containers.size() << " executor(s)";
  for (const auto& [id, pid] : containers) containerizer_->kill(id, pid, SIGTERM);
  auto grace = std::min<milliseconds>(
      std::chrono::duration_cast<milliseconds>(flags_.executor_shutdown_grace_period),
      std::chrono::duration_cast<milliseconds>(kTeardownGracePeriod));
  // The executors' exits are awaited (what they leave behind goes with
  // the containers' destroy, below).
  if (awaitExits(leaders, grace)) {
    for (const auto& [id, pid] : containers) containerizer_->destroy(id, pid);
    return;
  }
  LOG(WARNING) << "Executors outlived SIGTERM by " << grace.count() << "ms; sending SIGKILL";
  for (const auto& [id, pid] : containers) containerizer_->kill(id, pid, SIGKILL);
  if (!awaitExits(leaders, std::chrono::duration_cast<milliseconds>(kTeardownKillWait))) {
    LOG(ERROR) << "Executors' processes still run " << kTeardownKillWait.count()
               << "s after SIGKILL (stuck in the kernel?)";
  }
  for (const auto& [id, pid] : containers) containerizer_->destroy(id, pid);
}

void Slave::registrationTimeout(FrameworkID frameworkId, ExecutorID executorId,
                                ContainerID containerId) {
  Framework* fw = framework(frameworkId.value());
  Executor* executor = fw == nullptr ? nullptr : fw->executor(executorId.value());
  if (executor == nullptr || executor->containerId.value() != containerId.value()) return;
  executor->registrationTimer.reset();
  if (executor->state != Executor::State::kRegistering) return;
  // An executor taken over after a restart re-registers (within its own
  // timeout); a new one registers.
  const bool recovered = executor->recovered;
  const std::string why =
      recovered ? "did not re-register within " +
                      mesos::flags::formatDuration(flags_.executor_reregistration_timeout) +
                      " of the slave's restart"
                : "did not register within " +
                      mesos::flags::formatDuration(flags_.executor_registration_timeout);
  LOG(WARNING) << "Killing " << describeExecutor(*executor) << ": it " << why;
  executor->state = Executor::State::kTerminating;
  executor->killReason = recovered ? TaskStatus::REASON_EXECUTOR_REREGISTRATION_TIMEOUT
                                   : TaskStatus::REASON_EXECUTOR_REGISTRATION_TIMEOUT;
  executor->killMessage = "Executor " + why;
  if (executor->fetching) {
    fetcher_->kill(containerId.value(), "the executor registration timeout passed");
    return;
  }
  if (executor->provisioning) {
    images_->kill(containerId.value(), "the executor registration timeout passed");
    return;
  }
  if (executor->pulling) {
    killPull(*executor);
    return;
  }
  if (executor->launching) return;  // launched() kills it
  containerizer_->kill(executor->containerId, executor->osPid, SIGKILL);
}

void Slave::executorExited(FrameworkID frameworkId, ExecutorID executorId,
                           ContainerID containerId, int status) {
  Framework* fw = framework(frameworkId.value());
  Executor* executor = fw == nullptr ? nullptr : fw->executor(executorId.value());
  if (executor == nullptr || executor->containerId.value() != containerId.value()) {
    VLOG(1) << "Process of executor " << executorId.value() << " (container "
            << containerId.value() << ") exited; it is no longer tracked";
    return;
  }
  executorTerminated(fw, executor, status);
}

void Slave::resized(const Executor& executor) {
  if (executor.osPid <= 0 || executor.state == Executor::State::kTerminated) return;
  containerizer_->update(executor.containerId, executor.resources());
  // A custom executor's Docker container follows its tasks too, once it
  // runs (the executor registered from inside it): until then its queued
  // tasks are sent, and so resize it, at the registration.
  if (executor.customInDocker() && docker_ && executor.state == Executor::State::kRunning) {
    docker_->update(executor.dockerContainer, executor.resources());
  }
}

void Slave::containerLimited(mesos::isolation::ContainerLimitation limitation) {
  for (auto& [frameworkId, fw] : frameworks_) {
    for (auto& [executorId, executor] : fw->executors) {
      if (executor->containerId.value() != limitation.containerId.value()) continue;
      limitExecutor(executor.get(), limitation);
      return;
    }
  }
  VLOG(1) << "Container " << limitation.containerId.value()
          << " went past a limit but is no longer tracked: " << limitation.message;
}

void Slave::limitExecutor(Executor* executor,
                          const mesos::isolation::ContainerLimitation& limitation) {
  if (executor->state == Executor::State::kTerminated || executor->killReason) return;
  LOG(WARNING) << "Killing " << describeExecutor(*executor) << ": " << limitation.message;
  executor->state = Executor::State::kTerminating;
  executor->killReason = limitation.reason;
  executor->killMessage = limitation.message;
  if (executor->launching) return;  // launched() kills it
  containerizer_->kill(executor->containerId, executor->osPid, SIGKILL);
}

void Slave::executorTerminated(Framework* fw, Executor* executor, int status) {
  LOG(INFO) << describeExecutor(*executor) << " " << describeWaitStatus(status);
  // The kernel may have ended it for a limit before the news arrived.
  if (!executor->killReason) {
    if (auto limited = containerizer_->limitation(executor->containerId)) {
      executor->killReason = limited->reason;
      executor->killMessage = limited->message;
    }
  }
  // A custom executor's container that ended before the executor
  // registered with docker run's own failure (125: docker's, 126 and 127:
  // the command cannot run): its launch failed, in docker's words, which
  // are the last line of the sandbox's stderr.
  if (!executor->killReason && executor->customInDocker() &&
      executor->state == Executor::State::kRegistering && status >= 0 && WIFEXITED(status) &&
      WEXITSTATUS(status) >= 125 && WEXITSTATUS(status) <= 127) {
    const std::string why = lastLine(executor->directory + "/stderr");
    executor->killReason = TaskStatus::REASON_CONTAINER_LAUNCH_FAILED;
    executor->killMessage = "Failed to run the executor's Docker container " +
                            executor->dockerContainer + " (docker run exited with status " +
                            std::to_string(WEXITSTATUS(status)) + ")" +
                            (why.empty() ? "" : ": " + why);
  }
  // The container ends with its executor: what it left running goes too,
  // on the containerizer's actor (it may wait for cgroups to empty), and
  // then its root filesystem.
  const std::string containerId = executor->containerId.value();
  const bool image = !executor->rootfs.empty() || !executor->imageName.empty();
  process::dispatch(containerizerActor_.pid(), &ContainerizerActor::destroy, executor->containerId,
                    executor->osPid)
      .then(self(), [this, containerId, image, what = describeExecutor(*executor)](bool killed) {
        if (killed) LOG(INFO) << "Killed the processes " << what << " left running";
        releaseImage(containerId, image);
      });
  scheduleDockerRemoval(*executor);
  if (executor->registrationTimer) cancel(*executor->registrationTimer);
  executor->registrationTimer.reset();
  if (executor->shutdownTimer) cancel(*executor->shutdownTimer);
  executor->shutdownTimer.reset();
  executor->state = Executor::State::kTerminated;
  metrics_.executorsTerminated++;
  checkpointCompleted(*executor);

  if (!fw->terminating) {
    // Unfinished tasks: TASK_FAILED when the slave killed the executor or it
    // ran a command task, TASK_LOST otherwise (the framework may retry).
    TaskState state =
        executor->commandExecutor || executor->killReason ? TASK_FAILED : TASK_LOST;
    TaskStatus::Reason reason =
        executor->killReason.value_or(TaskStatus::REASON_EXECUTOR_TERMINATED);
    std::string message = executor->killMessage.empty()
                              ? "Executor " + describeWaitStatus(status)
                              : executor->killMessage;
    std::vector<TaskID> unfinished;
    for (const TaskInfo& task : executor->queuedTasks) unfinished.push_back(task.task_id());
    for (const auto& [id, task] : executor->launchedTasks) unfinished.push_back(task.task_id());
    ExecutorID executorId = executor->info.executor_id();
    for (const TaskID& taskId : unfinished) {
      sendSlaveUpdate(fw->id, &executorId, taskId, state, reason, message);
    }
  }

  // The master tracks only executors the framework named (not command ones).
  if (!executor->commandExecutor && master_) {
    ExitedExecutorMessage message;
    *message.mutable_slave_id() = info_.id();
    *message.mutable_framework_id() = fw->id;
    *message.mutable_executor_id() = executor->info.executor_id();
    message.set_status(status);
    send(*master_, std::move(message));
  }

  if (fw->terminating || !executor->incomplete()) removeExecutor(fw, executor);
  if (fw->executors.empty()) removeFramework(fw);
}

void Slave::scheduleDockerRemoval(const Executor& executor) {
  if (executor.dockerContainer.empty() || !docker_) return;
  const std::string name = executor.dockerContainer;
  auto removeDelay = std::chrono::duration_cast<process::Duration>(flags_.docker_remove_delay);
  LOG(INFO) << "Removing Docker container " << name << " in "
            << mesos::flags::formatDuration(flags_.docker_remove_delay);
  if (removeDelay <= process::Duration::zero()) {
    docker_->remove(name);
    return;
  }
  // A custom executor's container may outlive its `docker run` (killed by
  // the slave): it goes down now, and stays stopped until its removal.
  if (executor.customInDocker()) docker_->stop(name);
  delay(removeDelay, [this, name] { docker_->remove(name); });
}

void Slave::removeExecutor(Framework* fw, Executor* executor) {
  auto it = fw->executors.find(executor->info.executor_id().value());
  if (it == fw->executors.end() || it->second.get() != executor) return;
  VLOG(1) << "Removing " << describeExecutor(*executor);
  scheduleRemoval(*executor);
  fw->completedExecutors.push_back(std::move(it->second));
  fw->executors.erase(it);
  while (fw->completedExecutors.size() > kMaxCompletedExecutorsPerFramework) {
    if (files_) {
      process::dispatch(process::Pid<Files>(files_), &Files::detach,
                        fw->completedExecutors.front()->directory);
    }
    fw->completedExecutors.pop_front();
  }
}

void Slave::removeFramework(Framework* fw) {
  auto it = frameworks_.find(fw->id.value());
  if (it == frameworks_.end() || it->second.get() != fw) return;
  LOG(INFO) << "Removing framework " << fw->id.value();
  // Updates still in flight for a framework that merely ran out of executors
  // (a failed launch) must still reach the master.
  if (fw->terminating) {
    process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::cleanup, fw->id);
  }
  completedFrameworks_.push_back(std::move(it->second));
  frameworks_.erase(it);
  while (completedFrameworks_.size() > kMaxCompletedFrameworks) {
    if (files_) {
      for (const auto& executor : completedFrameworks_.front()->completedExecutors) {
        process::dispatch(process::Pid<Files>(files_), &Files::detach, executor->directory);
      }
    }
    completedFrameworks_.pop_front();
  }
  if (state_ == State::kTerminating && frameworks_.empty()) terminate();
  checkDrained();
}

void Slave::schedulerMessage(const UPID& from, const FrameworkToExecutorMessage& message) {
  if (!wellFormed(from, message)) {
    metrics_.invalidFrameworkMessages++;
    return;
  }
  Framework* fw = framework(message.framework_id().value());
  Executor* executor = fw == nullptr ? nullptr : fw->executor(message.executor_id().value());
  if (executor == nullptr) {
    LOG(WARNING) << "Dropping framework message for unknown executor "
                 << message.executor_id().value() << " of framework "
                 << message.framework_id().value();
    metrics_.invalidFrameworkMessages++;
    return;
  }
  if (executor->state != Executor::State::kRunning) {
    LOG(WARNING) << "Dropping framework message for " << describeExecutor(*executor)
                 << ": it is not registered and running";
    metrics_.invalidFrameworkMessages++;
    return;
  }
  metrics_.validFrameworkMessages++;
  send(executor->pid, message);
}

void Slave::executorMessage(const UPID& from, const ExecutorToFrameworkMessage& message) {
  if (!wellFormed(from, message)) {
    metrics_.invalidFrameworkMessages++;
    return;
  }
  Framework* fw = framework(message.framework_id().value());
  if (fw == nullptr) {
    LOG(WARNING) << "Dropping message from executor " << message.executor_id().value()
                 << " to unknown framework " << message.framework_id().value();
    metrics_.invalidFrameworkMessages++;
    return;
  }
  if (fw->terminating) {
    LOG(WARNING) << "Dropping message from executor " << message.executor_id().value()
                 << ": framework " << fw->id.value() << " is shutting down";
    metrics_.invalidFrameworkMessages++;
    return;
  }
  // Only the executor itself speaks in its name.
  Executor* executor = fw->executor(message.executor_id().value());
  if (executor == nullptr || executor->pid != from) {
    LOG(WARNING) << "Dropping message from " << from << " in the name of executor "
                 << message.executor_id().value() << " of framework " << fw->id.value() << ": "
                 << (executor == nullptr ? std::string("no such executor here")
                                         : "it is not that executor (" +
                                               (executor->pid ? executor->pid.toString()
                                                              : std::string("not registered")) +
                                               ")");
    metrics_.invalidFrameworkMessages++;
    return;
  }
  if (!provesExecutor(executor, from, "framework message")) {
    metrics_.invalidFrameworkMessages++;
    return;
  }
  metrics_.validFrameworkMessages++;
  ExecutorToFrameworkMessage out = message;
  *out.mutable_slave_id() = info_.id();
  // Straight to the scheduler when the master told us where it is.
  if (fw->pid) {
    send(fw->pid, std::move(out));
  } else if (master_) {
    send(*master_, std::move(out));
  }
}

}  // namespace mesos::internal::slave

namespace mesos::internal::slave {

void Slave::scheduleRemoval(const Executor& executor) {
  auto delay = std::chrono::duration_cast<process::Duration>(flags_.gc_delay);
  std::string directory = executor.directory;
  process::dispatch(gc_.pid(), &GarbageCollector::schedule, delay, directory)
      .then(self(), [this, directory](const process::Nothing&) { sandboxRemoved(directory); });
  if (!executor.metaPath.empty()) {
    std::string metaPath = executor.metaPath;
    process::dispatch(gc_.pid(), &GarbageCollector::schedule, delay, metaPath)
        .then(self(), [this, metaPath](const process::Nothing&) {
          forgetUnwrittenCheckpoints(metaPath);
        });
  }
}

void Slave::sandboxRemoved(const std::string& directory) {
  VLOG(1) << "Removed sandbox " << directory;
  if (files_) process::dispatch(process::Pid<Files>(files_), &Files::detach, directory);
  auto forget = [&](Framework& fw) {
    auto& done = fw.completedExecutors;
    done.erase(std::remove_if(done.begin(), done.end(),
                              [&](const std::unique_ptr<Executor>& executor) {
                                return executor->directory == directory;
                              }),
               done.end());
  };
  for (auto& [id, fw] : frameworks_) forget(*fw);
  for (auto& fw : completedFrameworks_) forget(*fw);
}

}  // namespace mesos::internal::slave

namespace mesos::internal::slave {

const std::string& Slave::tokenOf(Executor* executor) {
  if (executor->token.empty() && !executorSecretKey_.empty()) {
    executor->token = executorToken(executorSecretKey_, executor->frameworkId.value(),
                                    executor->info.executor_id().value(),
                                    executor->containerId.value());
  }
  return executor->token;
}

bool Slave::provesExecutor(Executor* executor, const process::UPID& from, const std::string& what) {
  const std::string& presented = messageAuthorization();
  std::string why;
  if (!presented.empty()) {
    if (carriesToken(presented, tokenOf(executor))) return true;
    why = "it carries a token that is not the executor's";
  } else if (flags_.authenticate_http_executors) {
    why = "it carries no token and --authenticate_http_executors is set";
  } else if (executor->presentsToken) {
    why = "it carries no token and the executor registered with its token";
  } else {
    return true;
  }
  LOG(WARNING) << "Dropping " << what << " from " << from << " in the name of "
               << describeExecutor(*executor) << ": " << why;
  return false;
}

}  // namespace mesos::internal::slave
