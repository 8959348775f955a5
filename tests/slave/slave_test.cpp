// The slave against a fake master: registration with backoff,
// re-registration after the master goes away, health checks, bad input,
// and /state.
#include <algorithm>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "slave/slave_fixture.hpp"
#include "support/net.hpp"

namespace mesos::internal::slave::test {
namespace {

using namespace std::chrono_literals;

class SlaveTest : public SlaveTestBase {};

TEST_F(SlaveTest, RegistersWithItsResourcesAndVersion) {
  auto registration = runtime_->hooks().await<RegisterSlaveMessage>();
  startRegisteredSlave();
  ASSERT_TRUE(registration.isReady());
  const RegisterSlaveMessage& message = registration.get();
  EXPECT_EQ(message.version(), std::string(kVersion));
  EXPECT_GE(message.version(), std::string("1.0.0"));
  Resources resources(message.slave().resources());
  EXPECT_EQ(resources.scalar("cpus"), 2);
  EXPECT_EQ(resources.scalar("mem"), 1024);
  EXPECT_EQ(resources.scalar("disk"), 4096);
  ASSERT_EQ(message.slave().attributes_size(), 2);
  EXPECT_EQ(message.slave().attributes(0).name(), "rack");
  EXPECT_EQ(message.slave().attributes(0).text().value(), "r1");
  EXPECT_EQ(message.slave().port(), slave_.pid().address.port);
  EXPECT_FALSE(message.slave().has_id());

  EXPECT_EQ(slaveInfo().id().value(), "S1");
}

TEST_F(SlaveTest, RetriesRegistrationWithBackoffUntilAnswered) {
  auto dropped = runtime_->hooks().drop<SlaveRegisteredMessage>();
  auto attempts = runtime_->hooks().count<RegisterSlaveMessage>();
  startSlave(flags());
  runtime_->settle();
  EXPECT_EQ(attempts->load(), 1u);

  // The bound starts at --registration_backoff_factor (1 s) and doubles; each
  // wait is in [bound/2, bound].
  advance(1s);
  EXPECT_EQ(attempts->load(), 2u);
  advance(2s);
  EXPECT_EQ(attempts->load(), 3u);
  advance(4s);
  EXPECT_EQ(attempts->load(), 4u);
  // Never more often than half the bound.
  advance(3900ms);
  EXPECT_EQ(attempts->load(), 4u);
  advance(4100ms);
  EXPECT_EQ(attempts->load(), 5u);
  EXPECT_FALSE(slaveInfo().has_id());

  runtime_->hooks().remove(dropped);
  advance(16s);
  EXPECT_EQ(attempts->load(), 6u);
  EXPECT_EQ(slaveInfo().id().value(), "S1");
  advance(10min);  // registered: no more attempts
  EXPECT_EQ(attempts->load(), 6u);
}

TEST_F(SlaveTest, BackoffIsCappedAtOneMinute) {
  master_->autoRegister = false;
  auto attempts = runtime_->hooks().count<RegisterSlaveMessage>();
  startSlave(flags());
  runtime_->settle();
  for (auto step : {1s, 2s, 4s, 8s, 16s, 32s}) advance(step);
  EXPECT_EQ(attempts->load(), 7u);
  // From now on the bound stays at 60 s: one attempt every 30-60 s.
  advance(60s);
  EXPECT_EQ(attempts->load(), 8u);
  advance(60s);
  EXPECT_EQ(attempts->load(), 9u);
}

TEST_F(SlaveTest, AnswersPings) {
  startRegisteredSlave();
  auto pong = runtime_->hooks().await<PongSlaveMessage>(slave_.pid(), master_.pid());
  PingSlaveMessage ping;
  ping.set_connected(true);
  fromMaster(ping);
  runtime_->settle();
  EXPECT_TRUE(pong.isReady());
}

TEST_F(SlaveTest, ReregistersWhenTheMasterSaysItIsDisconnected) {
  startRegisteredSlave();
  auto reregistration = runtime_->hooks().await<ReregisterSlaveMessage>();
  PingSlaveMessage ping;
  ping.set_connected(false);
  fromMaster(ping);
  runtime_->settle();
  ASSERT_TRUE(reregistration.isReady());
  EXPECT_EQ(reregistration.get().slave().id().value(), "S1");
  EXPECT_EQ(reregistration.get().version(), std::string(kVersion));
}

// Found by the Jepsen-style run (tests/jepsen/): a task the master holds and
// the slave never got (it was killed right after the launch) is
// TASK_DROPPED for a partition-aware framework, TASK_LOST for another (or
// when the master does not name the framework).
TEST_F(SlaveTest, TasksOnlyTheMasterKnowsAreDroppedOrLost) {
  startRegisteredSlave();
  master_->autoRegister = false;
  auto reregistration = runtime_->hooks().await<ReregisterSlaveMessage>();
  PingSlaveMessage ping;
  ping.set_connected(false);
  fromMaster(ping);
  runtime_->settle();
  ASSERT_TRUE(reregistration.isReady());

  SlaveReregisteredMessage reply;
  reply.mutable_slave_id()->set_value("S1");
  ReconcileTasksMessage* aware = reply.add_reconciliations();
  aware->mutable_framework_id()->set_value("F1");
  aware->mutable_framework()->set_user("u");
  aware->mutable_framework()->set_name("aware");
  aware->mutable_framework()->add_capabilities()->set_type(
      FrameworkInfo::Capability::PARTITION_AWARE);
  aware->add_statuses()->mutable_task_id()->set_value("ta");
  aware->mutable_statuses(0)->set_state(TASK_RUNNING);
  ReconcileTasksMessage* plain = reply.add_reconciliations();
  plain->mutable_framework_id()->set_value("F2");
  plain->add_statuses()->mutable_task_id()->set_value("tp");
  plain->mutable_statuses(0)->set_state(TASK_RUNNING);
  fromMaster(reply);
  runtime_->settle();

  auto updates = master_->updates();
  ASSERT_EQ(2u, updates.size());
  EXPECT_EQ("ta", updates[0].status().task_id().value());
  EXPECT_EQ(TASK_DROPPED, updates[0].status().state());
  EXPECT_EQ(TaskStatus::REASON_RECONCILIATION, updates[0].status().reason());
  EXPECT_EQ("tp", updates[1].status().task_id().value());
  EXPECT_EQ(TASK_LOST, updates[1].status().state());
}

TEST_F(SlaveTest, ReregistersWithAMasterThatComesBack) {
  startRegisteredSlave();
  auto attempts = runtime_->hooks().count<ReregisterSlaveMessage>();
  master_.reset();  // the slave's link fires
  runtime_->settle();
  EXPECT_GE(attempts->load(), 1u);  // sent into the void
  advance(1s);
  advance(2s);
  uint64_t before = attempts->load();
  EXPECT_GE(before, 2u);

  master_ = runtime_->spawn<FakeMaster>();
  auto reregistered = runtime_->hooks().await<SlaveReregisteredMessage>();
  advance(4s);
  ASSERT_TRUE(reregistered.isReady());
  EXPECT_EQ(reregistered.get().slave_id().value(), "S1");
  uint64_t after = attempts->load();
  advance(10min);
  EXPECT_EQ(attempts->load(), after);
  EXPECT_EQ(state()["registered"].boolean(), true);
}

TEST_F(SlaveTest, ReregistersAfterMissingPings) {
  auto registered = runtime_->hooks().await<SlaveRegisteredMessage>();
  master_->autoRegister = false;
  startSlave(flags());
  runtime_->settle();
  SlaveRegisteredMessage reply;
  reply.mutable_slave_id()->set_value("S1");
  reply.mutable_connection()->set_total_ping_timeout_seconds(75);
  fromMaster(reply);
  runtime_->settle();
  ASSERT_TRUE(registered.isReady());

  auto reregistration = runtime_->hooks().count<ReregisterSlaveMessage>();
  advance(60s);
  PingSlaveMessage ping;
  ping.set_connected(true);
  fromMaster(ping);  // resets the timer
  runtime_->settle();
  advance(60s);
  EXPECT_EQ(reregistration->load(), 0u);
  advance(16s);
  EXPECT_EQ(reregistration->load(), 1u);
}

TEST_F(SlaveTest, IgnoresRegistrationFromAnyoneButTheMaster) {
  master_->autoRegister = false;
  startSlave(flags());
  runtime_->settle();
  auto stranger = runtime_->spawn<mesos::test::Peer>("stranger");
  SlaveRegisteredMessage reply;
  reply.mutable_slave_id()->set_value("S666");
  runtime_->send(stranger.pid(), slave_.pid(), reply);
  runtime_->settle();
  EXPECT_FALSE(slaveInfo().has_id());
}

// A disconnected slave takes "master" at another address and the master's
// port for its master only when both addresses are this machine's (a master
// reached at 127.0.0.1 answering from the host's address); from another
// host (127.0.0.2 stands for one) anyone could listen on that port.
TEST_F(SlaveTest, FollowsAMasterAnsweringFromAnotherAddressOnlyOnThisMachine) {
  if (!mesos::test::loopbackAliasesWork()) GTEST_SKIP() << "cannot bind 127.0.0.2 here";
  master_->autoRegister = false;
  startSlave(flags());
  runtime_->settle();
  uint16_t port = runtime_->address().port;
  auto registerFrom = [&](const std::string& ip, const std::string& slaveId) {
    process::Runtime::Options options;
    options.ip = ip;
    options.port = port;
    auto there = process::Runtime::create(options);
    if (!there.ok()) return std::string("cannot listen on " + ip + ": " + there.error().message);
    auto impostor = (*there)->spawn<mesos::test::Peer>("master");
    SlaveRegisteredMessage reply;
    reply.mutable_slave_id()->set_value(slaveId);
    auto arrived = runtime_->hooks().await<SlaveRegisteredMessage>(impostor.pid(), slave_.pid());
    (*there)->send(impostor.pid(), slave_.pid(), reply);
    if (!arrived.await()) return std::string("the message did not arrive");
    runtime_->settle();
    return std::string();
  };
  ASSERT_EQ("", registerFrom("127.0.0.2", "S666"));
  EXPECT_FALSE(slaveInfo().has_id()) << "followed a master on another host";

  // Another address of this machine's interfaces than the master's.
  uint32_t other = 0;
  for (uint32_t ip : process::Runtime::localAddresses()) {
    if (ip != runtime_->address().ip) other = ip;
  }
  if (other == 0) GTEST_SKIP() << "this machine has one address only";
  ASSERT_EQ("", registerFrom(process::Address{other, 0}.ipString(), "S1"));
  EXPECT_EQ("S1", slaveInfo().id().value());
}

TEST_F(SlaveTest, SurvivesMessagesAboutUnknownThings) {
  startRegisteredSlave();
  FrameworkID unknown;
  unknown.set_value("nope");

  KillTaskMessage kill;
  *kill.mutable_framework_id() = unknown;
  kill.mutable_task_id()->set_value("t");
  fromMaster(kill);

  ShutdownFrameworkMessage shutdownFramework;
  *shutdownFramework.mutable_framework_id() = unknown;
  fromMaster(shutdownFramework);

  ShutdownExecutorMessage shutdownExecutor;
  *shutdownExecutor.mutable_framework_id() = unknown;
  shutdownExecutor.mutable_executor_id()->set_value("e");
  fromMaster(shutdownExecutor);
  fromMaster(ShutdownExecutorMessage());  // no ids at all

  FrameworkToExecutorMessage toExecutor;
  toExecutor.mutable_slave_id()->set_value("S1");
  *toExecutor.mutable_framework_id() = unknown;
  toExecutor.mutable_executor_id()->set_value("e");
  toExecutor.set_data("hi");
  fromMaster(toExecutor);

  StatusUpdateAcknowledgementMessage ack;
  ack.mutable_slave_id()->set_value("S1");
  *ack.mutable_framework_id() = unknown;
  ack.mutable_task_id()->set_value("t");
  ack.set_uuid("0123456789abcdef");
  fromMaster(ack);

  UpdateFrameworkMessage update;
  *update.mutable_framework_id() = unknown;
  fromMaster(update);

  RunTaskMessage incomplete;  // required fields missing
  incomplete.mutable_task()->set_name("x");
  fromMaster(incomplete);

  // An executor nobody launched is told to shut down.
  auto* executor = startExecutor("executor-stranger");
  auto shutdown = runtime_->hooks().await<ShutdownExecutorMessage>(slave_.pid(), executor->self());
  RegisterExecutorMessage registration;
  *registration.mutable_framework_id() = unknown;
  registration.mutable_executor_id()->set_value("e");
  executor->post(slave_.pid(), registration);

  StatusUpdateMessage statusUpdate;
  *statusUpdate.mutable_update()->mutable_framework_id() = unknown;
  statusUpdate.mutable_update()->mutable_status()->mutable_task_id()->set_value("t");
  statusUpdate.mutable_update()->mutable_status()->set_state(TASK_RUNNING);
  statusUpdate.mutable_update()->set_timestamp(1);
  executor->post(slave_.pid(), statusUpdate);

  ExecutorToFrameworkMessage toFramework;
  toFramework.mutable_slave_id()->set_value("S1");
  *toFramework.mutable_framework_id() = unknown;
  toFramework.mutable_executor_id()->set_value("e");
  toFramework.set_data("hi");
  executor->post(slave_.pid(), toFramework);
  runtime_->settle();

  EXPECT_TRUE(shutdown.isReady());
  EXPECT_TRUE(master_->updates().empty());
  EXPECT_TRUE(master_->frameworkMessages().empty());

  // Still serving.
  auto pong = runtime_->hooks().await<PongSlaveMessage>();
  PingSlaveMessage ping;
  ping.set_connected(true);
  fromMaster(ping);
  runtime_->settle();
  EXPECT_TRUE(pong.isReady());
}

TEST_F(SlaveTest, KillOfAnUnknownTaskOfAKnownFrameworkIsLost) {
  startRegisteredSlave();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();
  KillTaskMessage kill;
  kill.mutable_framework_id()->set_value("F1");
  kill.mutable_task_id()->set_value("ghost");
  fromMaster(kill);
  runtime_->settle();
  auto updates = master_->updates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].status().task_id().value(), "ghost");
  EXPECT_EQ(updates[0].status().state(), TASK_LOST);
  EXPECT_EQ(updates[0].status().source(), TaskStatus::SOURCE_SLAVE);
}

TEST_F(SlaveTest, RefusesTasksWithoutExecutorOrCommand) {
  startRegisteredSlave();
  TaskInfo task = commandTask("t1", "true");
  task.clear_command();
  fromMaster(runTask(task));
  runtime_->settle();
  auto updates = master_->updates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].status().state(), TASK_ERROR);
  EXPECT_EQ(updates[0].status().reason(), TaskStatus::REASON_TASK_INVALID);
  EXPECT_TRUE(state()["frameworks"].array().empty());
}

TEST_F(SlaveTest, TasksSentBeforeRegistrationAreLost) {
  master_->autoRegister = false;
  startSlave(flags());
  runtime_->settle();
  fromMaster(runTask(commandTask("t1", "true")));
  runtime_->settle();
  EXPECT_TRUE(master_->updates().empty());  // held until registered

  SlaveRegisteredMessage reply;
  reply.mutable_slave_id()->set_value("S1");
  fromMaster(reply);
  runtime_->settle();
  auto updates = master_->updates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].status().state(), TASK_LOST);
  EXPECT_EQ(updates[0].slave_id().value(), "S1");
}

TEST_F(SlaveTest, StateAndHealthEndpointsRender) {
  startRegisteredSlave();
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  runtime_->settle();

  std::string body;
  ASSERT_EQ(mesos::test::httpGet(runtime_->address(), "/" + slave_.pid().id + "/health", &body),
            200);
  ASSERT_EQ(mesos::test::httpGet(runtime_->address(), "/" + slave_.pid().id + "/state", &body),
            200);
  auto parsed = json::parse(body);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message << ": " << body;
  const json::Value& state = *parsed;
  EXPECT_EQ(state["id"].string(), "S1");
  EXPECT_EQ(state["pid"].string(), slave_.pid().toString());
  EXPECT_EQ(state["resources"]["cpus"].number(), 2);
  EXPECT_EQ(state["resources"]["mem"].number(), 1024);
  EXPECT_EQ(state["resources"]["ports"].string(), "[31000-31099]");
  EXPECT_EQ(state["attributes"]["rack"].string(), "r1");
  EXPECT_EQ(state["flags"]["work_dir"].string(), workDir_);
  ASSERT_EQ(state["frameworks"].array().size(), 1u);
  const json::Value& framework = state["frameworks"].array()[0];
  EXPECT_EQ(framework["id"].string(), "F1");
  ASSERT_EQ(framework["executors"].array().size(), 1u);
  const json::Value& executor = framework["executors"].array()[0];
  EXPECT_EQ(executor["id"].string(), "e1");
  EXPECT_EQ(executor["state"].string(), "REGISTERING");
  EXPECT_EQ(executor["isolation"].string(), "posix/cpu,posix/mem");
  EXPECT_EQ(executor["container"].string().size(), 36u);  // a UUID
  EXPECT_EQ(executor["directory"].string().rfind(workDir_ + "/slaves/S1/frameworks/F1/executors/e1/runs/", 0), 0u);
  ASSERT_EQ(executor["queued_tasks"].array().size(), 1u);
  EXPECT_EQ(executor["queued_tasks"].array()[0]["id"].string(), "t1");

  ASSERT_EQ(mesos::test::httpGet(runtime_->address(), "/" + slave_.pid().id + "/state.json", &body),
            200);
  EXPECT_TRUE(json::parse(body).ok());
}

TEST_F(SlaveTest, ShutdownMessageStopsTheSlave) {
  startRegisteredSlave();
  fromMaster(ShutdownMessage());
  runtime_->settle();
  runtime_->wait(slave_.pid());  // terminated itself: no frameworks to wait for
  SUCCEED();
}

}  // namespace
}  // namespace mesos::internal::slave::test
