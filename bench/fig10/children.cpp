#include "children.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace fig10 {

std::optional<ProcStats> readProcStats(pid_t pid) {
  std::string base = "/proc/" + std::to_string(pid);
  std::ifstream statFile(base + "/stat");
  std::string stat;
  if (!std::getline(statFile, stat)) return std::nullopt;
  // Fields after the command name, which is in parentheses and may hold
  // spaces: state is field 3, utime 14, stime 15.
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string state;
  fields >> state;
  if (state == "Z" || state == "X") return std::nullopt;
  std::string skip;
  for (int field = 4; field <= 13; ++field) fields >> skip;
  unsigned long long utime = 0, stime = 0;
  fields >> utime >> stime;
  ProcStats stats;
  stats.cpuSeconds = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));

  std::ifstream statusFile(base + "/status");
  std::string line;
  while (std::getline(statusFile, line)) {
    auto kb = [&](const char* key) {
      return std::strtod(line.c_str() + std::strlen(key), nullptr) / 1024.0;
    };
    if (line.rfind("VmRSS:", 0) == 0) stats.rssMb = kb("VmRSS:");
    if (line.rfind("VmHWM:", 0) == 0) stats.peakRssMb = kb("VmHWM:");
  }
  return stats;
}

Children::~Children() { killAll(1000); }

std::optional<size_t> Children::spawn(const std::string& name,
                                      const std::vector<std::string>& argv, bool pipeStdout,
                                      const std::string& stderrPath, std::string* error) {
  int pipeFds[2] = {-1, -1};
  if (pipeStdout && ::pipe2(pipeFds, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return std::nullopt;
  }
  int errFd = ::open(stderrPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (errFd < 0) {
    *error = "cannot open " + stderrPath + ": " + std::strerror(errno);
    if (pipeStdout) {
      ::close(pipeFds[0]);
      ::close(pipeFds[1]);
    }
    return std::nullopt;
  }
  // Everything the child needs is made before fork(): after it, only
  // async-signal-safe calls until exec.
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t parent = ::getpid();

  pid_t pid = ::fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    ::close(errFd);
    if (pipeStdout) {
      ::close(pipeFds[0]);
      ::close(pipeFds[1]);
    }
    return std::nullopt;
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the coordinator died already
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
    if (pipeStdout) {
      ::dup2(pipeFds[1], 1);
    } else {
      int devNull = ::open("/dev/null", O_WRONLY);
      if (devNull >= 0) ::dup2(devNull, 1);
    }
    ::dup2(errFd, 2);
    ::execv(args[0], args.data());
    const char message[] = "fig10: exec failed\n";
    ssize_t ignored = ::write(2, message, sizeof(message) - 1);
    (void)ignored;
    ::_exit(127);
  }
  ::close(errFd);
  Child child;
  child.name = name;
  child.pid = pid;
  if (pipeStdout) {
    ::close(pipeFds[1]);
    child.out = pipeFds[0];
    ::fcntl(child.out, F_SETFL, ::fcntl(child.out, F_GETFL) | O_NONBLOCK);
  }
  children_.push_back(std::move(child));
  return children_.size() - 1;
}

void Children::pollLines(int timeoutMs, std::vector<std::pair<size_t, std::string>>* lines) {
  std::vector<pollfd> fds;
  std::vector<size_t> owners;
  for (size_t i = 0; i < children_.size(); ++i) {
    if (children_[i].out < 0) continue;
    fds.push_back(pollfd{children_[i].out, POLLIN, 0});
    owners.push_back(i);
  }
  if (fds.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(timeoutMs));
  } else if (::poll(fds.data(), fds.size(), timeoutMs) > 0) {
    char buffer[16 * 1024];
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      Child& child = children_[owners[k]];
      for (;;) {
        ssize_t n = ::read(child.out, buffer, sizeof(buffer));
        if (n > 0) {
          child.partial.append(buffer, static_cast<size_t>(n));
          continue;
        }
        if (n == 0) {  // the child closed its stdout (it is exiting)
          ::close(child.out);
          child.out = -1;
        }
        break;
      }
      size_t start = 0;
      for (size_t end; (end = child.partial.find('\n', start)) != std::string::npos;
           start = end + 1) {
        lines->emplace_back(owners[k], child.partial.substr(start, end - start));
      }
      child.partial.erase(0, start);
    }
  }
  reap();
}

void Children::reap() {
  for (Child& child : children_) {
    if (child.exited || child.pid < 0) continue;
    int status = 0;
    if (::waitpid(child.pid, &status, WNOHANG) == child.pid) {
      child.exited = true;
      child.status = status;
    }
  }
}

void Children::kill(size_t index, int graceMs) {
  Child& child = children_[index];
  reap();
  if (child.exited || child.pid < 0) return;
  ::kill(child.pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(graceMs);
  while (!child.exited && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    reap();
  }
  if (!child.exited) {
    ::kill(child.pid, SIGKILL);
    int status = 0;
    ::waitpid(child.pid, &status, 0);
    child.exited = true;
    child.status = status;
  }
  if (child.out >= 0) {
    ::close(child.out);
    child.out = -1;
  }
}

void Children::killAll(int graceMs) {
  reap();
  for (Child& child : children_) {
    if (!child.exited && child.pid > 0) ::kill(child.pid, SIGTERM);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(graceMs);
  for (;;) {
    reap();
    bool running = false;
    for (const Child& child : children_) running = running || !child.exited;
    if (!running || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (size_t i = 0; i < children_.size(); ++i) kill(i, 0);
}

}  // namespace fig10
