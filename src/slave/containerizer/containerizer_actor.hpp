// The containerizer's actor: the calls of the containerizer that wait on the
// kernel or on child processes run here, never on the slave's actor. A
// launch waits for the launch helper to set the container up and runs every
// isolator's isolate() (CNI ADD runs its plugins there); a destroy waits for
// the container's cgroups to empty and runs the isolators' cleanup (CNI DEL).
// The slave dispatches them and continues on the futures, looking its state
// up again: the executor may have been shut down in between.
//
// The quick calls (kill, update, limitation, status, running) stay direct
// calls on the shared Containerizer, whose lock serializes them with these.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>

#include "mesos/isolator.hpp"
#include "mesos/result.hpp"
#include "process/actor.hpp"
#include "slave/containerizer/containerizer.hpp"

namespace mesos::internal::slave {

class ContainerizerActor : public process::Actor {
 public:
  explicit ContainerizerActor(std::shared_ptr<Containerizer> containerizer);

  // Containerizer::launch(): the executor's pid, or why it did not start
  // (nothing of the container is left then). The pid is also stored in
  // `started` before the future is set: a slave stopping meanwhile finds
  // there what it must kill once this actor is done.
  Result<pid_t> launch(mesos::isolation::ContainerConfig config, LaunchSpec spec,
                       std::shared_ptr<std::atomic<pid_t>> started);

  // Containerizer::destroy(): whether processes of the container were still
  // running (and were killed).
  bool destroy(ContainerID containerId, pid_t pid);

 private:
  std::shared_ptr<Containerizer> containerizer_;
};

}  // namespace mesos::internal::slave
