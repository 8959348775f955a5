// The posix isolators and the containerizer around them: real processes,
// measured from /proc.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "slave/containerizer/isolators/isolators.hpp"
#include "process/future.hpp"
#include "slave/containerizer/containerizer.hpp"
#include "slave/reaper.hpp"
#include "containerizer/launch.hpp"

namespace mesos::internal::isolation {
namespace {

using mesos::isolation::ContainerConfig;
using slave::Containerizer;
using slave::LaunchSpec;
using slave::PosixLauncher;
using slave::Reaper;

TEST(IsolationFlagTest, AliasesExpandInOrderWithoutRepeats) {
  auto names = expandIsolation("posix/mem,posix");
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_EQ(*names, (std::vector<std::string>{"posix/mem", "posix/cpu"}));
  auto defaults = expandIsolation(IsolationOptions{}.isolation);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(*defaults, (std::vector<std::string>{"posix/cpu", "posix/mem"}));
}

TEST(IsolationFlagTest, OneIsolatorServesAFamily) {
  IsolationOptions options;
  options.isolation = "posix/mem,posix/cpu";
  auto isolators = createIsolators(options);
  ASSERT_TRUE(isolators.ok()) << isolators.error().message;
  ASSERT_EQ(isolators->size(), 1u);  // one /proc scan a measurement, not two
  EXPECT_EQ(isolators->front()->name(), "posix/cpu,posix/mem");
}

TEST(IsolationFlagTest, UnknownOrEmptyIsOneClearLine) {
  auto unknown = expandIsolation("posix/cpu,cgroups/nosuch");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown isolator 'cgroups/nosuch'"), std::string::npos)
      << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("posix/mem"), std::string::npos);
  EXPECT_FALSE(expandIsolation(",").ok());
}

class ContainerizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/mesos-containerizer-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    IsolationOptions options;
    auto isolators = createIsolators(options);
    ASSERT_TRUE(isolators.ok()) << isolators.error().message;
    containerizer_ = std::make_unique<Containerizer>(std::make_unique<PosixLauncher>(),
                                                     std::move(isolators).value());
  }
  void TearDown() override {
    for (auto& [id, pid] : launched_) containerizer_->destroy(id, pid);
    std::filesystem::remove_all(dir_);
  }

  // Launches `command` (sh -c) in container `id` holding `resources`.
  pid_t launch(const std::string& id, const std::string& command,
               std::vector<std::string> prefix = {}) {
    Launched launched =
        launchShell(*containerizer_, dir_, id, command, "cpus:0.5;mem:64", std::move(prefix));
    if (launched.pid > 0) launched_.emplace_back(this->id(id), launched.pid);
    exits_[id] = launched.exit;
    return launched.pid;
  }

  ContainerID id(const std::string& value) {
    ContainerID containerId;
    containerId.set_value(value);
    return containerId;
  }

  std::string dir_;
  std::unique_ptr<Containerizer> containerizer_;
  std::vector<std::pair<ContainerID, pid_t>> launched_;
  std::map<std::string, process::Future<int>> exits_;
};

TEST_F(ContainerizerTest, PosixUsageCountsTheWholeTreeAndTheLimitsComeFromResources) {
  Resources resources = *Resources::parse("cpus:0.5;mem:64");
  EXPECT_EQ(containerizer_->isolation(), "posix/cpu,posix/mem");
  // A child that burns CPU, one that sleeps in a session of its own, and
  // the shell waiting for both. The shell makes `spun` itself: a `touch`
  // could still be running when the file shows (a CI run counted it).
  pid_t pid = launch("busy", "setsid sleep 60 & i=0; while [ $i -lt 400000 ]; do i=$((i+1)); "
                             "done; : > spun; wait");
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(dir_ + "/spun")) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the loop never finished";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ResourceStatistics statistics = containerizer_->usage(id("busy"), resources);
  EXPECT_GT(statistics.timestamp(), 1.6e9);
  EXPECT_EQ(statistics.processes(), 2u);  // the shell and the setsid sleep
  EXPECT_GE(statistics.threads(), 2u);
  EXPECT_GT(statistics.cpus_user_time_secs() + statistics.cpus_system_time_secs(), 0.05);
  EXPECT_GT(statistics.mem_rss_bytes(), 100u * 1024);
  EXPECT_DOUBLE_EQ(statistics.cpus_limit(), 0.5);
  EXPECT_EQ(statistics.mem_limit_bytes(), 64u * 1024 * 1024);

  // Destroying it kills the shell and the sleep in its own session.
  EXPECT_TRUE(containerizer_->destroy(id("busy"), pid));
  ASSERT_TRUE(exits_["busy"].await(std::chrono::seconds(30)));
  EXPECT_TRUE(WIFSIGNALED(exits_["busy"].get()));
  EXPECT_FALSE(containerizer_->running(id("busy"), pid));
  EXPECT_FALSE(containerizer_->usage(id("busy"), resources).has_processes());
  launched_.clear();
}

TEST_F(ContainerizerTest, APrefixWrapsTheCommand) {
  pid_t pid = launch("wrapped", "echo \"$WRAPPED\"", {"/usr/bin/env", "WRAPPED=yes"});
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(exits_["wrapped"].await(std::chrono::seconds(30)));
  EXPECT_TRUE(WIFEXITED(exits_["wrapped"].get()));
  std::ifstream out(dir_ + "/wrapped.out");
  std::stringstream text;
  text << out.rdbuf();
  EXPECT_EQ(text.str(), "yes\n");
}

TEST_F(ContainerizerTest, AFailedLaunchLeavesNothingAndNamesTheStep) {
  ContainerConfig config;
  config.containerId.set_value("missing");
  LaunchSpec spec;
  spec.command.set_shell(false);
  spec.command.set_value("/no/such/program");
  spec.directory = dir_;
  spec.stdoutPath = dir_ + "/out";
  spec.stderrPath = dir_ + "/err";
  auto pid = containerizer_->launch(config, spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.error().message.rfind("launch: ", 0), 0u) << pid.error().message;
  EXPECT_NE(pid.error().message.find("/no/such/program"), std::string::npos);
  // The isolators forgot it.
  ResourceStatistics statistics = containerizer_->usage(config.containerId, Resources());
  EXPECT_FALSE(statistics.has_processes());
}

}  // namespace
}  // namespace mesos::internal::isolation
