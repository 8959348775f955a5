// The isolation module interface: what puts an executor's processes in a
// container, sizes the container to the executor's resources as its tasks
// come and go, measures it, and reports when it hits a limit (the paper's
// section 3.4; docs/isolation.md). The slave runs one or more isolators,
// chosen by --isolation, for every executor it launches.
//
// Life of a container, as the slave's containerizer drives it:
//   prepare()   before the executor's process exists; says what the launch
//               must do (join cgroups, run under a wrapper)
//   isolate()   once the process exists (it has joined what prepare() asked
//               and has not run the executor's code yet)
//   update()    on every task start and finish (the new total)
//   usage()     whenever statistics are asked for
//   cleanup()   after every process of the container is dead
// and recover() once, at start-up, before any of these, then recovered()
// for each container it kept.
//
// Threading: an isolator is called by one thread at a time, never
// concurrently, from the slave's containerizer. Calls may block briefly on
// the kernel (writing a cgroup file, freezing a cgroup: milliseconds), never
// on the network or on a process that could hang. A limitation found
// between calls (a memory limit hit) is reported through the callback given
// to the isolator's factory, from any thread: it must only hand the news on.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mesos/resources.hpp"
#include "mesos/result.hpp"
#include "mesos.pb.h"

namespace mesos::isolation {

// The container an isolator is asked to prepare.
struct ContainerConfig {
  ContainerID containerId;
  FrameworkID frameworkId;
  ExecutorInfo executor;
  std::string directory;  // the executor's sandbox
  Resources resources;    // the executor's own plus its first tasks'
  std::string user;       // who the executor runs as; "": the slave's user

  // A container from an image (ContainerInfo.mesos.image): the root
  // filesystem the slave provisioned for it on the host ("": the host's
  // own), and the image's runtime configuration.
  std::string rootfs;
  // Whether the executor runs in `rootfs`; false for the command executor,
  // which stays on the host's root and starts its task in there.
  bool executorInRootfs = true;
  struct Image {
    std::vector<std::string> entrypoint;
    std::vector<std::string> cmd;
    std::vector<std::string> env;  // "NAME=value"
    std::string workingDir;
    std::string user;
  };
  std::optional<Image> image;
};

// What prepare() asks of the launch. Each isolator's asks are merged, in
// the order of --isolation.
struct LaunchRequirements {
  // Files the executor's process writes its own pid to before it runs
  // anything else (cgroup.procs files): nothing it forks escapes them.
  std::vector<std::string> joinFiles;
  // A wrapper the executor's command runs under (e.g. lxc-execute ... --).
  std::vector<std::string> commandPrefix;
  // Added to the executor's environment.
  std::map<std::string, std::string> environment;
  // Namespaces the executor gets new ones of, named as in /proc/<pid>/ns
  // ("pid", "ipc", "net", "uts", "mnt"). The launch helper enters them
  // after the joins, before anything else runs. With "pid", the executor
  // is the first process (pid 1) of its namespace, in a mount namespace of
  // its own with its own /proc, and every process of the namespace dies
  // with it.
  std::vector<std::string> namespaces;
  // Bind mounts the launch helper makes in the container's own mount
  // namespace before anything runs: `source` on the host, `target`
  // absolute (in the container's root filesystem) or relative to the
  // sandbox. They need a mount namespace, which the helper then enters.
  struct Mount {
    std::string source;
    std::string target;
    bool readOnly = false;
  };
  std::vector<Mount> mounts;
  // The container's root filesystem (a provisioned image) on the host;
  // empty: the host's. With one, the sandbox shows at /mnt/mesos/sandbox
  // (MESOS_SANDBOX) and the executor starts in `workingDirectory` there
  // (empty: the sandbox; an isolator may give one without a rootfs).
  std::string rootfs;
  std::string workingDirectory;
  // With `rootfs`: everything is mounted into it, but the executor stays
  // on the host's root (the command executor starts its task in it).
  bool rootfsForTask = false;
};

// A limit the container went past. The slave kills the container and fails
// its unfinished tasks with `reason` (source SOURCE_SLAVE) and `message`.
struct ContainerLimitation {
  ContainerID containerId;
  TaskStatus::Reason reason = TaskStatus::REASON_CONTAINER_LIMITATION;
  std::string message;  // names what was exceeded, with usage and limit
  Resources resources;  // the resources that were exceeded, when known
};

using LimitationCallback = std::function<void(const ContainerLimitation&)>;

class Isolator {
 public:
  virtual ~Isolator() = default;

  // The name it was chosen by ("posix/cpu", "cgroups/mem", "lxc"...).
  virtual std::string name() const = 0;

  // Whether its isolate(), kill() and cleanup() may run while its other
  // calls run, for other containers: it guards its own state. The
  // containerizer then calls those three without its lock when it launches
  // and destroys, so that a slow one (a CNI plugin's ADD or DEL, a cgroup
  // that takes its time to empty) holds up no other container's calls. By
  // default false: the containerizer's lock serializes every call.
  virtual bool concurrent() const { return false; }

  // At start-up: `known` are the containers the slave recovered and will
  // keep (with their executors' pids). Re-attaches to them; destroys what
  // it finds of earlier runs that is not among them. Fails when what it
  // needs (a hierarchy, a tool) is not usable: the slave then exits.
  virtual Result<void> recover(const std::map<std::string, pid_t>& known) = 0;

  // After recover(), once for each container it kept: its sandbox and what
  // it holds now (the executor's resources plus its live tasks'), which
  // recover() is not told. By default nothing: only an isolator that needs
  // them (disk/du watches the sandbox) takes them.
  virtual void recovered(const ContainerConfig& config) { (void)config; }

  // Before launch: creates what the container needs and says what the
  // launch must do. On failure nothing of the container is left behind.
  virtual Result<LaunchRequirements> prepare(const ContainerConfig& config) = 0;

  // `pid`, the executor's process, exists and has done what prepare()
  // asked. On failure the slave destroys the container.
  virtual Result<void> isolate(const ContainerID& containerId, pid_t pid) = 0;

  // The container now holds `resources` (executor plus live tasks). A
  // limit that cannot be lowered yet (memory in use above it) is lowered
  // later and said in the log; that is not a failure.
  virtual Result<void> update(const ContainerID& containerId, const Resources& resources) = 0;

  // Fills in what this isolator measures of the container; leaves the rest.
  virtual Result<void> usage(const ContainerID& containerId,
                             ResourceStatistics* statistics) = 0;

  // Kills every process still in the container, however it was forked
  // (setsid, double fork), if this isolator can find them; a no-op for
  // isolators that cannot (the slave's process-group kill applies). Bounded
  // in time; fails naming what survived.
  virtual Result<void> kill(const ContainerID& containerId) = 0;

  // Every process of the container is dead: releases what it held (removes
  // cgroups). Fails naming what could not be removed.
  virtual Result<void> cleanup(const ContainerID& containerId) = 0;

  // The limit the container went past, if it did, looked at now: the
  // kernel may act on a limit (its OOM killer ending a process) before the
  // callback's news reaches the slave, and the slave asks when an executor
  // reports a task failed or exits. The same answer every time once a
  // limit was hit, whether the callback reported it or not.
  virtual std::optional<ContainerLimitation> limitation(const ContainerID&) {
    return std::nullopt;
  }

  // Every live process of the container (zombies excepted), when this
  // isolator holds them all from the moment isolate() returns (a cgroup
  // the executor joined before it ran anything: nothing it forks, setsid
  // or not, gets out). Empty when it cannot tell, or does not know the
  // container: the slave then finds the processes by scanning the process
  // table, which costs milliseconds per call on a busy machine.
  virtual std::optional<std::vector<pid_t>> processes(const ContainerID&) {
    return std::nullopt;
  }

  // What this isolator knows of the container that the framework is told
  // with every status update of its tasks (the networks it joined, with
  // their addresses); nullopt: nothing. Merged over every isolator.
  virtual std::optional<ContainerStatus> status(const ContainerID&) { return std::nullopt; }
};

}  // namespace mesos::isolation
