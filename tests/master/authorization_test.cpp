// HTTP authentication and the ACLs at a real master (in this process, over
// real TCP), with stand-in schedulers and slaves: 401 with Apache's realms,
// registration and launches refused naming the ACL, the root rule, what
// /state, /frameworks and /tasks show each principal, /flags and
// get_endpoints, POST /master/teardown, and the v1 scheduler API's
// principal binding.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/protobuf_json.hpp"
#include "common/v1.hpp"
#include "support/master_fixture.hpp"
#include "support/raw_peer.hpp"
#include "v1/scheduler.pb.h"

namespace mesos::test {
namespace {

using V1Call = v1::scheduler::Call;

constexpr const char* kCredentials =
    R"({"credentials": [{"principal": "ops", "secret": "ops-secret"},
                        {"principal": "alice", "secret": "alice-secret"},
                        {"principal": "bob", "secret": "bob-secret"}]})";

std::string basic(const std::string& principal) {
  // base64 of "<principal>:<principal>-secret", for the three above.
  if (principal == "ops") return "Authorization: Basic b3BzOm9wcy1zZWNyZXQ=\r\n";
  if (principal == "alice") return "Authorization: Basic YWxpY2U6YWxpY2Utc2VjcmV0\r\n";
  if (principal == "bob") return "Authorization: Basic Ym9iOmJvYi1zZWNyZXQ=\r\n";
  if (principal == "wrong") return "Authorization: Basic b3BzOm5vcGU=\r\n";  // ops:nope
  return "";
}

class AuthorizationTest : public MasterFixture {
 protected:
  // `method` `path` with `principal`'s credentials ("" for none).
  HttpResponse http(const std::string& method, const std::string& path,
                    const std::string& principal = "", const std::string& body = "",
                    const std::string& contentType = "application/x-www-form-urlencoded") {
    RawPeer peer(runtime_->address());
    EXPECT_TRUE(peer.write(method + " " + path + " HTTP/1.1\r\nHost: test\r\n" + basic(principal) +
                           (body.empty() ? "" : "Content-Type: " + contentType + "\r\n") +
                           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
    auto response = peer.readResponse();
    EXPECT_TRUE(response.has_value()) << method << " " << path;
    return response ? *response : HttpResponse{};
  }

  json::Value document(const std::string& path, const std::string& principal) {
    HttpResponse response = http("GET", path, principal);
    EXPECT_EQ(response.status, 200) << path << ": " << response.body;
    auto parsed = json::parse(response.body);
    EXPECT_TRUE(parsed.ok()) << response.body;
    return parsed.ok() ? *parsed : json::Value();
  }

  static FrameworkInfo info(const std::string& name, const std::string& user,
                            const std::string& principal, const std::string& role = "*") {
    FrameworkInfo framework = frameworkInfo(name, role);
    framework.set_user(user);
    if (!principal.empty()) framework.set_principal(principal);
    return framework;
  }

  // The scheduler's latest status update.
  static TaskStatus lastStatus(Peer& scheduler) {
    auto updates = scheduler.received<StatusUpdateMessage>();
    CHECK(!updates.empty()) << "no status update";
    return updates.back().update().status();
  }

  // Launches `tasks` on the scheduler's latest offer (on its slave).
  void launchOn(Peer& scheduler, const FrameworkID& id, std::vector<TaskInfo> tasks) {
    auto offers = scheduler.received<ResourceOffersMessage>();
    ASSERT_FALSE(offers.empty());
    const Offer& offer = offers.back().offers(0);
    for (TaskInfo& task : tasks) *task.mutable_slave_id() = offer.slave_id();
    launch(scheduler, id, {offer.id()}, tasks);
  }
};

TEST_F(AuthorizationTest, EndpointsAnswer401InTheirRealm) {
  flags_.security.authenticate_http_readonly = true;
  flags_.security.authenticate_http_readwrite = true;
  flags_.security.http_credentials = kCredentials;
  start();
  for (const char* path : {"/master/state", "/state.json", "/master/tasks", "/master/frameworks",
                           "/master/state-summary", "/master/slaves", "/master/flags",
                           "/master/roles", "/master/metrics/snapshot", "/metrics/snapshot"}) {
    HttpResponse missing = http("GET", path);
    EXPECT_EQ(missing.status, 401) << path;
    EXPECT_EQ(missing.headers["www-authenticate"], "Basic realm=\"mesos-master-readonly\"") << path;
    EXPECT_EQ(http("GET", path, "wrong").status, 401) << path;
    EXPECT_EQ(http("GET", path, "ops").status, 200) << path;
  }
  HttpResponse teardown = http("POST", "/master/teardown", "", "frameworkId=x");
  EXPECT_EQ(teardown.status, 401);
  EXPECT_EQ(teardown.headers["www-authenticate"], "Basic realm=\"mesos-master-readwrite\"");
  EXPECT_EQ(http("POST", "/master/teardown", "ops", "frameworkId=x").status, 400);
  // Never authenticated: /health, /version, /redirect and the web UI.
  EXPECT_EQ(http("GET", "/master/health").status, 200);
  EXPECT_EQ(http("GET", "/version").status, 200);
  EXPECT_EQ(http("GET", "/master/redirect").status, 307);
  EXPECT_EQ(http("GET", "/").status, 200);
}

TEST_F(AuthorizationTest, RegistrationNeedsRegisterFrameworks) {
  flags_.security.acls = R"({"permissive": false, "register_frameworks": [
      {"principals": {"values": ["alice"]}, "roles": {"values": ["analytics"]}}]})";
  flags_.roles = "analytics,web";
  start();
  Peer& allowed = scheduler("allowed");
  registerFramework(allowed, info("a", "alice", "alice", "analytics"));

  for (const auto& [principal, role] :
       std::vector<std::pair<std::string, std::string>>{{"alice", "web"}, {"bob", "analytics"},
                                                        {"", "analytics"}}) {
    Peer& refused = scheduler("refused-" + principal + role);
    RegisterFrameworkMessage message;
    *message.mutable_framework() = info("r", "alice", principal, role);
    refused.post(master(), message);
    runtime_->settle();
    EXPECT_TRUE(refused.received<FrameworkRegisteredMessage>().empty());
    auto errors = refused.received<FrameworkErrorMessage>();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].message(),
              "Not authorized to register with role '" + role + "' as " +
                  (principal.empty() ? std::string("no principal")
                                     : "principal '" + principal + "'") +
                  " (ACL register_frameworks)");
  }
  // Re-registration is checked too.
  Peer& again = scheduler("again");
  ReregisterFrameworkMessage message;
  *message.mutable_framework() = info("x", "alice", "bob", "analytics");
  message.mutable_framework()->mutable_id()->set_value("some-id");
  again.post(master(), message);
  runtime_->settle();
  ASSERT_EQ(again.received<FrameworkErrorMessage>().size(), 1u);
  EXPECT_TRUE(again.received<FrameworkReregisteredMessage>().empty());
}

TEST_F(AuthorizationTest, EveryLaunchNeedsRunTasks) {
  flags_.security.acls = R"({"run_tasks": [
      {"principals": {"values": ["alice"]}, "users": {"values": ["alice"]}},
      {"principals": {"values": ["alice"]}, "users": {"type": "NONE"}}]})";
  start();
  Peer& slave = this->slave("slave");
  SlaveID slaveId = registerSlave(slave);
  Peer& scheduler = this->scheduler("scheduler");
  FrameworkID id = registerFramework(scheduler, info("f", "alice", "alice"));

  advance(flags_.allocation_interval);
  // The task's own user is the one checked.
  TaskInfo other = commandTask("as-bob", slaveId);
  other.mutable_command()->set_user("bob");
  launchOn(scheduler, id, {commandTask("ok", slaveId), other});
  ASSERT_EQ(slave.received<RunTaskMessage>().size(), 1u);
  EXPECT_EQ(slave.received<RunTaskMessage>()[0].task().task_id().value(), "ok");
  TaskStatus refused = lastStatus(scheduler);
  EXPECT_EQ(refused.task_id().value(), "as-bob");
  EXPECT_EQ(refused.state(), TASK_ERROR);
  EXPECT_EQ(refused.reason(), TaskStatus::REASON_TASK_UNAUTHORIZED);
  EXPECT_EQ(refused.message(),
            "Not authorized to run task 'as-bob' as user 'bob' with principal 'alice' (ACL "
            "run_tasks)");
}

TEST_F(AuthorizationTest, RootOnlyWhenARuleNamesIt) {
  flags_.security.acls = R"({"run_tasks": [
      {"principals": {"values": ["admin"]}, "users": {"values": ["root"]}},
      {"principals": {"type": "ANY"}, "users": {"type": "ANY"}}]})";
  start();
  Peer& slave = this->slave("slave");
  SlaveID slaveId = registerSlave(slave);
  Peer& other = this->slave("other");
  registerSlave(other);
  Peer& anyone = scheduler("anyone");
  FrameworkID anyoneId = registerFramework(anyone, info("anyone", "root", "bob"));
  Peer& admin = scheduler("admin");
  FrameworkID adminId = registerFramework(admin, info("admin", "root", "admin"));
  advance(flags_.allocation_interval);

  // Allowed by the ANY rule, but root needs a rule that names it.
  launchOn(anyone, anyoneId, {commandTask("root-task", slaveId)});
  TaskStatus refused = lastStatus(anyone);
  EXPECT_EQ(refused.state(), TASK_ERROR);
  EXPECT_EQ(refused.reason(), TaskStatus::REASON_TASK_UNAUTHORIZED);
  EXPECT_NE(refused.message().find("as user 'root' with principal 'bob'"), std::string::npos)
      << refused.message();
  EXPECT_NE(refused.message().find("root rule"), std::string::npos) << refused.message();
  EXPECT_TRUE(slave.received<RunTaskMessage>().empty());
  EXPECT_TRUE(other.received<RunTaskMessage>().empty());

  launchOn(admin, adminId, {commandTask("admin-task", slaveId)});
  auto launched = slave.received<RunTaskMessage>();
  for (const auto& run : other.received<RunTaskMessage>()) launched.push_back(run);
  ASSERT_EQ(launched.size(), 1u);
  EXPECT_EQ(launched[0].task().task_id().value(), "admin-task");
}

TEST_F(AuthorizationTest, WithoutAclsNeitherRootNorNoUserRuns) {
  start();
  Peer& slave = this->slave("slave");
  SlaveID slaveId = registerSlave(slave);
  Peer& scheduler = this->scheduler("scheduler");
  FrameworkID id = registerFramework(scheduler, info("f", "root", ""));
  advance(flags_.allocation_interval);
  TaskInfo nobody = commandTask("as-nobody", slaveId, "cpus:0.5;mem:128");
  nobody.mutable_command()->set_user("nobody");
  TaskInfo unnamed = commandTask("no-user", slaveId, "cpus:0.5;mem:128");
  unnamed.mutable_command()->set_user("");
  launchOn(scheduler, id, {commandTask("as-root", slaveId, "cpus:0.5;mem:128"), nobody, unnamed});
  auto runs = slave.received<RunTaskMessage>();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].task().task_id().value(), "as-nobody");
  std::map<std::string, TaskStatus> refused;
  for (const auto& update : scheduler.received<StatusUpdateMessage>()) {
    refused[update.update().status().task_id().value()] = update.update().status();
  }
  ASSERT_EQ(refused.count("as-root"), 1u);
  EXPECT_EQ(refused["as-root"].state(), TASK_ERROR);
  EXPECT_EQ(refused["as-root"].reason(), TaskStatus::REASON_TASK_UNAUTHORIZED);
  EXPECT_NE(refused["as-root"].message().find("as user 'root'"), std::string::npos)
      << refused["as-root"].message();
  EXPECT_NE(refused["as-root"].message().find("root rule"), std::string::npos);
  ASSERT_EQ(refused.count("no-user"), 1u);
  EXPECT_EQ(refused["no-user"].state(), TASK_ERROR);
  EXPECT_NE(refused["no-user"].message().find("the slave's user"), std::string::npos)
      << refused["no-user"].message();
}

TEST_F(AuthorizationTest, StateShowsWhatThePrincipalMayView) {
  flags_.security.authenticate_http_readonly = true;
  flags_.security.http_credentials = kCredentials;
  flags_.security.acls = R"({
      "view_frameworks": [{"principals": {"values": ["ops"]}, "users": {"type": "ANY"}},
                          {"principals": {"values": ["alice"]}, "users": {"values": ["alice"]}},
                          {"principals": {"type": "ANY"}, "users": {"type": "NONE"}}],
      "view_tasks": [{"principals": {"values": ["ops"]}, "users": {"type": "ANY"}},
                     {"principals": {"values": ["alice"]}, "users": {"values": ["alice"]}},
                     {"principals": {"type": "ANY"}, "users": {"type": "NONE"}}],
      "view_flags": [{"principals": {"values": ["ops"]}, "flags": {"type": "ANY"}},
                     {"principals": {"type": "ANY"}, "flags": {"type": "NONE"}}]})";
  start();
  Peer& slave = this->slave("slave");
  SlaveID slaveId = registerSlave(slave);
  Peer& second = this->slave("second");
  registerSlave(second);
  Peer& alice = scheduler("alice");
  FrameworkID aliceId = registerFramework(alice, info("alice-fw", "alice", "alice"));
  Peer& bob = scheduler("bob");
  FrameworkID bobId = registerFramework(bob, info("bob-fw", "bob", "bob"));
  advance(flags_.allocation_interval);
  launchOn(alice, aliceId, {commandTask("alice-task", slaveId)});
  launchOn(bob, bobId, {commandTask("bob-task", slaveId)});
  ASSERT_EQ(slave.received<RunTaskMessage>().size() + second.received<RunTaskMessage>().size(), 2u);

  auto names = [](const json::Value& list) {
    std::vector<std::string> out;
    for (const json::Value& item : list.array()) {
      out.push_back(item["name"].isString() ? item["name"].string() : item["id"].string());
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  json::Value all = document("/master/state", "ops");
  EXPECT_EQ(names(all["frameworks"]), (std::vector<std::string>{"alice-fw", "bob-fw"}));
  EXPECT_TRUE(all["flags"].isObject());

  for (const char* path : {"/master/state", "/state.json"}) {
    json::Value seen = document(path, "alice");
    EXPECT_EQ(names(seen["frameworks"]), std::vector<std::string>{"alice-fw"}) << path;
    EXPECT_EQ(names(seen["frameworks"].array()[0]["tasks"]),
              std::vector<std::string>{"task alice-task"});
    EXPECT_TRUE(seen["flags"].isNull()) << path;
    EXPECT_TRUE(document(path, "bob")["frameworks"].array().empty()) << path;
  }
  EXPECT_EQ(names(document("/master/frameworks", "alice")["frameworks"]),
            std::vector<std::string>{"alice-fw"});
  EXPECT_EQ(names(document("/master/tasks", "alice")["tasks"]),
            std::vector<std::string>{"task alice-task"});
  EXPECT_EQ(names(document("/master/tasks", "ops")["tasks"]),
            (std::vector<std::string>{"task alice-task", "task bob-task"}));
  EXPECT_TRUE(document("/master/tasks", "bob")["tasks"].array().empty());
  EXPECT_EQ(names(document("/master/state-summary", "alice")["frameworks"]),
            std::vector<std::string>{"alice-fw"});

  HttpResponse flags = http("GET", "/master/flags", "alice");
  EXPECT_EQ(flags.status, 403);
  EXPECT_EQ(flags.body, "Not authorized to view the flags (ACL view_flags)\n");
  EXPECT_EQ(http("GET", "/master/flags", "ops").status, 200);
}

TEST_F(AuthorizationTest, StateShowsOnlyTheExecutorsThePrincipalMayView) {
  flags_.security.authenticate_http_readonly = true;
  flags_.security.http_credentials = kCredentials;
  flags_.security.acls = R"({
      "view_executors": [{"principals": {"values": ["ops"]}, "users": {"type": "ANY"}},
                         {"principals": {"values": ["alice"]}, "users": {"values": ["alice"]}},
                         {"principals": {"type": "ANY"}, "users": {"type": "NONE"}}]})";
  start();
  Peer& slave = this->slave("slave");
  SlaveID slaveId = registerSlave(slave);
  Peer& alice = scheduler("alice");
  FrameworkID aliceId = registerFramework(alice, info("alice-fw", "alice", "alice"));
  advance(flags_.allocation_interval);
  // One executor runs as the framework's user, one as a user of its own.
  auto withExecutor = [&](const std::string& id, const std::string& user) {
    TaskInfo task = commandTask(id, slaveId, "cpus:0.5;mem:128");
    task.clear_command();
    ExecutorInfo* executor = task.mutable_executor();
    executor->mutable_executor_id()->set_value("executor-" + id);
    executor->mutable_command()->set_value("./run");
    if (!user.empty()) executor->mutable_command()->set_user(user);
    return task;
  };
  launchOn(alice, aliceId, {withExecutor("own", ""), withExecutor("other", "mallory")});
  ASSERT_EQ(slave.received<RunTaskMessage>().size(), 2u);

  auto executors = [&](const std::string& principal) {
    std::vector<std::string> ids;
    json::Value state = document("/master/state", principal);
    for (const json::Value& executor : state["frameworks"].array().at(0)["executors"].array()) {
      ids.push_back(executor["executor_id"].string());
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  EXPECT_EQ(executors("ops"), (std::vector<std::string>{"executor-other", "executor-own"}));
  EXPECT_EQ(executors("alice"), std::vector<std::string>{"executor-own"});
  EXPECT_TRUE(executors("bob").empty());
}

TEST_F(AuthorizationTest, GetEndpointsGuardsMetrics) {
  flags_.security.authenticate_http_readonly = true;
  flags_.security.http_credentials = kCredentials;
  flags_.security.acls = R"({"get_endpoints": [
      {"principals": {"values": ["ops"]}, "paths": {"values": ["/metrics/snapshot"]}},
      {"principals": {"type": "ANY"}, "paths": {"type": "NONE"}}]})";
  start();
  for (const char* path : {"/metrics/snapshot", "/master/metrics/snapshot"}) {
    EXPECT_EQ(http("GET", path, "ops").status, 200) << path;
    HttpResponse refused = http("GET", path, "alice");
    EXPECT_EQ(refused.status, 403) << path;
    EXPECT_EQ(refused.body, "Not authorized to GET /metrics/snapshot (ACL get_endpoints)\n");
  }
  // Not an endpoint those rules name.
  EXPECT_EQ(http("GET", "/master/state", "alice").status, 200);
}

TEST_F(AuthorizationTest, TeardownEndpoint) {
  flags_.security.authenticate_http_readwrite = true;
  flags_.security.http_credentials = kCredentials;
  flags_.security.acls = R"({"teardown_frameworks": [
      {"principals": {"values": ["ops"]}, "framework_principals": {"type": "ANY"}},
      {"principals": {"values": ["alice"]}, "framework_principals": {"values": ["alice"]}},
      {"principals": {"type": "ANY"}, "framework_principals": {"type": "NONE"}}]})";
  start();
  Peer& alice = scheduler("alice");
  FrameworkID aliceId = registerFramework(alice, info("alice-fw", "alice", "alice"));
  Peer& bob = scheduler("bob");
  FrameworkID bobId = registerFramework(bob, info("bob-fw", "bob", "bob"));

  EXPECT_EQ(http("GET", "/master/teardown", "ops").status, 405);
  HttpResponse missing = http("POST", "/master/teardown", "ops", "other=1");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.body, "Missing 'frameworkId' query parameter in the request body\n");
  HttpResponse unknown = http("POST", "/master/teardown", "ops", "frameworkId=nope");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.body, "No framework found with specified ID\n");

  HttpResponse refused = http("POST", "/master/teardown", "alice", "frameworkId=" + bobId.value());
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body, "Not authorized to tear down framework " + bobId.value() +
                              " as principal 'alice' (ACL teardown_frameworks)\n");
  EXPECT_EQ(http("POST", "/master/teardown", "alice", "frameworkId=" + aliceId.value()).status,
            200);
  EXPECT_EQ(http("POST", "/teardown", "ops", "frameworkId=" + bobId.value()).status, 200);
  runtime_->settle();
  json::Value state = document("/master/state", "");
  EXPECT_TRUE(state["frameworks"].array().empty());
  EXPECT_EQ(state["completed_frameworks"].array().size(), 2u);
  ASSERT_EQ(bob.received<FrameworkErrorMessage>().size(), 1u);
  EXPECT_EQ(bob.received<FrameworkErrorMessage>()[0].message(),
            "Framework has been removed (POST /master/teardown)");
}

class SchedulerPrincipalTest : public AuthorizationTest {
 protected:
  HttpResponse call(const V1Call& call, const std::string& principal,
                    const std::string& streamId = "") {
    auto peer = std::make_unique<RawPeer>(runtime_->address());
    std::string body = toJson(call);
    EXPECT_TRUE(peer->write(
        "POST /api/v1/scheduler HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        "Accept: application/json\r\n" +
        basic(principal) + (streamId.empty() ? "" : "Mesos-Stream-Id: " + streamId + "\r\n") +
        "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
    auto response =
        call.type() == V1Call::SUBSCRIBE ? peer->readStreamHead() : peer->readResponse();
    EXPECT_TRUE(response.has_value());
    if (call.type() == V1Call::SUBSCRIBE && response && response->status == 200) {
      streams_.push_back(std::move(peer));
    }
    return response ? *response : HttpResponse{};
  }

  static V1Call subscribe(const std::string& principal) {
    V1Call call;
    call.set_type(V1Call::SUBSCRIBE);
    *call.mutable_subscribe()->mutable_framework_info() =
        evolve<v1::FrameworkInfo>(info("v1", "alice", principal));
    return call;
  }

  std::vector<std::unique_ptr<RawPeer>> streams_;  // subscriptions kept open
};

TEST_F(SchedulerPrincipalTest, SubscriptionIsBoundToItsPrincipal) {
  flags_.security.authenticate_http_frameworks = true;
  flags_.security.http_credentials = kCredentials;
  start();
  HttpResponse anonymous = call(subscribe(""), "");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.headers["www-authenticate"], "Basic realm=\"mesos-master-scheduler\"");

  HttpResponse mismatch = call(subscribe("bob"), "alice");
  EXPECT_EQ(mismatch.status, 400);

  // No principal in FrameworkInfo: the authenticated one is set.
  HttpResponse subscribed = call(subscribe(""), "alice");
  ASSERT_EQ(subscribed.status, 200);
  std::string streamId = subscribed.headers["mesos-stream-id"];
  runtime_->settle();
  json::Value state = document("/master/state", "");
  ASSERT_EQ(state["frameworks"].array().size(), 1u);
  const json::Value& framework = state["frameworks"].array()[0];
  EXPECT_EQ(framework["principal"].string(), "alice");

  V1Call revive;
  revive.set_type(V1Call::REVIVE);
  revive.mutable_framework_id()->set_value(framework["id"].string());
  HttpResponse other = call(revive, "bob", streamId);
  EXPECT_EQ(other.status, 400);
  EXPECT_EQ(other.body,
            "Authenticated principal 'bob' does not match principal 'alice' set in "
            "`FrameworkInfo`\n");
  EXPECT_EQ(call(revive, "", streamId).status, 401);
  EXPECT_EQ(call(revive, "alice", streamId).status, 202);

  // Another principal cannot take the framework over by re-subscribing.
  V1Call takeover = subscribe("");
  takeover.mutable_framework_id()->set_value(framework["id"].string());
  takeover.mutable_subscribe()->mutable_framework_info()->mutable_id()->set_value(
      framework["id"].string());
  HttpResponse taken = call(takeover, "bob");
  EXPECT_EQ(taken.status, 403);
}

TEST_F(SchedulerPrincipalTest, SubscribeIsAuthorized) {
  flags_.security.authenticate_http_frameworks = true;
  flags_.security.http_credentials = kCredentials;
  flags_.security.acls = R"({"register_frameworks": [
      {"principals": {"values": ["bob"]}, "roles": {"type": "NONE"}}]})";
  start();
  HttpResponse refused = call(subscribe(""), "bob");
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(call(subscribe(""), "alice").status, 200);
}

}  // namespace
}  // namespace mesos::test
