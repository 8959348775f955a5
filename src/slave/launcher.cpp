#include "slave/launcher.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

#include <glog/logging.h>

#include "common/fd.hpp"

namespace mesos::internal::slave {

namespace {

// Frees posix_spawn's attribute and file-action objects.
struct SpawnState {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnState() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnState() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

Error spawnError(const std::string& what, int error) {
  return Error{what + ": " + std::strerror(error)};
}

// One line of the process table.
struct ProcessEntry {
  pid_t pid;
  pid_t ppid;
  pid_t pgid;
  pid_t sid;
  bool zombie;
};

// Reads /proc/<pid>/stat: "pid (comm) state ppid pgrp session ...". The
// command name may hold spaces and parentheses, so parsing starts after the
// last ')'. Fails for a process that is gone.
std::optional<ProcessEntry> readEntry(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/stat";
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  char buffer[1024];
  ssize_t n = ::read(fd.get(), buffer, sizeof(buffer) - 1);
  if (n <= 0) return std::nullopt;
  buffer[n] = '\0';
  const char* close = std::strrchr(buffer, ')');
  if (close == nullptr) return std::nullopt;
  char state = 0;
  long ppid = 0, pgid = 0, sid = 0;
  if (std::sscanf(close + 1, " %c %ld %ld %ld", &state, &ppid, &pgid, &sid) != 4) {
    return std::nullopt;
  }
  return ProcessEntry{pid, static_cast<pid_t>(ppid), static_cast<pid_t>(pgid),
                      static_cast<pid_t>(sid), state == 'Z' || state == 'X'};
}

std::vector<ProcessEntry> processTable() {
  std::vector<ProcessEntry> table;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) {
    PLOG(WARNING) << "Cannot list /proc";
    return table;
  }
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || end == entry->d_name || *end != '\0') continue;
    if (auto process = readEntry(static_cast<pid_t>(pid))) table.push_back(*process);
  }
  ::closedir(proc);
  return table;
}

// The live processes of the container `leader` leads, in `table`. The
// executor was started in a session of its own, and everything it starts
// stays in that session unless it makes one (setsid): so the session finds
// the whole container, even once the executor is gone and its children were
// re-parented. Sessions and groups made by descendants are found through the
// tree, which only holds while the leader runs (and is still our leader: a
// session leader cannot leave its session, so a pid reused by an unrelated
// process does not match).
std::vector<pid_t> members(const std::vector<ProcessEntry>& table, pid_t leader) {
  std::set<pid_t> sessions = {leader};
  std::set<pid_t> groups;
  std::set<pid_t> descendants;
  bool leaderRuns = false;
  std::unordered_map<pid_t, std::vector<const ProcessEntry*>> children;
  for (const ProcessEntry& entry : table) {
    children[entry.ppid].push_back(&entry);
    if (entry.pid == leader && entry.sid == leader && !entry.zombie) leaderRuns = true;
  }
  if (leaderRuns) {
    std::vector<pid_t> pending = {leader};
    while (!pending.empty()) {
      pid_t parent = pending.back();
      pending.pop_back();
      auto it = children.find(parent);
      if (it == children.end()) continue;
      for (const ProcessEntry* child : it->second) {
        if (!descendants.insert(child->pid).second) continue;
        // 0: a session or group outside this pid namespace; not ours.
        if (child->sid > 0) sessions.insert(child->sid);
        if (child->pgid > 0) groups.insert(child->pgid);
        pending.push_back(child->pid);
      }
    }
  }
  std::vector<pid_t> result;
  for (const ProcessEntry& entry : table) {
    if (entry.zombie) continue;
    if (sessions.count(entry.sid) > 0 || groups.count(entry.pgid) > 0 ||
        descendants.count(entry.pid) > 0 || (leaderRuns && entry.pid == leader)) {
      result.push_back(entry.pid);
    }
  }
  return result;
}

}  // namespace

Result<pid_t> PosixLauncher::launch(const LaunchSpec& spec) {
  Fd out(::open(spec.stdoutPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (out.get() < 0) return spawnError("cannot open '" + spec.stdoutPath + "'", errno);
  Fd err(::open(spec.stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (err.get() < 0) return spawnError("cannot open '" + spec.stderrPath + "'", errno);
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
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  std::vector<std::string> envStrings;
  for (const auto& [name, value] : spec.environment) envStrings.push_back(name + "=" + value);
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

  posix_spawn_file_actions_adddup2(&state.actions, in.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&state.actions, out.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&state.actions, err.get(), STDERR_FILENO);
  // Nothing else of ours (listening sockets, peers) leaks into the executor.
  posix_spawn_file_actions_addclosefrom_np(&state.actions, STDERR_FILENO + 1);
  posix_spawn_file_actions_addchdir_np(&state.actions, spec.directory.c_str());

  pid_t pid = -1;
  int error = ::posix_spawnp(&pid, program.c_str(), &state.actions, &state.attr, argv.data(),
                             envp.data());
  if (error != 0) return spawnError("cannot run '" + program + "'", error);
  return pid;
}

void PosixLauncher::kill(pid_t pid, int signal) {
  if (pid <= 0) return;
  // Looks again until a scan finds no process that was not signalled yet:
  // a child forked while a scan ran is missing from it, but is there for
  // the next (a fork that a fatal signal interrupts never completes).
  constexpr int kMaxScans = 4;
  std::set<pid_t> signalled;
  for (int scan = 0; scan < kMaxScans; ++scan) {
    std::vector<ProcessEntry> table = processTable();
    if (table.empty()) {
      // No /proc to look at: the process group is the best left.
      ::kill(-pid, signal);
      return;
    }
    bool found = false;
    for (pid_t target : members(table, pid)) {
      if (!signalled.insert(target).second) continue;
      found = true;
      if (::kill(target, signal) != 0 && errno != ESRCH) {
        PLOG(WARNING) << "Cannot send signal " << signal << " to process " << target
                      << " of the container of process " << pid;
      }
    }
    if (!found) return;
  }
}

bool PosixLauncher::running(pid_t pid) {
  return pid > 0 && !members(processTable(), pid).empty();
}

Result<std::unique_ptr<Launcher>> createLauncher(const std::string& isolation) {
  std::stringstream list(isolation);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item != "posix" && item.rfind("posix/", 0) != 0) {
      return Error{"isolation '" + item + "' is not available (only posix)"};
    }
  }
  return std::unique_ptr<Launcher>(std::make_unique<PosixLauncher>());
}

}  // namespace mesos::internal::slave
