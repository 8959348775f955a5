// The process table, read from /proc: who is whose child, which session and
// group each process is in, and what each uses. For the slave's launcher
// (which processes make up an executor's container) and the posix isolator
// (what they use).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace mesos::internal {

// One line of the process table.
struct ProcessEntry {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgid = 0;
  pid_t sid = 0;
  bool zombie = false;
  uint64_t userTicks = 0;    // CPU time in user mode, in clock ticks
  uint64_t systemTicks = 0;  // in kernel mode
  uint64_t threads = 0;
  uint64_t rssPages = 0;
  // When it started, in clock ticks since boot: with the pid, names one
  // process for the machine's uptime (a pid alone can be reused).
  uint64_t startTicks = 0;
};

// Reads /proc/<pid>/stat. Empty for a process that is gone (or no /proc).
std::optional<ProcessEntry> readProcess(pid_t pid);

// Parses the text of a /proc/<pid>/stat file ("pid (comm) state ppid pgrp
// session ..."; the command name may hold spaces and parentheses). Empty
// when it does not parse.
std::optional<ProcessEntry> parseProcessStat(pid_t pid, const char* text);

// Every process /proc lists; empty when /proc cannot be read. A scan costs
// a few milliseconds on a busy machine: not for hot paths.
std::vector<ProcessEntry> processTable();

// The live processes of the container `leader` leads, in `table`: the
// executor was started in a session of its own, and everything it starts
// stays in that session unless it makes one (setsid): so the session finds
// the whole container, even once the executor is gone and its children
// were re-parented. Sessions and groups made by descendants are found
// through the tree, which only holds while the leader runs (and is still
// our leader: a session leader cannot leave its session, so a pid reused by
// an unrelated process does not match).
std::vector<const ProcessEntry*> containerMembers(const std::vector<ProcessEntry>& table,
                                                  pid_t leader);

}  // namespace mesos::internal
