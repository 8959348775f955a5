// runFilter(): a streaming command as a child process, fed and drained by
// one poll() loop (so a command that writes before it has read all its
// input never deadlocks against us).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "mapreduce/worker.hpp"

extern char** environ;

namespace mesos::frameworks::mapreduce {

void Cancellation::cancel() {
  requested = true;
  pid_t pid = child.load();
  if (pid > 0) ::kill(-pid, SIGKILL);
}

namespace {

constexpr size_t kStderrKept = 2000;

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Result<Done> runFilter(const std::string& command, const std::string& input,
                       const std::map<std::string, std::string>& environment, std::string* output,
                       Cancellation& cancel) {
  // The child's environment and arguments, built before fork(): the child
  // of a threaded process may only call async-signal-safe functions.
  std::vector<std::string> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string variable = *entry;
    if (environment.count(variable.substr(0, variable.find('='))) == 0) variables.push_back(variable);
  }
  for (const auto& [name, value] : environment) variables.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& variable : variables) envp.push_back(variable.data());
  envp.push_back(nullptr);
  std::string shell = "sh", dashC = "-c", script = command;
  char* argv[] = {shell.data(), dashC.data(), script.data(), nullptr};

  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return Result<Done>::failure("pipe: " + std::string(strerror(errno)));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return Result<Done>::failure("pipe: " + std::string(strerror(errno)));
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    return Result<Done>::failure("pipe: " + std::string(strerror(errno)));
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    return Result<Done>::failure("fork: " + std::string(strerror(errno)));
  }
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::setpgid(0, 0);
    ::signal(SIGPIPE, SIG_DFL);
    ::execve("/bin/sh", argv, envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that a cancel right now finds the group
  cancel.child = pid;
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  int toChild = in[1], fromChild = out[0], errors = err[0];
  ::fcntl(toChild, F_SETFL, O_NONBLOCK);
  if (input.empty()) closeFd(toChild);
  if (cancel.requested) ::kill(-pid, SIGKILL);

  std::string stderrText;
  size_t written = 0;
  char buffer[65536];
  while (fromChild >= 0 || errors >= 0) {
    pollfd fds[3];
    int count = 0;
    int outIndex = -1, errIndex = -1, inIndex = -1;
    if (fromChild >= 0) {
      outIndex = count;
      fds[count++] = {fromChild, POLLIN, 0};
    }
    if (errors >= 0) {
      errIndex = count;
      fds[count++] = {errors, POLLIN, 0};
    }
    if (toChild >= 0) {
      inIndex = count;
      fds[count++] = {toChild, POLLOUT, 0};
    }
    if (::poll(fds, static_cast<nfds_t>(count), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (inIndex >= 0 && fds[inIndex].revents != 0) {
      ssize_t n = ::write(toChild, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      // A command that exits without reading all its input (head) is fine.
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) {
        closeFd(toChild);
      }
    }
    if (outIndex >= 0 && fds[outIndex].revents != 0) {
      ssize_t n = ::read(fromChild, buffer, sizeof(buffer));
      if (n > 0) {
        output->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        closeFd(fromChild);
      }
    }
    if (errIndex >= 0 && fds[errIndex].revents != 0) {
      ssize_t n = ::read(errors, buffer, sizeof(buffer));
      if (n > 0) {
        stderrText.append(buffer, static_cast<size_t>(n));
        if (stderrText.size() > 2 * kStderrKept) stderrText.erase(0, stderrText.size() - kStderrKept);
      } else if (n == 0 || errno != EINTR) {
        closeFd(errors);
      }
    }
  }
  closeFd(toChild);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Whatever the command left behind in its group goes with it.
  ::kill(-pid, SIGKILL);
  cancel.child = 0;
  if (stderrText.size() > kStderrKept) stderrText.erase(0, stderrText.size() - kStderrKept);
  while (!stderrText.empty() && stderrText.back() == '\n') stderrText.pop_back();
  if (cancel.requested) return Result<Done>::failure("cancelled");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Done{};
  std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                      : "was killed by signal " + std::to_string(WTERMSIG(status));
  return Result<Done>::failure("command '" + command + "' " + how +
                               (stderrText.empty() ? "" : ": " + stderrText));
}

}  // namespace mesos::frameworks::mapreduce
