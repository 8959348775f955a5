// The cgroups isolators behind the slave's containerizer, on this
// machine's real cgroups: limits written and resized, a memory hog stopped
// and reported while its neighbour runs on, every process of a destroyed
// container killed and its cgroups removed.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "slave/containerizer/isolators/cgroups/cgroups.hpp"
#include "slave/containerizer/isolators/isolators.hpp"
#include "process/future.hpp"
#include "slave/containerizer/containerizer.hpp"
#include "slave/paths.hpp"
#include "slave/reaper.hpp"
#include "containerizer/launch.hpp"

namespace mesos::internal::isolation {
namespace {

using mesos::isolation::ContainerConfig;
using mesos::isolation::ContainerLimitation;
using slave::Containerizer;
using slave::LaunchSpec;
using slave::PosixLauncher;
using slave::Reaper;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class CgroupsIsolatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups";
    auto layout = cgroups::Layout::detect();
    if (!layout) GTEST_SKIP() << "no cgroups: " << layout.error().message;
    for (const char* controller : {"cpu", "cpuacct", "memory", "freezer"}) {
      if (layout->version() == cgroups::Version::kV1 && !layout->has(controller)) {
        GTEST_SKIP() << "no cgroup v1 " << controller << " hierarchy";
      }
    }
    if (layout->version() == cgroups::Version::kV2 && !layout->has("memory")) {
      GTEST_SKIP() << "no memory controller in the cgroup v2 hierarchy";
    }
    char pattern[] = "/tmp/mesos-cgroups-isolator-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    root_ = "mesos_test_" + std::to_string(::getpid());
    IsolationOptions options;
    options.isolation = "cgroups/cpu,cgroups/mem,posix/cpu";
    options.cgroupsRoot = root_;
    options.cgroupsEnableCfs = true;
    options.onLimitation = [this](const ContainerLimitation& limitation) {
      std::lock_guard<std::mutex> lock(mutex_);
      limitations_.push_back(limitation);
    };
    auto isolators = createIsolators(options);
    ASSERT_TRUE(isolators.ok()) << isolators.error().message;
    std::string helper = slave::launcherBinaryPath(MESOS_BINARY_DIR "/src/slave", "mesos-containerizer");
    containerizer_ = std::make_unique<Containerizer>(std::make_unique<PosixLauncher>(),
                                                     std::move(isolators).value(), helper);
    ASSERT_TRUE(containerizer_->recover({}).ok());
    layout_ = std::make_unique<cgroups::Layout>(std::move(layout).value());
  }

  void TearDown() override {
    if (!containerizer_) return;
    for (auto& [id, pid] : launched_) containerizer_->destroy(id, pid);
    containerizer_.reset();
    for (const char* controller : {"cpu", "cpuacct", "memory", "freezer"}) {
      if (!layout_->has(controller)) continue;
      auto root = layout_->cgroup(root_, {controller});
      if (root) (void)cgroups::remove(*root);
    }
    std::filesystem::remove_all(dir_);
  }

  pid_t launch(const std::string& id, const std::string& command, const std::string& resources) {
    Launched launched = launchShell(*containerizer_, dir_, id, command, resources);
    if (launched.pid > 0) launched_.emplace_back(this->id(id), launched.pid);
    exits_[id] = launched.exit;
    return launched.pid;
  }

  // The container's cgroup directory for `controller`.
  std::string dir(const std::string& id, const std::string& controller) {
    return layout_->cgroup(root_ + "/" + id, {controller})->dir(controller);
  }

  ContainerID id(const std::string& value) {
    ContainerID containerId;
    containerId.set_value(value);
    return containerId;
  }

  std::string dir_;
  std::string root_;
  std::unique_ptr<cgroups::Layout> layout_;
  std::unique_ptr<Containerizer> containerizer_;
  std::vector<std::pair<ContainerID, pid_t>> launched_;
  std::map<std::string, process::Future<int>> exits_;
  std::mutex mutex_;
  std::vector<ContainerLimitation> limitations_;
};

TEST_F(CgroupsIsolatorTest, LimitsAreWrittenAndFollowTheResources) {
  ASSERT_EQ(layout_->version(), cgroups::Version::kV1) << "the file names below are v1's";
  pid_t pid = launch("sized", "exec sleep 60", "cpus:0.5;mem:64");
  ASSERT_GT(pid, 0);
  EXPECT_EQ(containerizer_->isolation(), "cgroups/cpu,cgroups/mem,posix/cpu");
  // The executor is in its cgroups from its start.
  EXPECT_NE(readFile(dir("sized", "memory") + "/cgroup.procs").find(std::to_string(pid)),
            std::string::npos);
  EXPECT_NE(readFile(dir("sized", "cpuacct") + "/cgroup.procs").find(std::to_string(pid)),
            std::string::npos);
  EXPECT_EQ(readFile(dir("sized", "cpu") + "/cpu.shares"), "512\n");
  EXPECT_EQ(readFile(dir("sized", "cpu") + "/cpu.cfs_quota_us"), "50000\n");
  EXPECT_EQ(readFile(dir("sized", "memory") + "/memory.limit_in_bytes"),
            std::to_string(64 << 20) + "\n");

  // A task starts: the container grows; it ends: it shrinks.
  containerizer_->update(id("sized"), *Resources::parse("cpus:1.5;mem:192"));
  EXPECT_EQ(readFile(dir("sized", "cpu") + "/cpu.shares"), "1536\n");
  EXPECT_EQ(readFile(dir("sized", "cpu") + "/cpu.cfs_quota_us"), "150000\n");
  EXPECT_EQ(readFile(dir("sized", "memory") + "/memory.limit_in_bytes"),
            std::to_string(192 << 20) + "\n");
  containerizer_->update(id("sized"), *Resources::parse("cpus:0.001;mem:1"));
  EXPECT_EQ(readFile(dir("sized", "cpu") + "/cpu.shares"), "2\n");  // the minimum
  EXPECT_EQ(readFile(dir("sized", "memory") + "/memory.limit_in_bytes"),
            std::to_string(32 << 20) + "\n");  // the minimum

  ResourceStatistics statistics = containerizer_->usage(id("sized"), Resources());
  EXPECT_EQ(statistics.processes(), 1u);
  EXPECT_TRUE(statistics.has_mem_total_bytes());  // 0 until sleep has run and touched memory
  EXPECT_TRUE(statistics.has_cpus_nr_periods());
}

// What an executor running several tasks needs to give each its own cgroup
// below the container's (exec/task_cgroup.hpp).
TEST_F(CgroupsIsolatorTest, TheExecutorIsToldTheHierarchyAndTheContainersControllers) {
  pid_t pid = launch("told", "echo \"$MESOS_CGROUPS_HIERARCHY|$MESOS_CGROUPS_CONTROLLERS\"",
                     "cpus:0.1;mem:32");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(exits_["told"].await(std::chrono::seconds(30)));
  const std::string controllers =
      layout_->version() == cgroups::Version::kV1 ? "cpu,cpuacct,memory,freezer" : "";
  EXPECT_EQ(std::string(cgroups::kDefaultHierarchy) + "|" + controllers + "\n",
            readFile(dir_ + "/told.out"));
}

TEST_F(CgroupsIsolatorTest, AMemoryHogIsStoppedAndReportedItsNeighbourRunsOn) {
  pid_t neighbour = launch("neighbour", "exec sleep 60", "cpus:0.1;mem:64");
  pid_t hog = launch("hog", "tail /dev/zero", "cpus:0.1;mem:48");
  ASSERT_GT(neighbour, 0);
  ASSERT_GT(hog, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!limitations_.empty()) break;
    }
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no limitation reported";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ContainerLimitation limitation;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ASSERT_EQ(limitations_.size(), 1u);
    limitation = limitations_.front();
  }
  EXPECT_EQ(limitation.containerId.value(), "hog");
  EXPECT_EQ(limitation.reason, TaskStatus::REASON_CONTAINER_LIMITATION_MEMORY);
  EXPECT_NE(limitation.message.find("Memory limit exceeded: requested 48 MB"), std::string::npos)
      << limitation.message;
  EXPECT_DOUBLE_EQ(limitation.resources.scalar("mem"), 48);
  // Asked afterwards (as when the executor reports first), the same answer;
  // none for the neighbour.
  auto asked = containerizer_->limitation(id("hog"));
  ASSERT_TRUE(asked.has_value());
  EXPECT_EQ(asked->message, limitation.message);
  EXPECT_EQ(asked->reason, TaskStatus::REASON_CONTAINER_LIMITATION_MEMORY);
  EXPECT_FALSE(containerizer_->limitation(id("neighbour")).has_value());

  // What the slave does with it: kill the container.
  containerizer_->kill(id("hog"), hog, SIGKILL);
  ASSERT_TRUE(exits_["hog"].await(std::chrono::seconds(30)));
  EXPECT_TRUE(WIFSIGNALED(exits_["hog"].get()));
  EXPECT_TRUE(containerizer_->running(id("neighbour"), neighbour));
  EXPECT_FALSE(exits_["neighbour"].isReady());
  containerizer_->destroy(id("hog"), hog);
  EXPECT_FALSE(std::filesystem::exists(dir("hog", "memory")));
  EXPECT_TRUE(std::filesystem::exists(dir("neighbour", "memory")));
}

TEST_F(CgroupsIsolatorTest, DestroyKillsProcessesThatLeftTheSessionAndRemovesTheCgroups) {
  // A grandchild in a session of its own whose parent exits at once: the
  // process table no longer ties it to the executor, its cgroup does.
  pid_t pid = launch("tree", "sh -c 'setsid sleep 60 & echo $! > escaped' ; exec sleep 60",
                     "cpus:0.1;mem:64");
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::string escaped;
  while ((escaped = readFile(dir_ + "/escaped")).empty()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_t orphan = static_cast<pid_t>(std::stol(escaped));
  ASSERT_EQ(::kill(orphan, 0), 0);
  containerizer_->destroy(id("tree"), pid);
  launched_.clear();
  ASSERT_TRUE(exits_["tree"].await(std::chrono::seconds(30)));
  // The orphan is reparented to init, which reaps it in its own time.
  const auto reaped = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (::kill(orphan, 0) == 0) {
    std::string state = readFile("/proc/" + std::to_string(orphan) + "/stat");
    if (state.find(") Z") != std::string::npos) break;  // dead, not yet reaped
    ASSERT_LT(std::chrono::steady_clock::now(), reaped) << "process " << orphan << " survived";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (const char* controller : {"cpu", "memory", "freezer"}) {
    EXPECT_FALSE(std::filesystem::exists(dir("tree", controller))) << controller;
  }
}

// CPU time of container `id` so far, from its cgroup.
double cpuSeconds(Containerizer& containerizer, const ContainerID& id) {
  ResourceStatistics statistics = containerizer.usage(id, Resources());
  return statistics.cpus_user_time_secs() + statistics.cpus_system_time_secs();
}

// Two busy loops on one core, in containers of 2 and 1 cpus, share it
// about 2:1; with the CFS cap (on in this fixture) a 0.5-cpu loop gets at
// most about half a core. Real time: a few seconds.
TEST_F(CgroupsIsolatorTest, SharesSplitACoreAndTheCapHolds) {
  const std::string loop = "exec taskset -c 0 sh -c 'while :; do :; done'";
  ASSERT_GT(launch("two", loop, "cpus:2;mem:64"), 0);
  ASSERT_GT(launch("one", loop, "cpus:1;mem:64"), 0);
  ASSERT_GT(launch("half", "exec taskset -c 1 sh -c 'while :; do :; done'", "cpus:0.5;mem:64"),
            0);
  // Let them start, then measure a window of real time.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  double two0 = cpuSeconds(*containerizer_, id("two"));
  double one0 = cpuSeconds(*containerizer_, id("one"));
  double half0 = cpuSeconds(*containerizer_, id("half"));
  auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double two = cpuSeconds(*containerizer_, id("two")) - two0;
  double one = cpuSeconds(*containerizer_, id("one")) - one0;
  double half = cpuSeconds(*containerizer_, id("half")) - half0;
  ASSERT_GT(one, 0.1) << "the 1-cpu loop hardly ran";
  // cpus 2 and 1 also cap them at 2 and 1 cores: neither cap binds on one core.
  EXPECT_NEAR(two / one, 2.0, 0.3) << "two " << two << " s, one " << one << " s";
  EXPECT_LE(half, 0.55 * elapsed) << "half " << half << " s in " << elapsed << " s";
  // It ran (core 1 is shared with whatever else the machine runs: a
  // loaded box gave it 9%).
  EXPECT_GE(half, 0.04 * elapsed) << "half " << half << " s in " << elapsed << " s";
}

TEST_F(CgroupsIsolatorTest, UnknownControllerOrUnwritableHierarchyIsOneLine) {
  IsolationOptions options;
  options.isolation = "cgroups/mem";
  options.cgroupsHierarchy = dir_;  // no cgroups there
  auto isolators = createIsolators(options);
  ASSERT_FALSE(isolators.ok());
  EXPECT_NE(isolators.error().message.find("--isolation: cgroups/mem"), std::string::npos)
      << isolators.error().message;
  EXPECT_NE(isolators.error().message.find(dir_), std::string::npos) << isolators.error().message;
}

}  // namespace
}  // namespace mesos::internal::isolation
