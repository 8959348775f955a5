// The lxc isolator behind the slave's containerizer, on this machine's real
// LXC (lxc-execute) and cgroups: the command runs in the container's
// namespaces and cgroups with the executor's environment, a memory hog is
// held at its limit and reported, the limits follow the resources, nothing
// of a destroyed container is left (processes, cgroups, config, lock), and
// a container an earlier run left is destroyed at recovery.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "slave/containerizer/isolators/cgroups/cgroups.hpp"
#include "slave/containerizer/isolators/isolators.hpp"
#include "slave/containerizer/isolators/lxc/lxc_isolator.hpp"
#include "process/future.hpp"
#include "slave/containerizer/containerizer.hpp"
#include "slave/paths.hpp"
#include "slave/reaper.hpp"

namespace mesos::internal::isolation {
namespace {

namespace fs = std::filesystem;
using mesos::isolation::ContainerConfig;
using mesos::isolation::ContainerLimitation;
using slave::Containerizer;
using slave::LaunchSpec;
using slave::PosixLauncher;
using slave::Reaper;
using Clock = std::chrono::steady_clock;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string link(const std::string& path) {
  std::error_code ec;
  return fs::read_symlink(path, ec).string();
}

bool onPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Whether `pid` is gone, or dead and waiting to be reaped.
bool dead(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  return readFile("/proc/" + std::to_string(pid) + "/stat").find(") Z") != std::string::npos;
}

// Polls `done` every 10 ms for at most `bound`.
bool eventually(const std::function<bool()>& done,
                std::chrono::seconds bound = std::chrono::seconds(30)) {
  const auto deadline = Clock::now() + bound;
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Every pid in the cgroup at `dir` and below.
std::vector<pid_t> pidsBelow(const std::string& dir) {
  auto pids = cgroups::pids(dir, true);
  return pids ? *pids : std::vector<pid_t>{};
}

// Removes the cgroup `dir` and the cgroups below it.
void removeCgroups(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  std::vector<std::string> order;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) order.push_back(it->path().string());
  }
  std::sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    return a.size() > b.size();
  });
  order.push_back(dir);
  for (const std::string& each : order) ::rmdir(each.c_str());
}

struct Launched {
  pid_t pid = -1;
  process::Future<int> exit;
};

class LxcIsolatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to run LXC containers";
    if (!onPath("lxc-execute")) {
      GTEST_SKIP() << "lxc-execute is not on PATH (Debian package lxc)";
    }
    auto layout = cgroups::Layout::detect();
    if (!layout) GTEST_SKIP() << "no cgroups: " << layout.error().message;
    if (layout->version() != cgroups::Version::kV1) {
      GTEST_SKIP() << "these tests read cgroup v1 files; this host has cgroup v2";
    }
    for (const char* controller : {"cpu", "cpuacct", "memory", "freezer"}) {
      if (!layout->has(controller)) GTEST_SKIP() << "no cgroup v1 " << controller << " hierarchy";
    }
    layout_ = std::make_unique<cgroups::Layout>(std::move(layout).value());
    char pattern[] = "/tmp/mesos-lxc-isolator-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    root_ = "mesos_lxc_test_" + std::to_string(::getpid());
    lxcPath_ = dir_ + "/lxc";
    auto bases = lxcCgroupBases(cgroups::kDefaultHierarchy);
    ASSERT_TRUE(bases.ok()) << bases.error().message;
    bases_ = *bases;
    containerizer_ = makeContainerizer();
    ASSERT_NE(containerizer_, nullptr);
    ASSERT_TRUE(containerizer_->recover({}).ok());
  }

  void TearDown() override {
    if (!layout_) return;
    if (containerizer_) {
      for (auto& [id, pid] : launched_) containerizer_->destroy(id, pid);
    }
    containerizer_.reset();
    for (const std::string& base : bases_) removeCgroups(base + "/" + root_);
    if (!madePivot_.empty()) ::rmdir(madePivot_.c_str());
    std::error_code ec;
    fs::remove_all("/run/lxc/lock" + dir_, ec);  // LXC's lock files
    ::rmdir("/run/lxc/lock/tmp");                  // when no one else's are there
    fs::remove_all(dir_, ec);
  }

  IsolationOptions options() {
    IsolationOptions options;
    options.isolation = "lxc";
    options.cgroupsRoot = root_;
    options.lxcPath = lxcPath_;
    options.onLimitation = [this](const ContainerLimitation& limitation) {
      std::lock_guard<std::mutex> lock(mutex_);
      limitations_.push_back(limitation);
    };
    return options;
  }

  std::unique_ptr<Containerizer> makeContainerizer() {
    auto isolators = createIsolators(options());
    EXPECT_TRUE(isolators.ok()) << isolators.error().message;
    if (!isolators) return nullptr;
    // The launch helper runs innermost: it gives the command its environment.
    std::string helper =
        slave::launcherBinaryPath(MESOS_BINARY_DIR "/src/slave", "mesos-containerizer");
    return std::make_unique<Containerizer>(std::make_unique<PosixLauncher>(),
                                           std::move(isolators).value(), helper);
  }

  // Runs `sh -c command` in container `id` holding `resources`, with
  // `environment` besides PATH; sandbox dir_, output <id>.out and <id>.err.
  Launched launch(const std::string& id, const std::string& command,
                  const std::string& resources,
                  const std::map<std::string, std::string>& environment = {}) {
    ContainerConfig config;
    config.containerId = containerId(id);
    config.directory = dir_;
    config.resources = *Resources::parse(resources);
    LaunchSpec spec;
    spec.command.set_value(command);
    spec.directory = dir_;
    spec.environment = environment;
    spec.environment["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin";
    spec.stdoutPath = dir_ + "/" + id + ".out";
    spec.stderrPath = dir_ + "/" + id + ".err";
    auto pid = containerizer_->launch(config, spec);
    EXPECT_TRUE(pid.ok()) << pid.error().message;
    if (!pid.ok()) return {};
    auto promise = std::make_shared<process::Promise<int>>();
    Reaper::instance().watch(*pid, [promise](int status) { promise->set(status); });
    launched_.emplace_back(containerId(id), *pid);
    return {*pid, promise->future()};
  }

  ContainerID containerId(const std::string& value) {
    ContainerID id;
    id.set_value(value);
    return id;
  }

  // The container's outer cgroup (limits) in `controller`'s hierarchy.
  std::string outer(const std::string& id, const std::string& controller) {
    return layout_->cgroup(root_ + "/" + id, {controller})->dir(controller);
  }

  // The host pids of the processes named `comm` in the container.
  std::vector<pid_t> named(const std::string& id, const std::string& comm) {
    std::vector<pid_t> found;
    for (pid_t pid : pidsBelow(outer(id, "memory") + "/payload")) {
      if (readFile("/proc/" + std::to_string(pid) + "/comm") == comm + "\n") found.push_back(pid);
    }
    return found;
  }

  // Whether anything of container `id` is left on the machine: its cgroups
  // in any hierarchy, its config directory, LXC's lock file.
  std::string leftovers(const std::string& id) {
    std::string left;
    for (const std::string& base : bases_) {
      if (fs::exists(base + "/" + root_ + "/" + id)) left += base + "/" + root_ + "/" + id + " ";
    }
    std::string state = lxcPath_ + "/" + kLxcNamePrefix + id;
    if (fs::exists(state)) left += state + " ";
    std::string lock = "/run/lxc/lock" + lxcPath_ + "/." + kLxcNamePrefix + id;
    if (fs::exists(lock)) left += lock;
    return left;
  }

  std::unique_ptr<cgroups::Layout> layout_;
  std::string dir_;
  std::string root_;
  std::string lxcPath_;
  std::vector<std::string> bases_;
  std::string madePivot_;  // an lxc.pivot cgroup the test made
  std::unique_ptr<Containerizer> containerizer_;
  std::vector<std::pair<ContainerID, pid_t>> launched_;
  std::mutex mutex_;
  std::vector<ContainerLimitation> limitations_;
};

TEST_F(LxcIsolatorTest, TheCommandRunsInTheContainerWithItsEnvironment) {
  const std::string value = "it's \"quoted\" $HOME\nand two lines";
  Launched run = launch("inside",
                        "echo \"pid=$$ container=$container\"; printf '%s' \"$MESOS_TEST_VALUE\" "
                        "> value; exec sleep 60",
                        "cpus:0.5;mem:64", {{"MESOS_TEST_VALUE", value}});
  ASSERT_GT(run.pid, 0);
  EXPECT_EQ(containerizer_->isolation(), "lxc");
  std::vector<pid_t> sleeps;
  ASSERT_TRUE(eventually([&] { return !(sleeps = named("inside", "sleep")).empty(); }))
      << "no sleep in the container's cgroup; stderr: " << readFile(dir_ + "/inside.err");
  ASSERT_EQ(sleeps.size(), 1u);
  const std::string proc = "/proc/" + std::to_string(sleeps.front());

  // Its own PID, mount, UTS and cgroup namespaces; the host's network.
  EXPECT_NE(link(proc + "/ns/pid"), link("/proc/self/ns/pid"));
  EXPECT_NE(link(proc + "/ns/mnt"), link("/proc/self/ns/mnt"));
  EXPECT_NE(link(proc + "/ns/uts"), link("/proc/self/ns/uts"));
  EXPECT_NE(link(proc + "/ns/cgroup"), link("/proc/self/ns/cgroup"));
  EXPECT_EQ(link(proc + "/ns/net"), link("/proc/self/ns/net"));
  // The shell was the container's second process, after LXC's init.
  EXPECT_EQ(readFile(dir_ + "/inside.out"), "pid=2 container=lxc\n");
  // The host sees it in the container's cgroup below the outer one.
  EXPECT_NE(readFile(proc + "/cgroup").find(":memory:" +
                                           *layout_->self("memory") +
                                           (*layout_->self("memory") == "/" ? "" : "/") + root_ +
                                           "/inside/payload\n"),
            std::string::npos)
      << readFile(proc + "/cgroup");
  // The executor's environment got through lxc-execute, quotes and newline
  // included.
  EXPECT_EQ(readFile(dir_ + "/value"), value);

  std::string config = readFile(lxcPath_ + "/mesos-inside/config");
  EXPECT_NE(config.find("lxc.net.0.type = none\n"), std::string::npos) << config;
  EXPECT_NE(config.find("lxc.console.path = none\n"), std::string::npos) << config;
  EXPECT_NE(config.find("lxc.cgroup.dir.container = " + root_ + "/inside/payload\n"),
            std::string::npos)
      << config;
}

TEST_F(LxcIsolatorTest, AMemoryHogIsHeldAtItsLimitAndReported) {
  Launched neighbour = launch("neighbour", "exec sleep 60", "cpus:0.1;mem:64");
  Launched hog = launch("hog", "tail /dev/zero", "cpus:0.1;mem:48");
  ASSERT_GT(neighbour.pid, 0);
  ASSERT_GT(hog.pid, 0);
  ContainerLimitation limitation;
  ASSERT_TRUE(eventually(
      [&] {
        std::lock_guard<std::mutex> lock(mutex_);
        if (limitations_.empty()) return false;
        limitation = limitations_.front();
        return true;
      },
      std::chrono::seconds(60)))
      << "no limitation reported";
  EXPECT_EQ(limitation.containerId.value(), "hog");
  EXPECT_EQ(limitation.reason, TaskStatus::REASON_CONTAINER_LIMITATION_MEMORY);
  EXPECT_NE(limitation.message.find("Memory limit exceeded: requested 48 MB"), std::string::npos)
      << limitation.message;
  // The container never used more than its limit.
  uint64_t peak = std::stoull(readFile(outer("hog", "memory") + "/memory.max_usage_in_bytes"));
  EXPECT_LE(peak, uint64_t{48} << 20);

  // What the slave does with it: kill the container.
  containerizer_->kill(containerId("hog"), hog.pid, SIGKILL);
  ASSERT_TRUE(hog.exit.await(std::chrono::seconds(30)));
  EXPECT_TRUE(WIFSIGNALED(hog.exit.get()));
  EXPECT_TRUE(containerizer_->running(containerId("neighbour"), neighbour.pid));
  EXPECT_FALSE(neighbour.exit.isReady());
  containerizer_->destroy(containerId("hog"), hog.pid);
  EXPECT_EQ(leftovers("hog"), "");
  EXPECT_TRUE(fs::exists(outer("neighbour", "memory") + "/payload"));
  std::lock_guard<std::mutex> lock(mutex_);
  EXPECT_EQ(limitations_.size(), 1u);
}

TEST_F(LxcIsolatorTest, LimitsAreWrittenAndFollowTheResources) {
  Launched run = launch("sized", "exec sleep 60", "cpus:0.5;mem:64");
  ASSERT_GT(run.pid, 0);
  EXPECT_EQ(readFile(outer("sized", "cpu") + "/cpu.shares"), "512\n");
  EXPECT_EQ(readFile(outer("sized", "memory") + "/memory.limit_in_bytes"),
            std::to_string(64 << 20) + "\n");

  // A task starts: the container grows; it ends: it shrinks.
  containerizer_->update(containerId("sized"), *Resources::parse("cpus:1.5;mem:192"));
  EXPECT_EQ(readFile(outer("sized", "cpu") + "/cpu.shares"), "1536\n");
  EXPECT_EQ(readFile(outer("sized", "memory") + "/memory.limit_in_bytes"),
            std::to_string(192 << 20) + "\n");
  containerizer_->update(containerId("sized"), *Resources::parse("cpus:0.001;mem:1"));
  EXPECT_EQ(readFile(outer("sized", "cpu") + "/cpu.shares"), "2\n");  // the minimum
  EXPECT_EQ(readFile(outer("sized", "memory") + "/memory.limit_in_bytes"),
            std::to_string(32 << 20) + "\n");  // the minimum

  // Measured from the outer cgroup: lxc-execute, LXC's init, sleep.
  ASSERT_TRUE(eventually([&] { return !named("sized", "sleep").empty(); }));
  ResourceStatistics statistics = containerizer_->usage(containerId("sized"), Resources());
  EXPECT_EQ(statistics.processes(), 3u);
  EXPECT_TRUE(statistics.has_mem_total_bytes());
  EXPECT_TRUE(statistics.has_cpus_user_time_secs());
}

TEST_F(LxcIsolatorTest, DestroyLeavesNoProcessNoCgroupNoConfig) {
  // A process in a session of its own whose parent exits: still in the
  // container's cgroup.
  Launched run = launch("tree", "sh -c 'setsid sleep 60 &'; sleep 61 & exec sleep 62",
                        "cpus:0.1;mem:64");
  ASSERT_GT(run.pid, 0);
  ASSERT_TRUE(eventually([&] { return named("tree", "sleep").size() == 3; }))
      << named("tree", "sleep").size() << " sleeps";
  std::vector<pid_t> all = pidsBelow(outer("tree", "memory"));
  ASSERT_GE(all.size(), 5u);  // lxc-execute, init, three sleeps
  EXPECT_NE(std::find(all.begin(), all.end(), run.pid), all.end()) << "lxc-execute";

  EXPECT_TRUE(containerizer_->destroy(containerId("tree"), run.pid));
  launched_.clear();
  ASSERT_TRUE(run.exit.await(std::chrono::seconds(30)));
  for (pid_t pid : all) {
    EXPECT_TRUE(eventually([&] { return dead(pid); })) << "process " << pid << " survived";
  }
  EXPECT_EQ(leftovers("tree"), "");
}

TEST_F(LxcIsolatorTest, RecoveryDestroysAContainerAnEarlierRunLeft) {
  Launched run = launch("left", "exec sleep 60", "cpus:0.1;mem:64");
  ASSERT_GT(run.pid, 0);
  std::vector<pid_t> sleeps;
  ASSERT_TRUE(eventually([&] { return !(sleeps = named("left", "sleep")).empty(); }));
  // The slave goes away without destroying it; LXC left a pivot cgroup at
  // a hierarchy's root, as it does without one of ours.
  launched_.clear();
  containerizer_.reset();
  const std::string pivot = layout_->root("freezer") + "/lxc.pivot";
  if (::mkdir(pivot.c_str(), 0755) == 0) madePivot_ = pivot;
  ASSERT_TRUE(fs::exists(pivot));
  ASSERT_TRUE(fs::exists(lxcPath_ + "/mesos-left/config"));

  containerizer_ = makeContainerizer();
  ASSERT_NE(containerizer_, nullptr);
  auto recovered = containerizer_->recover({});
  ASSERT_TRUE(recovered.ok()) << recovered.error().message;
  ASSERT_TRUE(run.exit.await(std::chrono::seconds(30)));
  EXPECT_TRUE(WIFSIGNALED(run.exit.get()));
  EXPECT_TRUE(eventually([&] { return dead(sleeps.front()); }));
  EXPECT_EQ(leftovers("left"), "");
  EXPECT_FALSE(fs::exists(pivot));
}

// Exit statuses pass through lxc-execute; a container's whole life
// (prepare, lxc-execute, the command, cleanup) takes milliseconds.
TEST_F(LxcIsolatorTest, ExitStatusesPassThroughAndContainersAreQuick) {
  constexpr int kRuns = 10;
  std::chrono::duration<double, std::milli> total{0}, longest{0};
  for (int i = 0; i < kRuns; ++i) {
    const std::string id = "quick" + std::to_string(i);
    auto start = Clock::now();
    Launched run = launch(id, "exit 7", "cpus:0.1;mem:32");
    ASSERT_GT(run.pid, 0);
    ASSERT_TRUE(run.exit.await(std::chrono::seconds(30)));
    EXPECT_TRUE(WIFEXITED(run.exit.get()) && WEXITSTATUS(run.exit.get()) == 7)
        << run.exit.get() << "; stderr: " << readFile(dir_ + "/" + id + ".err");
    containerizer_->destroy(containerId(id), run.pid);
    auto took = Clock::now() - start;
    total += took;
    longest = std::max<std::chrono::duration<double, std::milli>>(longest, took);
    EXPECT_EQ(leftovers(id), "");
  }
  launched_.clear();
  std::cout << "lxc container, launch to cleanup: " << total.count() / kRuns << " ms mean, "
            << longest.count() << " ms longest, over " << kRuns << " runs" << std::endl;
  EXPECT_LT(total.count() / kRuns, 2000.0);
}

TEST(LxcIsolatorCreateTest, CgroupsNamesAreRefusedInOneLine) {
  IsolationOptions options;
  options.isolation = "lxc,cgroups/mem";
  auto isolators = createIsolators(options);
  ASSERT_FALSE(isolators.ok());
  EXPECT_NE(isolators.error().message.find("--isolation: lxc: cannot be combined with cgroups/mem"),
            std::string::npos)
      << isolators.error().message;
  EXPECT_EQ(isolators.error().message.find('\n'), std::string::npos);
  auto names = expandIsolation("posix/cpu,lxc");
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_EQ(*names, (std::vector<std::string>{"posix/cpu", "lxc"}));
}

TEST(LxcIsolatorCreateTest, AMissingLxcExecuteNamesTheProgramAndThePackage) {
  char pattern[] = "/tmp/mesos-lxc-nopath-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  LxcOptions options;
  options.searchPath = pattern;  // an empty directory
  auto isolator = LxcIsolator::create(options);
  ::rmdir(pattern);
  ASSERT_FALSE(isolator.ok());
  EXPECT_NE(isolator.error().message.find("lxc-execute"), std::string::npos)
      << isolator.error().message;
  EXPECT_NE(isolator.error().message.find("Debian package lxc"), std::string::npos)
      << isolator.error().message;
}

}  // namespace
}  // namespace mesos::internal::isolation
