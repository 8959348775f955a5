// Health checks end to end: a scheduler launches a command task with a
// HealthCheck through a real master and slave; mesos-executor runs the task
// and its checks, and the scheduler sees the health updates and the kill.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "support/cluster.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

TEST(HealthCheckClusterTest, SchedulerSeesHealthyThenUnhealthyAndTheKill) {
  TestCluster cluster;
  cluster.startSlave();
  RecordingScheduler scheduler;
  auto launched = std::make_shared<std::atomic<bool>>(false);
  scheduler.onOffers = [launched](SchedulerDriver* driver, const std::vector<Offer>& offers) {
    for (const Offer& offer : offers) {
      if (launched->exchange(true)) {
        driver->declineOffer(offer.id());
        continue;
      }
      TaskInfo task = commandTask(offer, "checked", "sleep 1000");
      HealthCheck* check = task.mutable_health_check();
      check->set_type(HealthCheck::COMMAND);
      // Passes twice (its count lives in the sandbox), then fails.
      check->mutable_command()->set_value(
          "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n -le 2 ]");
      check->set_delay_seconds(0.1);
      check->set_interval_seconds(0.1);
      check->set_grace_period_seconds(0);
      check->set_consecutive_failures(2);
      driver->launchTasks(offer.id(), {task});
    }
  };
  FrameworkInfo info;
  info.set_user("");
  info.set_name("health checks");
  MesosSchedulerDriver driver(&scheduler, info, cluster.masterAddress(), true,
                              &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());

  auto health = [](bool healthy) {
    return [healthy](const RecordingScheduler::Event& e) {
      return e.kind == "status" && e.status.task_id().value() == "checked" &&
             e.status.state() == TASK_RUNNING && e.status.has_healthy() &&
             e.status.healthy() == healthy;
    };
  };
  auto healthy = scheduler.await(health(true));
  ASSERT_TRUE(healthy) << "the scheduler never heard the task is healthy";
  EXPECT_EQ(TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED, healthy->status.reason());
  EXPECT_EQ(TaskStatus::SOURCE_EXECUTOR, healthy->status.source());

  auto unhealthy = scheduler.await(health(false));
  ASSERT_TRUE(unhealthy);
  EXPECT_EQ("COMMAND health check: command exited with status 1", unhealthy->status.message());

  auto killed = scheduler.awaitStatus("checked", TASK_KILLED);
  ASSERT_TRUE(killed);
  EXPECT_TRUE(killed->status.has_healthy());
  EXPECT_FALSE(killed->status.healthy());
  EXPECT_NE(std::string::npos, killed->status.message().find("2 failed health check(s)"))
      << killed->status.message();
  driver.stop();
  driver.join();
}

}  // namespace
}  // namespace mesos::test
