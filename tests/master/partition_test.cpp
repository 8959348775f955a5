// Partition awareness (docs/partition-awareness.md) against stand-in
// schedulers and slaves on the paused clock: a slave whose pongs never come
// becomes unreachable, comes back, is rate-limited, is gone; what
// reconciliation answers in each case; orphans.
#include <gtest/gtest.h>

#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using namespace mesos::internal;

class PartitionTest : public MasterFixture {
 protected:
  void SetUp() override {
    flags_.slave_ping_timeout = std::chrono::seconds(15);
    flags_.max_slave_ping_timeouts = 3;
  }

  static FrameworkInfo aware(const std::string& name) {
    FrameworkInfo info = frameworkInfo(name);
    info.add_capabilities()->set_type(FrameworkInfo::Capability::PARTITION_AWARE);
    return info;
  }

  Offer lastOffer(Peer& scheduler) {
    auto offers = scheduler.received<ResourceOffersMessage>();
    CHECK(!offers.empty()) << "no offers";
    return offers.back().offers(0);
  }

  static std::vector<TaskStatus> statuses(Peer& scheduler, const std::string& taskId) {
    std::vector<TaskStatus> out;
    for (const auto& m : scheduler.received<StatusUpdateMessage>()) {
      if (m.update().status().task_id().value() == taskId) out.push_back(m.update().status());
    }
    return out;
  }

  // Lets pings go unanswered until the master gives up on the slave.
  void missPings() {
    for (uint32_t i = 0; i <= flags_.max_slave_ping_timeouts; ++i) advance(15s);
  }

  // The slave comes back reporting `tasks` (RUNNING) of their frameworks.
  void reregister(Peer& slave, const SlaveID& slaveId,
                  const std::vector<std::pair<FrameworkInfo, std::string>>& tasks) {
    ReregisterSlaveMessage message;
    message.mutable_slave()->set_hostname(slave.id() + ".example");
    *message.mutable_slave()->mutable_resources() =
        Resources::parse("cpus:4;mem:4096").value().proto();
    *message.mutable_slave()->mutable_id() = slaveId;
    message.set_version("1.0.0");
    std::set<std::string> frameworks;
    for (const auto& [framework, taskId] : tasks) {
      Task* task = message.add_tasks();
      task->set_name(taskId);
      task->mutable_task_id()->set_value(taskId);
      *task->mutable_framework_id() = framework.id();
      *task->mutable_slave_id() = slaveId;
      task->set_state(TASK_RUNNING);
      *task->mutable_resources() = Resources::parse("cpus:1;mem:512").value().proto();
      if (frameworks.insert(framework.id().value()).second) *message.add_frameworks() = framework;
    }
    slave.post(master(), message);
    runtime_->settle();
  }

  // A framework with one running task on a slave of its own.
  struct Running {
    Peer* scheduler;
    FrameworkInfo info;
    Peer* slave;
    SlaveID slaveId;
  };
  Running runTask(const std::string& name, FrameworkInfo info, const std::string& taskId) {
    Peer& s = scheduler("scheduler-" + name);
    Peer& a = slave("slave-" + name);
    FrameworkID frameworkId = registerFramework(s, info);
    *info.mutable_id() = frameworkId;
    SlaveID slaveId = registerSlave(a, "cpus:1;mem:512");
    launch(s, frameworkId, {lastOffer(s).id()}, {commandTask(taskId, slaveId)});
    a.post(master(), update(frameworkId, slaveId, taskId, TASK_RUNNING, a));
    runtime_->settle();
    return Running{&s, info, &a, slaveId};
  }

  void reconcile(Peer& scheduler, const FrameworkID& frameworkId,
                 const std::vector<std::pair<std::string, std::string>>& tasks) {
    ReconcileTasksMessage message;
    *message.mutable_framework_id() = frameworkId;
    for (const auto& [taskId, slaveId] : tasks) {
      TaskStatus* status = message.add_statuses();
      status->mutable_task_id()->set_value(taskId);
      status->set_state(TASK_STAGING);
      if (!slaveId.empty()) status->mutable_slave_id()->set_value(slaveId);
    }
    scheduler.post(master(), message);
    runtime_->settle();
  }

  json::Value metric(const std::string& name) { return get("/metrics/snapshot")[name]; }
};

TEST_F(PartitionTest, AnUnreachableSlavesTasksAreUnreachableOrLostAndComeBackOnlyIfAware) {
  start();
  Running aware_ = runTask("aware", aware("aware"), "ta");
  Running plain = runTask("plain", frameworkInfo("plain"), "tp");
  missPings();

  // Each framework hears of both slaves; their tasks by capability.
  auto a = statuses(*aware_.scheduler, "ta");
  ASSERT_EQ(2u, a.size());
  EXPECT_EQ(TASK_UNREACHABLE, a[1].state());
  EXPECT_EQ(TaskStatus::REASON_SLAVE_REMOVED, a[1].reason());
  EXPECT_TRUE(a[1].has_unreachable_time());
  auto p = statuses(*plain.scheduler, "tp");
  ASSERT_EQ(2u, p.size());
  EXPECT_EQ(TASK_LOST, p[1].state());
  EXPECT_FALSE(p[1].has_unreachable_time());
  EXPECT_EQ(2u, aware_.scheduler->count<LostSlaveMessage>());
  // Not told to shut down: it may come back.
  EXPECT_EQ(0u, aware_.slave->count<ShutdownMessage>());
  EXPECT_EQ(2, metric("master/slaves_unreachable").integer());
  EXPECT_EQ(2, metric("master/slave_unreachable_completed").integer());
  EXPECT_EQ(1, metric("master/tasks_lost").integer());
  json::Value state = get("/master/state");
  EXPECT_EQ(2, state["unreachable_slaves"].integer());
  // /state lists the aware framework's task apart, as Apache does; the
  // plain framework's lost task is completed.
  auto frameworkIn = [](const json::Value& state, const std::string& id) {
    for (const json::Value& f : state["frameworks"].array()) {
      if (f["id"].string() == id) return f;
    }
    return json::Value();
  };
  json::Value shown = frameworkIn(state, aware_.info.id().value());
  ASSERT_EQ(1u, shown["unreachable_tasks"].array().size()) << json::stringify(shown);
  EXPECT_EQ("ta", shown["unreachable_tasks"].array()[0]["id"].string());
  EXPECT_EQ("TASK_UNREACHABLE", shown["unreachable_tasks"].array()[0]["state"].string());
  EXPECT_TRUE(shown["completed_tasks"].array().empty()) << json::stringify(shown);
  json::Value lost = frameworkIn(state, plain.info.id().value());
  EXPECT_TRUE(lost["unreachable_tasks"].array().empty());
  ASSERT_EQ(1u, lost["completed_tasks"].array().size()) << json::stringify(lost);
  EXPECT_EQ("TASK_LOST", lost["completed_tasks"].array()[0]["state"].string());

  // Reconciliation knows the unreachable task (and for the plain framework
  // says TASK_LOST).
  reconcile(*aware_.scheduler, aware_.info.id(), {{"ta", ""}});
  a = statuses(*aware_.scheduler, "ta");
  ASSERT_EQ(3u, a.size());
  EXPECT_EQ(TASK_UNREACHABLE, a[2].state());
  EXPECT_EQ(TaskStatus::REASON_RECONCILIATION, a[2].reason());
  EXPECT_EQ(a[1].unreachable_time().nanoseconds(), a[2].unreachable_time().nanoseconds());

  // Both slaves come back: the aware framework's task runs on, the plain
  // framework (told TASK_LOST) is shut down on its slave.
  reregister(*aware_.slave, aware_.slaveId, {{aware_.info, "ta"}});
  reregister(*plain.slave, plain.slaveId, {{plain.info, "tp"}});
  ASSERT_EQ(1u, aware_.slave->count<SlaveReregisteredMessage>());
  ASSERT_EQ(1u, plain.slave->count<SlaveReregisteredMessage>());
  EXPECT_EQ(0u, aware_.slave->count<ShutdownFrameworkMessage>());
  ASSERT_EQ(1u, plain.slave->count<ShutdownFrameworkMessage>());
  EXPECT_EQ(plain.info.id().value(),
            plain.slave->received<ShutdownFrameworkMessage>()[0].framework_id().value());
  EXPECT_EQ(0, metric("master/slaves_unreachable").integer());

  reconcile(*aware_.scheduler, aware_.info.id(), {{"ta", aware_.slaveId.value()}});
  a = statuses(*aware_.scheduler, "ta");
  EXPECT_EQ(TASK_RUNNING, a.back().state());
  shown = frameworkIn(get("/master/state"), aware_.info.id().value());
  EXPECT_TRUE(shown["unreachable_tasks"].array().empty()) << json::stringify(shown);
  ASSERT_EQ(1u, shown["tasks"].array().size()) << json::stringify(shown);
  EXPECT_EQ("TASK_RUNNING", shown["tasks"].array()[0]["state"].string());
  reconcile(*plain.scheduler, plain.info.id(), {{"tp", plain.slaveId.value()}});
  p = statuses(*plain.scheduler, "tp");
  EXPECT_EQ(TASK_LOST, p.back().state()) << "the plain framework's task must not come back";
}

TEST_F(PartitionTest, TheRemovalRateLimitSparesSlavesThatAnswerMeanwhile) {
  flags_.agent_removal_rate_limit = "1/1mins";
  start();
  Peer& s = scheduler("scheduler");
  registerFramework(s, aware("aware"));
  Peer& a = slave("slave-a");
  Peer& b = slave("slave-b");
  Peer& c = slave("slave-c");
  registerSlave(a);
  registerSlave(b);
  registerSlave(c);
  missPings();
  // One at once, the next a minute later.
  EXPECT_EQ(1u, s.count<LostSlaveMessage>());
  EXPECT_EQ(3, metric("master/slave_unreachable_scheduled").integer());
  advance(30s);
  EXPECT_EQ(1u, s.count<LostSlaveMessage>());
  // One that is still waiting answers: spared. (Which one waits first
  // depends on the order of the pass over the slaves: both answer.)
  for (Peer* peer : {&a, &b, &c}) peer->post(master(), PongSlaveMessage());
  runtime_->settle();
  advance(30s);
  advance(1min);
  EXPECT_EQ(1u, s.count<LostSlaveMessage>());
  EXPECT_EQ(2, metric("master/slave_unreachable_canceled").integer());
  EXPECT_EQ(1, metric("master/slaves_unreachable").integer());
}

TEST_F(PartitionTest, ReconciliationOfUnknownTasksSaysGoneUnreachableOrUnknown) {
  start();
  Running r = runTask("aware", aware("aware"), "t1");
  Peer& other = slave("slave-other");
  SlaveID otherId = registerSlave(other);
  // A task its (registered) slave does not have: gone.
  reconcile(*r.scheduler, r.info.id(), {{"nope", otherId.value()}});
  EXPECT_EQ(TASK_GONE, statuses(*r.scheduler, "nope").back().state());
  // Nothing known of the task or its slave: unknown.
  reconcile(*r.scheduler, r.info.id(), {{"nope2", "no-such-slave"}});
  EXPECT_EQ(TASK_UNKNOWN, statuses(*r.scheduler, "nope2").back().state());
  reconcile(*r.scheduler, r.info.id(), {{"nope3", ""}});
  EXPECT_EQ(TASK_UNKNOWN, statuses(*r.scheduler, "nope3").back().state());
  // On an unreachable slave: unreachable.
  missPings();
  reconcile(*r.scheduler, r.info.id(), {{"nope4", otherId.value()}});
  auto got = statuses(*r.scheduler, "nope4");
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(TASK_UNREACHABLE, got.back().state());
  EXPECT_TRUE(got.back().has_unreachable_time());

  // A plain framework gets TASK_LOST for each.
  Peer& plain = scheduler("scheduler-plain");
  FrameworkID plainId = registerFramework(plain, frameworkInfo("plain"));
  reconcile(plain, plainId, {{"x1", otherId.value()}, {"x2", "no-such-slave"}, {"x3", ""}});
  for (const char* task : {"x1", "x2", "x3"}) {
    auto lost = statuses(plain, task);
    ASSERT_EQ(1u, lost.size()) << task;
    EXPECT_EQ(TASK_LOST, lost[0].state()) << task;
  }
}

TEST_F(PartitionTest, AnUnregisteredSlaveIsGoneAndRefusedIfItComesBack) {
  start();
  Running r = runTask("aware", aware("aware"), "t1");
  UnregisterSlaveMessage unregister;
  *unregister.mutable_slave_id() = r.slaveId;
  r.slave->post(master(), unregister);
  runtime_->settle();
  auto got = statuses(*r.scheduler, "t1");
  ASSERT_EQ(2u, got.size());
  EXPECT_EQ(TASK_GONE, got[1].state());
  // It is told to go, and refused when it tries to come back.
  EXPECT_EQ(1u, r.slave->count<ShutdownMessage>());
  reregister(*r.slave, r.slaveId, {{r.info, "t1"}});
  EXPECT_EQ(0u, r.slave->count<SlaveReregisteredMessage>());
  ASSERT_EQ(2u, r.slave->count<ShutdownMessage>());
  EXPECT_NE(std::string::npos,
            r.slave->received<ShutdownMessage>()[1].message().find("removed"));
  EXPECT_EQ(1, metric("master/slave_reregistrations_refused").integer());
}

TEST_F(PartitionTest, AKnownSlaveReportingTasksTheMasterDoesNotHoldIsToldToKillThem) {
  start();
  Running r = runTask("plain", frameworkInfo("plain"), "t1");
  FrameworkInfo stranger = frameworkInfo("stranger");
  stranger.mutable_id()->set_value("no-such-framework");
  // The slave reports t1, a task of its framework the master never
  // launched, and a task of a framework the master does not run.
  reregister(*r.slave, r.slaveId, {{r.info, "t1"}, {r.info, "orphan"}, {stranger, "alien"}});
  ASSERT_EQ(1u, r.slave->count<SlaveReregisteredMessage>());
  auto kills = r.slave->received<KillTaskMessage>();
  ASSERT_EQ(1u, kills.size());
  EXPECT_EQ("orphan", kills[0].task_id().value());
  auto shutdowns = r.slave->received<ShutdownFrameworkMessage>();
  ASSERT_EQ(1u, shutdowns.size());
  EXPECT_EQ("no-such-framework", shutdowns[0].framework_id().value());
}

// Found by the Jepsen-style run (tests/jepsen/): a framework that is not
// partition-aware was told TASK_LOST; when the slave comes back it is shut
// down there, and the updates the slave still sends for its tasks (the
// kill's TASK_KILLED, a TASK_FINISHED that waited) never reach it: one
// terminal state per task. The aware framework's updates still flow.
TEST_F(PartitionTest, UpdatesAfterTaskLostAreDroppedWhenTheSlaveComesBack) {
  start();
  Running aware_ = runTask("aware", aware("aware"), "ta");
  Running plain = runTask("plain", frameworkInfo("plain"), "tp");
  missPings();
  ASSERT_EQ(TASK_LOST, statuses(*plain.scheduler, "tp").back().state());
  reregister(*aware_.slave, aware_.slaveId, {{aware_.info, "ta"}});
  reregister(*plain.slave, plain.slaveId, {{plain.info, "tp"}});
  ASSERT_EQ(1u, plain.slave->count<ShutdownFrameworkMessage>());

  plain.slave->post(master(),
                    update(plain.info.id(), plain.slaveId, "tp", TASK_KILLED, *plain.slave));
  aware_.slave->post(master(),
                     update(aware_.info.id(), aware_.slaveId, "ta", TASK_FINISHED, *aware_.slave));
  runtime_->settle();
  auto p = statuses(*plain.scheduler, "tp");
  ASSERT_EQ(2u, p.size());
  EXPECT_EQ(TASK_LOST, p.back().state()) << "an update followed TASK_LOST";
  EXPECT_EQ(TASK_FINISHED, statuses(*aware_.scheduler, "ta").back().state());
}

// Found by the Jepsen-style run too: a slave re-registers with a task that
// ended while its TASK_RUNNING update still waits for an acknowledgement;
// reconciliation answers TASK_RUNNING (the state of the update to come), not
// the end the framework has not been told yet.
TEST_F(PartitionTest, ReconciliationAnswersTheStateOfTheUpdateToCome) {
  start();
  Peer& s = scheduler("scheduler");
  FrameworkInfo info = frameworkInfo("plain");
  FrameworkID frameworkId = registerFramework(s, info);
  // A slave this master has never seen (as after a failover).
  Peer& again = slave("slave-again");
  SlaveID otherId;
  otherId.set_value("S-from-before");
  ReregisterSlaveMessage message;
  message.mutable_slave()->set_hostname("slave-again.example");
  *message.mutable_slave()->mutable_resources() = Resources::parse("cpus:1;mem:512").value().proto();
  *message.mutable_slave()->mutable_id() = otherId;
  message.set_version("1.0.0");
  Task* task = message.add_tasks();
  task->set_name("t1");
  task->mutable_task_id()->set_value("t1");
  *task->mutable_framework_id() = frameworkId;
  *task->mutable_slave_id() = otherId;
  task->set_state(TASK_FINISHED);
  task->set_status_update_state(TASK_RUNNING);
  *task->mutable_resources() = Resources::parse("cpus:1;mem:512").value().proto();
  info.mutable_id()->CopyFrom(frameworkId);
  *message.add_frameworks() = info;
  again.post(master(), message);
  runtime_->settle();

  reconcile(s, frameworkId, {{"t1", otherId.value()}});
  auto t1 = statuses(s, "t1");
  ASSERT_EQ(1u, t1.size());
  EXPECT_EQ(TASK_RUNNING, t1[0].state());
  EXPECT_EQ(TaskStatus::REASON_RECONCILIATION, t1[0].reason());
}

// Found by the Jepsen-style run as well: a framework asks to reconcile a
// task whose TASK_FINISHED is on its way; its acknowledgement reaches the
// master first (the master forgets the task). The answer is TASK_FINISHED
// again, not TASK_LOST.
TEST_F(PartitionTest, ReconciliationOfATaskThatJustEndedRepeatsItsEnd) {
  start();
  Running plain = runTask("plain", frameworkInfo("plain"), "tp");
  StatusUpdateMessage finished =
      update(plain.info.id(), plain.slaveId, "tp", TASK_FINISHED, *plain.slave);
  plain.slave->post(master(), finished);
  runtime_->settle();
  StatusUpdateAcknowledgementMessage ack;
  *ack.mutable_slave_id() = plain.slaveId;
  *ack.mutable_framework_id() = plain.info.id();
  ack.mutable_task_id()->set_value("tp");
  ack.set_uuid(finished.update().uuid());
  plain.scheduler->post(master(), ack);
  runtime_->settle();
  ASSERT_EQ(0, metric("master/tasks_running").integer());

  reconcile(*plain.scheduler, plain.info.id(), {{"tp", plain.slaveId.value()}});
  auto p = statuses(*plain.scheduler, "tp");
  ASSERT_EQ(3u, p.size());
  EXPECT_EQ(TASK_FINISHED, p[2].state());
  EXPECT_EQ(TaskStatus::REASON_RECONCILIATION, p[2].reason());
}

// The master names the framework in the reconciliations it sends a slave
// that re-registers without a task it holds, so that the slave answers
// TASK_DROPPED to a partition-aware one.
TEST_F(PartitionTest, ASlaveMissingATaskIsToldWhoseFrameworkItIs) {
  start();
  Running aware_ = runTask("aware", aware("aware"), "ta");
  Peer& restarted = slave("slave-aware-restarted");  // a new pid: it restarted
  reregister(restarted, aware_.slaveId, {});
  auto replies = restarted.received<SlaveReregisteredMessage>();
  ASSERT_EQ(1u, replies.size());
  ASSERT_EQ(1, replies[0].reconciliations_size());
  const ReconcileTasksMessage& missing = replies[0].reconciliations(0);
  EXPECT_EQ("ta", missing.statuses(0).task_id().value());
  ASSERT_EQ(1, missing.framework().capabilities_size());
  EXPECT_EQ(FrameworkInfo::Capability::PARTITION_AWARE, missing.framework().capabilities(0).type());
}

}  // namespace
}  // namespace mesos::test
