// Launcher: starts an executor's process tree and signals it. PosixLauncher
// gives each executor a new session and process group; the isolators
// (include/mesos/isolator.hpp) add limits and statistics around it, through
// the containerizer (containerizer.hpp).
//
// Launchers are called from the slave actor and must not block on anything
// but the fork/exec itself.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mesos/result.hpp"
#include "mesos.pb.h"

namespace mesos::internal::slave {

struct LaunchSpec {
  mesos::CommandInfo command;  // shell (sh -c value) or value + arguments
  std::string directory;       // working directory; must exist
  std::map<std::string, std::string> environment;  // the child's whole environment
  std::string stdoutPath;      // the child's stdout: created, or appended to
  std::string stderrPath;
  // When not empty, the command runs under this wrapper: the process runs
  // prefix[0] with arguments prefix[1..], then the command's program and
  // its arguments (after argv[0]); a shell command as /bin/sh -c value.
  std::vector<std::string> prefix;
  // When not empty, the executor runs as this user (its uid, gid and
  // groups), switched to by the containerizer's launch helper just before
  // the command; the launcher itself ignores it.
  std::string user;
};

class Launcher {
 public:
  virtual ~Launcher() = default;

  // Starts the command. On success returns the child's pid, which leads its
  // own session and process group; the caller must have it reaped (see
  // Reaper). Fails, naming the cause, when the output files cannot be opened
  // or the program cannot be executed.
  virtual Result<pid_t> launch(const LaunchSpec& spec) = 0;

  // Sends `signal` to every process of the container `pid` leads (`pid` as
  // launch() returned it): every process of its session, whatever process
  // group it moved to, and, while `pid` itself still runs, every descendant
  // with the sessions and groups they made. Still reaches what is left after
  // `pid` exited and was reaped (its session outlives it). Harmless if they
  // are all gone. Scans the process table: a few milliseconds. Returns
  // whether it found any process to signal.
  virtual bool kill(pid_t pid, int signal) = 0;

  // Whether any process of the container `pid` leads (as kill() finds them)
  // still runs; zombies do not count.
  virtual bool running(pid_t pid) = 0;
};

class PosixLauncher : public Launcher {
 public:
  Result<pid_t> launch(const LaunchSpec& spec) override;
  bool kill(pid_t pid, int signal) override;
  bool running(pid_t pid) override;
};

}  // namespace mesos::internal::slave
