// The v1 scheduler HTTP API (POST /api/v1/scheduler) over real TCP against
// a real master, with stand-in slaves and v0 schedulers (MasterFixture):
// the event stream, every call, both encodings, and the errors.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/protobuf_json.hpp"
#include "common/v1.hpp"
#include "support/daemon.hpp"
#include "support/master_fixture.hpp"
#include "support/net.hpp"
#include "support/raw_peer.hpp"
#include "support/v1_scheduler.hpp"
#include "v1/scheduler.pb.h"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using v1scheduler::encode;
using v1scheduler::post;

class SchedulerApiTest : public V1SchedulerFixture {};

TEST_F(SchedulerApiTest, SubscribeStreamsEventsAndEveryCallIsServed) {
  start();
  Peer& agent = slave("slave");
  SlaveID slaveId = registerSlave(agent);
  Subscription stream(runtime_->address(), subscribeCall());
  ASSERT_EQ(200, stream.status());
  EXPECT_EQ(kProtobuf, stream.contentType());
  EXPECT_EQ(36u, stream.streamId().size()) << stream.streamId();

  V1Event subscribed = stream.expect(V1Event::SUBSCRIBED);
  const v1::FrameworkID frameworkId = subscribed.subscribed().framework_id();
  EXPECT_FALSE(frameworkId.value().empty());
  EXPECT_EQ(15.0, subscribed.subscribed().heartbeat_interval_seconds());
  EXPECT_EQ(master().address.port, subscribed.subscribed().master_info().port());

  V1Event offers = stream.expect(V1Event::OFFERS);
  ASSERT_EQ(1, offers.offers().offers_size());
  const v1::Offer offer = offers.offers().offers(0);
  EXPECT_EQ(slaveId.value(), offer.agent_id().value());
  EXPECT_EQ(frameworkId.value(), offer.framework_id().value());

  // ACCEPT with a LAUNCH operation: the slave is told to run the task.
  V1Call accept = frameworkCall(V1Call::ACCEPT, frameworkId);
  *accept.mutable_accept()->add_offer_ids() = offer.id();
  v1::Offer::Operation* launch = accept.mutable_accept()->add_operations();
  launch->set_type(v1::Offer::Operation::LAUNCH);
  v1::TaskInfo* t1 = launch->mutable_launch()->add_task_infos();
  *t1 = evolve<v1::TaskInfo>(commandTask("t1", slaveId, "cpus:1;mem:128", "sleep 100"));
  t1->mutable_kill_policy()->mutable_grace_period()->set_nanoseconds(4000000000);
  ASSERT_EQ(202, call(accept, stream.streamId()));
  settle();
  auto runs = agent.received<RunTaskMessage>();
  ASSERT_EQ(1u, runs.size());
  EXPECT_EQ("t1", runs[0].task().task_id().value());
  ASSERT_TRUE(runs[0].task().has_kill_policy());
  EXPECT_EQ(4000000000, runs[0].task().kill_policy().grace_period().nanoseconds());
  EXPECT_EQ(frameworkId.value(), runs[0].framework().id().value());

  // UPDATE carries the update's uuid, which ACKNOWLEDGE sends back to the
  // slave.
  StatusUpdateMessage running = update(devolve<FrameworkID>(frameworkId), slaveId, "t1",
                                       TASK_RUNNING, agent);
  agent.post(master(), running);
  V1Event updated = stream.expect(V1Event::UPDATE);
  EXPECT_EQ("t1", updated.update().status().task_id().value());
  EXPECT_EQ(v1::TASK_RUNNING, updated.update().status().state());
  EXPECT_EQ(slaveId.value(), updated.update().status().agent_id().value());
  EXPECT_EQ(running.update().uuid(), updated.update().status().uuid());
  V1Call acknowledge = frameworkCall(V1Call::ACKNOWLEDGE, frameworkId);
  *acknowledge.mutable_acknowledge()->mutable_agent_id() = offer.agent_id();
  acknowledge.mutable_acknowledge()->mutable_task_id()->set_value("t1");
  acknowledge.mutable_acknowledge()->set_uuid(updated.update().status().uuid());
  ASSERT_EQ(202, call(acknowledge, stream.streamId()));
  settle();
  auto acks = agent.received<StatusUpdateAcknowledgementMessage>();
  ASSERT_EQ(1u, acks.size());
  EXPECT_EQ(running.update().uuid(), acks[0].uuid());

  // RECONCILE answers with the task's latest state, needing no ack.
  V1Call reconcile = frameworkCall(V1Call::RECONCILE, frameworkId);
  reconcile.mutable_reconcile()->add_tasks()->mutable_task_id()->set_value("t1");
  ASSERT_EQ(202, call(reconcile, stream.streamId()));
  V1Event reconciled = stream.expect(V1Event::UPDATE);
  EXPECT_EQ(v1::TASK_RUNNING, reconciled.update().status().state());
  EXPECT_FALSE(reconciled.update().status().has_uuid());

  // MESSAGE both ways.
  ExecutorID executorId;
  executorId.set_value("t1");
  V1Call message = frameworkCall(V1Call::MESSAGE, frameworkId);
  *message.mutable_message()->mutable_agent_id() = offer.agent_id();
  message.mutable_message()->mutable_executor_id()->set_value("t1");
  message.mutable_message()->set_data("to the executor");
  ASSERT_EQ(202, call(message, stream.streamId()));
  settle();
  auto toExecutor = agent.received<FrameworkToExecutorMessage>();
  ASSERT_EQ(1u, toExecutor.size());
  EXPECT_EQ("to the executor", toExecutor[0].data());
  ExecutorToFrameworkMessage fromExecutor;
  *fromExecutor.mutable_slave_id() = slaveId;
  *fromExecutor.mutable_framework_id() = devolve<FrameworkID>(frameworkId);
  *fromExecutor.mutable_executor_id() = executorId;
  fromExecutor.set_data(std::string("from\0the executor", 17));
  agent.post(master(), fromExecutor);
  V1Event fromExecutorEvent = stream.expect(V1Event::MESSAGE);
  EXPECT_EQ(fromExecutor.data(), fromExecutorEvent.message().data());
  EXPECT_EQ("t1", fromExecutorEvent.message().executor_id().value());

  // KILL (with its kill policy, which overrides the task's) and SHUTDOWN
  // reach the slave.
  V1Call kill = frameworkCall(V1Call::KILL, frameworkId);
  kill.mutable_kill()->mutable_task_id()->set_value("t1");
  kill.mutable_kill()->mutable_kill_policy()->mutable_grace_period()->set_nanoseconds(1000000000);
  ASSERT_EQ(202, call(kill, stream.streamId()));
  V1Call shutdown = frameworkCall(V1Call::SHUTDOWN, frameworkId);
  shutdown.mutable_shutdown()->mutable_executor_id()->set_value("t1");
  *shutdown.mutable_shutdown()->mutable_agent_id() = offer.agent_id();
  ASSERT_EQ(202, call(shutdown, stream.streamId()));
  settle();
  auto kills = agent.received<KillTaskMessage>();
  ASSERT_EQ(1u, kills.size());
  EXPECT_EQ(1000000000, kills[0].kill_policy().grace_period().nanoseconds());
  auto shutdowns = agent.received<ShutdownExecutorMessage>();
  ASSERT_EQ(1u, shutdowns.size());
  EXPECT_EQ("t1", shutdowns[0].executor_id().value());

  // SUPPRESS, REVIVE and REQUEST are taken; heartbeats come every 15 s.
  for (V1Call::Type type : {V1Call::SUPPRESS, V1Call::REVIVE}) {
    EXPECT_EQ(202, call(frameworkCall(type, frameworkId), stream.streamId()));
  }
  V1Call request = frameworkCall(V1Call::REQUEST, frameworkId);
  request.mutable_request()->add_requests();
  EXPECT_EQ(202, call(request, stream.streamId()));
  settle();
  advance(15s);
  EXPECT_EQ(V1Event::HEARTBEAT, stream.await(V1Event::HEARTBEAT).type());

  // The slave goes: FAILURE names it.
  UnregisterSlaveMessage unregister;
  *unregister.mutable_slave_id() = slaveId;
  agent.post(master(), unregister);
  V1Event failure = stream.await(V1Event::FAILURE);
  EXPECT_EQ(slaveId.value(), failure.failure().agent_id().value());

  // TEARDOWN removes the framework and ends its stream.
  ASSERT_EQ(202, call(frameworkCall(V1Call::TEARDOWN, frameworkId), stream.streamId()));
  EXPECT_TRUE(stream.ends());
  settle();
  json::Value state = get("/state");
  EXPECT_TRUE(state["frameworks"].array().empty());
  ASSERT_EQ(1u, state["completed_frameworks"].array().size());
  EXPECT_EQ(frameworkId.value(), state["completed_frameworks"].array()[0]["id"].string());
}

TEST_F(SchedulerApiTest, JsonBothWaysWithV1FieldNames) {
  start();
  Peer& agent = slave("slave");
  SlaveID slaveId = registerSlave(agent, "cpus:2;mem:1024;ports:[31000-32000]");
  Subscription stream(runtime_->address(), subscribeCall(), kJson);
  ASSERT_EQ(200, stream.status());
  EXPECT_EQ(kJson, stream.contentType());
  std::string raw;
  V1Event subscribed = stream.expect(V1Event::SUBSCRIBED, &raw);
  EXPECT_NE(std::string::npos, raw.find("\"heartbeat_interval_seconds\":15")) << raw;
  const v1::FrameworkID frameworkId = subscribed.subscribed().framework_id();
  V1Event offers = stream.expect(V1Event::OFFERS, &raw);
  // v1 names, and 64-bit range bounds as numbers.
  EXPECT_NE(std::string::npos, raw.find("\"agent_id\":{\"value\":\"" + slaveId.value())) << raw;
  EXPECT_EQ(std::string::npos, raw.find("slave_id")) << raw;
  EXPECT_NE(std::string::npos, raw.find("\"begin\":31000")) << raw;
  ASSERT_EQ(1, offers.offers().offers_size());

  // A DECLINE written by hand, as a JSON client sends it.
  std::string decline = "{\"framework_id\":{\"value\":\"" + frameworkId.value() +
                        "\"},\"type\":\"DECLINE\",\"decline\":{\"offer_ids\":[{\"value\":\"" +
                        offers.offers().offers(0).id().value() +
                        "\"}],\"filters\":{\"refuse_seconds\":1000}}}";
  std::string body;
  ASSERT_EQ(202, send(decline, kJson, "Mesos-Stream-Id: " + stream.streamId() + "\r\n", &body))
      << body;
  settle();
  EXPECT_TRUE(get("/state")["frameworks"].array()[0]["offers"].array().empty());
}

TEST_F(SchedulerApiTest, BadCallsAreRefusedWithAReason) {
  start();
  std::string body;
  // Not a Call, in either encoding.
  EXPECT_EQ(400, send("\xff\xff not a Call", kProtobuf, "", &body)) << body;
  EXPECT_EQ(400, send("{\"type\":", kJson, "", &body));
  EXPECT_NE(std::string::npos, body.find("Failed to parse body into Call")) << body;
  // A Call without its type, or without what its type needs.
  EXPECT_EQ(400, send("{}", kJson, "", &body));
  EXPECT_NE(std::string::npos, body.find("'type'")) << body;
  V1Call accept;
  accept.set_type(V1Call::ACCEPT);
  accept.mutable_framework_id()->set_value("f");
  EXPECT_EQ(400, call(accept, "", kProtobuf, &body));
  EXPECT_NE(std::string::npos, body.find("'accept'")) << body;
  V1Call subscribe = subscribeCall("x");
  subscribe.mutable_framework_id()->set_value("other");
  EXPECT_EQ(400, call(subscribe, "", kProtobuf, &body));
  EXPECT_NE(std::string::npos, body.find("differs")) << body;
  V1Call noName = subscribeCall("");
  EXPECT_EQ(400, call(noName, "", kJson, &body));
  EXPECT_NE(std::string::npos, body.find("name")) << body;
  V1Call inverse;
  inverse.set_type(V1Call::ACCEPT_INVERSE_OFFERS);
  inverse.mutable_framework_id()->set_value("f");
  EXPECT_EQ(400, call(inverse, "", kProtobuf, &body));
  // Other media types, and other methods.
  EXPECT_EQ(415, send("type=SUBSCRIBE", "text/plain", "", &body));
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.write(post(toJson(subscribeCall()), kJson, "Accept: text/html\r\n")));
  auto notAcceptable = peer.readResponse();
  ASSERT_TRUE(notAcceptable.has_value());
  EXPECT_EQ(406, notAcceptable->status);
  EXPECT_EQ(405, httpGet(runtime_->address(), "/api/v1/scheduler"));
  // Calls before subscribing, and with a missing or wrong stream id.
  V1Call revive;
  revive.set_type(V1Call::REVIVE);
  revive.mutable_framework_id()->set_value("never-subscribed");
  EXPECT_EQ(403, call(revive, "", kProtobuf, &body));
  Subscription stream(runtime_->address(), subscribeCall());
  ASSERT_EQ(200, stream.status());
  *revive.mutable_framework_id() = stream.expect(V1Event::SUBSCRIBED).subscribed().framework_id();
  EXPECT_EQ(403, call(revive, "", kProtobuf, &body));
  EXPECT_NE(std::string::npos, body.find("Mesos-Stream-Id")) << body;
  EXPECT_EQ(403, call(revive, "00000000-0000-0000-0000-000000000000", kProtobuf, &body));
  EXPECT_EQ(202, call(revive, stream.streamId(), kProtobuf, &body)) << body;
}

// A dropped connection disconnects the framework (its offers go back, the
// failover timeout runs); subscribing again with its id takes it back, and
// a second subscription while the first is open takes over from it.
TEST_F(SchedulerApiTest, ReconnectingAndFailingOver) {
  start();
  Peer& agent = slave("slave");
  registerSlave(agent);
  auto first = std::make_unique<Subscription>(runtime_->address(), subscribeCall());
  const v1::FrameworkID frameworkId =
      first->expect(V1Event::SUBSCRIBED).subscribed().framework_id();
  first->expect(V1Event::OFFERS);
  first->hangUp();
  auto framework = [&] {
    json::Value frameworks = get("/state")["frameworks"];
    return frameworks.isArray() && frameworks.array().size() == 1 ? frameworks.array()[0]
                                                                   : json::Value();
  };
  ASSERT_TRUE(waitUntil([&] { return framework()["active"].isBool() &&
                                     !framework()["active"].boolean(); },
                        10s));
  EXPECT_TRUE(framework()["offers"].array().empty());

  Subscription second(runtime_->address(), subscribeCall("v1-framework", frameworkId.value()));
  ASSERT_EQ(200, second.status());
  EXPECT_EQ(frameworkId.value(),
            second.expect(V1Event::SUBSCRIBED).subscribed().framework_id().value());
  EXPECT_TRUE(framework()["active"].boolean());
  second.expect(V1Event::OFFERS);

  Subscription third(runtime_->address(), subscribeCall("v1-framework", frameworkId.value()));
  ASSERT_EQ(200, third.status());
  third.expect(V1Event::SUBSCRIBED);
  V1Event error = second.expect(V1Event::ERROR);
  EXPECT_EQ("Framework failed over", error.error().message());
  EXPECT_TRUE(second.ends());
  // Only the newest stream id is taken.
  V1Call revive = frameworkCall(V1Call::REVIVE, frameworkId);
  EXPECT_EQ(403, call(revive, second.streamId()));
  EXPECT_EQ(202, call(revive, third.streamId()));
}

// A v0 framework and a v1 framework share one slave: each is offered only
// what the other does not hold.
TEST_F(SchedulerApiTest, V0AndV1FrameworksSeeEachOthersResourcesAccounted) {
  flags_.allocation_interval = 1s;
  start();
  Peer& agent = slave("slave");
  SlaveID slaveId = registerSlave(agent, "cpus:4;mem:4096");
  Subscription stream(runtime_->address(), subscribeCall());
  const v1::FrameworkID frameworkId =
      stream.expect(V1Event::SUBSCRIBED).subscribed().framework_id();
  V1Event offers = stream.expect(V1Event::OFFERS);
  V1Call accept = frameworkCall(V1Call::ACCEPT, frameworkId);
  *accept.mutable_accept()->add_offer_ids() = offers.offers().offers(0).id();
  v1::Offer::Operation* launch = accept.mutable_accept()->add_operations();
  launch->set_type(v1::Offer::Operation::LAUNCH);
  *launch->mutable_launch()->add_task_infos() =
      evolve<v1::TaskInfo>(commandTask("v1-task", slaveId, "cpus:3;mem:1024", "sleep 100"));
  // Hold back the rest: the v0 framework gets it.
  accept.mutable_accept()->mutable_filters()->set_refuse_seconds(1000);
  ASSERT_EQ(202, call(accept, stream.streamId()));
  settle();

  Peer& v0 = scheduler("v0-scheduler");
  FrameworkID v0Id = registerFramework(v0, frameworkInfo("v0-framework"));
  advance(1s);
  auto v0Offers = v0.received<ResourceOffersMessage>();
  ASSERT_FALSE(v0Offers.empty());
  Resources offered(v0Offers.back().offers(0).resources());
  EXPECT_EQ(1.0, offered.scalar("cpus"));
  EXPECT_EQ(3072.0, offered.scalar("mem"));
  json::Value state = get("/state");
  for (const json::Value& framework : state["frameworks"].array()) {
    if (framework["id"].string() == frameworkId.value()) {
      EXPECT_EQ(3.0, framework["used_resources"]["cpus"].number());
      // As Apache Mesos shows an HTTP framework: no pid.
      EXPECT_TRUE(framework["pid"].isNull());
    } else {
      EXPECT_EQ(v0Id.value(), framework["id"].string());
      EXPECT_EQ(1.0, framework["offered_resources"]["cpus"].number());
      EXPECT_EQ(v0.self().toString(), framework["pid"].string());
    }
  }
}

// An offer the framework keeps past --offer_timeout is rescinded.
TEST_F(SchedulerApiTest, AnOfferHeldTooLongIsRescinded) {
  flags_.offer_timeout = 10s;
  start();
  Peer& agent = slave("slave");
  registerSlave(agent);
  Subscription stream(runtime_->address(), subscribeCall());
  stream.expect(V1Event::SUBSCRIBED);
  const v1::OfferID offerId = stream.expect(V1Event::OFFERS).offers().offers(0).id();
  advance(10s);
  EXPECT_EQ(offerId.value(), stream.await(V1Event::RESCIND).rescind().offer_id().value());
}

// A framework registered through the v0 protocol may POST its Calls here
// without a stream (mesos-go's v0 driver sends AcceptOffers this way).
TEST_F(SchedulerApiTest, V0FrameworksCallsNeedNoStream) {
  start();
  Peer& agent = slave("slave");
  registerSlave(agent);
  Peer& v0 = scheduler("v0-scheduler");
  FrameworkID frameworkId = registerFramework(v0);
  auto offers = v0.received<ResourceOffersMessage>();
  ASSERT_EQ(1u, offers.size());
  V1Call decline = frameworkCall(V1Call::DECLINE, evolve<v1::FrameworkID>(frameworkId));
  *decline.mutable_decline()->add_offer_ids() =
      evolve<v1::OfferID>(offers[0].offers(0).id());
  std::string body;
  ASSERT_EQ(202, call(decline, "", kJson, &body)) << body;
  settle();
  EXPECT_TRUE(get("/state")["frameworks"].array()[0]["offers"].array().empty());
}

// As Apache Mesos refuses any call for a framework not subscribed over
// HTTP, a v0 framework's calls are refused from anywhere but its
// scheduler's address: one curl from another host cannot tear it down.
TEST_F(SchedulerApiTest, V0FrameworksCallsFromAnotherHostAreRefused) {
  if (!loopbackAliasesWork()) GTEST_SKIP() << "cannot bind 127.0.0.2 here";
  runtimeOptions_.ip = "127.0.0.1";
  start();
  Peer& v0 = scheduler("v0-scheduler");
  FrameworkID frameworkId = registerFramework(v0);
  V1Call teardown = frameworkCall(V1Call::TEARDOWN, evolve<v1::FrameworkID>(frameworkId));
  std::string payload = encode(teardown, kProtobuf);

  TcpClient attacker(runtime_->address(), 0x7f000002);  // 127.0.0.2
  ASSERT_TRUE(attacker.write(post(payload, kProtobuf)));
  int status = 0;
  std::string body;
  ASSERT_TRUE(attacker.readResponse(&status, &body));
  EXPECT_EQ(403, status);
  EXPECT_NE(std::string::npos, body.find("is not subscribed over HTTP")) << body;
  settle();
  ASSERT_EQ(1u, get("/state")["frameworks"].array().size());
  EXPECT_TRUE(get("/state")["frameworks"].array()[0]["active"].boolean());

  // From the scheduler's own address it is served.
  TcpClient local(runtime_->address());
  ASSERT_TRUE(local.write(post(payload, kProtobuf)));
  ASSERT_TRUE(local.readResponse(&status, &body));
  EXPECT_EQ(202, status) << body;
  settle();
  EXPECT_TRUE(get("/state")["frameworks"].array().empty());
}

// Maintenance (docs/maintenance.md) for a v1 framework: INVERSE_OFFERS on
// its stream, DECLINE_INVERSE_OFFERS seen in /maintenance/status, and
// RESCIND_INVERSE_OFFER when the machine leaves the schedule.
TEST_F(SchedulerApiTest, InverseOffersReachAV1FrameworkAndItsAnswerIsShown) {
  start();
  Peer& agent = slave("slave");
  SlaveID slaveId = registerSlave(agent);
  Subscription stream(runtime_->address(), subscribeCall(), kJson);
  ASSERT_EQ(200, stream.status());
  const v1::FrameworkID frameworkId =
      stream.expect(V1Event::SUBSCRIBED).subscribed().framework_id();
  const v1::Offer offer = stream.expect(V1Event::OFFERS).offers().offers(0);
  V1Call accept = frameworkCall(V1Call::ACCEPT, frameworkId);
  *accept.mutable_accept()->add_offer_ids() = offer.id();
  v1::Offer::Operation* launch = accept.mutable_accept()->add_operations();
  launch->set_type(v1::Offer::Operation::LAUNCH);
  *launch->mutable_launch()->add_task_infos() =
      evolve<v1::TaskInfo>(commandTask("t1", slaveId, "cpus:1;mem:128", "sleep 100"));
  ASSERT_EQ(202, call(accept, stream.streamId(), kJson));
  settle();

  auto maintenance = [&](const std::string& path, const std::string& body) {
    RawPeer peer(runtime_->address());
    EXPECT_TRUE(peer.write("POST " + path + " HTTP/1.1\r\nHost: test\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n\r\n" + body));
    auto response = peer.readResponse();
    EXPECT_TRUE(response.has_value());
    settle();
    return response ? response->status : 0;
  };
  const std::string schedule =
      R"({"windows": [{"machine_ids": [{"hostname": "slave.example", "ip": ")" +
      runtime_->address().ipString() +
      R"("}], "unavailability": {"start": {"nanoseconds": 7000000000}}}]})";
  ASSERT_EQ(200, maintenance("/maintenance/schedule", schedule));
  V1Event inverse = stream.await(V1Event::INVERSE_OFFERS);
  ASSERT_EQ(1, inverse.inverse_offers().inverse_offers_size());
  const v1::InverseOffer offered = inverse.inverse_offers().inverse_offers(0);
  EXPECT_EQ(slaveId.value(), offered.agent_id().value());
  EXPECT_EQ(7000000000, offered.unavailability().start().nanoseconds());

  V1Call decline = frameworkCall(V1Call::DECLINE_INVERSE_OFFERS, frameworkId);
  *decline.mutable_decline_inverse_offers()->add_inverse_offer_ids() = offered.id();
  ASSERT_EQ(202, call(decline, stream.streamId(), kJson));
  settle();
  json::Value status = get("/maintenance/status");
  ASSERT_EQ(1u, status["draining_machines"].array().size());
  const json::Value& answered = status["draining_machines"].array()[0]["statuses"].array()[0];
  EXPECT_EQ("DECLINE", answered["status"].string());
  EXPECT_EQ(frameworkId.value(), answered["framework_id"]["value"].string());
  // Without its sub-message the call is refused.
  std::string body;
  EXPECT_EQ(400, call(frameworkCall(V1Call::ACCEPT_INVERSE_OFFERS, frameworkId),
                      stream.streamId(), kJson, &body));
  EXPECT_NE(std::string::npos, body.find("accept_inverse_offers")) << body;

  // Declined for the default 5 s: then asked again; leaving the schedule
  // rescinds it.
  advance(6s);
  const v1::InverseOffer again =
      stream.await(V1Event::INVERSE_OFFERS).inverse_offers().inverse_offers(0);
  EXPECT_NE(offered.id().value(), again.id().value());
  ASSERT_EQ(200, maintenance("/maintenance/schedule", "{}"));
  EXPECT_EQ(again.id().value(),
            stream.await(V1Event::RESCIND_INVERSE_OFFER).rescind_inverse_offer().inverse_offer_id().value());
}

// A RESERVE with an id gets OPERATION_FINISHED (acknowledged, it is
// forgotten); reconciliation answers what is kept, and OPERATION_UNKNOWN
// for an id never seen; a call with an invalid operation gets
// OPERATION_ERROR. The offers carry the reservation in the stack form to a
// framework with RESERVATION_REFINEMENT.
TEST_F(SchedulerApiTest, OperationFeedbackFinishesIsAcknowledgedAndReconciled) {
  start();
  Peer& agent = slave("slave");
  SlaveID slaveId = registerSlave(agent, "cpus:4;mem:1024");
  V1Call subscribe = subscribeCall();
  v1::FrameworkInfo* info = subscribe.mutable_subscribe()->mutable_framework_info();
  // (v1 deprecates `role` for `roles`, which needs MULTI_ROLE.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  info->set_role("eng");
#pragma GCC diagnostic pop
  info->set_principal("ops");
  info->add_capabilities()->set_type(v1::FrameworkInfo::Capability::RESERVATION_REFINEMENT);
  Subscription stream(runtime_->address(), subscribe, kJson);
  ASSERT_EQ(200, stream.status());
  const v1::FrameworkID frameworkId = stream.expect(V1Event::SUBSCRIBED).subscribed().framework_id();
  v1::Offer offer = stream.expect(V1Event::OFFERS).offers().offers(0);

  V1Call accept = frameworkCall(V1Call::ACCEPT, frameworkId);
  *accept.mutable_accept()->add_offer_ids() = offer.id();
  accept.mutable_accept()->mutable_filters()->set_refuse_seconds(0);
  v1::Offer::Operation* reserve = accept.mutable_accept()->add_operations();
  reserve->set_type(v1::Offer::Operation::RESERVE);
  reserve->mutable_id()->set_value("reserve-1");
  *reserve->mutable_reserve()->add_resources() =
      reservedFor(v1Scalar("cpus", 1), "eng", v1::Resource::ReservationInfo::DYNAMIC, "ops");
  ASSERT_EQ(202, call(accept, stream.streamId(), kJson));
  settle();
  V1Event finished = stream.await(V1Event::UPDATE_OPERATION_STATUS);
  const v1::OperationStatus& status = finished.update_operation_status().status();
  EXPECT_EQ("reserve-1", status.operation_id().value());
  EXPECT_EQ(v1::OPERATION_FINISHED, status.state());
  EXPECT_EQ(slaveId.value(), status.agent_id().value());
  ASSERT_TRUE(status.has_uuid());
  EXPECT_EQ(1u, agent.count<CheckpointResourcesMessage>());

  // The reservation comes back offered, in the stack form.
  advance(1s);
  v1::Offer again = stream.await(V1Event::OFFERS).offers().offers(0);
  bool reservedSeen = false;
  for (const v1::Resource& resource : again.resources()) {
    if (resource.reservations_size() == 0) continue;
    reservedSeen = true;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    EXPECT_FALSE(resource.has_role()) << resource.DebugString();
#pragma GCC diagnostic pop
    EXPECT_EQ("eng", resource.reservations(0).role());
    EXPECT_EQ("ops", resource.reservations(0).principal());
  }
  EXPECT_TRUE(reservedSeen);

  // Reconciled while kept; then acknowledged and forgotten.
  V1Call reconcile = frameworkCall(V1Call::RECONCILE_OPERATIONS, frameworkId);
  reconcile.mutable_reconcile_operations()->add_operations()->mutable_operation_id()->set_value(
      "reserve-1");
  reconcile.mutable_reconcile_operations()->add_operations()->mutable_operation_id()->set_value(
      "never");
  ASSERT_EQ(202, call(reconcile, stream.streamId(), kJson));
  V1Event known = stream.await(V1Event::UPDATE_OPERATION_STATUS);
  EXPECT_EQ(v1::OPERATION_FINISHED, known.update_operation_status().status().state());
  EXPECT_FALSE(known.update_operation_status().status().has_uuid());
  V1Event unknown = stream.await(V1Event::UPDATE_OPERATION_STATUS);
  EXPECT_EQ("never", unknown.update_operation_status().status().operation_id().value());
  EXPECT_EQ(v1::OPERATION_UNKNOWN, unknown.update_operation_status().status().state());

  V1Call ack = frameworkCall(V1Call::ACKNOWLEDGE_OPERATION_STATUS, frameworkId);
  ack.mutable_acknowledge_operation_status()->mutable_operation_id()->set_value("reserve-1");
  ack.mutable_acknowledge_operation_status()->set_uuid(status.uuid().value());
  ASSERT_EQ(202, call(ack, stream.streamId(), kJson));
  reconcile.mutable_reconcile_operations()->clear_operations();
  ASSERT_EQ(202, call(reconcile, stream.streamId(), kJson));
  settle();

  // An invalid operation with an id: OPERATION_ERROR, nothing applied.
  V1Call bad = frameworkCall(V1Call::ACCEPT, frameworkId);
  *bad.mutable_accept()->add_offer_ids() = again.id();
  v1::Offer::Operation* unreserve = bad.mutable_accept()->add_operations();
  unreserve->set_type(v1::Offer::Operation::UNRESERVE);
  unreserve->mutable_id()->set_value("unreserve-1");
  v1::Resource* mem = unreserve->mutable_unreserve()->add_resources();
  mem->set_name("mem");
  mem->set_type(v1::Value::SCALAR);
  mem->mutable_scalar()->set_value(64);
  ASSERT_EQ(202, call(bad, stream.streamId(), kJson));
  V1Event error = stream.await(V1Event::UPDATE_OPERATION_STATUS);
  EXPECT_EQ("unreserve-1", error.update_operation_status().status().operation_id().value());
  EXPECT_EQ(v1::OPERATION_ERROR, error.update_operation_status().status().state());
  EXPECT_NE(std::string::npos,
            error.update_operation_status().status().message().find("not dynamically reserved"));
  EXPECT_EQ(1u, agent.count<CheckpointResourcesMessage>());
}

}  // namespace
}  // namespace mesos::test
