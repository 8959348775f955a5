// Maintenance (docs/maintenance.md) against a real master with stand-in
// schedulers and slaves on the paused clock: the schedule and its
// validation, unavailability in offers, inverse offers declined and
// accepted as /maintenance/status shows them, machines brought down (their
// agents removed and refused) and up, what survives a master failover, the
// ACLs, and the v1 operator calls in both encodings.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/protobuf_json.hpp"
#include "support/master_fixture.hpp"
#include "support/net.hpp"
#include "support/raw_peer.hpp"
#include "v1/master.pb.h"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using Call = v1::master::Call;
using V1Response = v1::master::Response;

constexpr const char* kJson = "application/json";
constexpr const char* kProtobuf = "application/x-protobuf";

std::string basic(const std::string& principal) {
  if (principal == "ops") return "Authorization: Basic b3BzOm9wcy1zZWNyZXQ=\r\n";
  if (principal == "alice") return "Authorization: Basic YWxpY2U6YWxpY2Utc2VjcmV0\r\n";
  return "";
}

class MaintenanceTest : public MasterFixture {
 protected:
  void TearDown() override {
    MasterFixture::TearDown();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  HttpResponse request(const std::string& method, const std::string& path,
                       const std::string& body = "", const std::string& principal = "",
                       const std::string& contentType = kJson,
                       const std::string& accept = kJson) {
    RawPeer peer(runtime_->address());
    EXPECT_TRUE(peer.write(method + " " + path + " HTTP/1.1\r\nHost: test\r\nContent-Type: " +
                           contentType + "\r\nAccept: " + accept + "\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n" + basic(principal) + "\r\n" +
                           body));
    auto response = peer.readResponse();
    EXPECT_TRUE(response.has_value()) << "no answer to " << method << " " << path;
    runtime_->settle();
    return response.value_or(HttpResponse{});
  }
  HttpResponse post(const std::string& path, const std::string& body,
                    const std::string& principal = "") {
    return request("POST", path, body, principal);
  }

  // A scheduler that also records inverse offers and their rescinds.
  Peer& maintainedScheduler(const std::string& id) {
    auto peer = std::make_unique<Peer>(id);
    peer->accept<FrameworkRegisteredMessage, ResourceOffersMessage, RescindResourceOfferMessage,
                 StatusUpdateMessage, LostSlaveMessage, InverseOffersMessage,
                 RescindInverseOfferMessage>();
    peers_.push_back(runtime_->spawn(std::move(peer)));
    return *peers_.back().get();
  }

  // The machine a stand-in slave is on: its hostname and the runtime's IP.
  std::string machine(const Peer& slave) const {
    return R"({"hostname": ")" + slave.id() + R"(.example", "ip": ")" +
           runtime_->address().ipString() + R"("})";
  }
  static std::string window(const std::vector<std::string>& machines, int64_t startSeconds,
                            int64_t durationSeconds = 3600) {
    std::string ids;
    for (const std::string& m : machines) ids += (ids.empty() ? "" : ", ") + m;
    return R"({"machine_ids": [)" + ids + R"(], "unavailability": {"start": {"nanoseconds": )" +
           std::to_string(startSeconds * 1000000000) + R"(}, "duration": {"nanoseconds": )" +
           std::to_string(durationSeconds * 1000000000) + "}}}";
  }
  static std::string schedule(const std::vector<std::string>& windows) {
    std::string body;
    for (const std::string& w : windows) body += (body.empty() ? "" : ", ") + w;
    return R"({"windows": [)" + body + "]}";
  }

  maintenance::ClusterStatus status(const std::string& principal = "") {
    HttpResponse answer = request("GET", "/maintenance/status", "", principal);
    EXPECT_EQ(200, answer.status) << answer.body;
    maintenance::ClusterStatus status;
    auto parsed = fromJson(answer.body, &status);
    EXPECT_TRUE(parsed) << answer.body;
    return status;
  }
  maintenance::Schedule scheduled(const std::string& principal = "") {
    HttpResponse answer = request("GET", "/maintenance/schedule", "", principal);
    EXPECT_EQ(200, answer.status) << answer.body;
    maintenance::Schedule schedule;
    auto parsed = fromJson(answer.body, &schedule);
    EXPECT_TRUE(parsed) << answer.body;
    return schedule;
  }

  // A framework (partition-aware or not) running one task on `slave`.
  FrameworkID runOn(Peer& scheduler, Peer& slave, const SlaveID& slaveId, const std::string& task,
                    bool aware) {
    FrameworkInfo info = frameworkInfo(scheduler.id());
    if (aware) info.add_capabilities()->set_type(FrameworkInfo::Capability::PARTITION_AWARE);
    FrameworkID id = registerFramework(scheduler, info);
    advance(flags_.allocation_interval);
    auto offers = scheduler.received<ResourceOffersMessage>();
    CHECK(!offers.empty()) << "no offer for " << scheduler.id();
    launch(scheduler, id, {offers.back().offers(0).id()},
           {commandTask(task, slaveId, "cpus:1;mem:128")});
    slave.post(master(), update(id, slaveId, task, TASK_RUNNING, slave));
    runtime_->settle();
    return id;
  }

  void answer(Peer& scheduler, const FrameworkID& id, const OfferID& inverseOffer, bool accept,
              double refuseSeconds) {
    scheduler::Call call;
    *call.mutable_framework_id() = id;
    call.set_type(accept ? scheduler::Call::ACCEPT_INVERSE_OFFERS
                         : scheduler::Call::DECLINE_INVERSE_OFFERS);
    auto* answer = accept ? call.mutable_accept_inverse_offers()->mutable_inverse_offer_ids()
                          : call.mutable_decline_inverse_offers()->mutable_inverse_offer_ids();
    *answer->Add() = inverseOffer;
    Filters* filters = accept ? call.mutable_accept_inverse_offers()->mutable_filters()
                              : call.mutable_decline_inverse_offers()->mutable_filters();
    filters->set_refuse_seconds(refuseSeconds);
    scheduler.post(master(), call);
    runtime_->settle();
  }

  static std::vector<TaskStatus> statuses(Peer& scheduler, const std::string& taskId) {
    std::vector<TaskStatus> out;
    for (const auto& m : scheduler.received<StatusUpdateMessage>()) {
      if (m.update().status().task_id().value() == taskId) out.push_back(m.update().status());
    }
    return out;
  }

  std::string tempDir() {
    dir_ = std::filesystem::temp_directory_path() /
           ("maintenance-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    return dir_;
  }

  std::string dir_;
};

TEST_F(MaintenanceTest, AScheduleIsValidatedStoredAndReadBack) {
  start();
  Peer& a = slave("a");
  Peer& b = slave("b");
  registerSlave(a);
  registerSlave(b);
  EXPECT_EQ(0, scheduled().windows_size());

  // Apache's checks, each a 400 with its message; nothing changes.
  auto refused = [&](const std::string& body, const std::string& why) {
    HttpResponse answer = post("/maintenance/schedule", body);
    EXPECT_EQ(400, answer.status) << body;
    EXPECT_NE(std::string::npos, answer.body.find(why)) << answer.body;
  };
  refused(schedule({window({machine(a)}, 100), window({machine(a)}, 200)}),
          "appears more than once in the schedule");
  refused(schedule({window({R"({"hostname": ""})"}, 100)}),
          "Both 'hostname' and 'ip' for a machine are empty");
  refused(schedule({window({R"({"hostname": "x", "ip": "not-an-ip"})"}, 100)}), "not-an-ip");
  refused(schedule({R"({"machine_ids": [], "unavailability": {"start": {"nanoseconds": 1}}})"}),
          "List of machines in the maintenance window is empty");
  refused(schedule({window({machine(a)}, 100, -5)}), "Unavailability 'duration' is negative");
  refused("{not json", "");
  EXPECT_EQ(0, scheduled().windows_size());
  EXPECT_EQ(405, request("PUT", "/maintenance/schedule").status);

  // The hostname in another case names the same machine.
  std::string upper = R"({"hostname": "A.EXAMPLE", "ip": ")" + runtime_->address().ipString() +
                      R"("})";
  ASSERT_EQ(200, post("/maintenance/schedule",
                      schedule({window({upper}, 100), window({machine(b)}, 200)}))
                     .status);
  maintenance::Schedule read = scheduled();
  ASSERT_EQ(2, read.windows_size());
  EXPECT_EQ("A.EXAMPLE", read.windows(0).machine_ids(0).hostname());
  EXPECT_EQ(100 * 1000000000LL, read.windows(0).unavailability().start().nanoseconds());
  EXPECT_EQ(3600 * 1000000000LL, read.windows(1).unavailability().duration().nanoseconds());
  maintenance::ClusterStatus cluster = status();
  EXPECT_EQ(2, cluster.draining_machines_size());
  EXPECT_EQ(0, cluster.down_machines_size());

  // /machine/down and /machine/up check the machines' modes.
  HttpResponse notScheduled = post("/machine/down", R"([{"hostname": "elsewhere"}])");
  EXPECT_EQ(400, notScheduled.status);
  EXPECT_NE(std::string::npos, notScheduled.body.find("is not part of a maintenance schedule"))
      << notScheduled.body;
  HttpResponse notDown = post("/machine/up", "[" + machine(a) + "]");
  EXPECT_EQ(400, notDown.status);
  EXPECT_NE(std::string::npos, notDown.body.find("is not in DOWN mode and cannot be brought up"))
      << notDown.body;
  EXPECT_EQ(400, post("/machine/down", "[]").status);
  EXPECT_EQ(400, post("/machine/down", R"({"hostname": "a"})").status);
  EXPECT_EQ(405, request("GET", "/machine/down").status);

  // An empty schedule puts every machine UP again.
  ASSERT_EQ(200, post("/maintenance/schedule", "{}").status);
  EXPECT_EQ(0, scheduled().windows_size());
  EXPECT_EQ(0, status().draining_machines_size());
}

TEST_F(MaintenanceTest, OffersOfScheduledAgentsCarryTheirUnavailability) {
  start();
  Peer& a = slave("a");
  Peer& b = slave("b");
  SlaveID aId = registerSlave(a);
  registerSlave(b);
  Peer& s = maintainedScheduler("s");
  registerFramework(s);
  advance(flags_.allocation_interval);
  ASSERT_FALSE(s.received<ResourceOffersMessage>().empty());
  size_t rescinded = s.count<RescindResourceOfferMessage>();

  ASSERT_EQ(200, post("/maintenance/schedule", schedule({window({machine(a)}, 500, 60)})).status);
  // The outstanding offer of `a` is rescinded and made again with the
  // unavailability; `b`'s carry none.
  EXPECT_EQ(rescinded + 1, s.count<RescindResourceOfferMessage>());
  advance(flags_.allocation_interval);
  bool sawA = false;
  for (const auto& message : s.received<ResourceOffersMessage>()) {
    for (const Offer& offer : message.offers()) {
      if (offer.slave_id().value() != aId.value()) {
        EXPECT_FALSE(offer.has_unavailability());
      } else if (offer.has_unavailability()) {
        sawA = true;
        EXPECT_EQ(500 * 1000000000LL, offer.unavailability().start().nanoseconds());
        EXPECT_EQ(60 * 1000000000LL, offer.unavailability().duration().nanoseconds());
      }
    }
  }
  EXPECT_TRUE(sawA);
}

TEST_F(MaintenanceTest, InverseOffersAreDeclinedAcceptedAndRescinded) {
  start();
  Peer& a = slave("a");
  SlaveID aId = registerSlave(a);
  Peer& s = maintainedScheduler("s");
  FrameworkID id = runOn(s, a, aId, "t1", false);
  Peer& idle = maintainedScheduler("idle");  // nothing on `a`: no inverse offer
  registerFramework(idle);

  ASSERT_EQ(200, post("/maintenance/schedule", schedule({window({machine(a)}, 1000)})).status);
  auto inverse = s.received<InverseOffersMessage>();
  ASSERT_EQ(1u, inverse.size());
  ASSERT_EQ(1, inverse[0].inverse_offers_size());
  const InverseOffer first = inverse[0].inverse_offers(0);
  EXPECT_EQ(aId.value(), first.slave_id().value());
  EXPECT_EQ(id.value(), first.framework_id().value());
  EXPECT_EQ(1000 * 1000000000LL, first.unavailability().start().nanoseconds());
  EXPECT_EQ(a.self().toString(), inverse[0].pids(0));
  EXPECT_EQ(0u, idle.count<InverseOffersMessage>());

  // Unanswered: UNKNOWN. None more while it is outstanding.
  maintenance::ClusterStatus cluster = status();
  ASSERT_EQ(1, cluster.draining_machines_size());
  ASSERT_EQ(1, cluster.draining_machines(0).statuses_size());
  EXPECT_EQ(mesos::allocator::InverseOfferStatus::UNKNOWN,
            cluster.draining_machines(0).statuses(0).status());
  advance(flags_.allocation_interval);
  EXPECT_EQ(1u, s.count<InverseOffersMessage>());

  // Declined for 10 s: DECLINE, and a new inverse offer only after.
  answer(s, id, first.id(), false, 10);
  cluster = status();
  EXPECT_EQ(mesos::allocator::InverseOfferStatus::DECLINE,
            cluster.draining_machines(0).statuses(0).status());
  EXPECT_EQ(id.value(), cluster.draining_machines(0).statuses(0).framework_id().value());
  advance(5s);
  EXPECT_EQ(1u, s.count<InverseOffersMessage>());
  advance(6s);
  ASSERT_EQ(2u, s.count<InverseOffersMessage>());
  const InverseOffer second = s.received<InverseOffersMessage>().back().inverse_offers(0);
  EXPECT_NE(first.id().value(), second.id().value());

  // Accepted.
  answer(s, id, second.id(), true, 3600);
  cluster = status();
  EXPECT_EQ(mesos::allocator::InverseOfferStatus::ACCEPT,
            cluster.draining_machines(0).statuses(0).status());
  // An answer to an inverse offer that is not outstanding changes nothing.
  answer(s, id, first.id(), false, 1);
  EXPECT_EQ(mesos::allocator::InverseOfferStatus::ACCEPT,
            status().draining_machines(0).statuses(0).status());

  // A new window: the answers are void and a new inverse offer comes at
  // once, which leaving the schedule rescinds.
  ASSERT_EQ(200, post("/maintenance/schedule", schedule({window({machine(a)}, 2000)})).status);
  ASSERT_EQ(3u, s.count<InverseOffersMessage>());
  const InverseOffer third = s.received<InverseOffersMessage>().back().inverse_offers(0);
  EXPECT_EQ(2000 * 1000000000LL, third.unavailability().start().nanoseconds());
  ASSERT_EQ(200, post("/maintenance/schedule", "{}").status);
  auto rescinds = s.received<RescindInverseOfferMessage>();
  ASSERT_EQ(1u, rescinds.size());
  EXPECT_EQ(third.id().value(), rescinds[0].inverse_offer_id().value());
  advance(flags_.allocation_interval);
  EXPECT_EQ(3u, s.count<InverseOffersMessage>());
  EXPECT_EQ(0, status().draining_machines_size());
}

// Inverse offers go to the agents of the DRAINING machine alone, all of
// them, whatever the case of the hostname the operator wrote; an agent that
// leaves is no longer on it.
TEST_F(MaintenanceTest, OnlyTheAgentsOfTheDrainingMachineAreAskedAboutAllOfThem) {
  start();
  Peer& a = slave("a");
  SlaveID aId = registerSlave(a);
  Peer& twin = slave("twin");  // another agent on machine "a"
  RegisterSlaveMessage message;
  message.mutable_slave()->set_hostname("a.example");
  *message.mutable_slave()->mutable_resources() = Resources::parse("cpus:4;mem:4096").value().proto();
  message.set_version("1.0.0");
  twin.post(master(), message);
  runtime_->settle();
  ASSERT_EQ(1u, twin.count<SlaveRegisteredMessage>());
  SlaveID twinId = twin.received<SlaveRegisteredMessage>()[0].slave_id();
  Peer& b = slave("b");
  SlaveID bId = registerSlave(b);
  Peer& s = maintainedScheduler("s");
  FrameworkID id = registerFramework(s, frameworkInfo("s"));
  advance(flags_.allocation_interval);
  ASSERT_EQ(1u, s.count<ResourceOffersMessage>());
  const std::map<std::string, Peer*> peers = {
      {aId.value(), &a}, {twinId.value(), &twin}, {bId.value(), &b}};
  const ResourceOffersMessage offers = s.received<ResourceOffersMessage>()[0];
  ASSERT_EQ(3, offers.offers_size());
  for (const Offer& offer : offers.offers()) {
    const std::string task = "t-" + offer.slave_id().value();
    launch(s, id, {offer.id()}, {commandTask(task, offer.slave_id(), "cpus:1;mem:128")});
    Peer* peer = peers.at(offer.slave_id().value());
    peer->post(master(), update(id, offer.slave_id(), task, TASK_RUNNING, *peer));
    runtime_->settle();
  }

  std::string upper = R"({"hostname": "A.EXAMPLE", "ip": ")" + runtime_->address().ipString() +
                      R"("})";
  ASSERT_EQ(200, post("/maintenance/schedule", schedule({window({upper}, 1000)})).status);
  auto inverse = s.received<InverseOffersMessage>();
  ASSERT_EQ(1u, inverse.size());
  std::set<std::string> asked;
  for (const InverseOffer& offer : inverse[0].inverse_offers()) {
    asked.insert(offer.slave_id().value());
  }
  EXPECT_EQ((std::set<std::string>{aId.value(), twinId.value()}), asked);

  // The twin leaves: declined, the new inverse offer is for `a` alone.
  UnregisterSlaveMessage unregister;
  *unregister.mutable_slave_id() = twinId;
  twin.post(master(), unregister);
  runtime_->settle();
  for (const InverseOffer& offer : inverse[0].inverse_offers()) {
    if (offer.slave_id().value() == aId.value()) answer(s, id, offer.id(), false, 1);
  }
  advance(2s);
  auto again = s.received<InverseOffersMessage>();
  ASSERT_EQ(2u, again.size());
  ASSERT_EQ(1, again[1].inverse_offers_size());
  EXPECT_EQ(aId.value(), again[1].inverse_offers(0).slave_id().value());
}

// --offer_timeout applies to inverse offers too, as in Apache Mesos.
TEST_F(MaintenanceTest, AnUnansweredInverseOfferTimesOutAndIsMadeAgain) {
  flags_.offer_timeout = std::chrono::seconds(30);
  start();
  Peer& a = slave("a");
  SlaveID aId = registerSlave(a);
  Peer& s = maintainedScheduler("s");
  runOn(s, a, aId, "t1", false);
  ASSERT_EQ(200, post("/maintenance/schedule", schedule({window({machine(a)}, 1000)})).status);
  ASSERT_EQ(1u, s.count<InverseOffersMessage>());
  const InverseOffer first = s.received<InverseOffersMessage>()[0].inverse_offers(0);
  advance(20s);
  EXPECT_EQ(0u, s.count<RescindInverseOfferMessage>());
  advance(11s);
  auto rescinds = s.received<RescindInverseOfferMessage>();
  ASSERT_EQ(1u, rescinds.size());
  EXPECT_EQ(first.id().value(), rescinds[0].inverse_offer_id().value());
  advance(flags_.allocation_interval);
  ASSERT_EQ(2u, s.count<InverseOffersMessage>());
  EXPECT_NE(first.id().value(),
            s.received<InverseOffersMessage>().back().inverse_offers(0).id().value());
  EXPECT_EQ(mesos::allocator::InverseOfferStatus::UNKNOWN,
            status().draining_machines(0).statuses(0).status());
}

TEST_F(MaintenanceTest, MachineDownRemovesItsAgentsAndRefusesThemUntilUp) {
  start();
  Peer& a = slave("a");
  SlaveID aId = registerSlave(a, "cpus:8;mem:8192");
  Peer& aware = maintainedScheduler("aware");
  Peer& plain = maintainedScheduler("plain");
  runOn(aware, a, aId, "ta", true);
  runOn(plain, a, aId, "tp", false);
  ASSERT_EQ(200, post("/maintenance/schedule", schedule({window({machine(a)}, 100)})).status);
  ASSERT_EQ(1u, aware.count<InverseOffersMessage>());

  ASSERT_EQ(200, post("/machine/down", "[" + machine(a) + "]").status);
  // As Apache: the agent is told to shut down and removed; tasks of
  // partition-aware frameworks are TASK_GONE_BY_OPERATOR, others TASK_LOST.
  ASSERT_FALSE(a.received<ShutdownMessage>().empty());
  auto ta = statuses(aware, "ta");
  ASSERT_FALSE(ta.empty());
  EXPECT_EQ(TASK_GONE_BY_OPERATOR, ta.back().state());
  EXPECT_EQ(TaskStatus::REASON_SLAVE_REMOVED_BY_OPERATOR, ta.back().reason());
  auto tp = statuses(plain, "tp");
  ASSERT_FALSE(tp.empty());
  EXPECT_EQ(TASK_LOST, tp.back().state());
  EXPECT_EQ(1u, aware.count<RescindInverseOfferMessage>());
  EXPECT_FALSE(aware.received<LostSlaveMessage>().empty());
  maintenance::ClusterStatus cluster = status();
  EXPECT_EQ(0, cluster.draining_machines_size());
  ASSERT_EQ(1, cluster.down_machines_size());
  EXPECT_EQ("a.example", cluster.down_machines(0).hostname());
  EXPECT_EQ(0u, get("/state")["slaves"].array().size());

  // A DOWN machine cannot leave the schedule, nor go down again.
  HttpResponse kept = post("/maintenance/schedule", "{}");
  EXPECT_EQ(400, kept.status);
  EXPECT_NE(std::string::npos,
            kept.body.find("is deactivated and cannot be removed from the schedule"))
      << kept.body;
  EXPECT_EQ(400, post("/machine/down", "[" + machine(a) + "]").status);

  // Its agents are refused, re-registering or registering anew.
  size_t shutdowns = a.count<ShutdownMessage>();
  ReregisterSlaveMessage again;
  again.mutable_slave()->set_hostname("a.example");
  *again.mutable_slave()->mutable_id() = aId;
  *again.mutable_slave()->mutable_resources() = Resources::parse("cpus:8;mem:8192").value().proto();
  again.set_version("1.0.0");
  a.post(master(), again);
  runtime_->settle();
  EXPECT_EQ(shutdowns + 1, a.count<ShutdownMessage>());
  EXPECT_EQ(0u, a.count<SlaveReregisteredMessage>());
  RegisterSlaveMessage anew;
  *anew.mutable_slave() = again.slave();
  anew.mutable_slave()->clear_id();
  anew.set_version("1.0.0");
  a.post(master(), anew);
  runtime_->settle();
  EXPECT_EQ(shutdowns + 2, a.count<ShutdownMessage>());
  EXPECT_EQ("Machine is `DOWN`", a.received<ShutdownMessage>().back().message());

  // Up: out of the schedule, and its agents are welcome.
  ASSERT_EQ(200, post("/machine/up", "[" + machine(a) + "]").status);
  EXPECT_EQ(0, scheduled().windows_size());
  cluster = status();
  EXPECT_EQ(0, cluster.down_machines_size());
  EXPECT_EQ(0, cluster.draining_machines_size());
  size_t registered = a.count<SlaveRegisteredMessage>();
  a.post(master(), anew);
  runtime_->settle();
  EXPECT_EQ(registered + 1, a.count<SlaveRegisteredMessage>());
}

// The schedule and the modes are in the registry: a new master reads them
// (here the file registry; the ZooKeeper backend's fencing is in
// registrar_test.cpp).
TEST_F(MaintenanceTest, TheScheduleAndModesSurviveAMasterFailover) {
  flags_.registry = "file";
  flags_.work_dir = tempDir();
  start();
  Peer& a = slave("a");
  Peer& b = slave("b");
  registerSlave(a);
  registerSlave(b);
  ASSERT_EQ(200, post("/maintenance/schedule",
                      schedule({window({machine(a)}, 100), window({machine(b)}, 200)}))
                     .status);
  ASSERT_EQ(200, post("/machine/down", "[" + machine(a) + "]").status);
  EXPECT_TRUE(std::filesystem::exists(*flags_.work_dir + "/registry/maintenance"));

  master_.reset();
  auto allocator = internal::master::createAllocator(flags_);
  ASSERT_TRUE(allocator.ok());
  master_ = runtime_->spawn<internal::master::Master>(flags_, std::move(allocator).value());
  runtime_->settle();

  maintenance::Schedule read = scheduled();
  ASSERT_EQ(2, read.windows_size());
  EXPECT_EQ("a.example", read.windows(0).machine_ids(0).hostname());
  EXPECT_EQ(200 * 1000000000LL, read.windows(1).unavailability().start().nanoseconds());
  maintenance::ClusterStatus cluster = status();
  ASSERT_EQ(1, cluster.down_machines_size());
  EXPECT_EQ("a.example", cluster.down_machines(0).hostname());
  ASSERT_EQ(1, cluster.draining_machines_size());
  EXPECT_EQ("b.example", cluster.draining_machines(0).id().hostname());

  // The DOWN machine's agent is still refused by the new master.
  RegisterSlaveMessage anew;
  anew.mutable_slave()->set_hostname("a.example");
  *anew.mutable_slave()->mutable_resources() = Resources::parse("cpus:1;mem:128").value().proto();
  anew.set_version("1.0.0");
  size_t shutdowns = a.count<ShutdownMessage>();
  a.post(master(), anew);
  runtime_->settle();
  EXPECT_EQ(shutdowns + 1, a.count<ShutdownMessage>());
}

TEST_F(MaintenanceTest, TheAclsGuardEachOperation) {
  flags_.security.authenticate_http_readwrite = true;
  flags_.security.authenticate_http_readonly = true;
  flags_.security.http_credentials =
      R"({"credentials": [{"principal": "ops", "secret": "ops-secret"},
                          {"principal": "alice", "secret": "alice-secret"}]})";
  std::string acls;
  for (const char* acl : {"update_maintenance_schedules", "get_maintenance_schedules",
                          "start_maintenances", "stop_maintenances",
                          "get_maintenance_statuses"}) {
    acls += std::string(acls.empty() ? "" : ", ") + "\"" + acl +
            R"(": [{"principals": {"values": ["ops"]}, "machines": {"type": "ANY"}},
                   {"principals": {"type": "ANY"}, "machines": {"type": "NONE"}}])";
  }
  flags_.security.acls = "{" + acls + "}";
  start();
  Peer& a = slave("a");
  registerSlave(a);
  std::string body = schedule({window({machine(a)}, 100)});

  EXPECT_EQ(401, post("/maintenance/schedule", body).status);
  HttpResponse denied = post("/maintenance/schedule", body, "alice");
  EXPECT_EQ(403, denied.status);
  EXPECT_NE(std::string::npos, denied.body.find("update_maintenance_schedules")) << denied.body;
  ASSERT_EQ(200, post("/maintenance/schedule", body, "ops").status);

  // Who may not see gets an empty answer.
  EXPECT_EQ(1, scheduled("ops").windows_size());
  EXPECT_EQ(0, scheduled("alice").windows_size());
  EXPECT_EQ(1, status("ops").draining_machines_size());
  EXPECT_EQ(0, status("alice").draining_machines_size());

  EXPECT_EQ(403, post("/machine/down", "[" + machine(a) + "]", "alice").status);
  ASSERT_EQ(200, post("/machine/down", "[" + machine(a) + "]", "ops").status);
  EXPECT_EQ(403, post("/machine/up", "[" + machine(a) + "]", "alice").status);
  ASSERT_EQ(200, post("/machine/up", "[" + machine(a) + "]", "ops").status);
}

TEST_F(MaintenanceTest, TheOperatorApiCallsInBothEncodings) {
  start();
  Peer& a = slave("a");
  registerSlave(a);
  v1::MachineID machine;
  machine.set_hostname("a.example");
  machine.set_ip(runtime_->address().ipString());

  for (const std::string encoding : {kJson, kProtobuf}) {
    SCOPED_TRACE(encoding);
    auto make = [&](const Call& call) {
      std::string body = encoding == kJson ? toJson(call) : call.SerializeAsString();
      return request("POST", "/api/v1", body, "", encoding, encoding);
    };
    auto parse = [&](const HttpResponse& answer) {
      V1Response response;
      if (encoding == kJson) {
        EXPECT_TRUE(fromJson(answer.body, &response)) << answer.body;
      } else {
        EXPECT_TRUE(response.ParseFromString(answer.body));
      }
      return response;
    };
    Call update;
    update.set_type(Call::UPDATE_MAINTENANCE_SCHEDULE);
    v1::maintenance::Window* window =
        update.mutable_update_maintenance_schedule()->mutable_schedule()->add_windows();
    *window->add_machine_ids() = machine;
    window->mutable_unavailability()->mutable_start()->set_nanoseconds(42);
    ASSERT_EQ(200, make(update).status);

    Call get;
    get.set_type(Call::GET_MAINTENANCE_SCHEDULE);
    HttpResponse answer = make(get);
    ASSERT_EQ(200, answer.status) << answer.body;
    EXPECT_EQ(encoding, answer.headers["content-type"]);
    V1Response schedule = parse(answer);
    EXPECT_EQ(V1Response::GET_MAINTENANCE_SCHEDULE, schedule.type());
    ASSERT_EQ(1, schedule.get_maintenance_schedule().schedule().windows_size());
    EXPECT_EQ(42, schedule.get_maintenance_schedule()
                      .schedule()
                      .windows(0)
                      .unavailability()
                      .start()
                      .nanoseconds());

    Call start;
    start.set_type(Call::START_MAINTENANCE);
    *start.mutable_start_maintenance()->add_machines() = machine;
    ASSERT_EQ(200, make(start).status);
    Call getStatus;
    getStatus.set_type(Call::GET_MAINTENANCE_STATUS);
    V1Response down = parse(make(getStatus));
    EXPECT_EQ(V1Response::GET_MAINTENANCE_STATUS, down.type());
    ASSERT_EQ(1, down.get_maintenance_status().status().down_machines_size());
    EXPECT_EQ("a.example", down.get_maintenance_status().status().down_machines(0).hostname());

    Call stop;
    stop.set_type(Call::STOP_MAINTENANCE);
    *stop.mutable_stop_maintenance()->add_machines() = machine;
    ASSERT_EQ(200, make(stop).status);
    V1Response up = parse(make(getStatus));
    EXPECT_EQ(0, up.get_maintenance_status().status().down_machines_size());
    EXPECT_EQ(0, parse(make(get)).get_maintenance_schedule().schedule().windows_size());

    // Validation as the endpoints: a machine twice.
    Call twice = update;
    *twice.mutable_update_maintenance_schedule()
         ->mutable_schedule()
         ->mutable_windows(0)
         ->add_machine_ids() = machine;
    HttpResponse invalid = make(twice);
    EXPECT_EQ(400, invalid.status);
    EXPECT_NE(std::string::npos, invalid.body.find("appears more than once")) << invalid.body;
    Call missing;
    missing.set_type(Call::START_MAINTENANCE);
    EXPECT_EQ(400, make(missing).status);
  }
}

}  // namespace
}  // namespace mesos::test
