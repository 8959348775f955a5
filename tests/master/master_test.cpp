// The master against stand-in schedulers and slaves (Peer actors) in one
// runtime with a paused clock: registration, offers, launches and their
// validation, status updates, failures and failover.
#include <gtest/gtest.h>

#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using namespace mesos::internal;
using master::Master;
using master::MasterFlags;
using process::Spawned;
using process::UPID;

class MasterTest : public MasterFixture {
 protected:
  void SetUp() override { start(); }

  // The latest offer the scheduler holds.
  Offer lastOffer(Peer& scheduler) {
    auto offers = scheduler.received<ResourceOffersMessage>();
    CHECK(!offers.empty()) << "no offers";
    CHECK_GT(offers.back().offers_size(), 0);
    return offers.back().offers(0);
  }

  // Statuses the scheduler received for `taskId`, in order.
  static std::vector<TaskStatus> statuses(Peer& scheduler, const std::string& taskId) {
    std::vector<TaskStatus> out;
    for (const auto& m : scheduler.received<StatusUpdateMessage>()) {
      if (m.update().status().task_id().value() == taskId) out.push_back(m.update().status());
    }
    return out;
  }
};

TEST_F(MasterTest, FrameworkRegistersAndGetsAnId) {
  Peer& s = scheduler("scheduler(1)");
  FrameworkID id = registerFramework(s);
  EXPECT_FALSE(id.value().empty());
  auto registered = s.received<FrameworkRegisteredMessage>();
  ASSERT_EQ(1u, registered.size());
  EXPECT_EQ(master().toString(), registered[0].master_info().pid());
  // A retry from the same scheduler gets the same id, not a second framework.
  RegisterFrameworkMessage again;
  again.mutable_framework()->CopyFrom(frameworkInfo());
  s.post(master(), again);
  runtime_->settle();
  ASSERT_EQ(2u, s.count<FrameworkRegisteredMessage>());
  EXPECT_EQ(id.value(), s.received<FrameworkRegisteredMessage>()[1].framework_id().value());
}

TEST_F(MasterTest, RegistrationWithoutRequiredFieldsIsRefused) {
  Peer& s = scheduler("scheduler(1)");
  RegisterFrameworkMessage message;
  message.mutable_framework()->set_name("no user");
  s.post(master(), message);
  runtime_->settle();
  auto errors = s.received<FrameworkErrorMessage>();
  ASSERT_EQ(1u, errors.size());
  EXPECT_NE(std::string::npos, errors[0].message().find("user")) << errors[0].message();
  EXPECT_EQ(0u, s.count<FrameworkRegisteredMessage>());
}

TEST_F(MasterTest, SlaveResourcesAreOfferedWithTheSlavePid) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a, "cpus:2;mem:1024;ports:[31000-31009]");
  auto offers = s.received<ResourceOffersMessage>();
  ASSERT_EQ(1u, offers.size());
  ASSERT_EQ(1, offers[0].offers_size());
  ASSERT_EQ(1, offers[0].pids_size());
  EXPECT_EQ(a.self().toString(), offers[0].pids(0));
  const Offer& offer = offers[0].offers(0);
  EXPECT_EQ(slaveId.value(), offer.slave_id().value());
  EXPECT_EQ(frameworkId.value(), offer.framework_id().value());
  Resources resources(offer.resources());
  EXPECT_EQ(2, resources.scalar("cpus"));
  EXPECT_EQ(1024, resources.scalar("mem"));
  EXPECT_EQ("slave(1).example", offer.hostname());
}

TEST_F(MasterTest, LaunchSendsRunTaskAndUnusedResourcesComeBackAfterTheFilter) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a, "cpus:2;mem:1024");
  Offer offer = lastOffer(s);
  launch(s, frameworkId, {offer.id()}, {commandTask("t1", slaveId, "cpus:1;mem:512")}, 5);
  auto runs = a.received<RunTaskMessage>();
  ASSERT_EQ(1u, runs.size());
  EXPECT_EQ("t1", runs[0].task().task_id().value());
  EXPECT_EQ(frameworkId.value(), runs[0].framework().id().value());
  EXPECT_EQ(s.self().toString(), runs[0].pid());

  // The unused half is filtered for 5 s, then offered again.
  runtime_->clock().advance(4s);
  runtime_->settle();
  EXPECT_EQ(1u, s.count<ResourceOffersMessage>());
  runtime_->clock().advance(2s);
  runtime_->settle();
  ASSERT_EQ(2u, s.count<ResourceOffersMessage>());
  Resources again(lastOffer(s).resources());
  EXPECT_EQ(1, again.scalar("cpus"));
  EXPECT_EQ(512, again.scalar("mem"));
}

TEST_F(MasterTest, InvalidTasksGetTaskErrorWithTheReason) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a, "cpus:2;mem:1024");
  Offer offer = lastOffer(s);

  TaskInfo tooBig = commandTask("big", slaveId, "cpus:3;mem:100");
  TaskInfo noCommand = commandTask("nocmd", slaveId);
  noCommand.clear_command();
  TaskInfo good = commandTask("good", slaveId, "cpus:1;mem:100");
  TaskInfo duplicate = commandTask("good", slaveId, "cpus:0.5;mem:100");
  TaskInfo badResources = commandTask("neg", slaveId);
  badResources.mutable_resources(0)->mutable_scalar()->set_value(-1);
  launch(s, frameworkId, {offer.id()}, {tooBig, noCommand, good, duplicate, badResources});

  auto expectError = [&](const std::string& id, const std::string& words) {
    auto got = statuses(s, id);
    ASSERT_EQ(1u, got.size()) << id;
    EXPECT_EQ(TASK_ERROR, got[0].state()) << id;
    EXPECT_EQ(TaskStatus::SOURCE_MASTER, got[0].source());
    EXPECT_NE(std::string::npos, got[0].message().find(words)) << id << ": " << got[0].message();
  };
  expectError("big", "more resources");
  expectError("nocmd", "CommandInfo");
  expectError("neg", "resources");
  auto dup = statuses(s, "good");
  ASSERT_EQ(1u, dup.size());
  EXPECT_EQ(TASK_ERROR, dup[0].state());
  EXPECT_NE(std::string::npos, dup[0].message().find("already in use"));
  // The valid one went to the slave.
  auto runs = a.received<RunTaskMessage>();
  ASSERT_EQ(1u, runs.size());
  EXPECT_EQ("good", runs[0].task().task_id().value());
}

TEST_F(MasterTest, UnknownOrForeignOffersLoseTheTasks) {
  Peer& s = scheduler("scheduler(1)");
  Peer& other = scheduler("scheduler(2)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  FrameworkID otherId = registerFramework(other);
  SlaveID slaveId = registerSlave(a, "cpus:2;mem:1024");
  OfferID unknown;
  unknown.set_value("no-such-offer");
  launch(s, frameworkId, {unknown}, {commandTask("t1", slaveId)});
  auto got = statuses(s, "t1");
  ASSERT_EQ(1u, got.size());
  EXPECT_EQ(TASK_LOST, got[0].state());
  EXPECT_EQ(TaskStatus::REASON_INVALID_OFFERS, got[0].reason());
  EXPECT_NE(std::string::npos, got[0].message().find("no longer valid"));

  // Whoever holds the offer, the other framework cannot use it.
  Peer& holder = s.count<ResourceOffersMessage>() > 0 ? s : other;
  Peer& thief = &holder == &s ? other : s;
  FrameworkID thiefId = &thief == &s ? frameworkId : otherId;
  launch(thief, thiefId, {lastOffer(holder).id()}, {commandTask("t2", slaveId)});
  auto stolen = statuses(thief, "t2");
  ASSERT_EQ(1u, stolen.size());
  EXPECT_EQ(TASK_LOST, stolen[0].state());
  EXPECT_NE(std::string::npos, stolen[0].message().find("not made to this framework"));
  EXPECT_EQ(0u, a.count<RunTaskMessage>());
}

TEST_F(MasterTest, StatusUpdatesFlowToTheSchedulerAndAcksToTheSlave) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a, "cpus:1;mem:512");
  launch(s, frameworkId, {lastOffer(s).id()}, {commandTask("t1", slaveId)});

  StatusUpdateMessage running = update(frameworkId, slaveId, "t1", TASK_RUNNING, a);
  a.post(master(), running);
  runtime_->settle();
  auto got = statuses(s, "t1");
  ASSERT_EQ(1u, got.size());
  EXPECT_EQ(TASK_RUNNING, got[0].state());

  StatusUpdateAcknowledgementMessage ack;
  ack.mutable_framework_id()->CopyFrom(frameworkId);
  ack.mutable_slave_id()->CopyFrom(slaveId);
  ack.mutable_task_id()->set_value("t1");
  ack.set_uuid(running.update().uuid());
  s.post(master(), ack);
  runtime_->settle();
  auto acks = a.received<StatusUpdateAcknowledgementMessage>();
  ASSERT_EQ(1u, acks.size());
  EXPECT_EQ(running.update().uuid(), acks[0].uuid());

  // A finished task frees its resources: they are offered again.
  size_t offersBefore = s.count<ResourceOffersMessage>();
  a.post(master(), update(frameworkId, slaveId, "t1", TASK_FINISHED, a));
  runtime_->settle();
  EXPECT_EQ(offersBefore + 1, s.count<ResourceOffersMessage>());
}

TEST_F(MasterTest, UpdatesFromAPidThatIsNotTheSlaveAreIgnored) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  Peer& impostor = slave("slave(2)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a, "cpus:1;mem:512");
  launch(s, frameworkId, {lastOffer(s).id()}, {commandTask("t1", slaveId)});
  impostor.post(master(), update(frameworkId, slaveId, "t1", TASK_FAILED, impostor));
  runtime_->settle();
  EXPECT_TRUE(statuses(s, "t1").empty());
}

// A registered slave (or a task on its host speaking as it) may not end a
// task that runs on another slave.
TEST_F(MasterTest, AnotherRegisteredSlaveCannotUpdateATaskItDoesNotRun) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  Peer& b = slave("slave(2)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID onA = registerSlave(a, "cpus:1;mem:512");
  launch(s, frameworkId, {lastOffer(s).id()}, {commandTask("t1", onA)});
  SlaveID onB = registerSlave(b, "cpus:1;mem:512");
  auto invalidUpdates = [&] { return get("/metrics/snapshot")["master/invalid_status_updates"].integer(); };
  int64_t invalid = invalidUpdates();

  b.post(master(), update(frameworkId, onB, "t1", TASK_FINISHED, b));
  runtime_->settle();
  EXPECT_TRUE(statuses(s, "t1").empty());
  EXPECT_EQ(invalid + 1, invalidUpdates());
  json::Value tasks = get("/master/tasks?task_id=t1")["tasks"];
  ASSERT_EQ(1u, tasks.array().size());
  EXPECT_EQ("TASK_STAGING", tasks.array()[0]["state"].string());

  // Its own slave still can.
  a.post(master(), update(frameworkId, onA, "t1", TASK_RUNNING, a));
  runtime_->settle();
  ASSERT_EQ(1u, statuses(s, "t1").size());
}

TEST_F(MasterTest, SlaveThatMissesPingsIsRemovedAndItsTasksLost) {
  flags_.slave_ping_timeout = std::chrono::seconds(15);
  flags_.max_slave_ping_timeouts = 5;
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");  // it never answers pings
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a, "cpus:1;mem:512");
  launch(s, frameworkId, {lastOffer(s).id()}, {commandTask("t1", slaveId)});
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(0u, s.count<LostSlaveMessage>()) << "after " << i << " periods";
    runtime_->clock().advance(15s);
    runtime_->settle();
  }
  runtime_->clock().advance(15s);
  runtime_->settle();
  ASSERT_EQ(1u, s.count<LostSlaveMessage>());
  EXPECT_EQ(slaveId.value(), s.received<LostSlaveMessage>()[0].slave_id().value());
  auto got = statuses(s, "t1");
  ASSERT_EQ(1u, got.size());
  EXPECT_EQ(TASK_LOST, got[0].state());
  EXPECT_EQ(TaskStatus::REASON_SLAVE_REMOVED, got[0].reason());
}

TEST_F(MasterTest, SlaveThatAnswersPingsStays) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  registerFramework(s);
  registerSlave(a);
  for (int i = 0; i < 10; ++i) {
    auto ping = runtime_->hooks().await<PingSlaveMessage>(master(), a.self());
    runtime_->clock().advance(15s);
    runtime_->settle();
    ASSERT_TRUE(ping.isReady());
    a.post(master(), PongSlaveMessage());
    runtime_->settle();
  }
  EXPECT_EQ(0u, s.count<LostSlaveMessage>());
}

TEST_F(MasterTest, SchedulerFailoverKeepsTasksAndTellsTheOldScheduler) {
  Peer& old = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkInfo info = frameworkInfo();
  info.set_failover_timeout(60);
  FrameworkID frameworkId = registerFramework(old, info);
  SlaveID slaveId = registerSlave(a, "cpus:2;mem:1024");
  launch(old, frameworkId, {lastOffer(old).id()}, {commandTask("t1", slaveId)});
  a.post(master(), update(frameworkId, slaveId, "t1", TASK_RUNNING, a));
  runtime_->settle();

  Peer& fresh = scheduler("scheduler(2)");
  ReregisterFrameworkMessage reregister;
  info.mutable_id()->CopyFrom(frameworkId);
  reregister.mutable_framework()->CopyFrom(info);
  reregister.set_failover(true);
  fresh.post(master(), reregister);
  runtime_->settle();
  ASSERT_EQ(1u, fresh.count<FrameworkReregisteredMessage>());
  ASSERT_EQ(1u, old.count<FrameworkErrorMessage>());
  EXPECT_EQ("Framework failed over", old.received<FrameworkErrorMessage>()[0].message());

  // The task is still there, now reported to the new scheduler.
  ReconcileTasksMessage reconcile;
  reconcile.mutable_framework_id()->CopyFrom(frameworkId);
  fresh.post(master(), reconcile);
  runtime_->settle();
  auto got = statuses(fresh, "t1");
  ASSERT_EQ(1u, got.size());
  EXPECT_EQ(TASK_RUNNING, got[0].state());
  EXPECT_EQ(TaskStatus::REASON_RECONCILIATION, got[0].reason());
  EXPECT_EQ(0u, a.count<ShutdownFrameworkMessage>());
}

TEST_F(MasterTest, DisconnectedFrameworkIsRemovedAfterItsFailoverTimeout) {
  Peer& a = slave("slave(1)");
  SlaveID slaveId = registerSlave(a, "cpus:2;mem:1024");
  FrameworkInfo info = frameworkInfo();
  info.set_failover_timeout(10);
  FrameworkID frameworkId;
  {
    auto peer = std::make_unique<Peer>("scheduler(9)");
    peer->accept<FrameworkRegisteredMessage, ResourceOffersMessage, StatusUpdateMessage>();
    auto s = runtime_->spawn(std::move(peer));
    frameworkId = registerFramework(*s.get(), info);
    launch(*s.get(), frameworkId, {lastOffer(*s.get()).id()}, {commandTask("t1", slaveId)});
  }  // the scheduler goes away: the master's link reports it
  runtime_->settle();
  runtime_->clock().advance(9s);
  runtime_->settle();
  EXPECT_EQ(0u, a.count<ShutdownFrameworkMessage>());
  runtime_->clock().advance(2s);
  runtime_->settle();
  ASSERT_EQ(1u, a.count<ShutdownFrameworkMessage>());
  EXPECT_EQ(frameworkId.value(),
            a.received<ShutdownFrameworkMessage>()[0].framework_id().value());
}

TEST_F(MasterTest, DeclineFiltersTheSlaveForRefuseSeconds) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  registerSlave(a);
  launch(s, frameworkId, {lastOffer(s).id()}, {}, 30);
  runtime_->clock().advance(29s);
  runtime_->settle();
  EXPECT_EQ(1u, s.count<ResourceOffersMessage>());
  runtime_->clock().advance(2s);
  runtime_->settle();
  EXPECT_EQ(2u, s.count<ResourceOffersMessage>());
}

TEST_F(MasterTest, OfferTimeoutRescindsTheOffer) {
  flags_.offer_timeout = std::chrono::seconds(10);
  TearDown();
  start();
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  registerFramework(s);
  registerSlave(a);
  Offer offer = lastOffer(s);
  runtime_->clock().advance(11s);
  runtime_->settle();
  auto rescinds = s.received<RescindResourceOfferMessage>();
  ASSERT_GE(rescinds.size(), 1u);
  EXPECT_EQ(offer.id().value(), rescinds[0].offer_id().value());
}

TEST_F(MasterTest, KillTaskGoesToTheSlaveAndUnknownTasksAreLost) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a);
  launch(s, frameworkId, {lastOffer(s).id()}, {commandTask("t1", slaveId)});
  KillTaskMessage kill;
  kill.mutable_framework_id()->CopyFrom(frameworkId);
  kill.mutable_task_id()->set_value("t1");
  s.post(master(), kill);
  kill.mutable_task_id()->set_value("nope");
  s.post(master(), kill);
  runtime_->settle();
  auto kills = a.received<KillTaskMessage>();
  ASSERT_EQ(1u, kills.size());
  EXPECT_EQ("t1", kills[0].task_id().value());
  auto got = statuses(s, "nope");
  ASSERT_EQ(1u, got.size());
  EXPECT_EQ(TASK_LOST, got[0].state());
}

TEST_F(MasterTest, ExplicitReconciliationAnswersEveryTask) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a);
  launch(s, frameworkId, {lastOffer(s).id()}, {commandTask("t1", slaveId)});
  ReconcileTasksMessage reconcile;
  reconcile.mutable_framework_id()->CopyFrom(frameworkId);
  reconcile.add_statuses()->mutable_task_id()->set_value("t1");
  reconcile.mutable_statuses(0)->set_state(TASK_RUNNING);
  reconcile.add_statuses()->mutable_task_id()->set_value("ghost");
  reconcile.mutable_statuses(1)->set_state(TASK_RUNNING);
  s.post(master(), reconcile);
  runtime_->settle();
  auto known = statuses(s, "t1");
  ASSERT_EQ(1u, known.size());
  EXPECT_EQ(TASK_STAGING, known[0].state());
  auto ghost = statuses(s, "ghost");
  ASSERT_EQ(1u, ghost.size());
  EXPECT_EQ(TASK_LOST, ghost[0].state());
}

TEST_F(MasterTest, MessagesFromStrangersAreIgnored) {
  Peer& s = scheduler("scheduler(1)");
  Peer& stranger = scheduler("scheduler(2)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a);
  // A stranger claims the framework's id; an unknown framework id; an
  // unknown slave's exited executor.
  LaunchTasksMessage launchMessage;
  launchMessage.mutable_framework_id()->CopyFrom(frameworkId);
  launchMessage.add_offer_ids()->CopyFrom(lastOffer(s).id());
  launchMessage.add_tasks()->CopyFrom(commandTask("t1", slaveId));
  stranger.post(master(), launchMessage);
  UnregisterFrameworkMessage unregister;
  unregister.mutable_framework_id()->set_value("unknown");
  stranger.post(master(), unregister);
  ExitedExecutorMessage exited;
  exited.mutable_slave_id()->set_value("unknown");
  exited.mutable_framework_id()->CopyFrom(frameworkId);
  exited.mutable_executor_id()->set_value("e");
  exited.set_status(1);
  stranger.post(master(), exited);
  runtime_->settle();
  EXPECT_EQ(0u, a.count<RunTaskMessage>());
  // The real framework is unaffected: its offer still works.
  launch(s, frameworkId, {lastOffer(s).id()}, {commandTask("t1", slaveId)});
  EXPECT_EQ(1u, a.count<RunTaskMessage>());
}

TEST_F(MasterTest, LowestDominantShareIsOfferedFirst) {
  Peer& heavy = scheduler("scheduler(1)");
  Peer& light = scheduler("scheduler(2)");
  Peer& a = slave("slave(1)");
  Peer& b = slave("slave(2)");
  FrameworkID heavyId = registerFramework(heavy);
  SlaveID slaveA = registerSlave(a, "cpus:4;mem:4096");
  // heavy holds slave A's offer; launch a big task on it.
  launch(heavy, heavyId, {lastOffer(heavy).id()}, {commandTask("big", slaveA, "cpus:3;mem:3000")}, 3600);
  FrameworkID lightId = registerFramework(light);
  (void)lightId;
  registerSlave(b, "cpus:4;mem:4096");
  // Slave B goes to the framework with the lower dominant share.
  auto lightOffers = light.received<ResourceOffersMessage>();
  ASSERT_FALSE(lightOffers.empty());
  EXPECT_EQ(b.self().toString(), lightOffers.back().pids(0));
}

TEST_F(MasterTest, SuppressAndReviveAsSchedulerCalls) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  scheduler::Call call;
  call.mutable_framework_id()->CopyFrom(frameworkId);
  call.set_type(scheduler::Call::SUPPRESS);
  s.post(master(), call);
  runtime_->settle();
  registerSlave(a);
  runtime_->clock().advance(10s);
  runtime_->settle();
  EXPECT_EQ(0u, s.count<ResourceOffersMessage>());
  call.set_type(scheduler::Call::REVIVE);
  s.post(master(), call);
  runtime_->settle();
  EXPECT_EQ(1u, s.count<ResourceOffersMessage>());
}

// With one entry per step, /state still comes out whole and right.
TEST_F(MasterTest, StateRenderedInSmallStepsIsComplete) {
  process::dispatch(master_.pid(), &Master::setStateChunk, size_t{1});
  Peer& s1 = scheduler("scheduler(1)");
  Peer& s2 = scheduler("scheduler(2)");
  registerFramework(s1);
  registerFramework(s2);
  for (int i = 1; i <= 3; ++i) registerSlave(slave("slave(" + std::to_string(i) + ")"), "cpus:2;mem:100");
  runtime_->clock().resume();
  std::string body;
  ASSERT_EQ(200, httpGet(runtime_->address(), "/master/state", &body));
  auto state = json::parse(body);
  ASSERT_TRUE(state.ok()) << state.error().message << "\n" << body;
  EXPECT_EQ(3u, (*state)["slaves"].array().size());
  EXPECT_EQ(2u, (*state)["frameworks"].array().size());
  EXPECT_EQ(6, (*state)["total_resources"]["cpus"].number());
  EXPECT_EQ(master().toString(), (*state)["leader"].string());
}

TEST_F(MasterTest, FrameworkComingBackAdoptsTasksItsSlavesReported) {
  // A slave this master never saw re-registers with a running task of a
  // framework this master never saw (as after a master failover).
  Peer& a = slave("slave(1)");
  ReregisterSlaveMessage reregister;
  SlaveInfo* info = reregister.mutable_slave();
  info->set_hostname("a.example");
  info->mutable_id()->set_value("old-S1");
  *info->mutable_resources() = Resources::parse("cpus:2;mem:1024").value().proto();
  Task* task = reregister.add_tasks();
  task->set_name("t");
  task->mutable_task_id()->set_value("t1");
  task->mutable_framework_id()->set_value("old-F1");
  task->mutable_slave_id()->set_value("old-S1");
  task->set_state(TASK_RUNNING);
  *task->mutable_resources() = Resources::parse("cpus:1;mem:100").value().proto();
  a.post(master(), reregister);
  runtime_->settle();
  ASSERT_EQ(1u, a.count<SlaveReregisteredMessage>());

  Peer& s = scheduler("scheduler(1)");
  FrameworkInfo framework = frameworkInfo();
  framework.mutable_id()->set_value("old-F1");
  ReregisterFrameworkMessage message;
  message.mutable_framework()->CopyFrom(framework);
  message.set_failover(true);
  s.post(master(), message);
  runtime_->settle();
  ASSERT_EQ(1u, s.count<FrameworkReregisteredMessage>());
  ReconcileTasksMessage reconcile;
  reconcile.mutable_framework_id()->set_value("old-F1");
  s.post(master(), reconcile);
  runtime_->settle();
  auto got = statuses(s, "t1");
  ASSERT_EQ(1u, got.size());
  EXPECT_EQ(TASK_RUNNING, got[0].state());
  // Only the free half is offered.
  ASSERT_GE(s.count<ResourceOffersMessage>(), 1u);
  EXPECT_EQ(1, Resources(lastOffer(s).resources()).scalar("cpus"));
}

// A re-registration is repeated until answered: a retry that repeats it is
// answered again and changes nothing; one that reports something new is
// handled anew.
TEST_F(MasterTest, ARetriedReregistrationIsAnsweredAgainAndAChangedOneHandledAnew) {
  Peer& a = slave("slave(1)");
  auto reregistration = [](const std::vector<std::string>& tasks) {
    ReregisterSlaveMessage message;
    SlaveInfo* info = message.mutable_slave();
    info->set_hostname("a.example");
    info->mutable_id()->set_value("old-S1");
    *info->mutable_resources() = Resources::parse("cpus:4;mem:1024").value().proto();
    for (const std::string& id : tasks) {
      Task* task = message.add_tasks();
      task->set_name(id);
      task->mutable_task_id()->set_value(id);
      task->mutable_framework_id()->set_value("old-F1");
      task->mutable_slave_id()->set_value("old-S1");
      task->set_state(TASK_RUNNING);
      *task->mutable_resources() = Resources::parse("cpus:1;mem:100").value().proto();
    }
    return message;
  };
  a.post(master(), reregistration({"t1"}));
  runtime_->settle();
  ASSERT_EQ(1u, a.count<SlaveReregisteredMessage>());
  a.post(master(), reregistration({"t1"}));
  runtime_->settle();
  ASSERT_EQ(2u, a.count<SlaveReregisteredMessage>());
  EXPECT_EQ("old-S1", a.received<SlaveReregisteredMessage>()[1].slave_id().value());
  EXPECT_EQ(0u, a.count<KillTaskMessage>());
  // A task this master does not hold on a slave it holds is an orphan:
  // killed, which shows that the changed retry was looked at.
  a.post(master(), reregistration({"t1", "t2"}));
  runtime_->settle();
  ASSERT_EQ(3u, a.count<SlaveReregisteredMessage>());
  ASSERT_EQ(1u, a.count<KillTaskMessage>()) << "the changed retry was not handled";
  EXPECT_EQ("t2", a.received<KillTaskMessage>()[0].task_id().value());

  Peer& s = scheduler("scheduler(1)");
  ReregisterFrameworkMessage message;
  *message.mutable_framework() = frameworkInfo();
  message.mutable_framework()->mutable_id()->set_value("old-F1");
  message.set_failover(false);
  s.post(master(), message);
  runtime_->settle();
  ASSERT_EQ(1u, s.count<FrameworkReregisteredMessage>());
  // One of four cpus is used: t1 was not adopted twice.
  ASSERT_GE(s.count<ResourceOffersMessage>(), 1u);
  EXPECT_EQ(3, Resources(lastOffer(s).resources()).scalar("cpus"));
}

// Slaves learn where a framework's scheduler is when it re-registers, not
// again at each of its retries; a slave that comes back after the
// framework's scheduler failed over is told the new one.
TEST_F(MasterTest, SlavesLearnAFrameworksNewSchedulerOnceAndAfterItFailedOver) {
  auto slavePeer = [&](const std::string& id) -> Peer& {
    auto peer = std::make_unique<Peer>(id);
    peer->accept<SlaveReregisteredMessage, UpdateFrameworkMessage, ShutdownFrameworkMessage,
                 KillTaskMessage>();
    peers_.push_back(runtime_->spawn(std::move(peer)));
    return *peers_.back().get();
  };
  auto reregistration = [](const std::string& slaveId, const std::string& taskId) {
    ReregisterSlaveMessage message;
    SlaveInfo* info = message.mutable_slave();
    info->set_hostname(slaveId + ".example");
    info->mutable_id()->set_value(slaveId);
    *info->mutable_resources() = Resources::parse("cpus:2;mem:1024").value().proto();
    FrameworkInfo* framework = message.add_frameworks();
    *framework = frameworkInfo();
    framework->mutable_id()->set_value("old-F1");
    Task* task = message.add_tasks();
    task->set_name(taskId);
    task->mutable_task_id()->set_value(taskId);
    task->mutable_framework_id()->set_value("old-F1");
    task->mutable_slave_id()->set_value(slaveId);
    task->set_state(TASK_RUNNING);
    *task->mutable_resources() = Resources::parse("cpus:1;mem:100").value().proto();
    return message;
  };
  auto reregisterFramework = [&](Peer& scheduler, bool failover) {
    ReregisterFrameworkMessage message;
    *message.mutable_framework() = frameworkInfo();
    message.mutable_framework()->mutable_id()->set_value("old-F1");
    message.set_failover(failover);
    scheduler.post(master(), message);
    runtime_->settle();
  };
  Peer& a = slavePeer("slave(1)");
  a.post(master(), reregistration("old-S1", "t1"));
  runtime_->settle();
  ASSERT_EQ(1u, a.count<SlaveReregisteredMessage>());

  Peer& s = scheduler("scheduler(1)");
  reregisterFramework(s, false);
  ASSERT_EQ(1u, s.count<FrameworkReregisteredMessage>());
  ASSERT_EQ(1u, a.count<UpdateFrameworkMessage>());
  EXPECT_EQ(s.self().toString(), a.received<UpdateFrameworkMessage>()[0].pid());
  reregisterFramework(s, false);  // a retry
  ASSERT_EQ(2u, s.count<FrameworkReregisteredMessage>());
  EXPECT_EQ(1u, a.count<UpdateFrameworkMessage>()) << "a retry was announced to the slaves";
  // A slave back now knows this scheduler already.
  Peer& b = slavePeer("slave(2)");
  b.post(master(), reregistration("old-S2", "t2"));
  runtime_->settle();
  ASSERT_EQ(1u, b.count<SlaveReregisteredMessage>());
  EXPECT_EQ(0u, b.count<UpdateFrameworkMessage>());

  // A new scheduler takes over: every slave holding its tasks is told, and
  // so is one that comes back later.
  Peer& s2 = scheduler("scheduler(2)");
  reregisterFramework(s2, true);
  ASSERT_EQ(1u, s2.count<FrameworkReregisteredMessage>());
  ASSERT_EQ(2u, a.count<UpdateFrameworkMessage>());
  EXPECT_EQ(s2.self().toString(), a.received<UpdateFrameworkMessage>()[1].pid());
  ASSERT_EQ(1u, b.count<UpdateFrameworkMessage>());
  Peer& c = slavePeer("slave(3)");
  c.post(master(), reregistration("old-S3", "t3"));
  runtime_->settle();
  ASSERT_EQ(1u, c.count<SlaveReregisteredMessage>());
  ASSERT_EQ(1u, c.count<UpdateFrameworkMessage>());
  EXPECT_EQ(s2.self().toString(), c.received<UpdateFrameworkMessage>()[0].pid());
}

TEST_F(MasterTest, StateAndMetricsEndpoints) {
  process::Runtime::Options options;
  (void)options;
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a, "cpus:2;mem:1024");
  launch(s, frameworkId, {lastOffer(s).id()}, {commandTask("t1", slaveId)});
  runtime_->clock().resume();  // HTTP over real sockets
  std::string body;
  ASSERT_EQ(200, httpGet(runtime_->address(), "/master/state", &body));
  auto state = json::parse(body);
  ASSERT_TRUE(state.ok()) << state.error().message;
  EXPECT_EQ(master().toString(), (*state)["leader"].string());
  ASSERT_EQ(1u, (*state)["slaves"].array().size());
  EXPECT_EQ(2, (*state)["slaves"].array()[0]["resources"]["cpus"].number());
  ASSERT_EQ(1u, (*state)["frameworks"].array().size());
  const json::Value& framework = (*state)["frameworks"].array()[0];
  EXPECT_EQ(frameworkId.value(), framework["id"].string());
  ASSERT_EQ(1u, framework["tasks"].array().size());
  EXPECT_EQ("TASK_STAGING", framework["tasks"].array()[0]["state"].string());
  ASSERT_EQ(200, httpGet(runtime_->address(), "/state", &body));
  ASSERT_EQ(200, httpGet(runtime_->address(), "/metrics/snapshot", &body));
  auto metrics = json::parse(body);
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  EXPECT_EQ(1, (*metrics)["master/tasks_launched"].integer());
  EXPECT_EQ(1, (*metrics)["master/slaves_active"].integer());
  EXPECT_EQ(1, (*metrics)["master/messages_RegisterFrameworkMessage"].integer());
  EXPECT_EQ(1, (*metrics)["master/tasks_staging"].integer());
  EXPECT_EQ(200, httpGet(runtime_->address(), "/master/health"));
}

}  // namespace
}  // namespace mesos::test
