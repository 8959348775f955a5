// mesos-execute as users run it: a separate process against mesos-master and
// mesos-slave processes. What it prints when no offer fits, --timeout, and
// that --env, --role, --framework_name and --checkpoint reach the task and
// the master. Real processes, so waits have generous real-time bounds.
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
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

// A role written in --resources is kept: the task takes those resources
// only from what is reserved for it, never from unreserved ones.
TEST_F(ExecuteTest, ResourcesWrittenWithARoleComeOnlyFromItsReservation) {
  ChildResult fits = execute({"--name=reserved", "--command=true", "--role=analytics",
                              "--resources=cpus(analytics):1;mem:32"});
  ASSERT_TRUE(fits.exitedWith(0)) << fits.describe();

  // 1.5 reserved cpus: the slave has one, and two unreserved that do not count.
  ChildResult short_ = execute({"--name=more", "--command=true", "--role=analytics",
                                "--resources=cpus(analytics):1.5;mem:32", "--timeout=3secs"});
  EXPECT_TRUE(short_.exitedWith(1)) << short_.describe();
  EXPECT_EQ(1u, count(short_.out, "No offer fits task 'more'")) << short_.describe();
  EXPECT_NE(std::string::npos, short_.out.find("lacks cpus(analytics):0.5")) << short_.describe();
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
           {"--resources=cpus(prod):1;mem:32", "reserved for role 'prod'"},
           {"--uri=http://example.com/x", "--uri"},
           {"--uris=[", "--uris: not JSON"},
           {"--uris=[]", "--uris"},
           {"--uris=[\"/x\"]", "--uris: entry 1 is not an object"},
           {"--uris=[{\"value\":\"/x\",\"executable\":\"yes\"}]", "'executable' must be"},
           {"--uris=[{\"value\":\"/x\"},{\"valu\":\"/y\"}]", "entry 2: unknown field 'valu'"},
           {"--uris=[{\"extract\":false}]", "entry 1 has no 'value'"},
           {"--uris=,", "--uris: no URI given"}}) {
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

TEST_F(ExecuteTest, UrisAreFetchedIntoTheSandboxBeforeTheTaskRuns) {
  // A tarball (extracted) and a script (copied), from this machine.
  std::filesystem::create_directories(dir_ + "/pkg");
  std::ofstream(dir_ + "/pkg/greeting.txt") << "hello from the archive\n";
  std::ofstream(dir_ + "/run.sh") << "echo run.sh ran\n";
  ChildResult tar = runChild({"/bin/tar", "czf", dir_ + "/pkg.tar.gz", "-C", dir_, "pkg"}, 30s);
  ASSERT_TRUE(tar.exitedWith(0)) << tar.describe();

  ChildResult run = execute({"--name=fetching", "--command=cat pkg/greeting.txt && sh run.sh",
                             "--uris=" + dir_ + "/pkg.tar.gz,file://" + dir_ + "/run.sh",
                             "--resources=cpus:0.1;mem:32"});
  EXPECT_TRUE(run.exitedWith(0)) << run.describe();
  std::string out, err;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/slave")) {
    if (entry.path().filename() == "stdout") out += readFile(entry.path().string());
    if (entry.path().filename() == "stderr") err += readFile(entry.path().string());
  }
  EXPECT_NE(std::string::npos, out.find("hello from the archive")) << out;
  EXPECT_NE(std::string::npos, out.find("run.sh ran")) << out;
  // The fetcher's progress is in the sandbox's stderr, before the task's.
  EXPECT_NE(std::string::npos, err.find("mesos-fetcher: fetched")) << err;
}

// docs/mesos-execute.md's example: a script fetched as executable runs as
// ./report.sh; fetched with the defaults (mode 0644) it cannot (126). An
// archive with "extract": false stays packed.
TEST_F(ExecuteTest, UriOptionsSayWhatIsExecutableAndWhatIsExtracted) {
  std::ofstream(dir_ + "/report.sh") << "#!/bin/sh\necho report for $DAY\n";
  std::filesystem::permissions(dir_ + "/report.sh", std::filesystem::perms(0644));
  std::filesystem::create_directories(dir_ + "/pkg");
  std::ofstream(dir_ + "/pkg/greeting.txt") << "hello\n";
  ChildResult tar = runChild({"/bin/tar", "czf", dir_ + "/pkg.tar.gz", "-C", dir_, "pkg"}, 30s);
  ASSERT_TRUE(tar.exitedWith(0)) << tar.describe();

  ChildResult run = execute(
      {"--name=report", "--command=./report.sh && test -f pkg.tar.gz && test ! -e pkg",
       "--env={\"DAY\":\"monday\"}",
       "--uris=[{\"value\":\"" + dir_ + "/report.sh\",\"executable\":true},"
       "{\"value\":\"file://" + dir_ + "/pkg.tar.gz\",\"extract\":false}]",
       "--resources=cpus:0.1;mem:32"});
  EXPECT_TRUE(run.exitedWith(0)) << run.describe();
  std::string out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/slave")) {
    if (entry.path().filename() == "stdout") out += readFile(entry.path().string());
  }
  EXPECT_NE(std::string::npos, out.find("report for monday")) << out;

  ChildResult plain = execute({"--name=plain-report", "--command=./report.sh",
                               "--uris=" + dir_ + "/report.sh", "--resources=cpus:0.1;mem:32"});
  EXPECT_TRUE(plain.exitedWith(126)) << plain.describe();
}

// With nothing answering at --master and no --timeout, it says so once
// instead of waiting in silence.
TEST(ExecuteWaitTest, AMasterThatDoesNotAnswerIsReportedOnce) {
  if (!std::filesystem::exists(MESOS_EXECUTE_PATH)) GTEST_SKIP() << "mesos-execute is not built";
  char scratch[] = "/tmp/mesos-execute-wait.XXXXXX";
  ASSERT_NE(::mkdtemp(scratch), nullptr);
  std::string log = std::string(scratch) + "/execute.log";
  std::string master = "127.0.0.1:" + std::to_string(freePort());
  pid_t pid = startDaemon({MESOS_EXECUTE_PATH, "--master=" + master, "--name=waiting",
                           "--command=true"},
                          log);
  ASSERT_GT(pid, 0);
  bool said = waitUntil([&] { return readFile(log).find("still waiting") != std::string::npos; },
                        30s, pid);
  ::kill(pid, SIGKILL);
  waitForExit(pid, 30s);
  std::string output = readFile(log);
  std::filesystem::remove_all(scratch);
  ASSERT_TRUE(said) << "nothing said within 30 s:\n" << output;
  EXPECT_EQ(1u, count(output, "mesos-execute: still waiting for master " + master +
                                  " to answer after 5secs"))
      << output;
  EXPECT_NE(std::string::npos, output.find("--timeout bounds the wait")) << output;
}

TEST_F(ExecuteTest, AUriThatCannotBeFetchedFailsTheTaskNamingIt) {
  ChildResult run = execute({"--name=unfetchable", "--command=true",
                             "--uris=" + dir_ + "/missing.tar.gz",
                             "--resources=cpus:0.1;mem:32"});
  EXPECT_FALSE(run.exitedWith(0)) << run.describe();
  EXPECT_NE(std::string::npos, run.out.find("TASK_FAILED")) << run.describe();
  EXPECT_NE(std::string::npos, run.out.find("REASON_CONTAINER_LAUNCH_FAILED")) << run.describe();
  EXPECT_NE(std::string::npos, run.out.find("Failed to fetch '" + dir_ + "/missing.tar.gz'"))
      << run.describe();
  // The slave goes on: the next task runs.
  ChildResult next = execute({"--name=after", "--command=true", "--resources=cpus:0.1;mem:32"});
  EXPECT_TRUE(next.exitedWith(0)) << next.describe();
}

TEST_F(ExecuteTest, TheTaskRunsAsItsUserWhoOwnsTheSandbox) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  const std::string user = "mesos-test-user";
  if (::getpwnam(user.c_str()) == nullptr) {
    ChildResult added =
        runChild({"/usr/sbin/useradd", "--system", "--no-create-home", user}, 30s);
    ASSERT_TRUE(added.exitedWith(0)) << added.describe();
  }
  const passwd* entry = ::getpwnam(user.c_str());
  ASSERT_NE(entry, nullptr);
  // The user reaches its sandbox through the test's directory (made 0700).
  std::filesystem::permissions(dir_, std::filesystem::perms(0755));
  ChildResult run = execute({"--name=as-user", "--user=" + user,
                             "--command=echo uid=$(id -u) user=$USER; touch made-by-task",
                             "--resources=cpus:0.1;mem:32"});
  EXPECT_TRUE(run.exitedWith(0)) << run.describe();
  std::string out;
  std::string made;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/slave")) {
    if (entry.path().filename() == "stdout") out += readFile(entry.path().string());
    if (entry.path().filename() == "made-by-task") made = entry.path().string();
  }
  EXPECT_NE(std::string::npos,
            out.find("uid=" + std::to_string(entry->pw_uid) + " user=" + user))
      << out;
  ASSERT_FALSE(made.empty()) << "the task could not write in its sandbox";
  struct stat st {};
  ASSERT_EQ(::stat(made.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, entry->pw_uid);
  ASSERT_EQ(::stat(std::filesystem::path(made).parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, entry->pw_uid) << "the sandbox is not the user's";
}

TEST_F(ExecuteTest, AnUnknownUserFailsTheTaskNamingIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  ChildResult run = execute({"--name=nobody-here", "--user=no-such-user-here",
                             "--command=touch ran-anyway", "--resources=cpus:0.1;mem:32"});
  EXPECT_FALSE(run.exitedWith(0)) << run.describe();
  EXPECT_NE(std::string::npos, run.out.find("TASK_FAILED")) << run.describe();
  EXPECT_NE(std::string::npos, run.out.find("user 'no-such-user-here' does not exist"))
      << run.describe();
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/slave")) {
    EXPECT_NE(entry.path().filename(), "ran-anyway") << "the task ran as someone else";
  }
}

}  // namespace
}  // namespace mesos::test
