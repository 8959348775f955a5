#include "mpiexec.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

namespace mesos::frameworks::mpi {

namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> result;
  for (std::string word; in >> word;) result.push_back(word);
  return result;
}

void writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// The text after `marker` in `line`, trimmed ("" when absent).
std::string after(const std::string& line, const std::string& marker) {
  size_t at = line.find(marker);
  if (at == std::string::npos) return "";
  std::string rest = line.substr(at + marker.size());
  size_t begin = rest.find_first_not_of(" \t");
  size_t end = rest.find_last_not_of(" \t\r\n");
  return begin == std::string::npos ? "" : rest.substr(begin, end - begin + 1);
}

}  // namespace

std::string HydraReport::describe() const {
  if (!failedRank.empty()) {
    return failedRank + (exitString.empty() ? "" : " (" + exitString + ")");
  }
  if (!launchError.empty()) return launchError;
  if (proxyVanished) return "a Hydra proxy's connection to mpiexec closed (its task or node ended)";
  return "";
}

Result<std::unique_ptr<Mpiexec>> Mpiexec::start(const std::string& mpiexec,
                                                const std::vector<std::string>& arguments,
                                                Callbacks callbacks) {
  int out[2];
  int err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Error{"pipe: " + std::string(std::strerror(errno))};
  if (::pipe2(err, O_CLOEXEC) != 0) {
    std::string message = std::strerror(errno);
    ::close(out[0]);
    ::close(out[1]);
    return Error{"pipe: " + message};
  }
  std::vector<std::string> argv = {mpiexec};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  std::vector<char*> pointers;
  for (std::string& word : argv) pointers.push_back(word.data());
  pointers.push_back(nullptr);

  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    std::string message = std::strerror(errno);
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    return Error{"fork: " + message};
  }
  if (pid == 0) {
    // mpiexec must not outlive us: with it gone the proxies end their ranks.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    // The signals mesos-mpirun blocks for its signal thread.
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_UNBLOCK, &all, nullptr);
    ::execvp(pointers[0], pointers.data());
    std::string message = "mesos-mpirun: cannot run '" + mpiexec + "': " + std::strerror(errno) +
                          " (install MPICH's mpiexec or give --mpiexec)\n";
    writeAll(STDERR_FILENO, message);
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  return std::unique_ptr<Mpiexec>(
      new Mpiexec(pid, out[0], err[0], std::move(callbacks)));
}

Mpiexec::Mpiexec(pid_t pid, int out, int err, Callbacks callbacks)
    : pid_(pid), out_(out), err_(err), callbacks_(std::move(callbacks)) {
  reader_ = std::thread([this] { readUntilExit(); });
}

Mpiexec::~Mpiexec() {
  if (reader_.joinable()) reader_.join();
}

void Mpiexec::terminate() {
  std::lock_guard lock(mutex_);
  if (!exited_) ::kill(pid_, SIGTERM);
}

void Mpiexec::kill() {
  std::lock_guard lock(mutex_);
  if (!exited_) ::kill(pid_, SIGKILL);
}

HydraReport Mpiexec::report() const {
  std::lock_guard lock(mutex_);
  return report_;
}

void Mpiexec::readUntilExit() {
  std::string pending[2];
  pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
  int open = 2;
  char buffer[8192];
  while (open > 0) {
    int ready = ::poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (!pending[i].empty()) handleLine(pending[i], i == 0);
        pending[i].clear();
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
        continue;
      }
      pending[i].append(buffer, static_cast<size_t>(n));
      size_t newline;
      while ((newline = pending[i].find('\n')) != std::string::npos) {
        handleLine(pending[i].substr(0, newline + 1), i == 0);
        pending[i].erase(0, newline + 1);
      }
    }
  }
  for (pollfd& fd : fds) {
    if (fd.fd >= 0) ::close(fd.fd);
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard lock(mutex_);
    exited_ = true;
  }
  callbacks_.onExit(status);
}

void Mpiexec::handleLine(const std::string& line, bool fromStdout) {
  if (fromStdout && !launchListDone_) {
    if (line.starts_with("HYDRA_LAUNCH_END")) {
      launchListDone_ = true;
      callbacks_.onProxies(std::move(proxies_));
      return;
    }
    if (line.starts_with("HYDRA_LAUNCH:")) {
      proxies_.push_back(words(line.substr(std::strlen("HYDRA_LAUNCH:"))));
      return;
    }
  }
  bool firstFailure = false;
  {
    std::lock_guard lock(mutex_);
    const bool hadFailure = !report_.empty();
    // "=   PID 1234 RUNNING AT 127.0.0.2" then "=   EXIT CODE: 9"
    if (std::string pid = after(line, "=   PID "); !pid.empty()) {
      size_t space = pid.find(' ');
      report_.failedRank = "rank process " + pid.substr(0, space) + " on " +
                           after(pid, "RUNNING AT") + " ended";
    } else if (std::string code = after(line, "=   EXIT CODE:");
               !code.empty() && !report_.failedRank.empty() &&
               report_.failedRank.ends_with(" ended")) {
      report_.failedRank += " with exit code " + code;
    } else if (std::string text = after(line, "TERMINATED WITH THE EXIT STRING:");
               !text.empty()) {
      report_.exitString = text;
    } else if (line.starts_with("[mpiexec@") && line.find("control_cb") != std::string::npos &&
               line.find("assert (!closed) failed") != std::string::npos) {
      report_.proxyVanished = true;
    } else if (std::string error = after(line, "execvp error on file"); !error.empty()) {
      if (report_.launchError.empty()) {
        report_.launchError = "the MPI program could not be started: " + error;
      }
    }
    firstFailure = !hadFailure && !report_.empty();
  }
  writeAll(fromStdout ? STDOUT_FILENO : STDERR_FILENO, line);
  if (firstFailure) callbacks_.onFailure();
}

}  // namespace mesos::frameworks::mpi
