// MesosSchedulerDriver::guarantee() against a real master configured with
// --guarantees (paused clock, one runtime).
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "master/master.hpp"
#include "mesos/scheduler.hpp"
#include "process/runtime.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using namespace mesos::internal;

// Records what guarantee() says inside registered(); ignores the rest.
class GuaranteeScheduler : public Scheduler {
 public:
  void registered(SchedulerDriver* driver, const FrameworkID&, const MasterInfo&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    registered_ = true;
    atRegistration_ = static_cast<MesosSchedulerDriver*>(driver)->guarantee();
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
    error_ = message;
  }

  bool registered() {
    std::lock_guard<std::mutex> lock(mutex_);
    return registered_;
  }
  std::vector<Resource> atRegistration() {
    std::lock_guard<std::mutex> lock(mutex_);
    return atRegistration_;
  }
  std::string error() {
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
  }

 private:
  std::mutex mutex_;
  bool registered_ = false;
  std::vector<Resource> atRegistration_;
  std::string error_;
};

class DriverGuaranteeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    process::Runtime::Options options;
    options.pauseClock = true;
    runtime_ = std::move(process::Runtime::create(options)).value();
    master::MasterFlags flags;
    flags.guarantees = "a:cpus:2;mem:1024";
    auto allocator = master::createAllocator(flags);
    ASSERT_TRUE(allocator.ok()) << allocator.error().message;
    master_ = runtime_->spawn<master::Master>(flags, std::move(allocator).value());
    runtime_->settle();
  }

  void TearDown() override {
    master_.reset();
    runtime_.reset();
  }

  std::unique_ptr<MesosSchedulerDriver> driver(GuaranteeScheduler& scheduler,
                                               const std::string& role) {
    FrameworkInfo info;
    info.set_name("guarantee test");
    info.set_role(role);
    return std::make_unique<MesosSchedulerDriver>(&scheduler, info, master_.pid().toString(),
                                                  true, runtime_.get());
  }

  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<master::Master> master_;
};

TEST_F(DriverGuaranteeTest, GuaranteeOfTheRoleAfterRegistration) {
  GuaranteeScheduler scheduler;
  auto d = driver(scheduler, "a");
  EXPECT_TRUE(d->guarantee().empty()) << "nothing before registration";
  ASSERT_EQ(DRIVER_RUNNING, d->start());
  runtime_->settle();
  ASSERT_TRUE(scheduler.registered()) << scheduler.error();

  Resources guarantee;
  for (const Resource& resource : d->guarantee()) guarantee += Resources(resource);
  EXPECT_EQ(2, guarantee.scalar("cpus"));
  EXPECT_EQ(1024, guarantee.scalar("mem"));

  // Already set when registered() ran.
  Resources seen;
  for (const Resource& resource : scheduler.atRegistration()) seen += Resources(resource);
  EXPECT_EQ(guarantee, seen);
  d->stop();
  runtime_->settle();
}

TEST_F(DriverGuaranteeTest, NoGuaranteeForARoleWithoutOne) {
  GuaranteeScheduler scheduler;
  auto d = driver(scheduler, "b");
  ASSERT_EQ(DRIVER_RUNNING, d->start());
  runtime_->settle();
  ASSERT_TRUE(scheduler.registered()) << scheduler.error();
  EXPECT_TRUE(d->guarantee().empty());
  d->stop();
  runtime_->settle();
}

}  // namespace
}  // namespace mesos::test
