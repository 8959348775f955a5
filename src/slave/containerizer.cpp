#include "slave/containerizer.hpp"

#include <signal.h>

#include <chrono>

#include <glog/logging.h>

namespace mesos::internal::slave {

Containerizer::Containerizer(std::unique_ptr<Launcher> launcher,
                             std::vector<std::unique_ptr<mesos::isolation::Isolator>> isolators)
    : launcher_(std::move(launcher)), isolators_(std::move(isolators)) {}

std::string Containerizer::isolation() const {
  std::string names;
  for (const auto& isolator : isolators_) names += (names.empty() ? "" : ",") + isolator->name();
  return names;
}

Result<pid_t> Containerizer::launch(const mesos::isolation::ContainerConfig& config,
                                    LaunchSpec spec) {
  const ContainerID& id = config.containerId;
  size_t prepared = 0;
  auto undo = [&](const std::string& step, const Error& error) -> Error {
    for (size_t i = 0; i < prepared; ++i) {
      if (auto cleaned = isolators_[i]->cleanup(id); !cleaned) {
        LOG(ERROR) << "Cannot clean up container " << id.value() << " (" << isolators_[i]->name()
                   << "): " << cleaned.error().message;
      }
    }
    return Error{step + ": " + error.message};
  };
  std::vector<std::string> prefix;
  for (const auto& isolator : isolators_) {
    auto requirements = isolator->prepare(config);
    if (!requirements) return undo(isolator->name() + " cannot prepare", requirements.error());
    prepared++;
    if (!requirements->joinFiles.empty()) {
      return undo(isolator->name() + " cannot prepare",
                  Error{"this launcher cannot join a process to files before it starts"});
    }
    prefix.insert(prefix.end(), requirements->commandPrefix.begin(),
                  requirements->commandPrefix.end());
    for (const auto& [name, value] : requirements->environment) spec.environment[name] = value;
  }
  // The isolators' wrappers run outermost, around any the caller gave.
  prefix.insert(prefix.end(), spec.prefix.begin(), spec.prefix.end());
  spec.prefix = std::move(prefix);
  auto pid = launcher_->launch(spec);
  if (!pid) return undo("launch", pid.error());
  for (const auto& isolator : isolators_) {
    if (auto isolated = isolator->isolate(id, *pid); !isolated) {
      launcher_->kill(*pid, SIGKILL);
      for (const auto& each : isolators_) {
        if (auto killed = each->kill(id); !killed) {
          LOG(ERROR) << "Cannot kill container " << id.value() << " (" << each->name()
                     << "): " << killed.error().message;
        }
      }
      return undo(isolator->name() + " cannot isolate process " + std::to_string(*pid),
                  isolated.error());
    }
  }
  return pid;
}

void Containerizer::update(const ContainerID& containerId, const Resources& resources) {
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

void Containerizer::kill(const ContainerID& containerId, pid_t pid, int signal) {
  launcher_->kill(pid, signal);
  if (signal != SIGKILL) return;
  for (const auto& isolator : isolators_) {
    if (auto killed = isolator->kill(containerId); !killed) {
      LOG(ERROR) << "Cannot kill every process of container " << containerId.value() << " ("
                 << isolator->name() << "): " << killed.error().message;
    }
  }
}

bool Containerizer::destroy(const ContainerID& containerId, pid_t pid) {
  bool left = launcher_->running(pid);
  if (left) launcher_->kill(pid, SIGKILL);
  for (const auto& isolator : isolators_) {
    if (auto killed = isolator->kill(containerId); !killed) {
      LOG(ERROR) << "Cannot kill every process of container " << containerId.value() << " ("
                 << isolator->name() << "): " << killed.error().message;
    }
  }
  for (const auto& isolator : isolators_) {
    if (auto cleaned = isolator->cleanup(containerId); !cleaned) {
      LOG(ERROR) << "Cannot clean up container " << containerId.value() << " ("
                 << isolator->name() << "): " << cleaned.error().message;
    }
  }
  return left;
}

}  // namespace mesos::internal::slave
