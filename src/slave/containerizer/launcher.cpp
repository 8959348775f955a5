#include "slave/containerizer/launcher.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

#include <glog/logging.h>

#include "common/fd.hpp"
#include "common/processes.hpp"
#include "slave/containerizer/launch_server.hpp"
#include "slave/environment.hpp"
#include "slave/spawn.hpp"

extern char** environ;

namespace mesos::internal::slave {

namespace {

Error spawnError(const std::string& what, int error) {
  return Error{what + ": " + std::strerror(error)};
}

// An anonymous file holding `environment` (encodeEnvironment()), read from
// its start; never at kEnvironmentFd or below, so that dup2 onto
// kEnvironmentFd always copies it. The caller closes it.
Result<int> environmentFileOf(const std::map<std::string, std::string>& environment) {
  int fd = ::memfd_create("mesos-executor-environment", MFD_CLOEXEC);
  if (fd < 0) return spawnError("cannot create the environment file", errno);
  if (fd <= kEnvironmentFd) {
    int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, kEnvironmentFd + 1);
    int error = errno;
    ::close(fd);
    if (moved < 0) return spawnError("cannot move the environment file", error);
    fd = moved;
  }
  auto fail = [fd](const std::string& what, int error) {
    ::close(fd);
    return spawnError(what, error);
  };
  std::string text = encodeEnvironment(environment);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("cannot write the environment file", n < 0 ? errno : EIO);
    done += static_cast<size_t>(n);
  }
  if (::lseek(fd, 0, SEEK_SET) != 0) return fail("cannot rewind the environment file", errno);
  return fd;
}

}  // namespace

Result<int> openOutputFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
                  0644);
  if (fd < 0) return spawnError("cannot open '" + path + "'", errno);
  struct stat s {};
  if (::fstat(fd, &s) != 0 || (S_ISREG(s.st_mode) && s.st_nlink != 1) ||
      ::fcntl(fd, F_SETFL, O_APPEND) != 0) {
    ::close(fd);
    return Error{"cannot open '" + path + "': a file with another name (a hard link)"};
  }
  return fd;
}

Result<pid_t> PosixLauncher::launch(const LaunchSpec& spec) {
  auto outFd = openOutputFile(spec.stdoutPath);
  if (!outFd) return outFd.error();
  Fd out(*outFd);
  auto errFd = openOutputFile(spec.stderrPath);
  if (!errFd) return errFd.error();
  Fd err(*errFd);
  Fd in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) return spawnError("cannot open /dev/null", errno);

  std::vector<std::string> args;
  std::string program;
  if (spec.command.shell()) {
    if (!spec.command.has_value()) return Error{"shell command has no value"};
    program = "/bin/sh";
    args = {"sh", "-c", spec.command.value()};
  } else {
    if (!spec.command.has_value() || spec.command.value().empty()) {
      return Error{"command has no program to run (CommandInfo.value)"};
    }
    program = spec.command.value();
    for (const std::string& argument : spec.command.arguments()) args.push_back(argument);
    if (args.empty()) args.push_back(program);
  }
  if (!spec.prefix.empty()) {
    // The wrapper runs "program arguments..." (argv[0] of the command is
    // not passed on: a wrapper names the program by its path).
    std::vector<std::string> wrapped = spec.prefix;
    wrapped.push_back(program);
    wrapped.insert(wrapped.end(), args.begin() + (args.empty() ? 0 : 1), args.end());
    program = spec.prefix.front();
    args = std::move(wrapped);
  }
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  // The command's environment goes through a file the helper reads, and
  // the process starts with the helper's.
  std::optional<Fd> environmentFile;
  if (spec.helperEnvironment) {
    auto written = environmentFileOf(spec.environment);
    if (!written) return written.error();
    environmentFile.emplace(*written);
  }
  std::vector<std::string> envStrings;
  for (const auto& [name, value] : spec.helperEnvironment.value_or(spec.environment)) {
    envStrings.push_back(name + "=" + value);
  }
  std::vector<char*> envp;
  for (std::string& entry : envStrings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  if (launchServer_ && spec.helperFirst && !spec.prefix.empty()) {
    // The launch server's child finds these at 0, 1, 2, kEnvironmentFd, ...
    std::vector<int> fds = {in.get(), out.get(), err.get()};
    if (environmentFile) {
      fds.push_back(environmentFile->get());
    } else if (!spec.inheritedFds.empty()) {
      fds.push_back(in.get());
    }
    fds.insert(fds.end(), spec.inheritedFds.begin(), spec.inheritedFds.end());
    if (auto served = serve(program, args, envStrings, spec.directory, fds)) return *served;
  }

  SpawnState state;
  state.newSession();

  // The inherited descriptors, first moved above every target number, so
  // that no dup2 below overwrites one before it is copied.
  std::deque<Fd> inherited;  // Fd does not move
  const int lastFd = kEnvironmentFd + static_cast<int>(spec.inheritedFds.size());
  for (int fd : spec.inheritedFds) {
    inherited.emplace_back(::fcntl(fd, F_DUPFD_CLOEXEC, lastFd + 1));
    if (inherited.back().get() < 0) return spawnError("cannot pass on descriptor", errno);
  }

  posix_spawn_file_actions_adddup2(&state.actions, in.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&state.actions, out.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&state.actions, err.get(), STDERR_FILENO);
  if (environmentFile) {
    posix_spawn_file_actions_adddup2(&state.actions, environmentFile->get(), kEnvironmentFd);
  } else if (!inherited.empty()) {
    posix_spawn_file_actions_adddup2(&state.actions, in.get(), kEnvironmentFd);
  }
  for (size_t i = 0; i < inherited.size(); ++i) {
    posix_spawn_file_actions_adddup2(&state.actions, inherited[i].get(),
                                     kEnvironmentFd + 1 + static_cast<int>(i));
  }
  // Nothing else of ours (listening sockets, peers) leaks into the executor.
  posix_spawn_file_actions_addclosefrom_np(
      &state.actions, environmentFile || !inherited.empty() ? lastFd + 1 : STDERR_FILENO + 1);
  posix_spawn_file_actions_addchdir_np(&state.actions, spec.directory.c_str());

  pid_t pid = -1;
  int error = ::posix_spawnp(&pid, program.c_str(), &state.actions, &state.attr, argv.data(),
                             envp.data());
  if (error != 0) return spawnError("cannot run '" + program + "'", error);
  return pid;
}

PosixLauncher::~PosixLauncher() { stopServer(); }

pid_t PosixLauncher::serverPid() {
  std::lock_guard<std::mutex> guard(mutex_);
  return serverPid_;
}

bool PosixLauncher::startServer(const std::string& program) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    PLOG(WARNING) << "Cannot make the launch server's socket; executing " << program;
    return false;
  }
  SpawnState state;
  state.newSession();
  Fd in(::open("/dev/null", O_RDWR | O_CLOEXEC));
  for (int target : {STDIN_FILENO, STDOUT_FILENO}) {
    posix_spawn_file_actions_adddup2(&state.actions, in.get(), target);
  }
  // Its stderr stays the slave's: a broken stream is said there.
  posix_spawn_file_actions_adddup2(&state.actions, ends[1], 3);
  posix_spawn_file_actions_addclosefrom_np(&state.actions, 4);
  posix_spawn_file_actions_addchdir_np(&state.actions, "/");
  std::string name = "mesos-containerizer";
  std::string serve = "--serve_fd=3";
  char* argv[] = {name.data(), serve.data(), nullptr};
  // Each clone gets the request's environment; the server itself keeps the
  // slave's.
  pid_t pid = -1;
  const int error =
      ::posix_spawn(&pid, program.c_str(), &state.actions, &state.attr, argv, environ);
  ::close(ends[1]);  // the server's end: its own now
  if (in.get() < 0 || error != 0) {
    ::close(ends[0]);
    LOG(WARNING) << "Cannot start the launch server " << program << ": "
                 << std::strerror(error != 0 ? error : errno) << "; executing it for each launch";
    return false;
  }
  serverProgram_ = program;
  serverPid_ = pid;
  serverSocket_ = ends[0];
  // Its 'S' within 2 s, or it is no launch server (another program, or an
  // older helper that refuses --serve_fd): this launcher stops trying.
  pollfd ready{serverSocket_, POLLIN, 0};
  int polled;
  do {
    polled = ::poll(&ready, 1, 2000);
  } while (polled < 0 && errno == EINTR);
  char hello = 0;
  if (polled != 1 || ::recv(serverSocket_, &hello, 1, MSG_DONTWAIT) != 1 || hello != 'S') {
    LOG(WARNING) << program << " --serve_fd did not answer as a launch server; executing it "
                 << "for each launch";
    stopServer();
    noServer_ = program;
    return false;
  }
  VLOG(1) << "Started the launch server " << program << " (pid " << pid << ")";
  return true;
}

void PosixLauncher::stopServer() {
  if (serverSocket_ >= 0) ::close(serverSocket_);
  if (serverPid_ > 0) {
    ::kill(serverPid_, SIGKILL);
    while (::waitpid(serverPid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  serverSocket_ = -1;
  serverPid_ = -1;
  serverProgram_.clear();
}

std::optional<Result<pid_t>> PosixLauncher::serve(const std::string& program,
                                                  const std::vector<std::string>& arguments,
                                                  const std::vector<std::string>& environment,
                                                  const std::string& directory,
                                                  const std::vector<int>& fds) {
  if (fds.size() > kLaunchRequestMaxFds) return std::nullopt;
  LaunchRequest request{directory, arguments, environment};
  const std::string payload = encodeRequest(request);
  if (payload.size() > kLaunchRequestMaxBytes) return std::nullopt;
  std::lock_guard<std::mutex> guard(mutex_);
  // Once again if the server was found gone: nothing of the request
  // reached it.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (serverSocket_ < 0 || serverProgram_ != program) {
      if (program == noServer_) return std::nullopt;
      stopServer();
      if (!startServer(program)) return std::nullopt;
    }
    uint32_t header[2] = {static_cast<uint32_t>(payload.size()), static_cast<uint32_t>(fds.size())};
    iovec part{header, sizeof(header)};
    std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    if (!fds.empty()) {
      message.msg_control = control.data();
      message.msg_controllen = control.size();
      cmsghdr* c = CMSG_FIRSTHDR(&message);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    ssize_t n;
    do {
      n = ::sendmsg(serverSocket_, &message, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
      LOG(WARNING) << "The launch server (pid " << serverPid_ << ") is gone; starting another";
      stopServer();
      continue;
    }
    // From here on, the server may have forked a helper: a failure fails
    // the launch (the helper, if any, exits without the go-ahead).
    auto broken = [this](const std::string& what, int error) -> Result<pid_t> {
      stopServer();
      return Error{"the launch server failed (" + what + "): " + std::strerror(error)};
    };
    if (n != static_cast<ssize_t>(sizeof(header))) return broken("sending", n < 0 ? errno : EIO);
    size_t sent = 0;
    while (sent < payload.size()) {
      n = ::send(serverSocket_, payload.data() + sent, payload.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return broken("sending", n < 0 ? errno : EIO);
      sent += static_cast<size_t>(n);
    }
    int32_t answer = 0;
    size_t got = 0;
    while (got < sizeof(answer)) {
      pollfd ready{serverSocket_, POLLIN, 0};
      const int polled = ::poll(&ready, 1, 10000);
      if (polled < 0 && errno == EINTR) continue;
      if (polled == 0) return broken("no answer in 10 s", ETIMEDOUT);
      n = ::recv(serverSocket_, reinterpret_cast<char*>(&answer) + got, sizeof(answer) - got, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return broken("reading its answer", n < 0 ? errno : EPIPE);
      got += static_cast<size_t>(n);
    }
    if (answer < 0) {
      // It could not clone (or read the request): as posix_spawn's error.
      return spawnError("cannot run '" + program + "'", -answer);
    }
    return static_cast<pid_t>(answer);
  }
  return std::nullopt;
}

bool PosixLauncher::kill(pid_t pid, int signal) {
  if (pid <= 0) return false;
  // Looks again until a scan finds no process that was not signalled yet:
  // a child forked while a scan ran is missing from it, but is there for
  // the next (a fork that a fatal signal interrupts never completes).
  constexpr int kMaxScans = 4;
  std::set<pid_t> signalled;
  for (int scan = 0; scan < kMaxScans; ++scan) {
    std::vector<ProcessEntry> table = processTable();
    if (table.empty()) {
      // No /proc to look at: the process group is the best left.
      return ::kill(-pid, signal) == 0;
    }
    bool found = false;
    for (const ProcessEntry* member : containerMembers(table, pid)) {
      pid_t target = member->pid;
      if (!signalled.insert(target).second) continue;
      found = true;
      if (::kill(target, signal) != 0 && errno != ESRCH) {
        PLOG(WARNING) << "Cannot send signal " << signal << " to process " << target
                      << " of the container of process " << pid;
      }
    }
    if (!found) break;
  }
  return !signalled.empty();
}

bool PosixLauncher::running(pid_t pid) {
  return pid > 0 && !containerMembers(processTable(), pid).empty();
}

}  // namespace mesos::internal::slave
