#include "slave/containerizer/isolators/isolators.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "slave/containerizer/isolators/cgroups/cgroups_isolator.hpp"
#include "slave/containerizer/isolators/disk/disk_du_isolator.hpp"
#include "slave/containerizer/isolators/disk/disk_xfs_isolator.hpp"
#include "slave/containerizer/isolators/docker/runtime_isolator.hpp"
#include "slave/containerizer/isolators/filesystem/linux_filesystem_isolator.hpp"
#include "slave/containerizer/isolators/lxc/lxc_isolator.hpp"
#include "slave/containerizer/isolators/namespaces/namespaces_isolator.hpp"
#include "slave/containerizer/isolators/network/cni/cni_isolator.hpp"
#include "slave/containerizer/isolators/posix/posix_isolator.hpp"

namespace mesos::internal::isolation {

namespace {

using mesos::isolation::Isolator;
// Builds the isolator for `names`: every name of --isolation of the same
// entry's family (one name, or all the cgroups/* names).
using Factory = std::function<Result<std::unique_ptr<Isolator>>(
    const IsolationOptions&, const std::vector<std::string>& names)>;

struct Entry {
  const char* name;
  const char* family;  // names of one family are served by one isolator
  Factory make;
};

bool named(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

Result<std::unique_ptr<Isolator>> posix(const IsolationOptions&,
                                        const std::vector<std::string>& names) {
  return std::unique_ptr<Isolator>(
      new PosixIsolator(named(names, "posix/cpu"), named(names, "posix/mem")));
}

Result<std::unique_ptr<Isolator>> cgroups(const IsolationOptions& options,
                                          const std::vector<std::string>& names) {
  CgroupsOptions cgroups;
  cgroups.hierarchy = options.cgroupsHierarchy;
  cgroups.root = options.cgroupsRoot;
  cgroups.enableCfs = options.cgroupsEnableCfs;
  cgroups.limitSwap = options.cgroupsLimitSwap;
  cgroups.onLimitation = options.onLimitation;
  for (const std::string& name : names) cgroups.subsystems.insert(name.substr(name.find('/') + 1));
  auto isolator = CgroupsIsolator::create(std::move(cgroups));
  if (!isolator) return isolator.error();
  return std::unique_ptr<Isolator>(std::move(isolator).value());
}

Result<std::unique_ptr<Isolator>> lxc(const IsolationOptions& options,
                                      const std::vector<std::string>&) {
  if (auto names = expandIsolation(options.isolation)) {
    for (const std::string& name : *names) {
      if (name.rfind("cgroups/", 0) == 0) {
        return Error{"cannot be combined with " + name +
                     ": both would own the container's cgroups (lxc limits CPU and memory "
                     "itself; drop the cgroups/* names)"};
      }
    }
  }
  LxcOptions lxc;
  lxc.hierarchy = options.cgroupsHierarchy;
  lxc.root = options.cgroupsRoot;
  lxc.enableCfs = options.cgroupsEnableCfs;
  lxc.limitSwap = options.cgroupsLimitSwap;
  lxc.lxcPath = options.lxcPath;
  lxc.onLimitation = options.onLimitation;
  auto isolator = LxcIsolator::create(std::move(lxc));
  if (!isolator) return isolator.error();
  return std::unique_ptr<Isolator>(std::move(isolator).value());
}

Result<std::unique_ptr<Isolator>> diskDu(const IsolationOptions& options,
                                         const std::vector<std::string>&) {
  DiskDuOptions disk;
  disk.interval = options.containerDiskWatchInterval;
  disk.enforce = options.enforceContainerDiskQuota;
  disk.onLimitation = options.onLimitation;
  return std::unique_ptr<Isolator>(new DiskDuIsolator(std::move(disk)));
}

Result<std::unique_ptr<Isolator>> diskXfs(const IsolationOptions& options,
                                          const std::vector<std::string>&) {
  if (auto names = expandIsolation(options.isolation)) {
    for (const std::string& name : *names) {
      if (name == "disk/du") return Error{"cannot be combined with disk/du: both measure the disk"};
    }
  }
  DiskXfsOptions disk;
  disk.workDir = options.workDir;
  disk.projectRange = options.xfsProjectRange;
  disk.enforce = options.enforceContainerDiskQuota;
  auto isolator = DiskXfsIsolator::create(std::move(disk));
  if (!isolator) return isolator.error();
  return std::unique_ptr<Isolator>(std::move(isolator).value());
}

Result<std::unique_ptr<Isolator>> networkCni(const IsolationOptions& options,
                                             const std::vector<std::string>&) {
  CniOptions cni;
  cni.configDir = options.networkCniConfigDir;
  cni.pluginsDir = options.networkCniPluginsDir;
  if (!options.networkCniRootDir.empty()) cni.rootDir = options.networkCniRootDir;
  cni.pluginNetns = options.networkCniPluginNetns;
  auto isolator = CniIsolator::create(std::move(cni));
  if (!isolator) return isolator.error();
  return std::unique_ptr<Isolator>(std::move(isolator).value());
}

Result<std::unique_ptr<Isolator>> namespaces(const IsolationOptions&,
                                             const std::vector<std::string>& names) {
  auto isolator = NamespacesIsolator::create(names);
  if (!isolator) return isolator.error();
  return std::unique_ptr<Isolator>(std::move(isolator).value());
}

Result<std::unique_ptr<Isolator>> linuxFilesystem(const IsolationOptions&,
                                                  const std::vector<std::string>&) {
  auto isolator = LinuxFilesystemIsolator::create();
  if (!isolator) return isolator.error();
  return std::unique_ptr<Isolator>(std::move(isolator).value());
}

Result<std::unique_ptr<Isolator>> dockerRuntime(const IsolationOptions&,
                                                const std::vector<std::string>&) {
  return std::unique_ptr<Isolator>(std::make_unique<DockerRuntimeIsolator>());
}

// One line per isolator.
const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      {"posix/cpu", "posix", posix},
      {"posix/mem", "posix", posix},
      {"cgroups/cpu", "cgroups", cgroups},
      {"cgroups/mem", "cgroups", cgroups},
      {"cgroups/pids", "cgroups", cgroups},
      {"lxc", "lxc", lxc},
      {"disk/du", "disk/du", diskDu},
      {"disk/xfs", "disk/xfs", diskXfs},
      {"filesystem/linux", "filesystem/linux", linuxFilesystem},
      {"namespaces/pid", "namespaces", namespaces},
      {"namespaces/ipc", "namespaces", namespaces},
      {"network/cni", "network/cni", networkCni},
      {"docker/runtime", "docker/runtime", dockerRuntime},
  };
  return entries;
}

// Names that stand for several isolators.
const std::vector<std::pair<std::string, std::vector<std::string>>>& aliases() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> entries = {
      {"posix", {"posix/cpu", "posix/mem"}},
      {"cgroups", {"cgroups/cpu", "cgroups/mem"}},
      {"cgroups/all", {"cgroups/cpu", "cgroups/mem", "cgroups/pids"}},
  };
  return entries;
}

const Entry* find(const std::string& name) {
  for (const Entry& entry : table()) {
    if (name == entry.name) return &entry;
  }
  return nullptr;
}

}  // namespace

Result<std::vector<std::string>> expandIsolation(const std::string& isolation) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  std::stringstream list(isolation);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.empty()) continue;
    std::vector<std::string> expanded = {item};
    for (const auto& [alias, members] : aliases()) {
      if (item == alias) expanded = members;
    }
    for (const std::string& name : expanded) {
      if (find(name) == nullptr) {
        std::string known;
        for (const Entry& entry : table()) known += (known.empty() ? "" : ", ") + std::string(entry.name);
        for (const auto& [alias, members] : aliases()) known += ", " + alias;
        return Error{"--isolation: unknown isolator '" + name + "' (known: " + known + ")"};
      }
      if (seen.insert(name).second) names.push_back(name);
    }
  }
  if (names.empty()) return Error{"--isolation: names no isolator (e.g. posix/cpu,posix/mem)"};
  return names;
}

Result<std::vector<std::unique_ptr<Isolator>>> createIsolators(const IsolationOptions& options) {
  auto names = expandIsolation(options.isolation);
  if (!names) return names.error();
  std::vector<std::unique_ptr<Isolator>> isolators;
  std::set<std::string> built;  // families
  for (const std::string& name : *names) {
    const Entry* entry = find(name);
    if (!built.insert(entry->family).second) continue;
    std::vector<std::string> family;
    for (const std::string& other : *names) {
      if (std::string(find(other)->family) == entry->family) family.push_back(other);
    }
    auto isolator = entry->make(options, family);
    if (!isolator) return Error{"--isolation: " + name + ": " + isolator.error().message};
    isolators.push_back(std::move(isolator).value());
  }
  return isolators;
}

}  // namespace mesos::internal::isolation
