// filesystem/linux: ContainerInfo volumes as bind mounts in the container's
// own mount namespace, through the real launch helper, as root.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "process/future.hpp"
#include "slave/containerizer/containerizer.hpp"
#include "slave/containerizer/isolators/isolators.hpp"
#include "slave/paths.hpp"
#include "slave/reaper.hpp"

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

Volume volume(const std::string& host, const std::string& target, Volume::Mode mode) {
  Volume v;
  v.set_host_path(host);
  v.set_container_path(target);
  v.set_mode(mode);
  return v;
}

class LinuxFilesystemIsolatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "mount namespaces need root";
    char pattern[] = "/tmp/mesos-filesystem-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    sandbox_ = dir_ + "/sandbox";
    host_ = dir_ + "/host";
    target_ = dir_ + "/target";
    for (const std::string& d : {sandbox_, host_, target_}) fs::create_directories(d);
    std::ofstream(host_ + "/given") << "from the host\n";
    containerizer_ = make("filesystem/linux,posix/cpu");
  }

  void TearDown() override {
    if (dir_.empty()) return;
    std::istringstream lines(slurp("/proc/self/mountinfo"));
    for (std::string line; std::getline(lines, line);) {
      EXPECT_EQ(line.find(dir_), std::string::npos) << "left mounted on the host: " << line;
    }
    fs::remove_all(dir_);
  }

  std::unique_ptr<Containerizer> make(const std::string& isolation) {
    IsolationOptions options;
    options.isolation = isolation;
    auto isolators = createIsolators(options);
    EXPECT_TRUE(isolators.ok()) << isolators.error().message;
    if (!isolators.ok()) return nullptr;
    auto containerizer = std::make_unique<Containerizer>(
        std::make_unique<PosixLauncher>(), std::move(isolators).value(),
        slave::launcherBinaryPath(MESOS_BINARY_DIR "/src/slave", "mesos-containerizer"));
    EXPECT_TRUE(containerizer->recover({}).ok());
    return containerizer;
  }

  // Runs `sh -c command` in the sandbox with `volumes`; the wait status, or
  // the launch's error.
  Result<int> run(Containerizer& containerizer, const std::vector<Volume>& volumes,
                  const std::string& command, const std::string& user = "") {
    mesos::isolation::ContainerConfig config;
    config.containerId.set_value("c" + std::to_string(++launches_));
    config.directory = sandbox_;
    config.resources = *Resources::parse("cpus:0.1;mem:32");
    config.executor.mutable_container()->set_type(ContainerInfo::MESOS);
    for (const Volume& v : volumes) *config.executor.mutable_container()->add_volumes() = v;
    slave::LaunchSpec spec;
    spec.command.set_value(command);
    spec.directory = sandbox_;
    spec.environment = {{"PATH", "/usr/bin:/bin"}};
    spec.stdoutPath = sandbox_ + "/stdout";
    spec.stderrPath = sandbox_ + "/stderr";
    spec.user = user;
    config.user = user;
    auto pid = containerizer.launch(config, spec);
    if (!pid) return pid.error();
    auto promise = std::make_shared<process::Promise<int>>();
    slave::Reaper::instance().watch(*pid, [promise](int status) { promise->set(status); });
    process::Future<int> exit = promise->future();
    if (!exit.await(30s)) return Error{"the container did not end within 30 s"};
    containerizer.destroy(config.containerId, *pid);
    return exit.get();
  }

  std::string dir_, sandbox_, host_, target_;
  int launches_ = 0;
  std::unique_ptr<Containerizer> containerizer_;
};

TEST_F(LinuxFilesystemIsolatorTest, AReadOnlyHostPathIsReadableAndNotWritable) {
  auto status = run(*containerizer_, {volume(host_, "data", Volume::RO)},
                    "cat data/given > seen; touch data/x 2> ro.err; exit 0");
  ASSERT_TRUE(status.ok()) << status.error().message;
  ASSERT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << slurp(sandbox_ + "/stderr");
  EXPECT_EQ(slurp(sandbox_ + "/seen"), "from the host\n");
  EXPECT_NE(slurp(sandbox_ + "/ro.err").find("Read-only"), std::string::npos)
      << slurp(sandbox_ + "/ro.err");
  EXPECT_FALSE(fs::exists(host_ + "/x"));
}

TEST_F(LinuxFilesystemIsolatorTest, ASandboxDirectoryOverAnAbsolutePathShowsOnlyInside) {
  // host_path relative: a directory of the sandbox, mounted over target_,
  // an existing directory of the host's tree.
  auto status = run(*containerizer_, {volume("shared", target_, Volume::RW)},
                    "echo inside > " + target_ + "/y");
  ASSERT_TRUE(status.ok()) << status.error().message;
  ASSERT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << slurp(sandbox_ + "/stderr");
  EXPECT_EQ(slurp(sandbox_ + "/shared/y"), "inside\n");
  EXPECT_TRUE(fs::is_empty(target_)) << "the mount showed on the host";
}

TEST_F(LinuxFilesystemIsolatorTest, AnAbsoluteTargetMustExistOnTheHost) {
  auto status = run(*containerizer_, {volume(host_, dir_ + "/nosuch", Volume::RW)}, "true");
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 127);
  EXPECT_NE(slurp(sandbox_ + "/stderr").find("must exist"), std::string::npos)
      << slurp(sandbox_ + "/stderr");
  EXPECT_FALSE(fs::exists(dir_ + "/nosuch"));
}

TEST_F(LinuxFilesystemIsolatorTest, ASymlinkInTheSandboxLeadsNowhere) {
  // As a fetched archive could leave it.
  fs::create_directory_symlink(target_, sandbox_ + "/evil");
  auto status = run(*containerizer_, {volume("evil/sub", "data", Volume::RW)}, "true");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("symlink"), std::string::npos) << status.error().message;
  EXPECT_TRUE(fs::is_empty(target_));

  status = run(*containerizer_, {volume(host_, "evil/data", Volume::RW)}, "true");
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 127);
  EXPECT_NE(slurp(sandbox_ + "/stderr").find("symlink"), std::string::npos)
      << slurp(sandbox_ + "/stderr");
  EXPECT_TRUE(fs::is_empty(target_));
}

// A volume over an absolute path (here the framework's directory over
// /etc's place) must not let set-user-id programs there give a task user
// root's rights: such a container runs with no_new_privs.
TEST_F(LinuxFilesystemIsolatorTest, AVolumeOverTheHostsTreeMeansNoNewPrivileges) {
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(sandbox_, fs::perms::all);
  auto over = run(*containerizer_, {volume(host_, target_, Volume::RO)},
                  "grep NoNewPrivs /proc/self/status", "nobody");
  ASSERT_TRUE(over.ok()) << over.error().message;
  ASSERT_TRUE(WIFEXITED(*over) && WEXITSTATUS(*over) == 0) << slurp(sandbox_ + "/stderr");
  EXPECT_NE(slurp(sandbox_ + "/stdout").find("NoNewPrivs:\t1"), std::string::npos)
      << slurp(sandbox_ + "/stdout");

  // In the sandbox only: set-user-id programs elsewhere work as usual.
  auto inside = run(*containerizer_, {volume(host_, "data", Volume::RO)},
                    "grep NoNewPrivs /proc/self/status", "nobody");
  ASSERT_TRUE(inside.ok()) << inside.error().message;
  EXPECT_NE(slurp(sandbox_ + "/stdout").find("NoNewPrivs:\t0"), std::string::npos)
      << slurp(sandbox_ + "/stdout");
}

TEST_F(LinuxFilesystemIsolatorTest, VolumesWithoutTheIsolatorFailTheLaunch) {
  auto plain = make("posix/cpu");
  ASSERT_NE(plain, nullptr);
  auto status = run(*plain, {volume(host_, "data", Volume::RO)}, "true");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("filesystem/linux"), std::string::npos)
      << status.error().message;
}

}  // namespace
}  // namespace mesos::internal::isolation
