// Allocator modules (--allocator=/path/to/module.so): loading one, the errors
// for modules that cannot be used, and the fifo example module
// (src/allocator/fifo_module/) called directly, in the mesos-master daemon
// and in a whole cluster.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "allocator/factory.hpp"
#include "master/flags.hpp"
#include "support/cluster.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using allocator::SlaveResources;

FrameworkID framework(const std::string& id) {
  FrameworkID f;
  f.set_value(id);
  return f;
}

SlaveID slave(const std::string& id) {
  SlaveID s;
  s.set_value(id);
  return s;
}

Filters refuseFor(double seconds) {
  Filters filters;
  filters.set_refuse_seconds(seconds);
  return filters;
}

// The fifo module, loaded and driven directly (no actor, a fake clock).
class FifoModuleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = allocator::create(MESOS_FIFO_ALLOCATOR_PATH, allocator::Config{});
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    allocator_ = std::move(loaded).value();
    allocator::Options options;
    options.now = [this] { return now_; };
    options.offer = [this](const FrameworkID& id, std::vector<SlaveResources> offers) {
      for (auto& offer : offers) {
        offers_.push_back({id.value(), offer.slaveId.value(), offer.resources});
      }
    };
    allocator_->initialize(options);
  }

  void addFramework(const std::string& id, const std::string& role = "*") {
    FrameworkInfo info;
    info.set_user("u");
    info.set_name(id);
    info.set_role(role);
    allocator_->addFramework(framework(id), info, {}, true);
  }

  void addSlave(const std::string& id, const std::string& resources) {
    SlaveInfo info;
    info.set_hostname(id);
    allocator_->addSlave(slave(id), info, Resources::parse(resources).value(), {});
  }

  struct Made {
    std::string framework;
    std::string slave;
    Resources resources;
  };

  // The offers made by one allocation, ordered by slave.
  std::vector<Made> allocate() {
    allocator_->allocate();
    auto made = std::exchange(offers_, {});
    std::sort(made.begin(), made.end(),
              [](const Made& a, const Made& b) { return a.slave < b.slave; });
    return made;
  }

  // The framework of `made` declines all of it.
  void decline(const Made& made, std::optional<Filters> filters = std::nullopt) {
    allocator_->recoverResources(framework(made.framework), slave(made.slave), made.resources,
                                 filters);
  }

  allocator::TimePoint now_{};
  std::vector<Made> offers_;
  std::unique_ptr<allocator::Allocator> allocator_;
};

TEST_F(FifoModuleTest, EveryWholeSlaveGoesToTheEarliestFramework) {
  addFramework("first");
  addFramework("second");
  addSlave("s1", "cpus:4;mem:1024");
  addSlave("s2", "cpus:2;mem:512");
  auto made = allocate();
  ASSERT_EQ(2u, made.size());
  EXPECT_EQ("first", made[0].framework);
  EXPECT_EQ("first", made[1].framework);
  EXPECT_EQ(4, made[0].resources.scalar("cpus"));
  EXPECT_EQ(1024, made[0].resources.scalar("mem"));
  EXPECT_EQ(2, made[1].resources.scalar("cpus"));
  // Nothing is free until something is declined; declined without a filter,
  // it goes to the first framework again.
  EXPECT_TRUE(allocate().empty());
  decline(made[0]);
  auto again = allocate();
  ASSERT_EQ(1u, again.size());
  EXPECT_EQ("first", again[0].framework);
  EXPECT_EQ("s1", again[0].slave);
  // The second framework gets resources once the first one is inactive.
  allocator_->deactivateFramework(framework("first"));
  decline(again[0]);
  auto toSecond = allocate();
  ASSERT_EQ(1u, toSecond.size());
  EXPECT_EQ("second", toSecond[0].framework);
  // Active again, the first framework is first again; one added later
  // queues behind both.
  allocator_->activateFramework(framework("first"));
  decline(toSecond[0]);
  addFramework("third");
  auto back = allocate();
  ASSERT_EQ(1u, back.size());
  EXPECT_EQ("first", back[0].framework);
}

TEST_F(FifoModuleTest, RefusalPassesTheSlaveOnUntilItExpires) {
  addFramework("first");
  addFramework("second");
  addSlave("s1", "cpus:4;mem:1024");
  auto made = allocate();
  ASSERT_EQ(1u, made.size());
  ASSERT_EQ("first", made[0].framework);
  decline(made[0], refuseFor(10));
  auto second = allocate();
  ASSERT_EQ(1u, second.size());
  EXPECT_EQ("second", second[0].framework);
  // The second declines without a filter: the first still refuses.
  now_ += 9s;
  decline(second[0]);
  auto stillSecond = allocate();
  ASSERT_EQ(1u, stillSecond.size());
  EXPECT_EQ("second", stillSecond[0].framework);
  // Expired: the first framework is first again.
  now_ += 1s;
  decline(stillSecond[0]);
  auto first = allocate();
  ASSERT_EQ(1u, first.size());
  EXPECT_EQ("first", first[0].framework);
}

TEST_F(FifoModuleTest, RefusalIsLiftedWhenMoreThanTheRefusedIsFree) {
  addFramework("only");
  addSlave("s1", "cpus:4;mem:1024");
  auto made = allocate();
  ASSERT_EQ(1u, made.size());
  // It keeps half for a task and refuses the other half.
  Resources half = Resources::parse("cpus:2;mem:512").value();
  allocator_->recoverResources(framework("only"), slave("s1"), half, refuseFor(3600));
  EXPECT_TRUE(allocate().empty());
  // The task ends: more is free than was refused.
  allocator_->recoverResources(framework("only"), slave("s1"), half, std::nullopt);
  auto lifted = allocate();
  ASSERT_EQ(1u, lifted.size());
  EXPECT_EQ(4, lifted[0].resources.scalar("cpus"));
}

TEST_F(FifoModuleTest, SuppressedFrameworksAreSkippedAndRevivingDropsRefusals) {
  addFramework("first");
  addFramework("second");
  allocator_->suppressOffers(framework("first"));
  addSlave("s1", "cpus:4;mem:1024");
  auto made = allocate();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("second", made[0].framework);
  // Suppressed, then refusing for an hour: reviving undoes both.
  allocator_->reviveOffers(framework("first"));
  decline(made[0]);
  auto first = allocate();
  ASSERT_EQ(1u, first.size());
  ASSERT_EQ("first", first[0].framework);
  decline(first[0], refuseFor(3600));
  auto refused = allocate();
  ASSERT_EQ(1u, refused.size());
  EXPECT_EQ("second", refused[0].framework);
  allocator_->reviveOffers(framework("first"));
  decline(refused[0]);
  auto revived = allocate();
  ASSERT_EQ(1u, revived.size());
  EXPECT_EQ("first", revived[0].framework);
}

TEST_F(FifoModuleTest, RemovedSlavesAndFrameworksAreForgotten) {
  addFramework("first");
  addFramework("second");
  addSlave("s1", "cpus:4;mem:1024");
  addSlave("s2", "cpus:4;mem:1024");
  auto made = allocate();
  ASSERT_EQ(2u, made.size());
  allocator_->removeSlave(slave("s1"));
  // Resources of a removed slave do not come back.
  decline(made[0]);
  EXPECT_TRUE(allocate().empty());
  // The first framework leaves holding s2's offer: it is free for the next.
  allocator_->removeFramework(framework("first"));
  auto next = allocate();
  ASSERT_EQ(1u, next.size());
  EXPECT_EQ("second", next[0].framework);
  EXPECT_EQ("s2", next[0].slave);
}

TEST_F(FifoModuleTest, OnlyTheNamedSlavesAreAllocated) {
  addFramework("first");
  addSlave("s1", "cpus:1;mem:128");
  addSlave("s2", "cpus:1;mem:128");
  allocator_->allocate({slave("s2")});
  ASSERT_EQ(1u, offers_.size());
  EXPECT_EQ("s2", offers_[0].slave);
}

// A slave's resources reserved for a role go only to a framework of that
// role, even one added later; refusals judge what the framework would get.
TEST_F(FifoModuleTest, ReservedResourcesGoOnlyToTheirRole) {
  addFramework("any", "*");
  addFramework("prod", "prod");
  addSlave("s1", "cpus:2;cpus(prod):1;mem:1024");
  std::map<std::string, Made> made;
  for (Made& m : allocate()) made[m.framework] = m;
  ASSERT_EQ(2u, made.size());
  EXPECT_EQ(Resources::parse("cpus:2;mem:1024").value(), made["any"].resources);
  EXPECT_EQ(Resources::parse("cpus(prod):1").value(), made["prod"].resources);
  // "any" refuses its part; prod stops asking and frees its reservation.
  // The slave is all free, yet all "any" would get is what it refused.
  decline(made["any"], refuseFor(10));
  allocator_->suppressOffers(framework("prod"));
  decline(made["prod"]);
  EXPECT_TRUE(allocate().empty());
  now_ += 10s;
  auto unreserved = allocate();
  ASSERT_EQ(1u, unreserved.size());
  EXPECT_EQ("any", unreserved[0].framework);
  EXPECT_EQ(Resources::parse("cpus:2;mem:1024").value(), unreserved[0].resources);
  // The reservation waits for its role, which is not "any"'s.
  EXPECT_TRUE(allocate().empty());
  allocator_->reviveOffers(framework("prod"));
  auto reserved = allocate();
  ASSERT_EQ(1u, reserved.size());
  EXPECT_EQ("prod", reserved[0].framework);
  EXPECT_EQ(Resources::parse("cpus(prod):1").value(), reserved[0].resources);
}

TEST(AllocatorModuleTest, CreateAllocatorLoadsTheModuleFromTheMastersFlags) {
  internal::master::MasterFlags flags;
  flags.allocator = MESOS_FIFO_ALLOCATOR_PATH;
  auto created = internal::master::createAllocator(flags);
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_NE(nullptr, created->get());
}

// One line naming the module and `problem`.
void expectOneLineNaming(const Error& error, const std::string& path, const std::string& problem) {
  EXPECT_EQ(std::string::npos, error.message.find('\n')) << error.message;
  EXPECT_NE(std::string::npos, error.message.find("--allocator")) << error.message;
  EXPECT_NE(std::string::npos, error.message.find(path)) << error.message;
  EXPECT_NE(std::string::npos, error.message.find(problem)) << error.message;
}

TEST(AllocatorModuleTest, MissingFileIsNamed) {
  auto created = allocator::create("/nonexistent/allocator.so", allocator::Config{});
  ASSERT_FALSE(created.ok());
  expectOneLineNaming(created.error(), "/nonexistent/allocator.so", "cannot be loaded");
  // dlerror()'s reason is part of the line.
  expectOneLineNaming(created.error(), "/nonexistent/allocator.so", "No such file");
}

TEST(AllocatorModuleTest, FileThatIsNotASharedLibraryIsNamed) {
  // A real file, but not an ELF shared object (this test's own source).
  std::string path = std::string(MESOS_SOURCE_DIR) + "/tests/allocator/module_test.cpp";
  auto created = allocator::create(path, allocator::Config{});
  ASSERT_FALSE(created.ok());
  expectOneLineNaming(created.error(), path, "cannot be loaded");
}

TEST(AllocatorModuleTest, LibraryWithoutTheFactorySymbolIsNamed) {
  auto created = allocator::create(MESOS_NO_SYMBOL_MODULE_PATH, allocator::Config{});
  ASSERT_FALSE(created.ok());
  expectOneLineNaming(created.error(), MESOS_NO_SYMBOL_MODULE_PATH,
                      "does not export " MESOS_ALLOCATOR_FACTORY_SYMBOL);
}

TEST(AllocatorModuleTest, FactoryRefusalCarriesTheModulesReason) {
  allocator::Config config;
  config.roles = {"r"};
  config.guarantees["r"] = Resources::parse("cpus:1").value();
  auto created = allocator::create(MESOS_FIFO_ALLOCATOR_PATH, config);
  ASSERT_FALSE(created.ok());
  expectOneLineNaming(created.error(), MESOS_FIFO_ALLOCATOR_PATH,
                      "failed to initialise: the fifo allocator does not support --guarantees");
  // The same through the master's flags.
  internal::master::MasterFlags flags;
  flags.allocator = MESOS_FIFO_ALLOCATOR_PATH;
  flags.roles = "r";
  flags.guarantees = "r:cpus:1";
  auto fromFlags = internal::master::createAllocator(flags);
  ASSERT_FALSE(fromFlags.ok());
  EXPECT_EQ(created.error().message, fromFlags.error().message);
}

// The mesos-master daemon with a module. A real process: real-time bounds.
class AllocatorModuleDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(MESOS_MASTER_PATH, X_OK) != 0) GTEST_SKIP() << MESOS_MASTER_PATH << " is not built";
  }

  // Runs mesos-master with `flags`, expecting it to refuse to start: exit
  // status 1 and one line on stderr. Returns that line.
  static std::string refusal(const std::vector<std::string>& flags) {
    std::vector<std::string> args = {MESOS_MASTER_PATH, "--ip=127.0.0.1", "--port=0"};
    args.insert(args.end(), flags.begin(), flags.end());
    ChildResult result = runChild(args, 60s);
    EXPECT_TRUE(result.exitedWith(1)) << result.describe();
    EXPECT_EQ(1, std::count(result.err.begin(), result.err.end(), '\n')) << result.describe();
    EXPECT_TRUE(result.out.empty()) << result.describe();
    EXPECT_EQ(0u, result.err.find("mesos-master: ")) << result.describe();
    return result.err;
  }
};

TEST_F(AllocatorModuleDaemonTest, MissingModuleIsOneLineAndStatusOne) {
  std::string line = refusal({"--allocator=/nonexistent.so"});
  EXPECT_NE(std::string::npos, line.find("/nonexistent.so")) << line;
  EXPECT_NE(std::string::npos, line.find("cannot be loaded")) << line;
}

TEST_F(AllocatorModuleDaemonTest, ModuleRefusingTheConfigurationIsOneLineAndStatusOne) {
  std::string line = refusal({std::string("--allocator=") + MESOS_FIFO_ALLOCATOR_PATH,
                              "--roles=r", "--guarantees=r:cpus:1"});
  EXPECT_NE(std::string::npos, line.find("the fifo allocator does not support --guarantees"))
      << line;
}

TEST_F(AllocatorModuleDaemonTest, MasterStartsWithTheModule) {
  uint16_t port = freePort();
  std::vector<std::string> args = {MESOS_MASTER_PATH, "--ip=127.0.0.1",
                                   "--port=" + std::to_string(port),
                                   std::string("--allocator=") + MESOS_FIFO_ALLOCATOR_PATH};
  pid_t pid = startDaemon(args);
  ASSERT_GT(pid, 0);

  // Healthy once /master/health answers; or it exited (a load failure).
  process::Address master{0x7f000001, port};
  int exited = -1;
  bool healthy = waitUntil(
      [&] { return connectable(master) && httpGet(master, "/master/health") == 200; }, 30s,
      pid, &exited);
  if (exited != -1) FAIL() << "mesos-master exited at start-up, wait status " << exited;
  ::kill(pid, SIGTERM);
  EXPECT_EQ(0, waitForExit(pid, 30s)) << "mesos-master did not stop cleanly on SIGTERM";
  EXPECT_TRUE(healthy) << "mesos-master with the fifo module did not answer /master/health";
}

// The whole offer path with the module as the master's allocator.
TEST(AllocatorModuleClusterTest, CommandTaskFinishesUnderTheFifoAllocator) {
  internal::master::MasterFlags flags;
  flags.allocator = MESOS_FIFO_ALLOCATOR_PATH;
  TestCluster cluster(flags);
  cluster.startSlave();
  RecordingScheduler scheduler;
  auto launched = std::make_shared<std::atomic<bool>>(false);
  scheduler.onOffers = [launched](SchedulerDriver* driver, const std::vector<Offer>& offers) {
    for (const Offer& offer : offers) {
      if (!launched->exchange(true)) {
        driver->launchTasks(offer.id(), {commandTask(offer, "fifo-task", "true")});
      } else {
        driver->declineOffer(offer.id());
      }
    }
  };
  FrameworkInfo info;
  info.set_user("");
  info.set_name("fifo-module");
  MesosSchedulerDriver driver(&scheduler, info, cluster.masterAddress(), true,
                              &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  EXPECT_TRUE(scheduler.awaitKind("offers"));
  EXPECT_TRUE(scheduler.awaitStatus("fifo-task", TASK_FINISHED));
  driver.stop();
  driver.join();
}

}  // namespace
}  // namespace mesos::test
