#include "slave/containerizer/isolators/cgroups/cgroups_isolator.hpp"

#include <dirent.h>
#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include <glog/logging.h>

#include "common/epoll.hpp"

namespace mesos::internal::isolation {

namespace {

using mesos::isolation::ContainerConfig;
using mesos::isolation::ContainerLimitation;
using mesos::isolation::LaunchRequirements;

constexpr std::chrono::milliseconds kDestroyTimeout{10000};

// cgroup v2: the slave's own leaf, beside --cgroups_root, when the slave's
// cgroup is to pass controllers to the containers' cgroups.
constexpr const char* kAgentLeaf = "mesos_agent";

std::string megabytes(uint64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + " MB";
}

// The containers' cgroups left under `dir` (one hierarchy's root cgroup).
std::vector<std::string> children(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (entry->d_type == DT_DIR && name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  return names;
}

// Delegates the container's cgroup to `user`, the executor's: its
// directories and their cgroup.procs become the user's, so that the
// executor may make a cgroup per task below and move its tasks into them
// (exec/task_cgroup.hpp). The limits stay root's: a child cgroup is held
// to its parent's.
Result<void> delegate(const cgroups::Cgroup& cgroup, const std::string& user) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  const int error = ::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (found == nullptr) {
    return Error{"cannot look up user '" + user +
                 "': " + (error != 0 ? std::strerror(error) : "no such user")};
  }
  for (const std::string& dir : cgroup.dirs()) {
    for (const std::string& path : {dir, dir + "/cgroup.procs"}) {
      if (::chown(path.c_str(), found->pw_uid, found->pw_gid) != 0) {
        return Error{"cannot give " + path + " to user '" + user + "': " + std::strerror(errno),
                     errno};
      }
    }
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<CgroupsIsolator>> CgroupsIsolator::create(CgroupsOptions options) {
  auto layout = cgroups::Layout::detect(options.hierarchy);
  if (!layout) return Error{"--cgroups_hierarchy: " + layout.error().message};
  const bool v1 = layout->version() == cgroups::Version::kV1;
  std::vector<std::string> controllers;
  auto need = [&](const std::string& controller, const std::string& subsystem) -> Result<void> {
    if (!layout->has(controller)) {
      return Error{"cgroups/" + subsystem + " needs the '" + controller + "' controller, which " +
                   options.hierarchy + " does not offer"};
    }
    controllers.push_back(controller);
    return {};
  };
  if (options.subsystems.count("cpu")) {
    if (auto ok = need("cpu", "cpu"); !ok) return ok.error();
    if (v1) {
      if (auto ok = need("cpuacct", "cpu"); !ok) return ok.error();
    }
  }
  if (options.subsystems.count("mem")) {
    if (auto ok = need("memory", "mem"); !ok) return ok.error();
  }
  if (options.subsystems.count("pids")) {
    if (auto ok = need("pids", "pids"); !ok) return ok.error();
  }
  // Destroying a container freezes it first (v2 has cgroup.kill instead).
  if (v1 && layout->has("freezer")) controllers.push_back("freezer");
  // cgroup v2 passes controllers only to the children of a cgroup without
  // processes: the slave moves out of the cgroup its containers go below.
  if (!v1 && !controllers.empty()) {
    if (auto left = cgroups::leaveForLeaf(*layout, kAgentLeaf, ::getpid()); !left) {
      return Error{"cannot move the slave into a leaf cgroup of its own: " + left.error().message};
    }
  }
  // The root cgroup of the containers: creating it proves we may write.
  auto root = layout->cgroup(options.root, controllers);
  if (!root) return Error{"--cgroups_root: " + root.error().message};
  if (auto made = cgroups::create(*root); !made) {
    return Error{"cannot create the cgroups of --cgroups_root=" + options.root + ": " +
                 made.error().message};
  }
  return std::unique_ptr<CgroupsIsolator>(
      new CgroupsIsolator(std::move(options), std::move(layout).value(), std::move(controllers)));
}

CgroupsIsolator::CgroupsIsolator(CgroupsOptions options, cgroups::Layout layout,
                                 std::vector<std::string> controllers)
    : options_(std::move(options)),
      layout_(std::move(layout)),
      controllers_(std::move(controllers)) {
  WakeableEpoll epoll = makeWakeableEpoll();
  epollFd_ = epoll.epoll;
  wakeFd_ = epoll.wake;
  if (options_.subsystems.count("mem")) watcher_ = std::thread([this] { watchLoop(); });
}

CgroupsIsolator::~CgroupsIsolator() {
  stopping_ = true;
  wake();
  if (watcher_.joinable()) watcher_.join();
  ::close(epollFd_);
  ::close(wakeFd_);
}

std::string CgroupsIsolator::name() const {
  std::string names;
  for (const std::string& subsystem : options_.subsystems) {
    names += (names.empty() ? "cgroups/" : ",cgroups/") + subsystem;
  }
  return names;
}

Result<cgroups::Cgroup> CgroupsIsolator::cgroupOf(const std::string& containerId) const {
  return layout_.cgroup(options_.root + "/" + containerId, controllers_);
}

Result<void> CgroupsIsolator::recover(const std::map<std::string, pid_t>& known) {
  std::set<std::string> found;
  for (const std::string& controller : controllers_) {
    auto root = layout_.cgroup(options_.root, {controller});
    if (!root) return root.error();
    for (const std::string& name : children(root->dir(controller))) found.insert(name);
  }
  for (const std::string& id : found) {
    auto cgroup = cgroupOf(id);
    if (!cgroup) return cgroup.error();
    if (known.count(id)) {
      Container container{*cgroup, nullptr};
      if (options_.subsystems.count("mem")) {
        auto oom = cgroups::OomWatcher::watch(*cgroup);
        if (oom) container.oom = std::make_unique<cgroups::OomWatcher>(std::move(oom).value());
      }
      std::lock_guard<std::mutex> lock(mutex_);
      auto [it, added] = containers_.emplace(id, std::move(container));
      if (added) watchOom(id, it->second);
      continue;
    }
    LOG(INFO) << "Destroying the cgroups of container " << id << ", left by an earlier run";
    if (auto destroyed = cgroups::destroy(*cgroup, kDestroyTimeout); !destroyed) {
      return Error{"cannot destroy the cgroups of container " + id + " left by an earlier run: " +
                   destroyed.error().message};
    }
  }
  return {};
}

Result<LaunchRequirements> CgroupsIsolator::prepare(const ContainerConfig& config) {
  const std::string& id = config.containerId.value();
  auto cgroup = cgroupOf(id);
  if (!cgroup) return cgroup.error();
  if (auto made = cgroups::create(*cgroup); !made) return made.error();
  // Only the default executor makes cgroups below its container's.
  if (!config.user.empty() && config.executor.type() == ExecutorInfo::DEFAULT) {
    if (auto delegated = delegate(*cgroup, config.user); !delegated) {
      (void)cgroups::remove(*cgroup);
      return delegated.error();
    }
  }
  Container container{*cgroup, nullptr};
  if (options_.subsystems.count("mem")) {
    auto oom = cgroups::OomWatcher::watch(*cgroup);
    if (!oom) {
      (void)cgroups::remove(*cgroup);
      return Error{"cannot watch for OOM: " + oom.error().message};
    }
    container.oom = std::make_unique<cgroups::OomWatcher>(std::move(oom).value());
    if (cgroup->version() == cgroups::Version::kV1) {
      // Under OOM the container stalls instead of losing a process to the
      // kernel's killer: the slave then kills all of it and reports the
      // limit, before the executor could report a task killed by a signal.
      if (auto off = cgroups::write(cgroup->dir("memory"), "memory.oom_control", "1"); !off) {
        LOG(WARNING) << "Container " << id << ": cannot turn the OOM killer off ("
                     << off.error().message << "); it kills a process at the limit";
      }
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto old = containers_.find(id); old != containers_.end()) {
      forget(old->second);
      containers_.erase(old);
    }
    auto it = containers_.emplace(id, std::move(container)).first;
    watchOom(id, it->second);
  }
  if (auto sized = update(config.containerId, config.resources); !sized) {
    (void)cleanup(config.containerId);
    return sized.error();
  }
  LaunchRequirements requirements;
  for (const std::string& dir : cgroup->dirs()) requirements.joinFiles.push_back(dir + "/cgroup.procs");
  // An executor running several tasks gives each a cgroup below this one
  // (exec/task_cgroup.hpp). On v2 with no controller: this cgroup holds the
  // executor, and a cgroup with processes may pass none to its children.
  std::string controllers;
  if (layout_.version() == cgroups::Version::kV1) {
    for (const std::string& controller : controllers_) {
      controllers += (controllers.empty() ? "" : ",") + controller;
    }
  }
  requirements.environment[cgroups::kHierarchyVariable] = options_.hierarchy;
  requirements.environment[cgroups::kControllersVariable] = controllers;
  return requirements;
}

Result<void> CgroupsIsolator::isolate(const ContainerID& containerId, pid_t pid) {
  // The executor joins its cgroups itself, before it runs anything
  // (mesos-containerizer); it may not have got that far yet. Writing it in
  // here too does no harm and makes sure of it.
  auto cgroup = cgroupOf(containerId.value());
  if (!cgroup) return cgroup.error();
  for (const std::string& dir : cgroup->dirs()) {
    auto assigned = cgroups::assign(dir, pid);
    if (!assigned && assigned.error().code != ESRCH) return assigned.error();  // ESRCH: it ended
  }
  return {};
}

Result<void> CgroupsIsolator::setMemory(const std::string& id, Container& container,
                                        uint64_t bytes) {
  const cgroups::Cgroup& cgroup = container.cgroup;
  const std::string dir = cgroup.dir("memory");
  const bool v1 = cgroup.version() == cgroups::Version::kV1;
  if (container.memLimit != 0 && bytes < container.memLimit) {
    // Lowering below what it uses now would make the kernel reclaim or kill:
    // keep the old limit until usage falls. (Before a first limit there is
    // none to keep, and nothing to read.)
    auto stats = cgroups::statistics(cgroup);
    if (stats && stats->memoryBytes && *stats->memoryBytes > bytes) {
      if (container.memWanted != bytes) {
        LOG(INFO) << "Container " << id << " uses " << megabytes(*stats->memoryBytes)
                  << ", more than its new memory limit " << megabytes(bytes)
                  << "; the limit stays " << megabytes(container.memLimit)
                  << " until usage falls";
      }
      container.memWanted = bytes;
      return {};
    }
  }
  const char* limitFile = v1 ? "memory.limit_in_bytes" : "memory.max";
  const char* swapFile = v1 ? "memory.memsw.limit_in_bytes" : "memory.swap.max";
  std::string value = std::to_string(bytes);
  // v1 wants memsw >= limit at every moment: raise the limit first, lower
  // memsw first. v2's swap.max counts swap alone: none.
  std::string swapValue = v1 ? value : "0";
  bool raising = bytes >= container.memLimit;
  if (options_.limitSwap && !raising) {
    if (auto ok = cgroups::write(dir, swapFile, swapValue); !ok) return ok.error();
  }
  if (auto ok = cgroups::write(dir, limitFile, value); !ok) return ok.error();
  if (options_.limitSwap && raising) {
    if (auto ok = cgroups::write(dir, swapFile, swapValue); !ok) return ok.error();
  }
  if (v1) (void)cgroups::write(dir, "memory.soft_limit_in_bytes", value);
  container.memLimit = bytes;
  container.memWanted = 0;
  return {};
}

Result<void> CgroupsIsolator::update(const ContainerID& containerId, const Resources& resources) {
  const std::string& id = containerId.value();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = containers_.find(id);
  if (it == containers_.end()) return Error{"unknown container " + id};
  Container& container = it->second;
  const cgroups::Cgroup& cgroup = container.cgroup;
  const bool v1 = cgroup.version() == cgroups::Version::kV1;
  if (options_.subsystems.count("cpu")) {
    double cpus = resources.scalar("cpus");
    const std::string dir = cgroup.dir("cpu");
    auto shares = v1 ? cgroups::write(dir, "cpu.shares", std::to_string(cgroups::cpuShares(cpus)))
                     : cgroups::write(dir, "cpu.weight", std::to_string(cgroups::cpuWeight(cpus)));
    if (!shares) return shares.error();
    if (options_.enableCfs) {
      auto cap = v1 ? cgroups::write(dir, "cpu.cfs_period_us", std::to_string(cgroups::kCfsPeriodUs))
                    : cgroups::write(dir, "cpu.max", cgroups::cpuMax(cpus));
      if (!cap) return cap.error();
      if (v1) {
        auto quota =
            cgroups::write(dir, "cpu.cfs_quota_us", std::to_string(cgroups::cfsQuotaUs(cpus)));
        if (!quota) return quota.error();
      }
    }
  }
  if (options_.subsystems.count("mem")) {
    double mem = resources.scalar("mem");
    uint64_t bytes = cgroups::memoryLimit(static_cast<uint64_t>(std::llround(mem * 1024 * 1024)));
    if (auto ok = setMemory(id, container, bytes); !ok) return ok.error();
  }
  return {};
}

Result<void> CgroupsIsolator::usage(const ContainerID& containerId,
                                    ResourceStatistics* statistics) {
  const std::string& id = containerId.value();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = containers_.find(id);
  if (it == containers_.end()) return Error{"unknown container " + id};
  Container& container = it->second;
  // A lower memory limit waiting for usage to fall: try again.
  if (container.memWanted != 0) (void)setMemory(id, container, container.memWanted);
  auto stats = cgroups::statistics(container.cgroup);
  if (!stats) return stats.error();
  if (stats->processes) statistics->set_processes(static_cast<uint32_t>(*stats->processes));
  if (stats->threads) statistics->set_threads(static_cast<uint32_t>(*stats->threads));
  if (options_.subsystems.count("cpu")) {
    if (stats->cpuUserSeconds) statistics->set_cpus_user_time_secs(*stats->cpuUserSeconds);
    if (stats->cpuSystemSeconds) statistics->set_cpus_system_time_secs(*stats->cpuSystemSeconds);
    if (stats->cpuPeriods) statistics->set_cpus_nr_periods(static_cast<uint32_t>(*stats->cpuPeriods));
    if (stats->cpuThrottledPeriods) {
      statistics->set_cpus_nr_throttled(static_cast<uint32_t>(*stats->cpuThrottledPeriods));
    }
    if (stats->cpuThrottledSeconds) {
      statistics->set_cpus_throttled_time_secs(*stats->cpuThrottledSeconds);
    }
  }
  if (options_.subsystems.count("mem")) {
    if (stats->memoryBytes) statistics->set_mem_total_bytes(*stats->memoryBytes);
    if (stats->memoryAnonBytes) {
      statistics->set_mem_anon_bytes(*stats->memoryAnonBytes);
      statistics->set_mem_rss_bytes(*stats->memoryAnonBytes);
    }
    if (stats->memoryFileBytes) statistics->set_mem_file_bytes(*stats->memoryFileBytes);
  }
  return {};
}

Result<void> CgroupsIsolator::kill(const ContainerID& containerId) {
  {
    // cgroup v1 signals a memory cgroup's OOM eventfd when the cgroup is
    // removed, which destroy() does: stop watching first, or the watcher
    // takes the removal for an OOM. An OOM signalled before now is real:
    // recorded first, for limitation().
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = containers_.find(containerId.value()); it != containers_.end()) {
      if (!it->second.limitation) (void)outOfMemory(it->first, it->second);
      forget(it->second);
    }
  }
  auto cgroup = cgroupOf(containerId.value());
  if (!cgroup) return cgroup.error();
  return cgroups::destroy(*cgroup, kDestroyTimeout);
}

Result<void> CgroupsIsolator::cleanup(const ContainerID& containerId) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = containers_.find(containerId.value()); it != containers_.end()) {
      forget(it->second);
      containers_.erase(it);
    }
  }
  auto cgroup = cgroupOf(containerId.value());
  if (!cgroup) return cgroup.error();
  // Nothing runs in it any more (or destroy() says what does).
  return cgroups::destroy(*cgroup, kDestroyTimeout);
}

void CgroupsIsolator::wake() {
  uint64_t one = 1;
  (void)!::write(wakeFd_, &one, sizeof(one));
}

void CgroupsIsolator::watchOom(const std::string& id, Container& container) {
  if (!container.oom) return;
  // Keys, not descriptors, name watches: a descriptor closed meanwhile may
  // be reused by the next container's watch.
  container.key = nextKey_++;
  watched_[container.key] = id;
  epoll_event event{};
  event.events = static_cast<uint32_t>(container.oom->pollEvents()) | EPOLLONESHOT;
  event.data.u64 = container.key;
  if (::epoll_ctl(epollFd_, EPOLL_CTL_ADD, container.oom->fd(), &event) != 0) {
    PLOG(ERROR) << "Container " << id << ": cannot watch for OOM; its memory limit will "
                << "only be noticed when its executor ends";
  }
}

void CgroupsIsolator::forget(Container& container) {
  watched_.erase(container.key);
  container.key = 0;
  container.oom.reset();  // closing its descriptor takes it out of epollFd_
}

// Waits on every container's OOM watch (epoll: a container coming or going
// costs one call, not a rebuilt set); a container that hit its limit is
// reported once, with what it used and its limit.
void CgroupsIsolator::watchLoop() {
  constexpr int kBatch = 64;
  epoll_event events[kBatch];
  while (!stopping_) {
    int ready = ::epoll_wait(epollFd_, events, kBatch, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      PLOG(ERROR) << "Cannot wait for OOM events; memory limits are no longer reported";
      return;
    }
    for (int i = 0; i < ready; ++i) {
      const uint64_t key = events[i].data.u64;
      if (key == 0) {
        uint64_t count;
        (void)!::read(wakeFd_, &count, sizeof(count));
        continue;
      }
      ContainerLimitation limitation;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        auto watch = watched_.find(key);
        if (watch == watched_.end()) continue;
        auto it = containers_.find(watch->second);
        if (it == containers_.end() || it->second.key != key || !it->second.oom) {
          watched_.erase(watch);  // its descriptor is closed: epoll forgot it
          continue;
        }
        Container& container = it->second;
        if (container.limitation || !outOfMemory(it->first, container)) {
          if (!container.limitation) {
            epoll_event again{};
            again.events = static_cast<uint32_t>(container.oom->pollEvents()) | EPOLLONESHOT;
            again.data.u64 = key;
            (void)::epoll_ctl(epollFd_, EPOLL_CTL_MOD, container.oom->fd(), &again);
          }
          continue;
        }
        limitation = *container.limitation;
      }
      LOG(WARNING) << "Container " << limitation.containerId.value() << ": "
                   << limitation.message;
      if (options_.onLimitation) options_.onLimitation(limitation);
    }
  }
}

bool CgroupsIsolator::outOfMemory(const std::string& id, Container& container) {
  if (!container.oom) return false;
  auto fired = container.oom->fired();
  if (!fired || !*fired) return false;
  auto stats = cgroups::statistics(container.cgroup);
  uint64_t used = stats && stats->memoryBytes ? *stats->memoryBytes : 0;
  ContainerLimitation limitation;
  limitation.containerId.set_value(id);
  limitation.reason = TaskStatus::REASON_CONTAINER_LIMITATION_MEMORY;
  limitation.message = "Memory limit exceeded: requested " + megabytes(container.memLimit) +
                       ", used " + megabytes(used) +
                       " (the container could not reclaim memory below its limit)";
  Resource mem;
  mem.set_name("mem");
  mem.set_type(Value::SCALAR);
  mem.mutable_scalar()->set_value(static_cast<double>(container.memLimit) / (1024 * 1024));
  limitation.resources = Resources(mem);
  container.limitation = std::move(limitation);
  return true;
}

std::optional<std::vector<pid_t>> CgroupsIsolator::processes(const ContainerID& containerId) {
  cgroups::Cgroup cgroup;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = containers_.find(containerId.value());
    if (it == containers_.end()) return std::nullopt;
    cgroup = it->second.cgroup;
  }
  std::vector<std::string> dirs = cgroup.dirs();
  if (dirs.empty()) return std::nullopt;
  auto pids = cgroups::pids(dirs.front(), /*recursive=*/true);
  if (!pids) {
    // Gone: destroyed, so nothing runs in it.
    if (::access(dirs.front().c_str(), F_OK) != 0) return std::vector<pid_t>{};
    return std::nullopt;
  }
  return std::move(pids).value();
}

std::optional<ContainerLimitation> CgroupsIsolator::limitation(const ContainerID& containerId) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = containers_.find(containerId.value());
  if (it == containers_.end()) return std::nullopt;
  if (!it->second.limitation && !outOfMemory(it->first, it->second)) return std::nullopt;
  return it->second.limitation;
}

}  // namespace mesos::internal::isolation
