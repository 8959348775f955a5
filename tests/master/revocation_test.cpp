// Guarantees and revocation on the master, end to end with the real
// allocator: a framework below its role's guarantee waits
// --revocation_timeout, then the master kills the youngest tasks of a
// framework above its guarantee and, after --revocation_grace_period, shuts
// down the executors of those that did not end. Also the master's role
// checks, the guarantee in registration answers, /master/roles and the
// revocation metrics. Stand-in schedulers and slaves (Peer actors), paused
// clock.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "process/dispatch.hpp"
#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using namespace mesos::internal;
using master::Master;
using master::MasterFlags;
using process::Spawned;
using process::UPID;

class MasterRevocationTest : public MasterFixture {
 protected:
  MasterRevocationTest() {
    flags_.guarantees = "a:cpus:2";
    flags_.revocation_timeout = 10s;
  }

  FrameworkID registerFramework(Peer& scheduler, const std::string& role) {
    return MasterFixture::registerFramework(scheduler, frameworkInfo(scheduler.id(), role));
  }

  static TaskInfo commandTask(const std::string& id, const SlaveID& slaveId,
                              const std::string& resources = "cpus:1;mem:1024") {
    return MasterFixture::commandTask(id, slaveId, resources, "sleep 1000");
  }

  // Launches `tasks` (in this order) on the scheduler's latest offer.
  void launch(Peer& scheduler, const FrameworkID& frameworkId, const std::vector<TaskInfo>& tasks,
              double refuseSeconds = 5) {
    auto offers = scheduler.received<ResourceOffersMessage>();
    CHECK(!offers.empty()) << "no offers";
    MasterFixture::launch(scheduler, frameworkId, {offers.back().offers(0).id()}, tasks,
                          refuseSeconds);
  }

  // The slave reports `state` for the task (with a uuid, as slaves do).
  void report(Peer& slave, const FrameworkID& frameworkId, const SlaveID& slaveId,
              const std::string& taskId, TaskState state) {
    slave.post(master(), update(frameworkId, slaveId, taskId, state, slave));
    runtime_->settle();
  }

  static std::vector<std::string> killed(Peer& slave) {
    std::vector<std::string> ids;
    for (const auto& kill : slave.received<KillTaskMessage>()) {
      ids.push_back(kill.task_id().value());
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  // The cpus offered to the scheduler so far, summed over every offer.
  static double offeredCpus(Peer& scheduler) {
    double cpus = 0;
    for (const auto& message : scheduler.received<ResourceOffersMessage>()) {
      for (const Offer& offer : message.offers()) {
        cpus += Resources(offer.resources()).scalar("cpus");
      }
    }
    return cpus;
  }
};

// The paper's scenario: B (no guarantee) holds the whole slave; A (role "a",
// guaranteed 2 cpus) arrives. After the timeout B's two youngest tasks are
// killed; the one that does not end in the grace period has its executor
// shut down; A is offered the freed cpus.
TEST_F(MasterRevocationTest, YoungestTasksOfAFrameworkAboveItsGuaranteeAreRevoked) {
  start();
  Peer& agent = slave("slave(1)");
  Peer& b = scheduler("scheduler(b)");
  Peer& a = scheduler("scheduler(a)");
  SlaveID slaveId = registerSlave(agent);
  FrameworkID bId = registerFramework(b, "b");
  launch(b, bId,
         {commandTask("b1", slaveId), commandTask("b2", slaveId), commandTask("b3", slaveId),
          commandTask("b4", slaveId)});
  ASSERT_EQ(4u, agent.count<RunTaskMessage>());
  for (const char* task : {"b1", "b2", "b3", "b4"}) {
    report(agent, bId, slaveId, task, TASK_RUNNING);
  }

  FrameworkID aId = registerFramework(a, "a");
  ASSERT_EQ(1, a.received<FrameworkRegisteredMessage>()[0].guarantee_size());
  EXPECT_EQ(0u, a.count<ResourceOffersMessage>()) << "nothing is free";

  // Within the timeout nothing is revoked.
  for (int i = 0; i < 9; ++i) advance(1s);
  EXPECT_EQ(0u, agent.count<KillTaskMessage>());

  // Past it (plus an allocation interval), B's two youngest tasks go.
  for (int i = 0; i < 3 && agent.count<KillTaskMessage>() == 0; ++i) advance(1s);
  EXPECT_EQ((std::vector<std::string>{"b3", "b4"}), killed(agent));
  for (const auto& kill : agent.received<KillTaskMessage>()) {
    EXPECT_EQ(bId.value(), kill.framework_id().value());
  }

  // b4 ends in time; b3 ignores the kill.
  report(agent, bId, slaveId, "b4", TASK_KILLED);
  EXPECT_EQ(1, offeredCpus(a)) << "A gets what b4 freed";
  // B learns why: the update it gets says the task was preempted.
  auto updates = b.received<StatusUpdateMessage>();
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ("b4", updates.back().update().status().task_id().value());
  EXPECT_EQ(TASK_KILLED, updates.back().update().status().state());
  EXPECT_EQ(TaskStatus::REASON_CONTAINER_PREEMPTED, updates.back().update().status().reason());
  advance(4s);
  EXPECT_EQ(0u, agent.count<ShutdownExecutorMessage>()) << "still within the grace period";

  advance(2s);
  auto shutdowns = agent.received<ShutdownExecutorMessage>();
  ASSERT_EQ(1u, shutdowns.size());
  EXPECT_EQ("b3", shutdowns[0].executor_id().value()) << "a command task's executor";
  EXPECT_EQ(bId.value(), shutdowns[0].framework_id().value());

  // The executor's end ends b3; A now has both cpus.
  report(agent, bId, slaveId, "b3", TASK_KILLED);
  EXPECT_EQ(2, offeredCpus(a));
  Offer latest = a.received<ResourceOffersMessage>().back().offers(0);
  EXPECT_EQ(aId.value(), latest.framework_id().value());

  // A is at its guarantee: nothing more is revoked, however long.
  for (int i = 0; i < 30; ++i) advance(1s);
  EXPECT_EQ(2u, agent.count<KillTaskMessage>());
  EXPECT_EQ(1u, agent.count<ShutdownExecutorMessage>());

  runtime_->clock().resume();
  json::Value metrics = get("/metrics/snapshot");
  EXPECT_EQ(2, metrics["master/tasks_revoked"].integer());
  EXPECT_EQ(1, metrics["master/revocation_executor_shutdowns"].integer());
  EXPECT_EQ(1, metrics["allocator/revocations"].integer());
}

// Tasks on resources reserved for the victim's role free nothing the
// beneficiary could be offered: the youngest tasks on unreserved resources
// go instead, however young the reserved ones are.
TEST_F(MasterRevocationTest, TasksOnAnotherRolesReservationAreNotRevokedForIt) {
  start();
  Peer& agent = slave("slave(1)");
  Peer& b = scheduler("scheduler(b)");
  Peer& a = scheduler("scheduler(a)");
  SlaveID slaveId = registerSlave(agent, "cpus:2;cpus(b):2;mem:4096");
  FrameworkID bId = registerFramework(b, "b");
  launch(b, bId,
         {commandTask("b1", slaveId), commandTask("b2", slaveId),
          commandTask("b3", slaveId, "cpus(b):1;mem:1024"),
          commandTask("b4", slaveId, "cpus(b):1;mem:1024")});
  ASSERT_EQ(4u, agent.count<RunTaskMessage>());
  for (const char* task : {"b1", "b2", "b3", "b4"}) {
    report(agent, bId, slaveId, task, TASK_RUNNING);
  }
  registerFramework(a, "a");
  for (int i = 0; i < 13 && agent.count<KillTaskMessage>() == 0; ++i) advance(1s);
  EXPECT_EQ((std::vector<std::string>{"b1", "b2"}), killed(agent));
}

// A framework whose role holds no more than its guarantee is never a victim.
TEST_F(MasterRevocationTest, FrameworkWithinItsGuaranteeIsNeverAVictim) {
  flags_.guarantees = "a:cpus:2,b:cpus:4";
  start();
  Peer& agent = slave("slave(1)");
  Peer& b = scheduler("scheduler(b)");
  Peer& a = scheduler("scheduler(a)");
  SlaveID slaveId = registerSlave(agent);
  FrameworkID bId = registerFramework(b, "b");
  launch(b, bId,
         {commandTask("b1", slaveId), commandTask("b2", slaveId), commandTask("b3", slaveId),
          commandTask("b4", slaveId)});
  registerFramework(a, "a");
  for (int i = 0; i < 100; ++i) advance(1s);  // ten timeouts
  EXPECT_EQ(0u, agent.count<KillTaskMessage>());
  EXPECT_EQ(0u, agent.count<ShutdownExecutorMessage>());
  EXPECT_EQ(0u, a.count<ResourceOffersMessage>());
  EXPECT_EQ(0u, b.count<RescindResourceOfferMessage>());

  runtime_->clock().resume();
  json::Value metrics = get("/metrics/snapshot");
  EXPECT_EQ(0, metrics["master/tasks_revoked"].integer());
  EXPECT_EQ(0, metrics["master/revocation_executor_shutdowns"].integer());
  EXPECT_EQ(0, metrics["allocator/revocations"].integer());
}

// The victim's outstanding offer on the slave is rescinded first and counts
// towards the amount: one task is enough.
TEST_F(MasterRevocationTest, OutstandingOffersAreRescindedFirst) {
  start();
  Peer& agent = slave("slave(1)");
  Peer& b = scheduler("scheduler(b)");
  Peer& a = scheduler("scheduler(a)");
  SlaveID slaveId = registerSlave(agent);
  FrameworkID bId = registerFramework(b, "b");
  // Three tasks; the rest (1 cpu) comes straight back to B as a new offer.
  launch(b, bId, {commandTask("b1", slaveId), commandTask("b2", slaveId),
                  commandTask("b3", slaveId)}, 0);
  auto offers = b.received<ResourceOffersMessage>();
  ASSERT_EQ(2u, offers.size());
  OfferID held = offers.back().offers(0).id();
  EXPECT_EQ(1, Resources(offers.back().offers(0).resources()).scalar("cpus"));

  registerFramework(a, "a");
  for (int i = 0; i < 12 && agent.count<KillTaskMessage>() == 0; ++i) advance(1s);
  auto rescinds = b.received<RescindResourceOfferMessage>();
  ASSERT_EQ(1u, rescinds.size());
  EXPECT_EQ(held.value(), rescinds[0].offer_id().value());
  EXPECT_EQ(std::vector<std::string>{"b3"}, killed(agent));
  report(agent, bId, slaveId, "b3", TASK_KILLED);
  EXPECT_EQ(2, offeredCpus(a));
}

// Called directly: youngest first, skipping a task that would take more
// than the limit; nothing for a framework or slave the master does not know.
TEST_F(MasterRevocationTest, TasksAreTakenYoungestFirstWithinTheLimit) {
  flags_.guarantees.reset();
  start();
  Peer& agent = slave("slave(1)");
  Peer& b = scheduler("scheduler(b)");
  SlaveID slaveId = registerSlave(agent, "cpus:5;mem:4096");
  FrameworkID bId = registerFramework(b, "b");
  launch(b, bId,
         {commandTask("t1", slaveId, "cpus:1;mem:1024"),
          commandTask("t2", slaveId, "cpus:1;mem:1024"),
          commandTask("t3", slaveId, "cpus:2;mem:1024"),
          commandTask("t4", slaveId, "cpus:1;mem:1024")});

  allocator::Revocation revocation;
  revocation.frameworkId = bId;
  revocation.slaveId = slaveId;
  revocation.amount = Resources::parse("cpus:2").value();
  revocation.limit = Resources::parse("cpus:2;mem:4096").value();
  revocation.beneficiary.set_value("someone");

  allocator::Revocation unknown = revocation;
  unknown.frameworkId.set_value("no-such-framework");
  process::dispatch(master_.pid(), &Master::revoke, unknown);
  unknown = revocation;
  unknown.slaveId.set_value("no-such-slave");
  process::dispatch(master_.pid(), &Master::revoke, unknown);
  runtime_->settle();
  EXPECT_EQ(0u, agent.count<KillTaskMessage>());

  process::dispatch(master_.pid(), &Master::revoke, revocation);
  runtime_->settle();
  // t4 (1 cpu), not t3 (2 more would pass the limit), then t2.
  EXPECT_EQ((std::vector<std::string>{"t2", "t4"}), killed(agent));

  // Asked again before they end: they count as freed, nothing more dies.
  process::dispatch(master_.pid(), &Master::revoke, revocation);
  runtime_->settle();
  EXPECT_EQ(2u, agent.count<KillTaskMessage>());

  // Both ignore the kill: both executors are shut down, once each.
  advance(5s);
  std::set<std::string> executors;
  for (const auto& shutdown : agent.received<ShutdownExecutorMessage>()) {
    executors.insert(shutdown.executor_id().value());
  }
  EXPECT_EQ((std::set<std::string>{"t2", "t4"}), executors);
  EXPECT_EQ(2u, agent.count<ShutdownExecutorMessage>());
}

TEST_F(MasterRevocationTest, RegistrationAnswersCarryTheRoleGuarantee) {
  flags_.guarantees = "a:cpus:2;mem:1024";
  start();
  Peer& a = scheduler("scheduler(a)");
  Peer& b = scheduler("scheduler(b)");
  FrameworkID aId = registerFramework(a, "a");
  registerFramework(b, "b");

  Resources guarantee(a.received<FrameworkRegisteredMessage>()[0].guarantee());
  EXPECT_EQ(2, guarantee.scalar("cpus"));
  EXPECT_EQ(1024, guarantee.scalar("mem"));
  EXPECT_EQ(0, b.received<FrameworkRegisteredMessage>()[0].guarantee_size()) << "no guarantee";

  ReregisterFrameworkMessage reregister;
  *reregister.mutable_framework() = frameworkInfo("scheduler(a)", "a");
  reregister.mutable_framework()->mutable_id()->CopyFrom(aId);
  reregister.set_failover(false);
  a.post(master(), reregister);
  runtime_->settle();
  auto reregistered = a.received<FrameworkReregisteredMessage>();
  ASSERT_EQ(1u, reregistered.size());
  EXPECT_EQ(guarantee, Resources(reregistered[0].guarantee()));
}

// Role names are checked as Apache Mesos checks them; hierarchical ones
// ("eng/backend") register.
TEST_F(MasterRevocationTest, AnInvalidRoleNameIsRefusedAndAHierarchicalOneRegisters) {
  start();
  Peer& bad = scheduler("scheduler(bad)");
  RegisterFrameworkMessage message;
  *message.mutable_framework() = frameworkInfo("bad", "eng//backend");
  bad.post(master(), message);
  runtime_->settle();
  auto errors = bad.received<FrameworkErrorMessage>();
  ASSERT_EQ(1u, errors.size());
  EXPECT_EQ("Role 'eng//backend' cannot contain two adjacent slashes", errors[0].message());
  EXPECT_EQ(0u, bad.count<FrameworkRegisteredMessage>());

  Peer& good = scheduler("scheduler(good)");
  *message.mutable_framework() = frameworkInfo("good", "eng/backend");
  good.post(master(), message);
  runtime_->settle();
  EXPECT_EQ(1u, good.count<FrameworkRegisteredMessage>());
  EXPECT_EQ(0u, good.count<FrameworkErrorMessage>());
}

TEST_F(MasterRevocationTest, RolesOutsideTheMastersRolesAreRefused) {
  flags_.roles = "a,b";
  start();
  Peer& x = scheduler("scheduler(x)");
  RegisterFrameworkMessage message;
  *message.mutable_framework() = frameworkInfo("x", "x");
  x.post(master(), message);
  runtime_->settle();
  auto errors = x.received<FrameworkErrorMessage>();
  ASSERT_EQ(1u, errors.size());
  EXPECT_EQ("Role 'x' is not one of the master's --roles (a, b)", errors[0].message());
  EXPECT_EQ(0u, x.count<FrameworkRegisteredMessage>());

  // The default role "*" is not among them either.
  Peer& star = scheduler("scheduler(star)");
  message.mutable_framework()->clear_role();
  star.post(master(), message);
  runtime_->settle();
  ASSERT_EQ(1u, star.count<FrameworkErrorMessage>());
  EXPECT_NE(std::string::npos,
            star.received<FrameworkErrorMessage>()[0].message().find("Role '*'"));

  // Nor may a framework come back with one.
  Peer& back = scheduler("scheduler(back)");
  ReregisterFrameworkMessage reregister;
  *reregister.mutable_framework() = frameworkInfo("back", "x");
  reregister.mutable_framework()->mutable_id()->set_value("some-framework");
  reregister.set_failover(true);
  back.post(master(), reregister);
  runtime_->settle();
  EXPECT_EQ(1u, back.count<FrameworkErrorMessage>());
  EXPECT_EQ(0u, back.count<FrameworkRegisteredMessage>());
  EXPECT_EQ(0u, back.count<FrameworkReregisteredMessage>());

  Peer& a = scheduler("scheduler(a)");
  registerFramework(a, "a");
  EXPECT_EQ(0u, a.count<FrameworkErrorMessage>());
}

TEST_F(MasterRevocationTest, RolesEndpointListsConfiguredAndUsedRoles) {
  flags_.roles = "a,b,c,d";
  flags_.weights = "a=2";
  flags_.priorities = "b=3";
  flags_.guarantees = "a:cpus:4;mem:8192";
  start();
  Peer& agent = slave("slave(1)");
  Peer& b = scheduler("scheduler(b)");
  registerSlave(agent, "cpus:4;mem:4096");
  FrameworkID bId = registerFramework(b, "b");
  ASSERT_EQ(1u, b.count<ResourceOffersMessage>());

  runtime_->clock().resume();
  json::Value body = get("/master/roles");
  ASSERT_TRUE(body["roles"].isArray());
  const json::Array& roles = body["roles"].array();
  ASSERT_EQ(4u, roles.size()) << json::stringify(body);
  EXPECT_EQ("a", roles[0]["name"].string());
  EXPECT_EQ(2, roles[0]["weight"].number());
  EXPECT_EQ(0, roles[0]["priority"].integer());
  EXPECT_EQ(4, roles[0]["guarantee"]["cpus"].number());
  EXPECT_EQ(8192, roles[0]["guarantee"]["mem"].number());
  EXPECT_TRUE(roles[0]["frameworks"].array().empty());
  EXPECT_EQ(0, roles[0]["resources"]["cpus"].number());

  EXPECT_EQ("b", roles[1]["name"].string());
  EXPECT_EQ(1, roles[1]["weight"].number());
  EXPECT_EQ(3, roles[1]["priority"].integer());
  EXPECT_TRUE(roles[1]["guarantee"].object().empty());
  ASSERT_EQ(1u, roles[1]["frameworks"].array().size());
  EXPECT_EQ(bId.value(), roles[1]["frameworks"].array()[0].string());
  EXPECT_EQ(4, roles[1]["resources"]["cpus"].number()) << "offered counts";
  EXPECT_EQ(4096, roles[1]["resources"]["mem"].number());

  EXPECT_EQ("c", roles[2]["name"].string());
  EXPECT_EQ("d", roles[3]["name"].string());
}

// Whether the cluster can meet every guarantee at once follows the slaves.
TEST_F(MasterRevocationTest, RolesEndpointSaysWhetherTheGuaranteesFitTheCluster) {
  flags_.guarantees = "a:cpus:4,b:cpus:2";
  start();
  Peer& first = slave("slave(1)");
  Peer& second = slave("slave(2)");
  registerSlave(first, "cpus:4;mem:4096");
  runtime_->clock().resume();
  json::Value body = get("/master/roles");
  EXPECT_EQ(6, body["guarantees"]["total"]["cpus"].number()) << json::stringify(body);
  EXPECT_EQ(4, body["guarantees"]["cluster"]["cpus"].number());
  EXPECT_FALSE(body["guarantees"]["satisfiable"].boolean());
  runtime_->clock().pause();
  registerSlave(second, "cpus:4;mem:4096");
  runtime_->clock().resume();
  body = get("/master/roles");
  EXPECT_EQ(8, body["guarantees"]["cluster"]["cpus"].number());
  EXPECT_TRUE(body["guarantees"]["satisfiable"].boolean());
}

// Without --roles, a role no flag names shows up once a framework uses it.
TEST_F(MasterRevocationTest, RolesEndpointShowsRolesInUse) {
  start();
  Peer& x = scheduler("scheduler(x)");
  FrameworkID xId = registerFramework(x, "x");
  runtime_->clock().resume();
  json::Value body = get("/master/roles");
  const json::Array& roles = body["roles"].array();
  ASSERT_EQ(2u, roles.size()) << json::stringify(body);
  EXPECT_EQ("a", roles[0]["name"].string());  // from --guarantees
  EXPECT_EQ(2, roles[0]["guarantee"]["cpus"].number());
  EXPECT_EQ("x", roles[1]["name"].string());
  EXPECT_EQ(xId.value(), roles[1]["frameworks"].array()[0].string());
}

}  // namespace
}  // namespace mesos::test
