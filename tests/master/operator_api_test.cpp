// The v1 operator API (POST /api/v1) over real TCP against a real master,
// with stand-in slaves and schedulers (MasterFixture): every call in both
// encodings, the event stream, its fan-out to many subscribers, a subscriber
// that does not read, the view_* ACLs, bad input, and the operations of a
// real v1 framework.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/protobuf_json.hpp"
#include "common/v1.hpp"
#include "support/master_fixture.hpp"
#include "support/net.hpp"
#include "support/raw_peer.hpp"
#include "support/record_stream.hpp"
#include "support/v1_scheduler.hpp"
#include "v1/master.pb.h"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using Call = v1::master::Call;
using V1Response = v1::master::Response;
using Event = v1::master::Event;

constexpr const char* kProtobuf = "application/x-protobuf";
constexpr const char* kJson = "application/json";

constexpr const char* kCredentials =
    R"({"credentials": [{"principal": "ops", "secret": "ops-secret"},
                        {"principal": "alice", "secret": "alice-secret"}]})";

std::string basic(const std::string& principal) {
  if (principal == "ops") return "Authorization: Basic b3BzOm9wcy1zZWNyZXQ=\r\n";
  if (principal == "alice") return "Authorization: Basic YWxpY2U6YWxpY2Utc2VjcmV0\r\n";
  return "";
}

std::string encode(const Call& call, const std::string& encoding) {
  return encoding == kJson ? toJson(call) : call.SerializeAsString();
}

std::string request(const std::string& body, const std::string& contentType,
                    const std::string& accept, const std::string& principal = "",
                    const std::string& method = "POST", const std::string& path = "/api/v1") {
  return method + " " + path + " HTTP/1.1\r\nHost: test\r\nContent-Type: " + contentType +
         "\r\nAccept: " + accept + "\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n" + basic(principal) + "\r\n" + body;
}

Call callOf(Call::Type type) {
  Call call;
  call.set_type(type);
  return call;
}

// An operator's subscription: the connection that carries its events.
class Subscriber {
 public:
  Subscriber(const process::Address& master, const std::string& encoding = kJson,
             const std::string& principal = "", int receiveBuffer = 0)
      : peer_(master, receiveBuffer), encoding_(encoding) {
    CHECK(peer_.connected());
    CHECK(peer_.write(request(encode(callOf(Call::SUBSCRIBE), encoding), encoding, encoding,
                              principal)));
  }

  // The response's head: its status (0 if none came).
  int head() {
    auto head = peer_.readStreamHead();
    if (!head) return 0;
    contentType_ = head->headers["content-type"];
    return head->status;
  }
  const std::string& contentType() const { return contentType_; }

  // The next event; nullopt when the stream ends or nothing comes within
  // the socket timeout.
  std::optional<Event> next() { return events_.next(); }

  // The events of the next HTTP chunk (none when the stream ends or nothing
  // comes within the socket timeout); call with no event left unread.
  std::vector<Event> chunk() { return events_.chunk(); }

  // The next event that is not a HEARTBEAT, which must be of `type`.
  Event expect(Event::Type type) { return events_.expect(type); }

  RawPeer& peer() { return peer_; }

 private:
  RawPeer peer_;
  std::string encoding_;
  std::string contentType_;
  RecordStream<Event> events_{peer_, encoding_ == kJson};
};

class OperatorApiTest : public MasterFixture {
 protected:
  // Calls need the credentials of kCredentials, and `acls` decide.
  void secure(const std::string& acls) {
    flags_.security.authenticate_http_readwrite = true;
    flags_.security.http_credentials = kCredentials;
    flags_.security.acls = acls;
  }

  // POSTs `body` to /api/v1 and reads the answer.
  HttpResponse post(const std::string& body, const std::string& contentType,
                    const std::string& accept, const std::string& principal = "",
                    const std::string& method = "POST", const std::string& path = "/api/v1") {
    RawPeer peer(runtime_->address());
    EXPECT_TRUE(peer.write(request(body, contentType, accept, principal, method, path)));
    auto response = peer.readResponse();
    EXPECT_TRUE(response.has_value()) << "no answer to " << body;
    return response.value_or(HttpResponse{});
  }

  // Makes `call` in `encoding`; expects 200 and a Response of `type`.
  V1Response make(const Call& call, const std::string& encoding,
                  V1Response::Type type, const std::string& principal = "") {
    HttpResponse answer = post(encode(call, encoding), encoding, encoding, principal);
    EXPECT_EQ(answer.status, 200) << Call::Type_Name(call.type()) << ": " << answer.body;
    EXPECT_EQ(answer.headers["content-type"], encoding);
    V1Response response;
    if (encoding == kJson) {
      auto parsed = fromJson(answer.body, &response);
      EXPECT_TRUE(parsed) << parsed.error().message << ": " << answer.body;
    } else {
      EXPECT_TRUE(response.ParseFromString(answer.body));
    }
    EXPECT_EQ(V1Response::Type_Name(response.type()), V1Response::Type_Name(type));
    return response;
  }

  static FrameworkInfo info(const std::string& name, const std::string& user) {
    FrameworkInfo framework = frameworkInfo(name);
    framework.set_user(user);
    return framework;
  }

  // Launches `task` on the scheduler's latest offer.
  void launchOnOffer(Peer& scheduler, const FrameworkID& id, TaskInfo task) {
    auto offers = scheduler.received<ResourceOffersMessage>();
    ASSERT_FALSE(offers.empty());
    const Offer& offer = offers.back().offers(0);
    *task.mutable_slave_id() = offer.slave_id();
    launch(scheduler, id, {offer.id()}, {task});
  }

  // SUBSCRIBE of a v1 framework of `role` with principal "ops".
  static v1::scheduler::Call v1Subscribe(const std::string& role) {
    v1::scheduler::Call call;
    call.set_type(v1::scheduler::Call::SUBSCRIBE);
    FrameworkInfo info = frameworkInfo("reserving-" + role, role);
    info.set_principal("ops");
    *call.mutable_subscribe()->mutable_framework_info() = evolve<v1::FrameworkInfo>(info);
    return call;
  }

  struct Reserved {
    v1::FrameworkID frameworkId;
    v1::OperationStatus status;  // OPERATION_FINISHED
  };

  // `framework` (just subscribed) reserves one cpu of its first offer for
  // `role` in an operation with id "reserve-<role>".
  Reserved reserveOneCpu(v1scheduler::Subscription& framework, const std::string& role) {
    using V1Event = v1::scheduler::Event;
    Reserved reserved;
    EXPECT_EQ(framework.status(), 200);
    reserved.frameworkId = framework.expect(V1Event::SUBSCRIBED).subscribed().framework_id();
    const v1::Offer offer = framework.expect(V1Event::OFFERS).offers().offers(0);
    v1::scheduler::Call accept;
    accept.set_type(v1::scheduler::Call::ACCEPT);
    *accept.mutable_framework_id() = reserved.frameworkId;
    *accept.mutable_accept()->add_offer_ids() = offer.id();
    v1::Offer::Operation* reserve = accept.mutable_accept()->add_operations();
    reserve->set_type(v1::Offer::Operation::RESERVE);
    reserve->mutable_id()->set_value("reserve-" + role);
    Resource cpu = *Resources::parse("cpus:1").value().begin();
    cpu.clear_role();  // the stack form, as a v1 framework sends it
    Resource::ReservationInfo* reservation = cpu.add_reservations();
    reservation->set_type(Resource::ReservationInfo::DYNAMIC);
    reservation->set_role(role);
    reservation->set_principal("ops");
    *reserve->mutable_reserve()->add_resources() = evolve<v1::Resource>(cpu);
    EXPECT_EQ(framework.call(accept), 202);
    runtime_->settle();
    reserved.status =
        framework.await(V1Event::UPDATE_OPERATION_STATUS).update_operation_status().status();
    EXPECT_EQ(reserved.status.state(), v1::OPERATION_FINISHED);
    return reserved;
  }

  static TaskInfo executorTask(const std::string& id) {
    TaskInfo task = commandTask(id, SlaveID());
    task.clear_command();
    ExecutorInfo* executor = task.mutable_executor();
    executor->mutable_executor_id()->set_value("executor-" + id);
    executor->mutable_command()->set_value("sleep 1000");
    return task;
  }
};

TEST_F(OperatorApiTest, EveryCallInBothEncodings) {
  start();
  Peer& slave = this->slave("slave");
  SlaveID slaveId = registerSlave(slave);
  Peer& scheduler = this->scheduler("scheduler");
  FrameworkID frameworkId = registerFramework(scheduler, info("operated", "tester"));
  advance(flags_.allocation_interval);
  TaskInfo t1 = executorTask("t1");
  t1.mutable_kill_policy()->mutable_grace_period()->set_nanoseconds(7000000000);
  launchOnOffer(scheduler, frameworkId, t1);
  ASSERT_EQ(slave.received<RunTaskMessage>().size(), 1u);

  for (const std::string encoding : {kJson, kProtobuf}) {
    SCOPED_TRACE(encoding);
    EXPECT_TRUE(make(callOf(Call::GET_HEALTH), encoding, V1Response::GET_HEALTH)
                    .get_health()
                    .healthy());

    V1Response flags = make(callOf(Call::GET_FLAGS), encoding, V1Response::GET_FLAGS);
    auto named = [&](const std::string& name) {
      for (const v1::Flag& flag : flags.get_flags().flags()) {
        if (flag.name() == name) return flag.value();
      }
      return std::string("<missing>");
    };
    EXPECT_EQ(named("max_operator_event_stream_subscribers"), "1000");
    EXPECT_EQ(named("port"), std::to_string(flags_.port));

    EXPECT_FALSE(make(callOf(Call::GET_VERSION), encoding, V1Response::GET_VERSION)
                     .get_version()
                     .version_info()
                     .version()
                     .empty());

    Call metricsCall = callOf(Call::GET_METRICS);
    metricsCall.mutable_get_metrics()->mutable_timeout()->set_nanoseconds(1000000000);
    V1Response metrics = make(metricsCall, encoding, V1Response::GET_METRICS);
    bool uptime = false;
    for (const v1::Metric& metric : metrics.get_metrics().metrics()) {
      if (metric.name() == "master/uptime_secs") uptime = true;
    }
    EXPECT_TRUE(uptime) << metrics.DebugString();

    V1Response state = make(callOf(Call::GET_STATE), encoding, V1Response::GET_STATE);
    ASSERT_EQ(state.get_state().get_agents().agents_size(), 1);
    EXPECT_EQ(state.get_state().get_agents().agents(0).agent_info().id().value(),
              slaveId.value());
    ASSERT_EQ(state.get_state().get_frameworks().frameworks_size(), 1);
    EXPECT_EQ(state.get_state().get_tasks().tasks_size(), 1);
    EXPECT_EQ(state.get_state().get_executors().executors_size(), 1);

    V1Response agents = make(callOf(Call::GET_AGENTS), encoding, V1Response::GET_AGENTS);
    ASSERT_EQ(agents.get_agents().agents_size(), 1);
    const auto& agent = agents.get_agents().agents(0);
    EXPECT_EQ(agent.agent_info().hostname(), "slave.example");
    EXPECT_TRUE(agent.active());
    EXPECT_EQ(agent.version(), "1.0.0");
    EXPECT_GT(agent.total_resources_size(), 0);
    EXPECT_GT(agent.allocated_resources_size(), 0);

    V1Response frameworks =
        make(callOf(Call::GET_FRAMEWORKS), encoding, V1Response::GET_FRAMEWORKS);
    ASSERT_EQ(frameworks.get_frameworks().frameworks_size(), 1);
    const auto& framework = frameworks.get_frameworks().frameworks(0);
    EXPECT_EQ(framework.framework_info().name(), "operated");
    EXPECT_EQ(framework.framework_info().id().value(), frameworkId.value());
    EXPECT_TRUE(framework.active());
    EXPECT_TRUE(framework.connected());
    EXPECT_GT(framework.allocated_resources_size(), 0);

    V1Response executors = make(callOf(Call::GET_EXECUTORS), encoding, V1Response::GET_EXECUTORS);
    ASSERT_EQ(executors.get_executors().executors_size(), 1);
    EXPECT_EQ(executors.get_executors().executors(0).executor_info().executor_id().value(),
              "executor-t1");
    EXPECT_EQ(executors.get_executors().executors(0).agent_id().value(), slaveId.value());

    V1Response tasks = make(callOf(Call::GET_TASKS), encoding, V1Response::GET_TASKS);
    ASSERT_EQ(tasks.get_tasks().tasks_size(), 1);
    EXPECT_EQ(tasks.get_tasks().tasks(0).task_id().value(), "t1");
    EXPECT_EQ(tasks.get_tasks().tasks(0).agent_id().value(), slaveId.value());
    EXPECT_EQ(tasks.get_tasks().tasks(0).state(), v1::TASK_STAGING);
    // The task's kill policy, as Apache's Task carries it.
    EXPECT_EQ(tasks.get_tasks().tasks(0).kill_policy().grace_period().nanoseconds(), 7000000000);

    V1Response roles = make(callOf(Call::GET_ROLES), encoding, V1Response::GET_ROLES);
    ASSERT_EQ(roles.get_roles().roles_size(), 1);
    EXPECT_EQ(roles.get_roles().roles(0).name(), "*");
    EXPECT_EQ(roles.get_roles().roles(0).weight(), 1.0);
    ASSERT_EQ(roles.get_roles().roles(0).frameworks_size(), 1);
    EXPECT_EQ(roles.get_roles().roles(0).frameworks(0).value(), frameworkId.value());

    V1Response master = make(callOf(Call::GET_MASTER), encoding, V1Response::GET_MASTER);
    EXPECT_EQ(master.get_master().master_info().id(), master_->info().id());
    EXPECT_GT(master.get_master().start_time(), 0);
  }

  // /state shows no kill policy, as Apache's does not.
  json::Value listed = get("/state")["frameworks"].array()[0]["tasks"].array()[0];
  EXPECT_EQ(listed["id"].string(), "t1");
  EXPECT_TRUE(listed["kill_policy"].isNull());

  // The same calls at /master/api/v1.
  HttpResponse health = post(encode(callOf(Call::GET_HEALTH), kJson), kJson, kJson, "", "POST",
                             "/master/api/v1");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, R"({"type":"GET_HEALTH","get_health":{"healthy":true}})");

  // TEARDOWN: the framework and its task are gone, the scheduler told.
  Call teardown = callOf(Call::TEARDOWN);
  teardown.mutable_teardown()->mutable_framework_id()->set_value(frameworkId.value());
  HttpResponse tornDown = post(encode(teardown, kProtobuf), kProtobuf, kProtobuf);
  EXPECT_EQ(tornDown.status, 200) << tornDown.body;
  runtime_->settle();
  EXPECT_EQ(scheduler.received<FrameworkErrorMessage>().size(), 1u);
  V1Response frameworks = make(callOf(Call::GET_FRAMEWORKS), kJson, V1Response::GET_FRAMEWORKS);
  EXPECT_EQ(frameworks.get_frameworks().frameworks_size(), 0);
  ASSERT_EQ(frameworks.get_frameworks().completed_frameworks_size(), 1);
  EXPECT_EQ(frameworks.get_frameworks().completed_frameworks(0).framework_info().id().value(),
            frameworkId.value());
  V1Response tasks = make(callOf(Call::GET_TASKS), kJson, V1Response::GET_TASKS);
  EXPECT_EQ(tasks.get_tasks().tasks_size(), 0);
  ASSERT_EQ(tasks.get_tasks().completed_tasks_size(), 1);
  EXPECT_EQ(tasks.get_tasks().completed_tasks(0).task_id().value(), "t1");
  EXPECT_EQ(tasks.get_tasks().completed_tasks(0).state(), v1::TASK_KILLED);

  HttpResponse again = post(encode(teardown, kJson), kJson, kJson);
  EXPECT_EQ(again.status, 400);
  EXPECT_EQ(again.body, "No framework found with specified ID\n");
}

// A scripted scenario, in both encodings: the exact sequence of events.
TEST_F(OperatorApiTest, EventStreamFollowsTheCluster) {
  start();
  Subscriber json(runtime_->address(), kJson);
  Subscriber protobuf(runtime_->address(), kProtobuf);
  for (Subscriber* subscriber : {&json, &protobuf}) {
    ASSERT_EQ(subscriber->head(), 200);
    Event subscribed = subscriber->expect(Event::SUBSCRIBED);
    EXPECT_EQ(subscribed.subscribed().heartbeat_interval_seconds(), 15);
    EXPECT_EQ(subscribed.subscribed().get_state().get_agents().agents_size(), 0);
  }
  EXPECT_EQ(json.contentType(), kJson);
  EXPECT_EQ(protobuf.contentType(), kProtobuf);

  Peer& scheduler = this->scheduler("scheduler");
  FrameworkID frameworkId = registerFramework(scheduler, info("scripted", "tester"));
  Peer& slave = this->slave("slave");
  SlaveID slaveId = registerSlave(slave);
  advance(flags_.allocation_interval);
  launchOnOffer(scheduler, frameworkId, commandTask("t1", slaveId));
  ASSERT_EQ(slave.received<RunTaskMessage>().size(), 1u);
  slave.post(master(), update(frameworkId, slaveId, "t1", TASK_RUNNING, slave));
  runtime_->settle();
  slave.post(master(), update(frameworkId, slaveId, "t1", TASK_FINISHED, slave));
  runtime_->settle();
  UnregisterSlaveMessage unregister;
  *unregister.mutable_slave_id() = slaveId;
  slave.post(master(), unregister);
  runtime_->settle();
  Call teardown = callOf(Call::TEARDOWN);
  teardown.mutable_teardown()->mutable_framework_id()->set_value(frameworkId.value());
  ASSERT_EQ(post(encode(teardown, kJson), kJson, kJson).status, 200);
  runtime_->settle();
  advance(15s);  // a heartbeat

  for (Subscriber* subscriber : {&json, &protobuf}) {
    Event added = subscriber->expect(Event::FRAMEWORK_ADDED);
    EXPECT_EQ(added.framework_added().framework().framework_info().name(), "scripted");
    EXPECT_EQ(added.framework_added().framework().framework_info().id().value(),
              frameworkId.value());
    Event agent = subscriber->expect(Event::AGENT_ADDED);
    EXPECT_EQ(agent.agent_added().agent().agent_info().id().value(), slaveId.value());
    EXPECT_EQ(agent.agent_added().agent().agent_info().hostname(), "slave.example");
    Event task = subscriber->expect(Event::TASK_ADDED);
    EXPECT_EQ(task.task_added().task().task_id().value(), "t1");
    EXPECT_EQ(task.task_added().task().state(), v1::TASK_STAGING);
    Event running = subscriber->expect(Event::TASK_UPDATED);
    EXPECT_EQ(running.task_updated().state(), v1::TASK_RUNNING);
    EXPECT_EQ(running.task_updated().status().task_id().value(), "t1");
    EXPECT_EQ(running.task_updated().framework_id().value(), frameworkId.value());
    Event finished = subscriber->expect(Event::TASK_UPDATED);
    EXPECT_EQ(finished.task_updated().state(), v1::TASK_FINISHED);
    Event removed = subscriber->expect(Event::AGENT_REMOVED);
    EXPECT_EQ(removed.agent_removed().agent_id().value(), slaveId.value());
    Event gone = subscriber->expect(Event::FRAMEWORK_REMOVED);
    EXPECT_EQ(gone.framework_removed().framework_info().id().value(), frameworkId.value());
    auto heartbeat = subscriber->next();
    ASSERT_TRUE(heartbeat.has_value());
    EXPECT_EQ(Event::Type_Name(heartbeat->type()), "HEARTBEAT");
  }

  // A subscriber that comes now sees the state as it is.
  Subscriber late(runtime_->address(), kProtobuf);
  ASSERT_EQ(late.head(), 200);
  Event subscribed = late.expect(Event::SUBSCRIBED);
  EXPECT_EQ(subscribed.subscribed().get_state().get_frameworks().frameworks_size(), 0);
  EXPECT_EQ(subscribed.subscribed().get_state().get_frameworks().completed_frameworks_size(), 1);
}

TEST_F(OperatorApiTest, ThousandSubscribersEachGetTheEvent) {
  start();
  std::vector<std::unique_ptr<Subscriber>> subscribers;
  for (int i = 0; i < 1000; ++i) {
    subscribers.push_back(
        std::make_unique<Subscriber>(runtime_->address(), i % 2 == 0 ? kJson : kProtobuf));
  }
  for (auto& subscriber : subscribers) {
    ASSERT_EQ(subscriber->head(), 200);
    subscriber->expect(Event::SUBSCRIBED);
  }
  Peer& slave = this->slave("slave");
  SlaveID slaveId = registerSlave(slave);
  size_t received = 0;
  for (auto& subscriber : subscribers) {
    Event added = subscriber->expect(Event::AGENT_ADDED);
    if (added.agent_added().agent().agent_info().id().value() == slaveId.value()) ++received;
  }
  EXPECT_EQ(received, 1000u);
}

// --operator_event_stream_batch_window: an event after a quiet window goes
// out at once; those published within the window after it wait, and go out
// together, as one chunk, when the window ends.
TEST_F(OperatorApiTest, EventsWithinTheBatchWindowGoOutTogether) {
  flags_.operator_event_stream_batch_window = flags::Duration(100ms);
  start();
  Subscriber subscriber(runtime_->address(), kProtobuf);
  ASSERT_EQ(subscriber.head(), 200);
  subscriber.expect(Event::SUBSCRIBED);
  advance(1s);

  SlaveID a = registerSlave(slave("a"));
  std::vector<Event> first = subscriber.chunk();  // on the paused clock
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].agent_added().agent().agent_info().id().value(), a.value());

  SlaveID b = registerSlave(slave("b"));
  advance(50ms);
  SlaveID c = registerSlave(slave("c"));
  advance(50ms);
  std::vector<Event> batch = subscriber.chunk();
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].agent_added().agent().agent_info().id().value(), b.value());
  EXPECT_EQ(batch[1].agent_added().agent().agent_info().id().value(), c.value());

  // Quiet for a window again: the next one goes out at once.
  advance(100ms);
  SlaveID d = registerSlave(slave("d"));
  std::vector<Event> last = subscriber.chunk();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].agent_added().agent().agent_info().id().value(), d.value());
}

// A subscriber that never reads is dropped once it leaves more than
// --operator_event_stream_queue_limit unread; the others go on.
TEST_F(OperatorApiTest, SubscriberThatDoesNotReadIsDropped) {
  WarningLog warnings;
  google::AddLogSink(&warnings);
  flags_.operator_event_stream_queue_limit = flags::Bytes{256 * 1024};
  start();
  Subscriber reader(runtime_->address(), kProtobuf);
  Subscriber stuck(runtime_->address(), kProtobuf, "", 4096);
  ASSERT_EQ(reader.head(), 200);
  reader.expect(Event::SUBSCRIBED);
  ASSERT_EQ(stuck.head(), 200);

  // Each re-registration is a FRAMEWORK_UPDATED of 64 KiB.
  Peer& scheduler = this->scheduler("scheduler");
  FrameworkInfo big = info("big", "tester");
  Label* label = big.mutable_labels()->add_labels();
  label->set_key("padding");
  label->set_value(std::string(64 * 1024, 'x'));
  FrameworkID frameworkId = registerFramework(scheduler, big);
  reader.expect(Event::FRAMEWORK_ADDED);
  *big.mutable_id() = frameworkId;
  bool dropped = false;
  for (int i = 0; i < 400 && !dropped; ++i) {
    ReregisterFrameworkMessage message;
    *message.mutable_framework() = big;
    message.set_failover(false);
    scheduler.post(master(), message);
    runtime_->settle();
    Event updated = reader.expect(Event::FRAMEWORK_UPDATED);
    EXPECT_EQ(updated.framework_updated().framework().framework_info().name(), "big");
    dropped = warnings.count("not reading its event stream") > 0;
  }
  google::RemoveLogSink(&warnings);
  EXPECT_TRUE(dropped) << warnings.all();
  EXPECT_EQ(warnings.count("not reading its event stream"), 1u);
  std::string unread;
  EXPECT_NE(stuck.peer().readToEnd(&unread), RawPeer::End::kTimeout);

  // The reader goes on, and the master serves.
  Peer& slave = this->slave("slave");
  registerSlave(slave);
  reader.expect(Event::AGENT_ADDED);
  EXPECT_TRUE(make(callOf(Call::GET_HEALTH), kJson, V1Response::GET_HEALTH).get_health().healthy());
}

TEST_F(OperatorApiTest, TooManySubscribersCloseTheOldest) {
  flags_.max_operator_event_stream_subscribers = 2;
  start();
  Subscriber first(runtime_->address());
  ASSERT_EQ(first.head(), 200);
  first.expect(Event::SUBSCRIBED);
  Subscriber second(runtime_->address());
  ASSERT_EQ(second.head(), 200);
  second.expect(Event::SUBSCRIBED);
  Subscriber third(runtime_->address());
  ASSERT_EQ(third.head(), 200);
  third.expect(Event::SUBSCRIBED);
  EXPECT_FALSE(first.next().has_value());  // its stream ended
  Peer& slave = this->slave("slave");
  registerSlave(slave);
  second.expect(Event::AGENT_ADDED);
  third.expect(Event::AGENT_ADDED);
}

// view_frameworks and view_tasks decide which events and state a principal
// sees; view_flags guards GET_FLAGS; teardown_frameworks guards TEARDOWN.
TEST_F(OperatorApiTest, AclsFilterTheStreamAndTheCalls) {
  secure(R"({
      "view_frameworks": [{"principals": {"values": ["ops"]}, "users": {"type": "ANY"}},
                          {"principals": {"values": ["alice"]}, "users": {"values": ["alice"]}},
                          {"principals": {"type": "ANY"}, "users": {"type": "NONE"}}],
      "view_tasks": [{"principals": {"values": ["ops"]}, "users": {"type": "ANY"}},
                     {"principals": {"values": ["alice"]}, "users": {"values": ["alice"]}},
                     {"principals": {"type": "ANY"}, "users": {"type": "NONE"}}],
      "view_flags": [{"principals": {"values": ["ops"]}, "flags": {"type": "ANY"}},
                     {"principals": {"type": "ANY"}, "flags": {"type": "NONE"}}],
      "teardown_frameworks": [{"principals": {"values": ["ops"]},
                               "framework_principals": {"type": "ANY"}},
                              {"principals": {"type": "ANY"},
                               "framework_principals": {"type": "NONE"}}],
      "run_tasks": [{"principals": {"type": "ANY"}, "users": {"type": "ANY"}}]})");
  start();
  // Without credentials: 401.
  EXPECT_EQ(post(encode(callOf(Call::GET_HEALTH), kJson), kJson, kJson).status, 401);

  Subscriber ops(runtime_->address(), kJson, "ops");
  Subscriber alice(runtime_->address(), kProtobuf, "alice");
  ASSERT_EQ(ops.head(), 200);
  ASSERT_EQ(alice.head(), 200);
  ops.expect(Event::SUBSCRIBED);
  alice.expect(Event::SUBSCRIBED);

  Peer& first = this->slave("first");
  registerSlave(first);
  Peer& second = this->slave("second");
  registerSlave(second);
  Peer& bobScheduler = this->scheduler("bob");
  FrameworkID bobId = registerFramework(bobScheduler, info("bob-fw", "bob"));
  Peer& aliceScheduler = this->scheduler("alice");
  FrameworkID aliceId = registerFramework(aliceScheduler, info("alice-fw", "alice"));
  advance(flags_.allocation_interval);
  launchOnOffer(bobScheduler, bobId, commandTask("bob-task", SlaveID(), "cpus:1;mem:128"));
  launchOnOffer(aliceScheduler, aliceId, commandTask("alice-task", SlaveID(), "cpus:1;mem:128"));

  ops.expect(Event::AGENT_ADDED);
  ops.expect(Event::AGENT_ADDED);
  EXPECT_EQ(ops.expect(Event::FRAMEWORK_ADDED).framework_added().framework().framework_info().name(),
            "bob-fw");
  EXPECT_EQ(ops.expect(Event::FRAMEWORK_ADDED).framework_added().framework().framework_info().name(),
            "alice-fw");
  EXPECT_EQ(ops.expect(Event::TASK_ADDED).task_added().task().task_id().value(), "bob-task");
  EXPECT_EQ(ops.expect(Event::TASK_ADDED).task_added().task().task_id().value(), "alice-task");

  alice.expect(Event::AGENT_ADDED);
  alice.expect(Event::AGENT_ADDED);
  EXPECT_EQ(
      alice.expect(Event::FRAMEWORK_ADDED).framework_added().framework().framework_info().name(),
      "alice-fw");
  EXPECT_EQ(alice.expect(Event::TASK_ADDED).task_added().task().task_id().value(), "alice-task");
  // Nothing of bob's came in between: the next is this agent's.
  Peer& third = this->slave("third");
  registerSlave(third);
  alice.expect(Event::AGENT_ADDED);

  V1Response state = make(callOf(Call::GET_STATE), kProtobuf, V1Response::GET_STATE, "alice");
  ASSERT_EQ(state.get_state().get_frameworks().frameworks_size(), 1);
  EXPECT_EQ(state.get_state().get_frameworks().frameworks(0).framework_info().name(), "alice-fw");
  ASSERT_EQ(state.get_state().get_tasks().tasks_size(), 1);
  EXPECT_EQ(state.get_state().get_tasks().tasks(0).task_id().value(), "alice-task");
  EXPECT_EQ(make(callOf(Call::GET_TASKS), kJson, V1Response::GET_TASKS, "ops")
                .get_tasks()
                .tasks_size(),
            2);

  HttpResponse flags = post(encode(callOf(Call::GET_FLAGS), kJson), kJson, kJson, "alice");
  EXPECT_EQ(flags.status, 403);
  EXPECT_EQ(flags.body, "Not authorized to view the flags (ACL view_flags)\n");
  make(callOf(Call::GET_FLAGS), kJson, V1Response::GET_FLAGS, "ops");

  Call teardown = callOf(Call::TEARDOWN);
  teardown.mutable_teardown()->mutable_framework_id()->set_value(bobId.value());
  EXPECT_EQ(post(encode(teardown, kJson), kJson, kJson, "alice").status, 403);
  EXPECT_EQ(post(encode(teardown, kJson), kJson, kJson, "ops").status, 200);
  runtime_->settle();
  // Alice sees nothing of bob's framework going; ops does.
  EXPECT_EQ(ops.expect(Event::AGENT_ADDED).agent_added().agent().agent_info().hostname(),
            "third.example");
  Event killed = ops.expect(Event::TASK_UPDATED);
  EXPECT_EQ(killed.task_updated().state(), v1::TASK_KILLED);
  EXPECT_EQ(killed.task_updated().status().task_id().value(), "bob-task");
  EXPECT_EQ(ops.expect(Event::FRAMEWORK_REMOVED).framework_removed().framework_info().name(),
            "bob-fw");
  Peer& fourth = this->slave("fourth");
  registerSlave(fourth);
  EXPECT_EQ(alice.expect(Event::AGENT_ADDED).agent_added().agent().agent_info().hostname(),
            "fourth.example");
}

// MARK_AGENT_GONE (docs/partition-awareness.md): the agent's tasks are gone
// by operator, it is told to shut down and refused if it comes back; again
// is fine; an agent nobody knows is 404.
TEST_F(OperatorApiTest, AnAgentMarkedGoneIsGoneForGood) {
  start();
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkInfo aware = frameworkInfo("aware");
  aware.add_capabilities()->set_type(FrameworkInfo::Capability::PARTITION_AWARE);
  FrameworkID frameworkId = registerFramework(s, aware);
  SlaveID slaveId = registerSlave(a, "cpus:1;mem:512");
  auto offers = s.received<ResourceOffersMessage>();
  ASSERT_FALSE(offers.empty());
  launch(s, frameworkId, {offers.back().offers(0).id()}, {commandTask("t1", slaveId)});
  a.post(master(), update(frameworkId, slaveId, "t1", TASK_RUNNING, a));
  runtime_->settle();

  const std::string call =
      R"({"type": "MARK_AGENT_GONE", "mark_agent_gone": {"agent_id": {"value": ")" +
      slaveId.value() + R"("}}})";
  HttpResponse gone = post(call, kJson, kJson);
  EXPECT_EQ(gone.status, 200) << gone.body;
  runtime_->settle();
  auto updates = s.received<StatusUpdateMessage>();
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(TASK_GONE_BY_OPERATOR, updates.back().update().status().state());
  EXPECT_EQ(TaskStatus::REASON_SLAVE_REMOVED_BY_OPERATOR,
            updates.back().update().status().reason());
  ASSERT_EQ(1u, a.count<ShutdownMessage>());

  // It comes back: refused.
  ReregisterSlaveMessage back;
  back.mutable_slave()->set_hostname("slave(1).example");
  *back.mutable_slave()->mutable_id() = slaveId;
  back.set_version("1.0.0");
  a.post(master(), back);
  runtime_->settle();
  EXPECT_EQ(0u, a.count<SlaveReregisteredMessage>());
  ASSERT_EQ(2u, a.count<ShutdownMessage>());
  EXPECT_NE(std::string::npos, a.received<ShutdownMessage>()[1].message().find("gone"));

  EXPECT_EQ(post(call, kJson, kJson).status, 200) << "marking a gone agent again";
  HttpResponse unknown = post(
      R"({"type": "MARK_AGENT_GONE", "mark_agent_gone": {"agent_id": {"value": "nobody"}}})",
      kJson, kJson);
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body, "Agent 'nobody' not found\n");
  HttpResponse missing = post(R"({"type": "MARK_AGENT_GONE"})", kJson, kJson);
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(get("/metrics/snapshot")["master/slaves_gone"].integer(), 1);
}

// As in Apache Mesos, deactivating, draining and reactivating an agent send
// no event; an AGENT_ADDED (an agent back from unreachable) carries what it
// is then: deactivated, its drain_info, its capabilities.
TEST_F(OperatorApiTest, DrainingSendsNoEventButAgentAddedCarriesTheDrain) {
  start();
  Subscriber subscriber(runtime_->address(), kProtobuf);
  ASSERT_EQ(subscriber.head(), 200);
  subscriber.expect(Event::SUBSCRIBED);
  Peer& a = slave("slave(1)");
  SlaveID slaveId = registerSlave(a, "cpus:1;mem:512");
  Event added = subscriber.expect(Event::AGENT_ADDED);
  ASSERT_EQ(added.agent_added().agent().capabilities_size(), 4);
  EXPECT_EQ(added.agent_added().agent().capabilities(3).type(),
            v1::AgentInfo::Capability::AGENT_DRAINING);
  EXPECT_FALSE(added.agent_added().agent().deactivated());
  EXPECT_FALSE(added.agent_added().agent().has_drain_info());

  auto agentCall = [&](const std::string& type, const std::string& field,
                       const std::string& extra = "") {
    return R"({"type": ")" + type + R"(", ")" + field + R"(": {"agent_id": {"value": ")" +
           slaveId.value() + R"("})" + extra + "}}";
  };
  EXPECT_EQ(post(agentCall("DEACTIVATE_AGENT", "deactivate_agent"), kJson, kJson).status, 200);
  EXPECT_EQ(post(agentCall("REACTIVATE_AGENT", "reactivate_agent"), kJson, kJson).status, 200);
  runtime_->settle();
  advance(15s);
  auto heartbeat = subscriber.next();
  ASSERT_TRUE(heartbeat.has_value());
  EXPECT_EQ(Event::Type_Name(heartbeat->type()), "HEARTBEAT") << heartbeat->DebugString();

  // Unreachable (it answers no ping), drained meanwhile, then back.
  for (uint32_t i = 0; i <= flags_.max_slave_ping_timeouts; ++i) advance(flags_.slave_ping_timeout);
  Event removed = subscriber.expect(Event::AGENT_REMOVED);
  EXPECT_EQ(removed.agent_removed().agent_id().value(), slaveId.value());
  EXPECT_EQ(post(agentCall("DRAIN_AGENT", "drain_agent",
                           R"(, "max_grace_period": {"nanoseconds": 2000000000})"),
                 kJson, kJson)
                .status,
            200);
  ReregisterSlaveMessage back;
  back.mutable_slave()->set_hostname("slave(1).example");
  *back.mutable_slave()->mutable_id() = slaveId;
  *back.mutable_slave()->mutable_resources() = Resources::parse("cpus:1;mem:512").value().proto();
  back.set_version("1.0.0");
  back.add_agent_capabilities()->set_type(SlaveInfo::Capability::AGENT_DRAINING);
  a.post(master(), back);
  runtime_->settle();
  ASSERT_EQ(a.count<SlaveReregisteredMessage>(), 1u);
  Event again = subscriber.expect(Event::AGENT_ADDED);
  const auto& agent = again.agent_added().agent();
  EXPECT_EQ(agent.agent_info().id().value(), slaveId.value());
  EXPECT_TRUE(agent.deactivated());
  EXPECT_FALSE(agent.active());
  ASSERT_TRUE(agent.has_drain_info());
  EXPECT_EQ(agent.drain_info().state(), v1::DRAINING);
  EXPECT_EQ(agent.drain_info().config().max_grace_period().nanoseconds(), 2000000000);
  ASSERT_EQ(agent.capabilities_size(), 1);
  // Nothing runs there: it is DRAINED at once, with no event either.
  EXPECT_EQ(get("/state")["slaves"].array()[0]["drain_info"]["state"].string(), "DRAINED");
  advance(15s);
  heartbeat = subscriber.next();
  ASSERT_TRUE(heartbeat.has_value());
  EXPECT_EQ(Event::Type_Name(heartbeat->type()), "HEARTBEAT") << heartbeat->DebugString();
}

TEST_F(OperatorApiTest, BadInputGetsAClearErrorAndTheMasterServesOn) {
  start();
  HttpResponse malformed = post("{\"type\": ", kJson, kJson);
  EXPECT_EQ(malformed.status, 400);
  EXPECT_NE(malformed.body.find("Failed to parse body into Call"), std::string::npos)
      << malformed.body;

  HttpResponse garbage = post("\xff\xff\xff", kProtobuf, kProtobuf);
  EXPECT_EQ(garbage.status, 400);
  EXPECT_NE(garbage.body.find("Failed to parse body into Call"), std::string::npos);

  HttpResponse unknown = post(R"({"type": "MAKE_COFFEE"})", kJson, kJson);
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.body, "Failed to validate master::Call: Expecting 'type' to be present\n");

  HttpResponse unsupported = post(R"({"type": "SET_QUOTA"})", kJson, kJson);
  EXPECT_EQ(unsupported.status, 501);
  EXPECT_NE(unsupported.body.find("SET_QUOTA is not supported"), std::string::npos)
      << unsupported.body;

  HttpResponse noTeardown = post(R"({"type": "TEARDOWN"})", kJson, kJson);
  EXPECT_EQ(noTeardown.status, 400);
  EXPECT_EQ(noTeardown.body,
            "Failed to validate master::Call: Expecting 'teardown' to be present\n");

  HttpResponse badType = post(R"({"type": "GET_HEALTH"})", "text/plain", kJson);
  EXPECT_EQ(badType.status, 415);
  EXPECT_EQ(badType.body, "Expecting 'Content-Type' of application/json or application/x-protobuf\n");

  HttpResponse badAccept = post(R"({"type": "GET_HEALTH"})", kJson, "text/html");
  EXPECT_EQ(badAccept.status, 406);

  HttpResponse get = post("", kJson, kJson, "", "GET");
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.headers["allow"], "POST");

  // Media types with parameters are fine.
  HttpResponse charset = post(R"({"type": "GET_HEALTH"})", "application/json; charset=utf-8",
                              "application/x-protobuf;q=0.9");
  EXPECT_EQ(charset.status, 200) << charset.body;
  EXPECT_EQ(charset.headers["content-type"], kProtobuf);

  EXPECT_TRUE(make(callOf(Call::GET_HEALTH), kJson, V1Response::GET_HEALTH).get_health().healthy());
}

// A master that is not elected (its ZooKeeper is unreachable) answers what
// concerns itself and 503 for the cluster's state.
TEST_F(OperatorApiTest, AStandbyAnswersAboutItselfOnly) {
  flags_.zk = "zk://127.0.0.1:1/mesos";
  start();
  EXPECT_TRUE(make(callOf(Call::GET_HEALTH), kJson, V1Response::GET_HEALTH).get_health().healthy());
  V1Response master = make(callOf(Call::GET_MASTER), kJson, V1Response::GET_MASTER);
  EXPECT_FALSE(master.get_master().has_elected_time());
  for (Call::Type type : {Call::GET_STATE, Call::SUBSCRIBE, Call::TEARDOWN}) {
    HttpResponse answer = post(encode(callOf(type), kJson), kJson, kJson);
    EXPECT_EQ(answer.status, 503) << Call::Type_Name(type) << ": " << answer.body;
  }
}

// GET_OPERATIONS lists a v1 framework's RESERVE that carried an id, in both
// encodings, with its status, until the framework acknowledges the status.
TEST_F(OperatorApiTest, GetOperationsListsAReserveUntilItIsAcknowledged) {
  start();
  SlaveID slaveId = registerSlave(slave("slave"), "cpus:4;mem:1024");
  HttpResponse none = post(encode(callOf(Call::GET_OPERATIONS), kJson), kJson, kJson);
  EXPECT_EQ(none.status, 200);
  EXPECT_EQ(none.body, R"({"type":"GET_OPERATIONS","get_operations":{}})");

  v1scheduler::Subscription framework(runtime_->address(), v1Subscribe("eng"), kJson);
  Reserved reserved = reserveOneCpu(framework, "eng");
  for (const std::string encoding : {kJson, kProtobuf}) {
    SCOPED_TRACE(encoding);
    V1Response response =
        make(callOf(Call::GET_OPERATIONS), encoding, V1Response::GET_OPERATIONS);
    ASSERT_EQ(response.get_operations().operations_size(), 1);
    const v1::Operation& operation = response.get_operations().operations(0);
    EXPECT_EQ(operation.framework_id().value(), reserved.frameworkId.value());
    EXPECT_EQ(operation.agent_id().value(), slaveId.value());
    EXPECT_EQ(operation.info().type(), v1::Offer::Operation::RESERVE);
    EXPECT_EQ(operation.info().id().value(), "reserve-eng");
    ASSERT_EQ(operation.info().reserve().resources_size(), 1);
    ASSERT_EQ(operation.info().reserve().resources(0).reservations_size(), 1);
    EXPECT_EQ(operation.info().reserve().resources(0).reservations(0).role(), "eng");
    EXPECT_EQ(operation.latest_status().state(), v1::OPERATION_FINISHED);
    EXPECT_EQ(operation.latest_status().uuid().value(), reserved.status.uuid().value());
    EXPECT_EQ(operation.latest_status().agent_id().value(), slaveId.value());
    ASSERT_EQ(operation.statuses_size(), 1);
    EXPECT_EQ(operation.statuses(0).state(), v1::OPERATION_FINISHED);
    EXPECT_FALSE(operation.uuid().value().empty());
  }

  v1::scheduler::Call ack;
  ack.set_type(v1::scheduler::Call::ACKNOWLEDGE_OPERATION_STATUS);
  *ack.mutable_framework_id() = reserved.frameworkId;
  ack.mutable_acknowledge_operation_status()->mutable_operation_id()->set_value("reserve-eng");
  ack.mutable_acknowledge_operation_status()->set_uuid(reserved.status.uuid().value());
  ASSERT_EQ(framework.call(ack), 202);
  runtime_->settle();
  EXPECT_EQ(make(callOf(Call::GET_OPERATIONS), kProtobuf, V1Response::GET_OPERATIONS)
                .get_operations()
                .operations_size(),
            0);
}

// With --acls, a principal sees an operation only if view_roles lets it
// see the role its resources are reserved for (Apache's filter).
TEST_F(OperatorApiTest, GetOperationsShowsWhatViewRolesAllows) {
  secure(R"({
      "view_roles": [{"principals": {"values": ["ops"]}, "roles": {"type": "ANY"}},
                     {"principals": {"values": ["alice"]}, "roles": {"values": ["dev"]}},
                     {"principals": {"type": "ANY"}, "roles": {"type": "NONE"}}]})");
  start();
  registerSlave(slave("slave"), "cpus:4;mem:1024");
  v1scheduler::Subscription eng(runtime_->address(), v1Subscribe("eng"), kJson);
  reserveOneCpu(eng, "eng");
  // The rest of the agent goes to dev's framework (eng's refuses it 5 s).
  v1scheduler::Subscription dev(runtime_->address(), v1Subscribe("dev"), kProtobuf);
  reserveOneCpu(dev, "dev");

  auto listed = [&](const std::string& principal, const std::string& encoding) {
    std::vector<std::string> ids;
    V1Response response =
        make(callOf(Call::GET_OPERATIONS), encoding, V1Response::GET_OPERATIONS, principal);
    for (const v1::Operation& operation : response.get_operations().operations()) {
      ids.push_back(operation.info().id().value());
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  EXPECT_EQ(listed("ops", kJson), (std::vector<std::string>{"reserve-dev", "reserve-eng"}));
  EXPECT_EQ(listed("ops", kProtobuf), (std::vector<std::string>{"reserve-dev", "reserve-eng"}));
  EXPECT_EQ(listed("alice", kJson), std::vector<std::string>{"reserve-dev"});
  EXPECT_EQ(post(encode(callOf(Call::GET_OPERATIONS), kJson), kJson, kJson).status, 401);
}

}  // namespace
}  // namespace mesos::test
