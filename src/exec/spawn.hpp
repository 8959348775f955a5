// Starting a CommandInfo as a child process: the command executor's task and
// its COMMAND health checks both go through here.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "mesos.pb.h"
#include "mesos/result.hpp"

namespace mesos::internal {

struct SpawnOptions {
  std::string directory;                            // working directory
  std::map<std::string, std::string> environment;   // the whole environment
  // stdin from /dev/null and stdout onto stderr (health checks); otherwise
  // the child shares this process's standard streams.
  bool quietStdio = false;
  // Files the child writes its own pid into, in order, before it runs the
  // command: the cgroup.procs of a task's cgroup (exec/task_cgroup.hpp), so
  // that the command and everything it starts is in there from its start.
  std::vector<std::string> joinFiles;
};

// Starts `command` (`/bin/sh -c value` when shell, else `value` searched in
// this process's PATH with `arguments`, or `value` alone when there are none)
// as the leader of a new process group, with default signal dispositions and
// an empty signal mask, after joining options.joinFiles. Returns its pid once
// the command runs; the caller reaps it. Fails with a message naming the
// program, the directory and the step that failed (a join file, the
// directory, the exec) when it cannot be started; a child that got that far
// has been reaped. Safe to call from any thread of a multithreaded process
// (the child runs only async-signal-safe calls before exec).
Result<pid_t> spawnCommand(const CommandInfo& command, const SpawnOptions& options);

// `base` with the variables of `command.environment()` set over it.
std::map<std::string, std::string> withEnvironmentOf(std::map<std::string, std::string> base,
                                                     const CommandInfo& command);

}  // namespace mesos::internal
