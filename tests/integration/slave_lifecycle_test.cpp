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

class SlaveLifecycleTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (!IsSkipped()) master_ = startMaster();
  }

  std::optional<json::Value> getJson(const std::string& path) {
    json::Value value = mesos::test::getJson(master_, path);
    return value.isObject() ? std::optional<json::Value>(value) : std::nullopt;
  }

  int64_t metric(const std::string& name) { return DaemonsFixture::metric(master_, name); }

  pid_t execute(const std::string& name, const std::string& command,
                const std::string& resources = "cpus:0.5;mem:32") {
    return start({MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--name=" + name,
                  "--command=" + command, "--resources=" + resources});
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

  process::Address master_;
};

TEST_F(SlaveLifecycleTest, AKilledSlaveIsDeactivatedAtOnceAndNotOffered) {
  startSlave(master_, "a", {"--resources=cpus:1;mem:256"});
  pid_t doomed = startSlave(master_, "b", {"--resources=cpus:1;mem:256"});
  ASSERT_TRUE(waitUntil([&] { return metric("master/slaves_active") == 2; }, 30s));

  ASSERT_EQ(0, kill(doomed, SIGKILL));
  EXPECT_EQ(128 + SIGKILL, waitForExit(doomed, 30s));
  reaped(doomed);
  // Deactivated on the broken connection, long before it could miss its
  // pings (15 s each by default).
  ASSERT_TRUE(waitUntil([&] { return metric("master/slaves_inactive") == 1; }, 10s));
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
    reaped(run);
  }
}

TEST_F(SlaveLifecycleTest, ASlaveRestartedAtTheSameAddressIsANewSlaveAndTheOldTasksAreLost) {
  uint16_t port = freePort();
  pid_t first = startSlave(master_, "a", {"--resources=cpus:1;mem:256"}, port);
  ASSERT_TRUE(waitUntil([&] { return metric("master/slaves_active") == 1; }, 30s));
  std::vector<std::string> before = slaveIds();
  ASSERT_EQ(1u, before.size());

  pid_t run = execute("long", "sleep 300");
  ASSERT_GT(run, 0);
  ASSERT_TRUE(waitUntil([&] { return taskState("long") == "TASK_RUNNING"; }, 60s, run));

  // Stopped: its task dies with it. A new slave process at the same address
  // registers (it does not recover the old one).
  ASSERT_EQ(0, kill(first, SIGTERM));
  ASSERT_EQ(0, waitForExit(first, 30s));
  reaped(first);
  startSlave(master_, "a2", {"--resources=cpus:1;mem:256"}, port);
  ASSERT_TRUE(waitUntil([&] { return metric("master/slave_registrations") == 2; }, 30s));

  // The framework hears that its task was lost, at once (not after the old
  // slave missed its pings), and mesos-execute exits with failure.
  EXPECT_EQ(1, waitForExit(run, 30s));
  reaped(run);
  EXPECT_EQ(std::optional<std::string>("TASK_LOST"), taskState("long"));
  std::vector<std::string> after = slaveIds();
  ASSERT_EQ(1u, after.size());
  EXPECT_NE(before[0], after[0]);
  EXPECT_EQ(1, metric("master/tasks_lost"));
  EXPECT_EQ(1, metric("master/slaves_active"));
}

}  // namespace
}  // namespace mesos::test
