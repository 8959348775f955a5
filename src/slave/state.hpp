// What the slave knows about the frameworks and executors it runs. Plain data
// owned by the slave actor; only the slave touches it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mesos/isolator.hpp"
#include "mesos/resources.hpp"
#include "messages.pb.h"
#include "process/clock.hpp"
#include "process/upid.hpp"

namespace mesos::internal::slave {

struct Executor {
  enum class State {
    kRegistering,  // launched, waiting for RegisterExecutorMessage
    kRunning,      // registered; tasks go straight to it
    kTerminating,  // asked to shut down (or being killed)
    kTerminated,   // its process has been reaped
  };

  ExecutorInfo info;
  FrameworkID frameworkId;
  ContainerID containerId;
  std::string directory;  // the sandbox of this run
  bool commandExecutor = false;
  // A command executor running its task as a Docker container, or a
  // custom executor running in one (ExecutorInfo.container DOCKER): the
  // container's name (mesos-<container id>); empty otherwise.
  std::string dockerContainer;
  State state = State::kRegistering;
  process::UPID pid;  // once registered
  // What it presents with its messages (slave/executor_token.hpp): made at
  // launch or recovery; empty when the slave has no executor secret key.
  std::string token;
  // It registered (or re-registered) with its token, so every later message
  // in its name must carry it too.
  bool presentsToken = false;
  pid_t osPid = -1;
  // Why the slave is killing it, when it is; makes its tasks TASK_FAILED.
  std::optional<TaskStatus::Reason> killReason;
  std::string killMessage;

  std::vector<TaskInfo> queuedTasks;         // waiting for registration, in order
  // The queued tasks that came in a group, with their group's number (a
  // group is sent to the executor whole).
  std::map<std::string, uint64_t> queuedGroups;
  uint64_t nextGroup = 0;
  std::map<std::string, Task> launchedTasks;  // sent to the executor, not terminal
  // Reached a terminal state; the update is not yet acknowledged by the master.
  std::map<std::string, Task> terminatedTasks;
  std::deque<Task> completedTasks;           // terminal and acknowledged (bounded)

  std::optional<process::TimerId> registrationTimer;
  std::optional<process::TimerId> shutdownTimer;

  // Checkpointing (docs/recovery.md): this run's directory under
  // <work_dir>/meta, empty when the framework does not checkpoint.
  std::string metaPath;
  // Taken over from an earlier run of the slave: it re-registers
  // (ReregisterExecutorMessage) instead of registering.
  bool recovered = false;
  // Its CommandInfo.uris are being fetched; it has no process yet.
  bool fetching = false;
  // Its container is being launched (on the containerizer's actor): no
  // process to signal yet; a shutdown meanwhile kills it once launched.
  // `launchedPid` gets the pid as soon as it is known (a stopping slave
  // kills what its launches started).
  bool launching = false;
  std::shared_ptr<std::atomic<pid_t>> launchedPid;
  // Its container's image (images.hpp): the Docker image it names ("":
  // none), whether the image is being pulled and provisioned (no process
  // yet), and then the root filesystem on the host and the image's
  // configuration. A command executor runs its task in there.
  std::string imageName;
  bool provisioning = false;
  // A custom executor in a Docker container: its image is being looked up
  // or pulled (no process yet; `pullPid` is the docker program's, to kill
  // it), and then whether that is done.
  bool pulling = false;
  bool pulled = false;
  std::shared_ptr<std::atomic<pid_t>> pullPid;
  std::string rootfs;
  std::optional<mesos::isolation::ContainerConfig::Image> image;
  // With an image or in a Docker container, its persistent volumes are
  // bind mounts into the container (a symlink in the sandbox would point
  // outside the container's tree): host-path volumes (container paths
  // relative to the sandbox) added to its ContainerInfo at launch, or, for
  // a Docker task, to its task's container (`docker run -v`).
  std::vector<Volume> mountedVolumes;

  // Tasks the slave still has to see through (queued, running, or awaiting
  // the acknowledgement of their terminal update).
  bool incomplete() const {
    return !queuedTasks.empty() || !launchedTasks.empty() || !terminatedTasks.empty();
  }
  // A custom executor that runs as a Docker container of its own (the slave
  // runs `docker run` of its image; docs/docker-containerizer.md).
  bool customInDocker() const { return !commandExecutor && !dockerContainer.empty(); }
  // The executor's own resources plus its live tasks'.
  Resources resources() const;
  // Whether a task with this id is queued, launched or awaiting its last ack.
  bool hasTask(const std::string& taskId) const;
};

struct Framework {
  FrameworkInfo info;
  FrameworkID id;
  process::UPID pid;  // the scheduler, if the master told us
  bool terminating = false;
  std::map<std::string, std::unique_ptr<Executor>> executors;  // by executor id
  std::deque<std::unique_ptr<Executor>> completedExecutors;    // bounded

  Executor* executor(const std::string& executorId) const {
    auto it = executors.find(executorId);
    return it == executors.end() ? nullptr : it->second.get();
  }
  // The live executor that holds `taskId`, or nullptr.
  Executor* executorOfTask(const std::string& taskId) const;
};

}  // namespace mesos::internal::slave
