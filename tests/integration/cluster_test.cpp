// The whole offer path with real parts: master, slaves, the scheduler
// driver, and executor processes (mesos-executor), on real TCP and a real
// clock. Fault tests kill slaves and executors, fail a scheduler over, and
// cut the slave off from the master.
#include <gtest/gtest.h>

#include <atomic>

#include "messages.pb.h"
#include "support/cluster.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

FrameworkInfo frameworkInfo(double failoverTimeout = 0) {
  FrameworkInfo info;
  info.set_user("");
  info.set_name("integration");
  if (failoverTimeout > 0) info.set_failover_timeout(failoverTimeout);
  return info;
}

// Launches `tasks` (built from the first offer) once, declines the rest.
void launchOnce(RecordingScheduler& scheduler,
                std::function<std::vector<TaskInfo>(const Offer&)> tasks) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  scheduler.onOffers = [done, tasks](SchedulerDriver* driver, const std::vector<Offer>& offers) {
    for (const Offer& offer : offers) {
      if (!done->exchange(true)) {
        driver->launchTasks(offer.id(), tasks(offer));
      } else {
        driver->declineOffer(offer.id());
      }
    }
  };
}

TEST(ClusterTest, CommandTasksFinishOrFailWithTheirExitStatus) {
  TestCluster cluster;
  cluster.startSlave();
  RecordingScheduler scheduler;
  launchOnce(scheduler, [](const Offer& offer) {
    return std::vector<TaskInfo>{commandTask(offer, "ok", "echo hi"),
                                 commandTask(offer, "bad", "exit 3")};
  });
  MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster.masterAddress(), true,
                              &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  ASSERT_TRUE(scheduler.awaitKind("registered"));
  EXPECT_TRUE(scheduler.awaitStatus("ok", TASK_RUNNING));
  EXPECT_TRUE(scheduler.awaitStatus("ok", TASK_FINISHED));
  auto failed = scheduler.awaitStatus("bad", TASK_FAILED);
  ASSERT_TRUE(failed);
  EXPECT_NE(std::string::npos, failed->status.message().find("3")) << failed->status.message();
  driver.stop();
  driver.join();
}

// acceptOffers with a LAUNCH operation runs its tasks on our master; an
// ACCEPT with an invalid operation (a RESERVE of unreserved resources)
// applies nothing, and its task hears why.
TEST(ClusterTest, AcceptOffersLaunchesTasks) {
  TestCluster cluster;
  cluster.startSlave("cpus:1;mem:256");
  RecordingScheduler scheduler;
  auto calls = std::make_shared<std::atomic<int>>(0);
  scheduler.onOffers = [calls](SchedulerDriver* driver, const std::vector<Offer>& offers) {
    for (const Offer& offer : offers) {
      int call = calls->fetch_add(1);
      if (call > 1) {
        driver->declineOffer(offer.id());
        continue;
      }
      Offer::Operation launch;
      launch.set_type(Offer::Operation::LAUNCH);
      *launch.mutable_launch()->add_task_infos() =
          commandTask(offer, call == 0 ? "refused" : "accepted", "echo hi");
      std::vector<Offer::Operation> operations{launch};
      if (call == 0) {
        Offer::Operation reserve;
        reserve.set_type(Offer::Operation::RESERVE);
        *reserve.mutable_reserve()->add_resources() = offer.resources(0);
        operations.push_back(reserve);
      }
      Filters filters;
      filters.set_refuse_seconds(0);
      driver->acceptOffers({offer.id()}, operations, filters);
    }
  };
  MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster.masterAddress(), true,
                              &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  ASSERT_TRUE(scheduler.awaitStatus("refused", TASK_ERROR));
  EXPECT_TRUE(scheduler.awaitStatus("accepted", TASK_RUNNING));
  EXPECT_TRUE(scheduler.awaitStatus("accepted", TASK_FINISHED));
  driver.stop();
  driver.join();
}

// Disconnected, acceptOffers reports its LAUNCH operations' tasks lost.
TEST(ClusterTest, AcceptOffersWhileDisconnectedReportsTheTasksLost) {
  TestCluster cluster;
  RecordingScheduler scheduler;
  MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster.masterAddress(), true,
                              &cluster.runtime());
  cluster.runtime().hooks().drop<internal::RegisterFrameworkMessage>();
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  Offer::Operation launch;
  launch.set_type(Offer::Operation::LAUNCH);
  TaskInfo* task = launch.mutable_launch()->add_task_infos();
  task->set_name("early");
  task->mutable_task_id()->set_value("early");
  task->mutable_slave_id()->set_value("S1");
  OfferID offer;
  offer.set_value("o1");
  driver.acceptOffers({offer}, {launch});
  auto lost = scheduler.awaitStatus("early", TASK_LOST);
  ASSERT_TRUE(lost);
  EXPECT_EQ(TaskStatus::REASON_MASTER_DISCONNECTED, lost->status.reason());
  driver.stop();
  driver.join();
}

TEST(ClusterTest, KilledTaskIsReportedKilled) {
  TestCluster cluster;
  cluster.startSlave();
  RecordingScheduler scheduler;
  launchOnce(scheduler, [](const Offer& offer) {
    return std::vector<TaskInfo>{commandTask(offer, "sleeper", "sleep 1000")};
  });
  MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster.masterAddress(), true,
                              &cluster.runtime());
  driver.start();
  ASSERT_TRUE(scheduler.awaitStatus("sleeper", TASK_RUNNING));
  TaskID id;
  id.set_value("sleeper");
  driver.killTask(id);
  EXPECT_TRUE(scheduler.awaitStatus("sleeper", TASK_KILLED));
  driver.stop();
  driver.join();
}

TEST(ClusterTest, DeadSlaveLosesItsTasksAndIsReportedLost) {
  internal::master::MasterFlags flags;
  flags.slave_ping_timeout = 100ms;
  flags.max_slave_ping_timeouts = 3;
  TestCluster cluster(flags);
  size_t slave = cluster.startSlave();
  RecordingScheduler scheduler;
  launchOnce(scheduler, [](const Offer& offer) {
    return std::vector<TaskInfo>{commandTask(offer, "doomed", "sleep 1000")};
  });
  MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster.masterAddress(), true,
                              &cluster.runtime());
  driver.start();
  ASSERT_TRUE(scheduler.awaitStatus("doomed", TASK_RUNNING));
  cluster.stopSlave(slave);
  auto lost = scheduler.awaitStatus("doomed", TASK_LOST);
  ASSERT_TRUE(lost);
  EXPECT_EQ(TaskStatus::REASON_SLAVE_REMOVED, lost->status.reason());
  EXPECT_TRUE(scheduler.awaitKind("slaveLost"));
  driver.stop();
  driver.join();
}

TEST(ClusterTest, CrashingExecutorFailsItsTaskAndIsReported) {
  TestCluster cluster;
  cluster.startSlave();
  RecordingScheduler scheduler;
  launchOnce(scheduler, [](const Offer& offer) {
    TaskInfo task;
    task.set_name("crash");
    task.mutable_task_id()->set_value("crash");
    task.mutable_slave_id()->CopyFrom(offer.slave_id());
    *task.mutable_resources() = Resources::parse("cpus:0.1;mem:32").value().proto();
    ExecutorInfo* executor = task.mutable_executor();
    executor->mutable_executor_id()->set_value("crasher");
    executor->mutable_command()->set_value("exit 7");
    return std::vector<TaskInfo>{task};
  });
  MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster.masterAddress(), true,
                              &cluster.runtime());
  driver.start();
  auto terminal = scheduler.await([](const RecordingScheduler::Event& e) {
    return e.kind == "status" && e.status.task_id().value() == "crash" &&
           (e.status.state() == TASK_FAILED || e.status.state() == TASK_LOST);
  });
  ASSERT_TRUE(terminal) << "the task of a crashed executor never ended";
  auto lost = scheduler.awaitKind("executorLost");
  ASSERT_TRUE(lost);
  EXPECT_EQ("crasher", lost->text);
  driver.stop();
  driver.join();
}

TEST(ClusterTest, TasksSurviveSchedulerFailover) {
  TestCluster cluster;
  cluster.startSlave();
  FrameworkID frameworkId;
  {
    RecordingScheduler first;
    launchOnce(first, [](const Offer& offer) {
      return std::vector<TaskInfo>{commandTask(offer, "survivor", "sleep 1000")};
    });
    // The slave hears the acknowledgement of TASK_RUNNING before the
    // scheduler goes (else it re-sends the update to the next one, 10 s on).
    auto acknowledged =
        cluster.runtime().hooks().await<internal::StatusUpdateAcknowledgementMessage>(
            cluster.master(), cluster.slavePid(0));
    MesosSchedulerDriver driver(&first, frameworkInfo(3600), cluster.masterAddress(), true,
                                &cluster.runtime());
    driver.start();
    ASSERT_TRUE(first.awaitKind("registered"));
    frameworkId = first.frameworkId();
    ASSERT_TRUE(first.awaitStatus("survivor", TASK_RUNNING));
    ASSERT_TRUE(acknowledged.await(30s));
    driver.stop(true);  // failover: leave the framework and its tasks be
    driver.join();
  }
  RecordingScheduler second;
  FrameworkInfo info = frameworkInfo(3600);
  info.mutable_id()->CopyFrom(frameworkId);
  MesosSchedulerDriver driver(&second, info, cluster.masterAddress(), true, &cluster.runtime());
  driver.start();
  ASSERT_TRUE(second.await([](const RecordingScheduler::Event& e) {
    return e.kind == "registered" || e.kind == "reregistered";
  }));
  driver.reconcileTasks({});
  EXPECT_TRUE(second.awaitStatus("survivor", TASK_RUNNING));
  TaskID id;
  id.set_value("survivor");
  driver.killTask(id);
  EXPECT_TRUE(second.awaitStatus("survivor", TASK_KILLED));
  driver.stop();
  driver.join();
}

TEST(ClusterTest, NoStatusUpdateIsLostWhileTheMasterIsUnreachable) {
  TestCluster cluster;
  size_t slave = cluster.startSlave();
  // Cut the slave's updates off from the master.
  auto cut = cluster.runtime().hooks().drop<internal::StatusUpdateMessage>(
      cluster.slavePid(slave), cluster.master());
  auto dropped = cluster.runtime().hooks().count<internal::StatusUpdateMessage>(
      cluster.slavePid(slave), cluster.master());
  RecordingScheduler scheduler;
  launchOnce(scheduler, [](const Offer& offer) {
    return std::vector<TaskInfo>{commandTask(offer, "quick", "true")};
  });
  MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster.masterAddress(), true,
                              &cluster.runtime());
  driver.start();
  // The slave sends the update at least once into the void.
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (dropped->load() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);  // polling a counter fed by real processes, bounded
  }
  ASSERT_GT(dropped->load(), 0u);
  EXPECT_FALSE(scheduler.awaitStatus("quick", TASK_RUNNING, 100ms));
  cluster.runtime().hooks().remove(cut);
  // The status update manager re-sends, in order, until acknowledged.
  EXPECT_TRUE(scheduler.awaitStatus("quick", TASK_RUNNING, 60s));
  EXPECT_TRUE(scheduler.awaitStatus("quick", TASK_FINISHED, 60s));
  driver.stop();
  driver.join();
}

}  // namespace
}  // namespace mesos::test
