// Deactivating and draining agents (docs/draining.md): the operator API's
// DEACTIVATE_AGENT, REACTIVATE_AGENT and DRAIN_AGENT against a real master
// on a paused clock, with stand-in schedulers and slaves (MasterFixture).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/protobuf_json.hpp"
#include "support/master_fixture.hpp"
#include "support/raw_peer.hpp"
#include "v1/master.pb.h"

namespace mesos::test {
namespace {

using Call = v1::master::Call;
using V1Response = v1::master::Response;

constexpr const char* kProtobuf = "application/x-protobuf";
constexpr const char* kJson = "application/json";

class DrainingTest : public MasterFixture {
 protected:
  void TearDown() override {
    MasterFixture::TearDown();
    if (!workDir_.empty()) std::filesystem::remove_all(workDir_);
  }

  // POSTs `call` to /api/v1 in `encoding` (as `principal`: "ops" or
  // "alice", with their passwords below).
  HttpResponse post(const Call& call, const std::string& encoding = kJson,
                    const std::string& principal = "") {
    std::string body = encoding == kJson ? toJson(call) : call.SerializeAsString();
    std::string auth;
    if (principal == "ops") auth = "Authorization: Basic b3BzOm9wcy1zZWNyZXQ=\r\n";
    if (principal == "alice") auth = "Authorization: Basic YWxpY2U6YWxpY2Utc2VjcmV0\r\n";
    RawPeer peer(runtime_->address());
    EXPECT_TRUE(peer.write("POST /api/v1 HTTP/1.1\r\nHost: test\r\nContent-Type: " + encoding +
                           "\r\nAccept: " + encoding + "\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n" + auth + "\r\n" + body));
    auto response = peer.readResponse();
    EXPECT_TRUE(response.has_value()) << "no answer to " << call.DebugString();
    runtime_->settle();
    return response.value_or(HttpResponse{});
  }

  static Call drain(const SlaveID& id, std::optional<int64_t> graceNanos, bool markGone = false) {
    Call call;
    call.set_type(Call::DRAIN_AGENT);
    call.mutable_drain_agent()->mutable_agent_id()->set_value(id.value());
    if (graceNanos) call.mutable_drain_agent()->mutable_max_grace_period()->set_nanoseconds(*graceNanos);
    if (markGone) call.mutable_drain_agent()->set_mark_gone(true);
    return call;
  }
  static Call deactivate(const SlaveID& id) {
    Call call;
    call.set_type(Call::DEACTIVATE_AGENT);
    call.mutable_deactivate_agent()->mutable_agent_id()->set_value(id.value());
    return call;
  }
  static Call reactivate(const SlaveID& id) {
    Call call;
    call.set_type(Call::REACTIVATE_AGENT);
    call.mutable_reactivate_agent()->mutable_agent_id()->set_value(id.value());
    return call;
  }

  // The agent's object in /state.
  json::Value agentState() {
    json::Value state = get("/state");
    EXPECT_EQ(1u, state["slaves"].array().size());
    return state["slaves"].array().empty() ? json::Value() : state["slaves"].array()[0];
  }

  // Its drain_info.state ("" when it has none).
  static std::string drainState(const json::Value& agent) {
    const json::Value& state = agent["drain_info"]["state"];
    return state.isString() ? state.string() : "";
  }

  // The scheduler acknowledges `update`.
  void acknowledge(Peer& scheduler, const StatusUpdateMessage& update) {
    StatusUpdateAcknowledgementMessage ack;
    *ack.mutable_framework_id() = update.update().framework_id();
    *ack.mutable_slave_id() = update.update().slave_id();
    *ack.mutable_task_id() = update.update().status().task_id();
    ack.set_uuid(update.update().uuid());
    scheduler.post(master(), ack);
    runtime_->settle();
  }

  // A framework and an agent running task "t1".
  void startWithTask() {
    scheduler_ = &scheduler("scheduler(1)");
    agent_ = &slave("slave(1)");
    FrameworkInfo aware = frameworkInfo("aware");
    aware.add_capabilities()->set_type(FrameworkInfo::Capability::PARTITION_AWARE);
    frameworkId_ = registerFramework(*scheduler_, aware);
    slaveId_ = registerSlave(*agent_, "cpus:1;mem:512");
    auto offers = scheduler_->received<ResourceOffersMessage>();
    ASSERT_FALSE(offers.empty());
    launch(*scheduler_, frameworkId_, {offers.back().offers(0).id()},
           {commandTask("t1", slaveId_, "cpus:0.5;mem:256")});
    agent_->post(master(), update(frameworkId_, slaveId_, "t1", TASK_RUNNING, *agent_));
    runtime_->settle();
  }

  std::string workDir_;
  Peer* scheduler_ = nullptr;
  Peer* agent_ = nullptr;
  FrameworkID frameworkId_;
  SlaveID slaveId_;
};

// A deactivated agent is offered nothing (its outstanding offer is
// rescinded) and keeps its task; reactivated, it is offered again.
TEST_F(DrainingTest, DeactivatedAgentIsOfferedNothingUntilReactivated) {
  start();
  startWithTask();
  const size_t offers = scheduler_->count<ResourceOffersMessage>();
  ASSERT_EQ(0u, scheduler_->count<RescindResourceOfferMessage>());
  // What the task left (cpus:0.5) is offered again once the launch's
  // 5 s filter is over; that offer goes.
  advance(std::chrono::seconds(6));
  const size_t offered = scheduler_->count<ResourceOffersMessage>();
  ASSERT_GT(offered, offers);

  HttpResponse answer = post(deactivate(slaveId_));
  ASSERT_EQ(200, answer.status) << answer.body;
  EXPECT_EQ(1u, scheduler_->count<RescindResourceOfferMessage>());
  json::Value agent = agentState();
  EXPECT_TRUE(agent["deactivated"].boolean());
  EXPECT_FALSE(agent["active"].boolean());
  EXPECT_TRUE(agent["drain_info"].isNull());
  advance(std::chrono::seconds(10));
  EXPECT_EQ(offered, scheduler_->count<ResourceOffersMessage>()) << "offers on a deactivated agent";
  EXPECT_EQ(0u, agent_->count<KillTaskMessage>());
  EXPECT_EQ(0u, agent_->count<DrainSlaveMessage>());
  EXPECT_EQ(1u, get("/state")["frameworks"].array()[0]["tasks"].array().size());

  // GET_AGENTS says it too, in protobuf.
  Call agents;
  agents.set_type(Call::GET_AGENTS);
  HttpResponse listed = post(agents, kProtobuf);
  V1Response response;
  ASSERT_TRUE(response.ParseFromString(listed.body));
  ASSERT_EQ(1, response.get_agents().agents_size());
  EXPECT_TRUE(response.get_agents().agents(0).deactivated());
  EXPECT_FALSE(response.get_agents().agents(0).active());

  answer = post(reactivate(slaveId_), kProtobuf);
  ASSERT_EQ(200, answer.status) << answer.body;
  advance(std::chrono::seconds(6));
  EXPECT_GT(scheduler_->count<ResourceOffersMessage>(), offered);
  agent = agentState();
  EXPECT_FALSE(agent["deactivated"].boolean());
  EXPECT_TRUE(agent["active"].boolean());

  answer = post(reactivate(slaveId_));
  EXPECT_EQ(400, answer.status);
  EXPECT_EQ("Agent is not deactivated\n", answer.body);
}

// DRAIN_AGENT: the agent is deactivated and told to drain with the grace
// period; it stays DRAINING until its task's terminal update is
// acknowledged, then it is DRAINED and may be reactivated.
TEST_F(DrainingTest, DrainingThenDrainedOnceTheTerminalUpdateIsAcknowledged) {
  start();
  startWithTask();
  HttpResponse answer = post(drain(slaveId_, 1000000000), kProtobuf);
  ASSERT_EQ(200, answer.status) << answer.body;
  auto drains = agent_->received<DrainSlaveMessage>();
  ASSERT_EQ(1u, drains.size());
  EXPECT_EQ(1000000000, drains[0].config().max_grace_period().nanoseconds());
  EXPECT_FALSE(drains[0].config().mark_gone());
  json::Value agent = agentState();
  EXPECT_TRUE(agent["deactivated"].boolean());
  EXPECT_EQ("DRAINING", drainState(agent));
  EXPECT_EQ(1000000000,
            agent["drain_info"]["config"]["max_grace_period"]["nanoseconds"].integer());

  answer = post(reactivate(slaveId_));
  EXPECT_EQ(400, answer.status);
  EXPECT_EQ("Agent is still in the DRAINING state\n", answer.body);

  // The slave kills the task: terminal, but not acknowledged yet.
  StatusUpdateMessage killed = update(frameworkId_, slaveId_, "t1", TASK_KILLED, *agent_);
  killed.mutable_update()->mutable_status()->set_reason(TaskStatus::REASON_SLAVE_DRAINING);
  agent_->post(master(), killed);
  runtime_->settle();
  EXPECT_EQ("DRAINING", drainState(agentState()));
  acknowledge(*scheduler_, killed);
  agent = agentState();
  EXPECT_EQ("DRAINED", drainState(agent));
  EXPECT_TRUE(agent["deactivated"].boolean());

  Call agents;
  agents.set_type(Call::GET_AGENTS);
  V1Response response;
  ASSERT_TRUE(fromJson(post(agents).body, &response));
  ASSERT_EQ(1, response.get_agents().agents_size());
  EXPECT_EQ(v1::DRAINED, response.get_agents().agents(0).drain_info().state());

  answer = post(reactivate(slaveId_));
  ASSERT_EQ(200, answer.status) << answer.body;
  agent = agentState();
  EXPECT_TRUE(agent["drain_info"].isNull());
  EXPECT_FALSE(agent["deactivated"].boolean());
}

// With mark_gone the drained agent is marked gone: told to shut down, and
// refused from then on.
TEST_F(DrainingTest, MarkGoneMarksTheDrainedAgentGone) {
  start();
  startWithTask();
  ASSERT_EQ(200, post(drain(slaveId_, std::nullopt, true)).status);
  auto drains = agent_->received<DrainSlaveMessage>();
  ASSERT_EQ(1u, drains.size());
  EXPECT_TRUE(drains[0].config().mark_gone());
  EXPECT_FALSE(drains[0].config().has_max_grace_period());
  EXPECT_EQ(0u, agent_->count<ShutdownMessage>());
  StatusUpdateMessage gone = update(frameworkId_, slaveId_, "t1", TASK_GONE_BY_OPERATOR, *agent_);
  agent_->post(master(), gone);
  runtime_->settle();
  acknowledge(*scheduler_, gone);
  EXPECT_EQ(1u, agent_->count<ShutdownMessage>());
  EXPECT_EQ(1, get("/metrics/snapshot")["master/slaves_gone"].integer());
  EXPECT_TRUE(get("/state")["slaves"].array().empty());
}

// A framework that goes away while its task drains (mesos-execute
// unregisters on the terminal update, before it acknowledges) leaves the
// agent DRAINED.
TEST_F(DrainingTest, AFrameworkThatLeavesEndsTheDrain) {
  start();
  startWithTask();
  ASSERT_EQ(200, post(drain(slaveId_, 0)).status);
  agent_->post(master(), update(frameworkId_, slaveId_, "t1", TASK_KILLED, *agent_));
  runtime_->settle();
  EXPECT_EQ("DRAINING", drainState(agentState()));
  UnregisterFrameworkMessage bye;
  *bye.mutable_framework_id() = frameworkId_;
  scheduler_->post(master(), bye);
  runtime_->settle();
  EXPECT_EQ("DRAINED", drainState(agentState()));
}

// An agent with nothing running is DRAINED at once.
TEST_F(DrainingTest, AnIdleAgentIsDrainedAtOnce) {
  start();
  Peer& a = slave("slave(1)");
  SlaveID id = registerSlave(a);
  ASSERT_EQ(200, post(drain(id, 0)).status);
  EXPECT_EQ(1u, a.count<DrainSlaveMessage>());
  EXPECT_EQ("DRAINED", drainState(agentState()));
}

// The drain is in the registry: a master that takes over (the file
// registry, the same --work_dir) knows the agent is draining and tells it
// again when it re-registers; it is offered nothing.
TEST_F(DrainingTest, DrainSurvivesAMasterFailover) {
  // Text, not the UUID's raw bytes: those may hold a '/' or a newline.
  workDir_ = std::filesystem::temp_directory_path() /
             ("draining-test-" + uuidToString(randomUuid()));
  std::filesystem::create_directories(workDir_);
  flags_.work_dir = workDir_;
  flags_.registry = "file";
  start();
  startWithTask();
  ASSERT_EQ(200, post(drain(slaveId_, 5000000000)).status);
  ASSERT_EQ(1u, agent_->count<DrainSlaveMessage>());

  // A new master on the same registry.
  master_.reset();
  auto allocator = internal::master::createAllocator(flags_);
  ASSERT_TRUE(allocator.ok());
  master_ = runtime_->spawn<internal::master::Master>(flags_, std::move(allocator).value());
  runtime_->settle();
  FrameworkInfo aware = frameworkInfo("aware");
  aware.add_capabilities()->set_type(FrameworkInfo::Capability::PARTITION_AWARE);
  *aware.mutable_id() = frameworkId_;
  ReregisterFrameworkMessage again;
  *again.mutable_framework() = aware;
  again.set_failover(false);
  scheduler_->post(master(), again);

  ReregisterSlaveMessage back;
  back.mutable_slave()->set_hostname("slave(1).example");
  *back.mutable_slave()->mutable_id() = slaveId_;
  *back.mutable_slave()->mutable_resources() =
      Resources::parse("cpus:1;mem:512").value().proto();
  back.set_version("1.0.0");
  back.add_agent_capabilities()->set_type(SlaveInfo::Capability::AGENT_DRAINING);
  Task* task = back.add_tasks();
  task->set_name("task t1");
  task->mutable_task_id()->set_value("t1");
  *task->mutable_framework_id() = frameworkId_;
  *task->mutable_slave_id() = slaveId_;
  task->set_state(TASK_RUNNING);
  *task->mutable_resources() = Resources::parse("cpus:0.5;mem:256").value().proto();
  *back.add_frameworks() = aware;
  agent_->post(master(), back);
  runtime_->settle();
  ASSERT_EQ(1u, agent_->count<SlaveReregisteredMessage>());
  auto drains = agent_->received<DrainSlaveMessage>();
  ASSERT_EQ(2u, drains.size()) << "told to drain again";
  EXPECT_EQ(5000000000, drains[1].config().max_grace_period().nanoseconds());
  json::Value agent = agentState();
  EXPECT_TRUE(agent["deactivated"].boolean());
  EXPECT_EQ("DRAINING", drainState(agent));

  const size_t offers = scheduler_->count<ResourceOffersMessage>();
  advance(std::chrono::seconds(10));
  EXPECT_EQ(offers, scheduler_->count<ResourceOffersMessage>()) << "offers on a draining agent";

  StatusUpdateMessage killed = update(frameworkId_, slaveId_, "t1", TASK_KILLED, *agent_);
  agent_->post(master(), killed);
  runtime_->settle();
  acknowledge(*scheduler_, killed);
  EXPECT_EQ("DRAINED", drainState(agentState()));
}

// Apache's check: a registered agent whose machine is in the maintenance
// schedule is not drained (400, nothing sent); out of it, it is.
TEST_F(DrainingTest, AnAgentInTheMaintenanceScheduleIsRefused) {
  start();
  Peer& agent = slave("slave(1)");
  SlaveID id = registerSlave(agent);
  const std::string ip = runtime_->address().ipString();
  Call update;
  update.set_type(Call::UPDATE_MAINTENANCE_SCHEDULE);
  auto* window = update.mutable_update_maintenance_schedule()->mutable_schedule()->add_windows();
  v1::MachineID* machine = window->add_machine_ids();
  machine->set_hostname("SLAVE(1).example");  // any case, as Apache compares
  machine->set_ip(ip);
  window->mutable_unavailability()->mutable_start()->set_nanoseconds(4102444800000000000);
  ASSERT_EQ(200, post(update).status);

  HttpResponse answer = post(drain(id, 0));
  EXPECT_EQ(400, answer.status);
  EXPECT_EQ("Agent " + id.value() +
                " is part of a maintenance schedule under Machine SLAVE(1).example (" + ip +
                ")\n",
            answer.body);
  EXPECT_EQ(0u, agent.count<DrainSlaveMessage>());
  EXPECT_TRUE(agentState()["drain_info"].isNull());

  update.mutable_update_maintenance_schedule()->mutable_schedule()->clear_windows();
  ASSERT_EQ(200, post(update).status);
  EXPECT_EQ(200, post(drain(id, 0)).status);
  EXPECT_EQ(1u, agent.count<DrainSlaveMessage>());
}

// Apache's check: a registered agent that did not declare AGENT_DRAINING is
// not drained (400, nothing sent, nothing stored); once it re-registers
// declaring it, it is. /state and GET_AGENTS show what each declared.
TEST_F(DrainingTest, AnAgentWithoutTheDrainingCapabilityIsRefused) {
  start();
  Peer& old = slave("slave(1)");
  SlaveID id = registerSlave(old, "cpus:1;mem:512", {});
  EXPECT_TRUE(agentState()["capabilities"].array().empty());
  HttpResponse answer = post(drain(id, 0));
  EXPECT_EQ(400, answer.status);
  EXPECT_EQ("Agent " + id.value() + " is not capable of draining\n", answer.body);
  EXPECT_EQ(0u, old.count<DrainSlaveMessage>());
  json::Value agent = agentState();
  EXPECT_FALSE(agent["deactivated"].boolean());
  EXPECT_TRUE(agent["drain_info"].isNull());
  // Deactivation needs no capability (Apache's does not either).
  ASSERT_EQ(200, post(deactivate(id)).status);
  ASSERT_EQ(200, post(reactivate(id)).status);

  // Upgraded: it re-registers declaring AGENT_DRAINING.
  ReregisterSlaveMessage back;
  back.mutable_slave()->set_hostname("slave(1).example");
  *back.mutable_slave()->mutable_id() = id;
  *back.mutable_slave()->mutable_resources() = Resources::parse("cpus:1;mem:512").value().proto();
  back.set_version("1.0.0");
  back.add_agent_capabilities()->set_type(SlaveInfo::Capability::AGENT_DRAINING);
  old.post(master(), back);
  runtime_->settle();
  ASSERT_EQ(1u, old.count<SlaveReregisteredMessage>());
  ASSERT_EQ(1u, agentState()["capabilities"].array().size());
  EXPECT_EQ("AGENT_DRAINING", agentState()["capabilities"].array()[0].string());
  Call agents;
  agents.set_type(Call::GET_AGENTS);
  V1Response response;
  ASSERT_TRUE(response.ParseFromString(post(agents, kProtobuf).body));
  ASSERT_EQ(1, response.get_agents().agents_size());
  ASSERT_EQ(1, response.get_agents().agents(0).capabilities_size());
  EXPECT_EQ(v1::AgentInfo::Capability::AGENT_DRAINING,
            response.get_agents().agents(0).capabilities(0).type());
  answer = post(drain(id, 0), kProtobuf);
  EXPECT_EQ(200, answer.status) << answer.body;
  EXPECT_EQ(1u, old.count<DrainSlaveMessage>());
  EXPECT_EQ("DRAINED", drainState(agentState()));
}

// Apache's validation and errors, and its ACLs (drain_agents, with
// mark_agents_gone for mark_gone; deactivate_agents; reactivate_agents).
TEST_F(DrainingTest, ValidationAndAcls) {
  flags_.security.authenticate_http_readwrite = true;
  flags_.security.http_credentials =
      R"({"credentials": [{"principal": "ops", "secret": "ops-secret"},
                          {"principal": "alice", "secret": "alice-secret"}]})";
  flags_.security.acls = R"({
      "drain_agents": [{"principals": {"values": ["ops", "alice"]}, "agents": {"type": "ANY"}},
                       {"principals": {"type": "ANY"}, "agents": {"type": "NONE"}}],
      "mark_agents_gone": [{"principals": {"values": ["ops"]}, "agents": {"type": "ANY"}},
                           {"principals": {"type": "ANY"}, "agents": {"type": "NONE"}}],
      "deactivate_agents": [{"principals": {"values": ["ops"]}, "agents": {"type": "ANY"}},
                            {"principals": {"type": "ANY"}, "agents": {"type": "NONE"}}],
      "reactivate_agents": [{"principals": {"values": ["ops"]}, "agents": {"type": "ANY"}},
                            {"principals": {"type": "ANY"}, "agents": {"type": "NONE"}}]})";
  start();
  Peer& a = slave("slave(1)");
  SlaveID id = registerSlave(a);

  Call missing;
  missing.set_type(Call::DRAIN_AGENT);
  HttpResponse answer = post(missing, kJson, "ops");
  EXPECT_EQ(400, answer.status);
  EXPECT_EQ("Failed to validate master::Call: Expecting 'drain_agent' to be present\n",
            answer.body);
  missing.set_type(Call::DEACTIVATE_AGENT);
  EXPECT_EQ("Failed to validate master::Call: Expecting 'deactivate_agent' to be present\n",
            post(missing, kProtobuf, "ops").body);
  missing.set_type(Call::REACTIVATE_AGENT);
  EXPECT_EQ("Failed to validate master::Call: Expecting 'reactivate_agent' to be present\n",
            post(missing, kJson, "ops").body);
  SlaveID nobody;
  nobody.set_value("nobody");
  answer = post(drain(nobody, std::nullopt), kJson, "ops");
  EXPECT_EQ(400, answer.status);
  EXPECT_EQ("Unknown agent\n", answer.body);
  EXPECT_EQ("Unknown agent\n", post(deactivate(nobody), kJson, "ops").body);
  answer = post(drain(id, -1), kJson, "ops");
  EXPECT_EQ(400, answer.status);
  EXPECT_NE(std::string::npos, answer.body.find("negative")) << answer.body;

  // Without credentials: 401; alice may drain, not mark gone, deactivate or
  // reactivate.
  EXPECT_EQ(401, post(deactivate(id)).status);
  answer = post(deactivate(id), kJson, "alice");
  EXPECT_EQ(403, answer.status);
  EXPECT_EQ("Not authorized to DEACTIVATE_AGENT (ACL deactivate_agents)\n", answer.body);
  answer = post(drain(id, 0, true), kProtobuf, "alice");
  EXPECT_EQ(403, answer.status);
  EXPECT_EQ("Not authorized to DRAIN_AGENT (ACL mark_agents_gone)\n", answer.body);
  EXPECT_EQ(0u, a.count<DrainSlaveMessage>());
  EXPECT_EQ(200, post(drain(id, 0), kJson, "alice").status);
  EXPECT_EQ(1u, a.count<DrainSlaveMessage>());
  answer = post(reactivate(id), kJson, "alice");
  EXPECT_EQ(403, answer.status);
  EXPECT_EQ("Not authorized to REACTIVATE_AGENT (ACL reactivate_agents)\n", answer.body);
  EXPECT_EQ(200, post(reactivate(id), kProtobuf, "ops").status);
  EXPECT_FALSE(agentState()["deactivated"].boolean());
}

}  // namespace
}  // namespace mesos::test
