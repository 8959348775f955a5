// The launch helper's pause between set-up and executor (--sync_fd): the
// containerizer runs every isolate() while the helper waits, lets it go on
// after, and a container whose isolation failed never runs its executor.
// Through the real mesos-containerizer; no root needed (the isolator below
// asks the helper to join a file, which makes the helper run first).
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "containerizer/launch.hpp"
#include "slave/containerizer/containerizer.hpp"
#include "slave/paths.hpp"

namespace mesos::internal::isolation {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using slave::Containerizer;
using slave::PosixLauncher;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string helperPath() {
  return slave::launcherBinaryPath(MESOS_BINARY_DIR "/src/slave", "mesos-containerizer");
}

// Waits (at most 10 s) for child `pid` to end: its wait status, or -1.
int reap(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0) return -1;
    std::this_thread::sleep_for(10ms);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

// Asks the helper to write its pid to `joinFile` (so the helper runs first
// and waits for isolate()); isolate() notes whether `marker` (which the
// command makes) existed yet, and fails when told to.
class ProbeIsolator : public mesos::isolation::Isolator {
 public:
  ProbeIsolator(std::string joinFile, std::string marker, bool failIsolate)
      : joinFile_(std::move(joinFile)), marker_(std::move(marker)), failIsolate_(failIsolate) {}
  std::string name() const override { return "test/probe"; }
  Result<void> recover(const std::map<std::string, pid_t>&) override { return {}; }
  Result<mesos::isolation::LaunchRequirements> prepare(
      const mesos::isolation::ContainerConfig&) override {
    mesos::isolation::LaunchRequirements requirements;
    requirements.joinFiles = {joinFile_};
    return requirements;
  }
  Result<void> isolate(const ContainerID&, pid_t pid) override {
    isolatedPid = pid;
    markerBeforeIsolate = fs::exists(marker_);
    if (failIsolate_) return Error{"told to fail"};
    return {};
  }
  Result<void> update(const ContainerID&, const Resources&) override { return {}; }
  Result<void> usage(const ContainerID&, ResourceStatistics*) override { return {}; }
  Result<void> kill(const ContainerID&) override { return {}; }
  Result<void> cleanup(const ContainerID&) override {
    cleanedUp = true;
    return {};
  }

  pid_t isolatedPid = -1;
  bool markerBeforeIsolate = false;
  bool cleanedUp = false;

 private:
  const std::string joinFile_;
  const std::string marker_;
  const bool failIsolate_;
};

class LaunchSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(helperPath())) GTEST_SKIP() << "mesos-containerizer is not built";
    char pattern[] = "/tmp/mesos-launch-sync-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ + "/join").close();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::unique_ptr<Containerizer> containerizer(bool failIsolate, ProbeIsolator** probe,
                                               const std::string& helper = helperPath()) {
    auto isolator = std::make_unique<ProbeIsolator>(dir_ + "/join", dir_ + "/marker", failIsolate);
    *probe = isolator.get();
    std::vector<std::unique_ptr<mesos::isolation::Isolator>> isolators;
    isolators.push_back(std::move(isolator));
    return std::make_unique<Containerizer>(std::make_unique<PosixLauncher>(), std::move(isolators),
                                           helper);
  }

  Result<pid_t> launch(Containerizer& containerizer) {
    mesos::isolation::ContainerConfig config;
    config.containerId.set_value("c1");
    config.directory = dir_;
    slave::LaunchSpec spec;
    spec.command.set_value("touch " + dir_ + "/marker");
    spec.directory = dir_;
    spec.environment = {{"PATH", "/usr/bin:/bin"}};
    spec.helperEnvironment = spec.environment;
    spec.stdoutPath = dir_ + "/out";
    spec.stderrPath = dir_ + "/err";
    return containerizer.launch(config, spec);
  }

  std::string dir_;
};

TEST_F(LaunchSyncTest, IsolateRunsBeforeTheExecutorStarts) {
  ProbeIsolator* probe = nullptr;
  auto c = containerizer(false, &probe);
  auto pid = launch(*c);
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  EXPECT_EQ(probe->isolatedPid, *pid);
  EXPECT_FALSE(probe->markerBeforeIsolate) << "the command ran before isolate()";
  int status = reap(*pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << status << ": " << slurp(dir_ + "/err");
  EXPECT_TRUE(fs::exists(dir_ + "/marker")) << slurp(dir_ + "/err");
  // The helper joined first, then paused: its pid is the one isolated.
  EXPECT_EQ(slurp(dir_ + "/join"), std::to_string(*pid));
}

TEST_F(LaunchSyncTest, AFailedIsolateKillsTheHelperBeforeTheExecutorRuns) {
  ProbeIsolator* probe = nullptr;
  auto c = containerizer(true, &probe);
  auto pid = launch(*c);
  ASSERT_FALSE(pid.ok());
  EXPECT_NE(pid.error().message.find("test/probe cannot isolate"), std::string::npos)
      << pid.error().message;
  EXPECT_TRUE(probe->cleanedUp);
  ASSERT_GT(probe->isolatedPid, 0);
  int status = reap(probe->isolatedPid);
  EXPECT_TRUE((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ||
              (WIFEXITED(status) && WEXITSTATUS(status) == 127))
      << status;
  EXPECT_FALSE(fs::exists(dir_ + "/marker")) << "the command ran although isolate() failed";
}

TEST_F(LaunchSyncTest, AHelperThatNeverGetsReadyIsKilledAfterTheTimeout) {
  // A "helper" that ignores its flags and sleeps: it never answers.
  const std::string sleeper = dir_ + "/sleeper";
  std::ofstream(sleeper) << "#!/bin/sh\necho \"$$\" > " << dir_ << "/sleeper.pid\nexec sleep 60\n";
  fs::permissions(sleeper, fs::perms::owner_all);
  ProbeIsolator* probe = nullptr;
  auto c = containerizer(false, &probe, sleeper);
  c->setSyncTimeout(300ms);
  const auto started = std::chrono::steady_clock::now();
  auto pid = launch(*c);
  ASSERT_FALSE(pid.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_NE(pid.error().message.find("did not set the container up within 300 ms"),
            std::string::npos)
      << pid.error().message;
  EXPECT_EQ(probe->isolatedPid, -1) << "isolate() ran without a ready helper";
  EXPECT_TRUE(probe->cleanedUp);
  const std::string pidText = slurp(dir_ + "/sleeper.pid");
  if (!pidText.empty()) {
    int status = reap(std::stoi(pidText));
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  }
}

TEST_F(LaunchSyncTest, AHelperThatEndsEarlySaysWhyInTheError) {
  // The join file is not writable: the helper fails before it is ready.
  fs::remove(dir_ + "/join");
  fs::create_directory(dir_ + "/join");
  ProbeIsolator* probe = nullptr;
  auto c = containerizer(false, &probe);
  auto pid = launch(*c);
  ASSERT_FALSE(pid.ok());
  EXPECT_NE(pid.error().message.find("ended before the container was set up"), std::string::npos)
      << pid.error().message;
  EXPECT_NE(pid.error().message.find("cannot open " + dir_ + "/join"), std::string::npos)
      << pid.error().message;
  EXPECT_EQ(probe->isolatedPid, -1);
}

// The helper alone: a slave that closes the socket instead of answering.
TEST_F(LaunchSyncTest, TheHelperRefusedTheGoAheadExitsWith127SayingWhy) {
  int ends[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  const std::string err = dir_ + "/helper.err";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(ends[1], 4);
    ::fcntl(4, F_SETFD, 0);  // without close-on-exec, even if it was 4 already
    FILE* file = std::freopen(err.c_str(), "w", stderr);
    (void)file;
    const std::string helper = helperPath();
    const std::string marker = "touch " + dir_ + "/marker";
    ::execl(helper.c_str(), helper.c_str(), "--sync_fd=4", "--", "/bin/sh", "-c", marker.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(126);
  }
  ::close(ends[1]);
  char byte = 0;
  ASSERT_EQ(::recv(ends[0], &byte, 1, 0), 1);
  EXPECT_EQ(byte, 'R');
  ::close(ends[0]);
  int status = reap(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 127) << status;
  EXPECT_NE(slurp(err).find("the slave did not let the container start"), std::string::npos)
      << slurp(err);
  EXPECT_FALSE(fs::exists(dir_ + "/marker"));
}

TEST_F(LaunchSyncTest, TheSyncDescriptorDoesNotReachTheProgram) {
  int ends[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  const std::string out = dir_ + "/fds";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(ends[1], 4);
    ::fcntl(4, F_SETFD, 0);
    const std::string helper = helperPath();
    const std::string list = "ls -l /proc/self/fd/ > " + out;
    ::execl(helper.c_str(), helper.c_str(), "--sync_fd=4", "--", "/bin/sh", "-c", list.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(126);
  }
  ::close(ends[1]);
  char byte = 0;
  ASSERT_EQ(::recv(ends[0], &byte, 1, 0), 1);
  ASSERT_EQ(::send(ends[0], "G", 1, MSG_NOSIGNAL), 1);
  ::close(ends[0]);
  int status = reap(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::string fds = slurp(out);
  // No socket among the program's descriptors (the numbers themselves
  // depend on what the test's runner left open: ctest leaves some).
  EXPECT_NE(fds.find(" 2 -> "), std::string::npos) << fds;
  EXPECT_EQ(fds.find("socket:"), std::string::npos) << fds;
}

}  // namespace
}  // namespace mesos::internal::isolation
