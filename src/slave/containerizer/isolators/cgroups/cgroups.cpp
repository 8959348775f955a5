#include "slave/containerizer/isolators/cgroups/cgroups.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "common/strings.hpp"

namespace mesos::internal::cgroups {
namespace {

using Clock = std::chrono::steady_clock;

// The v1 controllers a "cgroup" mount's options may name; other options
// (rw, relatime, name=systemd, release_agent=...) are not controllers.
const std::set<std::string> kV1Controllers = {
    "blkio",   "cpu",        "cpuacct", "cpuset", "debug", "devices", "freezer", "hugetlb",
    "memory",  "misc",       "net_cls", "net_prio", "perf_event", "pids", "rdma"};

Error sysError(const std::string& what, int err) {
  return Error{what + ": " + std::error_code(err, std::generic_category()).message(), err};
}

std::string join(const std::string& dir, const std::string& path) {
  size_t start = path.find_first_not_of('/');
  if (start == std::string::npos) return dir;
  if (!dir.empty() && dir.back() == '/') return dir + path.substr(start);
  return dir + "/" + path.substr(start);
}

std::vector<std::string> split(const std::string& text, char separator) {
  return strings::splitNonEmpty(text, separator);
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string word; in >> word;) result.push_back(word);
  return result;
}

std::optional<uint64_t> parseUint(const std::string& text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr == text.data()) return std::nullopt;
  return value;
}

// "key value" lines (cpu.stat, memory.stat, memory.events, ...).
std::map<std::string, uint64_t> parseKeyed(const std::string& text) {
  std::map<std::string, uint64_t> values;
  for (const std::string& line : split(text, '\n')) {
    std::vector<std::string> fields = words(line);
    if (fields.size() != 2) continue;
    if (auto value = parseUint(fields[1])) values[fields[0]] = *value;
  }
  return values;
}

std::optional<uint64_t> find(const std::map<std::string, uint64_t>& values, const std::string& key) {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

// For statistics(): a file absent (or a controller the cgroup lacks: `dir`
// empty) reads as "", which gives no value.
Result<std::string> readIfPresent(const std::string& dir, const std::string& file) {
  if (dir.empty()) return std::string();
  Result<std::string> text = read(dir, file);
  if (!text && text.error().code == ENOENT) return std::string();
  return text;
}

Result<std::map<std::string, uint64_t>> keyed(const std::string& dir, const std::string& file) {
  Result<std::string> text = readIfPresent(dir, file);
  if (!text) return text.error();
  return parseKeyed(*text);
}

// A file holding one number; "max" (v2: no limit) gives no value.
Result<std::optional<uint64_t>> number(const std::string& dir, const std::string& file) {
  Result<std::string> text = readIfPresent(dir, file);
  if (!text) return text.error();
  std::vector<std::string> value = words(*text);
  if (value.empty() || value[0] == "max") return std::optional<uint64_t>();
  if (std::optional<uint64_t> parsed = parseUint(value[0])) return parsed;
  return Error{"cannot parse " + join(dir, file) + ": '" + *text + "'"};
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// Every directory below `dir`, deepest first (the order rmdir needs).
std::vector<std::string> descendants(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  namespace fs = std::filesystem;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) found.push_back(it->path().string());
  }
  std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
    return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
  });
  return found;
}

// The ids listed in `file` of `dir` (and of its descendants).
Result<std::vector<pid_t>> readIds(const std::string& dir, const std::string& file, bool recursive) {
  std::vector<std::string> dirs = {dir};
  if (recursive) {
    std::vector<std::string> below = descendants(dir);
    dirs.insert(dirs.end(), below.begin(), below.end());
  }
  std::set<pid_t> ids;
  for (const std::string& each : dirs) {
    Result<std::string> text = read(each, file);
    if (!text) {
      if (each != dir && text.error().code == ENOENT) continue;  // removed meanwhile
      return text.error();
    }
    for (const std::string& word : words(*text)) {
      if (auto id = parseUint(word)) ids.insert(static_cast<pid_t>(*id));
    }
  }
  return std::vector<pid_t>(ids.begin(), ids.end());
}

// The pids in every directory of `cgroup`, descendants included; directories
// already gone count as empty.
Result<std::vector<pid_t>> allPids(const Cgroup& cgroup) {
  std::set<pid_t> all;
  for (const std::string& dir : cgroup.dirs()) {
    if (!exists(dir)) continue;
    Result<std::vector<pid_t>> found = pids(dir, true);
    if (!found) return found.error();
    all.insert(found->begin(), found->end());
  }
  return std::vector<pid_t>(all.begin(), all.end());
}

std::string listPids(const std::vector<pid_t>& pids) {
  std::string text;
  for (pid_t pid : pids) text += (text.empty() ? "" : ",") + std::to_string(pid);
  return text.empty() ? "none" : text;
}

void killAll(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) ::kill(pid, SIGKILL);
}

// Sleeps a little longer each round (100 us, doubling, up to 10 ms) while
// polling a state the kernel reaches in microseconds (a killed process
// leaving its cgroup) to milliseconds (a busy cgroup freezing).
void backoff(int round) {
  std::this_thread::sleep_for(std::chrono::microseconds(std::min(100 << std::min(round, 7), 10000)));
}

// Polls `done` until it holds or `deadline` passes. `done` may fail.
template <typename F>
Result<bool> pollUntil(Clock::time_point deadline, F done) {
  for (int round = 0;; ++round) {
    Result<bool> result = done(round);
    if (!result || *result) return result;
    if (Clock::now() >= deadline) return false;
    backoff(round);
  }
}

// Freezes the cgroup through `dir` (v1: its freezer hierarchy's directory;
// v2: its directory), SIGKILLs every process of `cgroup` once all are frozen
// (a frozen process cannot fork), and thaws it, so the signals land. Thaws
// also on failure, leaving nothing frozen.
Result<void> freezeAndKill(const Cgroup& cgroup, const std::string& dir, Clock::time_point deadline) {
  bool v2 = cgroup.version() == Version::kV2;
  const char* control = v2 ? "cgroup.freeze" : "freezer.state";
  std::string state;
  Result<bool> frozen = pollUntil(deadline, [&](int round) -> Result<bool> {
    // v1 can stay FREEZING on a task in an uninterruptible sleep: asking
    // again retries the tasks not frozen yet.
    if (round % 20 == 0) {
      if (Result<void> asked = write(dir, control, v2 ? "1" : "FROZEN"); !asked) return asked.error();
    }
    Result<std::string> text = read(dir, v2 ? "cgroup.events" : "freezer.state");
    if (!text) return text.error();
    state = v2 ? "frozen " + std::to_string(find(parseKeyed(*text), "frozen").value_or(0))
               : (words(*text).empty() ? "" : words(*text)[0]);
    return state == (v2 ? "frozen 1" : "FROZEN");
  });
  Result<std::vector<pid_t>> inside = allPids(cgroup);
  if (frozen && *frozen && inside) killAll(*inside);
  Result<void> thawed = write(dir, control, v2 ? "0" : "THAWED");
  if (!frozen) return frozen.error();
  if (!*frozen) {
    return Error{"cannot destroy cgroup " + dir + ": not frozen by the deadline (" + state +
                 "); processes: " + (inside ? listPids(*inside) : inside.error().message)};
  }
  if (!inside) return inside.error();
  return thawed;
}

}  // namespace

std::vector<Mount> parseMounts(const std::string& text) {
  auto unescape = [](const std::string& field) {
    std::string out;
    for (size_t i = 0; i < field.size(); ++i) {
      if (field[i] == '\\' && i + 3 < field.size() &&
          std::all_of(field.begin() + i + 1, field.begin() + i + 4,
                      [](char c) { return c >= '0' && c <= '7'; })) {
        out += static_cast<char>(std::stoi(field.substr(i + 1, 3), nullptr, 8));
        i += 3;
      } else {
        out += field[i];
      }
    }
    return out;
  };
  std::vector<Mount> mounts;
  for (const std::string& line : split(text, '\n')) {
    std::vector<std::string> fields = words(line);
    if (fields.size() < 4) continue;
    mounts.push_back(Mount{unescape(fields[0]), unescape(fields[1]), fields[2], split(fields[3], ',')});
  }
  return mounts;
}

Result<std::vector<Membership>> parseProcCgroup(const std::string& text) {
  std::vector<Membership> memberships;
  for (const std::string& line : split(text, '\n')) {
    size_t first = line.find(':');
    size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    std::optional<uint64_t> id = parseUint(line.substr(0, first));
    if (second == std::string::npos || !id || line.size() == second + 1 || line[second + 1] != '/') {
      return Error{"malformed /proc/self/cgroup line '" + line + "': expected 'id:controllers:/path'"};
    }
    memberships.push_back(Membership{static_cast<int>(*id),
                                     split(line.substr(first + 1, second - first - 1), ','),
                                     line.substr(second + 1)});
  }
  return memberships;
}

Result<Layout> Layout::makeV2(const std::string& mountPoint, const std::string& procSelfCgroup,
                              const std::string& rootControllers) {
  Result<std::vector<Membership>> memberships = parseProcCgroup(procSelfCgroup);
  if (!memberships) return memberships.error();
  Layout layout;
  layout.version_ = Version::kV2;
  layout.roots_[""] = mountPoint;
  layout.v2Controllers_ = words(rootControllers);
  std::sort(layout.v2Controllers_.begin(), layout.v2Controllers_.end());
  for (const Membership& membership : *memberships) {
    if (membership.hierarchyId == 0 && membership.controllers.empty()) layout.self_[""] = membership.path;
  }
  if (layout.self_.empty()) {
    return Error{"/proc/self/cgroup has no cgroup v2 line ('0::/path'): this process is not in the "
                 "unified hierarchy mounted at " + mountPoint};
  }
  return layout;
}

Result<Layout> Layout::fromText(const std::string& hierarchy, const std::string& mounts,
                                const std::string& procSelfCgroup,
                                const std::string& v2RootControllers) {
  std::string top = hierarchy.size() > 1 && hierarchy.back() == '/'
                        ? hierarchy.substr(0, hierarchy.size() - 1) : hierarchy;
  std::vector<Mount> table = parseMounts(mounts);
  for (const Mount& mount : table) {
    if (mount.type == "cgroup2" && mount.target == top) return makeV2(top, procSelfCgroup, v2RootControllers);
  }
  Result<std::vector<Membership>> memberships = parseProcCgroup(procSelfCgroup);
  if (!memberships) return memberships.error();
  Layout layout;
  for (const Mount& mount : table) {
    bool below = mount.target.rfind(top + "/", 0) == 0;
    if (mount.type == "cgroup2" && (below || !layout.unified_)) layout.unified_ = mount.target;
    if (mount.type != "cgroup" || !below) continue;
    for (const std::string& option : mount.options) {
      if (kV1Controllers.count(option) != 0) layout.roots_[option] = mount.target;
    }
  }
  if (layout.roots_.empty()) {
    return Error{"no cgroup hierarchy at " + top + ": it is not a cgroup2 mount and no cgroup v1 "
                 "controller is mounted below it; check --cgroups_hierarchy"};
  }
  for (const Membership& membership : *memberships) {
    for (const std::string& controller : membership.controllers) layout.self_[controller] = membership.path;
  }
  return layout;
}

Result<Layout> Layout::detect(const std::string& hierarchy) {
  struct statfs info {};
  if (::statfs(hierarchy.c_str(), &info) != 0) return sysError("cannot statfs " + hierarchy, errno);
  if (info.f_type == CGROUP2_SUPER_MAGIC) return v2At(hierarchy);
  Result<std::string> mounts = read("/proc/self", "mounts");
  if (!mounts) return mounts.error();
  Result<std::string> self = read("/proc/self", "cgroup");
  if (!self) return self.error();
  return fromText(hierarchy, *mounts, *self);
}

Result<Layout> Layout::v2At(const std::string& mountPoint) {
  struct statfs info {};
  if (::statfs(mountPoint.c_str(), &info) != 0) return sysError("cannot statfs " + mountPoint, errno);
  if (info.f_type != CGROUP2_SUPER_MAGIC) return Error{mountPoint + " is not a cgroup2 mount"};
  Result<std::string> self = read("/proc/self", "cgroup");
  if (!self) return self.error();
  Result<std::string> controllers = read(mountPoint, "cgroup.controllers");
  if (!controllers) return controllers.error();
  return makeV2(mountPoint, *self, *controllers);
}

bool Layout::has(const std::string& controller) const {
  if (version_ == Version::kV2) {
    return std::binary_search(v2Controllers_.begin(), v2Controllers_.end(), controller);
  }
  return roots_.count(controller) != 0;
}

std::vector<std::string> Layout::controllers() const {
  if (version_ == Version::kV2) return v2Controllers_;
  std::vector<std::string> names;
  for (const auto& [name, mount] : roots_) names.push_back(name);
  return names;
}

std::string Layout::root(const std::string& controller) const {
  auto it = roots_.find(version_ == Version::kV2 ? "" : controller);
  return it == roots_.end() ? "" : it->second;
}

std::optional<std::string> Layout::self(const std::string& controller) const {
  auto it = self_.find(version_ == Version::kV2 ? "" : controller);
  if (it == self_.end()) return std::nullopt;
  return it->second;
}

Result<Cgroup> Layout::cgroup(const std::string& name, const std::vector<std::string>& controllers,
                              const std::optional<std::string>& base) const {
  std::vector<std::string> parts = split(name, '/');
  bool valid = !name.empty() && name.front() != '/' && name.back() != '/' &&
               name.find("//") == std::string::npos &&
               std::none_of(parts.begin(), parts.end(),
                            [](const std::string& part) { return part == "." || part == ".."; });
  if (!valid) return Error{"invalid cgroup name '" + name + "': want a relative path without '.' or '..'"};
  if (version_ == Version::kV1 && controllers.empty()) {
    return Error{"cgroup '" + name + "' names no controller: a cgroup v1 cgroup lives in controllers' hierarchies"};
  }
  Cgroup cgroup;
  cgroup.version_ = version_;
  cgroup.name_ = name;
  cgroup.controllers_ = controllers;
  std::vector<std::string> keys = version_ == Version::kV2 ? std::vector<std::string>{""} : controllers;
  for (const std::string& controller : controllers) {
    if (has(controller)) continue;
    std::string available;
    for (const std::string& each : this->controllers()) available += (available.empty() ? "" : " ") + each;
    return Error{"controller '" + controller + "' is not available in the cgroup " +
                 (version_ == Version::kV2 ? "v2 hierarchy at " + root("") : "v1 mounts") +
                 " (available: " + (available.empty() ? "none" : available) + ")"};
  }
  for (const std::string& key : keys) {
    std::optional<std::string> own = base ? base : self(key);
    if (!own) return Error{"/proc/self/cgroup does not say this process's cgroup for '" + key + "'"};
    std::string baseDir = join(root(key), *own);
    cgroup.places_[key] = Cgroup::Place{baseDir, join(baseDir, name)};
  }
  return cgroup;
}

std::string Cgroup::dir(const std::string& controller) const {
  auto it = places_.find(version_ == Version::kV2 ? "" : controller);
  return it == places_.end() ? "" : it->second.dir;
}

std::vector<std::string> Cgroup::dirs() const {
  std::set<std::string> unique;
  for (const auto& [key, place] : places_) unique.insert(place.dir);
  return std::vector<std::string>(unique.begin(), unique.end());
}

Result<std::string> read(const std::string& dir, const std::string& file) {
  std::string path = join(dir, file);
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return sysError("cannot open " + path, errno);
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sysError("cannot read " + path, errno);
    if (n == 0) return text;
    text.append(buffer, static_cast<size_t>(n));
  }
}

Result<void> write(const std::string& dir, const std::string& file, const std::string& value) {
  std::string path = join(dir, file);
  Fd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0) return sysError("cannot open " + path + " to write '" + value + "'", errno);
  ssize_t n;
  do {
    n = ::write(fd.get(), value.data(), value.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) return sysError("cannot write '" + value + "' to " + path, errno);
  if (static_cast<size_t>(n) != value.size()) return Error{"short write of '" + value + "' to " + path};
  return {};
}

Result<void> assign(const std::string& dir, pid_t pid) {
  return write(dir, "cgroup.procs", std::to_string(pid));
}

Result<void> assign(const Cgroup& cgroup, pid_t pid) {
  for (const std::string& dir : cgroup.dirs()) {
    if (Result<void> done = assign(dir, pid); !done) return done;
  }
  return {};
}

Result<std::vector<pid_t>> pids(const std::string& dir, bool recursive) {
  return readIds(dir, "cgroup.procs", recursive);
}

Result<void> create(const Cgroup& cgroup) {
  std::vector<std::string> parts = split(cgroup.name(), '/');
  for (const auto& [controller, place] : cgroup.places_) {
    // v2: what the base may pass on, checked first for a clear error.
    std::string enable;
    if (cgroup.version() == Version::kV2 && !cgroup.controllers().empty()) {
      Result<std::string> delegated = read(place.base, "cgroup.controllers");
      if (!delegated) return delegated.error();
      std::vector<std::string> available = words(*delegated);
      for (const std::string& each : cgroup.controllers()) {
        if (std::find(available.begin(), available.end(), each) == available.end()) {
          return Error{"controller '" + each + "' is not delegated to " + place.base +
                       " (its cgroup.controllers: '" + *delegated + "'): enable it in the parent's "
                       "cgroup.subtree_control, or use a base that has it"};
        }
        enable += (enable.empty() ? "+" : " +") + each;
      }
    }
    std::string level = place.base;
    for (size_t i = 0; i < parts.size(); ++i) {
      std::string parent = level;
      level = join(level, parts[i]);
      if (!enable.empty()) {
        Result<void> enabled = write(parent, "cgroup.subtree_control", enable);
        if (!enabled && enabled.error().code == EBUSY) {
          return Error{enabled.error().message + ": " + parent + " holds processes, and cgroup v2 "
                       "passes no controller to the children of a cgroup with processes; move "
                       "them into a leaf cgroup first", EBUSY};
        }
        if (!enabled) return enabled;
      }
      if (::mkdir(level.c_str(), 0755) != 0) {
        if (errno == EEXIST) continue;
        return sysError("cannot create cgroup " + level, errno);
      }
      if (controller == "cpuset" && cgroup.version() == Version::kV1) {
        for (const char* file : {"cpuset.cpus", "cpuset.mems"}) {
          Result<std::string> value = read(parent, file);
          if (!value) return value.error();
          if (Result<void> copied = write(level, file, *value); !copied) return copied;
        }
      }
    }
  }
  return {};
}

Result<void> leaveForLeaf(const Layout& layout, const std::string& leaf, pid_t pid,
                          const std::optional<std::string>& base) {
  if (layout.version() != Version::kV2) return {};
  std::optional<std::string> own = base ? base : layout.self("");
  if (!own) return Error{"/proc/self/cgroup does not say this process's cgroup"};
  if (*own == "/" || own->empty()) return {};
  Result<std::vector<pid_t>> inBase = pids(join(layout.root(""), *own));
  if (!inBase) return inBase.error();
  if (std::find(inBase->begin(), inBase->end(), pid) == inBase->end()) return {};
  Result<Cgroup> target = layout.cgroup(leaf, {}, own);
  if (!target) return target.error();
  if (Result<void> made = create(*target); !made) return made;
  return assign(*target, pid);
}

Result<void> remove(const Cgroup& cgroup) {
  for (const std::string& dir : cgroup.dirs()) {
    // A container's cgroup is a leaf: one rmdir, without listing it.
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) continue;
    std::vector<std::string> order = descendants(dir);
    order.push_back(dir);
    for (const std::string& each : order) {
      if (::rmdir(each.c_str()) == 0 || errno == ENOENT) continue;
      int err = errno;
      Result<std::vector<pid_t>> left = pids(each, true);
      return sysError("cannot remove cgroup " + each + " (processes in it: " +
                          (left ? listPids(*left) : left.error().message) + ")", err);
    }
  }
  return {};
}

Result<void> destroy(const Cgroup& cgroup, std::chrono::milliseconds timeout) {
  Clock::time_point deadline = Clock::now() + timeout;
  std::vector<std::string> dirs = cgroup.dirs();
  if (std::none_of(dirs.begin(), dirs.end(), exists)) return {};

  // With no process left in it (the usual case: the slave killed the
  // executor's processes first, or they ended) rmdir succeeds, and nothing
  // needs freezing. With processes it fails (EBUSY), atomically: the way
  // below kills them.
  if (remove(cgroup)) return {};

  if (cgroup.version() == Version::kV2) {
    const std::string& dir = dirs.front();
    Result<void> killed = exists(join(dir, "cgroup.kill")) ? write(dir, "cgroup.kill", "1")
                                                         : freezeAndKill(cgroup, dir, deadline);
    if (!killed) return killed;
  } else if (std::string freezer = cgroup.dir("freezer"); !freezer.empty() && exists(freezer)) {
    if (Result<void> killed = freezeAndKill(cgroup, freezer, deadline); !killed) return killed;
  }

  // Wait for the kernel to finish the killing. SIGKILL again each round:
  // without a freezer, children forked meanwhile must be caught too.
  std::vector<pid_t> left;
  Result<bool> empty = pollUntil(deadline, [&](int) -> Result<bool> {
    if (cgroup.version() == Version::kV2) {
      Result<std::string> events = read(dirs.front(), "cgroup.events");
      if (!events) return events.error();
      if (find(parseKeyed(*events), "populated") == 0u) return true;
    }
    Result<std::vector<pid_t>> found = allPids(cgroup);
    if (!found) return found.error();
    left = *found;
    killAll(left);
    return left.empty() && cgroup.version() == Version::kV1;
  });
  if (!empty) return empty.error();
  if (!*empty) {
    return Error{"cannot destroy cgroup '" + cgroup.name() + "' within " + std::to_string(timeout.count()) +
                 " ms: processes still in it: " + listPids(left)};
  }

  // rmdir can still meet EBUSY for a moment while the kernel lets go of the
  // last exited tasks.
  Result<void> removed = remove(cgroup);
  while (!removed && removed.error().code == EBUSY && Clock::now() < deadline) {
    backoff(10);
    removed = remove(cgroup);
  }
  return removed;
}

Result<MemoryEvents> memoryEvents(const Cgroup& cgroup) {
  std::string dir = cgroup.dir("memory");
  if (dir.empty()) return Error{"cgroup '" + cgroup.name() + "' has no memory controller"};
  bool v2 = cgroup.version() == Version::kV2;
  Result<std::string> text = read(dir, v2 ? "memory.events" : "memory.oom_control");
  if (!text) return text.error();
  std::map<std::string, uint64_t> values = parseKeyed(*text);
  MemoryEvents events;
  events.oomKill = find(values, "oom_kill");
  if (v2) {
    events.oom = find(values, "oom");
  } else if (auto under = find(values, "under_oom")) {
    events.underOom = *under != 0;
  }
  return events;
}

Result<OomWatcher> OomWatcher::watch(const Cgroup& cgroup) {
  std::string dir = cgroup.dir("memory");
  if (dir.empty()) return Error{"cgroup '" + cgroup.name() + "' has no memory controller"};
  if (cgroup.version() == Version::kV2) {
    Result<MemoryEvents> start = memoryEvents(cgroup);
    if (!start) return start.error();
    std::string path = join(dir, "memory.events");
    auto fd = std::make_unique<Fd>(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd->get() < 0) return sysError("cannot open " + path, errno);
    return OomWatcher(Version::kV2, std::move(fd), start->oomKill.value_or(0));
  }
  auto event = std::make_unique<Fd>(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (event->get() < 0) return sysError("cannot create an eventfd", errno);
  std::string path = join(dir, "memory.oom_control");
  // The registration holds what it needs: the control file may close after.
  Fd control(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (control.get() < 0) return sysError("cannot open " + path, errno);
  Result<void> registered = write(dir, "cgroup.event_control",
                                  std::to_string(event->get()) + " " + std::to_string(control.get()));
  if (!registered) return registered.error();
  return OomWatcher(Version::kV1, std::move(event), 0);
}

short OomWatcher::pollEvents() const { return version_ == Version::kV2 ? POLLPRI : POLLIN; }

Result<bool> OomWatcher::fired() {
  if (version_ == Version::kV1) {
    uint64_t count = 0;
    ssize_t n = ::read(fd_->get(), &count, sizeof count);
    if (n < 0 && errno == EAGAIN) return false;
    if (n != sizeof count) return sysError("cannot read the OOM eventfd", errno);
    return count > 0;
  }
  char buffer[1024];
  ssize_t n = ::pread(fd_->get(), buffer, sizeof buffer - 1, 0);
  if (n < 0) return sysError("cannot read memory.events", errno);
  uint64_t kills = find(parseKeyed(std::string(buffer, static_cast<size_t>(n))), "oom_kill").value_or(0);
  bool more = kills > oomKills_;
  oomKills_ = kills;
  return more;
}

Result<Statistics> statistics(const Cgroup& cgroup) {
  std::vector<std::string> dirs = cgroup.dirs();
  if (dirs.empty() || !exists(dirs.front())) return Error{"cgroup '" + cgroup.name() + "' does not exist"};
  bool v2 = cgroup.version() == Version::kV2;
  Statistics stats;

  Result<std::map<std::string, uint64_t>> cpu = keyed(cgroup.dir("cpu"), "cpu.stat");
  if (!cpu) return cpu.error();
  stats.cpuPeriods = find(*cpu, "nr_periods");
  stats.cpuThrottledPeriods = find(*cpu, "nr_throttled");
  if (v2) {
    if (auto us = find(*cpu, "user_usec")) stats.cpuUserSeconds = *us / 1e6;
    if (auto us = find(*cpu, "system_usec")) stats.cpuSystemSeconds = *us / 1e6;
    if (auto us = find(*cpu, "throttled_usec")) stats.cpuThrottledSeconds = *us / 1e6;
  } else {
    if (auto ns = find(*cpu, "throttled_time")) stats.cpuThrottledSeconds = *ns / 1e9;
    Result<std::map<std::string, uint64_t>> acct = keyed(cgroup.dir("cpuacct"), "cpuacct.stat");
    if (!acct) return acct.error();
    double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
    if (auto user = find(*acct, "user")) stats.cpuUserSeconds = *user / ticks;
    if (auto system = find(*acct, "system")) stats.cpuSystemSeconds = *system / ticks;
  }

  std::string memory = cgroup.dir("memory");
  Result<std::optional<uint64_t>> usage = number(memory, v2 ? "memory.current" : "memory.usage_in_bytes");
  if (!usage) return usage.error();
  stats.memoryBytes = *usage;
  Result<std::optional<uint64_t>> limit = number(memory, v2 ? "memory.max" : "memory.limit_in_bytes");
  if (!limit) return limit.error();
  // v1 writes "no limit" as PAGE_COUNTER_MAX pages (0x7ffffffffffff000 on 4k pages).
  if (*limit && (v2 || **limit < (uint64_t{1} << 62))) stats.memoryLimitBytes = *limit;
  Result<std::map<std::string, uint64_t>> mem = keyed(memory, "memory.stat");
  if (!mem) return mem.error();
  if (v2) {
    stats.memoryAnonBytes = find(*mem, "anon");
    stats.memoryFileBytes = find(*mem, "file");
  } else {
    stats.memoryAnonBytes = find(*mem, "total_rss") ? find(*mem, "total_rss") : find(*mem, "rss");
    stats.memoryFileBytes = find(*mem, "total_cache") ? find(*mem, "total_cache") : find(*mem, "cache");
  }

  Result<std::vector<pid_t>> processes = readIds(dirs.front(), "cgroup.procs", true);
  if (!processes) return processes.error();
  stats.processes = processes->size();
  Result<std::vector<pid_t>> threads = readIds(dirs.front(), v2 ? "cgroup.threads" : "tasks", true);
  if (!threads) return threads.error();
  stats.threads = threads->size();
  return stats;
}

}  // namespace mesos::internal::cgroups
