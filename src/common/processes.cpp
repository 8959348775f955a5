#include "common/processes.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <unordered_map>

#include <glog/logging.h>

#include "common/fd.hpp"

namespace mesos::internal {

std::optional<ProcessEntry> parseProcessStat(pid_t pid, const char* text) {
  const char* close = std::strrchr(text, ')');
  if (close == nullptr) return std::nullopt;
  char state = 0;
  long ppid = 0, pgid = 0, sid = 0;
  unsigned long long utime = 0, stime = 0, start = 0;
  long long threads = 0, rss = 0;
  // Fields 3-6, then 14 and 15 (utime, stime), 20 (num_threads), 22
  // (starttime), 24 (rss).
  int parsed = std::sscanf(close + 1,
                           " %c %ld %ld %ld %*s %*s %*s %*s %*s %*s %*s %llu %llu"
                           " %*s %*s %*s %*s %lld %*s %llu %*s %lld",
                           &state, &ppid, &pgid, &sid, &utime, &stime, &threads, &start, &rss);
  if (parsed < 4) return std::nullopt;
  ProcessEntry entry;
  entry.pid = pid;
  entry.ppid = static_cast<pid_t>(ppid);
  entry.pgid = static_cast<pid_t>(pgid);
  entry.sid = static_cast<pid_t>(sid);
  entry.zombie = state == 'Z' || state == 'X';
  if (parsed == 9) {
    entry.startTicks = start;
    entry.userTicks = utime;
    entry.systemTicks = stime;
    entry.threads = threads > 0 ? static_cast<uint64_t>(threads) : 0;
    entry.rssPages = rss > 0 ? static_cast<uint64_t>(rss) : 0;
  }
  return entry;
}

std::optional<ProcessEntry> readProcess(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/stat";
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  char buffer[1024];
  ssize_t n = ::read(fd.get(), buffer, sizeof(buffer) - 1);
  if (n <= 0) return std::nullopt;
  buffer[n] = '\0';
  return parseProcessStat(pid, buffer);
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
    if (auto process = readProcess(static_cast<pid_t>(pid))) table.push_back(*process);
  }
  ::closedir(proc);
  return table;
}

std::vector<const ProcessEntry*> containerMembers(const std::vector<ProcessEntry>& table,
                                                  pid_t leader) {
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
  std::vector<const ProcessEntry*> result;
  for (const ProcessEntry& entry : table) {
    if (entry.zombie) continue;
    if (sessions.count(entry.sid) > 0 || groups.count(entry.pgid) > 0 ||
        descendants.count(entry.pid) > 0 || (leaderRuns && entry.pid == leader)) {
      result.push_back(&entry);
    }
  }
  return result;
}

}  // namespace mesos::internal
