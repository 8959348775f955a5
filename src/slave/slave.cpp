// The slave actor: construction, the handler table, and everything about the
// master (registration with backoff, re-registration, health checks).
#include "slave/slave.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <set>

#include <glog/logging.h>

#include "common/operations.hpp"
#include "slave/containerizer/isolators/isolators.hpp"
#include "process/dispatch.hpp"
#include "slave/constants.hpp"
#include "slave/environment.hpp"
#include "slave/files.hpp"
#include "slave/executor_token.hpp"
#include "slave/paths.hpp"
#include "slave/protobufs.hpp"

#ifndef MESOS_VERSION
#define MESOS_VERSION "1.0.0"
#endif

namespace mesos::internal::slave {

using process::UPID;

const char* const kVersion = MESOS_VERSION;

Result<std::unique_ptr<Slave>> Slave::create(const Flags& flags, SlaveOptions options) {
  if (auto valid = flags.validate(); !valid) return valid.error();

  MachineFacts facts = options.machine ? *options.machine : measureMachine(flags.work_dir);
  auto resources = slaveResources(flags.resources, facts, flags.default_role);
  if (!resources) return resources.error();

  SlaveInfo info;
  if (flags.hostname && !flags.hostname->empty()) {
    info.set_hostname(*flags.hostname);
  } else {
    char name[256] = {};
    info.set_hostname(::gethostname(name, sizeof(name) - 1) == 0 ? name : "localhost");
  }
  *info.mutable_resources() = resources->proto();
  if (flags.attributes) {
    auto attributes = parseAttributes(*flags.attributes);
    if (!attributes) return attributes.error();
    *info.mutable_attributes() = *attributes;
  }
  info.set_checkpoint(true);  // checkpointing frameworks are recovered (docs/recovery.md)

  if (!options.launcher) options.launcher = std::make_unique<PosixLauncher>();
  auto limitationTarget = std::make_shared<process::UPID>();
  isolation::IsolationOptions isolation;
  isolation.isolation = flags.isolation;
  isolation.cgroupsHierarchy = flags.cgroups_hierarchy;
  isolation.cgroupsRoot = flags.cgroups_root;
  isolation.cgroupsEnableCfs = flags.cgroups_enable_cfs;
  isolation.cgroupsLimitSwap = flags.cgroups_limit_swap;
  isolation.containerDiskWatchInterval =
      std::chrono::duration_cast<std::chrono::milliseconds>(flags.container_disk_watch_interval);
  isolation.enforceContainerDiskQuota = flags.enforce_container_disk_quota;
  isolation.workDir = flags.work_dir;
  isolation.xfsProjectRange = flags.xfs_project_range;
  isolation.networkCniConfigDir = flags.network_cni_config_dir;
  isolation.networkCniPluginsDir = flags.network_cni_plugins_dir;
  if (flags.network_cni_root_dir_persist) {
    isolation.networkCniRootDir = flags.work_dir + "/isolators/network/cni";
  }
  isolation.onLimitation = [limitationTarget](const mesos::isolation::ContainerLimitation& l) {
    process::dispatch(process::Pid<Slave>(*limitationTarget), &Slave::containerLimited, l);
  };
  auto isolators = isolation::createIsolators(isolation);
  if (!isolators) return isolators.error();
  auto containerizer = std::make_unique<Containerizer>(
      std::move(options.launcher), std::move(isolators).value(),
      launcherBinaryPath(flags.launcher_dir, kLaunchHelper));
  // Reservations and volumes outlive the slave's id: read even when no
  // earlier slave is recovered, and first, so that a damaged file stops the
  // slave before any container is touched.
  Resources checkpointed;
  if (options.recovery) {
    auto read = recoverCheckpointedResources(flags, info);
    if (!read) return read.error();
    checkpointed = std::move(read).value();
  }
  // The executors an earlier run left are taken over (or killed); the
  // isolators destroy what they find of the rest.
  Result<std::optional<Recovered>> recovered = std::optional<Recovered>();
  if (options.recovery) {
    recovered = recoverCheckpoints(flags, &info, containerizer.get());
  } else if (auto destroyed = containerizer->recover({}); !destroyed) {
    recovered = Error{"--isolation: " + destroyed.error().message};
  }
  if (!recovered) return recovered.error();
  std::unique_ptr<Images> images;
  if (flags.image_providers) {
    images =
        std::make_unique<Images>(launcherBinaryPath(flags.launcher_dir, kProvisionerHelper), flags);
    // The root filesystems of the containers not kept go.
    std::set<std::string> keep;
    if (*recovered) {
      for (const auto& [id, pid] : (*recovered)->live) keep.insert(id);
    }
    if (auto cleaned = images->recover(keep); !cleaned) {
      return Error{"--image_providers: " + cleaned.error().message};
    }
  }
  if (info.has_id()) {
    // Cached files are not checked against their URIs: a new run of the
    // slave fetches them again.
    if (auto cleared = clearFetcherCache(fetcherCacheDirectory(flags.fetcher_cache_dir, info.id()));
        !cleared) {
      LOG(WARNING) << "Cannot clear the fetcher cache: " << cleared.error().message;
    }
  }
  std::unique_ptr<Slave> slave(new Slave(flags, std::move(options), std::move(info),
                                         std::move(containerizer), std::move(limitationTarget),
                                         std::move(recovered).value(), std::move(checkpointed)));
  slave->images_ = std::move(images);
  const std::vector<std::string> containerizers = flags.containerizerList();
  if (std::find(containerizers.begin(), containerizers.end(), "docker") != containerizers.end()) {
    slave->docker_ =
        std::make_unique<DockerContainers>(docker::Endpoint{flags.docker, flags.docker_socket});
    if (flags.docker_kill_orphans) {
      // The containers of the executors taken over stay; the rest an
      // earlier run left go.
      std::set<std::string> keep;
      if (slave->recovered_) {
        for (const auto& [id, pid] : slave->recovered_->live) keep.insert(id);
      }
      slave->docker_->removeOrphans(std::move(keep));
    }
  }
  return slave;
}

namespace {

// The master by id and address only: a UPID copied from a local actor
// carries a shortcut to that actor's cell, which would outlive a master
// restarted under the same id.
std::optional<UPID> plainPid(const std::optional<UPID>& pid) {
  if (!pid) return std::nullopt;
  return UPID(pid->id, pid->address);
}

}  // namespace

Slave::Slave(const Flags& flags, SlaveOptions options, SlaveInfo info,
             std::unique_ptr<Containerizer> containerizer,
             std::shared_ptr<process::UPID> limitationTarget,
             std::optional<Recovered> recovered, Resources checkpointed)
    : Actor(process::generateId("slave")),
      flags_(flags),
      baseEnvironment_(baseEnvironment(flags.executor_environment_variables)),
      master_(plainPid(options.master)),
      detector_(std::move(options.detector)),
      allowedOrigins_(std::move(options.allowedOrigins)),
      files_(std::move(options.files)),
      containerizer_(std::move(containerizer)),
      limitationTarget_(std::move(limitationTarget)),
      info_(std::move(info)),
      checkpointedResources_(std::move(checkpointed)),
      recovery_(options.recovery),
      recovered_(std::move(recovered)) {
  auto guard = flags_.security.guard(authentication::Daemon::kAgent);
  CHECK(guard) << guard.error().message;
  guard_ = std::move(guard).value();
  authenticationRefused_ = std::move(options.authenticationRefused);
  // create() checked that they apply.
  auto total = operations::applyCheckpointed(Resources(info_.resources()), checkpointedResources_);
  totalResources_ = total ? *total : Resources(info_.resources());
}

Slave::~Slave() = default;

void Slave::initialize() {
  *limitationTarget_ = self();
  on(&Slave::registered);
  on(&Slave::reregistered);
  on(&Slave::ping);
  on(&Slave::shutdown);
  on(&Slave::updateFramework);
  on(&Slave::checkpointResources);

  on(&Slave::runTask);
  on(&Slave::runTaskGroup);
  on(&Slave::killTask);
  on(&Slave::drain);
  on(&Slave::shutdownFramework);
  on(&Slave::shutdownExecutorMessage);
  on(&Slave::registerExecutor);
  on(&Slave::reregisterExecutor);
  on(&Slave::schedulerMessage);
  on(&Slave::executorMessage);

  on(&Slave::statusUpdate);
  on(&Slave::statusUpdateAcknowledgement);

  installRoutes();
  if (files_) {
    process::dispatch(process::Pid<Files>(files_), &Files::setGuard,
                      std::shared_ptr<const authentication::EndpointGuard>(guard_));
  }
  loadCredential();

  startTime_ = wallTime();
  info_.set_port(self().address.port);

  process::Pid<Slave> me(self());
  statusUpdateManager_ = runtime().spawn<StatusUpdateManager>(
      [me](const StatusUpdate& update) {
        process::dispatch(me, &Slave::forwardStatusUpdate, update);
      },
      [me](const Result<void>& written, size_t unwritten) {
        process::dispatch(me, &Slave::updatesCheckpointed, written, unwritten);
      });
  monitor_ = runtime().spawn<Monitor>(
      containerizer_,
      docker_ ? std::optional<docker::Endpoint>(docker_->endpoint()) : std::nullopt);
  containerizerActor_ = runtime().spawn<ContainerizerActor>(containerizer_);
  gc_ = runtime().spawn<GarbageCollector>();
  fetcher_ = std::make_unique<Fetcher>(launcherBinaryPath(flags_.launcher_dir, kFetcherHelper),
                                       runtime().clock());
  process::dispatch(gc_.pid(), &GarbageCollector::watchDisk, flags_.work_dir,
                    std::chrono::duration_cast<process::Duration>(flags_.disk_watch_interval),
                    std::chrono::duration_cast<process::Duration>(flags_.gc_delay),
                    flags_.gc_disk_headroom);
  if (auto key = loadExecutorSecretKey(flags_.executor_secret_key.value_or(""), flags_.work_dir)) {
    executorSecretKey_ = std::move(*key);
  } else {
    LOG(ERROR) << "Executors get no token: " << key.error().message
               << (flags_.authenticate_http_executors
                       ? "; with --authenticate_http_executors none can register"
                       : "");
  }
  if (flags_.image_gc_config) {
    const std::vector<std::string> containerizers = flags_.containerizerList();
    auto config = parseImageGcConfig(*flags_.image_gc_config);  // validate() checked it
    if (!images_ ||
        std::find(containerizers.begin(), containerizers.end(), "mesos") == containerizers.end()) {
      LOG(WARNING) << "--image_gc_config is ignored: image garbage collection needs "
                      "--image_providers and the mesos containerizer";
    } else if (config) {
      imageGc_ = std::move(config).value();
      delay(std::chrono::duration_cast<process::Duration>(imageGc_->interval),
            [this] { checkImageDiskUsage(); });
    }
  }
  recover();

  LOG(INFO) << "Slave " << self() << " started on " << info_.hostname() << " with resources "
            << totalResources_.toString() << "; work directory " << flags_.work_dir;

  if (detector_) {
    master_.reset();
    LOG(INFO) << "Looking for the leading master";
    detect();
    return;
  }
  if (!master_) {
    LOG(WARNING) << "No master given (--master); the slave stays unregistered";
    return;
  }
  doReliableRegistration(process::Duration::zero());
}

void Slave::checkImageDiskUsage() {
  delay(std::chrono::duration_cast<process::Duration>(imageGc_->interval),
        [this] { checkImageDiskUsage(); });
  double usage = 0;
  auto needed = needsImageGc(flags_.docker_store_dir, imageGc_->headroom, &usage);
  if (!needed) {
    LOG(WARNING) << "Image garbage collection: " << needed.error().message;
    return;
  }
  if (!*needed) {
    VLOG(1) << "The image store's file system is " << usage * 100.0 << "% used: no image gc";
    return;
  }
  if (imageGcRunning_) {
    LOG(INFO) << "The image store's file system is " << usage * 100.0
              << "% used; an image garbage collection is running already";
    return;
  }
  LOG(INFO) << "The image store's file system is " << usage * 100.0 << "% used, more than "
            << (1.0 - imageGc_->headroom) * 100.0 << "% (--image_gc_config's image_disk_headroom "
            << imageGc_->headroom << "): collecting unused images in " << flags_.docker_store_dir;
  imageGcRunning_ = true;
  images_->gc(imageGc_->excludedImages).then(self(), [this](const Result<ImageGcReport>& report) {
    imageGcRunning_ = false;
    if (!report) {
      LOG(ERROR) << "Image garbage collection failed: " << report.error().message;
      return;
    }
    std::string names;
    for (const std::string& image : report->images) names += (names.empty() ? "" : ", ") + image;
    LOG(INFO) << "Image garbage collection removed " << report->images.size() << " image(s)"
              << (names.empty() ? "" : " (" + names + ")") << " and " << report->layers.size()
              << " layer(s), freeing " << report->bytesFreed << " bytes";
  });
}

void Slave::detect() {
  detector_->detect(detected_).then(self(), [this](const std::optional<MasterInfo>& leader) {
    detected(leader);
  });
}

// A new leader (or none): everything goes to it from now on, and this
// slave re-registers with it after a random wait in [0,
// --registration_backoff_factor], so that a cluster's slaves do not all
// arrive in the same instant.
void Slave::detected(const std::optional<MasterInfo>& leader) {
  detected_ = leader;
  detect();
  if (state_ == State::kTerminating) return;
  std::optional<UPID> pid;
  if (leader) {
    auto parsed = zk::masterPid(*leader);
    if (parsed) {
      pid = *parsed;
    } else {
      LOG(WARNING) << "Ignoring " << parsed.error().message;
    }
  }
  if (pid && master_ && *pid == *master_) return;
  LOG(INFO) << (pid ? "New leading master detected at " + pid->toString()
                    : std::string("No leading master; waiting for one"));
  bool wasRunning = state_ == State::kRunning;
  master_ = pid;
  state_ = State::kDisconnected;
  resetAuthentication();
  if (pingTimer_) cancel(*pingTimer_);
  pingTimer_.reset();
  if (registrationTimer_) cancel(*registrationTimer_);
  registrationTimer_.reset();
  if (wasRunning) process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::pause);
  if (!master_) return;
  static thread_local std::mt19937_64 random{std::random_device{}()};
  auto factor =
      std::chrono::duration_cast<process::Duration>(flags_.registration_backoff_factor);
  std::uniform_int_distribution<int64_t> pick(0, factor.count());
  registrationTimer_ = delay(process::Duration(pick(random)), [this] {
    registrationTimer_.reset();
    doReliableRegistration(process::Duration::zero());
  });
}

void Slave::finalize() {
  // Executors and everything they started do not outlive a stopped slave:
  // nothing would reap them or report their tasks, and without checkpointing
  // no later slave can take them over. A checkpointing framework's do, for
  // the next slave on this work directory, unless the master shut this one
  // down.
  std::vector<std::pair<ContainerID, pid_t>> containers;
  for (auto& [frameworkId, framework] : frameworks_) {
    if (framework->info.checkpoint() && recovery_ &&
        state_ != State::kTerminating) {
      LOG(INFO) << "Leaving the executors of checkpointing framework " << frameworkId
                << " running, for the next slave to take over";
      continue;
    }
    for (auto& [executorId, executor] : framework->executors) {
      if (executor->state == Executor::State::kTerminated) continue;
      if (executor->pid) {
        ShutdownExecutorMessage message;
        *message.mutable_executor_id() = executor->info.executor_id();
        *message.mutable_framework_id() = framework->id;
        send(executor->pid, message);
      }
      if (executor->osPid > 0) containers.emplace_back(executor->containerId, executor->osPid);
    }
  }
  // Launches under way finish first; what they started never ran a task and
  // was never checkpointed, so it goes whatever the framework.
  containerizerActor_.reset();
  for (auto& [frameworkId, framework] : frameworks_) {
    for (auto& [executorId, executor] : framework->executors) {
      if (!executor->launching || !executor->launchedPid) continue;
      if (pid_t pid = executor->launchedPid->load(); pid > 0) {
        containers.emplace_back(executor->containerId, pid);
      }
    }
  }
  destroyContainers(containers);
  fetcher_.reset();  // kills the fetches still running
  statusUpdateManager_.reset();
  monitor_.reset();
  gc_.reset();
  LOG(INFO) << "Slave " << self() << " stopped";
}

bool Slave::fromMaster(const UPID& from, const char* what) {
  if (master_ && from == *master_) return true;
  // A master reached at one of this machine's addresses (say 127.0.0.1)
  // answers from the one it advertises (say the host's): adopt it when the
  // actor and port match and both addresses are this machine's. A master
  // elsewhere is followed only at the address the detector gave: anyone
  // can listen on the master's port on another host.
  if (master_ && from.id == master_->id && from.address.port == master_->address.port &&
      state_ == State::kDisconnected &&
      runtime().speaksFor(master_->address.ip, from.address.ip)) {
    LOG(INFO) << "Master " << *master_ << " answers as " << from << "; using that address";
    master_ = plainPid(from);
    link(*master_);
    return true;
  }
  LOG(WARNING) << "Ignoring " << what << " from " << from << ": it is not the master ("
               << (master_ ? master_->toString() : std::string("none")) << ")";
  return false;
}

void Slave::doReliableRegistration(process::Duration backoff) {
  if (registrationTimer_) {
    cancel(*registrationTimer_);
    registrationTimer_.reset();
  }
  if (!master_ || state_ != State::kDisconnected) return;
  if (!readyToRegister()) {
    // Authenticating first. Should the master go away meanwhile (it is not
    // up yet), the next try waits for this timer, not for nothing.
    scheduleRegistration(backoff);
    return;
  }

  link(*master_);
  if (!info_.has_id()) {
    RegisterSlaveMessage message;
    *message.mutable_slave() = info_;
    message.set_version(kVersion);
    *message.mutable_agent_capabilities() = agentCapabilities();
    *message.mutable_checkpointed_resources() = checkpointedResources_.proto();
    send(*master_, std::move(message));
  } else {
    // The updates each task's framework gets next, from the status update
    // manager: an update made while no master was there was never
    // forwarded, and the master must not answer a reconciliation with a
    // later state than the one on its way.
    StatusUpdateManager* manager = statusUpdateManager_.get();
    process::dispatch(statusUpdateManager_.pid(), [manager] { return manager->heads(); })
        .then(self(), [this, master = *master_](
                          const std::map<std::pair<std::string, std::string>,
                                         StatusUpdateManager::Head>& heads) {
          if (master_ != master || state_ != State::kDisconnected) return;
          sendReregistration(heads);
        });
  }
  scheduleRegistration(backoff);
}

void Slave::sendReregistration(
    const std::map<std::pair<std::string, std::string>, StatusUpdateManager::Head>& heads) {
  {
    ReregisterSlaveMessage message;
    *message.mutable_slave() = info_;
    message.set_version(kVersion);
    *message.mutable_agent_capabilities() = agentCapabilities();
    *message.mutable_checkpointed_resources() = checkpointedResources_.proto();
    auto withHead = [&heads](Task task) {
      auto it = heads.find({task.framework_id().value(), task.task_id().value()});
      if (it != heads.end()) {
        task.set_status_update_state(it->second.state);
        task.set_status_update_uuid(it->second.uuid);
      }
      return task;
    };
    for (const auto& [frameworkId, framework] : frameworks_) {
      *message.add_frameworks() = framework->info;
      for (const auto& [executorId, executor] : framework->executors) {
        // A terminated executor holds only tasks whose terminal update is
        // not acknowledged yet: the master must know them until it is (a
        // reconciliation meanwhile would answer TASK_LOST or TASK_GONE,
        // and the update would follow it). The executor itself uses
        // nothing any more.
        for (const auto& [taskId, task] : executor->terminatedTasks) {
          *message.add_tasks() = withHead(task);
        }
        if (executor->state == Executor::State::kTerminated) continue;
        if (!executor->commandExecutor) *message.add_executor_infos() = executor->info;
        for (const TaskInfo& task : executor->queuedTasks) {
          *message.add_tasks() = createTask(task, TASK_STAGING, framework->id);
        }
        for (const auto& [taskId, task] : executor->launchedTasks) {
          *message.add_tasks() = withHead(task);
        }
      }
    }
    send(*master_, std::move(message));
  }
}

void Slave::scheduleRegistration(process::Duration backoff) {
  // Next attempt after a random wait in [bound/2, bound]; the bound starts at
  // --registration_backoff_factor and doubles up to a minute.
  process::Duration bound =
      backoff == process::Duration::zero()
          ? std::chrono::duration_cast<process::Duration>(flags_.registration_backoff_factor)
          : std::min<process::Duration>(backoff * 2, kRegistrationBackoffMax);
  static thread_local std::mt19937_64 random{std::random_device{}()};
  std::uniform_int_distribution<int64_t> pick(bound.count() / 2, bound.count());
  process::Duration wait(pick(random));
  registrationTimer_ = delay(wait, [this, bound] {
    registrationTimer_.reset();
    doReliableRegistration(bound);
  });
}

void Slave::registered(const UPID& from, const SlaveRegisteredMessage& message) {
  if (!wellFormed(from, message) || !fromMaster(from, "SlaveRegisteredMessage")) return;
  switch (state_) {
    case State::kDisconnected:
      if (info_.has_id() && info_.id().value() != message.slave_id().value()) {
        LOG(WARNING) << "Master " << from << " registered this slave anew as "
                     << message.slave_id().value() << " (was " << info_.id().value() << ")";
      }
      *info_.mutable_id() = message.slave_id();
      state_ = State::kRunning;
      if (registrationTimer_) cancel(*registrationTimer_);
      registrationTimer_.reset();
      LOG(INFO) << "Registered with master " << from << "; given slave ID "
                << message.slave_id().value();
      checkpointSlave();
      if (message.has_connection() && message.connection().has_total_ping_timeout_seconds()) {
        pingTimeout_ = std::chrono::duration_cast<process::Duration>(std::chrono::duration<double>(
            message.connection().total_ping_timeout_seconds()));
      }
      armPingTimer();
      allowMasterOrigins();
      process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::resume);
      break;
    case State::kRunning:
      if (message.slave_id().value() != info_.id().value()) {
        LOG(ERROR) << "Ignoring registration as " << message.slave_id().value()
                   << ": already registered as " << info_.id().value();
      }
      break;
    case State::kTerminating:
      LOG(WARNING) << "Ignoring registration: the slave is shutting down";
      break;
  }
}

void Slave::reregistered(const UPID& from, const SlaveReregisteredMessage& message) {
  if (!wellFormed(from, message) || !fromMaster(from, "SlaveReregisteredMessage")) return;
  if (info_.has_id() && message.slave_id().value() != info_.id().value()) {
    LOG(ERROR) << "Ignoring re-registration as " << message.slave_id().value()
               << ": this slave is " << info_.id().value();
    return;
  }
  if (state_ == State::kTerminating) {
    LOG(WARNING) << "Ignoring re-registration: the slave is shutting down";
    return;
  }
  if (state_ == State::kRunning) {
    LOG(INFO) << "Already re-registered with master " << from;
    return;
  }
  state_ = State::kRunning;
  if (registrationTimer_) cancel(*registrationTimer_);
  registrationTimer_.reset();
  LOG(INFO) << "Re-registered with master " << from;
  if (message.has_connection() && message.connection().has_total_ping_timeout_seconds()) {
    pingTimeout_ = std::chrono::duration_cast<process::Duration>(
        std::chrono::duration<double>(message.connection().total_ping_timeout_seconds()));
  }
  armPingTimer();
  allowMasterOrigins();

  // Tasks the master believes are here but this slave does not know never
  // ran here (a launch that reached the master, not the slave): TASK_DROPPED
  // for a partition-aware framework (the master names the framework), else
  // TASK_LOST, as Apache Mesos answers.
  for (const ReconcileTasksMessage& reconcile : message.reconciliations()) {
    Framework* fw = framework(reconcile.framework_id().value());
    bool aware = false;
    for (const auto& capability : reconcile.framework().capabilities()) {
      aware = aware || capability.type() == FrameworkInfo::Capability::PARTITION_AWARE;
    }
    const TaskState state = aware ? TASK_DROPPED : TASK_LOST;
    for (const TaskStatus& status : reconcile.statuses()) {
      if (fw != nullptr && fw->executorOfTask(status.task_id().value()) != nullptr) continue;
      LOG(WARNING) << "Master knows task " << status.task_id().value() << " of framework "
                   << reconcile.framework_id().value() << " but this slave does not: "
                   << TaskState_Name(state);
      sendSlaveUpdate(reconcile.framework_id(), nullptr, status.task_id(), state,
                      TaskStatus::REASON_RECONCILIATION, "Task is unknown to the slave");
    }
  }
  process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::resume);
}

void Slave::ping(const UPID& from, const PingSlaveMessage& message) {
  send(from, PongSlaveMessage());
  if (!master_ || from != *master_) return;
  armPingTimer();
  if (message.has_connected() && !message.connected() && state_ == State::kRunning) {
    masterLost("the master considers this slave disconnected");
  }
}

void Slave::armPingTimer() {
  if (pingTimer_) cancel(*pingTimer_);
  pingTimer_.reset();
  if (!pingTimeout_ || state_ != State::kRunning) return;
  pingTimer_ = delay(*pingTimeout_, [this] {
    pingTimer_.reset();
    if (state_ == State::kRunning) masterLost("no ping from the master in time");
  });
}

void Slave::masterLost(const std::string& why) {
  if (state_ == State::kTerminating) return;
  bool wasRunning = state_ == State::kRunning;
  state_ = State::kDisconnected;
  if (pingTimer_) cancel(*pingTimer_);
  pingTimer_.reset();
  process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::pause);
  // A master that restarted at the same address knows no principals.
  resetAuthentication();
  if (wasRunning) {
    LOG(WARNING) << "Lost the master " << (master_ ? master_->toString() : "") << " (" << why
                 << "); re-registering";
  }
  // An attempt already scheduled keeps its backoff.
  if (!registrationTimer_) doReliableRegistration(process::Duration::zero());
}

void Slave::exited(const UPID& pid) {
  if (authenticatees_.stopped(pid)) return;
  if (master_ && pid == *master_) {
    masterLost("connection closed");
    return;
  }
  VLOG(1) << "Linked process " << pid << " exited";
}

void Slave::shutdown(const UPID& from, const ShutdownMessage& message) {
  if (!fromMaster(from, "ShutdownMessage")) return;
  LOG(INFO) << "Slave asked to shut down by " << from
            << (message.has_message() ? ": " + message.message() : std::string());
  state_ = State::kTerminating;
  if (registrationTimer_) cancel(*registrationTimer_);
  registrationTimer_.reset();
  std::vector<Framework*> all;
  for (auto& [id, framework] : frameworks_) all.push_back(framework.get());
  for (Framework* framework : all) shutdownFrameworkNow(framework);
  if (frameworks_.empty()) terminate();
}

void Slave::updateFramework(const UPID& from, const UpdateFrameworkMessage& message) {
  // Only the master says where a scheduler is and what its FrameworkInfo
  // (its user...) is now.
  if (!wellFormed(from, message) || !fromMaster(from, "UpdateFrameworkMessage")) return;
  Framework* fw = framework(message.framework_id().value());
  if (fw == nullptr) {
    LOG(WARNING) << "Ignoring UpdateFrameworkMessage for unknown framework "
                 << message.framework_id().value();
    return;
  }
  if (message.has_pid() && !message.pid().empty()) {
    auto pid = UPID::parse(message.pid());
    if (!pid) {
      LOG(WARNING) << "Ignoring UpdateFrameworkMessage: " << pid.error().message;
      return;
    }
    fw->pid = *pid;
  } else {
    fw->pid = UPID();
  }
  LOG(INFO) << "Framework " << fw->id.value() << "'s scheduler is now "
            << (fw->pid ? fw->pid.toString() : "reached through the master");
  // Its FrameworkInfo after UPDATE_FRAMEWORK (a master older than Apache's
  // 1.3 sends none). The master refuses changes of id, user and
  // checkpoint; one that names another framework or changes them is not
  // taken here either.
  if (message.has_framework_info()) {
    const FrameworkInfo& info = message.framework_info();
    if (info.has_id() && info.id().value() != fw->id.value()) {
      LOG(WARNING) << "Ignoring the FrameworkInfo of UpdateFrameworkMessage for framework "
                   << fw->id.value() << ": it is framework " << info.id().value() << "'s";
    } else if (info.checkpoint() != fw->info.checkpoint() || info.user() != fw->info.user()) {
      LOG(WARNING) << "Ignoring the FrameworkInfo of UpdateFrameworkMessage for framework "
                   << fw->id.value() << ": it changes 'checkpoint' or 'user'";
    } else {
      fw->info = info;
      *fw->info.mutable_id() = fw->id;
    }
  }
  checkpointFramework(*fw);
  // The scheduler is back (a failover of it or of the master): updates it
  // has not acknowledged go again now rather than at their next retry.
  if (state_ == State::kRunning) {
    process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::resume);
  }
}

process::Future<size_t> Slave::pendingStatusUpdates() const {
  return process::dispatch(statusUpdateManager_.pid(), &StatusUpdateManager::pending);
}

}  // namespace mesos::internal::slave
