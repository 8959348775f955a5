// What an operator sees in the first hour, as master unit tests (stand-in
// schedulers and slaves, paused clock): a slave whose connection breaks is
// offered nothing until it comes back; a new slave at a dead slave's
// address is a new slave; terminal task states are final; the task-state
// metrics match what frameworks were told; a refused launch gives back
// every offer it named; nothing is sent to a framework once it is gone.
#include <map>

#include <gtest/gtest.h>

#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using namespace mesos::internal;

class MasterLifecycleTest : public MasterFixture {
 protected:
  void SetUp() override { start(); }

  // A stand-in slave owned by the test, so that it can go away (the master's
  // link reports that as its connection breaking) and a new one can take
  // its place at the same pid.
  process::Spawned<Peer> ownSlave(const std::string& id) {
    auto peer = std::make_unique<Peer>(id);
    peer->accept<SlaveRegisteredMessage, SlaveReregisteredMessage, RunTaskMessage,
                 KillTaskMessage, StatusUpdateAcknowledgementMessage, ShutdownMessage,
                 PingSlaveMessage, ShutdownFrameworkMessage>();
    return runtime_->spawn(std::move(peer));
  }

  SlaveID reregisterSlave(Peer& slave, const SlaveID& id, const std::string& resources,
                          const std::vector<Task>& tasks = {}) {
    ReregisterSlaveMessage message;
    message.mutable_slave()->set_hostname(slave.id() + ".example");
    message.mutable_slave()->mutable_id()->CopyFrom(id);
    *message.mutable_slave()->mutable_resources() = Resources::parse(resources).value().proto();
    for (const Task& task : tasks) message.add_tasks()->CopyFrom(task);
    message.set_version("1.0.0");
    slave.post(master(), message);
    runtime_->settle();
    auto reregistered = slave.received<SlaveReregisteredMessage>();
    CHECK(!reregistered.empty()) << "slave did not re-register";
    return reregistered.back().slave_id();
  }

  // Offers the scheduler received for `slaveId`.
  static std::vector<Offer> offersFor(Peer& scheduler, const SlaveID& slaveId) {
    std::vector<Offer> out;
    for (const auto& message : scheduler.received<ResourceOffersMessage>()) {
      for (const Offer& offer : message.offers()) {
        if (offer.slave_id().value() == slaveId.value()) out.push_back(offer);
      }
    }
    return out;
  }

  static std::vector<TaskStatus> statuses(Peer& scheduler, const std::string& taskId) {
    std::vector<TaskStatus> out;
    for (const auto& m : scheduler.received<StatusUpdateMessage>()) {
      if (m.update().status().task_id().value() == taskId) out.push_back(m.update().status());
    }
    return out;
  }

  void send(Peer& from, const google::protobuf::Message& message) {
    runtime_->send(from.self(), master(), message);
    runtime_->settle();
  }

  int64_t metric(const std::string& name) {
    json::Value metrics = get("/metrics/snapshot");
    EXPECT_TRUE(metrics.object().count(name)) << name;
    return metrics[name].integer();
  }

  // A task of `frameworkId`'s in the master's /state (the running tasks,
  // then the completed ones, of current and completed frameworks).
  std::optional<std::string> stateOf(const std::string& taskId) {
    json::Value state = get("/state");
    for (const char* list : {"frameworks", "completed_frameworks"}) {
      for (const json::Value& framework : state[list].array()) {
        for (const char* tasks : {"tasks", "completed_tasks"}) {
          for (const json::Value& task : framework[tasks].array()) {
            if (task["id"].string() == taskId) return task["state"].string();
          }
        }
      }
    }
    return std::nullopt;
  }
};

TEST_F(MasterLifecycleTest, DisconnectedSlaveIsOfferedNothingUntilItReregisters) {
  Peer& s = scheduler("scheduler(1)");
  FrameworkID frameworkId = registerFramework(s);
  auto owned = ownSlave("slave(1)");
  SlaveID slaveId = registerSlave(*owned.get(), "cpus:2;mem:1024");
  ASSERT_EQ(1u, offersFor(s, slaveId).size());
  Offer first = offersFor(s, slaveId)[0];
  launch(s, frameworkId, {first.id()}, {commandTask("t1", slaveId, "cpus:1;mem:512")}, 0);
  ASSERT_EQ(2u, offersFor(s, slaveId).size()) << "the unused half comes back unfiltered";

  owned.reset();  // the slave dies: its connection breaks
  runtime_->settle();
  // Its outstanding offer is rescinded at once...
  ASSERT_EQ(1u, s.count<RescindResourceOfferMessage>());
  EXPECT_EQ(offersFor(s, slaveId)[1].id().value(),
            s.received<RescindResourceOfferMessage>()[0].offer_id().value());
  EXPECT_EQ(0, metric("master/outstanding_offers"));
  EXPECT_EQ(1, metric("master/slaves_inactive"));
  EXPECT_EQ(0, metric("master/slaves_active"));
  // ...nothing more is offered on it...
  for (int i = 0; i < 5; ++i) advance(flags_.allocation_interval);
  EXPECT_EQ(2u, offersFor(s, slaveId).size());
  // ...and its task stays until it comes back or misses its pings.
  EXPECT_TRUE(statuses(s, "t1").empty());
  EXPECT_EQ(std::optional<std::string>("TASK_STAGING"), stateOf("t1"));

  // The pings it gets say that the master considers it disconnected (a live
  // slave that only lost its connection re-registers on that).
  auto back = ownSlave("slave(1)");
  advance(flags_.slave_ping_timeout);
  auto pings = back->received<PingSlaveMessage>();
  ASSERT_EQ(1u, pings.size());
  EXPECT_FALSE(pings[0].connected());

  Task running;
  running.set_name("task t1");
  running.mutable_task_id()->set_value("t1");
  running.mutable_framework_id()->CopyFrom(frameworkId);
  running.mutable_slave_id()->CopyFrom(slaveId);
  running.set_state(TASK_RUNNING);
  *running.mutable_resources() = Resources::parse("cpus:1;mem:512").value().proto();
  EXPECT_EQ(slaveId.value(), reregisterSlave(*back.get(), slaveId, "cpus:2;mem:1024", {running})
                                 .value());
  EXPECT_EQ(0, metric("master/slaves_inactive"));
  advance(flags_.allocation_interval);
  ASSERT_EQ(3u, offersFor(s, slaveId).size()) << "offered again once it re-registered";
  EXPECT_EQ(1, Resources(offersFor(s, slaveId)[2].resources()).scalar("cpus"));
  EXPECT_EQ(0u, s.count<LostSlaveMessage>());
}

TEST_F(MasterLifecycleTest, DisconnectedSlaveThatMissesItsPingsIsRemoved) {
  Peer& s = scheduler("scheduler(1)");
  FrameworkID frameworkId = registerFramework(s);
  auto owned = ownSlave("slave(1)");
  SlaveID slaveId = registerSlave(*owned.get(), "cpus:1;mem:512");
  launch(s, frameworkId, {offersFor(s, slaveId)[0].id()}, {commandTask("t1", slaveId)});
  owned.reset();
  runtime_->settle();
  // The first ping goes out after one period; each period after it that
  // passes without a pong is a miss.
  for (uint32_t i = 0; i < flags_.max_slave_ping_timeouts; ++i) {
    advance(flags_.slave_ping_timeout);
  }
  EXPECT_EQ(0u, s.count<LostSlaveMessage>());
  advance(flags_.slave_ping_timeout);
  ASSERT_EQ(1u, s.count<LostSlaveMessage>());
  auto got = statuses(s, "t1");
  ASSERT_EQ(1u, got.size());
  EXPECT_EQ(TASK_LOST, got[0].state());
  EXPECT_EQ(TaskStatus::REASON_SLAVE_REMOVED, got[0].reason());
  EXPECT_EQ(0, metric("master/slaves_inactive"));
  EXPECT_EQ(1, metric("master/tasks_lost"));
}

TEST_F(MasterLifecycleTest, RegistrationAtTheAddressOfADisconnectedSlaveIsANewSlave) {
  Peer& s = scheduler("scheduler(1)");
  FrameworkID frameworkId = registerFramework(s);
  auto old = ownSlave("slave(1)");
  SlaveID oldId = registerSlave(*old.get(), "cpus:1;mem:512");
  launch(s, frameworkId, {offersFor(s, oldId)[0].id()}, {commandTask("t1", oldId)});
  send(*old.get(), update(frameworkId, oldId, "t1", TASK_RUNNING, *old.get()));
  old.reset();  // stopped, and its task with it
  runtime_->settle();

  auto fresh = ownSlave("slave(1)");  // a new process at the same address
  SlaveID newId = registerSlave(*fresh.get(), "cpus:1;mem:512");
  EXPECT_NE(oldId.value(), newId.value());
  EXPECT_EQ(0u, fresh->count<ShutdownMessage>()) << "the new slave is not told to shut down";
  ASSERT_EQ(1u, s.count<LostSlaveMessage>());
  EXPECT_EQ(oldId.value(), s.received<LostSlaveMessage>()[0].slave_id().value());
  auto got = statuses(s, "t1");
  ASSERT_EQ(2u, got.size());
  EXPECT_EQ(TASK_LOST, got[1].state());
  EXPECT_EQ(TaskStatus::REASON_SLAVE_REMOVED, got[1].reason());
  EXPECT_NE(std::string::npos, got[1].message().find("new slave registered")) << got[1].message();
  EXPECT_EQ(1, metric("master/slaves_active"));
  EXPECT_EQ(1, metric("master/slave_removals"));

  // A registration retry from the connected new slave is answered with the
  // same id, not taken for yet another slave.
  RegisterSlaveMessage retry;
  retry.mutable_slave()->set_hostname("slave(1).example");
  *retry.mutable_slave()->mutable_resources() = Resources::parse("cpus:1;mem:512").value().proto();
  retry.set_version("1.0.0");
  send(*fresh.get(), retry);
  ASSERT_EQ(2u, fresh->count<SlaveRegisteredMessage>());
  EXPECT_EQ(newId.value(), fresh->received<SlaveRegisteredMessage>()[1].slave_id().value());
  EXPECT_EQ(1u, s.count<LostSlaveMessage>());
}

TEST_F(MasterLifecycleTest, TerminalStatesAreFinal) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a, "cpus:3;mem:1536");
  launch(s, frameworkId, {offersFor(s, slaveId)[0].id()},
         {commandTask("done", slaveId), commandTask("failed", slaveId),
          commandTask("running", slaveId)});
  // Terminal updates the framework has not acknowledged yet: the master
  // still holds those tasks.
  send(a, update(frameworkId, slaveId, "done", TASK_FINISHED, a));
  send(a, update(frameworkId, slaveId, "failed", TASK_FAILED, a));
  send(a, update(frameworkId, slaveId, "running", TASK_RUNNING, a));
  // A late non-terminal update does not bring a finished task back.
  send(a, update(frameworkId, slaveId, "done", TASK_RUNNING, a));
  EXPECT_EQ(std::optional<std::string>("TASK_FINISHED"), stateOf("done"));

  UnregisterFrameworkMessage unregister;
  unregister.mutable_framework_id()->CopyFrom(frameworkId);
  send(s, unregister);
  EXPECT_EQ(std::optional<std::string>("TASK_FINISHED"), stateOf("done"));
  EXPECT_EQ(std::optional<std::string>("TASK_FAILED"), stateOf("failed"));
  EXPECT_EQ(std::optional<std::string>("TASK_KILLED"), stateOf("running"));
  EXPECT_EQ(1, metric("master/tasks_finished"));
  EXPECT_EQ(1, metric("master/tasks_failed"));
  EXPECT_EQ(1, metric("master/tasks_killed"));
}

// One task ends in each terminal state, by every path that ends tasks, and
// two stay live; every master/tasks_* metric then matches the updates the
// framework received (live states: tasks whose latest update is that state).
TEST_F(MasterLifecycleTest, TaskMetricsMatchTheUpdatesTheFrameworkReceived) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  Peer& b = slave("slave(2)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveA = registerSlave(a, "cpus:8;mem:8192");
  SlaveID slaveB = registerSlave(b, "cpus:1;mem:512");

  launch(s, frameworkId, {offersFor(s, slaveA)[0].id()},
         {commandTask("finished", slaveA), commandTask("failed", slaveA),
          commandTask("killed", slaveA), commandTask("running", slaveA),
          commandTask("staging", slaveA), commandTask("starting", slaveA),
          commandTask("error", slaveA, "cpus:100;mem:1")});
  launch(s, frameworkId, {offersFor(s, slaveB)[0].id()}, {commandTask("lost", slaveB)});
  // A launch on an offer that is no longer valid.
  launch(s, frameworkId, {offersFor(s, slaveB)[0].id()}, {commandTask("bad-offer", slaveB)});

  send(a, update(frameworkId, slaveA, "finished", TASK_FINISHED, a));
  send(a, update(frameworkId, slaveA, "failed", TASK_FAILED, a));
  send(a, update(frameworkId, slaveA, "running", TASK_RUNNING, a));
  send(a, update(frameworkId, slaveA, "starting", TASK_STARTING, a));
  KillTaskMessage kill;
  kill.mutable_framework_id()->CopyFrom(frameworkId);
  kill.mutable_task_id()->set_value("killed");
  send(s, kill);
  ASSERT_EQ(1u, a.count<KillTaskMessage>());
  send(a, update(frameworkId, slaveA, "killed", TASK_KILLED, a));
  UnregisterSlaveMessage unregister;  // slave(2) leaves: its task is lost
  unregister.mutable_slave_id()->CopyFrom(slaveB);
  send(b, unregister);

  std::map<std::string, int64_t> terminal;  // updates received, by state
  std::map<std::string, TaskState> latest;  // by task
  for (const auto& message : s.received<StatusUpdateMessage>()) {
    const TaskStatus& status = message.update().status();
    ASSERT_NE(TaskStatus::REASON_RECONCILIATION, status.reason());
    if (isTerminalState(status.state())) terminal[TaskState_Name(status.state())]++;
    latest[status.task_id().value()] = status.state();
  }
  EXPECT_EQ(1, terminal["TASK_FINISHED"]);
  EXPECT_EQ(1, terminal["TASK_FAILED"]);
  EXPECT_EQ(1, terminal["TASK_KILLED"]);
  EXPECT_EQ(2, terminal["TASK_LOST"]);  // the removed slave's, the bad offer's
  EXPECT_EQ(1, terminal["TASK_ERROR"]);
  EXPECT_EQ(0u, latest.count("staging"));  // no update yet: still staging

  json::Value metrics = get("/metrics/snapshot");
  for (const char* state : {"TASK_FINISHED", "TASK_FAILED", "TASK_KILLED", "TASK_LOST",
                            "TASK_ERROR"}) {
    std::string name = std::string("master/tasks_") + (state + 5);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(terminal[state], metrics[name].integer()) << name;
  }
  EXPECT_EQ(1, metrics["master/tasks_running"].integer());
  EXPECT_EQ(1, metrics["master/tasks_starting"].integer());
  EXPECT_EQ(1, metrics["master/tasks_staging"].integer());
  EXPECT_EQ(7, metrics["master/tasks_launched"].integer());
  EXPECT_EQ(2, metrics["master/invalid_tasks"].integer());
}

// However an offer, a task or an ACCEPT's unused part ends, what it held goes
// back to the allocator once (src/master/offer_book.hpp): the framework is
// always offered or using exactly the slave's resources, never more (given
// back twice: the allocator would take it from what the running task holds)
// nor less (never given back).
TEST_F(MasterLifecycleTest, ResourcesGoBackOnceHoweverTheirOfferEnds) {
  flags_.offer_timeout = std::chrono::seconds(10);
  TearDown();
  start();
  Peer& s = scheduler("scheduler(1)");
  FrameworkID frameworkId = registerFramework(s);
  auto owned = ownSlave("slave(1)");
  SlaveID slaveId = registerSlave(*owned.get(), "cpus:2;mem:1024");
  auto held = [&] {  // the framework's cpus, offered and used
    json::Value state = get("/state");
    const json::Value& framework = state["frameworks"].array().at(0);
    return framework["offered_resources"]["cpus"].number() +
           framework["used_resources"]["cpus"].number();
  };
  auto offers = [&] { return offersFor(s, slaveId).size(); };
  auto latest = [&] { return offersFor(s, slaveId).back().id(); };
  ASSERT_EQ(1u, offers());
  EXPECT_DOUBLE_EQ(2, held());

  // Half taken by a task, which runs through what follows: the other half
  // comes back at once.
  launch(s, frameworkId, {latest()}, {commandTask("t1", slaveId)}, 0);
  advance(flags_.allocation_interval);
  ASSERT_EQ(2u, offers());
  EXPECT_DOUBLE_EQ(1, Resources(offersFor(s, slaveId).back().resources()).scalar("cpus"));
  EXPECT_DOUBLE_EQ(2, held());

  // Timed out: rescinded, and offered again.
  advance(11s);
  advance(flags_.allocation_interval);
  ASSERT_EQ(1u, s.count<RescindResourceOfferMessage>());
  ASSERT_EQ(3u, offers());
  EXPECT_DOUBLE_EQ(2, held());

  // Declined without a filter.
  launch(s, frameworkId, {latest()}, {}, 0);
  advance(flags_.allocation_interval);
  ASSERT_EQ(4u, offers());
  EXPECT_DOUBLE_EQ(2, held());

  // Refused as a whole (it also names an offer that does not exist).
  OfferID unknown;
  unknown.set_value("no-such-offer");
  launch(s, frameworkId, {latest(), unknown}, {commandTask("t0", slaveId)}, 0);
  advance(flags_.allocation_interval);
  ASSERT_EQ(5u, offers());
  EXPECT_DOUBLE_EQ(2, held());

  // The task ends: its half is offered too.
  send(*owned.get(), update(frameworkId, slaveId, "t1", TASK_FINISHED, *owned.get()));
  advance(flags_.allocation_interval);
  ASSERT_EQ(6u, offers());
  EXPECT_DOUBLE_EQ(2, held());

  // The slave's connection breaks: its offers are rescinded; back, it is
  // offered whole again.
  owned.reset();
  runtime_->settle();
  EXPECT_DOUBLE_EQ(0, held());
  auto back = ownSlave("slave(1)");
  reregisterSlave(*back.get(), slaveId, "cpus:2;mem:1024");
  advance(flags_.allocation_interval);
  EXPECT_DOUBLE_EQ(2, held());
}

TEST_F(MasterLifecycleTest, RefusedLaunchGivesBackEveryOfferItNames) {
  Peer& s = scheduler("scheduler(1)");
  Peer& other = scheduler("scheduler(2)");
  Peer& a = slave("slave(1)");
  Peer& b = slave("slave(2)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveA = registerSlave(a, "cpus:1;mem:512");
  SlaveID slaveB = registerSlave(b, "cpus:1;mem:512");
  ASSERT_EQ(1u, offersFor(s, slaveA).size());
  ASSERT_EQ(1u, offersFor(s, slaveB).size());
  FrameworkID otherId = registerFramework(other);
  Peer& c = slave("slave(3)");
  SlaveID slaveC = registerSlave(c, "cpus:1;mem:512");
  ASSERT_EQ(1u, offersFor(other, slaveC).size()) << "the other framework has the least share";

  // Offers of two slaves, one named twice, and one of another framework's.
  launch(s, frameworkId,
         {offersFor(s, slaveA)[0].id(), offersFor(s, slaveB)[0].id(),
          offersFor(s, slaveB)[0].id(), offersFor(other, slaveC)[0].id()},
         {commandTask("t1", slaveA)});
  auto got = statuses(s, "t1");
  ASSERT_EQ(1u, got.size());
  EXPECT_EQ(TASK_LOST, got[0].state());
  EXPECT_EQ(TaskStatus::REASON_INVALID_OFFERS, got[0].reason());
  EXPECT_NE(std::string::npos, got[0].message().find("more than one slave")) << got[0].message();
  EXPECT_EQ(0u, a.count<RunTaskMessage>() + b.count<RunTaskMessage>());
  // Both of its offers went back to the allocator at once, unfiltered, and
  // both slaves are offered again (before the fix, slave(2)'s offer stayed
  // outstanding until --offer_timeout, which is never by default).
  EXPECT_EQ(2u, offersFor(s, slaveA).size() + offersFor(other, slaveA).size());
  EXPECT_EQ(2u, offersFor(s, slaveB).size() + offersFor(other, slaveB).size());
  EXPECT_EQ(3, metric("master/outstanding_offers"));
  // The old offers are used up...
  launch(s, frameworkId, {offersFor(s, slaveA)[0].id()}, {commandTask("t2", slaveA)});
  ASSERT_EQ(1u, statuses(s, "t2").size());
  EXPECT_EQ(TASK_LOST, statuses(s, "t2")[0].state());
  // ...and the other framework's offer is untouched: it launches on it.
  EXPECT_EQ(0u, other.count<RescindResourceOfferMessage>());
  launch(other, otherId, {offersFor(other, slaveC)[0].id()}, {commandTask("t3", slaveC)});
  EXPECT_EQ(1u, c.count<RunTaskMessage>());
}

TEST_F(MasterLifecycleTest, NothingIsSentToAFrameworkOnceItUnregistered) {
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a);
  ASSERT_EQ(1u, offersFor(s, slaveId).size());
  UnregisterFrameworkMessage unregister;
  unregister.mutable_framework_id()->CopyFrom(frameworkId);
  send(s, unregister);
  for (int i = 0; i < 3; ++i) advance(flags_.allocation_interval);
  EXPECT_EQ(0u, s.count<RescindResourceOfferMessage>());
  EXPECT_EQ(1u, s.count<ResourceOffersMessage>());
  EXPECT_EQ(0, metric("master/outstanding_offers"));
}

TEST_F(MasterLifecycleTest, AFailedOverSchedulerIsNotToldOfTheOldOnesOffers) {
  Peer& old = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkInfo info = frameworkInfo();
  info.set_failover_timeout(60);
  FrameworkID frameworkId = registerFramework(old, info);
  SlaveID slaveId = registerSlave(a);
  ASSERT_EQ(1u, offersFor(old, slaveId).size());
  Peer& fresh = scheduler("scheduler(2)");
  ReregisterFrameworkMessage reregister;
  info.mutable_id()->CopyFrom(frameworkId);
  reregister.mutable_framework()->CopyFrom(info);
  reregister.set_failover(true);
  send(fresh, reregister);
  ASSERT_EQ(1u, fresh.count<FrameworkReregisteredMessage>());
  EXPECT_EQ(0u, fresh.count<RescindResourceOfferMessage>());
  advance(flags_.allocation_interval);
  EXPECT_EQ(1u, offersFor(fresh, slaveId).size()) << "the slave is offered to the new scheduler";
}

}  // namespace
}  // namespace mesos::test
