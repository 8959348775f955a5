// The scheduler driver constructed with a Credential against a real master
// that requires authentication (--authenticate_frameworks, a --credentials
// file): right, wrong and missing credentials, and a master that never
// answers (the driver retries). Paused clock, one runtime.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mesos/scheduler.hpp"
#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

// Records registration and errors; ignores the rest.
class AuthScheduler : public Scheduler {
 public:
  void registered(SchedulerDriver*, const FrameworkID& id, const MasterInfo&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    frameworkId_ = id.value();
  }
  void reregistered(SchedulerDriver*, const MasterInfo&) override {}
  void disconnected(SchedulerDriver*) override {}
  void resourceOffers(SchedulerDriver*, const std::vector<Offer>&) override {}
  void offerRescinded(SchedulerDriver*, const OfferID&) override {}
  void statusUpdate(SchedulerDriver*, const TaskStatus&) override {}
  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string&) override {}
  void slaveLost(SchedulerDriver*, const SlaveID&) override {}
  void executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID&, int) override {}
  void error(SchedulerDriver*, const std::string& message) override {
    std::lock_guard<std::mutex> lock(mutex_);
    errors_.push_back(message);
  }

  std::string frameworkId() {
    std::lock_guard<std::mutex> lock(mutex_);
    return frameworkId_;
  }
  std::vector<std::string> errors() {
    std::lock_guard<std::mutex> lock(mutex_);
    return errors_;
  }

 private:
  std::mutex mutex_;
  std::string frameworkId_;
  std::vector<std::string> errors_;
};

class DriverAuthenticationTest : public MasterFixture {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("driver_authentication_test." + std::to_string(::getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::string path = (dir_ / "credentials").string();
    std::ofstream(path) << "alice wonderland\nbob builder\n";  // the text form
    std::filesystem::permissions(path, std::filesystem::perms::owner_read |
                                           std::filesystem::perms::owner_write);
    flags_.credentials = path;
    flags_.authenticate_frameworks = true;
  }
  void TearDown() override {
    MasterFixture::TearDown();
    std::filesystem::remove_all(dir_);
  }

  static FrameworkInfo info() {
    FrameworkInfo info;
    info.set_name("authenticating framework");
    return info;
  }
  static Credential credential(const std::string& principal, const std::string& secret) {
    Credential credential;
    credential.set_principal(principal);
    credential.set_secret(secret);
    return credential;
  }

  std::filesystem::path dir_;
};

TEST_F(DriverAuthenticationTest, RightCredentialRegistersWithItsPrincipal) {
  start();
  AuthScheduler scheduler;
  MesosSchedulerDriver driver(&scheduler, info(), master().toString(), true,
                              credential("alice", "wonderland"), runtime_.get());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  runtime_->settle();
  ASSERT_FALSE(scheduler.frameworkId().empty())
      << (scheduler.errors().empty() ? "" : scheduler.errors().back());
  json::Value state = get("/state");
  ASSERT_EQ(1u, state["frameworks"].array().size());
  EXPECT_EQ("alice", state["frameworks"].array()[0]["principal"].string());
  driver.stop();
  runtime_->settle();
}

TEST_F(DriverAuthenticationTest, WrongSecretAbortsTheDriverThroughError) {
  start();
  AuthScheduler scheduler;
  MesosSchedulerDriver driver(&scheduler, info(), master().toString(), true,
                              credential("alice", "mad-hatter"), runtime_.get());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  runtime_->settle();
  EXPECT_TRUE(scheduler.frameworkId().empty());
  ASSERT_EQ(std::vector<std::string>{"Master refused authentication"}, scheduler.errors());
  EXPECT_EQ(DRIVER_ABORTED, driver.join());
  EXPECT_EQ(0u, get("/state")["frameworks"].array().size());
}

TEST_F(DriverAuthenticationTest, MissingCredentialIsRefusedWithTheReason) {
  start();
  AuthScheduler scheduler;
  MesosSchedulerDriver driver(&scheduler, info(), master().toString(), true, runtime_.get());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  runtime_->settle();
  EXPECT_TRUE(scheduler.frameworkId().empty());
  ASSERT_EQ(1u, scheduler.errors().size());
  EXPECT_NE(std::string::npos, scheduler.errors()[0].find("is not authenticated"))
      << scheduler.errors()[0];
  EXPECT_EQ(DRIVER_ABORTED, driver.join());
}

TEST_F(DriverAuthenticationTest, FrameworkPrincipalOtherThanTheCredentialsIsRefused) {
  start();
  AuthScheduler scheduler;
  FrameworkInfo claimed = info();
  claimed.set_principal("bob");
  MesosSchedulerDriver driver(&scheduler, claimed, master().toString(), true,
                              credential("alice", "wonderland"), runtime_.get());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  runtime_->settle();
  ASSERT_EQ(1u, scheduler.errors().size());
  EXPECT_EQ("Framework principal 'bob' does not match authenticated principal 'alice'",
            scheduler.errors()[0]);
}

TEST_F(DriverAuthenticationTest, AuthenticationThatGetsNoAnswerIsRetried) {
  start();
  // The master's answer to the first AuthenticateMessage is lost.
  auto dropped = runtime_->hooks().drop<internal::AuthenticationMechanismsMessage>();
  AuthScheduler scheduler;
  MesosSchedulerDriver driver(&scheduler, info(), master().toString(), true,
                              credential("bob", "builder"), runtime_.get());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  runtime_->settle();
  EXPECT_TRUE(scheduler.frameworkId().empty());
  runtime_->hooks().remove(dropped);
  // The driver gives the attempt at most 5 s + 2 * 1 s (the defaults).
  runtime_->clock().advance(7s);
  runtime_->settle();
  EXPECT_FALSE(scheduler.frameworkId().empty());
  EXPECT_TRUE(scheduler.errors().empty());
  driver.stop();
  runtime_->settle();
}

}  // namespace
}  // namespace mesos::test
