// The slave actor ("slave(N)"): registers this machine with the master,
// launches the frameworks' executors in per-run sandboxes, hands them their
// tasks, relays status updates (reliably, through the status update manager)
// and framework messages, and reports executors that exit.
//
// Handlers are grouped by file: slave.cpp (master, registration, health),
// executors.cpp (tasks and executor lifecycle), status_updates.cpp (the
// update path), http.cpp (/state, /health).
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "authentication/authentication.hpp"
#include "common/json.hpp"
#include "mesos/result.hpp"
#include "messages.pb.h"
#include "process/actor.hpp"
#include "process/runtime.hpp"
#include "slave/flags.hpp"
#include "slave/containerizer/containerizer.hpp"
#include "slave/containerizer/containerizer_actor.hpp"
#include "slave/monitor.hpp"
#include "slave/containerizer/launcher.hpp"
#include "slave/fetcher.hpp"
#include "slave/gc.hpp"
#include "slave/docker_containers.hpp"
#include "slave/images.hpp"
#include "slave/machine.hpp"
#include "slave/meta.hpp"
#include "slave/metrics.hpp"
#include "slave/state.hpp"
#include "slave/status_update_manager.hpp"
#include "zk/detector.hpp"

namespace mesos::internal::slave {

// The version the slave reports to the master (Apache masters refuse
// versions below 1.0.0).
extern const char* const kVersion;

struct SlaveOptions {
  // The master to register with; none: wait unregistered (or for the
  // detector's leader).
  std::optional<process::UPID> master;
  // Finds the leading master (ZooKeeper); wins over `master`. On every
  // change of leader the slave re-registers with the new one.
  std::shared_ptr<zk::MasterDetector> detector;
  // A Files actor to serve sandboxes through (see files.hpp); none: sandboxes
  // are not served.
  process::UPID files;
  // The launcher; none: PosixLauncher. The isolators come from --isolation.
  std::unique_ptr<Launcher> launcher;
  // Machine numbers to derive resources from; none: measured.
  std::optional<MachineFacts> machine;
  // Whether the slave takes part in recovery (docs/recovery.md): it
  // checkpoints, recovers what an earlier slave on its --work_dir left,
  // and leaves the executors of checkpointing frameworks running when it
  // stops without being told to shut down (Apache's behaviour, for a
  // restart or an upgrade). False: nothing is checkpointed or recovered,
  // and every executor ends with the slave (mesos-local, whose slaves
  // share one work directory and end with it).
  bool recovery = true;
  // The runtime's CORS policy, when the caller installed one
  // (Runtime::setCorsPolicy()): the slave adds to it the origins of the
  // master it registers with (slave/cors.hpp). None: nothing is added (in
  // mesos-local the web UI and the slaves share one origin).
  std::shared_ptr<process::http::AllowedOrigins> allowedOrigins;
  // What the slave does when the master refuses its --credential (wrong
  // secret, unknown principal): by default it logs and stays unregistered;
  // mesos-slave exits (as Apache Mesos's does), leaving executors running.
  std::function<void()> authenticationRefused;
};

class Slave : public process::Actor {
 public:
  // Checks the flags, resources and attributes and builds the slave (not yet
  // spawned). Fails with one line naming the bad flag. Measures the machine
  // unless options.machine is set (blocking briefly: not from an actor).
  static Result<std::unique_ptr<Slave>> create(const Flags& flags, SlaveOptions options);

  ~Slave() override;

  // The slave's /state document (see http.cpp). Call through dispatch().
  json::Value state() const { return stateFor(std::nullopt); }
  // The slave's /metrics/snapshot (see http.cpp). Call through dispatch().
  json::Object metrics() const;
  // This slave's SlaveInfo (id set once registered). Call through dispatch().
  SlaveInfo info() const { return info_; }
  // Status updates waiting for the master's acknowledgement.
  process::Future<size_t> pendingStatusUpdates() const;

 protected:
  void initialize() override;
  void finalize() override;
  void exited(const process::UPID& pid) override;

 private:
  enum class State { kDisconnected, kRunning, kTerminating };

  // What recovery found at start-up: the checkpoints, and the containers
  // whose executors still run (taken over) by container id.
  struct Recovered {
    meta::SlaveState state;
    std::map<std::string, pid_t> live;
  };

  Slave(const Flags& flags, SlaveOptions options, SlaveInfo info,
        std::unique_ptr<Containerizer> containerizer, std::shared_ptr<process::UPID> limitationTarget,
        std::optional<Recovered> recovered, Resources checkpointed);

  // recovery.cpp: checkpoints and recovery (docs/recovery.md).
  // At start-up, before the actor runs: reads the checkpoints of an earlier
  // run, checks them against `info` (the slave's id goes into it), and has
  // the containerizer keep the containers whose executors still run and
  // destroy the rest. --recover=cleanup kills them all and forgets the
  // earlier slave. Fails naming the file or the difference.
  static Result<std::optional<Recovered>> recoverCheckpoints(const Flags& flags, SlaveInfo* info,
                                                             Containerizer* containerizer);
  // On the actor, before registering: rebuilds the frameworks, executors
  // and tasks, reconnects the live executors, ends the dead ones, and
  // queues the unacknowledged status updates again.
  void recover();
  void recoverExecutor(Framework* framework, const meta::ExecutorState& state,
                       const std::map<std::string, pid_t>& live);
  // Writes the slave's info and id (once registered), a framework's info
  // and pid, an executor's info and run, a task, an executor's pid, the
  // end of a run; each a no-op for a framework that does not checkpoint.
  // A failure goes through checkpointed(): the slave goes on, less
  // recoverable.
  void checkpointSlave();
  void checkpointFramework(const Framework& framework);
  void checkpointExecutor(const Framework& framework, Executor* executor);
  void checkpointForkedPid(const Executor& executor);
  void checkpointTask(const Executor& executor, const Task& task);
  void checkpointExecutorPid(const Executor& executor);
  void checkpointCompleted(const Executor& executor);
  // Writes the whole file `path` (checkpoint::write) and reports to
  // checkpointed(); one that cannot be written is kept (the latest content
  // for each path) and written again every kCheckpointRetryInterval until
  // it is, unless written meanwhile or its run's checkpoints are collected.
  void checkpointFile(const std::string& path, const std::string& content,
                      const std::string& what);
  void checkpointFile(const std::string& path, const google::protobuf::Message& message,
                      const std::string& what);
  void rewriteCheckpoints();
  // Drops the files kept for rewriting below `directory` (removed).
  void forgetUnwrittenCheckpoints(const std::string& directory);
  // What came of writing a checkpoint (`what`: which one; an error names
  // the file and the cause): a failure is counted, and the slave is
  // unhealthy (/health) from it until nothing it could not write waits any
  // more (unwrittenFiles_, unwrittenRecords_). Logs when checkpoints start
  // failing and when all is written again, not at each failure.
  void checkpointed(const Result<void>& written, const std::string& what);
  // Healthy again (logged) once nothing waits for the disk any more.
  void caughtUp();
  // The same, from the status update manager: `unwritten` records of its
  // logs wait for the disk.
  void updatesCheckpointed(Result<void> written, size_t unwritten);
  // The log of a task's status update stream, or "" (not checkpointed).
  std::string updatesLog(const FrameworkID& frameworkId, const TaskID& taskId) const;

  // slave.cpp: the master.
  void registered(const process::UPID& from, const SlaveRegisteredMessage& message);
  void reregistered(const process::UPID& from, const SlaveReregisteredMessage& message);
  void ping(const process::UPID& from, const PingSlaveMessage& message);
  void shutdown(const process::UPID& from, const ShutdownMessage& message);
  void updateFramework(const process::UPID& from, const UpdateFrameworkMessage& message);
  void doReliableRegistration(process::Duration backoff);
  // Schedules the next doReliableRegistration() after a randomized backoff
  // that grows from `backoff`.
  void scheduleRegistration(process::Duration backoff);
  // Sends ReregisterSlaveMessage, each task with the update its framework
  // gets next (`heads`, from the status update manager).
  void sendReregistration(
      const std::map<std::pair<std::string, std::string>, StatusUpdateManager::Head>& heads);
  // The detector's next leader (none while no master leads).
  void detect();
  void detected(const std::optional<MasterInfo>& leader);
  void masterLost(const std::string& why);
  void armPingTimer();
  // --image_gc_config: every interval, collects the image store when its
  // file system is short of the headroom (mesos-provisioner gc, one at a
  // time, off this actor).
  void checkImageDiskUsage();
  bool fromMaster(const process::UPID& from, const char* what);

  // authentication.cpp: with --credential the slave authenticates with each
  // master (and after losing it) before it (re-)registers.
  void loadCredential();
  // Whether registration may go ahead now; otherwise authentication has
  // started (or is under way) and registers when it succeeds.
  bool readyToRegister();
  void authenticate(process::Duration minTimeout, process::Duration maxTimeout);
  void authenticated(uint64_t attempt, const authentication::Outcome& outcome);
  // The master changed or was lost: the next registration authenticates.
  void resetAuthentication();

  // checkpointed_resources.cpp: dynamic reservations and persistent volumes
  // (docs/persistent-volumes.md, slave/volumes.hpp).
  // At start-up, before the actor runs: what meta/resources/resources.info
  // holds, checked against the resources the slave was started with (in
  // `info`); their volumes' directories made where missing. Fails naming
  // the file and what is wrong.
  static Result<Resources> recoverCheckpointedResources(const Flags& flags, const SlaveInfo& info);
  // From the master: the slave's dynamic reservations and volumes, all of
  // them. Checkpointed (with recovery), new volumes made, destroyed ones
  // removed unless a live executor uses them. Ignored, logged, when invalid
  // or not within what the slave was started with.
  void checkpointResources(const process::UPID& from, const CheckpointResourcesMessage& message);
  // Whether a live executor (other than `except`) uses the volume (role and
  // persistence id) through its own or its tasks' resources.
  bool volumeInUse(const Resource& volume, const Executor* except) const;
  // Links each persistent volume of `resources` into the executor's sandbox
  // at its container path (slave/volumes.hpp), giving the volume's
  // directory to the executor's user when the slave runs as root and no
  // other executor uses it. Fails naming the volume: one this slave does
  // not hold, or a path that cannot be made.
  Result<void> linkVolumes(const Framework& framework, Executor& executor,
                           const Resources& resources);

  // executors.cpp: tasks and executors.
  void runTask(const process::UPID& from, const RunTaskMessage& message);
  void killTask(const process::UPID& from, const KillTaskMessage& message);
  // The kill itself (from the master, or for a drain).
  void kill(const KillTaskMessage& message);
  void shutdownFramework(const process::UPID& from, const ShutdownFrameworkMessage& message);
  void shutdownExecutorMessage(const process::UPID& from, const ShutdownExecutorMessage& message);
  void registerExecutor(const process::UPID& from, const RegisterExecutorMessage& message);
  void reregisterExecutor(const process::UPID& from, const ReregisterExecutorMessage& message);
  void schedulerMessage(const process::UPID& from, const FrameworkToExecutorMessage& message);
  void executorMessage(const process::UPID& from, const ExecutorToFrameworkMessage& message);

  // task_groups.cpp: RunTaskGroupMessage (LAUNCH_GROUP; docs/task-groups.md):
  // all tasks of the group to one executor, all or none.
  void runTaskGroup(const process::UPID& from, const RunTaskGroupMessage& message);
  // Sends the group's tasks (checkpointed, queued no more) to the running
  // executor in one RunTaskGroupMessage.
  void sendTaskGroupToExecutor(const Framework& framework, Executor* executor,
                               const std::vector<TaskInfo>& tasks);
  // A DEFAULT executor's ExecutorInfo with the command that runs ours
  // (mesos-default-executor in --launcher_dir).
  ExecutorInfo defaultExecutorInfo(ExecutorInfo info) const;

  // Why a task cannot run here (its update), if it cannot; a refusal
  // without a state sends none (the task is already here).
  struct Refusal {
    std::optional<TaskState> state;
    std::optional<TaskStatus::Reason> reason;
    std::string message;
  };
  std::optional<Refusal> refusal(const FrameworkID& frameworkId, const FrameworkInfo& frameworkInfo,
                                 const TaskInfo& task) const;
  void refuse(const FrameworkID& frameworkId, const std::vector<TaskID>& tasks,
              const Refusal& refusal);
  // The framework, added with `info` when new; its scheduler's pid is
  // updated from `pid` when given.
  Framework* frameworkFor(const FrameworkID& frameworkId, const FrameworkInfo& info,
                          const std::string& pid);
  // The executor `info` names, launched when not running yet, with the
  // persistent volumes in `taskResources` linked into its sandbox; nullptr
  // (each of `tasks` got its TASK_LOST or TASK_FAILED) when it is shutting
  // down, cannot be launched or its volumes cannot be linked.
  Executor* executorFor(Framework* framework, const ExecutorInfo& info, bool command,
                        const std::vector<TaskID>& tasks, const Resources& taskResources);
  // Sends what waited for the executor's registration: single tasks and
  // whole groups, in the order they came.
  void sendQueuedTasks(const Framework& framework, Executor* executor);

  // Why `task` cannot run on this slave's containerizers
  // (--containerizers), if it cannot: a DOCKER task, or a task whose
  // executor's container is DOCKER, needs docker, any other needs mesos.
  std::optional<Refusal> containerizerRefusal(const TaskInfo& task) const;
  // Removes a Docker task's or executor's container after
  // --docker_remove_delay (an executor's is stopped at once).
  void scheduleDockerRemoval(const Executor& executor);
  ExecutorInfo commandExecutorInfo(const FrameworkID& frameworkId, const TaskInfo& task) const;
  // Makes the executor's sandbox and starts it: at once, or once the
  // fetcher has put its CommandInfo.uris in the sandbox (fetched()).
  // Fails, naming the cause, when it cannot start at once (logged).
  // `firstTask`: the resources of the task it is launched for (its volumes
  // are linked before it starts).
  Result<Executor*> launchExecutor(Framework* framework, const ExecutorInfo& info,
                                  bool commandExecutor, const Resources& firstTask);
  // The user the executor runs as: its CommandInfo.user, else the
  // framework's, when --switch_user and the slave runs as root; "" to run
  // as the slave's user.
  std::string executorUser(const Framework& framework, const ExecutorInfo& info) const;
  // Starts launching the executor's process in its container, on the
  // containerizer's actor (launched() continues). Fails, naming the cause,
  // when the launch cannot even be asked for.
  Result<void> startExecutor(Executor* executor, const Framework& framework);
  // The containerizer's launch is done: the executor runs (and is killed at
  // once when it was shut down meanwhile), or it ends as endBeforeStart()
  // says. `launchedWith`: the resources the container was given.
  void launched(FrameworkID frameworkId, ExecutorID executorId, ContainerID containerId,
                Resources launchedWith, const Result<pid_t>& pid);
  // images.hpp: pulls and provisions the executor's image (it has one),
  // then starts it (provisioned()).
  void provisionImage(Executor* executor);
  void provisioned(FrameworkID frameworkId, ExecutorID executorId, ContainerID containerId,
                   const Result<ProvisionedImage>& result);
  // What a command task with an image runs, as its executor gets it: its
  // command (and COMMAND health check) run by the launch helper in the
  // container's root filesystem, as the image's runtime says, with their
  // environments in files beside the root filesystem (written when
  // `write`).
  Result<TaskInfo> taskInImage(const Framework& framework, const Executor& executor, TaskInfo task,
                               bool write) const;
  // An executor that never started (its fetch or image failed, or it was
  // shut down meanwhile) ends; a failure makes its tasks
  // REASON_CONTAINER_LAUNCH_FAILED with the failure's message.
  void endBeforeStart(Framework* fw, Executor* executor, const std::optional<Error>& failure);
  // Its executor has ended: its root filesystem goes too (`image`: the
  // container had one, or was getting one).
  void releaseImage(const std::string& containerId, bool image);
  void fetched(FrameworkID frameworkId, ExecutorID executorId, ContainerID containerId,
               const Result<process::Nothing>& result);
  // A custom executor in a Docker container: its image is looked up, and
  // pulled when the daemon lacks it (or force_pull_image says so), off this
  // actor; then it starts (dockerPulled()). `error`: why the pull failed.
  void pullDockerImage(Executor* executor);
  void dockerPulled(FrameworkID frameworkId, ExecutorID executorId, ContainerID containerId,
                    std::optional<std::string> error);
  // The `docker run` that runs such an executor: its image with the
  // executor's CommandInfo, the sandbox at /mnt/mesos/sandbox, the
  // executor's MESOS_* and LIBPROCESS_* variables from `environment`, and
  // the limits of its resources.
  Result<CommandInfo> dockerRunCommand(const Executor& executor,
                                       const std::map<std::string, std::string>& environment) const;
  std::map<std::string, std::string> executorEnvironment(const Framework& framework,
                                                         const Executor& executor) const;
  void sendTaskToExecutor(const Framework& framework, Executor* executor, const TaskInfo& task);
  void shutdownFrameworkNow(Framework* framework);
  void shutdownExecutor(Framework* framework, Executor* executor);
  void signalExecutor(FrameworkID frameworkId, ExecutorID executorId, ContainerID containerId,
                      int signal);
  void registrationTimeout(FrameworkID frameworkId, ExecutorID executorId,
                           ContainerID containerId);
  void executorExited(FrameworkID frameworkId, ExecutorID executorId, ContainerID containerId,
                      int status);
  void executorTerminated(Framework* framework, Executor* executor, int status);
  // From an isolator (any thread, through dispatch): the container went
  // past a limit. Kills it; its unfinished tasks fail with the reason.
  void containerLimited(mesos::isolation::ContainerLimitation limitation);
  // Kills the executor's container for `limitation`, which becomes the
  // reason of its tasks' failure; once (a later limit changes nothing).
  void limitExecutor(Executor* executor, const mesos::isolation::ContainerLimitation& limitation);
  // The executor's tasks changed: its container is resized to match.
  void resized(const Executor& executor);
  // At teardown (finalize()): SIGTERM to every process of these containers
  // (executors' pids), SIGKILL when an executor has not exited after a
  // short grace, then each container's destroy. Waits on the executors'
  // exits (pidfds), for at most kTeardownGracePeriod plus kTeardownKillWait.
  void destroyContainers(const std::vector<std::pair<ContainerID, pid_t>>& containers);
  void removeExecutor(Framework* framework, Executor* executor);
  // The executor's run is over: its sandbox (and checkpoints) go after
  // --gc_delay, sooner as the disk fills up; then /files and /state forget it.
  void scheduleRemoval(const Executor& executor);
  void sandboxRemoved(const std::string& directory);
  void removeFramework(Framework* framework);
  Framework* framework(const std::string& frameworkId) const;

  // Whether the message being handled, in `executor`'s name, carries its
  // token when it must (docs/security.md, "Executors"): always when it
  // carries one at all; when it carries none, only if the slave does not
  // demand tokens (--authenticate_http_executors) and the executor never
  // presented its own. Warns naming `from` and the executor when not.
  bool provesExecutor(Executor* executor, const process::UPID& from, const std::string& what);
  // The executor's token, made the first time it is asked for.
  const std::string& tokenOf(Executor* executor);

  // draining.cpp: DrainSlaveMessage (docs/draining.md). The config is
  // checkpointed (meta::drainConfigPath) so that a restarted slave drains
  // on; every task is killed, with at most max_grace_period between the
  // kill and the forced end; new tasks are refused (TASK_DROPPED, or
  // TASK_LOST for frameworks that are not partition-aware, with
  // REASON_SLAVE_DRAINING) until no framework has anything here any more.
  void drain(const process::UPID& from, const DrainSlaveMessage& message);
  void startDrain(const DrainConfig& config);
  // Kills the executor's tasks for the drain (also once it (re-)registers:
  // an executor not yet registered takes no kill).
  void drainExecutor(Framework& framework, Executor* executor);
  // An executor's KILLING and KILLED updates during a drain carry
  // REASON_SLAVE_DRAINING (TASK_GONE_BY_OPERATOR with mark_gone, for
  // partition-aware frameworks), as Apache's agent says them.
  void markDrainUpdate(const Framework& framework, TaskStatus* status) const;
  // Nothing of frameworks is left: the drain is over, its checkpoint gone.
  void checkDrained();
  std::optional<DrainConfig> drainConfig_;

  // status_updates.cpp: the update path.
  void statusUpdate(const process::UPID& from, const StatusUpdateMessage& message);
  void statusUpdateAcknowledgement(const process::UPID& from,
                                   const StatusUpdateAcknowledgementMessage& message);
  void acknowledged(const FrameworkID& frameworkId, const TaskID& taskId, const Result<bool>& result);
  // Sends a slave-generated update (TASK_LOST, TASK_KILLED...) reliably.
  void sendSlaveUpdate(const FrameworkID& frameworkId, const ExecutorID* executorId,
                       const TaskID& taskId, TaskState state, std::optional<TaskStatus::Reason> reason,
                       const std::string& message);
  void recordTaskState(Executor* executor, const TaskStatus& status);
  void forwardStatusUpdate(StatusUpdate update);

  // Counts a task that just reached `state` here (terminal states only).
  void countTerminalTask(TaskState state);

  // http.cpp: /state (also state.json), /flags, /version, /metrics/snapshot
  // and /health, at /slave(N)/<name> and, when the runtime delegates to this
  // slave (mesos-slave), at /<name>.
  void installRoutes();
  // Lets the web UI of the master this slave is registered with read its
  // endpoints (SlaveOptions::allowedOrigins).
  void allowMasterOrigins();
  // The /state document as `principal` may see it: the frameworks,
  // executors and tasks view_* rules show it, and the flags with
  // view_flags (everything without --acls).
  json::Value stateFor(const std::optional<std::string>& principal) const;
  // --authenticate_http_* and --acls (authentication/http/endpoint_guard.hpp).
  std::shared_ptr<authentication::EndpointGuard> guard_;
  process::Future<process::http::Response> stateEndpoint(const process::http::Request& request);
  process::Future<process::http::Response> flagsEndpoint(const process::http::Request& request);
  process::Future<process::http::Response> versionEndpoint(const process::http::Request& request);
  process::Future<process::http::Response> metricsEndpoint(const process::http::Request& request);
  process::Future<process::http::Response> healthEndpoint(const process::http::Request& request);
  process::Future<process::http::Response> monitorEndpoint(const process::http::Request& request);

  Flags flags_;
  // What every executor's environment starts from (environment.hpp).
  const std::map<std::string, std::string> baseEnvironment_;
  std::string executorSecretKey_;  // signs executor tokens; empty if it cannot be had
  std::optional<process::UPID> master_;
  std::shared_ptr<zk::MasterDetector> detector_;
  std::optional<MasterInfo> detected_;  // the leader as last detected
  std::shared_ptr<process::http::AllowedOrigins> allowedOrigins_;
  process::UPID files_;
  // Shared with the monitor, which measures containers off this actor.
  std::shared_ptr<Containerizer> containerizer_;
  // Where the isolators' limitation callback dispatches to: this actor, once
  // it is spawned (set in initialize()).
  std::shared_ptr<process::UPID> limitationTarget_;
  // What the slave was started with (--resources): the master applies the
  // checkpointed resources to it.
  SlaveInfo info_;
  // The dynamic reservations and persistent volumes the master last sent
  // (resources.info), and info_'s resources with them applied: what /state
  // shows.
  Resources checkpointedResources_;
  Resources totalResources_;
  State state_ = State::kDisconnected;
  double startTime_ = 0;  // seconds since the epoch

  process::Spawned<StatusUpdateManager> statusUpdateManager_;
  process::Spawned<Monitor> monitor_;
  process::Spawned<ContainerizerActor> containerizerActor_;
  process::Spawned<GarbageCollector> gc_;
  std::unique_ptr<Fetcher> fetcher_;
  // With --image_providers (made and recovered by create()).
  std::unique_ptr<Images> images_;
  // With --image_gc_config and --image_providers.
  std::optional<ImageGcConfig> imageGc_;
  bool imageGcRunning_ = false;
  // Set when --containerizers names docker.
  std::unique_ptr<DockerContainers> docker_;

  std::optional<process::TimerId> registrationTimer_;
  std::optional<process::TimerId> pingTimer_;

  std::optional<Credential> credential_;
  std::unique_ptr<authentication::Authenticatee> authenticatee_;
  std::function<void()> authenticationRefused_;
  bool authenticated_ = false;  // with master_, since it was last found or lost
  authentication::AttemptActors authenticatees_;
  process::UPID authenticating_;  // the attempt under way (in authenticatees_)
  uint64_t authenticationAttempt_ = 0;
  std::optional<process::TimerId> authenticationTimer_;
  std::optional<process::Duration> pingTimeout_;

  Metrics metrics_;
  // While checkpoints that could not be written wait: why the first failed.
  std::optional<std::string> checkpointFailure_;
  struct UnwrittenFile {
    std::string content;
    std::string what;
  };
  std::map<std::string, UnwrittenFile> unwrittenFiles_;  // by path
  size_t unwrittenRecords_ = 0;  // in the status update manager's logs
  std::optional<process::TimerId> checkpointRetryTimer_;

  const bool recovery_;  // SlaveOptions::recovery
  std::optional<Recovered> recovered_;  // until recover() has used it

  std::map<std::string, std::unique_ptr<Framework>> frameworks_;
  std::deque<std::unique_ptr<Framework>> completedFrameworks_;
};

}  // namespace mesos::internal::slave
