// spawnCommand (exec/spawn.hpp): how a task's or a health check's command
// starts. Real child processes, reaped by each test.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "exec/spawn.hpp"
#include "exec/task_cgroup.hpp"
#include "slave/containerizer/isolators/cgroups/cgroups.hpp"

namespace mesos::internal {
namespace {

namespace cgroups = mesos::internal::cgroups;

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

CommandInfo shell(const std::string& value) {
  CommandInfo command;
  command.set_value(value);
  return command;
}

// The exit status of `pid` (-1 when it did not exit normally).
int exitStatus(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -2;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A line of /proc/<pid>/status, e.g. "SigBlk".
std::string statusField(pid_t pid, const std::string& field) {
  std::istringstream status(readFile("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::string value = line.substr(field.size() + 1);
      return value.substr(value.find_first_not_of(" \t"));
    }
  }
  return "";
}

class SpawnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "spawn_test.XXXXXX").string();
    ASSERT_NE(nullptr, ::mkdtemp(pattern.data()));
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  SpawnOptions options(std::vector<std::string> joinFiles = {}) const {
    return SpawnOptions{dir_, {{"PATH", "/usr/bin:/bin"}}, false, std::move(joinFiles)};
  }

  std::string dir_;
};

TEST_F(SpawnTest, TheChildWritesItsPidIntoEveryJoinFileBeforeItRuns) {
  const std::string first = dir_ + "/first";
  const std::string second = dir_ + "/second";
  std::ofstream(first).close();
  std::ofstream(second).close();
  // The shell is exec'd in the child: $$ is the pid spawnCommand returns.
  auto pid = spawnCommand(shell("echo $$ > self; test -s first && test -s second"),
                          options({first, second}));
  ASSERT_TRUE(pid) << pid.error().message;
  ASSERT_EQ(0, exitStatus(*pid));
  EXPECT_EQ(std::to_string(*pid), readFile(first));
  EXPECT_EQ(std::to_string(*pid), readFile(second));
  EXPECT_EQ(std::to_string(*pid) + "\n", readFile(dir_ + "/self"));
}

TEST_F(SpawnTest, AJoinFileThatCannotBeWrittenFailsNamingIt) {
  const std::string missing = dir_ + "/no/such/cgroup.procs";
  auto pid = spawnCommand(shell("touch ran"), options({missing}));
  ASSERT_FALSE(pid);
  EXPECT_NE(std::string::npos, pid.error().message.find("cannot write its pid into " + missing))
      << pid.error().message;
  EXPECT_NE(std::string::npos, pid.error().message.find("No such file or directory"))
      << pid.error().message;
  EXPECT_NE(std::string::npos, pid.error().message.find("in '" + dir_ + "'"))
      << pid.error().message;
  EXPECT_EQ(ENOENT, pid.error().code);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/ran"));
}

TEST_F(SpawnTest, AMissingProgramOrDirectoryIsOneClearError) {
  CommandInfo program;
  program.set_shell(false);
  program.set_value("no-such-program-here");
  auto missing = spawnCommand(program, options());
  ASSERT_FALSE(missing);
  EXPECT_EQ("'no-such-program-here' in '" + dir_ + "': No such file or directory",
            missing.error().message);

  SpawnOptions elsewhere = options();
  elsewhere.directory = dir_ + "/gone";
  auto nowhere = spawnCommand(shell("true"), elsewhere);
  ASSERT_FALSE(nowhere);
  EXPECT_EQ("'/bin/sh' in '" + dir_ +
                "/gone': cannot change into the directory: " + "No such file or directory",
            nowhere.error().message);
}

TEST_F(SpawnTest, AProgramIsSearchedInThePathWithItsArguments) {
  CommandInfo program;
  program.set_shell(false);
  program.set_value("sh");
  for (const char* argument : {"sh", "-c", "exit 7"}) program.add_arguments(argument);
  auto pid = spawnCommand(program, options());
  ASSERT_TRUE(pid) << pid.error().message;
  EXPECT_EQ(7, exitStatus(*pid));
}

TEST_F(SpawnTest, TheChildLeadsItsProcessGroupWithNoSignalBlockedOrIgnored) {
  // Whatever this thread blocks and this process ignores.
  sigset_t blocked;
  sigset_t old;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  ASSERT_EQ(0, ::pthread_sigmask(SIG_BLOCK, &blocked, &old));
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(0, ::sigaction(SIGPIPE, &ignore, &previous));
  CommandInfo sleep;
  sleep.set_shell(false);
  sleep.set_value("sleep");
  for (const char* argument : {"sleep", "30"}) sleep.add_arguments(argument);
  auto pid = spawnCommand(sleep, options());
  ::sigaction(SIGPIPE, &previous, nullptr);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ASSERT_TRUE(pid) << pid.error().message;
  EXPECT_EQ(*pid, ::getpgid(*pid));
  // The exec has happened once spawnCommand returns.
  EXPECT_EQ("sleep", statusField(*pid, "Name"));
  EXPECT_EQ("0000000000000000", statusField(*pid, "SigBlk"));
  EXPECT_EQ("0000000000000000", statusField(*pid, "SigIgn"));
  ::kill(*pid, SIGKILL);
  EXPECT_EQ(-1, exitStatus(*pid));
}

// As the default executor does: a task's cgroup below this process's own.
TEST_F(SpawnTest, TheCommandStartsInTheCgroupOfItsJoinFiles) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups";
  auto layout = cgroups::Layout::detect();
  if (!layout) GTEST_SKIP() << "no cgroups: " << layout.error().message;
  const bool v1 = layout->version() == cgroups::Version::kV1;
  if (v1 && !layout->has("memory")) GTEST_SKIP() << "no memory controller";
  const std::string name = "spawn_test_" + std::to_string(::getpid());
  auto cgroup =
      layout->cgroup(name, v1 ? std::vector<std::string>{"memory"} : std::vector<std::string>{});
  ASSERT_TRUE(cgroup) << cgroup.error().message;
  auto made = cgroups::create(*cgroup);
  if (!made) GTEST_SKIP() << "cannot create a cgroup here: " << made.error().message;

  auto pid = spawnCommand(shell("cat /proc/self/cgroup > cgroup"), options(joinFilesOf(*cgroup)));
  ASSERT_TRUE(pid) << pid.error().message;
  EXPECT_EQ(0, exitStatus(*pid));
  auto memberships = cgroups::parseProcCgroup(readFile(dir_ + "/cgroup"));
  ASSERT_TRUE(memberships) << memberships.error().message;
  const std::string self = *layout->self(v1 ? "memory" : "");
  const std::string expected = (self == "/" ? "" : self) + "/" + name;
  bool found = false;
  for (const cgroups::Membership& membership : *memberships) {
    const bool wanted = v1 ? std::find(membership.controllers.begin(), membership.controllers.end(),
                                       "memory") != membership.controllers.end()
                           : membership.hierarchyId == 0;
    if (!wanted) continue;
    found = true;
    EXPECT_EQ(expected, membership.path);
  }
  EXPECT_TRUE(found) << readFile(dir_ + "/cgroup");
  auto removed = cgroups::remove(*cgroup);
  EXPECT_TRUE(removed) << removed.error().message;
}

}  // namespace
}  // namespace mesos::internal
