// disk/du end to end: mesos-master and a mesos-slave process with
// --isolation=posix/cpu,posix/mem,disk/du, and mesos-execute running a task
// that writes past its disk (with --enforce_container_disk_quota the
// framework gets TASK_FAILED from the slave with the disk reason) and one
// within it, measured in the slave's /monitor/statistics.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

class DiskQuotaTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    master_ = startMaster({"--allocation_interval=100ms"});
    slave_ = process::Address{0x7f000001, freePort()};
    startSlave(master_, "slave",
               {"--resources=cpus:2;mem:512;disk:512",
                "--isolation=posix/cpu,posix/mem,disk/du", "--enforce_container_disk_quota",
                "--container_disk_watch_interval=200ms"},
               slave_.port);
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  void TearDown() override {
    for (pid_t pid : executes_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    DaemonsFixture::TearDown();
  }

  process::Address master_;
  process::Address slave_;
  std::vector<pid_t> executes_;
};

TEST_F(DiskQuotaTest, ATaskPastItsDiskFailsWithTheDiskReason) {
  ChildResult run = runChild(
      {MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--name=filler",
       "--command=dd if=/dev/zero of=fill bs=1M count=6 && sleep 120",
       "--resources=cpus:0.1;mem:32;disk:2"},
      90s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.out.find("Received status update TASK_FAILED for task filler: Disk usage ("),
            std::string::npos)
      << run.describe();
  EXPECT_NE(run.out.find("exceeds quota (2.0 MB)"), std::string::npos) << run.describe();
  EXPECT_NE(run.out.find("reason: REASON_CONTAINER_LIMITATION_DISK"), std::string::npos)
      << run.describe();
  EXPECT_NE(run.out.find("source: SOURCE_SLAVE"), std::string::npos) << run.describe();
}

TEST_F(DiskQuotaTest, ATaskWithinItsDiskIsMeasuredAndKeepsRunning) {
  pid_t pid = startDaemon({MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--name=writer",
                           "--command=dd if=/dev/zero of=data bs=1M count=1 && sleep 120",
                           "--resources=cpus:0.1;mem:32;disk:4"},
                          dir_ + "/writer.log");
  ASSERT_GT(pid, 0);
  executes_.push_back(pid);
  json::Value statistics;
  bool measured = waitUntil(
      [&] {
        json::Value all = getJson(slave_, "/monitor/statistics");
        if (!all.isArray() || all.array().size() != 1) return false;
        statistics = all.array()[0]["statistics"];
        return statistics["disk_used_bytes"].isNumber() &&
               statistics["disk_used_bytes"].integer() >= (1 << 20);
      },
      60s);
  ASSERT_TRUE(measured) << "no 1 MB sandbox in /monitor/statistics: "
                        << json::stringify(getJson(slave_, "/monitor/statistics"));
  EXPECT_EQ(statistics["disk_limit_bytes"].integer(), 4 << 20);
  EXPECT_LT(statistics["disk_used_bytes"].integer(), 4 << 20);
  EXPECT_EQ(0, metric(master_, "master/tasks_failed"));
  EXPECT_EQ(1, metric(master_, "master/tasks_running"));
}

TEST_F(DiskQuotaTest, ABadWatchIntervalIsRefused) {
  ChildResult run = runChild({MESOS_SLAVE_PATH, "--master=" + master_.toString(),
                              "--work_dir=" + dir_ + "/refused", "--isolation=disk/du",
                              "--container_disk_watch_interval=0secs"},
                             30s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.err.find("--container_disk_watch_interval must be positive"), std::string::npos)
      << run.describe();
}

}  // namespace
}  // namespace mesos::test
