// The slave's HTTP endpoints: /state (reservations by role), /flags,
// /version, /metrics/snapshot, /health and /monitor/statistics, at /slave(N)/<name> and at the
// bare /<name> when the runtime delegates to the slave, in this process
// and from a real mesos-slave over TCP.
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/uuid.hpp"
#include "slave/slave_fixture.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"

namespace mesos::internal::slave::test {
namespace {

using namespace std::chrono_literals;

class SlaveEndpointsTest : public SlaveTestBase {
 protected:
  // GET `path` from this runtime, parsed (Null, with a failure, otherwise).
  json::Value get(const std::string& path) {
    std::string body;
    EXPECT_EQ(200, mesos::test::httpGet(runtime_->address(), path, &body)) << path;
    auto parsed = json::parse(body);
    EXPECT_TRUE(parsed.ok()) << path << ": " << body;
    return parsed.ok() ? *parsed : json::Value();
  }

  json::Value metrics() { return get("/" + slave_.pid().id + "/metrics/snapshot"); }

  void registerExecutor(mesos::test::Peer* executor, const std::string& executorId) {
    auto registered =
        runtime_->hooks().await<ExecutorRegisteredMessage>(slave_.pid(), executor->self());
    RegisterExecutorMessage message;
    message.mutable_framework_id()->set_value("F1");
    message.mutable_executor_id()->set_value(executorId);
    executor->post(slave_.pid(), message);
    runtime_->settle();
    ASSERT_TRUE(registered.isReady());
  }

  void sendUpdate(mesos::test::Peer* executor, const std::string& frameworkId,
                  const std::string& taskId, TaskState state) {
    StatusUpdateMessage message;
    StatusUpdate* update = message.mutable_update();
    update->mutable_framework_id()->set_value(frameworkId);
    update->mutable_executor_id()->set_value("e1");
    update->mutable_slave_id()->set_value("S1");
    update->mutable_status()->mutable_task_id()->set_value(taskId);
    update->mutable_status()->set_state(state);
    update->set_timestamp(1);
    update->set_uuid(randomUuid());
    message.set_pid(executor->self().toString());
    executor->post(slave_.pid(), message);
    runtime_->settle();
  }
};

TEST_F(SlaveEndpointsTest, BarePathsAreTheSlavesWhenItIsTheDelegate) {
  startRegisteredSlave();
  runtime_->setDelegate(slave_.pid().id);
  const std::string prefix = "/" + slave_.pid().id;
  for (const std::string& base : {prefix, std::string()}) {
    json::Value state = get(base + "/state");
    EXPECT_EQ("S1", state["id"].string()) << base;
    EXPECT_EQ(slave_.pid().toString(), state["pid"].string());
    EXPECT_EQ("1.0.0", state["version"].string());
    EXPECT_FALSE(state["build_date"].string().empty());
    EXPECT_GT(state["start_time"].number(), 0);
    EXPECT_EQ("S1", get(base + "/state.json")["id"].string());

    json::Value flags = get(base + "/flags");
    EXPECT_EQ(workDir_, flags["flags"]["work_dir"].string()) << base;
    EXPECT_EQ("cpus:2;mem:1024;disk:4096;ports:[31000-31099]",
              flags["flags"]["resources"].string());

    json::Value version = get(base + "/version");
    EXPECT_EQ("1.0.0", version["version"].string()) << base;
    EXPECT_GT(version["build_time"].number(), 1e9);

    json::Value metrics = get(base + "/metrics/snapshot");
    EXPECT_EQ(1, metrics["slave/registered"].integer()) << base;
    EXPECT_EQ(2, metrics["slave/cpus_total"].number());

    EXPECT_EQ(200, mesos::test::httpGet(runtime_->address(), base + "/health")) << base;
  }
}

TEST_F(SlaveEndpointsTest, StateKeepsReservedRolesApart) {
  Flags flags = this->flags();
  flags.resources = "cpus:2;cpus(prod):1;mem:1024;disk:100";
  startRegisteredSlave(flags);
  json::Value state = get("/" + slave_.pid().id + "/state");
  EXPECT_EQ(3, state["resources"]["cpus"].number());
  EXPECT_EQ(1024, state["resources"]["mem"].number());
  ASSERT_TRUE(state["reserved_resources"].isObject());
  EXPECT_EQ(1u, state["reserved_resources"].object().size());
  EXPECT_EQ(1, state["reserved_resources"]["prod"]["cpus"].number());
  EXPECT_EQ(0, state["reserved_resources"]["prod"]["mem"].number());
  EXPECT_EQ(2, state["unreserved_resources"]["cpus"].number());
  EXPECT_EQ(1024, state["unreserved_resources"]["mem"].number());
  EXPECT_EQ(100, state["unreserved_resources"]["disk"].number());
  EXPECT_EQ(3, metrics()["slave/cpus_total"].number());
}

TEST_F(SlaveEndpointsTest, MetricsFollowRegistrationTasksAndExecutors) {
  master_->autoRegister = false;
  startSlave(flags());
  runtime_->settle();
  json::Value before = metrics();
  EXPECT_EQ(0, before["slave/registered"].integer());
  EXPECT_GE(before["slave/uptime_secs"].number(), 0);
  EXPECT_EQ(0, before["slave/frameworks_active"].integer());
  EXPECT_EQ(2, before["slave/cpus_total"].number());
  EXPECT_EQ(1024, before["slave/mem_total"].number());
  EXPECT_EQ(0, before["slave/cpus_used"].number());
  EXPECT_EQ(0, before["slave/gpus_total"].number());

  master_->autoRegister = true;
  auto registered = runtime_->hooks().await<SlaveRegisteredMessage>();
  advance(1min);  // the next registration attempt
  ASSERT_TRUE(registered.isReady());
  EXPECT_EQ(1, metrics()["slave/registered"].integer());

  TaskInfo task = customTask("t1", "e1", "sleep 60");
  *task.mutable_resources() = Resources::parse("cpus:0.5;mem:128").value().proto();
  fromMaster(runTask(task));
  runtime_->settle();
  json::Value queued = metrics();
  EXPECT_EQ(1, queued["slave/frameworks_active"].integer());
  EXPECT_EQ(1, queued["slave/executors_registering"].integer());
  EXPECT_EQ(1, queued["slave/tasks_staging"].integer());
  EXPECT_EQ(0.5, queued["slave/cpus_used"].number());
  EXPECT_EQ(128, queued["slave/mem_used"].number());
  EXPECT_EQ(0.25, queued["slave/cpus_percent"].number());

  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");
  sendUpdate(executor, "F1", "t1", TASK_RUNNING);
  json::Value running = metrics();
  EXPECT_EQ(0, running["slave/executors_registering"].integer());
  EXPECT_EQ(1, running["slave/executors_running"].integer());
  EXPECT_EQ(0, running["slave/tasks_staging"].integer());
  EXPECT_EQ(1, running["slave/tasks_running"].integer());
  EXPECT_EQ(1, running["slave/valid_status_updates"].integer());

  sendUpdate(executor, "F1", "t1", TASK_FINISHED);
  sendUpdate(executor, "no-such-framework", "t9", TASK_RUNNING);
  json::Value finished = metrics();
  EXPECT_EQ(0, finished["slave/tasks_running"].integer());
  EXPECT_EQ(1, finished["slave/tasks_finished"].integer());
  EXPECT_EQ(0, finished["slave/tasks_failed"].integer());
  EXPECT_EQ(2, finished["slave/valid_status_updates"].integer());
  EXPECT_EQ(1, finished["slave/invalid_status_updates"].integer());
  EXPECT_EQ(0, finished["slave/cpus_used"].number());
  EXPECT_EQ(0, finished["slave/executors_terminated"].integer());
}

TEST_F(SlaveEndpointsTest, MonitorStatisticsMeasuresEachExecutorsContainer) {
  startRegisteredSlave();
  const std::string path = "/" + slave_.pid().id + "/monitor/statistics";
  EXPECT_EQ(0u, get(path).array().size());

  TaskInfo task = customTask("t1", "e1", "sleep 60");
  *task.mutable_resources() = Resources::parse("cpus:0.5;mem:128").value().proto();
  fromMaster(runTask(task));
  runtime_->settle();
  json::Value all = get(path);
  ASSERT_EQ(1u, all.array().size()) << json::stringify(all);
  const json::Value& entry = all.array()[0];
  EXPECT_EQ("F1", entry["framework_id"].string());
  EXPECT_EQ("e1", entry["executor_id"].string());
  EXPECT_TRUE(entry["executor_name"].isString());
  EXPECT_TRUE(entry["source"].isString());
  const json::Value& statistics = entry["statistics"];
  EXPECT_GT(statistics["timestamp"].number(), 1.6e9);
  EXPECT_EQ(0.5, statistics["cpus_limit"].number());
  EXPECT_EQ(128 * 1024 * 1024, statistics["mem_limit_bytes"].integer());
  // posix/cpu,posix/mem measure the executor's process tree from /proc.
  EXPECT_GE(statistics["processes"].integer(), 1) << json::stringify(all);
  EXPECT_GT(statistics["mem_rss_bytes"].integer(), 0);
  EXPECT_TRUE(statistics["cpus_user_time_secs"].isNumber());
  EXPECT_EQ(1u, get("/" + slave_.pid().id + "/monitor/statistics.json").array().size());
}

// A real mesos-slave (and mesos-master) over TCP: the slave serves the bare
// paths on its own port, and the master shows its reservations.
class SlaveDaemonEndpointsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* binary : {MESOS_MASTER_PATH, MESOS_SLAVE_PATH}) {
      if (!std::filesystem::exists(binary)) GTEST_SKIP() << binary << " is not built";
    }
    char dir[] = "/tmp/mesos-slave-endpoints-XXXXXX";
    ASSERT_NE(nullptr, mkdtemp(dir));
    workDir_ = dir;
    uint16_t masterPort = mesos::test::freePort();
    master_ = {0x7f000001, masterPort};
    masterPid_ = mesos::test::startDaemon(
        {MESOS_MASTER_PATH, "--ip=127.0.0.1", "--port=" + std::to_string(masterPort)});
    ASSERT_GT(masterPid_, 0);
    uint16_t slavePort = mesos::test::freePort();
    slave_ = {0x7f000001, slavePort};
    slavePid_ = mesos::test::startDaemon(
        {MESOS_SLAVE_PATH, "--master=127.0.0.1:" + std::to_string(masterPort), "--ip=127.0.0.1",
         "--port=" + std::to_string(slavePort), "--work_dir=" + workDir_,
         "--resources=cpus:2;cpus(prod):1;mem:1024;disk:512"});
    ASSERT_GT(slavePid_, 0);
    bool registered = mesos::test::waitUntil(
        [&] {
          std::string body;
          if (!mesos::test::connectable(slave_) ||
              mesos::test::httpGet(slave_, "/metrics/snapshot", &body) != 200) {
            return false;
          }
          auto metrics = json::parse(body);
          return metrics.ok() && (*metrics)["slave/registered"].integer() == 1;
        },
        30s, slavePid_);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  void TearDown() override {
    for (pid_t pid : {slavePid_, masterPid_}) {
      if (pid > 0) {
        kill(pid, SIGTERM);
        EXPECT_EQ(0, mesos::test::waitForExit(pid, 30s));
      }
    }
    if (!workDir_.empty()) std::filesystem::remove_all(workDir_);
  }

  static json::Value get(const process::Address& address, const std::string& path) {
    std::string body;
    EXPECT_EQ(200, mesos::test::httpGet(address, path, &body)) << path;
    auto parsed = json::parse(body);
    EXPECT_TRUE(parsed.ok()) << path << ": " << body;
    return parsed.ok() ? *parsed : json::Value();
  }

  std::string workDir_;
  process::Address master_, slave_;
  pid_t masterPid_ = -1;
  pid_t slavePid_ = -1;
};

TEST_F(SlaveDaemonEndpointsTest, BarePathsAndReservationsOverTcp) {
  for (const char* path : {"/state", "/state.json", "/slave(1)/state"}) {
    json::Value state = get(slave_, path);
    EXPECT_FALSE(state["id"].string().empty()) << path;
    EXPECT_EQ(3, state["resources"]["cpus"].number()) << path;
    EXPECT_EQ(1, state["reserved_resources"]["prod"]["cpus"].number()) << path;
    EXPECT_EQ(2, state["unreserved_resources"]["cpus"].number()) << path;
    EXPECT_EQ(1024, state["unreserved_resources"]["mem"].number()) << path;
  }
  EXPECT_EQ(workDir_, get(slave_, "/flags")["flags"]["work_dir"].string());
  EXPECT_EQ("1.0.0", get(slave_, "/version")["version"].string());
  json::Value metrics = get(slave_, "/metrics/snapshot");
  EXPECT_EQ(3, metrics["slave/cpus_total"].number());
  EXPECT_EQ(200, mesos::test::httpGet(slave_, "/health"));
  EXPECT_EQ(404, mesos::test::httpGet(slave_, "/no-such-endpoint"));

  json::Value slaves = get(master_, "/slaves");
  ASSERT_EQ(1u, slaves["slaves"].array().size());
  const json::Value& entry = slaves["slaves"].array()[0];
  EXPECT_EQ(3, entry["resources"]["cpus"].number());
  EXPECT_EQ(1, entry["reserved_resources"]["prod"]["cpus"].number());
  EXPECT_EQ(2, entry["unreserved_resources"]["cpus"].number());
}

}  // namespace
}  // namespace mesos::internal::slave::test
