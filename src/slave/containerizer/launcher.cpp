#include "slave/containerizer/launcher.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
#include "slave/environment.hpp"
#include "slave/spawn.hpp"

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

  SpawnState state;
  // A new session (and process group) so the whole tree can be signalled and
  // outlives nothing of ours; default signal dispositions and an empty mask.
  short flags = POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  posix_spawnattr_setflags(&state.attr, flags);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&state.attr, &empty);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigdefault(&state.attr, &all);

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
