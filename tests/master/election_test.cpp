// Masters with --zk in one process (as mesos-local --num_masters runs
// them), against a real ZooKeeper server and on the real clock: the
// standby's answers and silence, and what a newly elected master does while
// slaves and frameworks come back (offers held, reconciliation waiting for
// slaves, frameworks known only from slaves' reports kept for a while).
#include <gtest/gtest.h>

#include <map>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "local/cluster.hpp"
#include "messages.pb.h"
#include "process/dispatch.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"
#include "support/peer.hpp"
#include "support/raw_peer.hpp"
#include "support/zookeeper_server.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using namespace mesos::internal;

class ElectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = ZooKeeperServers::unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(zk_.start()) << zk_.error();
    flags_.zk = "zk://" + zk_.connectString() + "/mesos";
    flags_.zk_session_timeout = 2s;
    flags_.allocation_settle_delay = 300ms;
    flags_.allocation_interval = 100ms;
    flags_.slave_reregister_timeout = 3s;
  }

  void TearDown() override {
    peers_.clear();
    cluster_.reset();
  }

  void start(size_t masters) {
    process::Runtime::Options options;
    options.ip = "127.0.0.1";
    options.port = 0;
    auto cluster = local::LocalCluster::start(options, flags_, masters);
    ASSERT_TRUE(cluster.ok()) << cluster.error().message;
    cluster_ = std::move(cluster).value();
  }

  // Whether master `i` leads (false once it has terminated itself).
  bool leading(size_t i) {
    process::Pid<master::Master> pid(cluster_->master(i));
    auto future = process::dispatch(pid, &master::Master::leading);
    return future.await(10s) && future.isReady() && future.get();
  }

  // Waits until one master leads; its index.
  size_t awaitLeader() {
    size_t leader = 0;
    bool found = waitUntil(
        [&] {
          for (size_t i = 0; i < cluster_->masterCount(); ++i) {
            if (leading(i)) {
              leader = i;
              return true;
            }
          }
          return false;
        },
        30s);
    EXPECT_TRUE(found) << "no master was elected within 30 s";
    return leader;
  }

  Peer& peer(const std::string& id, bool slave) {
    auto p = std::make_unique<Peer>(id);
    if (slave) {
      p->accept<SlaveRegisteredMessage, SlaveReregisteredMessage, RunTaskMessage,
                KillTaskMessage, ShutdownFrameworkMessage, ShutdownMessage, PingSlaveMessage,
                UpdateFrameworkMessage, StatusUpdateAcknowledgementMessage>();
    } else {
      p->accept<FrameworkRegisteredMessage, FrameworkReregisteredMessage,
                ResourceOffersMessage, StatusUpdateMessage, FrameworkErrorMessage,
                RescindResourceOfferMessage, LostSlaveMessage>();
    }
    peers_.push_back(cluster_->runtime().spawn(std::move(p)));
    return *peers_.back().get();
  }

  static FrameworkInfo frameworkInfo(const std::string& id = "") {
    FrameworkInfo info;
    info.set_user("tester");
    info.set_name("election");
    if (!id.empty()) info.mutable_id()->set_value(id);
    return info;
  }

  // A slave this master has never seen comes back with `tasks` (of
  // framework `frameworkId`, running).
  static ReregisterSlaveMessage reregistration(const std::string& slaveId,
                                               const std::string& frameworkId,
                                               const std::vector<std::string>& tasks) {
    ReregisterSlaveMessage message;
    SlaveInfo* info = message.mutable_slave();
    info->set_hostname(slaveId + ".example");
    info->mutable_id()->set_value(slaveId);
    *info->mutable_resources() = Resources::parse("cpus:4;mem:4096").value().proto();
    message.set_version("1.0.0");
    FrameworkInfo* framework = message.add_frameworks();
    *framework = frameworkInfo(frameworkId);
    for (const std::string& id : tasks) {
      Task* task = message.add_tasks();
      task->set_name(id);
      task->mutable_task_id()->set_value(id);
      task->mutable_framework_id()->set_value(frameworkId);
      task->mutable_slave_id()->set_value(slaveId);
      task->set_state(TASK_RUNNING);
      *task->mutable_resources() = Resources::parse("cpus:1;mem:128").value().proto();
    }
    return message;
  }

  ZooKeeperServers zk_{1};
  master::MasterFlags flags_;
  std::unique_ptr<local::LocalCluster> cluster_;
  std::vector<process::Spawned<Peer>> peers_;
};

// The standby names the leader in /state (without elected_time), sends
// /master/redirect there, and does not answer what schedulers and slaves
// send it, saying so once per peer.
TEST_F(ElectionTest, AStandbyNamesTheLeaderAndAnswersNoMessageSayingSoOncePerPeer) {
  start(2);
  size_t leader = awaitLeader();
  size_t standby = 1 - leader;
  const process::UPID leaderPid = cluster_->master(leader);
  const std::string standbyPath = "/" + cluster_->master(standby).id;
  process::Address address = cluster_->runtime().address();
  ASSERT_TRUE(waitUntil(
      [&] { return getJson(address, standbyPath + "/state")["leader"].isString(); }, 30s));
  json::Value state = getJson(address, standbyPath + "/state");
  EXPECT_EQ(leaderPid.toString(), state["leader"].string());
  EXPECT_FALSE(state["elected_time"].isNumber());
  EXPECT_TRUE(getJson(address, "/" + leaderPid.id + "/state")["elected_time"].isNumber());
  std::string body, head;
  TcpClient client(address);
  ASSERT_TRUE(client.write("GET " + standbyPath + "/redirect HTTP/1.1\r\nHost: x\r\n\r\n"));
  int status = 0;
  ASSERT_TRUE(client.readResponse(&status, &body, 10000, &head));
  EXPECT_EQ(307, status);
  EXPECT_NE(std::string::npos, head.find(":" + std::to_string(leaderPid.address.port)))
      << head;
  // The v1 scheduler API sends its clients to the leader's.
  std::string call = "{\"type\":\"SUBSCRIBE\"}";
  ASSERT_TRUE(client.write("POST " + standbyPath +
                           "/api/v1/scheduler HTTP/1.1\r\nHost: x\r\nContent-Type: "
                           "application/json\r\nContent-Length: " +
                           std::to_string(call.size()) + "\r\n\r\n" + call));
  ASSERT_TRUE(client.readResponse(&status, &body, 10000, &head));
  EXPECT_EQ(307, status);
  EXPECT_NE(std::string::npos,
            head.find(":" + std::to_string(leaderPid.address.port) + "/api/v1/scheduler\r\n"))
      << head;

  WarningLog warnings;
  google::AddLogSink(&warnings);
  Peer& scheduler = peer("scheduler(1)", false);
  for (int i = 0; i < 5; ++i) {
    RegisterFrameworkMessage message;
    *message.mutable_framework() = frameworkInfo();
    scheduler.post(cluster_->master(standby), message);
  }
  EXPECT_TRUE(warnings.await({"Keeping", scheduler.self().toString(), "standby"}));
  cluster_->runtime().settle();
  google::RemoveLogSink(&warnings);
  EXPECT_EQ(1u, warnings.count("this master is a standby")) << warnings.all();
  EXPECT_TRUE(scheduler.received<FrameworkRegisteredMessage>().empty());
}

// A scheduler whose detector named the new leader before the master's own
// contender did: what it sent the standby is handled once the standby is
// elected, without waiting for the scheduler's retry.
TEST_F(ElectionTest, WhatAStandbyIsSentJustBeforeItsElectionIsHandledOnceElected) {
  start(2);
  size_t first = awaitLeader();
  size_t second = 1 - first;
  Peer& scheduler = peer("scheduler(1)", false);
  RegisterFrameworkMessage message;
  *message.mutable_framework() = frameworkInfo();
  scheduler.post(cluster_->master(second), message);
  cluster_->runtime().settle();
  EXPECT_TRUE(scheduler.received<FrameworkRegisteredMessage>().empty())
      << "a standby answered";
  cluster_->stopMaster(first);
  ASSERT_TRUE(waitUntil([&] { return leading(second); }, 30s));
  ASSERT_TRUE(
      waitUntil([&] { return scheduler.count<FrameworkRegisteredMessage>() == 1; }, 30s))
      << "the message sent to the standby was not handled after its election";
  EXPECT_EQ(cluster_->master(second).toString(),
            scheduler.received<FrameworkRegisteredMessage>()[0].master_info().pid());
}

// What a standby was sent longer than twice the session timeout before its
// election is dropped: its sender has retried by then.
TEST_F(ElectionTest, WhatAStandbyWasSentLongBeforeItsElectionIsDropped) {
  flags_.zk_session_timeout = 1s;
  start(2);
  size_t first = awaitLeader();
  size_t second = 1 - first;
  Peer& scheduler = peer("scheduler(1)", false);
  RegisterFrameworkMessage message;
  *message.mutable_framework() = frameworkInfo();
  scheduler.post(cluster_->master(second), message);
  cluster_->runtime().settle();
  auto sent = std::chrono::steady_clock::now();
  // Bounded wait on real time: the master's session is real ZooKeeper's.
  while (std::chrono::steady_clock::now() - sent < 2500ms) std::this_thread::sleep_for(50ms);
  cluster_->stopMaster(first);
  ASSERT_TRUE(waitUntil([&] { return leading(second); }, 30s));
  // A second scheduler registers after the election: once it is answered,
  // the first (had it been kept) would have been answered before it.
  Peer& later = peer("scheduler(2)", false);
  later.post(cluster_->master(second), message);
  ASSERT_TRUE(waitUntil([&] { return later.count<FrameworkRegisteredMessage>() == 1; }, 30s));
  cluster_->runtime().settle();
  EXPECT_TRUE(scheduler.received<FrameworkRegisteredMessage>().empty())
      << "a message older than twice the session timeout was handled";
}

// A slave repeats its re-registration until it is answered: a standby (and
// a new leader reading the registry) keeps only the latest from each slave,
// where the first stood, so that the retries of thousands of slaves after a
// failover are not each handled in turn.
TEST_F(ElectionTest, AStandbyKeepsOnlyTheLatestOfASlavesRepeatedReregistrations) {
  start(2);
  size_t first = awaitLeader();
  size_t second = 1 - first;
  Peer& slave = peer("slave(1)", true);
  slave.post(cluster_->master(second), reregistration("S1", "F1", {"a"}));
  slave.post(cluster_->master(second), reregistration("S1", "F1", {"a"}));
  slave.post(cluster_->master(second), reregistration("S1", "F1", {"a", "b"}));
  cluster_->runtime().settle();
  EXPECT_EQ(0u, slave.count<SlaveReregisteredMessage>()) << "a standby answered";
  cluster_->stopMaster(first);
  ASSERT_TRUE(waitUntil([&] { return leading(second); }, 30s));
  ASSERT_TRUE(waitUntil([&] { return slave.count<SlaveReregisteredMessage>() == 1; }, 30s));

  Peer& scheduler = peer("scheduler(1)", false);
  ReregisterFrameworkMessage reregister;
  *reregister.mutable_framework() = frameworkInfo("F1");
  scheduler.post(cluster_->master(second), reregister);
  ASSERT_TRUE(
      waitUntil([&] { return scheduler.count<FrameworkReregisteredMessage>() == 1; }, 30s));
  ReconcileTasksMessage reconcile;
  reconcile.mutable_framework_id()->set_value("F1");
  for (const char* task : {"a", "b"}) {
    TaskStatus* status = reconcile.add_statuses();
    status->mutable_task_id()->set_value(task);
    status->set_state(TASK_RUNNING);
    status->mutable_slave_id()->set_value("S1");
  }
  scheduler.post(cluster_->master(second), reconcile);
  ASSERT_TRUE(waitUntil([&] { return scheduler.count<StatusUpdateMessage>() == 2; }, 30s));
  for (const auto& update : scheduler.received<StatusUpdateMessage>()) {
    EXPECT_EQ(TASK_RUNNING, update.update().status().state())
        << update.update().status().task_id().value()
        << ": the latest re-registration was not the one handled";
  }
  cluster_->runtime().settle();
  EXPECT_EQ(1u, slave.count<SlaveReregisteredMessage>());
}

// Offers wait --allocation_settle_delay after the election.
TEST_F(ElectionTest, OffersWaitForReregistrationToSettle) {
  flags_.allocation_settle_delay = 1s;
  start(1);
  awaitLeader();
  auto elected = std::chrono::steady_clock::now();
  Peer& slave = peer("slave(1)", true);
  slave.post(cluster_->master(0), reregistration("S1", "F1", {}));
  Peer& scheduler = peer("scheduler(1)", false);
  RegisterFrameworkMessage message;
  *message.mutable_framework() = frameworkInfo();
  scheduler.post(cluster_->master(0), message);
  ASSERT_TRUE(waitUntil([&] { return scheduler.count<ResourceOffersMessage>() > 0; }, 30s));
  EXPECT_GE(std::chrono::steady_clock::now() - elected, 900ms)
      << "an offer came before re-registration settled";
}

// Without a durable registry (the paper's soft state), after an election
// explicit reconciliation of a task on a slave not yet back waits: answered
// with the task's state when the slave returns with it, TASK_LOST when it
// returns without it or the window ends. (With the registry the master
// knows which slaves to wait for: the next test.)
TEST_F(ElectionTest, ReconciliationWaitsForSlavesUntilTheWindowCloses) {
  flags_.registry = "in_memory";
  start(1);
  awaitLeader();
  process::UPID master = cluster_->master(0);
  Peer& scheduler = peer("scheduler(1)", false);
  ReregisterFrameworkMessage reregister;
  *reregister.mutable_framework() = frameworkInfo("F1");
  scheduler.post(master, reregister);
  ASSERT_TRUE(
      waitUntil([&] { return scheduler.count<FrameworkReregisteredMessage>() == 1; }, 30s));

  ReconcileTasksMessage reconcile;
  reconcile.mutable_framework_id()->set_value("F1");
  auto ask = [&](const std::string& task, const std::string& slave) {
    TaskStatus* status = reconcile.add_statuses();
    status->mutable_task_id()->set_value(task);
    status->set_state(TASK_RUNNING);
    if (!slave.empty()) status->mutable_slave_id()->set_value(slave);
  };
  ask("back", "S1");      // its slave comes back with it
  ask("missing", "S1");   // its slave comes back without it
  ask("anywhere", "");    // no slave named; a slave comes back with it
  ask("never", "S9");     // its slave never comes back
  scheduler.post(master, reconcile);
  cluster_->runtime().settle();
  EXPECT_EQ(0u, scheduler.count<StatusUpdateMessage>()) << "answered before the slaves are back";

  Peer& slave = peer("slave(1)", true);
  slave.post(master, reregistration("S1", "F1", {"back", "anywhere"}));
  ASSERT_TRUE(waitUntil([&] { return scheduler.count<StatusUpdateMessage>() == 3; }, 30s));
  std::map<std::string, TaskState> answers;
  for (const auto& update : scheduler.received<StatusUpdateMessage>()) {
    answers[update.update().status().task_id().value()] = update.update().status().state();
    EXPECT_EQ(TaskStatus::REASON_RECONCILIATION, update.update().status().reason());
  }
  EXPECT_EQ(TASK_RUNNING, answers["back"]);
  EXPECT_EQ(TASK_RUNNING, answers["anywhere"]);
  EXPECT_EQ(TASK_LOST, answers["missing"]);

  // The window (3 s) closes: the task whose slave never came back is lost.
  ASSERT_TRUE(waitUntil([&] { return scheduler.count<StatusUpdateMessage>() == 4; }, 30s));
  auto last = scheduler.received<StatusUpdateMessage>().back().update().status();
  EXPECT_EQ("never", last.task_id().value());
  EXPECT_EQ(TASK_LOST, last.state());
  // After the window, an unknown task is lost at once.
  ReconcileTasksMessage later;
  later.mutable_framework_id()->set_value("F1");
  later.add_statuses()->mutable_task_id()->set_value("ghost");
  later.mutable_statuses(0)->set_state(TASK_RUNNING);
  scheduler.post(master, later);
  ASSERT_TRUE(waitUntil([&] { return scheduler.count<StatusUpdateMessage>() == 5; }, 30s));
}

// With the registry in ZooKeeper, a new leader knows which slaves to wait
// for: reconciliation (explicit and implicit) waits for exactly those, and
// those not back when the window closes become unreachable.
TEST_F(ElectionTest, TheNewLeaderWaitsForTheSlavesTheRegistryListsThenMarksThemUnreachable) {
  start(2);
  size_t first = awaitLeader();
  process::UPID leader = cluster_->master(first);
  Peer& a = peer("slave-a", true);
  Peer& b = peer("slave-b", true);
  auto registration = [](const std::string& host) {
    RegisterSlaveMessage message;
    message.mutable_slave()->set_hostname(host);
    *message.mutable_slave()->mutable_resources() =
        Resources::parse("cpus:4;mem:4096").value().proto();
    message.set_version("1.0.0");
    return message;
  };
  a.post(leader, registration("slave-a.example"));
  b.post(leader, registration("slave-b.example"));
  ASSERT_TRUE(waitUntil([&] {
    return a.count<SlaveRegisteredMessage>() == 1 && b.count<SlaveRegisteredMessage>() == 1;
  }, 30s));
  const std::string idA = a.received<SlaveRegisteredMessage>()[0].slave_id().value();
  const std::string idB = b.received<SlaveRegisteredMessage>()[0].slave_id().value();

  // The leader goes; the other takes over and reads the registry.
  cluster_->stopMaster(first);
  size_t second = 1 - first;
  ASSERT_TRUE(waitUntil([&] { return leading(second); }, 30s));
  process::UPID master = cluster_->master(second);
  Peer& scheduler = peer("scheduler(1)", false);
  ReregisterFrameworkMessage reregister;
  *reregister.mutable_framework() = frameworkInfo("F1");
  reregister.mutable_framework()->add_capabilities()->set_type(
      FrameworkInfo::Capability::PARTITION_AWARE);
  scheduler.post(master, reregister);
  ASSERT_TRUE(
      waitUntil([&] { return scheduler.count<FrameworkReregisteredMessage>() == 1; }, 30s));
  ReconcileTasksMessage implicit;
  implicit.mutable_framework_id()->set_value("F1");
  scheduler.post(master, implicit);
  ReconcileTasksMessage onB;
  onB.mutable_framework_id()->set_value("F1");
  onB.add_statuses()->mutable_task_id()->set_value("on-b");
  onB.mutable_statuses(0)->set_state(TASK_RUNNING);
  onB.mutable_statuses(0)->mutable_slave_id()->set_value(idB);
  scheduler.post(master, onB);
  // A slave the registry does not list: answered at once.
  ReconcileTasksMessage elsewhere;
  elsewhere.mutable_framework_id()->set_value("F1");
  elsewhere.add_statuses()->mutable_task_id()->set_value("elsewhere");
  elsewhere.mutable_statuses(0)->set_state(TASK_RUNNING);
  elsewhere.mutable_statuses(0)->mutable_slave_id()->set_value("not-listed");
  scheduler.post(master, elsewhere);
  ASSERT_TRUE(waitUntil([&] { return scheduler.count<StatusUpdateMessage>() == 1; }, 30s));
  EXPECT_EQ(TASK_UNKNOWN, scheduler.received<StatusUpdateMessage>()[0].update().status().state());

  // A comes back with its task: no answer yet (B is still awaited).
  a.post(master, reregistration(idA, "F1", {"on-a"}));
  ASSERT_TRUE(waitUntil([&] { return a.count<SlaveReregisteredMessage>() == 1; }, 30s));
  cluster_->runtime().settle();
  EXPECT_EQ(1u, scheduler.count<StatusUpdateMessage>()) << "answered before B is accounted for";
  // The operator API lists B, and only B, as listed by the registry and
  // not back yet.
  {
    TcpClient client(cluster_->runtime().address());
    std::string call = "{\"type\":\"GET_AGENTS\"}";
    ASSERT_TRUE(client.write("POST /" + master.id +
                             "/api/v1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                             "Accept: application/json\r\nContent-Length: " +
                             std::to_string(call.size()) + "\r\n\r\n" + call));
    int status = 0;
    std::string body;
    ASSERT_TRUE(client.readResponse(&status, &body, 10000));
    ASSERT_EQ(200, status) << body;
    auto answer = json::parse(body);
    ASSERT_TRUE(answer.ok()) << body;
    const json::Value& recovered = (*answer)["get_agents"]["recovered_agents"];
    ASSERT_TRUE(recovered.isArray()) << body;
    ASSERT_EQ(1u, recovered.array().size()) << body;
    EXPECT_EQ("slave-b.example", recovered.array()[0]["hostname"].string()) << body;
    EXPECT_EQ(idB, recovered.array()[0]["id"]["value"].string()) << body;
  }

  // The window (3 s) closes: B is unreachable; both answers come.
  ASSERT_TRUE(waitUntil([&] { return scheduler.count<StatusUpdateMessage>() == 3; }, 30s));
  std::map<std::string, TaskStatus> answers;
  for (const auto& update : scheduler.received<StatusUpdateMessage>()) {
    answers[update.update().status().task_id().value()] = update.update().status();
  }
  EXPECT_EQ(TASK_RUNNING, answers["on-a"].state());
  EXPECT_EQ(TASK_UNREACHABLE, answers["on-b"].state());
  EXPECT_TRUE(answers["on-b"].has_unreachable_time());
  EXPECT_EQ(1u, scheduler.count<LostSlaveMessage>());

  // B comes back late: welcomed back (it is only unreachable).
  b.post(master, reregistration(idB, "F1", {}));
  ASSERT_TRUE(waitUntil([&] { return b.count<SlaveReregisteredMessage>() == 1; }, 30s));
  EXPECT_EQ(0u, b.count<ShutdownMessage>());
}

// More of the listed slaves missing than --recovery_agent_removal_limit
// allows: the new leader marks none unreachable and gives up leading.
TEST_F(ElectionTest, TooManyListedSlavesMissingMakesTheLeaderGiveUp) {
  flags_.recovery_agent_removal_limit = "40%";
  start(2);
  size_t first = awaitLeader();
  process::UPID leader = cluster_->master(first);
  Peer& a = peer("slave-a", true);
  Peer& b = peer("slave-b", true);
  for (Peer* p : {&a, &b}) {
    RegisterSlaveMessage message;
    message.mutable_slave()->set_hostname(p->id() + ".example");
    *message.mutable_slave()->mutable_resources() =
        Resources::parse("cpus:1;mem:512").value().proto();
    p->post(leader, message);
  }
  ASSERT_TRUE(waitUntil([&] {
    return a.count<SlaveRegisteredMessage>() == 1 && b.count<SlaveRegisteredMessage>() == 1;
  }, 30s));
  cluster_->stopMaster(first);
  size_t second = 1 - first;
  ASSERT_TRUE(waitUntil([&] { return leading(second); }, 30s));
  // Only A comes back: half of the listed slaves are missing (> 40%).
  const std::string idA = a.received<SlaveRegisteredMessage>()[0].slave_id().value();
  a.post(cluster_->master(second), reregistration(idA, "F1", {}));
  ASSERT_TRUE(waitUntil([&] { return a.count<SlaveReregisteredMessage>() == 1; }, 30s));
  EXPECT_TRUE(waitUntil([&] { return !leading(second); }, 30s))
      << "the leader did not give up after the window closed";
}

// A framework known only from a slave's report keeps its tasks for its
// failover timeout (at least the re-registration window) counted from the
// election; one that comes back in time keeps them for good.
TEST_F(ElectionTest, FrameworksNotBackInTimeAreShutDownOnTheirSlaves) {
  start(1);
  awaitLeader();
  process::UPID master = cluster_->master(0);
  Peer& slave = peer("slave(1)", true);
  ReregisterSlaveMessage message = reregistration("S1", "gone", {"a"});
  ReregisterSlaveMessage back = reregistration("S1", "back", {"b"});
  *message.add_frameworks() = back.frameworks(0);
  *message.add_tasks() = back.tasks(0);
  slave.post(master, message);
  ASSERT_TRUE(waitUntil([&] { return slave.count<SlaveReregisteredMessage>() == 1; }, 30s));
  Peer& scheduler = peer("scheduler(1)", false);
  ReregisterFrameworkMessage reregister;
  *reregister.mutable_framework() = frameworkInfo("back");
  scheduler.post(master, reregister);
  ASSERT_TRUE(
      waitUntil([&] { return scheduler.count<FrameworkReregisteredMessage>() == 1; }, 30s));
  // The slave learns where the returning framework's scheduler is.
  ASSERT_TRUE(waitUntil([&] { return slave.count<UpdateFrameworkMessage>() == 1; }, 30s));
  EXPECT_EQ(scheduler.self().toString(), slave.received<UpdateFrameworkMessage>()[0].pid());

  // --slave_reregister_timeout (3 s; the framework's own timeout is 0).
  ASSERT_TRUE(waitUntil([&] { return slave.count<ShutdownFrameworkMessage>() >= 1; }, 30s));
  cluster_->runtime().settle();
  auto shutdowns = slave.received<ShutdownFrameworkMessage>();
  ASSERT_EQ(1u, shutdowns.size());
  EXPECT_EQ("gone", shutdowns[0].framework_id().value());
  json::Value state = getJson(cluster_->runtime().address(), "/master/state");
  EXPECT_EQ(1, state["frameworks"].array().size());
  EXPECT_EQ(0, state["unregistered_frameworks"].array().size());
}

// The maintenance schedule and the machines' modes (docs/maintenance.md)
// are in the registry in ZooKeeper: the next leader serves them.
TEST_F(ElectionTest, TheMaintenanceScheduleAndModesSurviveAFailover) {
  start(2);
  size_t first = awaitLeader();
  process::Address address = cluster_->runtime().address();
  const std::string firstPath = "/" + cluster_->master(first).id;
  auto post = [&](const std::string& path, const std::string& body) {
    TcpClient client(address);
    EXPECT_TRUE(client.write("POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\n\r\n" + body));
    int status = 0;
    std::string answer;
    EXPECT_TRUE(client.readResponse(&status, &answer, 10000));
    return status;
  };
  const std::string node1 = R"({"hostname": "node1", "ip": "10.0.0.1"})";
  const std::string node2 = R"({"hostname": "node2", "ip": "10.0.0.2"})";
  // 503 until the new leader has read the registry.
  const std::string schedule = R"({"windows": [{"machine_ids": [)" + node1 + ", " + node2 +
                               R"(], "unavailability": {"start": {"nanoseconds": 5000000000}}}]})";
  ASSERT_TRUE(
      waitUntil([&] { return post(firstPath + "/maintenance/schedule", schedule) == 200; }, 30s));
  ASSERT_EQ(200, post(firstPath + "/machine/down", "[" + node1 + "]"));

  cluster_->stopMaster(first);
  size_t second = 1 - first;
  ASSERT_TRUE(waitUntil([&] { return leading(second); }, 30s));
  const std::string secondPath = "/" + cluster_->master(second).id;
  // 503 until it has read the registry.
  json::Value stored;
  ASSERT_TRUE(waitUntil(
      [&] {
        stored = getJson(address, secondPath + "/maintenance/schedule");
        return stored.isObject();
      },
      30s));
  ASSERT_EQ(1u, stored["windows"].array().size());
  EXPECT_EQ(2u, stored["windows"].array()[0]["machine_ids"].array().size());
  json::Value status = getJson(address, secondPath + "/maintenance/status");
  ASSERT_EQ(1u, status["down_machines"].array().size());
  EXPECT_EQ("node1", status["down_machines"].array()[0]["hostname"].string());
  ASSERT_EQ(1u, status["draining_machines"].array().size());
  EXPECT_EQ("node2", status["draining_machines"].array()[0]["id"]["hostname"].string());
}

}  // namespace
}  // namespace mesos::test
