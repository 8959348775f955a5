// mesos-execute as users run it: a separate process against mesos-master and
// mesos-slave processes. What it prints when no offer fits, --timeout, and
// that --env, --role, --framework_name and --checkpoint reach the task and
// the master. Real processes, so waits have generous real-time bounds.
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A master and one slave with cpus:2;mem:512;disk:512 and one cpu reserved
// for role "analytics".
class ExecuteTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    master_ = startMaster({"--allocation_interval=100ms"});
    masterFlag_ = "--master=" + master_.toString();
    startSlave(master_, "slave", {"--resources=cpus(analytics):1;cpus:2;mem:512;disk:512"});
    bool registered = waitUntil([&] { return metric("master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  int64_t metric(const std::string& name) { return DaemonsFixture::metric(master_, name); }

  ChildResult execute(const std::vector<std::string>& flags) {
    std::vector<std::string> args = {MESOS_EXECUTE_PATH, masterFlag_};
    args.insert(args.end(), flags.begin(), flags.end());
    return runChild(args, 90s);
  }

  // The one framework the master has seen end.
  json::Value completedFramework() {
    json::Value completed = getJson(master_, "/master/state")["completed_frameworks"];
    if (!completed.isArray() || completed.array().size() != 1) return json::Value();
    return completed.array()[0];
  }

  process::Address master_;
  std::string masterFlag_;
};

TEST_F(ExecuteTest, ATaskThatFitsNoOfferIsReportedOnceNamingTheLargestOffer) {
  std::string log = dir_ + "/execute.log";
  pid_t pid = startDaemon({MESOS_EXECUTE_PATH, masterFlag_, "--name=huge",
                           "--command=true", "--resources=cpus:64;mem:128"},
                          log);
  ASSERT_GT(pid, 0);
  // Two offers declined: the second came after the 5 s the first decline
  // filtered the slave for.
  bool declinedTwice = waitUntil([&] { return metric("master/offers_declined") >= 2; }, 30s, pid);
  kill(pid, SIGKILL);
  waitForExit(pid, 30s);
  ASSERT_TRUE(declinedTwice) << "mesos-execute did not decline two offers within 30 s:\n"
                             << readFile(log);

  std::string output = readFile(log);
  EXPECT_EQ(1u, count(output, "No offer fits task 'huge'")) << output;
  // The slave's unreserved share is the largest offer; cpus are short.
  EXPECT_NE(std::string::npos, output.find("has cpus(*):2;")) << output;
  EXPECT_NE(std::string::npos, output.find("lacks cpus(*):62.")) << output;
}

TEST_F(ExecuteTest, TimeoutEndsTheWaitWithAnError) {
  auto started = std::chrono::steady_clock::now();
  ChildResult run = execute({"--name=huge", "--command=true", "--resources=cpus:64;mem:128",
                             "--timeout=2secs"});
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_GE(std::chrono::steady_clock::now() - started, 2s);
  EXPECT_NE(std::string::npos, run.err.find("within 2secs (--timeout); giving up"))
      << run.describe();
  EXPECT_LE(count(run.out, "No offer fits task 'huge'"), 1u) << run.describe();
}

TEST_F(ExecuteTest, EnvReachesTheTask) {
  ChildResult run = execute({"--name=greet", "--env={\"GREETING\":\"hello there\",\"N\":\"1\"}",
                             "--command=echo \"GREETING=$GREETING N=$N\"; "
                             "test \"$GREETING\" = 'hello there'",
                             "--resources=cpus:0.1;mem:32"});
  EXPECT_TRUE(run.exitedWith(0)) << run.describe();

  std::string printed;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/slave")) {
    if (entry.path().filename() == "stdout") printed += readFile(entry.path().string());
  }
  EXPECT_NE(std::string::npos, printed.find("GREETING=hello there N=1")) << printed;

  // The same command without the variable fails: the check above can fail.
  ChildResult without = execute({"--name=bare", "--command=test \"$GREETING\" = 'hello there'",
                                 "--resources=cpus:0.1;mem:32"});
  EXPECT_TRUE(without.exitedWith(1)) << without.describe();
}

TEST_F(ExecuteTest, RoleFrameworkNameCheckpointAndPrincipalReachTheMaster) {
  // 2.5 cpus: the reserved one and 1.5 unreserved.
  ChildResult run = execute({"--name=report", "--command=true", "--role=analytics",
                             "--framework_name=nightly reports", "--checkpoint",
                             "--principal=ops", "--resources=cpus:2.5;mem:32"});
  ASSERT_TRUE(run.exitedWith(0)) << run.describe();

  json::Value framework = completedFramework();
  ASSERT_TRUE(framework.isObject()) << "expected one completed framework";
  EXPECT_EQ(json::Value("analytics"), framework["role"]);
  EXPECT_EQ(json::Value("nightly reports"), framework["name"]);
  EXPECT_EQ(json::Value(true), framework["checkpoint"]);
  EXPECT_EQ(json::Value("ops"), framework["principal"]);
}

TEST_F(ExecuteTest, DefaultsAreApaches) {
  ChildResult run = execute({"--name=plain", "--command=true", "--resources=cpus:0.1;mem:32"});
  ASSERT_TRUE(run.exitedWith(0)) << run.describe();
  json::Value framework = completedFramework();
  ASSERT_TRUE(framework.isObject()) << "expected one completed framework";
  EXPECT_EQ(json::Value("mesos-execute instance"), framework["name"]);
  EXPECT_EQ(json::Value("*"), framework["role"]);
  EXPECT_EQ(json::Value(false), framework["checkpoint"]);
}

TEST(ExecuteFlagsTest, BadFlagsGetOneLineAndStatusOne) {
  if (!std::filesystem::exists(MESOS_EXECUTE_PATH)) GTEST_SKIP() << "mesos-execute is not built";
  const std::vector<std::string> base = {MESOS_EXECUTE_PATH, "--master=127.0.0.1:1", "--name=x",
                                         "--command=true"};
  for (const auto& [flag, named] : std::vector<std::pair<std::string, std::string>>{
           {"--env=not json", "--env"},
           {"--env=[\"A\"]", "--env"},
           {"--env={\"A\":1}", "'A' is not a string"},
           {"--env={\"A=B\":\"c\"}", "'A=B' is not a variable name"},
           {"--env=file:///nonexistent/env.json", "cannot read '/nonexistent/env.json'"},
           {"--timeout=0secs", "--timeout"},
           {"--timeout=5", "--timeout"},
           {"--role=", "--role"},
           {"--resources=cpus:lots", "--resources"},
           {"--uri=http://example.com/x", "--uri"}}) {
    std::vector<std::string> args = base;
    args.push_back(flag);
    ChildResult run = runChild(args, 30s);
    EXPECT_TRUE(run.exitedWith(1)) << flag << ": " << run.describe();
    std::string err = run.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    EXPECT_EQ(std::string::npos, err.find('\n')) << flag << ": " << run.describe();
    EXPECT_NE(std::string::npos, err.find(named)) << flag << ": " << run.describe();
  }
}

}  // namespace
}  // namespace mesos::test
