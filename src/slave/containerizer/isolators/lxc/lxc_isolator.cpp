#include "slave/containerizer/isolators/lxc/lxc_isolator.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <glog/logging.h>

#include "slave/containerizer/isolators/cgroups/cgroups.hpp"

namespace mesos::internal::isolation {

namespace {

namespace fs = std::filesystem;
using mesos::isolation::ContainerConfig;
using mesos::isolation::LaunchRequirements;

constexpr char kLxcExecute[] = "lxc-execute";
constexpr char kDefaultSearchPath[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
// Where LXC, run by root, keeps a lock file per container:
// <kLockDir><lxcpath>/.<name>. It never removes them.
constexpr char kLockDir[] = "/run/lxc/lock";
// The lxc.pivot cgroup LXC makes at a hierarchy's root for a monitor that
// has no lxc.cgroup.dir.monitor.pivot.
constexpr char kRootPivot[] = "lxc.pivot";

std::string errnoText(int err) { return std::strerror(err); }

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool isExecutable(const std::string& path) {
  struct stat s {};
  return ::stat(path.c_str(), &s) == 0 && S_ISREG(s.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// `program` in the directories of `searchPath` (':'-separated), or "".
std::string findProgram(const std::string& program, const std::string& searchPath) {
  std::stringstream dirs(searchPath);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + program;
    if (isExecutable(candidate)) return candidate;
  }
  return "";
}

// `text` as one word of a POSIX shell command.
std::string shellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
  return quoted + "'";
}

// Creates `path` and its missing parents (0755); `path` itself gets `mode`.
Result<void> makeDirectories(const std::string& path, mode_t mode) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Error{"cannot create directory " + path + ": " + ec.message(), ec.value()};
  if (::chmod(path.c_str(), mode) != 0) {
    return Error{"cannot set the mode of " + path + ": " + errnoText(errno), errno};
  }
  return {};
}

// The directories directly in `dir` (none when it does not exist).
std::vector<std::string> subdirectories(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) names.push_back(it->path().filename());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Removes the cgroup `dir` and every cgroup below it, deepest first (a
// cgroup directory goes with rmdir alone). Succeeds when it is gone
// already. Fails naming the first directory rmdir refuses.
Result<void> removeCgroupTree(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return {};
  std::vector<std::string> order;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) order.push_back(it->path().string());
  }
  std::sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
  });
  order.push_back(dir);
  for (const std::string& each : order) {
    if (::rmdir(each.c_str()) == 0 || errno == ENOENT) continue;
    int err = errno;
    return Error{"cannot remove cgroup " + each + ": " + errnoText(err) + " (processes: " +
                     readText(each + "/cgroup.procs") + ")",
                 err};
  }
  return {};
}

struct Found {
  std::string mount;  // a cgroup hierarchy's mount point
  std::string base;   // mount + this process's own cgroup there
};

// The cgroup hierarchies at or below `hierarchy`, with this process's own
// cgroup in each.
Result<std::vector<Found>> hierarchies(const std::string& hierarchy) {
  std::string mountsText = readText("/proc/self/mounts");
  std::string cgroupText = readText("/proc/self/cgroup");
  if (mountsText.empty() || cgroupText.empty()) {
    return Error{"cannot read /proc/self/mounts or /proc/self/cgroup"};
  }
  auto memberships = cgroups::parseProcCgroup(cgroupText);
  if (!memberships) return memberships.error();
  std::string prefix = hierarchy;
  while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  std::vector<Found> found;
  std::set<int> seen;  // hierarchy ids: a hierarchy mounted twice counts once
  for (const cgroups::Mount& mount : cgroups::parseMounts(mountsText)) {
    if (mount.type != "cgroup" && mount.type != "cgroup2") continue;
    if (mount.target != prefix && mount.target.rfind(prefix + "/", 0) != 0) continue;
    for (const cgroups::Membership& member : *memberships) {
      bool matches;
      if (mount.type == "cgroup2") {
        matches = member.controllers.empty() && member.hierarchyId == 0;
      } else {
        matches = !member.controllers.empty() &&
                  std::all_of(member.controllers.begin(), member.controllers.end(),
                              [&](const std::string& controller) {
                                return std::find(mount.options.begin(), mount.options.end(),
                                                 controller) != mount.options.end();
                              });
      }
      if (!matches || !seen.insert(member.hierarchyId).second) continue;
      found.push_back({mount.target, mount.target + (member.path == "/" ? "" : member.path)});
      break;
    }
  }
  std::sort(found.begin(), found.end(),
            [](const Found& a, const Found& b) { return a.base < b.base; });
  return found;
}

bool validId(const std::string& id) {
  return !id.empty() && id != "." && id != ".." && id.find('/') == std::string::npos &&
         id.find_first_of(" \t\n\r\0", 0, 5) == std::string::npos;
}

}  // namespace

Result<std::vector<std::string>> lxcCgroupBases(const std::string& hierarchy) {
  auto found = hierarchies(hierarchy);
  if (!found) return found.error();
  std::vector<std::string> bases;
  for (const Found& each : *found) bases.push_back(each.base);
  return bases;
}

Result<std::unique_ptr<LxcIsolator>> LxcIsolator::create(LxcOptions options) {
  std::string searchPath = options.searchPath;
  if (searchPath.empty()) {
    const char* path = std::getenv("PATH");
    searchPath = path != nullptr && *path != '\0' ? path : kDefaultSearchPath;
  }
  std::string lxcExecute = findProgram(kLxcExecute, searchPath);
  if (lxcExecute.empty()) {
    return Error{std::string("needs the program ") + kLxcExecute + ", which is not on PATH (" +
                 searchPath + "): install the Debian package lxc (apt-get install " +
                 "--no-install-recommends lxc)"};
  }
  if (::geteuid() != 0) {
    return Error{"needs root: its LXC containers are privileged (this process runs as uid " +
                 std::to_string(::geteuid()) + ")"};
  }
  if (options.lxcPath.empty()) options.lxcPath = std::string(kDefaultLxcPath) + "/" + options.root;
  std::error_code ec;
  fs::path absolute = fs::absolute(options.lxcPath, ec).lexically_normal();
  options.lxcPath = absolute.string();
  while (options.lxcPath.size() > 1 && options.lxcPath.back() == '/') options.lxcPath.pop_back();

  // Before the cgroups isolator is built: on cgroup v2 it moves this
  // process into a leaf cgroup of its own.
  auto found = hierarchies(options.hierarchy);
  if (!found) {
    return Error{"cannot find the cgroup hierarchies below " + options.hierarchy + ": " +
                 found.error().message};
  }
  std::vector<Hierarchy> mounted;
  for (const Found& each : *found) mounted.push_back({each.mount, each.base});
  auto layout = cgroups::Layout::detect(options.hierarchy);
  if (!layout) return Error{"--cgroups_hierarchy: " + layout.error().message};
  std::optional<std::string> v2Base;
  if (layout->version() == cgroups::Version::kV2) {
    v2Base = layout->self("memory");
    if (!v2Base) return Error{"cannot tell this process's cgroup from /proc/self/cgroup"};
  }

  CgroupsOptions cgroups;
  cgroups.hierarchy = options.hierarchy;
  cgroups.root = options.root;
  cgroups.enableCfs = options.enableCfs;
  cgroups.limitSwap = options.limitSwap;
  cgroups.subsystems = {"cpu", "mem"};
  cgroups.onLimitation = options.onLimitation;
  auto outer = CgroupsIsolator::create(std::move(cgroups));
  if (!outer) return Error{"its cgroups: " + outer.error().message};
  if (auto made = makeDirectories(options.lxcPath, 0700); !made) {
    return Error{"cannot create its lxcpath: " + made.error().message};
  }
  return std::unique_ptr<LxcIsolator>(
      new LxcIsolator(std::move(options), std::move(lxcExecute), std::move(mounted),
                      std::move(v2Base), std::move(outer).value()));
}

LxcIsolator::LxcIsolator(LxcOptions options, std::string lxcExecute,
                         std::vector<Hierarchy> hierarchies, std::optional<std::string> v2Base,
                         std::unique_ptr<CgroupsIsolator> cgroups)
    : options_(std::move(options)),
      lxcExecute_(std::move(lxcExecute)),
      hierarchies_(std::move(hierarchies)),
      v2Base_(std::move(v2Base)),
      cgroups_(std::move(cgroups)) {}

std::string LxcIsolator::outerCgroup(const std::string& containerId) const {
  std::string cgroup = options_.root + "/" + containerId;
  if (!v2Base_) return cgroup;
  size_t start = v2Base_->find_first_not_of('/');
  return start == std::string::npos ? cgroup : v2Base_->substr(start) + "/" + cgroup;
}

std::string LxcIsolator::stateDir(const std::string& containerId) const {
  return options_.lxcPath + "/" + kLxcNamePrefix + containerId;
}

std::string LxcIsolator::config(const std::string& containerId, const std::string& cgroup,
                                bool relative) {
  std::string text;
  text += "# LXC config of Mesos container " + containerId + ", written by the slave's\n";
  text += "# lxc isolator (docs/isolation.md) and removed with the container.\n";
  text += "# The host's network: the executor reaches the slave as it would outside.\n";
  text += "lxc.net.0.type = none\n";
  text += "lxc.console.path = none\n";
  text += "lxc.mount.auto = proc:mixed cgroup:mixed\n";
  text += relative ? "# Cgroups below the slave's own (lxc.cgroup.relative). "
                   : "# Cgroups from the hierarchy's root. ";
  text += "The memory limit and\n";
  text += "# CPU shares, from the executor's and its tasks' resources, are on\n";
  text += "# " + cgroup + " itself, above the container's cgroup namespace.\n";
  if (relative) text += "lxc.cgroup.relative = 1\n";
  text += "lxc.cgroup.dir.container = " + cgroup + "/payload\n";
  text += "lxc.cgroup.dir.monitor = " + cgroup + "/monitor\n";
  text += "lxc.cgroup.dir.monitor.pivot = " + cgroup + "/pivot\n";
  return text;
}

std::vector<std::string> LxcIsolator::launchPrefix(const std::string& lxcExecute,
                                                   const std::string& name,
                                                   const std::string& configFile,
                                                   const std::string& lxcPath,
                                                   const std::string& environmentFile) {
  // export -p writes the variables as commands a shell reads back.
  std::string script = "export -p > " + shellQuote(environmentFile) + " || exit 127; exec " +
                       shellQuote(lxcExecute) + " -n " + shellQuote(name) + " -f " +
                       shellQuote(configFile) + " -P " + shellQuote(lxcPath) +
                       " -- /bin/sh -c '. \"$0\" && exec \"$@\"' " + shellQuote(environmentFile) +
                       " \"$@\"";
  return {"/bin/sh", "-c", script, "mesos-lxc"};
}

Result<void> LxcIsolator::recover(const std::map<std::string, pid_t>& known) {
  // The outer cgroups first: that kills what runs in the leftovers.
  if (auto recovered = cgroups_->recover(known); !recovered) return recovered;
  std::set<std::string> leftovers;
  for (const Hierarchy& each : hierarchies_) {
    for (const std::string& id : subdirectories(each.base + "/" + options_.root)) {
      if (!known.count(id)) leftovers.insert(id);
    }
  }
  const std::string prefix = kLxcNamePrefix;
  for (const std::string& entry : subdirectories(options_.lxcPath)) {
    if (entry.rfind(prefix, 0) != 0) continue;
    std::string id = entry.substr(prefix.size());
    if (!known.count(id)) leftovers.insert(id);
  }
  for (const std::string& id : leftovers) {
    LOG(INFO) << "Removing LXC container " << kLxcNamePrefix << id
              << ", left by an earlier run";
    if (auto removed = removeLeftovers(id); !removed) {
      LOG(WARNING) << "Cannot remove all of LXC container " << kLxcNamePrefix << id << ": "
                   << removed.error().message;
    }
  }
  // rmdir takes only an empty cgroup: one in use stays.
  for (const Hierarchy& each : hierarchies_) {
    std::string pivot = each.mount + "/" + kRootPivot;
    if (::rmdir(pivot.c_str()) == 0) {
      LOG(INFO) << "Removed the empty cgroup " << pivot << " LXC left";
    } else if (errno != ENOENT) {
      VLOG(1) << "Leaving " << pivot << ": " << errnoText(errno);
    }
  }
  return {};
}

Result<LaunchRequirements> LxcIsolator::prepare(const ContainerConfig& config) {
  const std::string& id = config.containerId.value();
  if (!validId(id)) return Error{"container id '" + id + "' cannot name an LXC container"};
  const std::string dir = stateDir(id);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (::mkdir(dir.c_str(), 0700) != 0) {
    return Error{"cannot create " + dir + ": " + errnoText(errno), errno};
  }
  const std::string configFile = dir + "/config";
  {
    std::ofstream out(configFile);
    out << LxcIsolator::config(id, outerCgroup(id), !v2Base_);
    out.close();
    if (!out) {
      fs::remove_all(dir, ec);
      return Error{"cannot write " + configFile};
    }
  }
  // The executor makes no cgroup below the outer one (it does not hear of
  // it): nothing to give its user.
  ContainerConfig outer = config;
  outer.user.clear();
  auto prepared = cgroups_->prepare(outer);
  if (!prepared) {
    fs::remove_all(dir, ec);
    return prepared.error();
  }
  // Not prepared->joinFiles: lxc-execute moves itself and the container
  // into cgroups below the outer one; a process in the outer one too would
  // be an internal process on cgroup v2.
  LaunchRequirements requirements;
  requirements.commandPrefix = launchPrefix(lxcExecute_, kLxcNamePrefix + id, configFile,
                                            options_.lxcPath, dir + "/environment");
  return requirements;
}

Result<void> LxcIsolator::isolate(const ContainerID& containerId, pid_t) {
  std::string configFile = stateDir(containerId.value()) + "/config";
  if (::access(configFile.c_str(), F_OK) != 0) {
    return Error{"container " + containerId.value() + " was not prepared (no " + configFile + ")"};
  }
  return {};
}

Result<void> LxcIsolator::update(const ContainerID& containerId, const Resources& resources) {
  return cgroups_->update(containerId, resources);
}

Result<void> LxcIsolator::usage(const ContainerID& containerId, ResourceStatistics* statistics) {
  return cgroups_->usage(containerId, statistics);
}

Result<void> LxcIsolator::kill(const ContainerID& containerId) {
  return cgroups_->kill(containerId);
}

Result<void> LxcIsolator::cleanup(const ContainerID& containerId) {
  Result<void> outer = cgroups_->cleanup(containerId);
  Result<void> rest = removeLeftovers(containerId.value());
  return outer ? rest : outer;
}

std::optional<mesos::isolation::ContainerLimitation> LxcIsolator::limitation(
    const ContainerID& containerId) {
  return cgroups_->limitation(containerId);
}

Result<void> LxcIsolator::removeLeftovers(const std::string& containerId) {
  Result<void> first;
  auto keep = [&first](Result<void> result) {
    if (!result && first) first = std::move(result);
  };
  for (const Hierarchy& each : hierarchies_) {
    keep(removeCgroupTree(each.base + "/" + options_.root + "/" + containerId));
  }
  const std::string dir = stateDir(containerId);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) keep(Error{"cannot remove " + dir + ": " + ec.message(), ec.value()});
  const std::string lock =
      std::string(kLockDir) + options_.lxcPath + "/." + kLxcNamePrefix + containerId;
  if (::unlink(lock.c_str()) != 0 && errno != ENOENT) {
    keep(Error{"cannot remove " + lock + ": " + errnoText(errno), errno});
  }
  return first;
}

}  // namespace mesos::internal::isolation
