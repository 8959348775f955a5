// Launcher: starts an executor's process tree and signals it. This is the
// isolation hook: --isolation=posix gives PosixLauncher (a new session and
// process group per executor, nothing else); cgroups and other isolation
// modules plug in behind the same interface later.
//
// Launchers are called from the slave actor and must not block on anything
// but the fork/exec itself.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>

#include "common/result.hpp"
#include "mesos.pb.h"

namespace mesos::internal::slave {

struct LaunchSpec {
  mesos::CommandInfo command;  // shell (sh -c value) or value + arguments
  std::string directory;       // working directory; must exist
  std::map<std::string, std::string> environment;  // the child's whole environment
  std::string stdoutPath;      // created/truncated; the child's stdout
  std::string stderrPath;
};

class Launcher {
 public:
  virtual ~Launcher() = default;

  // Starts the command. On success returns the child's pid, which leads its
  // own session and process group; the caller must have it reaped (see
  // Reaper). Fails, naming the cause, when the output files cannot be opened
  // or the program cannot be executed.
  virtual Result<pid_t> launch(const LaunchSpec& spec) = 0;

  // Sends `signal` to every process of the tree `pid` leads (its process
  // group). Harmless if they are gone.
  virtual void kill(pid_t pid, int signal) = 0;
};

class PosixLauncher : public Launcher {
 public:
  Result<pid_t> launch(const LaunchSpec& spec) override;
  void kill(pid_t pid, int signal) override;
};

// The launcher for --isolation (comma-separated; "posix" and "posix/..."
// items select PosixLauncher). Fails naming the unsupported item.
Result<std::unique_ptr<Launcher>> createLauncher(const std::string& isolation);

}  // namespace mesos::internal::slave
