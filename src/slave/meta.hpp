// What the slave checkpoints under <work_dir>/meta/ for a restarted slave
// (docs/recovery.md), where each file lives, and reading it all back.
//
//   meta/boot_id                          the machine's boot id when written
//   meta/resources/resources.info         the dynamic reservations and
//                                         persistent volumes (slave/volumes.hpp)
//   meta/slaves/latest                    the id of the slave that ran last
//   meta/slaves/<slave id>/slave.info     its SlaveInfo
//     frameworks/<framework id>/framework.info, framework.pid
//       executors/<executor id>/executor.info
//         runs/<container id>/pids/forked.pid      "<pid> <start ticks>"
//                             pids/libprocess.pid  the executor driver's UPID
//                             completed            the run ended
//           tasks/<task id>/task.info     the Task as it was launched
//                           task.updates  its status update stream (a log)
//     containers/<container id>           "<pid> <start ticks>" of an
//                                         executor of a framework that does
//                                         not checkpoint, while it runs
//
// Only frameworks with FrameworkInfo.checkpoint have anything below
// frameworks/. Every file but task.updates is written whole and atomically
// (checkpoint::write); task.updates is a record log the status update
// manager appends to.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mesos/result.hpp"
#include "mesos.pb.h"
#include "process/upid.hpp"
#include "slave/status_update_manager.hpp"

namespace mesos::internal::slave::meta {

std::string bootIdPath(const std::string& workDir);
std::string latestSlavePath(const std::string& workDir);
std::string slavePath(const std::string& workDir, const std::string& slaveId);
std::string slaveInfoPath(const std::string& workDir, const std::string& slaveId);
// The DrainConfig of a draining slave (docs/draining.md), until drained.
std::string drainConfigPath(const std::string& workDir, const std::string& slaveId);
std::string frameworkPath(const std::string& workDir, const std::string& slaveId,
                          const std::string& frameworkId);
std::string frameworkInfoPath(const std::string& workDir, const std::string& slaveId,
                              const std::string& frameworkId);
std::string frameworkPidPath(const std::string& workDir, const std::string& slaveId,
                             const std::string& frameworkId);
std::string executorPath(const std::string& workDir, const std::string& slaveId,
                         const std::string& frameworkId, const std::string& executorId);
std::string executorInfoPath(const std::string& workDir, const std::string& slaveId,
                             const std::string& frameworkId, const std::string& executorId);
std::string runPath(const std::string& workDir, const std::string& slaveId,
                    const std::string& frameworkId, const std::string& executorId,
                    const std::string& containerId);
std::string containerPidPath(const std::string& workDir, const std::string& slaveId,
                             const std::string& containerId);
std::string forkedPidPath(const std::string& runPath);
std::string libprocessPidPath(const std::string& runPath);
std::string completedPath(const std::string& runPath);
// Present once the master shut the run's framework down on this slave: a
// restarted slave neither keeps the run nor sends its updates on.
std::string shutDownPath(const std::string& runPath);
std::string taskInfoPath(const std::string& runPath, const std::string& taskId);
std::string taskUpdatesPath(const std::string& runPath, const std::string& taskId);

// This boot of the machine (/proc/sys/kernel/random/boot_id); empty when
// the kernel does not say.
std::string currentBootId();

// "<pid> <start ticks>", and back. Fails naming what does not parse.
std::string formatForkedPid(pid_t pid, uint64_t startTicks);
Result<std::pair<pid_t, uint64_t>> parseForkedPid(const std::string& text);

struct TaskCheckpoint {
  TaskID id;
  std::optional<Task> info;  // task.info
  std::optional<StatusUpdateManager::Records> updates;  // task.updates, when there is one
  std::string updatesPath;
};

struct RunState {
  ContainerID id;
  std::string path;  // its directory under meta/
  std::optional<pid_t> forkedPid;
  uint64_t startTicks = 0;
  std::optional<process::UPID> libprocessPid;
  bool completed = false;
  bool shutDown = false;  // shutDownPath() exists
  std::map<std::string, TaskCheckpoint> tasks;
};

struct ExecutorState {
  ExecutorID id;
  std::optional<ExecutorInfo> info;
  std::map<std::string, RunState> runs;  // by container id
};

struct FrameworkState {
  FrameworkID id;
  std::optional<FrameworkInfo> info;
  std::optional<process::UPID> pid;  // the scheduler, when it was known
  std::map<std::string, ExecutorState> executors;
};

struct SlaveState {
  SlaveID id;
  SlaveInfo info;
  bool rebooted = false;  // the boot id changed: no process of the old run lives
  std::map<std::string, FrameworkState> frameworks;
  // Without --strict: one line for each file left out, naming it and why.
  std::vector<std::string> skipped;
  // Runs below a framework or executor whose info was left out, and the
  // executors of frameworks that do not checkpoint: their processes (when
  // the pid still reads) are to be killed, not kept.
  std::vector<RunState> orphans;
};

// Reads back what an earlier run checkpointed under `workDir`. Empty when
// there is nothing to recover (no meta/slaves/latest). With `strict`, the
// first file that cannot be read (missing where required, truncated,
// garbage, a torn-apart update log) fails the whole, naming the file;
// without, that file and what depends on it are left out and said in
// `skipped`. A torn last record of an update log is a crash's (or a full
// disk's) doing, not corruption: it is left out in either mode (and said in
// `skipped`); so is a task whose task.info was never written.
// Blocks on the disk: call at start-up, not from an actor.
Result<std::optional<SlaveState>> recover(const std::string& workDir, bool strict);

}  // namespace mesos::internal::slave::meta
