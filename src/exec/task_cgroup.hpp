// A task's own cgroup, for an executor that runs several tasks (the default
// executor): whatever a task starts, setsid daemons included, stays in its
// cgroup, so it ends with the task. It goes below the executor's own cgroup,
// which is the container's when the slave's cgroups isolator put the
// executor there; the isolator says so with two variables in the executor's
// environment (cgroups::kHierarchyVariable, kControllersVariable;
// docs/isolation.md). No limits: the container's cover its tasks.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "slave/containerizer/isolators/cgroups/cgroups.hpp"
#include "mesos/result.hpp"

namespace mesos::internal {

// What the isolator said: where the hierarchies are and which controllers
// the container's cgroup has (none on cgroup v2).
struct TaskCgroupsConfig {
  std::string hierarchy;
  std::vector<std::string> controllers;
};

// The isolator's variables from `environment`; nullopt when it has no
// MESOS_CGROUPS_HIERARCHY (no cgroups isolator: tasks get no cgroup).
std::optional<TaskCgroupsConfig> taskCgroupsConfig(
    const std::map<std::string, std::string>& environment);

// The joinFiles (exec/spawn.hpp) that put a process into `cgroup`: its
// cgroup.procs in each of its directories.
std::vector<std::string> joinFilesOf(const cgroups::Cgroup& cgroup);

// The cgroup below the executor's that holds its tasks' cgroups. Not
// "tasks": cgroup v1 has a control file of that name in every cgroup.
inline constexpr char kTaskCgroupsParent[] = "task";

// Creates task `taskId`'s cgroup, "task/<taskId>" below this process's own
// cgroup in each hierarchy of config.controllers (on cgroup v2, with none),
// and returns it; succeeds if it exists. Synchronous cgroupfs I/O (a few
// microseconds); any thread. Fails with one line: an invalid task id (it
// names a directory), an id that is the name of a control file ("tasks",
// "cgroup.procs"...), a hierarchy that cannot be read, or the directory
// that cannot be made and why.
Result<cgroups::Cgroup> makeTaskCgroup(const TaskCgroupsConfig& config, const std::string& taskId);

}  // namespace mesos::internal
