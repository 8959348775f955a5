// The cgroups library (src/slave/containerizer/isolators/cgroups/): its parsers and value helpers
// on sample text, and every operation on this machine's real cgroups (v1
// below /sys/fs/cgroup, v2 on the unified mount). Tests that need what the
// machine lacks (root, a controller, a v2 mount) skip saying what is missing.
// Each creates its cgroups below this process's own cgroup, under a name
// holding the test's pid, and a guard destroys them whatever happens.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <linux/magic.h>
#include <spawn.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "slave/containerizer/isolators/cgroups/cgroups.hpp"

extern char** environ;

namespace mesos::internal::cgroups {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr milliseconds kDestroyTimeout{10000};

// Polls `condition` every 10 ms for up to `limit`; whether it came true.
template <typename F>
bool eventually(F condition, milliseconds limit = milliseconds(10000)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string comm(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// A shell the test starts, holding still on `read` until release(): the
// test assigns it to a cgroup first, so all it forks starts there.
class Shell {
 public:
  explicit Shell(const std::string& script) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    std::string body = "read x; " + script;
    const char* argv[] = {"/bin/sh", "-c", body.c_str(), nullptr};
    if (posix_spawn(&pid_, "/bin/sh", &actions, nullptr, const_cast<char**>(argv), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[0]);
    release_ = fds[1];
  }
  ~Shell() {
    if (release_ >= 0) ::close(release_);
    if (pid_ > 0 && !status_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  pid_t pid() const { return pid_; }

  void release() {
    if (::write(release_, "\n", 1) != 1) ADD_FAILURE() << "cannot release the shell";
    ::close(release_);
    release_ = -1;
  }

  // Its wait status, once it ended within 10 s.
  std::optional<int> wait() {
    eventually([this] {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) status_ = status;
      return status_.has_value();
    });
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int release_ = -1;
  std::optional<int> status_;
};

bool killedBy(const std::optional<int>& status, int signal) {
  return status && WIFSIGNALED(*status) && WTERMSIG(*status) == signal;
}

// Destroys a cgroup when the test ends, passed or failed.
class Guard {
 public:
  explicit Guard(Cgroup cgroup) : cgroup_(std::move(cgroup)) {}
  ~Guard() {
    Result<void> destroyed = destroy(cgroup_, kDestroyTimeout);
    if (!destroyed) ADD_FAILURE() << "cleanup: " << destroyed.error().message;
  }

 private:
  Cgroup cgroup_;
};

// The cgroups of one test: "cgroups_test_<pid>_<test>" below this process's
// own cgroup, in every hierarchy the test uses.
class CgroupsFixture : public ::testing::Test {
 protected:
  // Sets up the test's top cgroup in `layout`; false (with a failure) when
  // it cannot.
  bool start(const Layout& layout, const std::vector<std::string>& controllers) {
    layout_ = layout;
    top_ = "cgroups_test_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    Result<Cgroup> top = layout_->cgroup(top_, controllers);
    EXPECT_TRUE(top.ok()) << top.error().message;
    if (!top) return false;
    guard_.emplace(*top);
    Result<void> created = create(*top);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return created.ok();
  }

  // Creates the cgroup `leaf` below the test's top cgroup.
  Cgroup container(const std::string& leaf, const std::vector<std::string>& controllers) {
    Result<Cgroup> cgroup = layout_->cgroup(top_ + "/" + leaf, controllers);
    EXPECT_TRUE(cgroup.ok()) << cgroup.error().message;
    Result<void> created = create(*cgroup);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return *cgroup;
  }

  // A process tree escaping its session and its parent: after release(), a
  // session of its own (setsid), a double-forked orphan, four sleeps in all.
  static constexpr char kEscapingTree[] =
      "setsid sh -c 'sleep 60 & sleep 60' & (sleep 60 &) ; sleep 60";

  // Starts kEscapingTree in `cgroup` and returns the pids it ends up with
  // (once its four sleeps run), checking that one left the shell's session.
  std::vector<pid_t> startEscapingTree(Shell& shell, const Cgroup& cgroup) {
    Result<void> assigned = assign(cgroup, shell.pid());
    EXPECT_TRUE(assigned.ok()) << assigned.error().message;
    shell.release();
    std::vector<pid_t> tree;
    EXPECT_TRUE(eventually([&] {
      Result<std::vector<pid_t>> found = pids(cgroup.dirs().front(), true);
      if (!found) return false;
      tree = *found;
      return std::count_if(tree.begin(), tree.end(), [](pid_t pid) { return comm(pid) == "sleep"; }) >= 4;
    })) << "the process tree did not start its four sleeps in " << cgroup.dirs().front();
    EXPECT_TRUE(std::any_of(tree.begin(), tree.end(),
                            [&](pid_t pid) { return ::getsid(pid) != ::getsid(shell.pid()); }))
        << "no process of the tree left the shell's session";
    return tree;
  }

  static void expectAllGone(const std::vector<pid_t>& tree, const Cgroup& cgroup) {
    for (pid_t pid : tree) {
      EXPECT_TRUE(eventually([pid] { return ::kill(pid, 0) != 0 && errno == ESRCH; }))
          << "process " << pid << " (" << comm(pid) << ") survived the destroy";
    }
    for (const std::string& dir : cgroup.dirs()) {
      EXPECT_NE(0, ::access(dir.c_str(), F_OK)) << dir << " is still there";
    }
  }

  std::optional<Layout> layout_;
  std::string top_;
  std::optional<Guard> guard_;
};

// cgroup v1 on this machine: cpu, cpuacct, memory and freezer hierarchies.
class CgroupsV1Test : public CgroupsFixture {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups";
    Result<Layout> layout = Layout::detect();
    if (!layout) GTEST_SKIP() << "no cgroups at " << kDefaultHierarchy << ": " << layout.error().message;
    if (layout->version() != Version::kV1) GTEST_SKIP() << kDefaultHierarchy << " is cgroup v2, not v1";
    for (const std::string& controller : kControllers) {
      if (!layout->has(controller)) GTEST_SKIP() << "no cgroup v1 " << controller << " hierarchy";
    }
    ASSERT_TRUE(start(*layout, kControllers));
  }

  const std::vector<std::string> kControllers = {"cpu", "cpuacct", "freezer", "memory"};
};

// cgroup v2: /sys/fs/cgroup itself, or the unified mount of a hybrid host.
class CgroupsV2Test : public CgroupsFixture {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups";
    Result<Layout> main = Layout::detect();
    if (!main) GTEST_SKIP() << "no cgroups at " << kDefaultHierarchy << ": " << main.error().message;
    std::optional<Layout> v2;
    if (main->version() == Version::kV2) {
      v2 = *main;
    } else if (main->unified()) {
      Result<Layout> unified = Layout::v2At(*main->unified());
      ASSERT_TRUE(unified.ok()) << unified.error().message;
      v2 = *unified;
    } else {
      GTEST_SKIP() << "no cgroup v2 hierarchy: " << kDefaultHierarchy << " is v1 with no unified mount";
    }
    ASSERT_TRUE(start(*v2, {}));
  }
};

const char kHybridMounts[] =
    "tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0\n"
    "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
    "cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0\n"
    "cgroup /sys/fs/cgroup/memory cgroup rw,nosuid,relatime,memory 0 0\n"
    "cgroup /sys/fs/cgroup/systemd cgroup rw,relatime,xattr,name=systemd 0 0\n"
    "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";
const char kHybridSelf[] = "9:name=systemd:/\n4:memory:/process_api/38cb\n2:cpuacct:/\n1:cpu:/\n0::/\n";

TEST(CgroupsParseTest, ProcSelfCgroupLines) {
  Result<std::vector<Membership>> lines =
      parseProcCgroup("3:cpu,cpuacct:/mesos/slave\n1:name=systemd:/a:b\n0::/user.slice\n");
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_EQ(3u, lines->size());
  EXPECT_EQ(3, (*lines)[0].hierarchyId);
  EXPECT_EQ((std::vector<std::string>{"cpu", "cpuacct"}), (*lines)[0].controllers);
  EXPECT_EQ("/mesos/slave", (*lines)[0].path);
  EXPECT_EQ("/a:b", (*lines)[1].path);  // only the first two colons separate
  EXPECT_EQ(0, (*lines)[2].hierarchyId);
  EXPECT_TRUE((*lines)[2].controllers.empty());
  EXPECT_EQ("/user.slice", (*lines)[2].path);

  Result<std::vector<Membership>> bad = parseProcCgroup("0::/\ncpu:/x\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(contains(bad.error().message, "'cpu:/x'")) << bad.error().message;
}

TEST(CgroupsParseTest, MountsDecodeEscapesAndOptions) {
  std::vector<Mount> mounts = parseMounts("cgroup /mnt/my\\040cgroups cgroup rw,cpu,cpuacct 0 0\nshort line\n");
  ASSERT_EQ(1u, mounts.size());
  EXPECT_EQ("/mnt/my cgroups", mounts[0].target);
  EXPECT_EQ("cgroup", mounts[0].type);
  EXPECT_EQ((std::vector<std::string>{"rw", "cpu", "cpuacct"}), mounts[0].options);
}

TEST(CgroupsParseTest, V1OnlyWithCombinedCpuMount) {
  Result<Layout> layout = Layout::fromText(
      "/sys/fs/cgroup/",
      "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0\n"
      "cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\n"
      "cgroup /other/freezer cgroup rw,freezer 0 0\n",
      "5:memory:/mesos\n2:cpu,cpuacct:/slave\n");
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  EXPECT_EQ(Version::kV1, layout->version());
  EXPECT_EQ((std::vector<std::string>{"cpu", "cpuacct", "memory"}), layout->controllers());
  EXPECT_FALSE(layout->has("freezer"));  // mounted, but not below the hierarchy
  EXPECT_EQ("/sys/fs/cgroup/cpu,cpuacct", layout->root("cpuacct"));
  EXPECT_EQ("/slave", layout->self("cpu"));
  EXPECT_FALSE(layout->unified().has_value());

  Result<Cgroup> cgroup = layout->cgroup("c1", {"cpu", "cpuacct", "memory"});
  ASSERT_TRUE(cgroup.ok()) << cgroup.error().message;
  EXPECT_EQ((std::vector<std::string>{"/sys/fs/cgroup/cpu,cpuacct/slave/c1", "/sys/fs/cgroup/memory/mesos/c1"}),
            cgroup->dirs());
  EXPECT_EQ("/sys/fs/cgroup/memory/mesos/c1", cgroup->dir("memory"));
  EXPECT_EQ("", cgroup->dir("freezer"));

  Result<Cgroup> missing = layout->cgroup("c1", {"memory", "freezer"});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(contains(missing.error().message, "'freezer'")) << missing.error().message;
  for (const char* name : {"", "/abs", "../up", "a/./b", "a//b", "a/"}) {
    EXPECT_FALSE(layout->cgroup(name, {"memory"}).ok()) << "accepted '" << name << "'";
  }
  EXPECT_FALSE(layout->cgroup("c1", {}).ok());
}

TEST(CgroupsParseTest, V2Only) {
  Result<Layout> layout = Layout::fromText(
      "/sys/fs/cgroup", "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate 0 0\n",
      "0::/system.slice/mesos-slave.service\n", "cpuset cpu io memory pids\n");
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  EXPECT_EQ(Version::kV2, layout->version());
  EXPECT_TRUE(layout->has("memory"));
  EXPECT_FALSE(layout->has("freezer"));
  EXPECT_EQ("/sys/fs/cgroup", layout->root("anything"));
  EXPECT_EQ("/system.slice/mesos-slave.service", layout->self("memory"));

  Result<Cgroup> cgroup = layout->cgroup("mesos/c1", {"cpu", "memory"});
  ASSERT_TRUE(cgroup.ok()) << cgroup.error().message;
  EXPECT_EQ((std::vector<std::string>{"/sys/fs/cgroup/system.slice/mesos-slave.service/mesos/c1"}), cgroup->dirs());
  EXPECT_EQ(cgroup->dirs().front(), cgroup->dir("cpu"));
  Result<Cgroup> based = layout->cgroup("c2", {}, std::string("/mesos"));
  ASSERT_TRUE(based.ok()) << based.error().message;
  EXPECT_EQ("/sys/fs/cgroup/mesos/c2", based->dir(""));
  EXPECT_FALSE(layout->cgroup("c1", {"hugetlb"}).ok());

  Result<Layout> noLine = Layout::fromText("/sys/fs/cgroup", "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n", "");
  EXPECT_FALSE(noLine.ok());
}

TEST(CgroupsParseTest, HybridFindsTheUnifiedMount) {
  Result<Layout> layout = Layout::fromText("/sys/fs/cgroup", kHybridMounts, kHybridSelf);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  EXPECT_EQ(Version::kV1, layout->version());
  EXPECT_EQ((std::vector<std::string>{"cpu", "cpuacct", "memory"}), layout->controllers());
  EXPECT_NE(layout->root("cpu"), layout->root("cpuacct"));
  EXPECT_EQ("/process_api/38cb", layout->self("memory"));
  EXPECT_EQ("/sys/fs/cgroup/unified", layout->unified());

  Result<Layout> unified = Layout::fromText("/sys/fs/cgroup/unified", kHybridMounts, kHybridSelf);
  ASSERT_TRUE(unified.ok()) << unified.error().message;
  EXPECT_EQ(Version::kV2, unified->version());
  EXPECT_EQ("/", unified->self(""));

  Result<Layout> nowhere = Layout::fromText("/nowhere", kHybridMounts, kHybridSelf);
  ASSERT_FALSE(nowhere.ok());
  EXPECT_TRUE(contains(nowhere.error().message, "/nowhere")) << nowhere.error().message;
}

TEST(CgroupsValuesTest, IsolatorValues) {
  EXPECT_EQ(1024u, cpuShares(1));
  EXPECT_EQ(512u, cpuShares(0.5));
  EXPECT_EQ(2u, cpuShares(0.001));
  EXPECT_EQ(2u, cpuShares(0));
  EXPECT_EQ(100u, cpuWeight(1));
  EXPECT_EQ(25u, cpuWeight(0.245));
  EXPECT_EQ(1u, cpuWeight(0.001));
  EXPECT_EQ(10000u, cpuWeight(500));
  EXPECT_EQ(150000u, cfsQuotaUs(1.5));
  EXPECT_EQ(1000u, cfsQuotaUs(0.001));
  EXPECT_EQ("50000 100000", cpuMax(0.5));
  EXPECT_EQ(32u << 20, memoryLimit(1));
  EXPECT_EQ(64u << 20, memoryLimit(64u << 20));
}

// Checks detect() against statfs of the usual mount points.
TEST(CgroupsLayoutTest, DetectsThisMachine) {
  auto magic = [](const std::string& path) -> long {
    struct statfs info {};
    return ::statfs(path.c_str(), &info) == 0 ? static_cast<long>(info.f_type) : 0;
  };
  Result<Layout> layout = Layout::detect();
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  std::string hierarchy = kDefaultHierarchy;
  if (magic(hierarchy) == CGROUP2_SUPER_MAGIC) {
    EXPECT_EQ(Version::kV2, layout->version());
    GTEST_SKIP() << hierarchy << " is cgroup v2: no v1 hierarchies to find here";
  }
  EXPECT_EQ(Version::kV1, layout->version());
  for (std::string controller : {"cpu", "cpuacct", "memory", "freezer"}) {
    std::string mount = hierarchy + "/" + controller;
    if (magic(mount) != CGROUP_SUPER_MAGIC) GTEST_SKIP() << "no cgroup v1 mount at " << mount;
    EXPECT_TRUE(layout->has(controller)) << controller;
    EXPECT_EQ(mount, layout->root(controller));
  }
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    if (contains(line, ":memory:")) {
      EXPECT_EQ(line.substr(line.find(":/") + 1), layout->self("memory"));
    }
  }
  EXPECT_FALSE(Layout::v2At(layout->root("memory")).ok());
  std::string unified = hierarchy + "/unified";
  if (magic(unified) != CGROUP2_SUPER_MAGIC) GTEST_SKIP() << "no cgroup2 mount at " << unified;
  EXPECT_EQ(unified, layout->unified());
  Result<Layout> v2 = Layout::v2At(unified);
  ASSERT_TRUE(v2.ok()) << v2.error().message;
  EXPECT_EQ(Version::kV2, v2->version());
  EXPECT_TRUE(v2->self("").has_value());
}

TEST_F(CgroupsV1Test, CreateWriteReadRemove) {
  Cgroup cgroup = container("a/b", {"memory", "cpu"});
  ASSERT_EQ(2u, cgroup.dirs().size());
  ASSERT_TRUE(create(cgroup).ok());  // already there: fine

  ASSERT_TRUE(write(cgroup.dir("memory"), "memory.limit_in_bytes", std::to_string(64u << 20)).ok());
  Result<std::string> limit = read(cgroup.dir("memory"), "memory.limit_in_bytes");
  ASSERT_TRUE(limit.ok()) << limit.error().message;
  EXPECT_EQ(std::to_string(64u << 20) + "\n", *limit);
  ASSERT_TRUE(write(cgroup.dir("cpu"), "cpu.shares", std::to_string(cpuShares(0.5))).ok());
  Result<std::string> shares = read(cgroup.dir("cpu"), "cpu.shares");
  ASSERT_TRUE(shares.ok()) << shares.error().message;
  EXPECT_EQ("512\n", *shares);

  Result<void> bad = write(cgroup.dir("cpu"), "cpu.shares", "lots");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(contains(bad.error().message, cgroup.dir("cpu") + "/cpu.shares")) << bad.error().message;
  EXPECT_EQ(EINVAL, bad.error().code);
  Result<std::string> absent = read(cgroup.dir("cpu"), "no.such.file");
  ASSERT_FALSE(absent.ok());
  EXPECT_TRUE(contains(absent.error().message, "No such file")) << absent.error().message;

  ASSERT_TRUE(remove(cgroup).ok());
  for (const std::string& dir : cgroup.dirs()) EXPECT_NE(0, ::access(dir.c_str(), F_OK)) << dir;
  EXPECT_TRUE(remove(cgroup).ok());  // already gone: fine
}

TEST_F(CgroupsV1Test, AssignsAChildAndListsIt) {
  Cgroup cgroup = container("c", kControllers);
  Shell shell("exec sleep 60");
  ASSERT_GT(shell.pid(), 0);
  Result<void> assigned = assign(cgroup, shell.pid());
  ASSERT_TRUE(assigned.ok()) << assigned.error().message;
  for (const std::string& dir : cgroup.dirs()) {
    Result<std::vector<pid_t>> found = pids(dir);
    ASSERT_TRUE(found.ok()) << found.error().message;
    EXPECT_EQ(std::vector<pid_t>{shell.pid()}, *found) << dir;
  }
  std::string top = layout_->root("memory") + *layout_->self("memory") + "/" + top_;
  Result<std::vector<pid_t>> direct = pids(top);
  ASSERT_TRUE(direct.ok()) << direct.error().message;
  EXPECT_TRUE(direct->empty());
  Result<std::vector<pid_t>> below = pids(top, true);
  ASSERT_TRUE(below.ok()) << below.error().message;
  EXPECT_EQ(std::vector<pid_t>{shell.pid()}, *below);

  Result<void> removed = remove(cgroup);
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(EBUSY, removed.error().code);
  EXPECT_TRUE(contains(removed.error().message, std::to_string(shell.pid()))) << removed.error().message;
  EXPECT_FALSE(assign(cgroup.dir("memory"), 999999999).ok());
}

TEST_F(CgroupsV1Test, DestroyKillsEscapedProcessesAndRemoves) {
  Cgroup cgroup = container("c", kControllers);
  Shell shell(kEscapingTree);
  ASSERT_GT(shell.pid(), 0);
  std::vector<pid_t> tree = startEscapingTree(shell, cgroup);
  ASSERT_FALSE(HasFailure());

  Result<void> destroyed = destroy(cgroup, kDestroyTimeout);
  ASSERT_TRUE(destroyed.ok()) << destroyed.error().message;
  EXPECT_TRUE(killedBy(shell.wait(), SIGKILL));
  expectAllGone(tree, cgroup);
  EXPECT_TRUE(destroy(cgroup, kDestroyTimeout).ok());  // gone already: fine
}

// Without a freezer hierarchy destroy() SIGKILLs round after round until
// nothing is left.
TEST_F(CgroupsV1Test, DestroyWithoutFreezerKillsEscapedProcesses) {
  Cgroup cgroup = container("c", {"cpu", "memory"});
  Shell shell(kEscapingTree);
  ASSERT_GT(shell.pid(), 0);
  std::vector<pid_t> tree = startEscapingTree(shell, cgroup);
  ASSERT_FALSE(HasFailure());

  Result<void> destroyed = destroy(cgroup, kDestroyTimeout);
  ASSERT_TRUE(destroyed.ok()) << destroyed.error().message;
  EXPECT_TRUE(killedBy(shell.wait(), SIGKILL));
  expectAllGone(tree, cgroup);
}

TEST_F(CgroupsV1Test, OomKillFiresTheEventAndCounts) {
  Cgroup cgroup = container("c", {"memory"});
  ASSERT_TRUE(write(cgroup.dir("memory"), "memory.limit_in_bytes", std::to_string(memoryLimit(0))).ok());
  Result<OomWatcher> watched = OomWatcher::watch(cgroup);
  ASSERT_TRUE(watched.ok()) << watched.error().message;
  OomWatcher& watcher = watched.value();
  Result<bool> early = watcher.fired();
  ASSERT_TRUE(early.ok()) << early.error().message;
  EXPECT_FALSE(*early);

  Shell shell("exec tail /dev/zero");  // keeps one endless line in memory
  ASSERT_GT(shell.pid(), 0);
  ASSERT_TRUE(assign(cgroup, shell.pid()).ok());
  shell.release();
  pollfd polled{watcher.fd(), watcher.pollEvents(), 0};
  ASSERT_EQ(1, ::poll(&polled, 1, 10000)) << "no OOM event within 10 s";
  Result<bool> fired = watcher.fired();
  ASSERT_TRUE(fired.ok()) << fired.error().message;
  EXPECT_TRUE(*fired);
  EXPECT_TRUE(killedBy(shell.wait(), SIGKILL));

  Result<MemoryEvents> events = memoryEvents(cgroup);
  ASSERT_TRUE(events.ok()) << events.error().message;
  ASSERT_TRUE(events->oomKill.has_value());
  EXPECT_GT(*events->oomKill, 0u);
  EXPECT_EQ(false, events->underOom);
}

TEST_F(CgroupsV1Test, StatisticsOfABusyProcess) {
  Cgroup cgroup = container("c", kControllers);
  ASSERT_TRUE(write(cgroup.dir("cpu"), "cpu.cfs_quota_us", std::to_string(cfsQuotaUs(0.5))).ok());
  ASSERT_TRUE(write(cgroup.dir("memory"), "memory.limit_in_bytes", std::to_string(512u << 20)).ok());
  Shell shell("exec sh -c 'while :; do :; done'");
  ASSERT_GT(shell.pid(), 0);
  ASSERT_TRUE(assign(cgroup, shell.pid()).ok());
  shell.release();

  Result<Statistics> before = statistics(cgroup);
  ASSERT_TRUE(before.ok()) << before.error().message;
  ASSERT_TRUE(before->cpuUserSeconds && before->cpuSystemSeconds);
  double start = *before->cpuUserSeconds + *before->cpuSystemSeconds;
  std::optional<Statistics> after;
  EXPECT_TRUE(eventually([&] {
    Result<Statistics> now = statistics(cgroup);
    if (!now) return false;
    after = *now;
    return *after->cpuUserSeconds + *after->cpuSystemSeconds >= start + 0.1 &&
           after->cpuThrottledPeriods.value_or(0) > 0;
  })) << "CPU time did not grow by 0.1 s, or the 0.5-CPU quota never throttled";
  ASSERT_TRUE(after.has_value());
  EXPECT_GT(after->cpuPeriods.value_or(0), 0u);
  EXPECT_GT(after->cpuThrottledSeconds.value_or(0), 0.0);
  EXPECT_GT(after->memoryBytes.value_or(0), 0u);
  EXPECT_TRUE(after->memoryAnonBytes.has_value());
  EXPECT_TRUE(after->memoryFileBytes.has_value());
  EXPECT_EQ(512u << 20, after->memoryLimitBytes);
  EXPECT_EQ(1u, after->processes);
  EXPECT_EQ(1u, after->threads);

  Result<Statistics> top = statistics(*layout_->cgroup(top_, kControllers));
  ASSERT_TRUE(top.ok()) << top.error().message;
  EXPECT_EQ(1u, top->processes);               // descendants count
  EXPECT_FALSE(top->memoryLimitBytes.has_value());  // unlimited
  EXPECT_FALSE(statistics(*layout_->cgroup(top_ + "/none", kControllers)).ok());
}

TEST_F(CgroupsV2Test, DestroyKillsEscapedProcessesAndRemoves) {
  Cgroup cgroup = container("c", {});
  Shell shell(kEscapingTree);
  ASSERT_GT(shell.pid(), 0);
  std::vector<pid_t> tree = startEscapingTree(shell, cgroup);
  ASSERT_FALSE(HasFailure());
  Result<std::string> events = read(cgroup.dirs().front(), "cgroup.events");
  ASSERT_TRUE(events.ok()) << events.error().message;
  EXPECT_TRUE(contains(*events, "populated 1")) << *events;

  Result<void> destroyed = destroy(cgroup, kDestroyTimeout);
  ASSERT_TRUE(destroyed.ok()) << destroyed.error().message;
  EXPECT_TRUE(killedBy(shell.wait(), SIGKILL));
  expectAllGone(tree, cgroup);
}

TEST_F(CgroupsV2Test, CpuTimeAndProcessesOfABusyProcess) {
  Cgroup cgroup = container("c", {});
  Shell shell("exec sh -c 'while :; do :; done'");
  ASSERT_GT(shell.pid(), 0);
  ASSERT_TRUE(assign(cgroup, shell.pid()).ok());
  shell.release();
  EXPECT_TRUE(eventually([&] {
    Result<Statistics> stats = statistics(cgroup);
    return stats.ok() && stats->cpuUserSeconds.value_or(0) + stats->cpuSystemSeconds.value_or(0) >= 0.1;
  })) << "no 0.1 s of CPU time in " << cgroup.dirs().front() << "/cpu.stat";
  Result<Statistics> stats = statistics(cgroup);
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(1u, stats->processes);
  EXPECT_EQ(1u, stats->threads);
}

TEST_F(CgroupsV2Test, TheSlaveLeavesItsBaseForALeaf) {
  // The test's top cgroup stands for the slave's own, the shell for the slave.
  Shell shell("exec sleep 60");
  ASSERT_GT(shell.pid(), 0);
  Cgroup top = container("slave", {});
  ASSERT_TRUE(assign(top, shell.pid()).ok());
  const std::string base = *layout_->self("") + "/" + top_ + "/slave";
  Result<void> left = leaveForLeaf(*layout_, "mesos_agent", shell.pid(), base);
  ASSERT_TRUE(left.ok()) << left.error().message;
  Result<std::vector<pid_t>> inBase = pids(top.dirs().front());
  ASSERT_TRUE(inBase.ok()) << inBase.error().message;
  EXPECT_TRUE(inBase->empty()) << "the base still holds processes";
  Result<std::vector<pid_t>> inLeaf = pids(top.dirs().front() + "/mesos_agent");
  ASSERT_TRUE(inLeaf.ok()) << inLeaf.error().message;
  EXPECT_EQ(std::vector<pid_t>{shell.pid()}, *inLeaf);
  // Elsewhere already: nothing to do.
  EXPECT_TRUE(leaveForLeaf(*layout_, "mesos_agent", shell.pid(), base).ok());
  EXPECT_EQ(std::vector<pid_t>{shell.pid()}, *pids(top.dirs().front() + "/mesos_agent"));
  ASSERT_TRUE(destroy(top, kDestroyTimeout).ok());
}

TEST_F(CgroupsV2Test, CreateNamesAControllerItCannotEnable) {
  std::vector<std::string> available = layout_->controllers();
  Result<Cgroup> unknown = layout_->cgroup(top_ + "/c", {"no_such_controller"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(contains(unknown.error().message, "'no_such_controller'")) << unknown.error().message;
  // A controller the root offers but the test's top cgroup does not get
  // (nothing enabled it in the parent's subtree_control).
  std::string self = layout_->root("") + *layout_->self("");
  Result<std::string> enabled = read(self, "cgroup.subtree_control");
  ASSERT_TRUE(enabled.ok()) << enabled.error().message;
  std::istringstream words(*enabled);
  std::vector<std::string> passed{std::istream_iterator<std::string>(words), {}};
  auto notDelegated = std::find_if(available.begin(), available.end(), [&](const std::string& c) {
    return std::find(passed.begin(), passed.end(), c) == passed.end();
  });
  if (notDelegated == available.end()) GTEST_SKIP() << "every v2 controller reaches the test's cgroup";
  Result<Cgroup> cgroup = layout_->cgroup("c", {*notDelegated}, *layout_->self("") + "/" + top_);
  ASSERT_TRUE(cgroup.ok()) << cgroup.error().message;
  Result<void> created = create(*cgroup);
  ASSERT_FALSE(created.ok());
  EXPECT_TRUE(contains(created.error().message, "not delegated")) << created.error().message;
}

}  // namespace
}  // namespace mesos::internal::cgroups
