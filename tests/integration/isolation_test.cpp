// cgroups isolation end to end: mesos-master and mesos-slave processes, the
// slave with --isolation=cgroups/cpu,cgroups/mem, and mesos-execute running
// tasks: one that eats memory past its limit (the framework gets TASK_FAILED
// from the slave with the memory reason, and no cgroup is left behind), one
// measured through the slave's /monitor/statistics, and one whose slave is
// killed with -9 (the next slave destroys what it left).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "common/processes.hpp"

#include "slave/containerizer/isolators/cgroups/cgroups.hpp"
#include "support/cgroups_layout.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace cgroups = mesos::internal::cgroups;

class IsolationTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    std::string why;
    layout_ = cgroupsForTests({"cpu", "memory"}, &why);
    if (!layout_) GTEST_SKIP() << why;
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    root_ = "mesos_it_" + std::to_string(::getpid());
    master_ = startMaster({"--allocation_interval=100ms"});
    slave_ = process::Address{0x7f000001, freePort()};
    slavePid_ = startSlave(master_, "slave", slaveFlags(), slave_.port);
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  void TearDown() override {
    stopExecutes();
    DaemonsFixture::TearDown();
    if (!layout_ || root_.empty()) return;
    for (const char* controller : {"cpu", "cpuacct", "memory", "freezer"}) {
      if (!layout_->has(controller)) continue;
      if (auto root = layout_->cgroup(root_, {controller})) (void)cgroups::remove(*root);
    }
  }

  std::vector<std::string> slaveFlags() const {
    return {"--resources=cpus:2;mem:512;disk:512", "--isolation=cgroups/cpu,cgroups/mem",
            "--cgroups_root=" + root_};
  }

  // The containers' cgroup directories under the root, in `controller`'s
  // hierarchy.
  std::vector<std::string> containerDirs(const std::string& controller) const {
    std::vector<std::string> dirs;
    auto root = layout_->cgroup(root_, {controller});
    if (!root) return dirs;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(root->dir(controller), error)) {
      if (entry.is_directory()) dirs.push_back(entry.path().string());
    }
    return dirs;
  }

  // Starts mesos-execute running `command` in the background (ended by the
  // test's end).
  pid_t execute(const std::string& name, const std::string& command, const std::string& resources,
                bool checkpoint = false) {
    std::vector<std::string> args = {MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                                     "--name=" + name, "--command=" + command,
                                     "--resources=" + resources};
    if (checkpoint) args.push_back("--checkpoint");
    pid_t pid = startDaemon(args, dir_ + "/" + name + ".log");
    if (pid > 0) executes_.push_back(pid);
    return pid;
  }

  void stopExecutes() {
    for (pid_t pid : executes_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    executes_.clear();
  }

  // Waits until the one container's cgroup holds at least `count`
  // processes: their pids, and its memory cgroup's directory.
  void awaitContainer(size_t count, std::vector<pid_t>* pids, std::string* container) {
    bool running = waitUntil(
        [&] {
          std::vector<std::string> dirs = containerDirs("memory");
          if (dirs.size() != 1) return false;
          auto listed = cgroups::pids(dirs[0], true);
          if (!listed || listed->size() < count) return false;
          *pids = *listed;
          *container = dirs[0];
          return true;
        },
        60s);
    ASSERT_TRUE(running) << "the task's container did not fill up";
  }

  void killSlave() {
    ASSERT_EQ(::kill(slavePid_, SIGKILL), 0);
    ASSERT_EQ(waitForExit(slavePid_, 30s), 128 + SIGKILL);
    reaped(slavePid_);
  }

  std::unique_ptr<cgroups::Layout> layout_;
  std::string root_;
  process::Address master_;
  process::Address slave_;
  pid_t slavePid_ = -1;
  std::vector<pid_t> executes_;
};

// Whether `pid` is gone (or a zombie its parent has not reaped yet).
bool dead(pid_t pid) {
  auto process = mesos::internal::readProcess(pid);
  return !process || process->zombie;
}

TEST_F(IsolationTest, ATaskPastItsMemoryLimitFailsWithTheMemoryReason) {
  ChildResult run = runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                              "--name=hog", "--command=tail /dev/zero",
                              "--resources=cpus:0.1;mem:48"},
                             90s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.out.find("Received status update TASK_FAILED for task hog: Memory limit exceeded"),
            std::string::npos)
      << run.describe();
  EXPECT_NE(run.out.find("reason: REASON_CONTAINER_LIMITATION_MEMORY"), std::string::npos)
      << run.describe();
  EXPECT_NE(run.out.find("source: SOURCE_SLAVE"), std::string::npos) << run.describe();

  // The container's cgroups are gone (the root stays until the slave's
  // next start or the test's cleanup).
  auto root = layout_->cgroup(root_, {"memory"});
  ASSERT_TRUE(root.ok());
  bool empty = waitUntil(
      [&] {
        for (const auto& entry : std::filesystem::directory_iterator(root->dir("memory"))) {
          if (entry.is_directory()) return false;
        }
        return true;
      },
      30s);
  EXPECT_TRUE(empty) << "a container's cgroup was left under " << root->dir("memory");
}

TEST_F(IsolationTest, MonitorStatisticsMeasuresTheRunningContainer) {
  ASSERT_GT(execute("busy", "while :; do :; done", "cpus:0.5;mem:64"), 0);
  json::Value entry;
  bool measured = waitUntil(
      [&] {
        json::Value all = getJson(slave_, "/monitor/statistics");
        if (!all.isArray() || all.array().size() != 1) return false;
        entry = all.array()[0];
        return entry["statistics"]["cpus_user_time_secs"].isNumber() &&
               entry["statistics"]["cpus_user_time_secs"].number() > 0.2;
      },
      60s);
  ASSERT_TRUE(measured) << "no busy container in /monitor/statistics: "
                        << json::stringify(getJson(slave_, "/monitor/statistics"));
  EXPECT_EQ(entry["executor_id"].string(), "busy");
  EXPECT_FALSE(entry["framework_id"].string().empty());
  EXPECT_EQ(entry["source"].string(), "busy");
  const json::Value& statistics = entry["statistics"];
  EXPECT_GT(statistics["timestamp"].number(), 1.6e9);
  // The task's resources plus the command executor's allowance.
  EXPECT_DOUBLE_EQ(statistics["cpus_limit"].number(), 0.6);
  EXPECT_EQ(statistics["mem_limit_bytes"].integer(), (64 + 32) * 1024 * 1024);
  EXPECT_GE(statistics["processes"].integer(), 2);  // the executor and the shell
  EXPECT_GT(statistics["mem_rss_bytes"].integer(), 0);
  EXPECT_TRUE(statistics["cpus_system_time_secs"].isNumber());
  // The bare path and the .json one, as Apache's slave serves them.
  EXPECT_TRUE(getJson(slave_, "/monitor/statistics.json").isArray());
}

TEST_F(IsolationTest, ARestartedSlaveDestroysTheContainersAKilledOneLeft) {
  // The task leaves its session: only the cgroup still holds it.
  ASSERT_GT(execute("stray", "setsid sleep 600 & exec sleep 600", "cpus:0.1;mem:32"), 0);
  std::vector<pid_t> pids;
  std::string container;
  ASSERT_NO_FATAL_FAILURE(awaitContainer(3, &pids, &container));  // the executor, two sleeps
  ASSERT_NO_FATAL_FAILURE(killSlave());

  // Without checkpointing nothing is adopted: the next slave destroys the
  // container and every process in it, wherever it went.
  slavePid_ = startSlave(master_, "slave", slaveFlags(), freePort());
  bool cleaned = waitUntil(
      [&] {
        if (std::filesystem::exists(container)) return false;
        for (pid_t pid : pids) {
          if (!dead(pid)) return false;
        }
        return true;
      },
      60s, slavePid_);
  EXPECT_TRUE(cleaned) << container << " or one of its processes survived the restarted slave";
  for (const char* controller : {"cpu", "cpuacct", "memory", "freezer"}) {
    if (!layout_->has(controller)) continue;
    EXPECT_TRUE(containerDirs(controller).empty()) << "a container's " << controller
                                                   << " cgroup survived";
  }
}

TEST_F(IsolationTest, ACheckpointedTasksContainerIsKeptAcrossARestart) {
  ASSERT_GT(execute("kept", "sleep 600", "cpus:0.1;mem:32", /*checkpoint=*/true), 0);
  std::vector<pid_t> pids;
  std::string container;
  ASSERT_NO_FATAL_FAILURE(awaitContainer(2, &pids, &container));  // the executor, the sleep
  ASSERT_NO_FATAL_FAILURE(killSlave());
  slavePid_ = startSlave(master_, "slave", slaveFlags(), slave_.port);
  bool back = waitUntil(
      [&] {
        json::Value statistics = getJson(slave_, "/monitor/statistics");
        return statistics.isArray() && statistics.array().size() == 1 &&
               metric(master_, "master/slaves_active") == 1;
      },
      60s, slavePid_);
  ASSERT_TRUE(back) << "the restarted slave did not take the container back";
  // Taken over, not destroyed: the same cgroup, the same processes, and
  // the isolator measures it again.
  EXPECT_TRUE(std::filesystem::exists(container));
  for (pid_t pid : pids) EXPECT_FALSE(dead(pid)) << "process " << pid << " did not survive";
  json::Value statistics = getJson(slave_, "/monitor/statistics").array()[0]["statistics"];
  EXPECT_GE(statistics["processes"].number(), 2) << json::stringify(statistics);
  EXPECT_EQ(statistics["mem_limit_bytes"].number(), 64.0 * 1024 * 1024)
      << json::stringify(statistics);

  // The framework ends: the container goes, every process in it too.
  stopExecutes();
  bool gone = waitUntil(
      [&] {
        if (std::filesystem::exists(container)) return false;
        for (pid_t pid : pids) {
          if (!dead(pid)) return false;
        }
        return true;
      },
      60s, slavePid_);
  EXPECT_TRUE(gone) << container << " or one of its processes outlived the framework";
}

}  // namespace
}  // namespace mesos::test
