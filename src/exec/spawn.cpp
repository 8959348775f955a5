#include "exec/spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace mesos::internal {

namespace {

// The signals the child gets default handling for whatever this process does
// with them (ignoring SIGPIPE, say); the others it handles go back to default
// too, as exec would do, but before the mask opens.
constexpr int kDefaultSignals[] = {SIGPIPE, SIGINT,  SIGQUIT, SIGTERM,
                                   SIGHUP,  SIGCHLD, SIGUSR1, SIGUSR2};

// What the child did when it failed, sent to the parent over the pipe.
enum class Step : int { kProcessGroup, kJoin, kDirectory, kStdin, kStdout, kExec };

struct ChildFailure {
  Step step;
  int index;  // kJoin: which join file
  int error;  // errno
};

// Everything the child needs, made before fork(): the child only reads it.
struct ChildPlan {
  const char* directory;
  bool quietStdio;
  std::vector<const char*> joinFiles;
  std::vector<const char*> programs;  // exec candidates, in PATH order
  char* const* argv;
  char* const* envp;
  int reportFd;
};

// The places `file` may be: itself when it names a path, else each
// directory of `path` ("" is the working directory) joined with it.
std::vector<std::string> candidates(const std::string& file, const char* path) {
  if (file.find('/') != std::string::npos) return {file};
  if (file.empty()) return {};
  std::vector<std::string> found;
  std::string dirs = path != nullptr ? path : "/bin:/usr/bin";
  size_t start = 0;
  while (true) {
    const size_t end = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    found.push_back(dir.empty() ? file : dir + "/" + file);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return found;
}

// Async-signal-safe from here to spawnCommand: the child of a multithreaded
// process may not allocate, lock or log.

// Writes `value` (>= 0) in decimal into `buffer`; returns its length.
size_t formatDecimal(pid_t value, char (&buffer)[24]) {
  char reversed[24];
  size_t length = 0;
  do {
    reversed[length++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0 && length < sizeof(reversed));
  for (size_t i = 0; i < length; i++) buffer[i] = reversed[length - 1 - i];
  return length;
}

[[noreturn]] void failChild(int fd, Step step, int index, int error) {
  const ChildFailure failure{step, index, error};
  // One write smaller than PIPE_BUF: atomic.
  while (::write(fd, &failure, sizeof(failure)) < 0 && errno == EINTR) {
  }
  ::_exit(127);
}

[[noreturn]] void runChild(const ChildPlan& plan) {
  // Signals are all blocked here (spawnCommand blocked them across fork):
  // none can run a handler of the parent's in the child.
  for (int signal = 1; signal < NSIG; signal++) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) != 0) continue;  // SIGKILL, glibc's own
    bool reset = current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
    for (int listed : kDefaultSignals) reset = reset || listed == signal;
    if (!reset) continue;
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    ::sigemptyset(&defaults.sa_mask);
    ::sigaction(signal, &defaults, nullptr);
  }
  if (::setpgid(0, 0) != 0) failChild(plan.reportFd, Step::kProcessGroup, 0, errno);

  char pid[24];
  const size_t pidLength = formatDecimal(::getpid(), pid);
  for (size_t i = 0; i < plan.joinFiles.size(); i++) {
    const int fd = ::open(plan.joinFiles[i], O_WRONLY | O_CLOEXEC);
    if (fd < 0) failChild(plan.reportFd, Step::kJoin, static_cast<int>(i), errno);
    // cgroupfs takes one write per pid.
    ssize_t written;
    do {
      written = ::write(fd, pid, pidLength);
    } while (written < 0 && errno == EINTR);
    const int error = written < 0 ? errno : EIO;
    ::close(fd);
    if (written != static_cast<ssize_t>(pidLength)) {
      failChild(plan.reportFd, Step::kJoin, static_cast<int>(i), error);
    }
  }

  if (::chdir(plan.directory) != 0) failChild(plan.reportFd, Step::kDirectory, 0, errno);
  if (plan.quietStdio) {
    const int null = ::open("/dev/null", O_RDONLY);
    if (null < 0) failChild(plan.reportFd, Step::kStdin, 0, errno);
    if (null != STDIN_FILENO) {
      if (::dup2(null, STDIN_FILENO) < 0) failChild(plan.reportFd, Step::kStdin, 0, errno);
      ::close(null);
    }
    if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
      failChild(plan.reportFd, Step::kStdout, 0, errno);
    }
  }

  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  // As execvp: go on past a candidate that is not there, and say EACCES at
  // the end if one was there but not executable.
  int error = ENOENT;
  bool denied = false;
  for (const char* program : plan.programs) {
    ::execve(program, plan.argv, plan.envp);
    error = errno;
    if (error == EACCES) {
      denied = true;
    } else if (error != ENOENT && error != ENOTDIR && error != ESTALE && error != ENODEV &&
               error != ETIMEDOUT) {
      break;
    }
  }
  if (denied && (error == ENOENT || error == ENOTDIR)) error = EACCES;
  failChild(plan.reportFd, Step::kExec, 0, error);
}

}  // namespace

std::map<std::string, std::string> withEnvironmentOf(std::map<std::string, std::string> base,
                                                     const CommandInfo& command) {
  for (const auto& variable : command.environment().variables()) {
    base[variable.name()] = variable.value();
  }
  return base;
}

Result<pid_t> spawnCommand(const CommandInfo& command, const SpawnOptions& options) {
  std::vector<std::string> arguments;
  std::string file;
  if (command.shell()) {
    file = "/bin/sh";
    arguments = {"sh", "-c", command.value()};
  } else {
    file = command.value();
    arguments.assign(command.arguments().begin(), command.arguments().end());
    if (arguments.empty()) arguments.push_back(command.value());
  }
  std::vector<std::string> environment;
  environment.reserve(options.environment.size());
  for (const auto& [name, value] : options.environment) environment.push_back(name + "=" + value);

  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const std::vector<std::string> programs = candidates(file, std::getenv("PATH"));

  const std::string where = "'" + file + "' in '" + options.directory + "': ";
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    const int error = errno;
    return Error{where + "cannot make a pipe: " + std::strerror(error), error};
  }

  ChildPlan plan{
      options.directory.c_str(), options.quietStdio, {}, {}, argv.data(), envp.data(), report[1]};
  for (const std::string& join : options.joinFiles) plan.joinFiles.push_back(join.c_str());
  for (const std::string& program : programs) plan.programs.push_back(program.c_str());

  sigset_t all;
  sigset_t old;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = ::fork();
  if (pid == 0) runChild(plan);
  const int forkError = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(report[1]);
  if (pid < 0) {
    ::close(report[0]);
    return Error{where + "cannot fork: " + std::strerror(forkError), forkError};
  }

  // EOF: the exec closed the pipe, the command runs.
  ChildFailure failure{};
  size_t got = 0;
  while (got < sizeof(failure)) {
    const ssize_t n =
        ::read(report[0], reinterpret_cast<char*>(&failure) + got, sizeof(failure) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(report[0]);
  if (got == 0) return pid;

  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (got != sizeof(failure)) return Error{where + "the child failed before it could say why"};
  const std::string reason = std::strerror(failure.error);
  std::string step;
  switch (failure.step) {
    case Step::kProcessGroup:
      step = "cannot make a process group: ";
      break;
    case Step::kJoin:
      step = "cannot write its pid into ";
      step += failure.index >= 0 && static_cast<size_t>(failure.index) < options.joinFiles.size()
                  ? options.joinFiles[static_cast<size_t>(failure.index)]
                  : "a join file";
      step += ": ";
      break;
    case Step::kDirectory:
      step = "cannot change into the directory: ";
      break;
    case Step::kStdin:
      step = "cannot read stdin from /dev/null: ";
      break;
    case Step::kStdout:
      step = "cannot send stdout to stderr: ";
      break;
    case Step::kExec:
      break;
  }
  return Error{where + step + reason, failure.error};
}

}  // namespace mesos::internal
