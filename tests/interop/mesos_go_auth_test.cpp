// Interoperability of authentication: a framework on the (real, upstream)
// mesos-go v0 scheduler driver authenticates with our master through
// mesos-go's SASL authenticatee and its CRAM-MD5 mechanism, then registers
// (tests/interop/go/src/mesosinterop/go_auth_scheduler). The master runs in
// this process on 127.0.0.1 with --authenticate_frameworks and a
// --credentials file; the probe runs as a child process.
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "allocator/hierarchical.hpp"
#include "common/json.hpp"
#include "interop/go_probes.hpp"
#include "master/master.hpp"
#include "messages.pb.h"
#include "process/runtime.hpp"
#include "support/net.hpp"
#include "support/subprocess.hpp"

namespace {

using namespace std::chrono_literals;
using mesos::internal::AuthenticateMessage;
using mesos::internal::AuthenticationCompletedMessage;
using mesos::internal::AuthenticationFailedMessage;
using mesos::internal::RegisterFrameworkMessage;
namespace json = mesos::json;

class MesosGoAuthenticationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string missing = MESOS_INTEROP_GO_MISSING;
    if (!missing.empty()) GTEST_SKIP() << "mesos-go interop probes not built: " << missing;
    probe_ = std::string(MESOS_INTEROP_GO_BIN) + "/go_auth_scheduler";
    if (access(probe_.c_str(), X_OK) != 0) {
      GTEST_SKIP() << probe_ << " is missing (" << std::strerror(errno)
                   << "); the mesos-interop-go target builds it with tests/interop/go/build.sh";
    }
    char pattern[] = "/tmp/mesos-go-auth-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr) << std::strerror(errno);
    dir_ = pattern;
    std::string credentials = dir_ + "/credentials";
    std::ofstream(credentials) << R"({"credentials": [{"principal": "gopher", "secret": "go-s3cret"}]})";
    std::filesystem::permissions(credentials, std::filesystem::perms::owner_read);

    process::Runtime::Options options;
    options.ip = "127.0.0.1";
    options.port = 0;
    options.workers = 2;
    auto created = process::Runtime::create(options);
    ASSERT_TRUE(created.ok()) << created.error().message;
    runtime_ = std::move(created).value();
    mesos::internal::master::MasterFlags flags;
    flags.ip = "127.0.0.1";
    flags.port = runtime_->address().port;
    flags.authenticate_frameworks = true;
    flags.credentials = credentials;
    master_ = runtime_->spawn<mesos::internal::master::Master>(
        flags, std::make_unique<mesos::allocator::HierarchicalAllocator>());
    // mesos-go's standalone detector reads GET /state.
    runtime_->setDelegate("master");
  }

  void TearDown() override {
    master_.reset();
    runtime_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  mesos::test::ChildResult run(const std::string& secret, const std::string& timeout) {
    return mesos::test::runChild(
        {probe_, "--master=" + runtime_->address().toString(), "--principal=gopher",
         "--secret=" + secret, "--ip=127.0.0.1", "--timeout=" + timeout},
        60s);
  }

  std::string probe_;
  std::string dir_;
  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<mesos::internal::master::Master> master_;
};

TEST_F(MesosGoAuthenticationTest, RightSecretAuthenticatesAndRegisters) {
  auto authenticates = runtime_->hooks().count<AuthenticateMessage>(std::nullopt, master_.pid());
  auto completed = runtime_->hooks().count<AuthenticationCompletedMessage>();
  auto registers = runtime_->hooks().count<RegisterFrameworkMessage>(std::nullopt, master_.pid());

  mesos::test::ChildResult result = run("go-s3cret", "30s");
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  EXPECT_NE(std::string::npos, result.out.find("registered ")) << result.out;
  EXPECT_GE(authenticates->load(), 1u);
  EXPECT_EQ(1u, completed->load());
  EXPECT_GE(registers->load(), 1u);

  std::string body;
  ASSERT_EQ(200, mesos::test::httpGet(runtime_->address(), "/master/state", &body));
  auto state = json::parse(body);
  ASSERT_TRUE(state.ok()) << body;
  const json::Value& done = (*state)["completed_frameworks"];
  ASSERT_TRUE(done.isArray() && done.array().size() == 1) << body;
  EXPECT_EQ("gopher", done.array()[0]["principal"].string());
}

TEST_F(MesosGoAuthenticationTest, WrongSecretIsRefusedAndNeverRegisters) {
  auto failed = runtime_->hooks().count<AuthenticationFailedMessage>();
  auto completed = runtime_->hooks().count<AuthenticationCompletedMessage>();
  auto registers = runtime_->hooks().count<RegisterFrameworkMessage>(std::nullopt, master_.pid());

  // mesos-go's driver gives up silently on a refusal: the probe times out.
  mesos::test::ChildResult result = run("not-the-secret", "5s");
  EXPECT_TRUE(result.exitedWith(1)) << result.describe();
  EXPECT_NE(std::string::npos, result.err.find("refused authentication")) << result.err;
  EXPECT_GE(failed->load(), 1u);
  EXPECT_EQ(0u, completed->load());
  EXPECT_EQ(0u, registers->load());
}

}  // namespace
