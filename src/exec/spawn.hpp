// Starting a CommandInfo as a child process: the command executor's task and
// its COMMAND health checks both go through here.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

#include "mesos.pb.h"
#include "mesos/result.hpp"

namespace mesos::internal {

struct SpawnOptions {
  std::string directory;                            // working directory
  std::map<std::string, std::string> environment;   // the whole environment
  // stdin from /dev/null and stdout onto stderr (health checks); otherwise
  // the child shares this process's standard streams.
  bool quietStdio = false;
};

// Starts `command` (`/bin/sh -c value` when shell, else `value` searched in
// PATH with `arguments`, or `value` alone when there are none) as the leader
// of a new process group, with default signal dispositions and an empty
// signal mask. Returns its pid; the caller reaps it. Fails with a message
// naming the program and the directory when it cannot be started.
Result<pid_t> spawnCommand(const CommandInfo& command, const SpawnOptions& options);

// `base` with the variables of `command.environment()` set over it.
std::map<std::string, std::string> withEnvironmentOf(std::map<std::string, std::string> base,
                                                     const CommandInfo& command);

}  // namespace mesos::internal
