// The containerizer: an executor's container from launch to cleanup. It owns
// the launcher (which starts and signals the executor's processes) and the
// isolators --isolation chose (limits, statistics; include/mesos/isolator.hpp),
// and calls them in the order the isolator interface describes.
//
// Shared by three actors: the containerizer's (containerizer_actor.hpp)
// makes the calls that wait, launch() and destroy(); the slave's makes the
// quick ones (kill, update, limitation, status, running) and, at start-up
// and when it stops, recover() and destroy(); the monitor's measures
// (usage(), monitor.hpp). Calls are serialized by a lock (the isolators are
// called by one thread at a time), but for the isolate(), kill() and
// cleanup() of an isolator that says it is concurrent
// (Isolator::concurrent(): CNI, cgroups), which run without it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mesos/isolator.hpp"
#include "mesos/result.hpp"
#include "slave/containerizer/launcher.hpp"

namespace mesos::internal::slave {

class Containerizer {
 public:
  // `launchHelper`: the mesos-containerizer program, which an executor
  // starts as when isolators ask it to join files (containerizer_main.cpp);
  // empty: such a launch fails.
  Containerizer(std::unique_ptr<Launcher> launcher,
                std::vector<std::unique_ptr<mesos::isolation::Isolator>> isolators,
                std::string launchHelper = "");

  // At start-up: every isolator re-attaches to the containers in `known`
  // (container id -> executor pid) and destroys the rest of what earlier
  // runs left. Fails naming the isolator and the cause.
  Result<void> recover(const std::map<std::string, pid_t>& known);

  // The isolators' names, comma-separated, in the order they run.
  std::string isolation() const;

  // Starts the executor of `config` as `spec` says, in a container the
  // isolators prepared and then isolated (when the launch helper runs
  // first, the executor's program starts only after every isolate()). On
  // success returns the executor's
  // pid (reaped by the caller, as Launcher::launch says). On failure, of the
  // launch or of any isolator, nothing of the container is left (the
  // process, if it started, is killed) and the Error names the step.
  // Blocks up to the sync timeout and for the isolators' isolate() (CNI ADD
  // runs its plugins): the containerizer's actor calls it, one launch at a
  // time. The lock is let go while the helper sets the container up; an
  // isolate() holds it, so the others' calls wait for one in progress.
  Result<pid_t> launch(const mesos::isolation::ContainerConfig& config, LaunchSpec spec);

  // What the isolators know of the container for its tasks' status
  // updates (Isolator::status(), merged); nullopt: nothing.
  std::optional<ContainerStatus> status(const ContainerID& containerId);

  // How long launch() waits for the launch helper to set a container up
  // (its namespaces) before it kills it and fails.
  void setSyncTimeout(std::chrono::milliseconds timeout) { syncTimeout_ = timeout; }

  // A container recover() kept, with its sandbox and resources (see
  // Isolator::recovered()).
  void recovered(const mesos::isolation::ContainerConfig& config);

  // The container now holds `resources`. Failures are logged, not returned:
  // the executor keeps running with its old limits.
  void update(const ContainerID& containerId, const Resources& resources);

  // What the container uses, as the isolators measure it, and its limits
  // (`cpus_limit`, `mem_limit_bytes`) from `resources`, the resources it
  // holds. Stamped with the current time.
  ResourceStatistics usage(const ContainerID& containerId, const Resources& resources);

  // Signals every process of the container `pid` leads: those an isolator
  // holds (Isolator::processes(): a cgroup), else those the launcher finds
  // (Launcher::kill: a process-table scan). Quick: the isolators' own kill
  // (a cgroup's freeze and wait until it is empty) comes with destroy(),
  // on the containerizer's actor, once the executor has ended.
  void kill(const ContainerID& containerId, pid_t pid, int signal);

  // The limit the container went past, if an isolator finds one now (see
  // Isolator::limitation()).
  std::optional<mesos::isolation::ContainerLimitation> limitation(const ContainerID& containerId);

  // Whether a process of the container `pid` leads still runs (found as
  // kill() finds them).
  bool running(const ContainerID& containerId, pid_t pid);

  // The container's end: kills what is left of it (the launcher's
  // processes if any still run, then whatever the isolators find) and
  // releases it (the isolators' cleanup). Failures are logged. Returns
  // whether the launcher found processes still running.
  bool destroy(const ContainerID& containerId, pid_t pid);

 private:
  // The container's processes, from the first isolator that holds them
  // all; empty when none does. REQUIRES: mutex_ held.
  std::optional<std::vector<pid_t>> tracked(const ContainerID& containerId);
  // Sends `signal` to the container's processes, found as kill() says;
  // whether there were any. REQUIRES: mutex_ held.
  bool signalAll(const ContainerID& containerId, pid_t pid, int signal);
  // Every isolator's kill(); failures are logged. REQUIRES: mutex_ held. With
  // `lock` (mutex_'s), a concurrent isolator's runs without it.
  void killInIsolators(const ContainerID& containerId,
                       std::unique_lock<std::mutex>* lock = nullptr);
  // The first `count` isolators' cleanup(); failures are logged. With
  // `lock` (mutex_'s, held), a concurrent isolator's runs without it.
  void cleanUp(const ContainerID& containerId, size_t count,
               std::unique_lock<std::mutex>* lock = nullptr);

  // Waits (syncTimeout_) for the launch helper's "set up" on `fd`; fails
  // when it ended first (with the last line of its stderr, `stderrPath`).
  Result<void> awaitHelper(int fd, const std::string& stderrPath);

  std::unique_ptr<Launcher> launcher_;
  std::vector<std::unique_ptr<mesos::isolation::Isolator>> isolators_;
  const std::string launchHelper_;
  std::chrono::milliseconds syncTimeout_{10000};
  std::mutex mutex_;
};

}  // namespace mesos::internal::slave
