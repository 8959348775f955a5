// HTTP authentication and ACLs at mesos-master and mesos-slave processes, as
// an operator's curl sees them: a malformed ACL file refused at start-up
// naming the line, 401 with Apache's realm, 403 from the ACLs, and a slave
// whose own endpoints are guarded.
#include <chrono>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/daemon.hpp"
#include "support/raw_peer.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kOps = "Basic b3BzOm9wcy1zZWNyZXQ=";  // ops:ops-secret
constexpr const char* kDev = "Basic ZGV2OmRldi1zZWNyZXQ=";  // dev:dev-secret

class HttpSecurityTest : public DaemonsFixture {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  // The flags of a daemon with HTTP authentication and these ACLs.
  std::vector<std::string> secured(const std::string& acls) {
    std::string credentials = write("credentials", "# principal secret\nops ops-secret\ndev dev-secret\n");
    return {"--authenticate_http_readonly", "--authenticate_http_readwrite",
            "--http_credentials=file://" + credentials, "--acls=" + write("acls.json", acls)};
  }

  static HttpResponse request(const process::Address& address, const std::string& method,
                              const std::string& path, const std::string& authorization,
                              const std::string& body = "") {
    RawPeer peer(address);
    EXPECT_TRUE(peer.connected());
    EXPECT_TRUE(peer.write(method + " " + path + " HTTP/1.1\r\nHost: test\r\n" +
                           (authorization.empty() ? "" : "Authorization: " + authorization + "\r\n") +
                           (body.empty() ? "" : "Content-Type: application/x-www-form-urlencoded\r\n") +
                           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body));
    auto response = peer.readResponse();
    EXPECT_TRUE(response.has_value()) << method << " " << path;
    return response ? *response : HttpResponse{};
  }
};

TEST_F(HttpSecurityTest, MalformedAclFileIsRefusedAtStartWithItsLine) {
  std::string acls = write("acls.json",
                           "{\n  \"permissive\": false,\n  \"run_tasks\": [\n    {\"principals\": "
                           "{\"values\": [\"a\"]}, \"users\": {\"values\": [\"a\"]},}\n  ]\n}\n");
  pid_t master = start({MESOS_MASTER_PATH, "--ip=127.0.0.1", "--port=" + std::to_string(freePort()),
                        "--acls=file://" + acls},
                       "bad-master");
  ASSERT_GT(master, 0);
  EXPECT_EQ(waitForExit(master, 30s), 1);
  reaped(master);
  std::string log = readFile(dir_ + "/bad-master.log");
  EXPECT_NE(log.find("mesos-master: --acls: " + acls + ": not valid JSON at line 4, column "),
            std::string::npos)
      << log;

  // A well-formed document with a wrong field: named by its place.
  std::string wrong = write("wrong.json", R"({"run_tasks": [{"principals": {"type": "ANY"},
      "users": {"type": "EVERYONE"}}]})");
  pid_t second = start({MESOS_MASTER_PATH, "--ip=127.0.0.1",
                        "--port=" + std::to_string(freePort()), "--acls=" + wrong},
                       "wrong-master");
  ASSERT_GT(second, 0);
  EXPECT_EQ(waitForExit(second, 30s), 1);
  reaped(second);
  EXPECT_NE(readFile(dir_ + "/wrong-master.log")
                .find("--acls: " + wrong +
                      ": run_tasks[0].users.type: unknown type \"EVERYONE\" (expected SOME, ANY "
                      "or NONE)"),
            std::string::npos)
      << readFile(dir_ + "/wrong-master.log");
}

TEST_F(HttpSecurityTest, MasterAnswers401And403) {
  process::Address master = startMaster(secured(R"({
      "view_flags": [{"principals": {"values": ["ops"]}, "flags": {"type": "ANY"}},
                     {"principals": {"type": "ANY"}, "flags": {"type": "NONE"}}],
      "teardown_frameworks": [{"principals": {"type": "ANY"},
                               "framework_principals": {"type": "NONE"}}]})"));
  HttpResponse anonymous = request(master, "GET", "/master/state", "");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.headers["www-authenticate"], "Basic realm=\"mesos-master-readonly\"");
  EXPECT_EQ(request(master, "GET", "/master/state", "Basic b3BzOnd4").status, 401);
  EXPECT_EQ(request(master, "GET", "/master/state", kDev).status, 200);
  EXPECT_EQ(request(master, "GET", "/master/flags", kOps).status, 200);
  EXPECT_EQ(request(master, "GET", "/master/flags", kDev).status, 403);
  HttpResponse teardown = request(master, "POST", "/master/teardown", "", "frameworkId=x");
  EXPECT_EQ(teardown.status, 401);
  EXPECT_EQ(teardown.headers["www-authenticate"], "Basic realm=\"mesos-master-readwrite\"");
  EXPECT_EQ(request(master, "POST", "/master/teardown", kOps, "frameworkId=x").status, 400);
  EXPECT_EQ(request(master, "GET", "/master/health", "").status, 200);
}

TEST_F(HttpSecurityTest, SlaveEndpointsAreGuarded) {
  process::Address master = startMaster();
  std::vector<std::string> flags = secured(R"({
      "view_flags": [{"principals": {"values": ["ops"]}, "flags": {"type": "ANY"}},
                     {"principals": {"type": "ANY"}, "flags": {"type": "NONE"}}],
      "get_endpoints": [{"principals": {"values": ["dev"]}, "paths": {"type": "NONE"}}]})");
  uint16_t port = freePort();
  pid_t slave = startSlave(master, "slave", flags, port);
  ASSERT_GT(slave, 0);
  process::Address address = master;
  address.port = port;
  ASSERT_TRUE(waitUntil([&] { return connectable(address); }, 30s, slave));

  HttpResponse anonymous = request(address, "GET", "/state", "");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.headers["www-authenticate"], "Basic realm=\"mesos-agent-readonly\"");
  HttpResponse state = request(address, "GET", "/state", kDev);
  EXPECT_EQ(state.status, 200);
  EXPECT_EQ(state.body.find("\"flags\""), std::string::npos);
  HttpResponse full = request(address, "GET", "/state", kOps);
  EXPECT_NE(full.body.find("\"flags\""), std::string::npos);
  EXPECT_EQ(request(address, "GET", "/flags", kDev).status, 403);
  EXPECT_EQ(request(address, "GET", "/metrics/snapshot", kDev).status, 403);
  EXPECT_EQ(request(address, "GET", "/metrics/snapshot", kOps).status, 200);
  EXPECT_EQ(request(address, "GET", "/files/debug", kDev).status, 403);
  EXPECT_EQ(request(address, "GET", "/files/debug", "").status, 401);
  EXPECT_EQ(request(address, "GET", "/health", "").status, 200);
}

}  // namespace
}  // namespace mesos::test
