// lxc: the paper's isolation module. Each executor runs inside an LXC
// application container, started through `lxc-execute` with a config the
// isolator generates: new PID, mount, UTS, IPC and cgroup namespaces; the
// host's network (the executor reaches the slave over TCP as it would
// outside), its filesystem and its host name; no console.
//
// Limits: the container's processes live in LXC's cgroups nested in one
// cgroup per container that this isolator owns, <own cgroup>/<root>/<id>
// (the slave's own cgroup, --cgroups_root, the container id), in every
// hierarchy:
//   <root>/<id>            memory limit and CPU shares, written here, out
//                          of the container's sight (its cgroup namespace
//                          starts at payload/), so it cannot raise them
//   <root>/<id>/payload    the container's processes (lxc.cgroup.dir.container)
//   <root>/<id>/monitor    lxc-execute itself (lxc.cgroup.dir.monitor)
//   <root>/<id>/pivot      where lxc-execute moves as it ends
//                          (lxc.cgroup.dir.monitor.pivot), instead of the
//                          lxc.pivot cgroup LXC leaves at each hierarchy's root
// The outer cgroup is a cgroups isolator's container (cgroups_isolator.hpp,
// subsystems cpu and mem), reused whole: resizing, statistics, the OOM
// watcher that reports a memory limit hit as REASON_CONTAINER_LIMITATION_MEMORY,
// destroy by freezer. This isolator adds the LXC config and wrapper, and
// removes what LXC leaves in the other hierarchies and on disk.
//
// docs/isolation.md describes it for users.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slave/containerizer/isolators/cgroups/cgroups_isolator.hpp"
#include "mesos/isolator.hpp"

namespace mesos::internal::isolation {

struct LxcOptions {
  std::string hierarchy = "/sys/fs/cgroup";  // --cgroups_hierarchy
  std::string root = "mesos";                // --cgroups_root
  bool enableCfs = false;                    // --cgroups_enable_cfs
  bool limitSwap = false;                    // --cgroups_limit_swap
  // Where the containers' configs live, one directory each (LXC's lxcpath,
  // given to lxc-execute as -P). Empty: kDefaultLxcPath/<root>.
  std::string lxcPath;
  // Where to look for lxc-execute, as $PATH is written. Empty: $PATH.
  std::string searchPath;
  mesos::isolation::LimitationCallback onLimitation;
};

inline constexpr char kDefaultLxcPath[] = "/run/mesos/lxc";
// Every LXC container this isolator starts is named kLxcNamePrefix + its
// container id.
inline constexpr char kLxcNamePrefix[] = "mesos-";

class LxcIsolator : public mesos::isolation::Isolator {
 public:
  // Finds lxc-execute, checks that this process is root (LXC's privileged
  // containers), builds the cgroups under --cgroups_root and creates the
  // lxcpath directory. Fails with one line naming what is missing (the
  // program and the Debian package to install, a cgroup controller).
  static Result<std::unique_ptr<LxcIsolator>> create(LxcOptions options);

  std::string name() const override { return "lxc"; }

  // Destroys every container left under --cgroups_root and in the lxcpath
  // by an earlier run (not in `known`): kills its processes (its
  // lxc-execute included), removes its cgroups in every hierarchy, its
  // config and LXC's lock file. Also removes the empty lxc.pivot cgroups
  // LXC leaves at the hierarchies' roots when it runs without a pivot of
  // ours. Fails when the leftovers' processes cannot be killed.
  Result<void> recover(const std::map<std::string, pid_t>& known) override;

  // Creates the container's outer cgroups with its limits and OOM watch,
  // and writes its config into <lxcpath>/mesos-<id>/. The launch runs the
  // executor's command under a wrapper (see launchPrefix()).
  Result<mesos::isolation::LaunchRequirements> prepare(
      const mesos::isolation::ContainerConfig& config) override;

  // Nothing to do: lxc-execute puts itself and the container in their
  // cgroups. Fails for a container that was not prepared.
  Result<void> isolate(const ContainerID& containerId, pid_t pid) override;

  // Memory limit and CPU shares of the outer cgroup, as the cgroups
  // isolator writes them (a lower memory limit waits for usage to fall).
  Result<void> update(const ContainerID& containerId, const Resources& resources) override;

  // CPU times, memory, processes and threads of the outer cgroup: the
  // container's processes plus its lxc-execute.
  Result<void> usage(const ContainerID& containerId, ResourceStatistics* statistics) override;

  // Kills every process of the container, lxc-execute included (freezer:
  // freeze, SIGKILL, thaw), bounded at 10 s, and removes the cgroups of the
  // hierarchies it used for that. No LXC tool runs: none can hang here.
  Result<void> kill(const ContainerID& containerId) override;

  // Removes the container's cgroups in every hierarchy, its config
  // directory and LXC's lock file for it. Fails naming the first thing that
  // could not be removed (the others are still tried).
  Result<void> cleanup(const ContainerID& containerId) override;

  // The memory limit the container went past, if it did (the cgroups
  // isolator underneath looks).
  std::optional<mesos::isolation::ContainerLimitation> limitation(
      const ContainerID& containerId) override;

  // The directory of the container's config (LXC's <lxcpath>/<name>).
  std::string stateDir(const std::string& containerId) const;
  const std::string& lxcPath() const { return options_.lxcPath; }
  const std::string& lxcExecute() const { return lxcExecute_; }

  // The config written for container `containerId`: no network namespace
  // change, no console, proc and cgroup mounted, LXC's cgroups nested below
  // `cgroup`, the container's outer cgroup: with `relative`, a path below
  // lxc-execute's own cgroup in each hierarchy ("<root>/<id>", cgroup v1,
  // where that own cgroup may differ from one hierarchy to the next);
  // without, from the hierarchy's root (cgroup v2, whose one hierarchy the
  // slave leaves for a leaf cgroup of its own, so lxc-execute starts there).
  // Pure.
  static std::string config(const std::string& containerId, const std::string& cgroup,
                            bool relative);

  // The command prefix that runs a command in the container `name`: a
  // shell that saves its environment to `environmentFile` (lxc-execute
  // gives the container a clean one) and execs lxc-execute, whose first
  // process restores it and execs the command. Variables whose names are
  // not shell names (A.B=1) do not get through. Pure.
  static std::vector<std::string> launchPrefix(const std::string& lxcExecute,
                                               const std::string& name,
                                               const std::string& configFile,
                                               const std::string& lxcPath,
                                               const std::string& environmentFile);

 private:
  // A cgroup hierarchy LXC makes a container's cgroups in.
  struct Hierarchy {
    std::string mount;  // its mount point
    std::string base;   // mount + the slave's own cgroup there, at start-up
  };

  LxcIsolator(LxcOptions options, std::string lxcExecute, std::vector<Hierarchy> hierarchies,
              std::optional<std::string> v2Base, std::unique_ptr<CgroupsIsolator> cgroups);

  // The container's outer cgroup as config() takes it.
  std::string outerCgroup(const std::string& containerId) const;

  // Removes the container's cgroup trees in every hierarchy, its config
  // directory and its lock file; the first failure.
  Result<void> removeLeftovers(const std::string& containerId);

  const LxcOptions options_;
  const std::string lxcExecute_;  // absolute path
  const std::vector<Hierarchy> hierarchies_;
  // cgroup v2: the slave's own cgroup from the hierarchy's root ("/..."),
  // at start-up. nullopt on v1.
  const std::optional<std::string> v2Base_;
  const std::unique_ptr<CgroupsIsolator> cgroups_;
};

// This process's own cgroup in every cgroup hierarchy mounted at or below
// `hierarchy` (v1 controllers, named v1 hierarchies such as name=systemd,
// and a cgroup2 mount, e.g. /sys/fs/cgroup/unified): the directories below
// which LXC creates a container's cgroups (lxc.cgroup.relative). Sorted.
// Fails when /proc/self/mounts or /proc/self/cgroup cannot be read.
Result<std::vector<std::string>> lxcCgroupBases(const std::string& hierarchy);

}  // namespace mesos::internal::isolation
