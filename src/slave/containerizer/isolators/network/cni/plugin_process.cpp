// runPlugin() and findPlugin(): a plugin as a child process, its stdin a
// memory file holding the configuration, its stdout and stderr read until it
// exits or the timeout kills it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "slave/containerizer/isolators/network/cni/plugin.hpp"

namespace mesos::internal::cni {

namespace {

using Clock = std::chrono::steady_clock;

// What is kept of each stream: a result is a few kilobytes.
constexpr size_t kMaxOutput = 1 << 20;

// The child's failing step, sent to the parent over a pipe.
enum class Step : int { kNamespace, kStdio, kExec };
struct ChildFailure {
  Step step;
  int error;
};

// Everything the child needs, made before fork(): from fork to exec the
// child runs only async-signal-safe calls.
struct ChildPlan {
  const char* program;
  char* const* argv;
  char* const* envp;
  int stdinFd;
  int stdoutFd;
  int stderrFd;
  int netnsFd;  // -1: stay in the caller's network namespace
  int reportFd;
};

[[noreturn]] void failChild(int fd, Step step, int error) {
  const ChildFailure failure{step, error};
  while (::write(fd, &failure, sizeof(failure)) < 0 && errno == EINTR) {
  }
  ::_exit(127);
}

[[noreturn]] void runChild(const ChildPlan& plan) {
  for (int signal = 1; signal < NSIG; signal++) {
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    ::sigemptyset(&defaults.sa_mask);
    ::sigaction(signal, &defaults, nullptr);  // fails harmlessly for SIGKILL and SIGSTOP
  }
  // Its own process group: a timeout kills what it started too.
  ::setpgid(0, 0);
  if (plan.netnsFd >= 0 && ::setns(plan.netnsFd, CLONE_NEWNET) != 0) {
    failChild(plan.reportFd, Step::kNamespace, errno);
  }
  if (::dup2(plan.stdinFd, STDIN_FILENO) < 0 || ::dup2(plan.stdoutFd, STDOUT_FILENO) < 0 ||
      ::dup2(plan.stderrFd, STDERR_FILENO) < 0) {
    failChild(plan.reportFd, Step::kStdio, errno);
  }
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(plan.program, plan.argv, plan.envp);
  failChild(plan.reportFd, Step::kExec, errno);
}

std::string errnoText(int error) { return std::strerror(error); }

// `fd`, or a copy of it numbered 3 or more when it is a standard stream's
// number (this process runs with one closed): the child's dup2()s onto 0, 1
// and 2 must not overwrite one another's sources.
int aboveStdio(int fd) {
  if (fd < 0 || fd > STDERR_FILENO) return fd;
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  ::close(fd);
  return copy;
}

// Owns a file descriptor; reset() closes it early.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() { reset(); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// A memory file holding `content`, positioned at its start.
Result<int> memoryFile(const std::string& content) {
  const int fd = static_cast<int>(::syscall(SYS_memfd_create, "cni-config", MFD_CLOEXEC));
  if (fd < 0) return Error{"cannot make a memory file: " + errnoText(errno), errno};
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      return Error{"cannot write the configuration: " + errnoText(error), error};
    }
    written += static_cast<size_t>(n);
  }
  if (::lseek(fd, 0, SEEK_SET) != 0) {
    const int error = errno;
    ::close(fd);
    return Error{"cannot rewind the configuration: " + errnoText(error), error};
  }
  return fd;
}

// Reads what is there on `fd` into `into` (up to kMaxOutput); false at EOF
// or on an error.
bool drain(int fd, std::string* into) {
  char buffer[8192];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    if (n <= 0) return false;
    const size_t room = kMaxOutput - std::min(kMaxOutput, into->size());
    into->append(buffer, std::min(room, static_cast<size_t>(n)));
  }
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
    text.pop_back();
  }
  return text;
}

// The one-line reason of a plugin that exited with `status`.
std::string failureReason(int status, const std::string& out, const std::string& err) {
  if (auto parsed = json::parse(out); parsed && parsed->isObject()) {
    const json::Value& message = (*parsed)["msg"];
    const json::Value& code = (*parsed)["code"];
    if (message.isString() || code.isNumber()) {
      std::string reason = "CNI error";
      if (code.isNumber()) reason += " code " + std::to_string(code.integer());
      if (message.isString()) reason += ": " + message.string();
      const json::Value& details = (*parsed)["details"];
      if (details.isString() && !details.string().empty()) reason += " (" + details.string() + ")";
      return reason;
    }
  }
  std::string reason = WIFEXITED(status)
                           ? "exited with status " + std::to_string(WEXITSTATUS(status))
                           : "killed by signal " + std::to_string(WTERMSIG(status));
  if (!trimmed(out).empty()) reason += "; stdout: " + trimmed(out);
  if (!trimmed(err).empty()) reason += "; stderr: " + trimmed(err);
  return reason;
}

}  // namespace

Result<std::string> findPlugin(const std::vector<std::string>& directories,
                               const std::string& type) {
  std::string searched;
  for (const std::string& directory : directories) {
    if (directory.empty()) continue;
    const std::string path = directory + "/" + type;
    struct stat status {};
    if (::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) &&
        ::access(path.c_str(), X_OK) == 0) {
      return path;
    }
    searched += (searched.empty() ? "" : ":") + directory;
  }
  return Error{"CNI plugin '" + type + "' not found in --network_cni_plugins_dir '" + searched +
               "'"};
}

Result<std::string> runPlugin(const PluginOptions& options, Command command,
                              const Invocation& invocation, const json::Value& input) {
  const std::string type = input["type"].isString() ? input["type"].string() : "";
  auto program = findPlugin(options.directories, type);
  if (!program) return program.error();
  const std::string where = "CNI plugin '" + type + "' (" + commandName(command) + "): ";

  std::string path;
  for (const std::string& directory : options.directories) {
    path += (path.empty() ? "" : ":") + directory;
  }
  const char* hostPath = std::getenv("PATH");
  std::vector<std::string> environment = {
      std::string("CNI_COMMAND=") + commandName(command),
      "CNI_CONTAINERID=" + invocation.containerId,
      "CNI_NETNS=" + invocation.netns,
      "CNI_IFNAME=" + invocation.ifname,
      "CNI_ARGS=" + invocation.args,
      "CNI_PATH=" + path,
      // Plugins run iptables and other tools found on the PATH.
      std::string("PATH=") + (hostPath != nullptr ? hostPath : "/usr/sbin:/usr/bin:/sbin:/bin"),
  };
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string programCopy = program.value();
  std::vector<char*> argv = {programCopy.data(), nullptr};

  auto config = memoryFile(json::stringify(input));
  if (!config) return Error{where + config.error().message, config.error().code};
  Descriptor stdinFd(aboveStdio(config.value()));
  Descriptor netns(options.hostNetns.empty()
                       ? -1
                       : aboveStdio(::open(options.hostNetns.c_str(), O_RDONLY | O_CLOEXEC)));
  if (!options.hostNetns.empty() && netns.get() < 0) {
    const int error = errno;
    return Error{where + "cannot open the network namespace '" + options.hostNetns +
                     "': " + errnoText(error),
                 error};
  }
  int out[2], err[2], report[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Error{where + "cannot make a pipe: " + errnoText(errno)};
  Descriptor outRead(out[0]), outWrite(aboveStdio(out[1]));
  if (::pipe2(err, O_CLOEXEC) != 0) return Error{where + "cannot make a pipe: " + errnoText(errno)};
  Descriptor errRead(err[0]), errWrite(aboveStdio(err[1]));
  if (::pipe2(report, O_CLOEXEC) != 0) {
    return Error{where + "cannot make a pipe: " + errnoText(errno)};
  }
  Descriptor reportRead(report[0]), reportWrite(aboveStdio(report[1]));
  const ChildPlan plan{program->c_str(), argv.data(),    envp.data(), stdinFd.get(),
                       outWrite.get(),   errWrite.get(), netns.get(), reportWrite.get()};

  sigset_t all, old;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = ::fork();
  if (pid == 0) runChild(plan);
  const int forkError = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  // Without the parent's copies of the child's ends, EOF comes when the
  // child (and what it started) closed theirs.
  reportWrite.reset();
  outWrite.reset();
  errWrite.reset();
  if (pid < 0) return Error{where + "cannot fork: " + errnoText(forkError), forkError};

  ChildFailure failure{};
  ssize_t got;
  do {
    got = ::read(reportRead.get(), &failure, sizeof(failure));
  } while (got < 0 && errno == EINTR);
  if (got > 0) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    const char* step = failure.step == Step::kNamespace ? "cannot enter the network namespace '"
                       : failure.step == Step::kStdio   ? "cannot set up its standard streams"
                                                        : "cannot execute '";
    std::string what = step;
    if (failure.step == Step::kNamespace) what += options.hostNetns + "'";
    if (failure.step == Step::kExec) what += program.value() + "'";
    return Error{where + what + ": " + errnoText(failure.error), failure.error};
  }

  ::fcntl(outRead.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(errRead.get(), F_SETFL, O_NONBLOCK);
  std::string stdoutText, stderrText;
  bool outOpen = true, errOpen = true;
  const auto deadline = Clock::now() + options.timeout;
  bool timedOut = false;
  while (outOpen || errOpen) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    pollfd fds[2] = {{outOpen ? outRead.get() : -1, POLLIN, 0},
                     {errOpen ? errRead.get() : -1, POLLIN, 0}};
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (outOpen && fds[0].revents != 0) outOpen = drain(outRead.get(), &stdoutText);
    if (errOpen && fds[1].revents != 0) errOpen = drain(errRead.get(), &stderrText);
  }

  // Both streams are closed: the plugin is exiting, or it closed them and
  // goes on. Wait for its exit until the deadline.
  int status = 0;
  while (!timedOut) {
    const pid_t waited = ::waitpid(pid, &status, WNOHANG);
    if (waited == pid) break;
    if (waited < 0 && errno != EINTR) {
      return Error{where + "cannot wait for it: " + errnoText(errno)};
    }
    if (Clock::now() >= deadline) {
      timedOut = true;
      break;
    }
    ::usleep(1000);
  }
  if (timedOut) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    std::string reason =
        where + "killed after " + std::to_string(options.timeout.count()) + " ms without an answer";
    if (!trimmed(stderrText).empty()) reason += "; stderr: " + trimmed(stderrText);
    return Error{reason, ETIMEDOUT};
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Error{where + failureReason(status, stdoutText, stderrText)};
  }
  return stdoutText;
}

}  // namespace mesos::internal::cni
