// The ACL parser, the local authorizer's decisions (every action allowed and
// denied, `permissive` both ways, requests without a principal), the HTTP
// credentials formats and the endpoint guard's 401 and 403 answers.
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "authentication/http/credentials.hpp"
#include "common/base64.hpp"
#include "authentication/http/endpoint_guard.hpp"
#include "authentication/http/security_flags.hpp"
#include "authorizer/acls.hpp"
#include "authorizer/authorizer.hpp"

namespace mesos::test {
namespace {

using namespace mesos::internal;
using authorizer::Action;
using authorizer::Acls;
using authorizer::parseAcls;

std::shared_ptr<const authorizer::Authorizer> local(const std::string& json) {
  auto acls = parseAcls(json);
  CHECK(acls.ok()) << acls.error().message;
  auto created = authorizer::createAuthorizer("local", *acls);
  CHECK(created.ok()) << created.error().message;
  return *created;
}

std::string parseError(const std::string& json) {
  auto acls = parseAcls(json);
  EXPECT_FALSE(acls.ok()) << json;
  return acls.ok() ? "" : acls.error().message;
}

TEST(AclsTest, ParsesApacheDocument) {
  auto acls = parseAcls(R"({
    "permissive": false,
    "register_frameworks": [{"principals": {"values": ["a"]}, "roles": {"values": ["r"]}}],
    "run_tasks": [{"principals": {"type": "ANY"}, "users": {"type": "NONE"}}],
    "get_endpoints": [{"principals": {"values": ["ops"]}, "paths": {"values": ["/metrics/snapshot"]}}],
    "reserve_resources": [{"principals": {"type": "ANY"}, "roles": {"type": "ANY"}}],
    "unreserve_resources": [{"principals": {"type": "ANY"}, "reserver_principals": {"type": "ANY"}}],
    "create_volumes": [{"principals": {"type": "ANY"}, "roles": {"type": "ANY"}}],
    "destroy_volumes": [{"principals": {"type": "ANY"}, "creator_principals": {"type": "ANY"}}],
    "update_weights": [{"principals": {"type": "ANY"}, "roles": {"type": "ANY"}}],
    "resize_volumes": [{"principals": {"type": "ANY"}, "roles": {"type": "ANY"}}]
  })");
  ASSERT_TRUE(acls.ok()) << acls.error().message;
  EXPECT_FALSE(acls->permissive);
  ASSERT_EQ(acls->rules.at(Action::kRegisterFramework).size(), 1u);
  EXPECT_EQ(acls->rules.at(Action::kRegisterFramework)[0].objects.values,
            std::vector<std::string>{"r"});
  EXPECT_EQ(acls->rules.at(Action::kRunTask)[0].objects.type, authorizer::Entity::Type::kNone);
  EXPECT_EQ(acls->rules.count(Action::kReserveResources), 1u);
  EXPECT_EQ(acls->rules.count(Action::kDestroyVolume), 1u);
  EXPECT_EQ(acls->rules.count(Action::kUpdateWeight), 1u);
  EXPECT_EQ(acls->unchecked, std::vector<std::string>{"resize_volumes"});
  EXPECT_TRUE(parseAcls("{}")->permissive);
}

TEST(AclsTest, MalformedDocumentsNameWhatAndWhere) {
  EXPECT_EQ(parseError("{\n  \"run_tasks\": [\n    {\"principals\": }\n  ]\n}"),
            "not valid JSON at line 3, column 20: expected a value (found '}')");
  EXPECT_EQ(parseError(R"({"run_task": []})"),
            "run_task: unknown ACL (see docs/security.md for the lists there are)");
  EXPECT_EQ(parseError(R"({"run_tasks": [{"principals": {"type": "ANY"}}]})"),
            "run_tasks[0]: missing \"users\"");
  EXPECT_EQ(parseError(R"({"run_tasks": [{"principals": {"type": "ANY"}, "roles": {"type": "ANY"}}]})"),
            "run_tasks[0]: unknown field \"roles\" (expected \"principals\" and \"users\")");
  EXPECT_EQ(
      parseError(R"({"run_tasks": [{"principals": {"type": "ANY"}, "users": {"type": "ALL"}}]})"),
      "run_tasks[0].users.type: unknown type \"ALL\" (expected SOME, ANY or NONE)");
  EXPECT_EQ(parseError(R"({"run_tasks": [{"principals": {"values": [1]}, "users": {"type": "ANY"}}]})"),
            "run_tasks[0].principals.values[0]: expected a string");
  EXPECT_EQ(parseError(R"({"permissive": "no"})"), "permissive: expected true or false");
  EXPECT_EQ(parseError(R"({"view_flags": [{"principals": {"type": "ANY"}, "flags": {"values": ["x"]}}]})"),
            "view_flags[0].flags: must be {\"type\": \"ANY\"} or {\"type\": \"NONE\"}");
  EXPECT_EQ(parseError(R"({"start_maintenances": [{"principals": {"type": "ANY"}, "machines": {"values": ["h"]}}]})"),
            "start_maintenances[0].machines: must be {\"type\": \"ANY\"} or {\"type\": \"NONE\"}");
  EXPECT_NE(parseError(R"({"get_endpoints": [{"principals": {"type": "ANY"}, "paths": {"values": ["/state"]}}]})")
                .find("'/state' is not an authorizable path"),
            std::string::npos);
  EXPECT_EQ(parseError("[]"), "expected a JSON object at the top");
}

TEST(AclsTest, LoadsInlineFileAndFileUrl) {
  std::string path = ::testing::TempDir() + "/acls_test.json";
  std::ofstream(path) << R"({"permissive": false})";
  EXPECT_FALSE(authorizer::loadAcls(path)->permissive);
  EXPECT_FALSE(authorizer::loadAcls("file://" + path)->permissive);
  EXPECT_FALSE(authorizer::loadAcls(R"( {"permissive": false})")->permissive);
  auto missing = authorizer::loadAcls("/nonexistent/acls.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message.rfind("--acls: cannot read /nonexistent/acls.json", 0), 0u);
  std::ofstream(path) << "{\n\"run_tasks\": 3\n}";
  auto bad = authorizer::loadAcls(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "--acls: " + path + ": run_tasks: expected a list of rules");
  EXPECT_FALSE(authorizer::loadAcls("relative.json").ok());
}

TEST(AclsTest, UnknownAuthorizerIsRefused) {
  auto created = authorizer::createAuthorizer("ldap", Acls{});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().message, "--authorizers: unknown authorizer 'ldap' (known: local)");
}

// Each action: a listed principal allowed for a listed object, refused for
// another object when not permissive, and a NONE rule refusing.
TEST(LocalAuthorizerTest, EveryActionAllowedAndDenied) {
  const std::pair<Action, const char*> actions[] = {
      {Action::kRegisterFramework, "roles"},      {Action::kRunTask, "users"},
      {Action::kTeardownFramework, "framework_principals"},
      {Action::kViewFramework, "users"},          {Action::kViewTask, "users"},
      {Action::kViewExecutor, "users"},           {Action::kAccessSandbox, "users"},
      {Action::kReserveResources, "roles"},
      {Action::kUnreserveResources, "reserver_principals"},
      {Action::kCreateVolume, "roles"},           {Action::kDestroyVolume, "creator_principals"},
  };
  for (const auto& [action, object] : actions) {
    std::string name(authorizer::actionName(action));
    auto acl = local(R"({"permissive": false, ")" + name +
                     R"(": [{"principals": {"values": ["alice"]}, ")" + object +
                     R"(": {"values": ["x"]}}, {"principals": {"values": ["mallory"]}, ")" +
                     object + R"(": {"type": "NONE"}}]})");
    EXPECT_TRUE(acl->authorized(action, std::string("alice"), std::string("x"))) << name;
    EXPECT_FALSE(acl->authorized(action, std::string("alice"), std::string("y"))) << name;
    EXPECT_FALSE(acl->authorized(action, std::string("mallory"), std::string("x"))) << name;
    EXPECT_FALSE(acl->authorized(action, std::string("bob"), std::string("x"))) << name;
    EXPECT_FALSE(acl->authorized(action, std::nullopt, std::string("x"))) << name;
  }
  // The object-less ones: ANY or NONE.
  for (Action action : {Action::kViewFlags, Action::kAccessMesosLog,
                        Action::kUpdateMaintenanceSchedule, Action::kGetMaintenanceSchedule,
                        Action::kStartMaintenance, Action::kStopMaintenance,
                        Action::kGetMaintenanceStatus}) {
    std::string name(authorizer::actionName(action));
    std::string object(authorizer::objectName(action));
    auto acl = local(R"({")" + name + R"(": [{"principals": {"values": ["alice"]}, ")" + object +
                     R"(": {"type": "ANY"}}, {"principals": {"type": "ANY"}, ")" + object +
                     R"(": {"type": "NONE"}}]})");
    EXPECT_TRUE(acl->authorized(action, std::string("alice"), std::nullopt)) << name;
    EXPECT_FALSE(acl->authorized(action, std::string("bob"), std::nullopt)) << name;
    EXPECT_FALSE(acl->authorized(action, std::nullopt, std::nullopt)) << name;
  }
  auto endpoints = local(R"({"get_endpoints": [{"principals": {"values": ["ops"]},
      "paths": {"values": ["/metrics/snapshot"]}}, {"principals": {"type": "ANY"},
      "paths": {"type": "NONE"}}]})");
  EXPECT_TRUE(endpoints->authorized(Action::kGetEndpoint, std::string("ops"),
                                    std::string("/metrics/snapshot")));
  EXPECT_FALSE(endpoints->authorized(Action::kGetEndpoint, std::string("ops"),
                                     std::string("/files/debug")));
  EXPECT_FALSE(endpoints->authorized(Action::kGetEndpoint, std::string("dev"),
                                     std::string("/metrics/snapshot")));
}

TEST(LocalAuthorizerTest, PermissiveDecidesWhatNoRuleMatches) {
  const char* rules = R"([{"principals": {"values": ["alice"]}, "users": {"values": ["alice"]}}])";
  auto permissive = local(std::string(R"({"run_tasks": )") + rules + "}");
  auto strict = local(std::string(R"({"permissive": false, "run_tasks": )") + rules + "}");
  EXPECT_TRUE(permissive->authorized(Action::kRunTask, std::string("bob"), std::string("bob")));
  EXPECT_FALSE(strict->authorized(Action::kRunTask, std::string("bob"), std::string("bob")));
  EXPECT_TRUE(strict->authorized(Action::kRunTask, std::string("alice"), std::string("alice")));
  // No rules at all.
  EXPECT_TRUE(local("{}")->authorized(Action::kViewTask, std::nullopt, std::nullopt));
  EXPECT_FALSE(local(R"({"permissive": false})")
                   ->authorized(Action::kViewTask, std::string("a"), std::string("b")));
}

TEST(LocalAuthorizerTest, FirstMatchWins) {
  auto acl = local(R"({"run_tasks": [
      {"principals": {"values": ["alice"]}, "users": {"type": "NONE"}},
      {"principals": {"type": "ANY"}, "users": {"type": "ANY"}}]})");
  EXPECT_FALSE(acl->authorized(Action::kRunTask, std::string("alice"), std::string("alice")));
  EXPECT_TRUE(acl->authorized(Action::kRunTask, std::string("bob"), std::string("alice")));
  // Without a principal only ANY principals match, and only they allow.
  EXPECT_TRUE(acl->authorized(Action::kRunTask, std::nullopt, std::string("x")));
  auto none = local(R"({"run_tasks": [{"principals": {"type": "NONE"}, "users": {"type": "ANY"}}]})");
  EXPECT_FALSE(none->authorized(Action::kRunTask, std::string("bob"), std::string("x")));
  EXPECT_FALSE(none->authorized(Action::kRunTask, std::nullopt, std::string("x")));
}

TEST(LocalAuthorizerTest, AuthorizedForAllAndAllowsByName) {
  auto acl = local(R"({"view_frameworks": [
      {"principals": {"values": ["ops"]}, "users": {"type": "ANY"}},
      {"principals": {"values": ["dev"]}, "users": {"values": ["dev"]}},
      {"principals": {"values": ["dev"]}, "users": {"type": "ANY"}},
      {"principals": {"values": ["guest"]}, "users": {"values": ["root"]}}]})");
  EXPECT_TRUE(acl->authorizedForAll(Action::kViewFramework, std::string("ops")));
  EXPECT_TRUE(acl->authorizedForAll(Action::kViewFramework, std::string("dev")));
  EXPECT_TRUE(acl->authorizedForAll(Action::kViewFramework, std::string("other")));  // permissive
  auto strict = local(R"({"permissive": false, "view_tasks": [
      {"principals": {"values": ["dev"]}, "users": {"values": ["dev"]}}]})");
  EXPECT_FALSE(strict->authorizedForAll(Action::kViewTask, std::string("dev")));
  EXPECT_TRUE(strict->authorized(Action::kViewTask, std::string("dev"), std::string("dev")));

  auto root = local(R"({"run_tasks": [
      {"principals": {"values": ["admin"]}, "users": {"values": ["root", "admin"]}},
      {"principals": {"type": "ANY"}, "users": {"type": "ANY"}}]})");
  EXPECT_TRUE(root->allowsByName(Action::kRunTask, std::string("admin"), "root"));
  EXPECT_FALSE(root->allowsByName(Action::kRunTask, std::string("bob"), "root"));
  EXPECT_TRUE(root->authorized(Action::kRunTask, std::string("bob"), std::string("root")));
  EXPECT_FALSE(local("{}")->allowsByName(Action::kRunTask, std::string("admin"), "root"));
}

TEST(HttpCredentialsTest, InlineJsonOrAFileInEitherForm) {
  auto json = authentication::loadCredentials(
      R"({"credentials": [{"principal": "ops", "secret": "s1"}, {"principal": "dev", "secret": "s2"}]})",
      "http_credentials");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ(json->at("ops"), "s1");
  EXPECT_EQ(json->at("dev"), "s2");
  char pattern[] = "/tmp/http-credentials-XXXXXX";
  int fd = ::mkstemp(pattern);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(pattern) << "# comment\nops s1\n\n  dev   s2\r\n";
  auto text = authentication::loadCredentials(std::string("file://") + pattern, "http_credentials");
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(text->size(), 2u);
  EXPECT_EQ(text->at("dev"), "s2");
  std::ofstream(pattern) << "ops s1\nlonely\n";
  auto bad = authentication::loadCredentials(pattern, "http_credentials");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(0u, bad.error().message.find("--http_credentials: ")) << bad.error().message;
  EXPECT_NE(std::string::npos, bad.error().message.find("line 2")) << bad.error().message;
  ::unlink(pattern);
  auto relative = authentication::loadCredentials("creds.json", "http_credentials");
  ASSERT_FALSE(relative.ok());
  EXPECT_NE(std::string::npos, relative.error().message.find("absolute path"));
}

TEST(HttpCredentialsTest, Base64) {
  EXPECT_EQ(base64::decode("b3BzOnMx"), "ops:s1");
  EXPECT_EQ(base64::decode("YQ=="), "a");
  EXPECT_EQ(base64::decode("YQ"), "a");
  EXPECT_EQ(base64::decode("@@@@"), std::nullopt);
  EXPECT_EQ(base64::encode("ops:s1"), "b3BzOnMx");
  EXPECT_EQ(base64::encode("a"), "YQ==");
  EXPECT_EQ(base64::encode("ab"), "YWI=");
  // URL-safe and unpadded, as in a JWT.
  EXPECT_EQ(base64::encode("\xfb\xff", true), "-_8");
  EXPECT_EQ(base64::encode("\xfb\xff"), "+/8=");
  EXPECT_EQ(base64::decode(base64::encode(std::string("\0\1\2\3\xff", 5))),
            std::string("\0\1\2\3\xff", 5));
}

process::http::Request withAuthorization(const std::string& value) {
  process::http::Request request;
  request.method = "GET";
  request.path = "/metrics/snapshot";
  if (!value.empty()) request.headers.emplace_back("authorization", value);
  return request;
}

TEST(EndpointGuardTest, UnauthorizedAndForbidden) {
  authentication::HttpSecurityFlags flags;
  flags.authenticate_http_readonly = true;
  flags.http_credentials = R"({"credentials": [{"principal": "ops", "secret": "s1"},
                                              {"principal": "dev", "secret": "s2"}]})";
  flags.http_authenticators = "basic";
  flags.http_framework_authenticators = "basic";
  flags.authorizers = "local";
  flags.acls = R"({"get_endpoints": [{"principals": {"values": ["dev"]},
                                      "paths": {"type": "NONE"}}]})";
  auto guard = flags.guard(authentication::Daemon::kMaster);
  ASSERT_TRUE(guard.ok()) << guard.error().message;
  auto handler = (*guard)->guard(authentication::Realm::kReadonly, "/metrics/snapshot",
                                 [](const process::http::Request& request) {
                                   return process::Future<process::http::Response>(
                                       process::http::Response::ok(request.principal.value_or("-")));
                                 });
  auto missing = handler(withAuthorization("")).get();
  EXPECT_EQ(missing.status, 401);
  ASSERT_EQ(missing.headers.size(), 1u);
  EXPECT_EQ(missing.headers[0].first, "WWW-Authenticate");
  EXPECT_EQ(missing.headers[0].second, "Basic realm=\"mesos-master-readonly\"");
  EXPECT_EQ(handler(withAuthorization("Basic b3BzOndyb25n")).get().status, 401);  // ops:wrong
  EXPECT_EQ(handler(withAuthorization("Bearer abc")).get().status, 401);
  auto ok = handler(withAuthorization("Basic b3BzOnMx")).get();  // ops:s1
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "ops");
  EXPECT_EQ(handler(withAuthorization("basic ZGV2OnMy")).get().status, 403);  // dev:s2

  // The readwrite realm is not authenticated: no principal, whatever is sent.
  auto open = (*guard)->guard(authentication::Realm::kReadwrite, "/teardown",
                              [](const process::http::Request& request) {
                                return process::Future<process::http::Response>(
                                    process::http::Response::ok(request.principal.value_or("-")));
                              });
  EXPECT_EQ(open(withAuthorization("")).get().body, "-");

  flags.http_credentials.reset();
  auto needsCredentials = flags.guard(authentication::Daemon::kAgent);
  ASSERT_FALSE(needsCredentials.ok());
  EXPECT_EQ(needsCredentials.error().message,
            "--authenticate_http_readonly needs --http_credentials: the principals and secrets "
            "clients may use");
}

}  // namespace
}  // namespace mesos::test
