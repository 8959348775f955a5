// A draining slave (docs/draining.md): DrainSlaveMessage from the master
// makes it kill every task with the drain's grace period, refuse new tasks,
// mark its executors' KILLED updates as the drain's, and drain on after a
// restart until nothing is left.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>

#include "slave/meta.hpp"
#include "slave/slave_fixture.hpp"

namespace mesos::internal::slave::test {
namespace {

using namespace std::chrono_literals;

class SlaveDrainingTest : public SlaveTestBase {
 protected:
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

  static DrainSlaveMessage drain(std::optional<int64_t> graceNanos, bool markGone = false) {
    DrainSlaveMessage message;
    if (graceNanos) message.mutable_config()->mutable_max_grace_period()->set_nanoseconds(*graceNanos);
    message.mutable_config()->set_mark_gone(markGone);
    return message;
  }

  std::string drainConfigPath() const { return meta::drainConfigPath(workDir_, "S1"); }
};

// The running task is killed with the drain's grace period; its KILLED
// update carries REASON_SLAVE_DRAINING; a task sent meanwhile is dropped;
// once nothing is left the checkpointed config goes.
TEST_F(SlaveDrainingTest, KillsTasksWithTheGracePeriodAndRefusesNewOnes) {
  startRegisteredSlave();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");
  executor->post(slave_.pid(), executorUpdate(executor->self(), "e1", "t1", TASK_RUNNING));
  runtime_->settle();
  ASSERT_EQ(1u, executor->received<RunTaskMessage>().size());

  fromMaster(drain(2000000000));
  runtime_->settle();
  auto kills = executor->received<KillTaskMessage>();
  ASSERT_EQ(1u, kills.size());
  EXPECT_EQ("t1", kills[0].task_id().value());
  ASSERT_TRUE(kills[0].has_kill_policy());
  EXPECT_EQ(2000000000, kills[0].kill_policy().grace_period().nanoseconds());
  EXPECT_TRUE(std::filesystem::exists(drainConfigPath()));

  // A new task is dropped (TASK_LOST: the framework is not partition-aware).
  fromMaster(runTask(customTask("t2", "e2", "sleep 60")));
  runtime_->settle();
  auto updates = master_->updates();
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ("t2", updates.back().status().task_id().value());
  EXPECT_EQ(TASK_LOST, updates.back().status().state());
  EXPECT_EQ(TaskStatus::REASON_SLAVE_DRAINING, updates.back().status().reason());
  EXPECT_EQ(1u, executor->received<RunTaskMessage>().size());

  // The executor ends the task: the update says it was the drain.
  executor->post(slave_.pid(), executorUpdate(executor->self(), "e1", "t1", TASK_KILLED));
  runtime_->settle();
  updates = master_->updates();
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ("t1", updates.back().status().task_id().value());
  EXPECT_EQ(TASK_KILLED, updates.back().status().state());
  EXPECT_EQ(TaskStatus::REASON_SLAVE_DRAINING, updates.back().status().reason());
}

// Without max_grace_period the kill carries no policy (the executor's own
// grace); a partition-aware framework's task sent meanwhile is
// TASK_DROPPED, and with mark_gone its KILLED becomes TASK_GONE_BY_OPERATOR.
TEST_F(SlaveDrainingTest, WithoutAGracePeriodTheExecutorsOwnAndMarkGone) {
  startRegisteredSlave();
  RunTaskMessage run = runTask(customTask("t1", "e1", "sleep 60"));
  run.mutable_framework()->add_capabilities()->set_type(
      FrameworkInfo::Capability::PARTITION_AWARE);
  fromMaster(run);
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");
  fromMaster(drain(std::nullopt, true));
  runtime_->settle();
  auto kills = executor->received<KillTaskMessage>();
  ASSERT_EQ(1u, kills.size());
  EXPECT_FALSE(kills[0].has_kill_policy());

  RunTaskMessage late = runTask(customTask("t2", "e2", "sleep 60"));
  *late.mutable_framework() = run.framework();
  fromMaster(late);
  runtime_->settle();
  auto updates = master_->updates();
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(TASK_DROPPED, updates.back().status().state());
  EXPECT_EQ(TaskStatus::REASON_SLAVE_DRAINING, updates.back().status().reason());

  executor->post(slave_.pid(), executorUpdate(executor->self(), "e1", "t1", TASK_KILLED));
  runtime_->settle();
  updates = master_->updates();
  EXPECT_EQ(TASK_GONE_BY_OPERATOR, updates.back().status().state());
}

// An idle slave is drained at once: nothing is checkpointed, tasks are
// taken again.
TEST_F(SlaveDrainingTest, AnIdleSlaveIsDrainedAtOnce) {
  startRegisteredSlave();
  fromMaster(drain(0));
  runtime_->settle();
  EXPECT_FALSE(std::filesystem::exists(drainConfigPath()));
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  EXPECT_TRUE(master_->updates().empty()) << "the task was refused";
}

// A slave restarted while draining drains on: its executor, once it
// re-registers, is told to kill its task, with the checkpointed grace.
TEST_F(SlaveDrainingTest, ARestartedSlaveDrainsOn) {
  startRegisteredSlave();
  RunTaskMessage run = runTask(customTask("t1", "e1", "sleep 60"));
  run.mutable_framework()->set_checkpoint(true);
  fromMaster(run);
  runtime_->settle();
  auto* executor = startExecutor("executor(e1)");
  registerExecutor(executor, "e1");
  executor->post(slave_.pid(), executorUpdate(executor->self(), "e1", "t1", TASK_RUNNING));
  runtime_->settle();
  fromMaster(drain(3000000000));
  runtime_->settle();
  ASSERT_EQ(1u, executor->received<KillTaskMessage>().size());
  ASSERT_TRUE(std::filesystem::exists(drainConfigPath()));

  // The slave restarts (its executor's process lives on); the executor
  // re-registers and is told again.
  slave_.reset();
  runtime_->settle();
  startSlave(flags());
  runtime_->settle();
  ReregisterExecutorMessage again;
  again.mutable_framework_id()->set_value("F1");
  again.mutable_executor_id()->set_value("e1");
  TaskInfo task = customTask("t1", "e1", "sleep 60");
  *again.add_tasks() = task;
  executor->post(slave_.pid(), again);
  runtime_->settle();
  auto kills = executor->received<KillTaskMessage>();
  ASSERT_EQ(2u, kills.size()) << "the drain resumed";
  EXPECT_EQ(3000000000, kills[1].kill_policy().grace_period().nanoseconds());

  // A task sent meanwhile is refused.
  fromMaster(runTask(customTask("t2", "e2", "sleep 60")));
  runtime_->settle();
  auto updates = master_->updates();
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(TaskStatus::REASON_SLAVE_DRAINING, updates.back().status().reason());

  // The executor's process (sleep) goes with the slave.
  ShutdownMessage shutdown;
  shutdown.set_message("test over");
  fromMaster(shutdown);
  runtime_->settle();
}

// A task's own kill policy counts (Apache's rule): the drain's kill carries
// max_grace_period only when the task's grace is unset or longer, so each
// task gets the shorter of the two.
TEST_F(SlaveDrainingTest, EachTaskGetsTheShorterOfItsKillPolicyAndTheDrains) {
  startRegisteredSlave();
  auto withGrace = [](TaskInfo task, std::optional<int64_t> graceNanos) {
    if (graceNanos) task.mutable_kill_policy()->mutable_grace_period()->set_nanoseconds(*graceNanos);
    return task;
  };
  fromMaster(runTask(withGrace(customTask("short", "e1", "sleep 60"), 1000000000)));
  fromMaster(runTask(withGrace(customTask("long", "e2", "sleep 60"), 10000000000)));
  fromMaster(runTask(withGrace(customTask("none", "e3", "sleep 60"), std::nullopt)));
  runtime_->settle();
  std::map<std::string, mesos::test::Peer*> executors;
  for (const std::string id : {"e1", "e2", "e3"}) {
    executors[id] = startExecutor("executor(" + id + ")");
    registerExecutor(executors[id], id);
  }
  fromMaster(drain(5000000000));
  runtime_->settle();
  auto killOf = [&](const std::string& executorId) {
    auto kills = executors[executorId]->received<KillTaskMessage>();
    EXPECT_EQ(1u, kills.size()) << executorId;
    return kills.empty() ? KillTaskMessage() : kills[0];
  };
  EXPECT_FALSE(killOf("e1").has_kill_policy()) << "its own 1 s is shorter than the drain's 5 s";
  EXPECT_EQ(5000000000, killOf("e2").kill_policy().grace_period().nanoseconds());
  EXPECT_EQ(5000000000, killOf("e3").kill_policy().grace_period().nanoseconds());

  ShutdownMessage shutdown;
  shutdown.set_message("test over");
  fromMaster(shutdown);
  runtime_->settle();
}

// The slave declares what it can do when it registers and re-registers:
// AGENT_DRAINING, so that the master lets operators drain it, and the
// roles it takes (MULTI_ROLE frameworks, hierarchical roles, refined
// reservations), without which the master offers it to none of those.
TEST_F(SlaveDrainingTest, TheSlaveDeclaresItsCapabilities) {
  const std::vector<SlaveInfo::Capability::Type> expected = {
      SlaveInfo::Capability::MULTI_ROLE, SlaveInfo::Capability::HIERARCHICAL_ROLE,
      SlaveInfo::Capability::RESERVATION_REFINEMENT, SlaveInfo::Capability::AGENT_DRAINING};
  auto types = [](const auto& capabilities) {
    std::vector<SlaveInfo::Capability::Type> out;
    for (const SlaveInfo::Capability& capability : capabilities) out.push_back(capability.type());
    return out;
  };
  auto registering = runtime_->hooks().await<RegisterSlaveMessage>();
  startRegisteredSlave();
  ASSERT_TRUE(registering.isReady());
  EXPECT_EQ(expected, types(registering.get().agent_capabilities()));

  auto reregistering = runtime_->hooks().await<ReregisterSlaveMessage>();
  slave_.reset();
  runtime_->settle();
  startSlave(flags());
  runtime_->settle();
  ASSERT_TRUE(reregistering.isReady());
  EXPECT_EQ(expected, types(reregistering.get().agent_capabilities()));
}

}  // namespace
}  // namespace mesos::internal::slave::test
