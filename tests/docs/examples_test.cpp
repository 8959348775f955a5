// The framework examples of docs/writing-a-framework.md, built from the page
// against the public headers only (tests/docs/CMakeLists.txt), run as their
// own processes on a real cluster: hello-scheduler launches distinct tasks,
// as commands or in hello-executor, and they all finish.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/cluster.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

TEST(DocsExamplesTest, TheHelloSchedulerRunsItsTasksToCompletion) {
  if (!std::filesystem::exists(MESOS_HELLO_SCHEDULER_PATH)) {
    GTEST_SKIP() << MESOS_HELLO_SCHEDULER_PATH << " is not built";
  }
  TestCluster cluster;
  cluster.startSlave("cpus:0.3;mem:256");  // room for 3 of its tasks at a time
  ChildResult result = runChild({MESOS_HELLO_SCHEDULER_PATH, cluster.masterAddress(), "7"}, 120s);
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  for (int i = 1; i <= 7; ++i) {
    std::string line = "hello-" + std::to_string(i) + ": TASK_FINISHED";
    EXPECT_NE(std::string::npos, result.out.find(line)) << line << "\n" << result.describe();
  }
  EXPECT_EQ(std::string::npos, result.out.find("hello-8")) << result.describe();
}

// Given hello-executor's path, hello-scheduler runs its tasks in it: the
// slave starts the executor from the ExecutorInfo the tasks carry, and each
// task finishes with the message only hello-executor sends.
TEST(DocsExamplesTest, TheHelloSchedulerRunsItsTasksInTheHelloExecutor) {
  for (const char* path : {MESOS_HELLO_SCHEDULER_PATH, MESOS_HELLO_EXECUTOR_PATH}) {
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not built";
  }
  TestCluster cluster;
  cluster.startSlave("cpus:0.3;mem:256");
  ChildResult result = runChild(
      {MESOS_HELLO_SCHEDULER_PATH, cluster.masterAddress(), "5", MESOS_HELLO_EXECUTOR_PATH}, 120s);
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  for (int i = 1; i <= 5; ++i) {
    std::string line =
        "hello-" + std::to_string(i) + ": TASK_FINISHED (hello from hello-executor)";
    EXPECT_NE(std::string::npos, result.out.find(line)) << line << "\n" << result.describe();
  }
}

// A scheduler that stops its driver and exits at once still unregisters:
// join() waits for the UnregisterFrameworkMessage to be written. (Before,
// about one run in six lost it and the master found the scheduler gone.)
TEST(DocsExamplesTest, ASchedulerThatExitsRightAfterStoppingStillUnregisters) {
  if (!std::filesystem::exists(MESOS_HELLO_SCHEDULER_PATH)) {
    GTEST_SKIP() << MESOS_HELLO_SCHEDULER_PATH << " is not built";
  }
  TestCluster cluster;
  cluster.startSlave("cpus:1;mem:256");
  constexpr int kRuns = 8;
  for (int i = 0; i < kRuns; ++i) {
    ChildResult result = runChild({MESOS_HELLO_SCHEDULER_PATH, cluster.masterAddress(), "1"}, 120s);
    ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  }
  auto unregistrations = [&] {
    std::string body;
    if (httpGet(cluster.runtime().address(), "/metrics/snapshot", &body) != 200) return -1L;
    auto metrics = json::parse(body);
    return metrics.ok() ? (*metrics)["master/messages_UnregisterFrameworkMessage"].integer() : -1L;
  };
  // Messages from exited processes arrive within moments; the bound is
  // generous.
  waitUntil([&] { return unregistrations() >= kRuns; }, 10s);
  EXPECT_EQ(kRuns, unregistrations());
}

}  // namespace
}  // namespace mesos::test
