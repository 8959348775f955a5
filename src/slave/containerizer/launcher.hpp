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
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mesos/result.hpp"
#include "mesos.pb.h"

namespace mesos::internal::slave {

struct LaunchSpec {
  mesos::CommandInfo command;  // shell (sh -c value) or value + arguments
  std::string directory;       // working directory; must exist
  // The command's whole environment. Without `helperEnvironment`, the
  // process's.
  std::map<std::string, std::string> environment;
  // When set, the process (prefix[0]) starts with this environment instead,
  // and `environment` is written to an anonymous file the process finds
  // open as descriptor kEnvironmentFd: the last wrapper of `prefix`, the
  // launch helper (mesos-containerizer --environment_fd), reads it there
  // once it runs as the task's user and starts the command with it (over
  // what the wrappers gave it). So what the framework put in the
  // environment (LD_PRELOAD...) never reaches a wrapper that runs as root.
  // The slave sets it to what every executor's environment starts from;
  // the containerizer keeps it only when wrappers or a user switch run as
  // root (else the launcher ignores nothing: it is unset).
  std::optional<std::map<std::string, std::string>> helperEnvironment;
  std::string stdoutPath;      // the child's stdout: created, or appended to
  std::string stderrPath;
  // When not empty, the command runs under this wrapper: the process runs
  // prefix[0] with arguments prefix[1..], then the command's program and
  // its arguments (after argv[0]); a shell command as /bin/sh -c value.
  std::vector<std::string> prefix;
  // prefix[0] is the launch helper (mesos-containerizer) itself, not a
  // wrapper of the operator's: PosixLauncher may fork it from a launch
  // server (launch_server.hpp) of that program instead of executing it.
  bool helperFirst = false;
  // When not empty, the executor runs as this user (its uid, gid and
  // groups), switched to by the containerizer's launch helper just before
  // the command; the launcher itself ignores it.
  std::string user;
  // Descriptors the process finds open at kEnvironmentFd + 1, + 2, ... in
  // this order (the launch helper's --sync_fd); the caller keeps its own
  // and closes them.
  std::vector<int> inheritedFds;
};

// The descriptor the launch helper reads the command's environment from
// (LaunchSpec::helperEnvironment).
constexpr int kEnvironmentFd = 3;

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

// Opens `path` to append a child's output to, so that a file the task's
// user may have put in its place (the sandbox is theirs) cannot be abused by
// the slave, which runs as root: no symbolic link is followed, a FIFO
// without a reader fails at once instead of blocking, and a regular file
// with another link (a hard link to someone else's file) is refused. (A
// task's user cannot make device nodes.) Returns the
// descriptor (close-on-exec; the caller closes it), or an error naming the
// path.
Result<int> openOutputFile(const std::string& path);

// A helper-first launch (LaunchSpec::helperFirst) goes to a launch server
// of the helper's program (launch_server.hpp), started at the first such
// launch and stopped with the launcher; when the server cannot be started
// or was found gone before the request, the helper is executed as any
// program is.
class PosixLauncher : public Launcher {
 public:
  // `launchServer` false: the helper is executed for each launch (the
  // benchmark compares the two).
  explicit PosixLauncher(bool launchServer = true) : launchServer_(launchServer) {}
  ~PosixLauncher() override;
  PosixLauncher(const PosixLauncher&) = delete;
  PosixLauncher& operator=(const PosixLauncher&) = delete;

  Result<pid_t> launch(const LaunchSpec& spec) override;
  bool kill(pid_t pid, int signal) override;
  bool running(pid_t pid) override;

  // The launch server's pid; -1 while there is none (for the tests).
  pid_t serverPid();

 private:
  // Sends the request to the server of `program` (started if needed).
  // Nothing: no server (none could be started, or it was gone before it
  // got the request), so the caller executes the helper itself.
  std::optional<Result<pid_t>> serve(const std::string& program,
                                     const std::vector<std::string>& arguments,
                                     const std::vector<std::string>& environment,
                                     const std::string& directory, const std::vector<int>& fds);
  bool startServer(const std::string& program);
  void stopServer();

  const bool launchServer_;
  std::mutex mutex_;  // guards the server
  std::string serverProgram_;
  pid_t serverPid_ = -1;
  int serverSocket_ = -1;
  std::string noServer_;  // a program found to be no launch server
};

}  // namespace mesos::internal::slave
