#include "slave/containerizer/containerizer.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>

#include <glog/logging.h>

#include "common/fd.hpp"
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
  std::unique_lock<std::mutex> lock(mutex_);
  const ContainerID& id = config.containerId;
  size_t prepared = 0;
  auto undo = [&](const std::string& step, const Error& error) -> Error {
    cleanUp(id, prepared);
    return Error{step + ": " + error.message};
  };
  // What no isolator here acts on fails the launch: ignoring it would run
  // the executor other than asked.
  if (config.executor.container().volumes_size() > 0 &&
      ("," + isolation() + ",").find(",filesystem/linux,") == std::string::npos) {
    return Error{
        "the container has volumes, which need the filesystem/linux isolator "
        "(--isolation)"};
  }
  std::vector<std::string> setup;  // the launch helper's first flags, in order
  std::set<std::string> namespaces;
  std::vector<std::string> wrappers;
  std::vector<mesos::isolation::LaunchRequirements::Mount> mounts;
  std::string rootfs;
  bool rootfsForTask = false;
  std::string workingDirectory;
  for (const auto& isolator : isolators_) {
    auto requirements = isolator->prepare(config);
    if (!requirements) return undo(isolator->name() + " cannot prepare", requirements.error());
    prepared++;
    for (const std::string& file : requirements->joinFiles) setup.push_back("--join=" + file);
    namespaces.insert(requirements->namespaces.begin(), requirements->namespaces.end());
    wrappers.insert(wrappers.end(), requirements->commandPrefix.begin(),
                    requirements->commandPrefix.end());
    for (const auto& [name, value] : requirements->environment) spec.environment[name] = value;
    mounts.insert(mounts.end(), requirements->mounts.begin(), requirements->mounts.end());
    if (!requirements->rootfs.empty()) {
      if (!rootfs.empty()) {
        return undo("launch", Error{isolator->name() + " gives a second root filesystem"});
      }
      rootfs = requirements->rootfs;
      rootfsForTask = requirements->rootfsForTask;
    }
    if (workingDirectory.empty()) workingDirectory = requirements->workingDirectory;
  }
  if (!config.rootfs.empty() && rootfs.empty()) {
    return undo("launch", Error{"the container has an image, which needs the filesystem/linux "
                                "isolator (--isolation)"});
  }
  if (!namespaces.empty()) {
    std::string list;
    for (const std::string& name : namespaces) list += (list.empty() ? "" : ",") + name;
    setup.push_back("--unshare=" + list);
  }
  // A host name of its own goes with a UTS namespace of its own: the one
  // the framework asked for, else the container id (as Apache Mesos).
  if (namespaces.count("uts") > 0) {
    const ContainerInfo& container = config.executor.container();
    setup.push_back("--hostname=" +
                    (container.hostname().empty() ? id.value() : container.hostname()));
  }
  if (!rootfs.empty() || !mounts.empty()) {
    setup.push_back("--sandbox=" + spec.directory);
    // Only what the framework chose: a volume over the host's tree.
    bool overHost = !rootfs.empty();
    for (const Volume& volume : config.executor.container().volumes()) {
      overHost =
          overHost || (!volume.container_path().empty() && volume.container_path()[0] == '/');
    }
    for (const auto& mount : mounts) {
      if (mount.source.find(':') != std::string::npos ||
          mount.target.find(':') != std::string::npos) {
        return undo("launch", Error{"cannot mount " + mount.source + " at " + mount.target +
                                    ": a mount's paths may not hold ':'"});
      }
      setup.push_back("--volume=" + mount.source + ":" + mount.target +
                      (mount.readOnly ? ":ro" : ":rw"));
    }
    if (rootfsForTask) {
      setup.push_back("--task_rootfs=" + rootfs);
    } else if (!rootfs.empty()) {
      setup.push_back("--rootfs=" + rootfs);
      if (!workingDirectory.empty()) setup.push_back("--working_dir=" + workingDirectory);
      // The image's user, where the slave would run the executor as root.
      if (spec.user.empty() && config.image && !config.image->user.empty()) {
        setup.push_back("--image_user=" + config.image->user);
      }
    }
    // The framework chose what is mounted over the container's tree: a
    // set-user-id program there must not give its user more rights.
    if (overHost && !spec.user.empty() && !rootfsForTask) setup.push_back("--no_new_privileges");
  }
  // Wrappers of the isolators need root (lxc-execute); the caller's run as
  // they are, unless something else needs the helper.
  const bool privileged = !setup.empty() || !wrappers.empty() || !spec.user.empty();
  // The isolators' wrappers run outermost, around any the caller gave.
  wrappers.insert(wrappers.end(), spec.prefix.begin(), spec.prefix.end());
  if (!rootfs.empty() && !wrappers.empty()) {
    return undo("launch",
                Error{"a container with a root filesystem cannot run under " + wrappers.front()});
  }
  // The helper runs as root on the executor's behalf: it sets the
  // container up (joins, namespaces, mounts), runs the wrappers, or
  // switches to the executor's user.
  std::vector<std::string> prefix;
  // When the helper is the first program, it stops once the container is
  // set up (joined, in its namespaces) and waits for the isolators'
  // isolate() (--sync_fd): nothing of the executor runs before them, and
  // they see the container as the executor will (its network namespace).
  std::optional<Fd> sync;
  if (privileged && (!setup.empty() || wrappers.empty())) {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      return undo("launch", Error{std::string("cannot make the launch helper's sync socket: ") +
                                  std::strerror(errno)});
    }
    sync.emplace(ends[0]);
    spec.inheritedFds = {ends[1]};
    setup.insert(setup.begin(), "--sync_fd=" + std::to_string(kEnvironmentFd + 1));
  }
  if (privileged) {
    if (launchHelper_.empty()) {
      return undo("launch", Error{"no launch helper (mesos-containerizer) to set the container "
                                  "up or switch user"});
    }
    // The set-up first, so that the wrappers run inside too; the switch to
    // the executor's user last, after the wrappers (lxc-execute needs
    // root). The wrappers start without the executor's own variables: the
    // helper reads those once it runs as the executor's user.
    prefix.push_back(launchHelper_);
    prefix.insert(prefix.end(), setup.begin(), setup.end());
    if (!wrappers.empty()) {
      if (setup.empty()) {
        prefix.clear();
      } else {
        prefix.push_back("--");
      }
      prefix.insert(prefix.end(), wrappers.begin(), wrappers.end());
      prefix.push_back(launchHelper_);
    }
    if (!spec.user.empty()) prefix.push_back("--user=" + spec.user);
    prefix.push_back("--environment_fd=" + std::to_string(kEnvironmentFd));
    prefix.push_back("--");
    if (!spec.helperEnvironment) spec.helperEnvironment = inheritedEnvironment();
  } else {
    prefix = std::move(wrappers);
    spec.helperEnvironment.reset();
  }
  spec.helperFirst = privileged && !prefix.empty() && prefix.front() == launchHelper_;
  spec.prefix = std::move(prefix);
  auto pid = launcher_->launch(spec);
  for (int fd : spec.inheritedFds) ::close(fd);  // the helper's end, now its own
  if (!pid) return undo("launch", pid.error());
  auto abandon = [&] {
    sync.reset();  // without the go-ahead the helper exits (127)
    launcher_->kill(*pid, SIGKILL);
    killInIsolators(id);
  };
  if (sync) {
    // The helper's set-up (its exec, unshare, mounts) calls no isolator:
    // the others' calls need not wait for it. Only the containerizer's
    // actor launches, so no other launch comes in between.
    lock.unlock();
    auto ready = awaitHelper(sync->get(), spec.stderrPath);
    lock.lock();
    if (!ready) {
      abandon();
      return undo("launch", ready.error());
    }
  }
  for (const auto& isolator : isolators_) {
    // A concurrent isolator's isolate() (CNI ADD) runs without the lock,
    // as the wait above: the slave's calls for other containers go on.
    if (isolator->concurrent()) lock.unlock();
    auto isolated = isolator->isolate(id, *pid);
    if (isolator->concurrent()) lock.lock();
    if (!isolated) {
      abandon();
      return undo(isolator->name() + " cannot isolate process " + std::to_string(*pid),
                  isolated.error());
    }
  }
  if (sync && ::send(sync->get(), "G", 1, MSG_NOSIGNAL) != 1) {
    const int error = errno;
    abandon();
    return undo("launch",
                Error{std::string("cannot let the launch helper go on: ") + std::strerror(error)});
  }
  return pid;
}

Result<void> Containerizer::awaitHelper(int fd, const std::string& stderrPath) {
  pollfd ready{fd, POLLIN, 0};
  const int timeout = static_cast<int>(syncTimeout_.count());
  int polled;
  do {
    polled = ::poll(&ready, 1, timeout);
  } while (polled < 0 && errno == EINTR);
  if (polled == 0) {
    return Error{"the launch helper did not set the container up within " +
                 std::to_string(syncTimeout_.count()) + " ms"};
  }
  char byte = 0;
  ssize_t n;
  do {
    n = ::recv(fd, &byte, 1, 0);
  } while (n < 0 && errno == EINTR);
  if (n == 1 && byte == 'R') return {};
  // It ended: what it said last is in the sandbox's stderr.
  std::string said;
  if (std::ifstream in(stderrPath); in) {
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) said = line;
    }
  }
  return Error{"the launch helper ended before the container was set up" +
               (said.empty() ? std::string() : ": " + said)};
}

std::optional<ContainerStatus> Containerizer::status(const ContainerID& containerId) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<ContainerStatus> merged;
  for (const auto& isolator : isolators_) {
    if (auto status = isolator->status(containerId)) {
      if (!merged) merged.emplace();
      merged->MergeFrom(*status);
    }
  }
  return merged;
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
  std::unique_lock<std::mutex> lock(mutex_);
  bool left = signalAll(containerId, pid, SIGKILL);
  killInIsolators(containerId, &lock);
  cleanUp(containerId, isolators_.size(), &lock);
  return left;
}

void Containerizer::killInIsolators(const ContainerID& containerId,
                                    std::unique_lock<std::mutex>* lock) {
  for (const auto& isolator : isolators_) {
    const bool unlocked = lock != nullptr && isolator->concurrent();
    if (unlocked) lock->unlock();
    auto killed = isolator->kill(containerId);
    if (unlocked) lock->lock();
    if (!killed) {
      LOG(ERROR) << "Cannot kill every process of container " << containerId.value() << " ("
                 << isolator->name() << "): " << killed.error().message;
    }
  }
}

void Containerizer::cleanUp(const ContainerID& containerId, size_t count,
                            std::unique_lock<std::mutex>* lock) {
  for (size_t i = 0; i < count; ++i) {
    // A concurrent isolator's cleanup() (CNI DEL) runs without the lock.
    const bool unlocked = lock != nullptr && isolators_[i]->concurrent();
    if (unlocked) lock->unlock();
    auto cleaned = isolators_[i]->cleanup(containerId);
    if (unlocked) lock->lock();
    if (!cleaned) {
      LOG(ERROR) << "Cannot clean up container " << containerId.value() << " ("
                 << isolators_[i]->name() << "): " << cleaned.error().message;
    }
  }
}

}  // namespace mesos::internal::slave
