#include "master/validation.hpp"

#include <set>

#include "common/ids.hpp"
#include "exec/health_check.hpp"
#include "slave/containerizer/docker/docker.hpp"

namespace mesos::internal::master {

namespace {

// A ContainerInfo as slaves can run it: a MESOS container, from a Docker
// image or not, whose volumes are host paths or sandbox paths
// (Volume.source HOST_PATH or SANDBOX_PATH, or the older host_path:
// absolute, or relative to the sandbox) and whose networks are CNI networks named
// (NetworkInfo.name).
// What no slave acts on yet is refused, naming the field: silently ignoring
// it would run the task other than asked.
Result<void> validateContainer(const ContainerInfo& container, const std::string& field) {
  constexpr const char* kNotYet = " is not supported yet (no slave runs it); leave it unset";
  if (container.type() != ContainerInfo::MESOS) {
    return Error{field + ".type " + ContainerInfo::Type_Name(container.type()) + kNotYet};
  }
  if (container.has_docker()) return Error{field + ".docker" + kNotYet};
  if (container.mesos().has_image()) {
    const Image& image = container.mesos().image();
    if (image.type() != Image::DOCKER) {
      return Error{field + ".mesos.image.type " + Image::Type_Name(image.type()) + kNotYet +
                   " (DOCKER images are supported)"};
    }
    if (image.docker().name().empty()) return Error{field + ".mesos.image.docker.name is empty"};
  }
  // CNI networks by name (the slave's network/cni isolator, docs/cni.md).
  std::set<std::string> networks;
  for (int i = 0; i < container.network_infos_size(); ++i) {
    const NetworkInfo& network = container.network_infos(i);
    const std::string name = field + ".network_infos[" + std::to_string(i) + "]";
    if (network.name().empty()) {
      return Error{name +
                   ".name is empty: name the CNI network to join (the host's network "
                   "is what a container without network_infos gets)"};
    }
    if (!networks.insert(network.name()).second) {
      return Error{name + ": network '" + network.name() + "' is named twice"};
    }
    // The deprecated single address, through reflection (its accessors warn).
    const bool oldAddress = network.GetReflection()->HasField(
        network, NetworkInfo::descriptor()->FindFieldByName("ip_address"));
    if (oldAddress || network.groups_size() > 0) {
      return Error{name + (oldAddress ? ".ip_address" : ".groups") + kNotYet};
    }
    for (const NetworkInfo::IPAddress& address : network.ip_addresses()) {
      if (address.has_ip_address()) {
        return Error{name + ".ip_addresses: asking for address " + address.ip_address() +
                     " is not supported (the network's IPAM plugin chooses)"};
      }
    }
  }
  if (!container.hostname().empty() && networks.empty()) {
    return Error{field +
                 ".hostname needs network_infos: a container on the host's network "
                 "has the host's name"};
  }
  for (int i = 0; i < container.volumes_size(); ++i) {
    const Volume& volume = container.volumes(i);
    const std::string name = field + ".volumes[" + std::to_string(i) + "]";
    if (volume.has_image()) return Error{name + ".image" + kNotYet};
    if (volume.container_path().empty()) return Error{name + ".container_path is empty"};
    // Its source: Volume.source (a host path, or a path in the sandbox), or
    // the older host_path.
    const std::string* source = &volume.host_path();
    if (volume.has_source()) {
      const Volume::Source& from = volume.source();
      if (!volume.host_path().empty()) return Error{name + " has both host_path and source"};
      if (from.type() == Volume::Source::HOST_PATH) {
        source = &from.host_path().path();
        if (source->empty() || (*source)[0] != '/') {
          return Error{name + ".source.host_path.path '" + *source + "' is not absolute"};
        }
        if (from.host_path().mount_propagation().mode() == MountPropagation::BIDIRECTIONAL) {
          return Error{name + ".source.host_path.mount_propagation BIDIRECTIONAL" + kNotYet};
        }
      } else if (from.type() == Volume::Source::SANDBOX_PATH) {
        source = &from.sandbox_path().path();
        if (from.sandbox_path().type() != Volume::Source::SandboxPath::SELF) {
          return Error{name + ".source.sandbox_path.type " +
                       Volume::Source::SandboxPath::Type_Name(from.sandbox_path().type()) +
                       kNotYet + " (SELF is: there are no nested containers)"};
        }
        if (source->empty() || (*source)[0] == '/') {
          return Error{name + ".source.sandbox_path.path '" + *source + "' is not relative"};
        }
      } else {
        return Error{name + ".source.type " + Volume::Source::Type_Name(from.type()) + kNotYet +
                     " (HOST_PATH and SANDBOX_PATH are)"};
      }
    } else if (volume.host_path().empty()) {
      return Error{name + ".host_path is empty"};
    }
    for (const std::string* path : {&volume.container_path(), source}) {
      if (path->find(':') != std::string::npos) return Error{name + ": a path holds ':'"};
      if (("/" + *path + "/").find("/../") != std::string::npos) {
        return Error{name + ": a path holds '..'"};
      }
    }
  }
  return {};
}

Result<void> validateContainers(const TaskInfo& task) {
  if (task.command().has_container()) {
    return Error{
        "TaskInfo.command.container is not supported: it is deprecated; use "
        "TaskInfo.container"};
  }
  if (task.executor().command().has_container()) {
    return Error{
        "ExecutorInfo.command.container is not supported: it is deprecated; use "
        "ExecutorInfo.container"};
  }
  if (task.has_container()) {
    // A command task in a Docker container: run by a slave's Docker
    // containerizer (docs/docker-containerizer.md).
    if (auto valid = task.container().type() == ContainerInfo::DOCKER
                         ? docker::validateContainer(task.container(), "TaskInfo.container")
                         : validateContainer(task.container(), "TaskInfo.container");
        !valid) {
      return valid;
    }
    if (task.has_executor()) {
      return Error{
          "TaskInfo.container is for command tasks; a task with an executor runs in "
          "ExecutorInfo.container"};
    }
  }
  if (task.executor().has_container() &&
      task.executor().container().type() == ContainerInfo::DOCKER) {
    // A custom executor in a Docker container of its own: run by a slave's
    // Docker containerizer (docs/docker-containerizer.md).
    return docker::validateContainer(task.executor().container(), "ExecutorInfo.container");
  }
  if (task.executor().has_container()) {
    return validateContainer(task.executor().container(), "ExecutorInfo.container");
  }
  return {};
}

}  // namespace

Result<Resources> validateTask(const TaskInfo& task, const TaskContext& context) {
  const std::string& id = task.task_id().value();
  if (!task.IsInitialized()) {
    return Error{"TaskInfo is missing required fields: " + task.InitializationErrorString()};
  }
  if (auto valid = validateId("task id", id); !valid) return valid.error();
  if (task.has_executor()) {
    if (auto valid = validateId("executor id", task.executor().executor_id().value()); !valid) {
      return valid.error();
    }
  }
  if (context.framework.tasks.count(id) || context.launched.count(id)) {
    return Error{"task id '" + id + "' is already in use by this framework"};
  }
  if (task.slave_id().value() != context.slave.id.value()) {
    return Error{"the task's slave id '" + task.slave_id().value() +
                 "' is not the offers' slave '" + context.slave.id.value() + "'"};
  }
  if (task.has_executor() == task.has_command()) {
    return Error{"a task needs either an ExecutorInfo or a CommandInfo, not both or neither"};
  }
  if (task.has_executor() && !task.executor().has_command() &&
      task.executor().type() != ExecutorInfo::DEFAULT) {
    return Error{"ExecutorInfo '" + task.executor().executor_id().value() +
                 "' needs a CommandInfo (only a DEFAULT executor has none)"};
  }
  if (auto supported = validateContainers(task); !supported) return supported.error();
  // A task with an ExecutorInfo gets the same checks: its executor may run
  // the health check as it likes, but it gets one that can work.
  if (task.has_health_check()) {
    if (auto check = parseHealthCheck(task.health_check()); !check) {
      return Error{"invalid health check: " + check.error().message};
    }
  }
  // Apache's words.
  if (task.has_kill_policy() && task.kill_policy().has_grace_period() &&
      task.kill_policy().grace_period().nanoseconds() < 0) {
    return Error{"Task's 'kill_policy.grace_period' must be non-negative"};
  }
  if (auto valid = Resources::validate(task.resources()); !valid) {
    return Error{"invalid task resources: " + valid.error().message};
  }
  Resources used(task.resources());
  if (task.has_executor()) {
    const ExecutorInfo& executor = task.executor();
    if (auto valid = Resources::validate(executor.resources()); !valid) {
      return Error{"invalid executor resources: " + valid.error().message};
    }
    if (executor.has_framework_id() &&
        executor.framework_id().value() != context.framework.id.value()) {
      return Error{"ExecutorInfo.framework_id is not this framework's id"};
    }
    const std::string& executorId = executor.executor_id().value();
    const auto& running = context.slave.executors;
    auto byFramework = running.find(context.framework.id.value());
    bool exists = byFramework != running.end() && byFramework->second.count(executorId);
    if (exists) {
      ExecutorInfo known = byFramework->second.at(executorId);
      ExecutorInfo given = executor;
      given.mutable_framework_id()->CopyFrom(context.framework.id);
      known.mutable_framework_id()->CopyFrom(context.framework.id);
      if (known.SerializeAsString() != given.SerializeAsString()) {
        return Error{"ExecutorInfo for executor '" + executorId +
                     "' differs from the one already running on this slave"};
      }
    } else if (!context.newExecutors.count(executorId)) {
      if (context.maxExecutorsPerSlave && context.executorsOnSlave >= *context.maxExecutorsPerSlave) {
        return Error{"the slave runs its maximum of " +
                     std::to_string(*context.maxExecutorsPerSlave) + " executors"};
      }
      used += Resources(executor.resources());
    }
  }
  if (!context.available.contains(used)) {
    return Error{"the task uses more resources (" + used.toString() +
                 ") than the offers have left (" + context.available.toString() + ")"};
  }
  return used;
}

}  // namespace mesos::internal::master
