// namespaces/pid and namespaces/ipc: real containers through the real launch
// helper (mesos-containerizer --unshare), as root.
#include <signal.h>
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
#include "slave/containerizer/isolators/isolators.hpp"
#include "slave/paths.hpp"

namespace mesos::internal::isolation {
namespace {

using namespace std::chrono_literals;
using slave::Containerizer;
using slave::PosixLauncher;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// The processes of the machine whose pid namespace is `ns` ("pid:[N]").
std::vector<pid_t> processesIn(const std::string& ns) {
  std::vector<pid_t> pids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code link;
    auto target = std::filesystem::read_symlink(entry.path() / "ns" / "pid", link);
    if (!link && target.string() == ns) pids.push_back(std::stoi(name));
  }
  return pids;
}

class NamespacesIsolatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "namespaces need root";
    char pattern[] = "/tmp/mesos-namespaces-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    IsolationOptions options;
    options.isolation = "namespaces/pid,namespaces/ipc,posix/cpu";
    auto isolators = createIsolators(options);
    ASSERT_TRUE(isolators.ok()) << isolators.error().message;
    std::string helper =
        slave::launcherBinaryPath(MESOS_BINARY_DIR "/src/slave", "mesos-containerizer");
    containerizer_ = std::make_unique<Containerizer>(std::make_unique<PosixLauncher>(),
                                                     std::move(isolators).value(), helper);
    ASSERT_TRUE(containerizer_->recover({}).ok());
  }

  void TearDown() override {
    if (containerizer_) {
      for (auto& [id, pid] : launched_) containerizer_->destroy(id, pid);
    }
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  Launched launch(const std::string& id, const std::string& command) {
    Launched launched = launchShell(*containerizer_, dir_, id, command, "cpus:0.1;mem:32");
    ContainerID containerId;
    containerId.set_value(id);
    if (launched.pid > 0) launched_.emplace_back(containerId, launched.pid);
    return launched;
  }

  std::string dir_;
  std::unique_ptr<Containerizer> containerizer_;
  std::vector<std::pair<ContainerID, pid_t>> launched_;
};

TEST_F(NamespacesIsolatorTest, OneIsolatorServesBothNames) {
  IsolationOptions options;
  options.isolation = "namespaces/ipc,namespaces/pid";
  auto isolators = createIsolators(options);
  ASSERT_TRUE(isolators.ok()) << isolators.error().message;
  ASSERT_EQ(isolators->size(), 1u);
  EXPECT_EQ(isolators->front()->name(), "namespaces/ipc,namespaces/pid");
}

TEST_F(NamespacesIsolatorTest, TheExecutorIsPidOneAndSeesOnlyItsContainer) {
  Launched launched = launch(
      "alone",
      "echo $$ > pid; ls /proc | grep -c '^[0-9]' > count; readlink /proc/self/ns/ipc > ipc; "
      "readlink /proc/1/ns/pid > ns");
  ASSERT_GT(launched.pid, 0);
  ASSERT_TRUE(launched.exit.await(30s));
  EXPECT_TRUE(WIFEXITED(launched.exit.get()) && WEXITSTATUS(launched.exit.get()) == 0)
      << slurp(dir_ + "/alone.err");
  EXPECT_EQ(trimmed(slurp(dir_ + "/pid")), "1") << slurp(dir_ + "/alone.err");
  // sh, ls and grep at most: nothing of the host.
  const std::string count = trimmed(slurp(dir_ + "/count"));
  ASSERT_FALSE(count.empty()) << slurp(dir_ + "/alone.err");
  EXPECT_LE(std::stoi(count), 3);
  std::error_code ec;
  const std::string hostIpc = std::filesystem::read_symlink("/proc/self/ns/ipc", ec).string();
  const std::string hostPid = std::filesystem::read_symlink("/proc/self/ns/pid", ec).string();
  EXPECT_NE(trimmed(slurp(dir_ + "/ipc")), hostIpc);
  EXPECT_NE(trimmed(slurp(dir_ + "/ns")), hostPid);
  // The container's /proc was its own: the host's is still the host's.
  EXPECT_TRUE(std::filesystem::exists("/proc/" + std::to_string(::getpid())));
}

TEST_F(NamespacesIsolatorTest, WhatTheExecutorLeftBehindDiesWithIt) {
  // A daemon that left the executor's process group and session.
  Launched launched = launch("leaver",
                             "readlink /proc/self/ns/pid > ns; setsid sleep 1000 & "
                             "while [ ! -s ns ]; do :; done; exit 3");
  ASSERT_GT(launched.pid, 0);
  ASSERT_TRUE(launched.exit.await(30s));
  // The executor's status, passed on by the helper outside the namespace.
  ASSERT_TRUE(WIFEXITED(launched.exit.get())) << slurp(dir_ + "/leaver.err");
  EXPECT_EQ(WEXITSTATUS(launched.exit.get()), 3);
  const std::string ns = trimmed(slurp(dir_ + "/ns"));
  ASSERT_FALSE(ns.empty());
  std::error_code ec;
  ASSERT_NE(ns, std::filesystem::read_symlink("/proc/self/ns/pid", ec).string());
  // The kernel killed the namespace's other processes when its first
  // process ended: the sleep is gone (a real process: a bounded wait).
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!processesIn(ns).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(processesIn(ns).empty()) << "the daemon outlived its container";
}

TEST_F(NamespacesIsolatorTest, ASignalToTheContainerReachesItsExecutor) {
  // pid 1 of a namespace gets only the signals it handles: the executor
  // traps SIGTERM and says so.
  Launched launched = launch("trapper",
                             "trap 'echo got-term > term; exit 0' TERM; echo ready > ready; "
                             "while :; do sleep 0.05; done");
  ASSERT_GT(launched.pid, 0);
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (slurp(dir_ + "/ready").empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_FALSE(slurp(dir_ + "/ready").empty()) << slurp(dir_ + "/trapper.err");
  ContainerID id;
  id.set_value("trapper");
  containerizer_->kill(id, launched.pid, SIGTERM);
  ASSERT_TRUE(launched.exit.await(30s));
  EXPECT_TRUE(WIFEXITED(launched.exit.get())) << slurp(dir_ + "/trapper.err");
  EXPECT_EQ(trimmed(slurp(dir_ + "/term")), "got-term");
}

TEST_F(NamespacesIsolatorTest, SigkillOfTheHelperEndsTheNamespace) {
  Launched launched = launch("killed", "readlink /proc/self/ns/pid > ns; sleep 1000");
  ASSERT_GT(launched.pid, 0);
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (trimmed(slurp(dir_ + "/ns")).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  const std::string ns = trimmed(slurp(dir_ + "/ns"));
  ASSERT_FALSE(ns.empty()) << slurp(dir_ + "/killed.err");
  ASSERT_EQ(::kill(launched.pid, SIGKILL), 0);  // the helper alone, not its group
  ASSERT_TRUE(launched.exit.await(30s));
  EXPECT_TRUE(WIFSIGNALED(launched.exit.get()));
  deadline = std::chrono::steady_clock::now() + 10s;
  while (!processesIn(ns).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(processesIn(ns).empty()) << "the namespace outlived its helper";
}

}  // namespace
}  // namespace mesos::internal::isolation
