// Running one job's script on a node (mesos-torque-mom): the script under
// /bin/sh in its own process group, stdout and stderr into the job's files,
// PBS_* variables and PBS_NODEFILE set, the walltime enforced, and a kill
// on request. Blocking: the mom runs each job on a thread of its own.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mesos::frameworks::torque {

// What the server's "run" message says (protocol.hpp).
struct RunRequest {
  int64_t id = 0;
  std::string name;
  std::string user;
  std::string submitHost;
  std::string script;
  std::string workdir;
  std::string outPath;
  std::string errPath;  // may equal outPath (-j oe)
  std::vector<std::string> hosts;
  int ppn = 1;
  int64_t walltimeSeconds = 3600;
  std::map<std::string, std::string> environment;
};

// How the job ended.
struct RunOutcome {
  int exitStatus = -1;  // the script's exit code, 128+signal if killed
  std::string comment;  // why, when it was killed or could not start
};

// Writes the script and the node file under `jobDir` (created), starts the
// script and waits for it. It ends the job's process group with SIGTERM
// (SIGKILL 3 s later) when the walltime passes or `*killRequested` becomes
// true, and with SIGKILL once the script itself has exited (nothing of a
// job outlives it). Failures to start (an unwritable output file, a missing
// working directory) come back as exit status -1 with a comment naming the
// file and the fix.
RunOutcome runJob(const RunRequest& request, const std::string& jobDir,
                  const std::atomic<bool>* killRequested);

}  // namespace mesos::frameworks::torque
