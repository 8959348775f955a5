// cgroups isolation end to end: mesos-master and mesos-slave processes, the
// slave with --isolation=cgroups/cpu,cgroups/mem, and mesos-execute running
// a task that eats memory past its limit: the framework gets TASK_FAILED
// from the slave with the memory reason, and no cgroup is left behind.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "isolation/cgroups/cgroups.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace cgroups = mesos::internal::cgroups;

class IsolationTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups";
    auto layout = cgroups::Layout::detect();
    if (!layout) GTEST_SKIP() << "no cgroups: " << layout.error().message;
    for (const char* controller : {"cpu", "memory"}) {
      if (!layout->has(controller)) GTEST_SKIP() << "no cgroup " << controller << " controller";
    }
    layout_ = std::make_unique<cgroups::Layout>(std::move(layout).value());
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    root_ = "mesos_it_" + std::to_string(::getpid());
    master_ = startMaster({"--allocation_interval=100ms"});
    startSlave(master_, "slave",
               {"--resources=cpus:2;mem:512;disk:512", "--isolation=cgroups/cpu,cgroups/mem",
                "--cgroups_root=" + root_});
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  void TearDown() override {
    DaemonsFixture::TearDown();
    if (!layout_ || root_.empty()) return;
    for (const char* controller : {"cpu", "cpuacct", "memory", "freezer"}) {
      if (!layout_->has(controller)) continue;
      if (auto root = layout_->cgroup(root_, {controller})) (void)cgroups::remove(*root);
    }
  }

  std::unique_ptr<cgroups::Layout> layout_;
  std::string root_;
  process::Address master_;
};

TEST_F(IsolationTest, ATaskPastItsMemoryLimitFailsWithTheMemoryReason) {
  ChildResult run = runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                              "--name=hog", "--command=tail /dev/zero",
                              "--resources=cpus:0.1;mem:48"},
                             90s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.out.find("Received status update TASK_FAILED for task hog: Memory limit exceeded"),
            std::string::npos)
      << run.describe();
  EXPECT_NE(run.out.find("reason: REASON_CONTAINER_LIMITATION_MEMORY"), std::string::npos)
      << run.describe();
  EXPECT_NE(run.out.find("source: SOURCE_SLAVE"), std::string::npos) << run.describe();

  // The container's cgroups are gone (the root stays until the slave's
  // next start or the test's cleanup).
  auto root = layout_->cgroup(root_, {"memory"});
  ASSERT_TRUE(root.ok());
  bool empty = waitUntil(
      [&] {
        for (const auto& entry : std::filesystem::directory_iterator(root->dir("memory"))) {
          if (entry.is_directory()) return false;
        }
        return true;
      },
      30s);
  EXPECT_TRUE(empty) << "a container's cgroup was left under " << root->dir("memory");
}

}  // namespace
}  // namespace mesos::test
