// The isolators --isolation names, built from one table: a new isolator is
// a folder under src/slave/containerizer/isolators/ and one line in isolators.cpp.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "mesos/isolator.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::isolation {

// What the isolators are built from: the slave's flags of the same names.
struct IsolationOptions {
  std::string isolation = "posix/cpu,posix/mem";  // --isolation
  std::string cgroupsHierarchy = "/sys/fs/cgroup";  // --cgroups_hierarchy
  std::string cgroupsRoot = "mesos";                // --cgroups_root
  bool cgroupsEnableCfs = false;                    // --cgroups_enable_cfs
  bool cgroupsLimitSwap = false;                    // --cgroups_limit_swap
  // lxc: the directory of its containers' configs (LXC's lxcpath); empty:
  // /run/mesos/lxc/<cgroupsRoot>. No slave flag sets it yet.
  std::string lxcPath;
  // disk/du: how often each sandbox is measured, and whether a container
  // using more than its `disk` is killed.
  std::chrono::milliseconds containerDiskWatchInterval{15000};  // --container_disk_watch_interval
  bool enforceContainerDiskQuota = false;  // --enforce_container_disk_quota
  // disk/xfs: the filesystem of the sandboxes, and the project ids it uses.
  std::string workDir;                           // --work_dir
  std::string xfsProjectRange = "[5000-10000]";  // --xfs_project_range
  // network/cni (cni_isolator.hpp): the networks' configurations and the
  // plugins' directories (':' between them).
  std::string networkCniConfigDir;   // --network_cni_config_dir
  std::string networkCniPluginsDir;  // --network_cni_plugins_dir
  // Each container's namespace, files and checkpoints; empty: as Apache
  // Mesos, /run/mesos/isolators/network/cni. No slave flag sets it.
  std::string networkCniRootDir;
  // When set, the network namespace file the plugins run in (tests keep the
  // bridges they make out of the machine's namespace). No slave flag.
  std::string networkCniPluginNetns;
  // Called, from any thread, when a container goes past a limit.
  mesos::isolation::LimitationCallback onLimitation;
};

// --isolation's comma-separated list with its aliases expanded ("posix" is
// posix/cpu,posix/mem; "cgroups" cgroups/cpu,cgroups/mem; "cgroups/all"
// cgroups/cpu,cgroups/mem,cgroups/pids), in order, without repeats. Fails naming an unknown
// item and the names there are.
Result<std::vector<std::string>> expandIsolation(const std::string& isolation);

// The isolators of options.isolation, in its order (the posix/* names are
// served by one isolator, and so are the cgroups/* names, at the place of
// the first). Fails with one line
// naming the isolator that cannot work here and why.
Result<std::vector<std::unique_ptr<mesos::isolation::Isolator>>> createIsolators(
    const IsolationOptions& options);

}  // namespace mesos::internal::isolation
