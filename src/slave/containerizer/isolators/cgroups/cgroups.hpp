// cgroups: the operations a cgroups isolator needs, over both kinds of Linux
// control groups:
//   - cgroup v1: one hierarchy per controller (or per group of controllers,
//     e.g. "cpu,cpuacct"), each mounted below --cgroups_hierarchy
//     (/sys/fs/cgroup/memory, /sys/fs/cgroup/cpu, ...). A container is one
//     directory in each hierarchy it uses; a process must be written into each.
//   - cgroup v2: one unified hierarchy (/sys/fs/cgroup on most hosts today). A
//     container is one directory; controllers are switched on for a cgroup's
//     children in its cgroup.subtree_control.
//
// Layout::detect() finds which one --cgroups_hierarchy is; Layout::cgroup()
// names a container's cgroup below this process's own cgroup; the free
// functions create, fill, measure, watch and destroy it.
//
// Threads and blocking: everything here is synchronous I/O on cgroupfs (a few
// microseconds a call) and may be called from any thread; nothing keeps state
// between calls except the values it returns. destroy() alone waits, for
// processes to die (milliseconds normally, up to its timeout): call it off the
// slave's actor. Layout, Cgroup and the structs are plain values.
//
// Errors: every fallible call returns Result. Error::message names the file or
// directory and, for a failed system call, the system's text for errno;
// Error::code is that errno (0 when no system call failed: bad content, bad
// arguments, a timeout).
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/fd.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::cgroups {

inline constexpr char kDefaultHierarchy[] = "/sys/fs/cgroup";

// The variables a cgroups isolator adds to an executor's environment: its
// --cgroups_hierarchy, and the controllers of the container's cgroup, comma
// separated ("" on cgroup v2: a task's cgroup below the container's gets
// none). An executor running several tasks gives each its own cgroup below
// its own with them (exec/task_cgroup.hpp).
inline constexpr char kHierarchyVariable[] = "MESOS_CGROUPS_HIERARCHY";
inline constexpr char kControllersVariable[] = "MESOS_CGROUPS_CONTROLLERS";

enum class Version { kV1, kV2 };

// One line of /proc/<pid>/mounts; octal escapes ("\040" for a space) decoded.
struct Mount {
  std::string source;
  std::string target;  // the mount point
  std::string type;    // "cgroup" (v1), "cgroup2", "tmpfs", ...
  std::vector<std::string> options;  // e.g. {"rw", "relatime", "cpu", "cpuacct"}
};

// Parses /proc/<pid>/mounts text. Pure; lines with fewer than four fields are
// skipped.
std::vector<Mount> parseMounts(const std::string& text);

// One line of /proc/<pid>/cgroup: "4:memory:/a/b" (v1), "2:cpu,cpuacct:/"
// (v1, combined), "1:name=systemd:/" (v1, no controller), "0::/a" (v2).
struct Membership {
  int hierarchyId = 0;
  std::vector<std::string> controllers;  // empty on the v2 line
  std::string path;                      // from the hierarchy's root, "/..."
};

// Parses /proc/<pid>/cgroup text. Pure. Fails naming the first line that
// does not read "id:controllers:/path".
Result<std::vector<Membership>> parseProcCgroup(const std::string& text);

class Cgroup;

// Where the hierarchies are and where this process sits in them.
class Layout {
 public:
  // Detects the layout of `hierarchy` (the slave's --cgroups_hierarchy):
  // cgroup v2 if `hierarchy` itself is a cgroup2 mount (statfs magic);
  // otherwise v1, made of the cgroup v1 mounts below `hierarchy`. Reads
  // /proc/self/mounts, /proc/self/cgroup and (v2) the root's
  // cgroup.controllers. Fails when `hierarchy` does not exist, or is neither
  // a cgroup2 mount nor holds any cgroup v1 controller mount.
  static Result<Layout> detect(const std::string& hierarchy = kDefaultHierarchy);

  // The cgroup2 hierarchy mounted at `mountPoint` (on a v1 host, the one
  // unified() names), whatever the main layout. Fails when `mountPoint` is not
  // a cgroup2 mount or this process has no "0::" line in /proc/self/cgroup.
  static Result<Layout> v2At(const std::string& mountPoint);

  // What detect() decides from the texts of /proc/self/mounts and
  // /proc/self/cgroup (and, for v2, of the root's cgroup.controllers), with
  // no I/O: v2 when a cgroup2 mount sits exactly at `hierarchy`. For tests.
  static Result<Layout> fromText(const std::string& hierarchy, const std::string& mounts,
                                 const std::string& procSelfCgroup,
                                 const std::string& v2RootControllers = "");

  Version version() const { return version_; }

  // v1: whether `controller` ("cpu", "memory", ...) is mounted below the
  // hierarchy. v2: whether the root's cgroup.controllers lists it (it may
  // still not be delegated to this process's subtree; create() says so).
  // On v2, freezing, killing and CPU time (cpu.stat usage) need no
  // controller: "freezer" and "cpuacct" are not v2 controllers.
  bool has(const std::string& controller) const;

  // The controllers has() admits, sorted.
  std::vector<std::string> controllers() const;

  // v1: the mount point of `controller`'s hierarchy, "" when not mounted.
  // v2: the mount point, whatever `controller`.
  std::string root(const std::string& controller) const;

  // This process's cgroup, "/..." from the hierarchy's root, in `controller`'s
  // hierarchy (v2: the unified one, whatever `controller`); nullopt when
  // /proc/self/cgroup does not say.
  std::optional<std::string> self(const std::string& controller) const;

  // On a v1 layout, the mount point of a cgroup2 hierarchy alongside (hybrid
  // hosts: /sys/fs/cgroup/unified); pass it to v2At(). nullopt on v2 or when
  // there is none.
  const std::optional<std::string>& unified() const { return unified_; }

  // Names (no I/O) the cgroup `name` ("mesos/c1": relative, no "." or ".."
  // parts) below `base` in the hierarchies of `controllers`. `base` is a cgroup
  // path from the hierarchy's root ("/mesos"); without it, this process's own
  // cgroup in each hierarchy (which on v1 may differ from one to the next).
  // v1: `controllers` must not be empty. v2: `controllers` are the ones
  // create() switches on for it (may be empty). Fails naming a controller
  // has() refuses, an invalid name, or an unknown own cgroup.
  Result<Cgroup> cgroup(const std::string& name, const std::vector<std::string>& controllers,
                        const std::optional<std::string>& base = std::nullopt) const;

 private:
  static Result<Layout> makeV2(const std::string& mountPoint, const std::string& procSelfCgroup,
                               const std::string& rootControllers);

  Version version_ = Version::kV1;
  std::map<std::string, std::string> roots_;  // v1: controller -> mount; v2: "" -> mount
  std::vector<std::string> v2Controllers_;    // v2: the root's cgroup.controllers
  std::map<std::string, std::string> self_;   // v1: controller -> path; v2: "" -> path
  std::optional<std::string> unified_;
};

// A container's cgroup as Layout::cgroup() named it: one directory per v1
// hierarchy, or one directory on v2. A value; it may not exist yet.
class Cgroup {
 public:
  Version version() const { return version_; }
  const std::string& name() const { return name_; }
  const std::vector<std::string>& controllers() const { return controllers_; }

  // The directory holding `controller`'s files. v1: the cgroup's directory in
  // that controller's hierarchy, "" when `controller` is not one of
  // controllers(). v2: the one directory, whatever `controller`.
  std::string dir(const std::string& controller) const;

  // Every directory of the cgroup, each once (a combined v1 mount such as
  // "cpu,cpuacct" gives one), sorted.
  std::vector<std::string> dirs() const;

 private:
  friend class Layout;
  friend Result<void> create(const Cgroup& cgroup);

  struct Place {
    std::string base;  // absolute directory of the base cgroup
    std::string dir;   // absolute directory of this cgroup
  };

  Version version_ = Version::kV1;
  std::string name_;
  std::vector<std::string> controllers_;
  std::map<std::string, Place> places_;  // v1: controller -> place; v2: "" -> place
};

// Creates `cgroup` and any missing parents between its base and it, in each of
// its hierarchies; succeeds if it already exists. REQUIRES: the base exists.
// v1, cpuset: each new level gets its parent's cpuset.cpus and cpuset.mems
// (else it could hold no process).
// v2: switches the cgroup's controllers on ("+memory +cpu" into
// cgroup.subtree_control) in the base and every level down to the cgroup's
// parent, never above the base. cgroup v2 lets no cgroup other than the root
// both hold processes and pass controllers to children, so: the base must
// hold no process (the slave first moves itself into a leaf such as
// cgroup("agent", {}) and assign()s its pid there), and processes go only into
// leaf cgroups (a container's cgroup; nest no cgroup below one that runs
// processes). Fails naming the path: a controller not delegated to the base
// (absent from its cgroup.controllers), a level that holds processes (EBUSY),
// any mkdir or write error. Does not undo the levels it made on failure.
Result<void> create(const Cgroup& cgroup);

// cgroup v2's rule, for a base the containers' cgroups go below: a cgroup
// that passes controllers to its children holds no process, the hierarchy's
// root excepted. When `pid` (the slave) is in `base` (default: this
// process's own cgroup), moves it into `base`'s child `leaf`, made as needed.
// Nothing to do on v1, at the root, or when `pid` is elsewhere. Other
// processes in the base stay there (create() then names the base). Fails
// naming the path.
Result<void> leaveForLeaf(const Layout& layout, const std::string& leaf, pid_t pid,
                          const std::optional<std::string>& base = std::nullopt);

// Removes `cgroup`'s directories, descendants first, in every hierarchy (not
// the parents create() made between the base and it). Succeeds if they are
// already gone. Fails naming the first directory rmdir refuses, with the
// pids still in it (EBUSY: processes remain; use destroy()).
Result<void> remove(const Cgroup& cgroup);

// Kills every process in `cgroup` and its descendants, in every hierarchy,
// including ones that left their session or process group (setsid,
// double-fork: a cgroup holds them all), then removes it as remove() does.
// A cgroup with no process left is removed at once (rmdir succeeds), with
// no freeze. Otherwise, v1: with a freezer hierarchy: freezer.state =
// FROZEN, wait until it reads FROZEN, SIGKILL every pid, THAWED; without
// one, SIGKILL repeatedly. v2: cgroup.kill = 1 where the kernel has it
// (5.14+), else cgroup.freeze = 1, wait for "frozen 1" in cgroup.events,
// SIGKILL every pid, cgroup.freeze = 0. Then waits until no process is
// left (v2: "populated 0") and removes. BLOCKS the calling thread, polling
// (every 0.1 ms at first, backing off to 10 ms), for up to `timeout` of
// real (steady-clock) time, normally a few ms: run it off any actor.
// Succeeds at once if the cgroup does not exist. Does not reap: the caller
// still waits for its own children (zombies keep no cgroup busy). Fails
// when `timeout` passes, saying what is left (the pids, or the freezer
// state); a cgroup it froze is thawed again first.
Result<void> destroy(const Cgroup& cgroup, std::chrono::milliseconds timeout);

// The whole content of control file `dir`/`file`. Fails naming the path and
// errno's text (e.g. ENOENT when the controller is not enabled there).
Result<std::string> read(const std::string& dir, const std::string& file);

// Writes `value` into control file `dir`/`file` in one write() (cgroupfs
// applies one write per value). Fails naming the value, the path and errno's
// text (EINVAL: a value the kernel refuses; EBUSY: see create()).
Result<void> write(const std::string& dir, const std::string& file, const std::string& value);

// Moves process `pid` (all its threads) into the cgroup at `dir`, or into
// `cgroup` in every hierarchy. A process forked afterwards starts there.
// Fails naming the path (ESRCH: no such process; v2 EBUSY/EOPNOTSUPP: `dir`
// passes controllers to children, see create()).
Result<void> assign(const std::string& dir, pid_t pid);
Result<void> assign(const Cgroup& cgroup, pid_t pid);

// The pids in the cgroup at `dir` (cgroup.procs), and with `recursive` in
// all its descendants too; sorted, each once. Zombies are not listed. Fails
// when `dir` cannot be read; a descendant vanishing meanwhile is skipped.
Result<std::vector<pid_t>> pids(const std::string& dir, bool recursive = false);

// The OOM counters of `cgroup`'s memory controller.
struct MemoryEvents {
  std::optional<uint64_t> oom;      // v2 "oom": times the OOM killer was invoked
  std::optional<uint64_t> oomKill;  // "oom_kill": processes it killed (v1: kernel 4.13+)
  std::optional<bool> underOom;     // v1 "under_oom": stalled in OOM now
};

// Reads v1 memory.oom_control or v2 memory.events. Fails when the cgroup has
// no memory controller (naming it) or the file cannot be read.
Result<MemoryEvents> memoryEvents(const Cgroup& cgroup);

// Watches one cgroup for OOM events, for an event loop: poll fd() for
// pollEvents(), then call fired(). Owns its descriptor; movable, not
// copyable. Any thread may use it, one at a time.
class OomWatcher {
 public:
  // Starts watching `cgroup`'s memory controller. v1: an eventfd registered
  // with "<eventfd> <memory.oom_control fd>" in cgroup.event_control; it
  // becomes readable when the cgroup runs out of memory. v2: memory.events,
  // open, which polls POLLPRI when it changes. Fails when the cgroup has no
  // memory controller or a file cannot be opened or written.
  static Result<OomWatcher> watch(const Cgroup& cgroup);

  // The descriptor to poll (owned by the watcher) and the events to wait for:
  // v1 POLLIN; v2 POLLPRI (the file polls readable all the time).
  int fd() const { return fd_->get(); }
  short pollEvents() const;

  // Never blocks. Whether an OOM happened since watch() or the previous
  // fired(): v1 drains the eventfd; v2 re-reads memory.events (which re-arms
  // the poll) and compares oom_kill with the count seen last. Fails on a read
  // error (v2: the cgroup is gone).
  Result<bool> fired();

 private:
  OomWatcher(Version version, std::unique_ptr<Fd> fd, uint64_t oomKills)
      : version_(version), fd_(std::move(fd)), oomKills_(oomKills) {}

  Version version_;
  std::unique_ptr<Fd> fd_;
  uint64_t oomKills_;  // v2: the last oom_kill seen
};

// What statistics() could read; a field is empty when its file is absent (the
// controller is not in the cgroup, or the kernel lacks it).
struct Statistics {
  std::optional<double> cpuUserSeconds;    // v1 cpuacct.stat user; v2 cpu.stat user_usec
  std::optional<double> cpuSystemSeconds;  // v1 cpuacct.stat system; v2 cpu.stat system_usec
  std::optional<uint64_t> cpuPeriods;      // CFS: cpu.stat nr_periods
  std::optional<uint64_t> cpuThrottledPeriods;  // cpu.stat nr_throttled
  std::optional<double> cpuThrottledSeconds;    // v1 throttled_time (ns); v2 throttled_usec
  std::optional<uint64_t> memoryBytes;     // v1 memory.usage_in_bytes; v2 memory.current
  std::optional<uint64_t> memoryAnonBytes;  // memory.stat v1 total_rss (else rss); v2 anon
  std::optional<uint64_t> memoryFileBytes;  // memory.stat v1 total_cache (else cache); v2 file
  std::optional<uint64_t> memoryLimitBytes;  // v1 memory.limit_in_bytes; v2 memory.max; empty = none
  std::optional<uint64_t> processes;  // cgroup.procs, descendants included
  std::optional<uint64_t> threads;    // v1 tasks; v2 cgroup.threads; descendants included
};

// Reads `cgroup`'s statistics (CPU and memory figures count descendants).
// Fails when the cgroup does not exist or a present file cannot be parsed.
Result<Statistics> statistics(const Cgroup& cgroup);

// The values an isolator writes for a container of `cpus` CPUs and `bytes`
// of memory. Pure.
inline constexpr uint64_t kCpuSharesPerCpu = 1024;
inline constexpr uint64_t kMinCpuShares = 2;
inline constexpr uint64_t kMinCpuWeight = 1;
inline constexpr uint64_t kMaxCpuWeight = 10000;
inline constexpr uint64_t kCfsPeriodUs = 100000;  // 100 ms
inline constexpr uint64_t kMinCfsQuotaUs = 1000;  // 1 ms
inline constexpr uint64_t kMinMemoryBytes = 32 * 1024 * 1024;

// v1 cpu.shares: 1024 x cpus (truncated), at least 2.
inline uint64_t cpuShares(double cpus) {
  return std::max(static_cast<uint64_t>(kCpuSharesPerCpu * std::max(cpus, 0.0)), kMinCpuShares);
}

// v2 cpu.weight: round(100 x cpus), clamped to [1, 10000].
inline uint64_t cpuWeight(double cpus) {
  double weight = std::clamp(std::round(100 * cpus), double{kMinCpuWeight}, double{kMaxCpuWeight});
  return static_cast<uint64_t>(weight);
}

// CFS quota per 100 ms period (v1 cpu.cfs_quota_us with cpu.cfs_period_us =
// kCfsPeriodUs): cpus x 100000 us (truncated), at least 1000.
inline uint64_t cfsQuotaUs(double cpus) {
  return std::max(static_cast<uint64_t>(kCfsPeriodUs * std::max(cpus, 0.0)), kMinCfsQuotaUs);
}

// v2 cpu.max: "<cfsQuotaUs(cpus)> 100000".
inline std::string cpuMax(double cpus) {
  return std::to_string(cfsQuotaUs(cpus)) + " " + std::to_string(kCfsPeriodUs);
}

// v1 memory.limit_in_bytes / v2 memory.max: max(bytes, 32 MiB).
inline uint64_t memoryLimit(uint64_t bytes) { return std::max(bytes, kMinMemoryBytes); }

}  // namespace mesos::internal::cgroups
