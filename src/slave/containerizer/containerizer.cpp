#include "slave/containerizer/containerizer.hpp"

#include <signal.h>

#include <chrono>

#include <glog/logging.h>

#include "slave/environment.hpp"

namespace mesos::internal::slave {

Containerizer::Containerizer(std::unique_ptr<Launcher> launcher,
                             std::vector<std::unique_ptr<mesos::isolation::Isolator>> isolators,
                             std::string launchHelper)
    : launcher_(std::move(launcher)),
      isolators_(std::move(isolators)),
      launchHelper_(std::move(launchHelper)) {}

Result<void> Containerizer::recover(const std::map<std::string, pid_t>& known) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& isolator : isolators_) {
    if (auto recovered = isolator->recover(known); !recovered) {
      return Error{isolator->name() + ": " + recovered.error().message};
    }
  }
  return {};
}

std::string Containerizer::isolation() const {
  std::string names;
  for (const auto& isolator : isolators_) names += (names.empty() ? "" : ",") + isolator->name();
  return names;
}

Result<pid_t> Containerizer::launch(const mesos::isolation::ContainerConfig& config,
                                    LaunchSpec spec) {
  std::lock_guard<std::mutex> lock(mutex_);
  const ContainerID& id = config.containerId;
  size_t prepared = 0;
  auto undo = [&](const std::string& step, const Error& error) -> Error {
    cleanUp(id, prepared);
    return Error{step + ": " + error.message};
  };
  std::vector<std::string> joins;
  std::vector<std::string> prefix;
  for (const auto& isolator : isolators_) {
    auto requirements = isolator->prepare(config);
    if (!requirements) return undo(isolator->name() + " cannot prepare", requirements.error());
    prepared++;
    for (const std::string& file : requirements->joinFiles) joins.push_back("--join=" + file);
    prefix.insert(prefix.end(), requirements->commandPrefix.begin(),
                  requirements->commandPrefix.end());
    for (const auto& [name, value] : requirements->environment) spec.environment[name] = value;
  }
  if (!joins.empty()) {
    if (launchHelper_.empty()) return undo("launch", Error{"no launch helper to join cgroups"});
    // The helper joins first, so that the wrappers run inside too.
    joins.insert(joins.begin(), launchHelper_);
    joins.push_back("--");
    prefix.insert(prefix.begin(), joins.begin(), joins.end());
  }
  // Run as root on the executor's behalf: the isolators' wrappers, or the
  // switch to its user.
  const bool privileged = !prefix.empty() || !spec.user.empty();
  // The isolators' wrappers run outermost, around any the caller gave.
  prefix.insert(prefix.end(), spec.prefix.begin(), spec.prefix.end());
  if (privileged) {
    // Innermost: the wrappers (lxc-execute) need root; the executor not.
    // The wrappers start without the executor's own variables; the helper
    // reads those once it runs as the task's user.
    if (launchHelper_.empty()) return undo("launch", Error{"no launch helper to switch user"});
    prefix.push_back(launchHelper_);
    if (!spec.user.empty()) prefix.push_back("--user=" + spec.user);
    prefix.push_back("--environment_fd=" + std::to_string(kEnvironmentFd));
    prefix.push_back("--");
    if (!spec.helperEnvironment) spec.helperEnvironment = inheritedEnvironment();
  } else {
    spec.helperEnvironment.reset();
  }
  spec.prefix = std::move(prefix);
  auto pid = launcher_->launch(spec);
  if (!pid) return undo("launch", pid.error());
  for (const auto& isolator : isolators_) {
    if (auto isolated = isolator->isolate(id, *pid); !isolated) {
      launcher_->kill(*pid, SIGKILL);
      killInIsolators(id);
      return undo(isolator->name() + " cannot isolate process " + std::to_string(*pid),
                  isolated.error());
    }
  }
  return pid;
}

void Containerizer::recovered(const mesos::isolation::ContainerConfig& config) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& isolator : isolators_) isolator->recovered(config);
}

void Containerizer::update(const ContainerID& containerId, const Resources& resources) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& isolator : isolators_) {
    if (auto updated = isolator->update(containerId, resources); !updated) {
      LOG(WARNING) << "Cannot resize container " << containerId.value() << " ("
                   << isolator->name() << ") to " << resources.toString() << ": "
                   << updated.error().message;
    }
  }
}

ResourceStatistics Containerizer::usage(const ContainerID& containerId,
                                        const Resources& resources) {
  std::lock_guard<std::mutex> lock(mutex_);
  ResourceStatistics statistics;
  statistics.set_timestamp(
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
  for (const auto& isolator : isolators_) {
    if (auto measured = isolator->usage(containerId, &statistics); !measured) {
      VLOG(1) << "No usage of container " << containerId.value() << " from " << isolator->name()
              << ": " << measured.error().message;
    }
  }
  if (double cpus = resources.scalar("cpus"); cpus > 0) statistics.set_cpus_limit(cpus);
  if (double mem = resources.scalar("mem"); mem > 0) {
    statistics.set_mem_limit_bytes(static_cast<uint64_t>(mem * 1024 * 1024));
  }
  return statistics;
}

std::optional<std::vector<pid_t>> Containerizer::tracked(const ContainerID& containerId) {
  for (const auto& isolator : isolators_) {
    if (auto pids = isolator->processes(containerId)) return pids;
  }
  return std::nullopt;
}

void Containerizer::kill(const ContainerID& containerId, pid_t pid, int signal) {
  std::lock_guard<std::mutex> lock(mutex_);
  signalAll(containerId, pid, signal);
  if (signal == SIGKILL) killInIsolators(containerId);
}

bool Containerizer::signalAll(const ContainerID& containerId, pid_t pid, int signal) {
  // Signalled directly first, even when an isolator then kills what is
  // left: a process an OOM stalls (v1, memory.oom_control) cannot be
  // frozen, but SIGKILL ends it.
  if (auto pids = tracked(containerId)) {
    for (pid_t member : *pids) ::kill(member, signal);
    return !pids->empty();
  }
  return launcher_->kill(pid, signal);
}

std::optional<mesos::isolation::ContainerLimitation> Containerizer::limitation(
    const ContainerID& containerId) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& isolator : isolators_) {
    if (auto limitation = isolator->limitation(containerId)) return limitation;
  }
  return std::nullopt;
}

bool Containerizer::running(const ContainerID& containerId, pid_t pid) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto pids = tracked(containerId)) return !pids->empty();
  return launcher_->running(pid);
}

bool Containerizer::destroy(const ContainerID& containerId, pid_t pid) {
  std::lock_guard<std::mutex> lock(mutex_);
  bool left = signalAll(containerId, pid, SIGKILL);
  killInIsolators(containerId);
  cleanUp(containerId, isolators_.size());
  return left;
}

void Containerizer::killInIsolators(const ContainerID& containerId) {
  for (const auto& isolator : isolators_) {
    if (auto killed = isolator->kill(containerId); !killed) {
      LOG(ERROR) << "Cannot kill every process of container " << containerId.value() << " ("
                 << isolator->name() << "): " << killed.error().message;
    }
  }
}

void Containerizer::cleanUp(const ContainerID& containerId, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (auto cleaned = isolators_[i]->cleanup(containerId); !cleaned) {
      LOG(ERROR) << "Cannot clean up container " << containerId.value() << " ("
                 << isolators_[i]->name() << "): " << cleaned.error().message;
    }
  }
}

}  // namespace mesos::internal::slave
