#include "slave/containerizer/containerizer_actor.hpp"

#include <utility>

namespace mesos::internal::slave {

ContainerizerActor::ContainerizerActor(std::shared_ptr<Containerizer> containerizer)
    : Actor(process::generateId("containerizer")), containerizer_(std::move(containerizer)) {}

Result<pid_t> ContainerizerActor::launch(mesos::isolation::ContainerConfig config, LaunchSpec spec,
                                         std::shared_ptr<std::atomic<pid_t>> started) {
  Result<pid_t> pid = containerizer_->launch(config, std::move(spec));
  if (pid) started->store(*pid);
  return pid;
}

bool ContainerizerActor::destroy(ContainerID containerId, pid_t pid) {
  return containerizer_->destroy(containerId, pid);
}

}  // namespace mesos::internal::slave
