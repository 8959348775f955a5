// The master's HTTP endpoints against stand-in schedulers and slaves: the
// shapes and values of /version, /flags, /state, /slaves, /frameworks,
// /state-summary and /tasks (paging, order, bad parameters), at
// /master/<name> and at the bare /<name>.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "scheduler.pb.h"
#include "support/master_fixture.hpp"
#include "support/net.hpp"

namespace mesos::test {
namespace {

using namespace mesos::internal;
using master::Master;

double wallNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class MasterEndpointsTest : public MasterFixture {
 protected:
  // The latest offer the scheduler holds.
  static Offer lastOffer(Peer& scheduler) {
    auto offers = scheduler.received<ResourceOffersMessage>();
    CHECK(!offers.empty()) << "no offers";
    return offers.back().offers(0);
  }

  // The same document at /master/<name> and /<name>; returns it.
  json::Value getBoth(const std::string& name) {
    json::Value prefixed = get("/master/" + name);
    json::Value bare = get("/" + name);
    EXPECT_TRUE(prefixed.isObject()) << name;
    EXPECT_TRUE(bare.isObject()) << name;
    // Both answer the same shape (values like uptimes may move).
    if (prefixed.isObject() && bare.isObject()) {
      std::vector<std::string> a, b;
      for (const auto& [key, value] : prefixed.object()) a.push_back(key);
      for (const auto& [key, value] : bare.object()) b.push_back(key);
      EXPECT_EQ(a, b) << name;
    }
    return prefixed;
  }

  // GET `path`: the status, and the body in *body.
  int status(const std::string& path, std::string* body = nullptr) {
    return httpGet(runtime_->address(), path, body);
  }

  // A status update from `slave` for the task, stamped `timestamp`; without
  // a uuid a terminal one ends the task at once.
  void sendUpdate(Peer& slave, const FrameworkID& frameworkId, const SlaveID& slaveId,
                  const std::string& taskId, TaskState state, double timestamp,
                  bool acknowledged = true) {
    StatusUpdateMessage message = update(frameworkId, slaveId, taskId, state, slave);
    message.mutable_update()->mutable_status()->set_timestamp(timestamp);
    if (!acknowledged) {
      message.mutable_update()->clear_uuid();
      message.mutable_update()->mutable_status()->clear_uuid();
    }
    slave.post(master(), message);
    runtime_->settle();
  }

  static std::vector<std::string> taskIds(const json::Value& tasks) {
    std::vector<std::string> ids;
    for (const json::Value& task : tasks["tasks"].array()) ids.push_back(task["id"].string());
    return ids;
  }

  static const json::Value* findById(const json::Value& array, const std::string& id) {
    for (const json::Value& entry : array.array()) {
      if (entry["id"].string() == id) return &entry;
    }
    return nullptr;
  }
};

TEST_F(MasterEndpointsTest, VersionAndFlags) {
  flags_.cluster = "test-cluster";
  start();
  json::Value version = getBoth("version");
  EXPECT_EQ("1.0.0", version["version"].string());
  EXPECT_EQ(19u, version["build_date"].string().size()) << version["build_date"].string();
  EXPECT_GT(version["build_time"].number(), 1e9);
  EXPECT_TRUE(version["build_user"].isString());
  if (!version["git_sha"].isNull()) {
    EXPECT_EQ(40u, version["git_sha"].string().size());
  }

  json::Value flags = getBoth("flags");
  ASSERT_TRUE(flags["flags"].isObject());
  EXPECT_EQ("test-cluster", flags["flags"]["cluster"].string());
  EXPECT_EQ(std::to_string(flags_.port), flags["flags"]["port"].string());
  // Unset optional flags are left out, as Apache Mesos does.
  EXPECT_TRUE(flags["flags"]["weights"].isNull());
}

TEST_F(MasterEndpointsTest, RedirectPointsAtTheLeader) {
  flags_.hostname = "leader.example";
  start();
  for (const char* path : {"/master/redirect", "/redirect"}) {
    TcpClient client(runtime_->address());
    ASSERT_TRUE(client.write(std::string("GET ") + path + " HTTP/1.1\r\nHost: test\r\n\r\n"));
    int status = 0;
    std::string head;
    ASSERT_TRUE(client.readResponse(&status, nullptr, 10000, &head)) << path;
    EXPECT_EQ(307, status) << path;
    EXPECT_NE(std::string::npos,
              head.find("Location: //leader.example:" + std::to_string(runtime_->address().port)))
        << head;
  }
}

TEST_F(MasterEndpointsTest, StateTellsWhenTheMasterStartedAndWasElected) {
  double before = wallNow();
  start();
  double after = wallNow();
  json::Value state = getBoth("state");
  EXPECT_GE(state["start_time"].number(), before);
  EXPECT_LE(state["start_time"].number(), after);
  EXPECT_EQ(state["start_time"].number(), state["elected_time"].number());
  EXPECT_EQ("1.0.0", state["version"].string());
  EXPECT_FALSE(state["build_date"].string().empty());
  EXPECT_EQ(master().toString(), state["leader_info"]["pid"].string());
  EXPECT_TRUE(state["recovered_slaves"].array().empty());

  json::Value metrics = get("/metrics/snapshot");
  EXPECT_EQ(1, metrics["master/elected"].integer());
  EXPECT_GE(metrics["master/uptime_secs"].number(), 0);
}

// Every endpoint answers under /master/ as it does bare, /metrics/snapshot
// (another actor's) and the web UI's files included: the UI at /master/
// fetches them relative to that path.
TEST_F(MasterEndpointsTest, EveryEndpointAnswersUnderMasterToo) {
  start();
  for (const char* name : {"health", "version", "flags", "roles", "roles.json", "state",
                           "state.json", "state-summary", "slaves", "frameworks", "tasks",
                           "tasks.json", "metrics/snapshot", "", "index.html", "static/app.js",
                           "static/app.css"}) {
    std::string prefixed, bare;
    EXPECT_EQ(200, status("/master/" + std::string(name), &prefixed)) << name;
    EXPECT_EQ(200, status("/" + std::string(name), &bare)) << name;
    EXPECT_FALSE(bare.empty() && std::string(name) != "health") << name;
  }
  json::Value metrics = getBoth("metrics/snapshot");
  EXPECT_EQ(1, metrics["master/elected"].integer());
  EXPECT_TRUE(metrics["allocator/allocation_runs"].isNumber());
  EXPECT_EQ(404, status("/master/metrics/nothing"));
}

// A slave with --resources='cpus:2;cpus(prod):1;mem:1024': the sum, and the
// roles kept apart, in /state, /slaves and /state-summary.
TEST_F(MasterEndpointsTest, SlaveReservationsAreShownByRole) {
  start();
  Peer& a = slave("slave(1)");
  SlaveID slaveId = registerSlave(a, "cpus:2;cpus(prod):1;mem:1024;disk(prod):10");
  json::Value slaves = getBoth("slaves");
  ASSERT_EQ(1u, slaves["slaves"].array().size());
  EXPECT_TRUE(slaves["recovered_slaves"].isArray());
  EXPECT_TRUE(slaves["recovered_slaves"].array().empty());
  json::Value summary = getBoth("state-summary");
  json::Value state = get("/master/state");
  for (const json::Value* entry :
       {&slaves["slaves"].array()[0], &summary["slaves"].array()[0], &state["slaves"].array()[0]}) {
    const json::Value& s = *entry;
    EXPECT_EQ(slaveId.value(), s["id"].string());
    EXPECT_EQ("slave(1).example", s["hostname"].string());
    EXPECT_EQ(a.self().toString(), s["pid"].string());
    EXPECT_EQ(3, s["resources"]["cpus"].number());
    EXPECT_EQ(1024, s["resources"]["mem"].number());
    EXPECT_EQ(10, s["resources"]["disk"].number());
    ASSERT_TRUE(s["reserved_resources"].isObject());
    EXPECT_EQ(1u, s["reserved_resources"].object().size());
    EXPECT_EQ(1, s["reserved_resources"]["prod"]["cpus"].number());
    EXPECT_EQ(10, s["reserved_resources"]["prod"]["disk"].number());
    EXPECT_EQ(0, s["reserved_resources"]["prod"]["mem"].number());
    EXPECT_EQ(2, s["unreserved_resources"]["cpus"].number());
    EXPECT_EQ(1024, s["unreserved_resources"]["mem"].number());
    EXPECT_EQ(0, s["unreserved_resources"]["disk"].number());
    EXPECT_TRUE(s["active"].boolean());
    EXPECT_EQ("1.0.0", s["version"].string());
    EXPECT_TRUE(s["attributes"].isObject());
  }
  EXPECT_EQ(3, state["total_resources"]["cpus"].number());
}

TEST_F(MasterEndpointsTest, FrameworksListsRegisteredAndCompletedOnes) {
  start();
  Peer& s1 = scheduler("scheduler(1)");
  Peer& s2 = scheduler("scheduler(2)");
  Peer& a = slave("slave(1)");
  FrameworkInfo info = frameworkInfo("one");
  info.set_webui_url("http://one.example");
  info.add_capabilities()->set_type(FrameworkInfo::Capability::REVOCABLE_RESOURCES);
  FrameworkID one = registerFramework(s1, info);
  SlaveID slaveId = registerSlave(a, "cpus:4;mem:4096");
  launch(s1, one, {lastOffer(s1).id()}, {commandTask("t1", slaveId)});
  FrameworkID two = registerFramework(s2, frameworkInfo("two"));
  UnregisterFrameworkMessage unregister;
  unregister.mutable_framework_id()->CopyFrom(two);
  s2.post(master(), unregister);
  runtime_->settle();

  json::Value frameworks = getBoth("frameworks");
  ASSERT_EQ(1u, frameworks["frameworks"].array().size());
  const json::Value& f = frameworks["frameworks"].array()[0];
  EXPECT_EQ(one.value(), f["id"].string());
  EXPECT_EQ("one", f["name"].string());
  EXPECT_EQ(s1.self().toString(), f["pid"].string());
  EXPECT_EQ("http://one.example", f["webui_url"].string());
  ASSERT_EQ(1u, f["capabilities"].array().size());
  EXPECT_EQ("REVOCABLE_RESOURCES", f["capabilities"].array()[0].string());
  EXPECT_TRUE(f["active"].boolean());
  EXPECT_EQ(1, f["used_resources"]["cpus"].number());
  ASSERT_EQ(1u, f["tasks"].array().size());
  EXPECT_EQ("t1", f["tasks"].array()[0]["id"].string());
  ASSERT_EQ(1u, frameworks["completed_frameworks"].array().size());
  EXPECT_EQ(two.value(), frameworks["completed_frameworks"].array()[0]["id"].string());
  EXPECT_FALSE(frameworks["completed_frameworks"].array()[0]["active"].boolean());
  EXPECT_GT(frameworks["completed_frameworks"].array()[0]["unregistered_time"].number(), 0);
  EXPECT_TRUE(frameworks["unregistered_frameworks"].isArray());
  EXPECT_TRUE(frameworks["unregistered_frameworks"].array().empty());
}

// Counts by task state for each slave and each framework, the ids that tie
// them together, and no task lists.
TEST_F(MasterEndpointsTest, StateSummaryCountsTasksBySlaveAndFramework) {
  flags_.cluster = "summary";
  start();
  Peer& s1 = scheduler("scheduler(1)");
  Peer& s2 = scheduler("scheduler(2)");
  Peer& a = slave("slave(1)");
  Peer& b = slave("slave(2)");
  FrameworkID one = registerFramework(s1, frameworkInfo("one"));
  SlaveID slaveA = registerSlave(a, "cpus:4;mem:4096");
  launch(s1, one, {lastOffer(s1).id()},
         {commandTask("a1", slaveA), commandTask("a2", slaveA), commandTask("a3", slaveA)});
  SlaveID slaveB = registerSlave(b, "cpus:4;mem:4096");
  launch(s1, one, {lastOffer(s1).id()}, {commandTask("b1", slaveB)});
  FrameworkID two = registerFramework(s2, frameworkInfo("two"));
  sendUpdate(a, one, slaveA, "a1", TASK_RUNNING, 10);
  sendUpdate(a, one, slaveA, "a2", TASK_FINISHED, 11, /*acknowledged=*/false);  // completed
  sendUpdate(b, one, slaveB, "b1", TASK_FAILED, 12, /*acknowledged=*/false);    // completed

  json::Value summary = getBoth("state-summary");
  EXPECT_EQ("summary", summary["cluster"].string());
  EXPECT_FALSE(summary["hostname"].string().empty());
  ASSERT_EQ(2u, summary["slaves"].array().size());
  const json::Value* sa = findById(summary["slaves"], slaveA.value());
  const json::Value* sb = findById(summary["slaves"], slaveB.value());
  ASSERT_NE(nullptr, sa);
  ASSERT_NE(nullptr, sb);
  EXPECT_EQ(1, (*sa)["TASK_STAGING"].integer());
  EXPECT_EQ(1, (*sa)["TASK_RUNNING"].integer());
  EXPECT_EQ(1, (*sa)["TASK_FINISHED"].integer());
  EXPECT_EQ(0, (*sa)["TASK_FAILED"].integer());
  EXPECT_EQ(0, (*sa)["TASK_LOST"].integer());
  EXPECT_EQ(1, (*sb)["TASK_FAILED"].integer());
  EXPECT_EQ(0, (*sb)["TASK_STAGING"].integer());
  EXPECT_EQ(json::Value(json::Array{one.value()}), (*sa)["framework_ids"]);
  EXPECT_EQ(json::Value(json::Array{one.value()}), (*sb)["framework_ids"]);
  EXPECT_EQ(2, (*sa)["used_resources"]["cpus"].number());  // a1 and a3, 1 cpu each
  EXPECT_TRUE((*sa)["tasks"].isNull());

  ASSERT_EQ(2u, summary["frameworks"].array().size());
  const json::Value* f1 = findById(summary["frameworks"], one.value());
  const json::Value* f2 = findById(summary["frameworks"], two.value());
  ASSERT_NE(nullptr, f1);
  ASSERT_NE(nullptr, f2);
  EXPECT_EQ("one", (*f1)["name"].string());
  EXPECT_EQ(1, (*f1)["TASK_STAGING"].integer());
  EXPECT_EQ(1, (*f1)["TASK_RUNNING"].integer());
  EXPECT_EQ(1, (*f1)["TASK_FINISHED"].integer());
  EXPECT_EQ(1, (*f1)["TASK_FAILED"].integer());
  std::vector<std::string> slaveIds = {slaveA.value(), slaveB.value()};
  std::sort(slaveIds.begin(), slaveIds.end());
  EXPECT_EQ(json::Value(json::Array(slaveIds.begin(), slaveIds.end())), (*f1)["slave_ids"]);
  EXPECT_TRUE((*f2)["slave_ids"].array().empty());
  EXPECT_EQ(0, (*f2)["TASK_RUNNING"].integer());
  EXPECT_TRUE((*f1)["tasks"].isNull());
  EXPECT_TRUE((*f1)["capabilities"].isArray());
  EXPECT_TRUE((*f1)["active"].boolean());
}

// Five tasks of one framework: t0 started first and completed, t2, t1, t3
// run (started in that order), t4 is staging (the newest).
class MasterTasksEndpointTest : public MasterEndpointsTest {
 protected:
  void SetUp() override {
    start();
    Peer& s = scheduler("scheduler(1)");
    slave_ = &slave("slave(1)");
    framework_ = registerFramework(s);
    slaveId_ = registerSlave(*slave_, "cpus:8;mem:8192");
    std::vector<TaskInfo> tasks;
    for (int i = 0; i < 5; ++i) tasks.push_back(commandTask("t" + std::to_string(i), slaveId_));
    launch(s, framework_, {lastOffer(s).id()}, tasks);
    sendUpdate(*slave_, framework_, slaveId_, "t0", TASK_RUNNING, 100);
    sendUpdate(*slave_, framework_, slaveId_, "t1", TASK_RUNNING, 300);
    sendUpdate(*slave_, framework_, slaveId_, "t2", TASK_RUNNING, 200);
    sendUpdate(*slave_, framework_, slaveId_, "t3", TASK_RUNNING, 400);
    sendUpdate(*slave_, framework_, slaveId_, "t0", TASK_FINISHED, 500, /*acknowledged=*/false);
  }

  std::vector<std::string> ids(const std::string& query) {
    return taskIds(get("/master/tasks" + query));
  }

  Peer* slave_ = nullptr;
  FrameworkID framework_;
  SlaveID slaveId_;
};

using Ids = std::vector<std::string>;

TEST_F(MasterTasksEndpointTest, NewestFirstByDefault) {
  json::Value tasks = getBoth("tasks");
  EXPECT_EQ((Ids{"t4", "t3", "t1", "t2", "t0"}), taskIds(tasks));
  const json::Value& t0 = tasks["tasks"].array()[4];
  EXPECT_EQ("TASK_FINISHED", t0["state"].string());
  EXPECT_EQ(framework_.value(), t0["framework_id"].string());
  EXPECT_EQ(slaveId_.value(), t0["slave_id"].string());
  EXPECT_EQ(1, t0["resources"]["cpus"].number());
  EXPECT_EQ(2u, t0["statuses"].array().size());
  EXPECT_EQ(taskIds(tasks), taskIds(get("/tasks.json")));
}

TEST_F(MasterTasksEndpointTest, PagesWithLimitOffsetAndOrder) {
  EXPECT_EQ((Ids{"t4", "t3"}), ids("?limit=2"));
  EXPECT_EQ((Ids{"t1", "t2"}), ids("?limit=2&offset=2"));
  EXPECT_EQ((Ids{"t0"}), ids("?limit=2&offset=4"));
  EXPECT_EQ((Ids{}), ids("?offset=5"));
  EXPECT_EQ((Ids{}), ids("?limit=0"));
  EXPECT_EQ((Ids{"t0", "t2", "t1", "t3", "t4"}), ids("?order=asc"));
  EXPECT_EQ((Ids{"t2", "t1"}), ids("?order=asc&offset=1&limit=2"));
  EXPECT_EQ((Ids{"t4", "t3", "t1", "t2", "t0"}), ids("?order=desc&limit=100"));
  EXPECT_EQ((Ids{"t2"}), ids("?task_id=t2"));
  EXPECT_EQ((Ids{"t0"}), ids("?task_id=t0&framework_id=" + framework_.value()));
  EXPECT_EQ((Ids{}), ids("?framework_id=no-such-framework"));
}

TEST_F(MasterTasksEndpointTest, StepsOfOneGiveTheSamePages) {
  process::dispatch(master_.pid(), &Master::setStateChunk, size_t{1});
  runtime_->settle();
  EXPECT_EQ((Ids{"t4", "t3", "t1", "t2", "t0"}), ids(""));
  EXPECT_EQ((Ids{"t1", "t2"}), ids("?limit=2&offset=2"));
}

TEST_F(MasterTasksEndpointTest, BadParametersAreRefusedWithTheReason) {
  for (const char* query : {"?limit=-1", "?limit=abc", "?limit=", "?offset=1.5", "?offset=-2",
                            "?order=up", "?order=ASC"}) {
    std::string body;
    EXPECT_EQ(400, status(std::string("/master/tasks") + query, &body)) << query;
    std::string name = std::string(query).substr(1, std::string(query).find('=') - 1);
    EXPECT_NE(std::string::npos, body.find("'" + name + "'")) << query << ": " << body;
  }
}

TEST_F(MasterTasksEndpointTest, TasksOfCompletedFrameworksAreListed) {
  // A second framework gets a new slave's resources (its share is the
  // lowest), launches one task there, then leaves: the task is killed.
  Peer& s2 = scheduler("scheduler(2)");
  FrameworkID two = registerFramework(s2, frameworkInfo("two"));
  SlaveID slaveB = registerSlave(slave("slave(2)"), "cpus:2;mem:2048");
  auto offers = s2.received<ResourceOffersMessage>();
  ASSERT_FALSE(offers.empty());
  ASSERT_EQ(slaveB.value(), offers.back().offers(0).slave_id().value());
  launch(s2, two, {offers.back().offers(0).id()}, {commandTask("x", slaveB)});
  UnregisterFrameworkMessage unregister;
  unregister.mutable_framework_id()->CopyFrom(two);
  s2.post(master(), unregister);
  runtime_->settle();

  json::Value tasks = get("/master/tasks?framework_id=" + two.value());
  ASSERT_EQ((Ids{"x"}), taskIds(tasks));
  EXPECT_EQ("TASK_KILLED", tasks["tasks"].array()[0]["state"].string());
  EXPECT_EQ(6u, taskIds(get("/master/tasks")).size());
}

TEST_F(MasterEndpointsTest, TasksShowsAHundredUnlessAskedForMore) {
  start();
  Peer& s = scheduler("scheduler(1)");
  Peer& a = slave("slave(1)");
  FrameworkID frameworkId = registerFramework(s);
  SlaveID slaveId = registerSlave(a, "cpus:120;mem:1200");
  std::vector<TaskInfo> tasks;
  for (int i = 0; i < 105; ++i) {
    tasks.push_back(commandTask("t" + std::to_string(i), slaveId, "cpus:1;mem:10"));
  }
  launch(s, frameworkId, {lastOffer(s).id()}, tasks);
  EXPECT_EQ(100u, taskIds(get("/master/tasks")).size());
  Ids all = taskIds(get("/master/tasks?limit=1000"));
  ASSERT_EQ(105u, all.size());
  // Staging tasks come newest first: launch order, reversed.
  EXPECT_EQ("t104", all.front());
  EXPECT_EQ("t0", all.back());
}

// With one entry per step the documents come out whole.
TEST_F(MasterEndpointsTest, DocumentsRenderedInStepsOfOneAreComplete) {
  start();
  process::dispatch(master_.pid(), &Master::setStateChunk, size_t{1});
  Peer& s1 = scheduler("scheduler(1)");
  Peer& s2 = scheduler("scheduler(2)");
  FrameworkID one = registerFramework(s1, frameworkInfo("one"));
  registerFramework(s2, frameworkInfo("two"));
  std::vector<SlaveID> slaveIds;
  for (int i = 1; i <= 3; ++i) {
    slaveIds.push_back(registerSlave(slave("slave(" + std::to_string(i) + ")"), "cpus:2;mem:100"));
  }
  launch(s1, one, {lastOffer(s1).id()},
         {commandTask("t1", lastOffer(s1).slave_id(), "cpus:1;mem:50")});
  EXPECT_EQ(3u, get("/master/slaves")["slaves"].array().size());
  EXPECT_EQ(2u, get("/master/frameworks")["frameworks"].array().size());
  json::Value summary = get("/master/state-summary");
  EXPECT_EQ(3u, summary["slaves"].array().size());
  ASSERT_EQ(2u, summary["frameworks"].array().size());
  const json::Value* f1 = findById(summary["frameworks"], one.value());
  ASSERT_NE(nullptr, f1);
  EXPECT_EQ(1, (*f1)["TASK_STAGING"].integer());
  json::Value state = get("/master/state");
  EXPECT_EQ(3u, state["slaves"].array().size());
  EXPECT_EQ(2u, state["frameworks"].array().size());
  EXPECT_EQ(6, state["total_resources"]["cpus"].number());
}

// POST /api/v1/scheduler refuses what is not a Call with a reason (the v1
// API proper: scheduler_api_test.cpp).
TEST_F(MasterEndpointsTest, SchedulerApiRefusesWhatIsNotACall) {
  start();
  auto post = [&](const std::string& contentType, const std::string& body,
                  std::string* answer) {
    TcpClient client(runtime_->address());
    client.write("POST /api/v1/scheduler HTTP/1.1\r\nHost: test\r\nContent-Type: " +
                 contentType + "\r\nContent-Length: " + std::to_string(body.size()) +
                 "\r\n\r\n" + body);
    int status = 0;
    client.readResponse(&status, answer);
    return status;
  };
  std::string answer;
  EXPECT_EQ(400, post("application/x-protobuf", "\xff\xff not a Call", &answer)) << answer;
  scheduler::Call call;
  call.mutable_framework_id()->set_value("nobody");
  call.set_type(scheduler::Call::SUPPRESS);
  EXPECT_EQ(403, post("application/x-protobuf", call.SerializeAsString(), &answer)) << answer;
  EXPECT_NE(std::string::npos, answer.find("'nobody' is not subscribed")) << answer;
  EXPECT_EQ(400, post("application/json", "{}", &answer)) << answer;
  scheduler::Call subscribe;
  subscribe.set_type(scheduler::Call::SUBSCRIBE);
  EXPECT_EQ(400, post("application/x-protobuf", subscribe.SerializeAsString(), &answer));
  EXPECT_NE(std::string::npos, answer.find("'subscribe'")) << answer;
  EXPECT_EQ(405, status("/api/v1/scheduler"));
}

}  // namespace
}  // namespace mesos::test
