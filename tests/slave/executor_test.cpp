// Executors launched by the slave: sandboxes and environment, queued tasks,
// registration, status updates both ways, kills, shutdowns, exits and the
// registration timeout. The executor processes are real (short shell
// commands); where the protocol matters, the test plays the executor.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "common/uuid.hpp"
#include "slave/checkpoint.hpp"
#include "slave/meta.hpp"
#include "slave/slave_fixture.hpp"
#include "support/net.hpp"

namespace mesos::internal::slave::test {
namespace {

using namespace std::chrono_literals;

class ExecutorTest : public SlaveTestBase {
 protected:
  // Registers `executor` (a Peer) as executor `executorId` of F1.
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

  StatusUpdateMessage executorUpdate(mesos::test::Peer* executor, const std::string& executorId,
                                     const std::string& taskId, TaskState state) {
    return SlaveTestBase::executorUpdate(executor->self(), executorId, taskId, state);
  }

  // The executor's /state entry, live or completed (Null if none).
  json::Value findExecutor(const std::string& executorId) {
    json::Value s = state();
    for (const char* frameworks : {"frameworks", "completed_frameworks"}) {
      for (const json::Value& framework : s[frameworks].array()) {
        for (const char* executors : {"executors", "completed_executors"}) {
          for (const json::Value& executor : framework[executors].array()) {
            if (executor["id"].string() == executorId) return executor;
          }
        }
      }
    }
    return json::Value();
  }

  std::string executorDirectory(const std::string& executorId) {
    json::Value executor = findExecutor(executorId);
    return executor.isNull() ? "" : executor["directory"].string();
  }
};

TEST_F(ExecutorTest, ExecutorRunsInItsSandboxWithTheMesosEnvironment) {
  startRegisteredSlave();
  auto exited = runtime_->hooks().await<ExitedExecutorMessage>();
  auto lost = runtime_->hooks().await<StatusUpdateMessage>(slave_.pid(), master_.pid());
  fromMaster(runTask(customTask("t1", "e1", "env > env.txt; echo out; echo err >&2; exit 3")));
  runtime_->settle();
  std::string directory = executorDirectory("e1");
  ASSERT_FALSE(directory.empty());
  EXPECT_NE(directory.find("/slaves/S1/frameworks/F1/executors/e1/runs/"), std::string::npos);

  // The process exits on its own (real time); its queued task is lost.
  ASSERT_TRUE(exited.await(std::chrono::seconds(30)));
  EXPECT_EQ(exited.get().executor_id().value(), "e1");
  EXPECT_EQ(exited.get().framework_id().value(), "F1");
  EXPECT_EQ(exited.get().slave_id().value(), "S1");
  EXPECT_TRUE(WIFEXITED(exited.get().status()));
  EXPECT_EQ(WEXITSTATUS(exited.get().status()), 3);
  ASSERT_TRUE(lost.await(std::chrono::seconds(30)));
  runtime_->settle();
  EXPECT_EQ(lost.get().update().status().task_id().value(), "t1");
  EXPECT_EQ(lost.get().update().status().state(), TASK_LOST);
  EXPECT_EQ(lost.get().update().status().reason(), TaskStatus::REASON_EXECUTOR_TERMINATED);
  EXPECT_EQ(lost.get().pid(), slave_.pid().toString());

  EXPECT_EQ(readFile(directory + "/stdout"), "out\n");
  EXPECT_EQ(readFile(directory + "/stderr"), "err\n");
  std::string env = readFile(directory + "/env.txt");
  EXPECT_NE(env.find("MESOS_SLAVE_PID=" + slave_.pid().toString() + "\n"), std::string::npos);
  EXPECT_NE(env.find("MESOS_SLAVE_ID=S1\n"), std::string::npos);
  EXPECT_NE(env.find("MESOS_FRAMEWORK_ID=F1\n"), std::string::npos);
  EXPECT_NE(env.find("MESOS_EXECUTOR_ID=e1\n"), std::string::npos);
  EXPECT_NE(env.find("MESOS_DIRECTORY=" + directory + "\n"), std::string::npos);
  EXPECT_NE(env.find("MESOS_CHECKPOINT=0\n"), std::string::npos);
  EXPECT_NE(env.find("MESOS_RECOVERY_TIMEOUT="), std::string::npos);
  EXPECT_NE(env.find("LIBPROCESS_IP=127.0.0.1\n"), std::string::npos);

  // With its task's loss acknowledged, the executor and framework are done.
  json::Value s = state();
  EXPECT_TRUE(s["frameworks"].array().empty());
  ASSERT_EQ(s["completed_frameworks"].array().size(), 1u);
}

TEST_F(ExecutorTest, QueuedTasksGoToTheExecutorOnceItRegisters) {
  startRegisteredSlave();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  fromMaster(runTask(customTask("t2", "e1", "sleep 60")));
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");
  runtime_->settle();

  auto registered = executor->received<ExecutorRegisteredMessage>();
  ASSERT_EQ(registered.size(), 1u);
  EXPECT_EQ(registered[0].executor_info().executor_id().value(), "e1");
  EXPECT_EQ(registered[0].slave_id().value(), "S1");
  EXPECT_EQ(registered[0].framework_id().value(), "F1");
  auto tasks = executor->received<RunTaskMessage>();
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].task().task_id().value(), "t1");
  EXPECT_EQ(tasks[1].task().task_id().value(), "t2");
  EXPECT_EQ(tasks[0].pid(), "scheduler(1)@127.0.0.1:1");

  // A later task goes straight to it.
  fromMaster(runTask(customTask("t3", "e1", "sleep 60")));
  runtime_->settle();
  EXPECT_EQ(executor->received<RunTaskMessage>().size(), 3u);
  EXPECT_EQ(state()["frameworks"].array()[0]["executors"].array()[0]["tasks"].array().size(), 3u);
}

TEST_F(ExecutorTest, StatusUpdatesFlowToTheMasterInOrderAndAreAcknowledged) {
  startRegisteredSlave();
  master_->autoAcknowledge = false;
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");

  StatusUpdateMessage running = executorUpdate(executor, "e1", "t1", TASK_RUNNING);
  StatusUpdateMessage finished = executorUpdate(executor, "e1", "t1", TASK_FINISHED);
  executor->post(slave_.pid(), running);
  executor->post(slave_.pid(), finished);
  runtime_->settle();

  // The executor has both acknowledged by the slave; the master has only the first.
  auto acks = executor->received<StatusUpdateAcknowledgementMessage>();
  ASSERT_EQ(acks.size(), 2u);
  EXPECT_EQ(acks[0].uuid(), running.update().uuid());
  EXPECT_EQ(acks[1].uuid(), finished.update().uuid());
  auto updates = master_->updates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].uuid(), running.update().uuid());
  EXPECT_EQ(updates[0].status().uuid(), running.update().uuid());
  EXPECT_EQ(updates[0].status().source(), TaskStatus::SOURCE_EXECUTOR);
  EXPECT_EQ(updates[0].latest_state(), TASK_RUNNING);

  // Unacknowledged: sent again after 10 s, now telling the newest state.
  advance(10s);
  ASSERT_EQ(master_->updates().size(), 2u);
  EXPECT_EQ(master_->updates()[1].uuid(), running.update().uuid());
  EXPECT_EQ(master_->updates()[1].latest_state(), TASK_FINISHED);

  StatusUpdateAcknowledgementMessage ack;
  ack.mutable_slave_id()->set_value("S1");
  ack.mutable_framework_id()->set_value("F1");
  ack.mutable_task_id()->set_value("t1");
  ack.set_uuid(running.update().uuid());
  fromMaster(ack);
  runtime_->settle();
  updates = master_->updates();
  ASSERT_EQ(updates.size(), 3u);
  EXPECT_EQ(updates[2].uuid(), finished.update().uuid());

  ack.set_uuid(finished.update().uuid());
  fromMaster(ack);
  runtime_->settle();
  advance(1h);
  EXPECT_EQ(master_->updates().size(), 3u);
  auto pending = slave_->pendingStatusUpdates();
  ASSERT_TRUE(pending.await());
  EXPECT_EQ(pending.get(), 0u);
  json::Value executorState = state()["frameworks"].array()[0]["executors"].array()[0];
  EXPECT_TRUE(executorState["tasks"].array().empty());
  ASSERT_EQ(executorState["completed_tasks"].array().size(), 1u);
  EXPECT_EQ(executorState["completed_tasks"].array()[0]["state"].string(), "TASK_FINISHED");
}

// One executor (or anything else naming itself so) cannot end another's
// task: the update is dropped and not acknowledged.
TEST_F(ExecutorTest, UpdatesForATaskComeOnlyFromItsExecutor) {
  startRegisteredSlave();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  fromMaster(runTask(customTask("t2", "e2", "sleep 60")));
  runtime_->settle();
  auto* e1 = startExecutor("executor(e1)");
  auto* e2 = startExecutor("executor(e2)");
  registerExecutor(e1, "e1");
  registerExecutor(e2, "e2");
  auto* stranger = startExecutor("executor(stranger)");

  // e2 names t1 (under its own executor id, then under e1's); a stranger too.
  e2->post(slave_.pid(), executorUpdate(e2, "e2", "t1", TASK_FINISHED));
  e2->post(slave_.pid(), executorUpdate(e2, "e1", "t1", TASK_FINISHED));
  stranger->post(slave_.pid(), executorUpdate(stranger, "e1", "t1", TASK_FAILED));
  runtime_->settle();
  EXPECT_TRUE(master_->updates().empty());
  EXPECT_TRUE(e2->received<StatusUpdateAcknowledgementMessage>().empty());
  EXPECT_TRUE(stranger->received<StatusUpdateAcknowledgementMessage>().empty());

  // Its own executor still can.
  e1->post(slave_.pid(), executorUpdate(e1, "e1", "t1", TASK_RUNNING));
  runtime_->settle();
  ASSERT_EQ(1u, master_->updates().size());
  EXPECT_EQ(TASK_RUNNING, master_->updates()[0].status().state());
}

// A running executor's pid is not up for grabs: a re-registration in its
// name (outside recovery) is ignored, and its tasks stay with it.
TEST_F(ExecutorTest, ARunningExecutorCannotBeReregisteredBySomeoneElse) {
  startRegisteredSlave();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  auto* e1 = startExecutor("executor(e1)");
  registerExecutor(e1, "e1");
  auto* thief = startExecutor("executor(thief)");
  ReregisterExecutorMessage reregister;
  reregister.mutable_framework_id()->set_value("F1");
  reregister.mutable_executor_id()->set_value("e1");
  thief->post(slave_.pid(), reregister);
  runtime_->settle();
  EXPECT_TRUE(thief->received<ExecutorReregisteredMessage>().empty());
  EXPECT_EQ(e1->self().toString(), findExecutor("e1")["pid"].string());

  // The thief's updates for the task are not taken; the executor's are.
  thief->post(slave_.pid(), executorUpdate(thief, "e1", "t1", TASK_FINISHED));
  e1->post(slave_.pid(), executorUpdate(e1, "e1", "t1", TASK_RUNNING));
  runtime_->settle();
  ASSERT_EQ(1u, master_->updates().size());
  EXPECT_EQ(TASK_RUNNING, master_->updates()[0].status().state());
}

TEST_F(ExecutorTest, NoUpdateIsLostWhileTheMasterIsAway) {
  startRegisteredSlave();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");

  master_.reset();  // the slave notices through its link
  runtime_->settle();
  StatusUpdateMessage running = executorUpdate(executor, "e1", "t1", TASK_RUNNING);
  StatusUpdateMessage finished = executorUpdate(executor, "e1", "t1", TASK_FINISHED);
  executor->post(slave_.pid(), running);
  executor->post(slave_.pid(), finished);
  runtime_->settle();
  advance(1s);
  advance(2s);

  master_ = runtime_->spawn<FakeMaster>();
  auto reregistration = runtime_->hooks().await<ReregisterSlaveMessage>();
  advance(4s);
  advance(8s);
  ASSERT_TRUE(reregistration.isReady());
  ASSERT_EQ(reregistration.get().tasks_size(), 1u);
  EXPECT_EQ(reregistration.get().tasks(0).task_id().value(), "t1");
  EXPECT_EQ(reregistration.get().tasks(0).state(), TASK_FINISHED);
  // Neither update was forwarded: the master is told that TASK_RUNNING is
  // the one its framework gets next, so that it answers a reconciliation
  // with TASK_RUNNING, not with TASK_FINISHED ahead of the TASK_RUNNING
  // still on its way (the Jepsen checker caught this).
  EXPECT_EQ(reregistration.get().tasks(0).status_update_state(), TASK_RUNNING);
  EXPECT_EQ(reregistration.get().tasks(0).status_update_uuid(), running.update().uuid());
  ASSERT_EQ(reregistration.get().executor_infos_size(), 1u);
  ASSERT_EQ(reregistration.get().frameworks_size(), 1u);

  auto updates = master_->updates();
  ASSERT_EQ(updates.size(), 2u);
  EXPECT_EQ(updates[0].uuid(), running.update().uuid());
  EXPECT_EQ(updates[1].uuid(), finished.update().uuid());
}

TEST_F(ExecutorTest, KillingAQueuedTaskNeedsNoExecutor) {
  startRegisteredSlave();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  KillTaskMessage kill;
  kill.mutable_framework_id()->set_value("F1");
  kill.mutable_task_id()->set_value("t1");
  fromMaster(kill);
  runtime_->settle();
  auto updates = master_->updates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].status().state(), TASK_KILLED);
  EXPECT_EQ(updates[0].status().source(), TaskStatus::SOURCE_SLAVE);

  // The executor registering later gets no task.
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");
  EXPECT_EQ(executor->received<RunTaskMessage>().size(), 0u);
}

TEST_F(ExecutorTest, KillsOfLaunchedTasksGoToTheExecutor) {
  startRegisteredSlave();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");
  KillTaskMessage kill;
  kill.mutable_framework_id()->set_value("F1");
  kill.mutable_task_id()->set_value("t1");
  fromMaster(kill);
  runtime_->settle();
  auto kills = executor->received<KillTaskMessage>();
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].task_id().value(), "t1");
  EXPECT_TRUE(master_->updates().empty());
}

TEST_F(ExecutorTest, FrameworkMessagesAreRelayed) {
  startRegisteredSlave();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");

  FrameworkToExecutorMessage down;
  down.mutable_slave_id()->set_value("S1");
  down.mutable_framework_id()->set_value("F1");
  down.mutable_executor_id()->set_value("e1");
  down.set_data("to executor");
  fromMaster(down);
  runtime_->settle();
  auto received = executor->received<FrameworkToExecutorMessage>();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].data(), "to executor");

  // Upwards it goes to the scheduler's pid (here unreachable) unless the
  // framework has none; make it have none.
  UpdateFrameworkMessage update;
  update.mutable_framework_id()->set_value("F1");
  fromMaster(update);
  ExecutorToFrameworkMessage up;
  up.mutable_slave_id()->set_value("S1");
  up.mutable_framework_id()->set_value("F1");
  up.mutable_executor_id()->set_value("e1");
  up.set_data("to scheduler");
  executor->post(slave_.pid(), up);
  runtime_->settle();
  auto relayed = master_->frameworkMessages();
  ASSERT_EQ(relayed.size(), 1u);
  EXPECT_EQ(relayed[0].data(), "to scheduler");
}

TEST_F(ExecutorTest, ShutdownAsksTheExecutorThenSignalsItsProcessGroup) {
  Flags f = flags();
  f.executor_shutdown_grace_period = 2s;
  startRegisteredSlave(f);
  auto exited = runtime_->hooks().await<ExitedExecutorMessage>();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");

  ShutdownExecutorMessage shutdown;
  shutdown.mutable_framework_id()->set_value("F1");
  shutdown.mutable_executor_id()->set_value("e1");
  fromMaster(shutdown);
  runtime_->settle();
  EXPECT_EQ(executor->received<ShutdownExecutorMessage>().size(), 1u);
  EXPECT_EQ(state()["frameworks"].array()[0]["executors"].array()[0]["state"].string(),
            "TERMINATING");
  EXPECT_TRUE(exited.isPending());  // its process ignores the message (it is `sleep`)

  advance(2s);  // the grace period: SIGTERM
  ASSERT_TRUE(exited.await(std::chrono::seconds(30)));
  EXPECT_TRUE(WIFSIGNALED(exited.get().status()));
  EXPECT_EQ(WTERMSIG(exited.get().status()), SIGTERM);
  runtime_->settle();
  auto updates = master_->updates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].status().state(), TASK_LOST);  // a custom executor's task
}

TEST_F(ExecutorTest, AnExecutorThatNeverRegistersIsKilledAndItsTasksFail) {
  startRegisteredSlave();
  auto exited = runtime_->hooks().await<ExitedExecutorMessage>();
  auto failed = runtime_->hooks().await<StatusUpdateMessage>(slave_.pid(), master_.pid());
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  advance(59s);
  EXPECT_TRUE(exited.isPending());

  advance(1s);  // --executor_registration_timeout (1mins)
  ASSERT_TRUE(exited.await(std::chrono::seconds(30)));
  EXPECT_TRUE(WIFSIGNALED(exited.get().status()));
  EXPECT_EQ(WTERMSIG(exited.get().status()), SIGKILL);
  ASSERT_TRUE(failed.await(std::chrono::seconds(30)));
  EXPECT_EQ(failed.get().update().status().state(), TASK_FAILED);
  EXPECT_EQ(failed.get().update().status().reason(),
            TaskStatus::REASON_EXECUTOR_REGISTRATION_TIMEOUT);
}

TEST_F(ExecutorTest, CommandTasksWhoseExecutorDiesFailWithoutExitedExecutorMessage) {
  // A stand-in mesos-executor that dies at once.
  std::string launcherDir = workDir_ + "/launcher";
  ASSERT_EQ(::mkdir(launcherDir.c_str(), 0755), 0);
  {
    std::ofstream script(launcherDir + "/mesos-executor");
    script << "#!/bin/sh\nexit 7\n";
  }
  ASSERT_EQ(::chmod((launcherDir + "/mesos-executor").c_str(), 0755), 0);
  Flags f = flags();
  f.launcher_dir = launcherDir;
  startRegisteredSlave(f);
  auto exitedCount = runtime_->hooks().count<ExitedExecutorMessage>();
  auto failed = runtime_->hooks().await<StatusUpdateMessage>(slave_.pid(), master_.pid());
  fromMaster(runTask(commandTask("t1", "echo never")));
  runtime_->settle();

  EXPECT_FALSE(findExecutor("t1").isNull());  // named after its task
  ASSERT_TRUE(failed.await(std::chrono::seconds(30)));
  runtime_->settle();
  EXPECT_EQ(failed.get().update().status().task_id().value(), "t1");
  EXPECT_EQ(failed.get().update().status().state(), TASK_FAILED);
  EXPECT_NE(failed.get().update().status().message().find("exited with status 7"),
            std::string::npos);
  EXPECT_EQ(exitedCount->load(), 0u);
}

// A task whose executor is gone stays in the re-registration until its
// terminal update is acknowledged: otherwise a new master would answer a
// reconciliation with TASK_LOST, and the update (TASK_FAILED) would follow.
TEST_F(ExecutorTest, AnUnacknowledgedTaskOfAGoneExecutorIsReportedOnReregistration) {
  std::string launcherDir = workDir_ + "/launcher";
  ASSERT_EQ(::mkdir(launcherDir.c_str(), 0755), 0);
  {
    std::ofstream script(launcherDir + "/mesos-executor");
    script << "#!/bin/sh\nexit 7\n";
  }
  ASSERT_EQ(::chmod((launcherDir + "/mesos-executor").c_str(), 0755), 0);
  Flags f = flags();
  f.launcher_dir = launcherDir;
  startRegisteredSlave(f);
  master_->autoAcknowledge = false;
  auto failed = runtime_->hooks().await<StatusUpdateMessage>(slave_.pid(), master_.pid());
  fromMaster(runTask(commandTask("t1", "echo never")));
  runtime_->settle();
  ASSERT_TRUE(failed.await(std::chrono::seconds(30)));
  runtime_->settle();

  master_.reset();  // the slave notices through its link
  runtime_->settle();
  master_ = runtime_->spawn<FakeMaster>();
  auto reregistration = runtime_->hooks().await<ReregisterSlaveMessage>();
  advance(2s);
  advance(4s);
  ASSERT_TRUE(reregistration.isReady());
  ASSERT_EQ(reregistration.get().tasks_size(), 1);
  EXPECT_EQ(reregistration.get().tasks(0).task_id().value(), "t1");
  EXPECT_EQ(reregistration.get().tasks(0).state(), TASK_FAILED);
  EXPECT_EQ(reregistration.get().executor_infos_size(), 0);  // command executor, and gone
}

TEST_F(ExecutorTest, AnExecutorThatCannotStartFailsItsTask) {
  startRegisteredSlave();
  TaskInfo task = customTask("t1", "e1", "/nonexistent/program");
  task.mutable_executor()->mutable_command()->set_shell(false);
  fromMaster(runTask(task));
  runtime_->settle();
  auto updates = master_->updates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].status().state(), TASK_FAILED);
  EXPECT_EQ(updates[0].status().reason(), TaskStatus::REASON_CONTAINER_LAUNCH_FAILED);
}

TEST_F(ExecutorTest, ShutdownFrameworkStopsItsExecutorsWithoutUpdates) {
  Flags f = flags();
  f.executor_shutdown_grace_period = 1s;
  startRegisteredSlave(f);
  auto exited = runtime_->hooks().await<ExitedExecutorMessage>();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  ShutdownFrameworkMessage shutdown;
  shutdown.mutable_framework_id()->set_value("F1");
  fromMaster(shutdown);
  runtime_->settle();  // unregistered executor: SIGTERM at once
  ASSERT_TRUE(exited.await(std::chrono::seconds(30)));
  runtime_->settle();
  EXPECT_TRUE(master_->updates().empty());
  json::Value s = state();
  EXPECT_TRUE(s["frameworks"].array().empty());
  EXPECT_EQ(s["completed_frameworks"].array().size(), 1u);
}

// Found by the Jepsen-style run (tests/jepsen/): after the master shuts a
// framework down here (it was told TASK_LOST for its tasks), what its
// executor reports while it stops (the kill's TASK_KILLED) is acknowledged
// to the executor but never sent to the master.
TEST_F(ExecutorTest, UpdatesOfAFrameworkShutDownHereAreDropped) {
  Flags f = flags();
  f.executor_shutdown_grace_period = 1s;
  startRegisteredSlave(f);
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");
  executor->post(slave_.pid(), executorUpdate(executor, "e1", "t1", TASK_RUNNING));
  runtime_->settle();
  ASSERT_EQ(1u, master_->updates().size());

  ShutdownFrameworkMessage shutdown;
  shutdown.mutable_framework_id()->set_value("F1");
  fromMaster(shutdown);
  runtime_->settle();
  StatusUpdateMessage killed = executorUpdate(executor, "e1", "t1", TASK_KILLED);
  executor->post(slave_.pid(), killed);
  runtime_->settle();
  EXPECT_EQ(1u, master_->updates().size()) << "an update of a framework shut down went out";
  auto acks = executor->received<StatusUpdateAcknowledgementMessage>();
  ASSERT_FALSE(acks.empty());
  EXPECT_EQ(killed.update().uuid(), acks.back().uuid());
}

// Found by the Jepsen-style run (tests/jepsen/): the master shut a
// checkpointing framework down here (it had told the framework TASK_LOST)
// while the task's TASK_FINISHED was not yet acknowledged, and the slave
// restarted before its executor was gone. The restarted slave must neither
// send that TASK_FINISHED nor keep the executor: the framework would see a
// second terminal state.
TEST_F(ExecutorTest, AFrameworkShutDownHereStaysShutDownAcrossARestart) {
  Flags f = flags();
  f.executor_shutdown_grace_period = 1s;
  startRegisteredSlave(f);
  master_->autoAcknowledge = false;
  RunTaskMessage run = runTask(customTask("t1", "e1", "sleep 60"));
  run.mutable_framework()->set_checkpoint(true);
  fromMaster(run);
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");
  executor->post(slave_.pid(), executorUpdate(executor, "e1", "t1", TASK_FINISHED));
  runtime_->settle();
  ASSERT_EQ(1u, master_->updates().size());

  ShutdownFrameworkMessage shutdown;
  shutdown.mutable_framework_id()->set_value("F1");
  fromMaster(shutdown);
  runtime_->settle();
  slave_.reset();
  runtime_->settle();

  auto reregistration = runtime_->hooks().await<ReregisterSlaveMessage>();
  startSlave(f);
  runtime_->settle();
  advance(2s);
  advance(4s);
  ASSERT_TRUE(reregistration.isReady());
  EXPECT_EQ(0, reregistration.get().tasks_size());
  EXPECT_EQ(0, reregistration.get().frameworks_size());
  advance(20s);  // past the update retry interval
  EXPECT_EQ(1u, master_->updates().size()) << "a recovered update of a framework shut down went out";
  EXPECT_TRUE(state()["frameworks"].array().empty());
}

// The whole path with the real command executor.
TEST_F(ExecutorTest, CommandTaskRunsUnderTheCommandExecutor) {
  if (::access(MESOS_EXECUTOR_PATH, X_OK) != 0) GTEST_SKIP() << "no " << MESOS_EXECUTOR_PATH;
  startRegisteredSlave();
  auto exitedCount = runtime_->hooks().count<ExitedExecutorMessage>();
  fromMaster(runTask(commandTask("t1", "echo hello from the task")));
  runtime_->settle();

  awaitTerminalUpdate();
  auto updates = master_->updates();
  ASSERT_GE(updates.size(), 2u);
  EXPECT_EQ(updates.front().status().state(), TASK_RUNNING);
  EXPECT_EQ(updates.back().status().state(), TASK_FINISHED);
  std::string directory = executorDirectory("t1");
  ASSERT_FALSE(directory.empty());
  EXPECT_NE(readFile(directory + "/stdout").find("hello from the task"), std::string::npos);
  EXPECT_EQ(exitedCount->load(), 0u);
}

// UPDATE_FRAMEWORK reaches the slaves running the framework's tasks: the
// slave takes the new FrameworkInfo (its /state shows it) and checkpoints it
// for its next start; one naming another framework, or changing
// `checkpoint`, is not taken.
TEST_F(ExecutorTest, AnUpdatedFrameworkInfoIsShownAndCheckpointed) {
  startRegisteredSlave();
  RunTaskMessage run = runTask(customTask("t1", "e1", "sleep 60"));
  run.mutable_framework()->set_checkpoint(true);
  fromMaster(run);
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");

  FrameworkInfo renamed = run.framework();
  renamed.set_name("renamed");
  renamed.clear_role();
  renamed.add_roles("a");
  renamed.add_roles("b");
  renamed.add_capabilities()->set_type(FrameworkInfo::Capability::MULTI_ROLE);
  UpdateFrameworkMessage update;
  update.mutable_framework_id()->set_value("F1");
  update.set_pid("scheduler(2)@127.0.0.1:1");
  *update.mutable_framework_info() = renamed;
  fromMaster(update);
  runtime_->settle();
  json::Value framework = state()["frameworks"].array().at(0);
  EXPECT_EQ("renamed", framework["name"].string());
  ASSERT_EQ(2u, framework["roles"].array().size());
  EXPECT_EQ("b", framework["roles"].array().at(1).string());
  EXPECT_EQ("scheduler(2)@127.0.0.1:1", framework["pid"].string());
  FrameworkInfo checkpointed;
  auto read = checkpoint::read(meta::frameworkInfoPath(workDir_, "S1", "F1"), &checkpointed);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ("renamed", checkpointed.name());
  EXPECT_EQ(2, checkpointed.roles_size());

  // Not from the master (here, from the executor's address): nothing is
  // taken, neither the pid nor another user.
  UpdateFrameworkMessage forged = update;
  forged.set_pid("scheduler(9)@127.0.0.1:9");
  forged.mutable_framework_info()->set_name("forged");
  executor->post(slave_.pid(), forged);
  runtime_->settle();
  EXPECT_EQ("renamed", state()["frameworks"].array().at(0)["name"].string());
  EXPECT_EQ("scheduler(2)@127.0.0.1:1", state()["frameworks"].array().at(0)["pid"].string());

  // Another framework's info, or one that stops checkpointing or changes
  // its user: the pid is taken, the info is not.
  FrameworkInfo other = renamed;
  other.set_name("other");
  other.mutable_id()->set_value("F2");
  *update.mutable_framework_info() = other;
  fromMaster(update);
  FrameworkInfo unchecked = renamed;
  unchecked.set_name("unchecked");
  unchecked.set_checkpoint(false);
  *update.mutable_framework_info() = unchecked;
  fromMaster(update);
  FrameworkInfo root = renamed;
  root.set_name("root");
  root.set_user("root-or-anyone");
  *update.mutable_framework_info() = root;
  fromMaster(update);
  runtime_->settle();
  EXPECT_EQ("renamed", state()["frameworks"].array().at(0)["name"].string());
  ASSERT_TRUE(checkpoint::read(meta::frameworkInfoPath(workDir_, "S1", "F1"), &checkpointed).ok());
  EXPECT_EQ("renamed", checkpointed.name());
}

}  // namespace
}  // namespace mesos::internal::slave::test
