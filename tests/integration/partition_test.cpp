// Partition awareness with real processes (docs/partition-awareness.md): a
// slave stopped with SIGSTOP past its ping timeouts becomes unreachable, the
// registry keeps that through a kill -9 of the leading master, and when the
// slave resumes, the partition-aware framework's task runs on in the same
// process while the other framework's task (it was told TASK_LOST) is shut
// down: no task runs twice.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "process/runtime.hpp"
#include "support/cluster.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"
#include "support/zookeeper_server.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

class PartitionProcessTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    if (std::string why = ZooKeeperServers::unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(zk_.start()) << zk_.error();
    url_ = "zk://" + zk_.connectString() + "/mesos";
  }

  struct MasterProcess {
    pid_t pid = -1;
    process::Address address;
  };

  MasterProcess startZkMaster() {
    MasterProcess m;
    m.address = process::Address{0x7f000001, freePort()};
    m.pid = start({MESOS_MASTER_PATH, "--ip=127.0.0.1", "--port=" + std::to_string(m.address.port),
                   "--zk=" + url_, "--zk_session_timeout=1secs",
                   "--allocation_settle_delay=200ms", "--allocation_interval=200ms",
                   "--slave_ping_timeout=200ms", "--max_slave_ping_timeouts=3"},
                  "master" + std::to_string(++masters_));
    EXPECT_TRUE(waitUntil([&] { return connectable(m.address); }, 30s, m.pid));
    return m;
  }

  static bool leads(const MasterProcess& m) { return metric(m.address, "master/elected") == 1; }

  // The daemons' logs' last lines, for failure messages.
  std::string logs() {
    std::string out;
    for (const char* name : {"master1", "master2", "slave"}) {
      std::string text = readFile(dir_ + "/" + name + ".log");
      if (text.size() > 6000) text = text.substr(text.size() - 6000);
      out += std::string("--- ") + name + ".log (end) ---\n" + text;
    }
    return out;
  }

  ZooKeeperServers zk_{1};
  std::string url_;
  int masters_ = 0;
};

// A framework that launches one `sleep` task and records its updates.
struct Framework {
  RecordingScheduler scheduler;
  std::unique_ptr<MesosSchedulerDriver> driver;
  std::string task;

  Framework(const std::string& name, bool aware, const std::string& url, process::Runtime* runtime)
      : task(name + "-task") {
    scheduler.onOffers = [this, launched = std::make_shared<bool>(false)](
                             SchedulerDriver* d, const std::vector<Offer>& offers) {
      for (const Offer& offer : offers) {
        if (*launched) {
          d->declineOffer(offer.id());
          continue;
        }
        *launched = true;
        d->launchTasks(offer.id(), {commandTask(offer, task, "sleep 1000; echo " + task)});
      }
    };
    FrameworkInfo info;
    info.set_user("");
    info.set_name(name);
    info.set_failover_timeout(3600);
    if (aware) info.add_capabilities()->set_type(FrameworkInfo::Capability::PARTITION_AWARE);
    driver = std::make_unique<MesosSchedulerDriver>(&scheduler, info, url, true, runtime);
  }
};

// The pid of the shell that runs `task`, or 0.
pid_t taskProcess(const std::string& task) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = readFile(entry.path().string() + "/cmdline");
    for (char& c : cmdline) {
      if (c == '\0') c = ' ';
    }
    if (cmdline.rfind("sh", 0) == 0 && cmdline.find("echo " + task) != std::string::npos) {
      return static_cast<pid_t>(std::stol(name));
    }
  }
  return 0;
}

TEST_F(PartitionProcessTest, AStoppedSlaveIsUnreachableThroughAFailoverAndOnlyAwareTasksComeBack) {
  std::vector<MasterProcess> masters = {startZkMaster(), startZkMaster()};
  int leader = -1;
  ASSERT_TRUE(waitUntil(
      [&] {
        for (int i = 0; i < 2; ++i) {
          if (leads(masters[i])) leader = i;
        }
        return leader >= 0;
      },
      30s));
  std::string launcherDir = std::filesystem::path(MESOS_EXECUTOR_PATH).parent_path().string();
  pid_t slave = start({MESOS_SLAVE_PATH, "--master=" + url_, "--ip=127.0.0.1",
                       "--port=" + std::to_string(freePort()), "--work_dir=" + dir_ + "/slave",
                       "--launcher_dir=" + launcherDir, "--registration_backoff_factor=100ms",
                       "--resources=cpus:4;mem:2048;disk:1024"},
                      "slave");
  ASSERT_TRUE(waitUntil([&] { return metric(masters[leader].address, "master/slaves_active") == 1; },
                        30s));

  ::setenv("MESOS_REGISTRATION_BACKOFF_FACTOR", "200ms", 1);
  auto runtime = std::move(process::Runtime::create({})).value();
  Framework aware("aware", true, url_, runtime.get());
  Framework plain("plain", false, url_, runtime.get());
  ASSERT_EQ(DRIVER_RUNNING, aware.driver->start());
  ASSERT_EQ(DRIVER_RUNNING, plain.driver->start());
  ASSERT_TRUE(aware.scheduler.awaitStatus(aware.task, TASK_RUNNING)) << logs();
  ASSERT_TRUE(plain.scheduler.awaitStatus(plain.task, TASK_RUNNING)) << logs();
  pid_t awarePid = 0, plainPid = 0;
  ASSERT_TRUE(waitUntil([&] { return (awarePid = taskProcess(aware.task)) > 0; }, 30s));
  ASSERT_TRUE(waitUntil([&] { return (plainPid = taskProcess(plain.task)) > 0; }, 30s));

  // The slave stops answering: unreachable for one, lost for the other.
  ASSERT_EQ(0, ::kill(slave, SIGSTOP));
  auto unreachable = aware.scheduler.awaitStatus(aware.task, TASK_UNREACHABLE);
  ASSERT_TRUE(unreachable) << "no TASK_UNREACHABLE";
  EXPECT_TRUE(unreachable->status.has_unreachable_time());
  ASSERT_TRUE(plain.scheduler.awaitStatus(plain.task, TASK_LOST)) << "no TASK_LOST";
  EXPECT_EQ(1, metric(masters[leader].address, "master/slaves_unreachable"));

  // The leader dies right after: the next one knows from the registry.
  ::kill(masters[leader].pid, SIGKILL);
  EXPECT_EQ(128 + SIGKILL, waitForExit(masters[leader].pid, 30s));
  reaped(masters[leader].pid);
  int standby = 1 - leader;
  ASSERT_TRUE(waitUntil([&] { return leads(masters[standby]); }, 30s));
  ASSERT_TRUE(waitUntil(
      [&] { return metric(masters[standby].address, "master/slaves_unreachable") == 1; }, 30s))
      << "the new leader does not know the slave is unreachable";
  ASSERT_TRUE(aware.scheduler.awaitKind("reregistered"));
  ASSERT_TRUE(plain.scheduler.awaitKind("reregistered"));

  // The slave resumes and comes back to the new leader.
  ASSERT_EQ(0, ::kill(slave, SIGCONT));
  ASSERT_TRUE(waitUntil(
      [&] {
        return metric(masters[standby].address, "master/slaves_active") == 1 &&
               metric(masters[standby].address, "master/slaves_unreachable") == 0;
      },
      60s))
      << "the slave did not come back";
  // The plain framework's task is shut down; the aware one's runs on.
  EXPECT_TRUE(waitUntil([&] { return ::kill(plainPid, 0) != 0 || taskProcess(plain.task) == 0; },
                        30s))
      << "the task of the framework told TASK_LOST still runs";
  EXPECT_EQ(awarePid, taskProcess(aware.task)) << "the aware framework's task did not run on";
  aware.driver->reconcileTasks({});
  auto running = aware.scheduler.await(
      [&](const RecordingScheduler::Event& e) {
        return e.kind == "status" && e.status.task_id().value() == aware.task &&
               e.status.state() == TASK_RUNNING &&
               e.status.reason() == TaskStatus::REASON_RECONCILIATION;
      },
      30s);
  EXPECT_TRUE(running) << "reconciliation did not say the aware task runs";
  auto back = plain.scheduler.await(
      [&](const RecordingScheduler::Event& e) {
        return e.kind == "status" && e.status.task_id().value() == plain.task &&
               e.status.state() == TASK_RUNNING &&
               e.status.reason() == TaskStatus::REASON_RECONCILIATION;
      },
      1s);
  EXPECT_FALSE(back) << "the plain framework's task came back after TASK_LOST";
  aware.driver->stop();
  plain.driver->stop();
  aware.driver->join();
  plain.driver->join();
  ::unsetenv("MESOS_REGISTRATION_BACKOFF_FACTOR");
}

}  // namespace
}  // namespace mesos::test
