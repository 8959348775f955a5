// The master's documents are assembled from per-entity JSON fragments that
// are kept until the entity changes, and an unchanged /state is served
// again. After every kind of change, each document must equal a fresh
// render (fragment caching off): a missed invalidation shows here as a
// stale entity.
#include <atomic>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include <map>

#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using namespace mesos::internal;

class StateFragmentsTest : public MasterFixture {
 protected:
  void SetUp() override {
    flags_.max_completed_tasks_per_framework = 2;
    flags_.max_completed_frameworks = 1;
    start();
  }

  // Every document, as served (cached) and as rendered anew, must agree.
  void expectFresh(const std::string& after) {
    for (const char* path : {"/state", "/slaves", "/frameworks", "/tasks?limit=1000",
                             "/state-summary"}) {
      json::Value cached = get(path);
      json::Value again = get(path);  // served from the cache where it can be
      master_->setStateCaching(false);
      json::Value fresh = get(path);
      master_->setStateCaching(true);
      EXPECT_EQ(json::stringify(fresh), json::stringify(cached)) << path << " after " << after;
      EXPECT_EQ(json::stringify(fresh), json::stringify(again)) << path << " after " << after;
    }
  }

  Offer lastOffer(Peer& scheduler) {
    auto offers = scheduler.received<ResourceOffersMessage>();
    CHECK(!offers.empty());
    return offers.back().offers(0);
  }

  void send(Peer& from, const google::protobuf::Message& message) {
    runtime_->send(from.self(), master(), message);
    runtime_->settle();
  }

  // A framework on a big slave with `count` tasks t0, t1, ... launched.
  struct Launched {
    Peer* scheduler;
    Peer* slave;
    FrameworkID frameworkId;
    SlaveID slaveId;
  };
  Launched launchTasks(int count) {
    Peer& s = scheduler("scheduler(1)");
    Peer& a = slave("slave(1)");
    FrameworkID frameworkId = registerFramework(s);
    SlaveID slaveId = registerSlave(a, "cpus:400;mem:409600");
    std::vector<TaskInfo> tasks;
    for (int i = 0; i < count; ++i) {
      tasks.push_back(commandTask("t" + std::to_string(i), slaveId, "cpus:1;mem:32"));
    }
    launch(s, frameworkId, {lastOffer(s).id()}, tasks, 0);
    return {&s, &a, frameworkId, slaveId};
  }

  // TASK_FINISHED without a uuid: the master forgets the task at once.
  void finish(const Launched& launched, int task) {
    StatusUpdateMessage finished = update(launched.frameworkId, launched.slaveId,
                                          "t" + std::to_string(task), TASK_FINISHED,
                                          *launched.slave);
    finished.mutable_update()->clear_uuid();
    finished.mutable_update()->mutable_status()->clear_uuid();
    send(*launched.slave, finished);
  }

  void acknowledge(Peer& scheduler, const FrameworkID& frameworkId, const SlaveID& slaveId,
                   const StatusUpdateMessage& update) {
    StatusUpdateAcknowledgementMessage ack;
    ack.mutable_framework_id()->CopyFrom(frameworkId);
    ack.mutable_slave_id()->CopyFrom(slaveId);
    ack.mutable_task_id()->CopyFrom(update.update().status().task_id());
    ack.set_uuid(update.update().uuid());
    send(scheduler, ack);
  }
};

TEST_F(StateFragmentsTest, DocumentsEqualAFreshRenderAfterEveryKindOfChange) {
  expectFresh("start");
  Peer& s = scheduler("scheduler(1)");
  FrameworkInfo info = frameworkInfo("fragments");
  info.set_failover_timeout(100);
  FrameworkID frameworkId = registerFramework(s, info);
  expectFresh("framework registered");

  auto owned = std::make_unique<Peer>("slave(1)");
  owned->accept<SlaveRegisteredMessage, SlaveReregisteredMessage, RunTaskMessage,
                KillTaskMessage, StatusUpdateAcknowledgementMessage, PingSlaveMessage>();
  auto a = runtime_->spawn(std::move(owned));
  SlaveID slaveId = registerSlave(*a.get(), "cpus:8;mem:8192");
  expectFresh("slave registered and offered");

  std::vector<TaskInfo> tasks;
  for (int i = 0; i < 5; ++i) tasks.push_back(commandTask("t" + std::to_string(i), slaveId));
  TaskInfo withExecutor = commandTask("e0", slaveId);
  withExecutor.clear_command();
  withExecutor.mutable_executor()->mutable_executor_id()->set_value("exec");
  withExecutor.mutable_executor()->mutable_command()->set_value("run-executor");
  *withExecutor.mutable_executor()->mutable_resources() =
      Resources::parse("cpus:0.5;mem:64").value().proto();
  tasks.push_back(withExecutor);
  launch(s, frameworkId, {lastOffer(s).id()}, tasks, 0);
  expectFresh("tasks launched (one with an executor), the rest declined");

  for (const char* id : {"t0", "t1", "t2", "t3", "e0"}) {
    send(*a.get(), update(frameworkId, slaveId, id, TASK_RUNNING, *a.get()));
  }
  expectFresh("status updates");

  // Three tasks end and are acknowledged: the history cap (2) is reached.
  for (const char* id : {"t0", "t1", "t2"}) {
    StatusUpdateMessage finished = update(frameworkId, slaveId, id, TASK_FINISHED, *a.get());
    send(*a.get(), finished);
    expectFresh(std::string("terminal update for ") + id);
    acknowledge(s, frameworkId, slaveId, finished);
  }
  expectFresh("history cap reached");

  ExitedExecutorMessage exited;
  exited.mutable_slave_id()->CopyFrom(slaveId);
  exited.mutable_framework_id()->CopyFrom(frameworkId);
  exited.mutable_executor_id()->set_value("exec");
  exited.set_status(0);
  send(*a.get(), exited);
  expectFresh("executor exited");

  // The scheduler fails over to a new process.
  Peer& fresh = scheduler("scheduler(2)");
  ReregisterFrameworkMessage reregister;
  info.mutable_id()->CopyFrom(frameworkId);
  reregister.mutable_framework()->CopyFrom(info);
  reregister.set_failover(true);
  send(fresh, reregister);
  expectFresh("framework failed over");

  // The slave's connection breaks, and it re-registers with its tasks and a
  // task of a framework this master does not know.
  a.reset();
  runtime_->settle();
  expectFresh("slave disconnected");
  auto back = std::make_unique<Peer>("slave(1)");
  back->accept<SlaveReregisteredMessage, RunTaskMessage, KillTaskMessage>();
  auto b = runtime_->spawn(std::move(back));
  ReregisterSlaveMessage reregisterSlave;
  reregisterSlave.mutable_slave()->set_hostname("slave(1).example");
  reregisterSlave.mutable_slave()->mutable_id()->CopyFrom(slaveId);
  *reregisterSlave.mutable_slave()->mutable_resources() =
      Resources::parse("cpus:8;mem:8192").value().proto();
  reregisterSlave.set_version("1.0.0");
  send(*b.get(), reregisterSlave);
  expectFresh("slave re-registered");

  // A second slave that this master never saw comes with a task of a
  // framework that has not re-registered.
  Peer& c = slave("slave(2)");
  ReregisterSlaveMessage stranger;
  stranger.mutable_slave()->set_hostname("slave(2).example");
  stranger.mutable_slave()->mutable_id()->set_value("elsewhere-S9");
  *stranger.mutable_slave()->mutable_resources() =
      Resources::parse("cpus:2;mem:1024").value().proto();
  Task orphan;
  orphan.set_name("orphan");
  orphan.mutable_task_id()->set_value("o1");
  orphan.mutable_framework_id()->set_value("elsewhere-0001");
  orphan.mutable_slave_id()->set_value("elsewhere-S9");
  orphan.set_state(TASK_RUNNING);
  *orphan.mutable_resources() = Resources::parse("cpus:1;mem:128").value().proto();
  *stranger.add_tasks() = orphan;
  stranger.set_version("1.0.0");
  send(c, stranger);
  expectFresh("slave with an orphan task");

  KillTaskMessage kill;
  kill.mutable_framework_id()->CopyFrom(frameworkId);
  kill.mutable_task_id()->set_value("t3");
  send(fresh, kill);
  expectFresh("kill");

  // The framework goes: its tasks are killed, it joins the completed ones
  // (the cap of 1 pushes nothing out yet).
  UnregisterFrameworkMessage unregister;
  unregister.mutable_framework_id()->CopyFrom(frameworkId);
  send(fresh, unregister);
  expectFresh("framework unregistered");

  // Another framework comes and goes: the completed-frameworks cap drops
  // the first.
  Peer& other = scheduler("scheduler(3)");
  FrameworkID otherId = registerFramework(other, frameworkInfo("other"));
  expectFresh("second framework registered");
  UnregisterFrameworkMessage unregisterOther;
  unregisterOther.mutable_framework_id()->CopyFrom(otherId);
  send(other, unregisterOther);
  expectFresh("completed frameworks cap reached");

  // The second slave leaves, with the orphan task.
  UnregisterSlaveMessage leave;
  leave.mutable_slave_id()->set_value("elsewhere-S9");
  send(c, leave);
  expectFresh("slave removed");

  // A new slave takes the removed one's slot.
  Peer& d = slave("slave(3)");
  registerSlave(d);
  expectFresh("slave registered in a reused slot");
}

// A framework's history is shown in joined chunks of completed tasks;
// appending and evicting across chunk boundaries keeps it exact.
TEST_F(StateFragmentsTest, CompletedTasksAcrossChunkBoundaries) {
  master_.reset();
  flags_.max_completed_tasks_per_framework = 150;
  runtime_.reset();
  start();
  Launched launched = launchTasks(400);
  for (int i = 0; i < 400; ++i) {
    finish(launched, i);
    if (i == 63 || i == 64 || i == 150 || i == 151 || i == 200 || i == 399) {
      expectFresh("completed task " + std::to_string(i));
    }
  }
  json::Value state = get("/state");
  const auto& completed = state["frameworks"].array()[0]["completed_tasks"].array();
  ASSERT_EQ(150u, completed.size());
  for (size_t i = 0; i < completed.size(); ++i) {
    EXPECT_EQ("t" + std::to_string(250 + i), completed[i]["id"].string());
  }
}

// A framework's live tasks are shown in joined chunks of task slots; a
// task's change, end or a new task in a freed slot drops only its chunk,
// and the documents stay exact.
TEST_F(StateFragmentsTest, LiveTasksAcrossChunksAndReusedSlots) {
  Launched launched = launchTasks(40);
  Peer& s = *launched.scheduler;
  Peer& a = *launched.slave;
  FrameworkID frameworkId = launched.frameworkId;
  SlaveID slaveId = launched.slaveId;
  size_t firstOffers = s.received<ResourceOffersMessage>().size();
  expectFresh("40 tasks launched");
  for (int i : {0, 17, 33}) {
    send(a, update(frameworkId, slaveId, "t" + std::to_string(i), TASK_RUNNING, a));
  }
  expectFresh("updates in three chunks");
  for (int i : {5, 20, 21, 39}) finish(launched, i);
  expectFresh("tasks gone from the middle and the end");
  std::vector<TaskInfo> more;
  for (int i = 40; i < 44; ++i) {
    more.push_back(commandTask("t" + std::to_string(i), slaveId, "cpus:1;mem:32"));
  }
  // Whatever is offered now (what the ended tasks freed).
  advance(flags_.allocation_interval);
  std::vector<OfferID> offered;
  auto offers = s.received<ResourceOffersMessage>();
  for (size_t i = firstOffers; i < offers.size(); ++i) {
    for (const Offer& offer : offers[i].offers()) offered.push_back(offer.id());
  }
  launch(s, frameworkId, offered, more, 0);
  expectFresh("new tasks in the freed slots");
  json::Value state = get("/state");
  std::multiset<std::string> ids;
  for (const json::Value& task : state["frameworks"].array()[0]["tasks"].array()) {
    ids.insert(task["id"].string());
  }
  EXPECT_EQ(40u, ids.size());
  for (const std::string& id : ids) EXPECT_EQ(1u, ids.count(id)) << id;
  EXPECT_EQ(0u, ids.count("t20"));
  EXPECT_EQ(1u, ids.count("t43"));
}

TEST_F(StateFragmentsTest, AnUnchangedStateIsServedAgainAndAChangeRendersAnew) {
  Peer& s = scheduler("scheduler(1)");
  registerFramework(s);
  json::Value first = get("/state");
  json::Value second = get("/state");
  EXPECT_EQ(json::stringify(first), json::stringify(second));
  Peer& a = slave("slave(1)");
  registerSlave(a);
  json::Value third = get("/state");
  ASSERT_EQ(1u, third["slaves"].array().size());
  EXPECT_EQ(0u, first["slaves"].array().size());
}

// /state visits the slaves in steps (here one slave per event) while
// slaves leave and others come, taking whatever slots are free: each slave
// is shown at most once, and those there throughout are all shown. (A slave
// that unregistered may not come back under its id: each comes anew.)
TEST_F(StateFragmentsTest, SlavesComingAndGoingDuringARenderAreShownAtMostOnce) {
  // Ten that come and go (the first slots), then ten that stay.
  std::vector<Peer*> churning;
  std::map<std::string, int> generation;  // of each churning peer's slave id
  auto idOf = [&](Peer& peer) { return peer.id() + "-" + std::to_string(generation[peer.id()]); };
  auto reregistration = [&](Peer& peer) {
    ReregisterSlaveMessage message;
    message.mutable_slave()->set_hostname(peer.id() + ".example");
    message.mutable_slave()->mutable_id()->set_value(idOf(peer));
    *message.mutable_slave()->mutable_resources() =
        Resources::parse("cpus:1;mem:64").value().proto();
    message.set_version("1.0.0");
    return message;
  };
  for (int i = 0; i < 10; ++i) {
    churning.push_back(&slave("churn-" + std::to_string(i)));
    churning.back()->post(master(), reregistration(*churning.back()));
  }
  runtime_->settle();
  std::vector<std::string> staying;
  for (int i = 0; i < 10; ++i) {
    staying.push_back(registerSlave(slave("stay-" + std::to_string(i))).value());
  }
  master_->setStateChunk(1);
  for (int round = 0; round < 5; ++round) {
    json::Value state;
    std::atomic<bool> done{false};
    std::thread reader([&] {
      state = get("/state");
      done = true;
    });
    // Without settling: these interleave with the render's steps.
    for (size_t i = 0; i < 2000 && !done; ++i) {
      Peer& peer = *churning[i % churning.size()];
      // Its current slave is not answered yet: it waits (a slave does not
      // unregister before it is registered).
      if (peer.count<SlaveReregisteredMessage>() !=
          static_cast<size_t>(generation[peer.id()]) + 1) {
        std::this_thread::yield();
        continue;
      }
      UnregisterSlaveMessage leave;
      leave.mutable_slave_id()->set_value(idOf(peer));
      peer.post(master(), leave);
      generation[peer.id()]++;
      peer.post(master(), reregistration(peer));
      std::this_thread::yield();
    }
    reader.join();
    runtime_->settle();
    std::multiset<std::string> shown;
    for (const json::Value& s : state["slaves"].array()) shown.insert(s["id"].string());
    for (const std::string& id : shown) EXPECT_EQ(1u, shown.count(id)) << id << " shown twice";
    for (const std::string& id : staying) {
      EXPECT_EQ(1u, shown.count(id)) << id << " was there throughout";
    }
  }
  EXPECT_EQ(20u, get("/slaves")["slaves"].array().size());
}

}  // namespace
}  // namespace mesos::test
