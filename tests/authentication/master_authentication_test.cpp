// Authentication at the master (Apache Mesos's v0 flow, CRAM-MD5 over
// Cyrus SASL): a real master with --authenticate_frameworks /
// --authenticate_agents and a --credentials file, stand-in schedulers and
// slaves that authenticate through our authenticatee, all on a paused clock.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "authentication/authentication.hpp"
#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using authentication::Outcome;

class MasterAuthenticationTest : public MasterFixture {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("master_authentication_test." + std::to_string(::getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::string path = (dir_ / "credentials").string();
    std::ofstream(path) << R"({"credentials": [{"principal": "alice", "secret": "wonderland"},
                                               {"principal": "bob", "secret": "builder"}]})";
    std::filesystem::permissions(path, std::filesystem::perms::owner_read |
                                           std::filesystem::perms::owner_write);
    flags_.credentials = "file://" + path;
    flags_.authenticate_frameworks = true;
    flags_.authenticate_agents = true;
  }
  void TearDown() override {
    MasterFixture::TearDown();
    std::filesystem::remove_all(dir_);
  }

  // Authenticates `client` with the master as principal/secret through the
  // CRAM-MD5 authenticatee; the outcome the authenticatee reports.
  Outcome authenticate(Peer& client, const std::string& principal, const std::string& secret) {
    auto authenticatee = authentication::createAuthenticatee("crammd5");
    EXPECT_TRUE(authenticatee.ok());
    Credential credential;
    credential.set_principal(principal);
    credential.set_secret(secret);
    auto outcome = std::make_shared<process::Promise<Outcome>>();
    auto attempt = authenticatee.value()->start(
        *runtime_, master(), client.self(), credential,
        [outcome](const Outcome& result) { outcome->set(result); });
    runtime_->settle();
    EXPECT_TRUE(outcome->future().isReady()) << "the authentication did not end";
    if (!outcome->future().isReady()) return Outcome{};
    return outcome->future().get();
  }

  void post(Peer& scheduler, const FrameworkInfo& info, bool reregister = false) {
    if (reregister) {
      ReregisterFrameworkMessage message;
      *message.mutable_framework() = info;
      scheduler.post(master(), message);
    } else {
      RegisterFrameworkMessage message;
      *message.mutable_framework() = info;
      scheduler.post(master(), message);
    }
    runtime_->settle();
  }

  std::string lastError(Peer& scheduler) {
    auto errors = scheduler.received<FrameworkErrorMessage>();
    return errors.empty() ? "" : errors.back().message();
  }

  std::filesystem::path dir_;
};

TEST_F(MasterAuthenticationTest, FrameworkWithTheRightSecretRegistersAsItsPrincipal) {
  start();
  Peer& scheduler = this->scheduler("scheduler-1");
  Outcome outcome = authenticate(scheduler, "alice", "wonderland");
  ASSERT_EQ(Outcome::Kind::kAuthenticated, outcome.kind) << outcome.error;
  EXPECT_EQ("alice", outcome.principal);

  post(scheduler, frameworkInfo());  // no principal in FrameworkInfo: the authenticated one
  ASSERT_EQ(1u, scheduler.count<FrameworkRegisteredMessage>()) << lastError(scheduler);
  json::Value state = get("/state");
  ASSERT_EQ(1u, state["frameworks"].array().size());
  EXPECT_EQ("alice", state["frameworks"].array()[0]["principal"].string());
}

TEST_F(MasterAuthenticationTest, WrongSecretIsRefusedAndTheFrameworkCannotRegister) {
  start();
  Peer& scheduler = this->scheduler("scheduler-1");
  EXPECT_EQ(Outcome::Kind::kRefused, authenticate(scheduler, "alice", "looking-glass").kind);
  EXPECT_EQ(Outcome::Kind::kRefused, authenticate(scheduler, "mallory", "wonderland").kind);

  post(scheduler, frameworkInfo());
  EXPECT_EQ(0u, scheduler.count<FrameworkRegisteredMessage>());
  EXPECT_NE(std::string::npos, lastError(scheduler).find("is not authenticated"))
      << lastError(scheduler);
}

TEST_F(MasterAuthenticationTest, UnauthenticatedFrameworkIsRefusedWithTheReason) {
  start();
  Peer& scheduler = this->scheduler("scheduler-1");
  post(scheduler, frameworkInfo());
  EXPECT_EQ(0u, scheduler.count<FrameworkRegisteredMessage>());
  EXPECT_NE(std::string::npos, lastError(scheduler).find("is not authenticated"))
      << lastError(scheduler);
}

TEST_F(MasterAuthenticationTest, WithoutTheFlagUnauthenticatedFrameworksStillRegister) {
  flags_.authenticate_frameworks = false;
  start();
  Peer& anonymous = this->scheduler("scheduler-1");
  post(anonymous, frameworkInfo());
  EXPECT_EQ(1u, anonymous.count<FrameworkRegisteredMessage>()) << lastError(anonymous);
  // One that authenticates still gets its principal checked.
  Peer& alice = this->scheduler("scheduler-2");
  ASSERT_EQ(Outcome::Kind::kAuthenticated, authenticate(alice, "alice", "wonderland").kind);
  FrameworkInfo info = frameworkInfo();
  info.set_principal("bob");
  post(alice, info);
  EXPECT_EQ(0u, alice.count<FrameworkRegisteredMessage>());
  EXPECT_NE(std::string::npos, lastError(alice).find("does not match authenticated principal"));
}

TEST_F(MasterAuthenticationTest, FrameworkPrincipalOtherThanTheAuthenticatedOneIsRefused) {
  start();
  Peer& scheduler = this->scheduler("scheduler-1");
  ASSERT_EQ(Outcome::Kind::kAuthenticated, authenticate(scheduler, "alice", "wonderland").kind);
  FrameworkInfo info = frameworkInfo();
  info.set_principal("bob");
  post(scheduler, info);
  EXPECT_EQ(0u, scheduler.count<FrameworkRegisteredMessage>());
  EXPECT_EQ("Framework principal 'bob' does not match authenticated principal 'alice'",
            lastError(scheduler));
}

TEST_F(MasterAuthenticationTest, AnotherPrincipalCannotClaimARegisteredFrameworksId) {
  start();
  Peer& alice = this->scheduler("scheduler-alice");
  ASSERT_EQ(Outcome::Kind::kAuthenticated, authenticate(alice, "alice", "wonderland").kind);
  post(alice, frameworkInfo());
  auto registered = alice.received<FrameworkRegisteredMessage>();
  ASSERT_EQ(1u, registered.size());

  // Bob authenticates with his own secret, then claims alice's framework.
  Peer& bob = this->scheduler("scheduler-bob");
  ASSERT_EQ(Outcome::Kind::kAuthenticated, authenticate(bob, "bob", "builder").kind);
  FrameworkInfo claim = frameworkInfo();
  *claim.mutable_id() = registered[0].framework_id();
  post(bob, claim, /*reregister=*/true);
  EXPECT_EQ(0u, bob.count<FrameworkReregisteredMessage>());
  EXPECT_EQ("Changing framework's principal is not allowed.", lastError(bob));
  // Nothing changed for alice: her scheduler is still the framework's.
  EXPECT_EQ(0u, alice.count<FrameworkErrorMessage>());
  json::Value state = get("/state");
  ASSERT_EQ(1u, state["frameworks"].array().size());
  EXPECT_EQ("alice", state["frameworks"].array()[0]["principal"].string());
  EXPECT_EQ(alice.self().toString(), state["frameworks"].array()[0]["pid"].string());

  // Alice herself fails over to a new scheduler that authenticated as her.
  Peer& alice2 = this->scheduler("scheduler-alice-2");
  ASSERT_EQ(Outcome::Kind::kAuthenticated, authenticate(alice2, "alice", "wonderland").kind);
  post(alice2, claim, /*reregister=*/true);
  EXPECT_EQ(1u, alice2.count<FrameworkReregisteredMessage>()) << lastError(alice2);
}

TEST_F(MasterAuthenticationTest, UnauthenticatedSlaveIsNotRegistered) {
  start();
  Peer& slave = this->slave("slave-1");
  RegisterSlaveMessage message;
  message.mutable_slave()->set_hostname("slave-1.example");
  *message.mutable_slave()->mutable_resources() = Resources::parse("cpus:1").value().proto();
  slave.post(master(), message);
  runtime_->settle();
  EXPECT_EQ(0u, slave.count<SlaveRegisteredMessage>());
  EXPECT_EQ(0u, get("/state")["slaves"].array().size());

  EXPECT_EQ(Outcome::Kind::kRefused, authenticate(slave, "alice", "nope").kind);
  slave.post(master(), message);
  runtime_->settle();
  EXPECT_EQ(0u, slave.count<SlaveRegisteredMessage>());

  ASSERT_EQ(Outcome::Kind::kAuthenticated, authenticate(slave, "alice", "wonderland").kind);
  slave.post(master(), message);
  runtime_->settle();
  EXPECT_EQ(1u, slave.count<SlaveRegisteredMessage>());
}

TEST_F(MasterAuthenticationTest, AuthenticationThatStallsTimesOut) {
  flags_.authentication_v0_timeout = 15s;
  start();
  // A client that asks to authenticate and then says nothing more.
  auto peer = std::make_unique<Peer>("stalling");
  peer->accept<AuthenticationMechanismsMessage, FrameworkErrorMessage,
               FrameworkRegisteredMessage>();
  peers_.push_back(runtime_->spawn(std::move(peer)));
  Peer& client = *peers_.back().get();
  AuthenticateMessage authenticate;
  authenticate.set_pid(client.self().toString());
  client.post(master(), authenticate);
  runtime_->settle();
  ASSERT_EQ(1u, client.count<AuthenticationMechanismsMessage>());
  EXPECT_EQ("CRAM-MD5", client.received<AuthenticationMechanismsMessage>()[0].mechanisms(0));

  post(client, frameworkInfo());
  EXPECT_EQ("Re-authentication in progress", lastError(client));

  runtime_->clock().advance(16s);
  runtime_->settle();
  post(client, frameworkInfo());
  EXPECT_NE(std::string::npos, lastError(client).find("is not authenticated"));
}

TEST_F(MasterAuthenticationTest, AnAuthenticateeCannotAuthenticateAnotherHostsPid) {
  start();
  auto peer = std::make_unique<Peer>("elsewhere");
  peer->accept<AuthenticationMechanismsMessage, AuthenticationErrorMessage>();
  peers_.push_back(runtime_->spawn(std::move(peer)));
  Peer& client = *peers_.back().get();
  AuthenticateMessage authenticate;
  authenticate.set_pid("scheduler(1)@198.51.100.77:4242");
  client.post(master(), authenticate);
  runtime_->settle();
  EXPECT_EQ(0u, client.count<AuthenticationMechanismsMessage>());
  ASSERT_EQ(1u, client.count<AuthenticationErrorMessage>());
}

TEST(MasterAuthenticationFlagsTest, UnknownAuthenticatorIsRefusedAtStartUp) {
  internal::master::MasterFlags flags;
  const char* argv[] = {"mesos-master", "--authenticators=kerberos"};
  auto loaded = flags.load("MESOS_", 2, argv);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ("--authenticators: unknown authenticator 'kerberos' (this master supports: crammd5)",
            loaded.error().message);
}

TEST(MasterAuthenticationFlagsTest, AliasesSetTheFlags) {
  internal::master::MasterFlags flags;
  const char* argv[] = {"mesos-master", "--authenticate", "--authenticate_slaves"};
  ASSERT_TRUE(flags.load("MESOS_", 3, argv).ok());
  EXPECT_TRUE(flags.authenticate_frameworks);
  EXPECT_TRUE(flags.authenticate_agents);
  EXPECT_NE(std::string::npos, flags.usage("mesos-master").find("(alias: --authenticate)"));
}

TEST(MasterAuthenticationFlagsTest, UnreadableCredentialsAreRefusedAtStartUp) {
  internal::master::MasterFlags flags;
  const char* argv[] = {"mesos-master", "--credentials=/nonexistent/credentials"};
  auto loaded = flags.load("MESOS_", 2, argv);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(std::string::npos, loaded.error().message.find("/nonexistent/credentials"));
}

}  // namespace
}  // namespace mesos::test
