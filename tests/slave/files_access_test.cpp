// /files behind a slave's guard: the readonly realm's 401, access_sandboxes
// per sandbox owner, and get_endpoints for /files/debug.
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "authentication/http/security_flags.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "slave/files.hpp"
#include "support/raw_peer.hpp"

namespace mesos::internal::slave {
namespace {

using mesos::test::HttpResponse;
using mesos::test::RawPeer;

class FilesAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = process::Runtime::create({}).value();
    files_ = runtime_->spawn<Files>();
    char pattern[] = "/tmp/mesos-files-access-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    root_ = pattern;
    for (const char* user : {"alice", "bob"}) {
      std::string sandbox = root_ + "/" + user;
      ASSERT_EQ(::mkdir(sandbox.c_str(), 0755), 0);
      std::ofstream(sandbox + "/stdout") << user << "'s output\n";
      auto attached = process::dispatch(files_.pid(), &Files::attach, sandbox, sandbox,
                                        std::optional<std::string>(user));
      ASSERT_TRUE(attached.await());
      ASSERT_TRUE(attached.get().ok());
    }
    authentication::HttpSecurityFlags flags;
    flags.authenticate_http_readonly = true;
    flags.http_credentials = R"({"credentials": [{"principal": "alice", "secret": "a"},
                                                {"principal": "ops", "secret": "o"}]})";
    flags.http_authenticators = "basic";
    flags.authorizers = "local";
    flags.acls = R"({"access_sandboxes": [
        {"principals": {"values": ["ops"]}, "users": {"type": "ANY"}},
        {"principals": {"values": ["alice"]}, "users": {"values": ["alice"]}},
        {"principals": {"type": "ANY"}, "users": {"type": "NONE"}}],
      "get_endpoints": [{"principals": {"values": ["alice"]}, "paths": {"type": "NONE"}}]})";
    auto guard = flags.guard(authentication::Daemon::kAgent);
    ASSERT_TRUE(guard.ok()) << guard.error().message;
    ASSERT_TRUE(process::dispatch(files_.pid(), &Files::setGuard,
                                  std::shared_ptr<const authentication::EndpointGuard>(*guard))
                    .await());
  }

  void TearDown() override {
    files_.reset();
    runtime_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  // GET `path` as `authorization` ("" for none).
  HttpResponse get(const std::string& path, const std::string& authorization) {
    RawPeer peer(runtime_->address());
    EXPECT_TRUE(peer.write("GET " + path + " HTTP/1.1\r\nHost: test\r\n" +
                           (authorization.empty() ? "" : "Authorization: " + authorization + "\r\n") +
                           "\r\n"));
    auto response = peer.readResponse();
    EXPECT_TRUE(response.has_value()) << path;
    return response ? *response : HttpResponse{};
  }

  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<Files> files_;
  std::string root_;
};

constexpr const char* kAlice = "Basic YWxpY2U6YQ==";  // alice:a
constexpr const char* kOps = "Basic b3BzOm8=";        // ops:o

TEST_F(FilesAccessTest, SandboxesOnlyForThoseAllowed) {
  std::string alice = "/files/download?path=" + root_ + "/alice/stdout";
  std::string bob = "/files/download?path=" + root_ + "/bob/stdout";
  HttpResponse anonymous = get(alice, "");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.headers["www-authenticate"], "Basic realm=\"mesos-agent-readonly\"");

  EXPECT_EQ(get(alice, kAlice).status, 200);
  HttpResponse refused = get(bob, kAlice);
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body, "Not authorized to access the sandbox of user 'bob' (ACL access_sandboxes)\n");
  EXPECT_EQ(get("/files/read?path=" + root_ + "/bob/stdout&offset=0", kAlice).status, 403);
  EXPECT_EQ(get("/files/browse?path=" + root_ + "/bob", kAlice).status, 403);
  EXPECT_EQ(get(bob, kOps).status, 200);
  EXPECT_EQ(get("/files/browse?path=" + root_ + "/bob", kOps).status, 200);

  EXPECT_EQ(get("/files/debug", kAlice).status, 403);
  EXPECT_EQ(get("/files/debug", kOps).status, 200);
}

}  // namespace
}  // namespace mesos::internal::slave
