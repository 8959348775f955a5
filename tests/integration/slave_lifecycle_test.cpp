// Slaves coming and going as operators make them: mesos-master and
// mesos-slave as separate processes, killed with SIGKILL or stopped and
// started again at the same address, and mesos-execute as the framework.
// Real processes, so waits have generous real-time bounds.
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

class SlaveLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* binary : {MESOS_MASTER_PATH, MESOS_SLAVE_PATH, MESOS_EXECUTE_PATH}) {
      if (!std::filesystem::exists(binary)) GTEST_SKIP() << binary << " is not built";
    }
    char dir[] = "/tmp/mesos-lifecycle-XXXXXX";
    ASSERT_NE(nullptr, mkdtemp(dir));
    workDir_ = dir;
    masterPort_ = freePort();
    master_ = startDaemon({MESOS_MASTER_PATH, "--ip=127.0.0.1",
                           "--port=" + std::to_string(masterPort_)});
    ASSERT_GT(master_, 0);
  }

  void TearDown() override {
    for (pid_t pid : pids_) {
      if (pid > 0 && kill(pid, SIGTERM) == 0) waitForExit(pid, 30s);
    }
    if (master_ > 0) {
      kill(master_, SIGTERM);
      EXPECT_EQ(0, waitForExit(master_, 30s)) << "the master did not stop cleanly on SIGTERM";
    }
    if (!workDir_.empty()) std::filesystem::remove_all(workDir_);
  }

  process::Address masterAddress() const { return {0x7f000001, masterPort_}; }

  pid_t startSlave(uint16_t port, const std::string& name, const std::string& resources) {
    std::string launcherDir = std::filesystem::path(MESOS_EXECUTOR_PATH).parent_path().string();
    pid_t pid = startDaemon({MESOS_SLAVE_PATH, "--master=127.0.0.1:" + std::to_string(masterPort_),
                             "--ip=127.0.0.1", "--port=" + std::to_string(port),
                             "--work_dir=" + workDir_ + "/" + name, "--resources=" + resources,
                             "--launcher_dir=" + launcherDir});
    pids_.push_back(pid);
    return pid;
  }

  std::optional<json::Value> getJson(const std::string& path) {
    std::string body;
    if (!connectable(masterAddress()) || httpGet(masterAddress(), path, &body) != 200) {
      return std::nullopt;
    }
    auto parsed = json::parse(body);
    return parsed.ok() ? std::optional<json::Value>(*parsed) : std::nullopt;
  }

  int64_t metric(const std::string& name) {
    auto metrics = getJson("/metrics/snapshot");
    return metrics ? (*metrics)[name].integer() : -1;
  }

  pid_t execute(const std::string& name, const std::string& command,
                const std::string& resources = "cpus:0.5;mem:32") {
    pid_t pid = startDaemon({MESOS_EXECUTE_PATH, "--master=127.0.0.1:" + std::to_string(masterPort_),
                             "--name=" + name, "--command=" + command,
                             "--resources=" + resources});
    pids_.push_back(pid);
    return pid;
  }

  // The state of task `name` (mesos-execute uses the name as the task id)
  // in the master's /state, if it knows it.
  std::optional<std::string> taskState(const std::string& name) {
    auto state = getJson("/state");
    if (!state) return std::nullopt;
    for (const char* list : {"frameworks", "completed_frameworks"}) {
      for (const json::Value& framework : (*state)[list].array()) {
        for (const char* tasks : {"tasks", "completed_tasks"}) {
          for (const json::Value& task : framework[tasks].array()) {
            if (task["name"].string() == name) return task["state"].string();
          }
        }
      }
    }
    return std::nullopt;
  }

  std::vector<std::string> slaveIds() {
    std::vector<std::string> ids;
    if (auto state = getJson("/state")) {
      for (const json::Value& slave : (*state)["slaves"].array()) ids.push_back(slave["id"].string());
    }
    return ids;
  }

  std::string workDir_;
  uint16_t masterPort_ = 0;
  pid_t master_ = -1;
  std::vector<pid_t> pids_;
};

TEST_F(SlaveLifecycleTest, AKilledSlaveIsDeactivatedAtOnceAndNotOffered) {
  startSlave(freePort(), "a", "cpus:1;mem:256");
  pid_t doomed = startSlave(freePort(), "b", "cpus:1;mem:256");
  ASSERT_TRUE(waitUntil([&] { return metric("master/slaves_active") == 2; }, 30s, master_));

  ASSERT_EQ(0, kill(doomed, SIGKILL));
  EXPECT_EQ(128 + SIGKILL, waitForExit(doomed, 30s));
  // Deactivated on the broken connection, long before it could miss its
  // pings (15 s each by default).
  ASSERT_TRUE(waitUntil([&] { return metric("master/slaves_inactive") == 1; }, 10s, master_));
  EXPECT_EQ(1, metric("master/slaves_active"));
  auto state = getJson("/state");
  ASSERT_TRUE(state.has_value());
  int inactive = 0;
  for (const json::Value& slave : (*state)["slaves"].array()) {
    if (!slave["active"].boolean()) {
      inactive++;
      EXPECT_EQ(0.0, slave["offered_resources"]["cpus"].number());
    }
  }
  EXPECT_EQ(1, inactive);

  // Each run takes a whole slave; were the dead one offered, a run would be
  // handed it and never finish.
  for (int i = 0; i < 4; ++i) {
    pid_t run = execute("run-" + std::to_string(i), "true", "cpus:1;mem:32");
    ASSERT_GT(run, 0);
    EXPECT_EQ(0, waitForExit(run, 60s)) << "run " << i;
  }
}

TEST_F(SlaveLifecycleTest, ASlaveRestartedAtTheSameAddressIsANewSlaveAndTheOldTasksAreLost) {
  uint16_t port = freePort();
  pid_t first = startSlave(port, "a", "cpus:1;mem:256");
  ASSERT_TRUE(waitUntil([&] { return metric("master/slaves_active") == 1; }, 30s, master_));
  std::vector<std::string> before = slaveIds();
  ASSERT_EQ(1u, before.size());

  pid_t run = execute("long", "sleep 300");
  ASSERT_GT(run, 0);
  ASSERT_TRUE(waitUntil([&] { return taskState("long") == "TASK_RUNNING"; }, 60s, run));

  // Stopped: its task dies with it. A new slave process at the same address
  // registers (it does not recover the old one).
  ASSERT_EQ(0, kill(first, SIGTERM));
  ASSERT_EQ(0, waitForExit(first, 30s));
  startSlave(port, "a2", "cpus:1;mem:256");
  ASSERT_TRUE(waitUntil([&] { return metric("master/slave_registrations") == 2; }, 30s, master_));

  // The framework hears that its task was lost, at once (not after the old
  // slave missed its pings), and mesos-execute exits with failure.
  EXPECT_EQ(1, waitForExit(run, 30s));
  EXPECT_EQ(std::optional<std::string>("TASK_LOST"), taskState("long"));
  std::vector<std::string> after = slaveIds();
  ASSERT_EQ(1u, after.size());
  EXPECT_NE(before[0], after[0]);
  EXPECT_EQ(1, metric("master/tasks_lost"));
  EXPECT_EQ(1, metric("master/slaves_active"));
}

}  // namespace
}  // namespace mesos::test
