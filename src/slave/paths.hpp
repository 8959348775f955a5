// Where the slave keeps things on disk:
//   <work_dir>/slaves/<slave id>/frameworks/<framework id>/executors/<executor id>/runs/<container id>
// is one executor run's sandbox (its working directory, with stdout and
// stderr), and .../runs/latest links to the newest run.
#pragma once

#include <string>

#include "mesos/result.hpp"
#include "mesos.pb.h"

namespace mesos::internal::slave {

std::string executorRunPath(const std::string& workDir, const SlaveID& slaveId,
                            const FrameworkID& frameworkId, const ExecutorID& executorId,
                            const ContainerID& containerId);

// Creates the run's sandbox (and its parents) and points runs/latest at it.
// Fails naming the directory that cannot be made, or an id that breaks the
// rule of ids (common/ids.hpp: empty, ".", "..", '/', a control character,
// too long).
Result<std::string> createSandbox(const std::string& workDir, const SlaveID& slaveId,
                                  const FrameworkID& frameworkId, const ExecutorID& executorId,
                                  const ContainerID& containerId);

// The command executor's binary: <launcherDir>/mesos-executor, or where a
// build tree keeps it relative to launcherDir; <launcherDir>/mesos-executor
// when none exists (the launch then fails with that path).
std::string commandExecutorPath(const std::string& launcherDir);

// The program `name` that ships with the slave (mesos-executor,
// mesos-containerizer): in `launcherDir`, or where a build tree keeps it
// next to it (../exec/, ../slave/, and under ../src/). The first that is
// executable; `launcherDir`/`name` when none is.
std::string launcherBinaryPath(const std::string& launcherDir, const std::string& name);

}  // namespace mesos::internal::slave
