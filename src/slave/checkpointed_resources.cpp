// Dynamic reservations and persistent volumes on the slave
// (docs/persistent-volumes.md): what the master tells the slave to
// checkpoint (CheckpointResourcesMessage, the whole set each time), the
// volumes' directories made and removed to match, and volumes linked into
// the sandboxes of the executors whose resources hold them.
#include <unistd.h>

#include <glog/logging.h>

#include "common/operations.hpp"
#include "slave/protobufs.hpp"
#include "slave/slave.hpp"
#include "slave/volumes.hpp"

namespace mesos::internal::slave {

using process::UPID;

namespace {

std::string describeVolume(const Resource& volume) {
  return "volume '" + volume.disk().persistence().id() + "' of role " + volume.role();
}

}  // namespace

Result<Resources> Slave::recoverCheckpointedResources(const Flags& flags, const SlaveInfo& info) {
  const std::string path = volumes::resourcesInfoPath(flags.work_dir);
  auto checkpointed = volumes::readCheckpointed(flags.work_dir);
  if (!checkpointed) {
    return Error{"Cannot recover the checkpointed resources: " + checkpointed.error().message +
                 "; the master's reservations and volumes for this slave are in it: repair or "
                 "remove it (removing forgets them)"};
  }
  if (checkpointed->empty()) return Resources();
  auto total = operations::applyCheckpointed(Resources(info.resources()), *checkpointed);
  if (!total) {
    return Error{"The checkpointed resources in " + path + " do not fit --resources: " +
                 total.error().message};
  }
  for (const auto& [key, volume] : volumes::byKey(*checkpointed)) {
    std::string directory = volumes::volumePath(flags.work_dir, volume);
    if (::access(directory.c_str(), F_OK) == 0) continue;
    LOG(WARNING) << "The " << describeVolume(volume) << " has no directory; making an empty "
                 << directory;
    if (auto made = volumes::createVolume(directory); !made) return made.error();
  }
  LOG(INFO) << "Recovered the checkpointed resources " << checkpointed->toString();
  return std::move(checkpointed).value();
}

void Slave::checkpointResources(const UPID& from, const CheckpointResourcesMessage& message) {
  if (!wellFormed(from, message) || !fromMaster(from, "CheckpointResourcesMessage")) return;
  if (auto valid = Resources::validate(message.resources()); !valid) {
    LOG(ERROR) << "Ignoring CheckpointResourcesMessage from " << from
               << ": invalid resources: " << valid.error().message;
    return;
  }
  for (const Resource& resource : message.resources()) {
    if (!Resources::isPersistentVolume(resource)) continue;
    if (auto valid = volumes::validateVolume(resource); !valid) {
      LOG(ERROR) << "Ignoring CheckpointResourcesMessage from " << from << ": "
                 << valid.error().message;
      return;
    }
  }
  Resources checkpointed(message.resources());
  auto total = operations::applyCheckpointed(Resources(info_.resources()), checkpointed);
  if (!total) {
    LOG(ERROR) << "Ignoring CheckpointResourcesMessage from " << from << ": "
               << total.error().message;
    return;
  }
  if (checkpointed == checkpointedResources_) return;

  const auto before = volumes::byKey(checkpointedResources_);
  const auto after = volumes::byKey(checkpointed);
  checkpointedResources_ = checkpointed;
  totalResources_ = std::move(total).value();
  LOG(INFO) << "Checkpointing the resources " << checkpointedResources_.toString();
  if (recovery_) {
    CheckpointResourcesMessage stored;
    *stored.mutable_resources() = checkpointedResources_.proto();
    checkpointFile(volumes::resourcesInfoPath(flags_.work_dir), stored,
                   "the checkpointed resources");
  }

  for (const auto& [key, volume] : after) {
    if (before.count(key) != 0) continue;
    std::string directory = volumes::volumePath(flags_.work_dir, volume);
    if (auto made = volumes::createVolume(directory); !made) {
      // A task using it fails at launch, naming it (linkVolumes()).
      LOG(ERROR) << "Cannot create the " << describeVolume(volume) << ": "
                 << made.error().message;
      continue;
    }
    LOG(INFO) << "Created the " << describeVolume(volume) << " at " << directory;
  }
  for (const auto& [key, volume] : before) {
    if (after.count(key) != 0) continue;
    std::string directory = volumes::volumePath(flags_.work_dir, volume);
    if (volumeInUse(volume, nullptr)) {
      LOG(WARNING) << "The " << describeVolume(volume) << " was destroyed while an executor "
                   << "uses it; keeping " << directory;
      continue;
    }
    if (auto removed = volumes::removeVolume(directory); !removed) {
      LOG(ERROR) << "Cannot remove the destroyed " << describeVolume(volume) << ": "
                 << removed.error().message;
      continue;
    }
    LOG(INFO) << "Removed the destroyed " << describeVolume(volume) << " at " << directory;
  }
}

bool Slave::volumeInUse(const Resource& volume, const Executor* except) const {
  const std::string& id = volume.disk().persistence().id();
  for (const auto& [frameworkId, framework] : frameworks_) {
    for (const auto& [executorId, executor] : framework->executors) {
      if (executor.get() == except || executor->state == Executor::State::kTerminated) continue;
      if (operations::hasVolume(executor->resources(), volume.role(), id)) return true;
    }
  }
  return false;
}

namespace {

// Notes the persistent `volume` (at `directory` on the host) of a container
// from an image or of a Docker container for its launch, where it becomes a
// bind mount; a container already running cannot take a new one.
Result<void> addMountedVolume(Executor& executor, const Resource& volume,
                              const std::string& directory) {
  const std::string& containerPath = volume.disk().volume().container_path();
  for (const Volume& known : executor.mountedVolumes) {
    if (known.container_path() == containerPath) return {};
  }
  if (executor.osPid > 0 || executor.launching) {
    // Already the running container's (also after a restart of the slave):
    // mounted at its launch.
    if (operations::hasVolume(executor.resources(), volume.role(),
                              volume.disk().persistence().id())) {
      return {};
    }
    return Error{"the " + describeVolume(volume) +
                 " cannot join a running container from an image or in Docker; give it to the "
                 "container's first tasks"};
  }
  if (containerPath.empty() || containerPath[0] == '/' ||
      ("/" + containerPath + "/").find("/../") != std::string::npos) {
    return Error{"the " + describeVolume(volume) + ": container path '" + containerPath +
                 "' must be relative to the sandbox, without '..'"};
  }
  Volume& mount = executor.mountedVolumes.emplace_back();
  mount.set_container_path(containerPath);
  mount.set_mode(volume.disk().volume().mode() == Volume::RO ? Volume::RO : Volume::RW);
  mount.mutable_source()->set_type(Volume::Source::HOST_PATH);
  mount.mutable_source()->mutable_host_path()->set_path(directory);
  return {};
}

}  // namespace

Result<void> Slave::linkVolumes(const Framework& framework, Executor& executor,
                                const Resources& resources) {
  for (const auto& [key, volume] : volumes::byKey(resources)) {
    if (!operations::hasVolume(checkpointedResources_, volume.role(),
                               volume.disk().persistence().id())) {
      return Error{"the " + describeVolume(volume) + " is not on this slave"};
    }
    std::string directory = volumes::volumePath(flags_.work_dir, volume);
    if (auto made = volumes::createVolume(directory); !made) return made.error();
    std::string user = executorUser(framework, executor.info);
    if (!user.empty() && !volumeInUse(volume, &executor)) {
      if (auto given = volumes::giveVolume(directory, user); !given) return given.error();
    }
    const std::string& containerPath = volume.disk().volume().container_path();
    if (!executor.imageName.empty() || !executor.dockerContainer.empty()) {
      // Mounted into the container at launch (startExecutor(), or the
      // Docker task's sendTaskToExecutor()).
      if (auto added = addMountedVolume(executor, volume, directory); !added) return added;
      continue;
    }
    if (auto linked = volumes::linkVolume(executor.directory, containerPath, directory); !linked) {
      return Error{"the " + describeVolume(volume) + ": " + linked.error().message};
    }
    VLOG(1) << "Linked the " << describeVolume(volume) << " at " << executor.directory << "/"
            << containerPath;
  }
  return {};
}

}  // namespace mesos::internal::slave
