// The daemons as operators run them: mesos-master and mesos-slave as
// separate OS processes talking over TCP, and mesos-execute running commands
// on them. Real processes, so waits have generous real-time bounds.
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

class DaemonsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* binary : {MESOS_MASTER_PATH, MESOS_SLAVE_PATH, MESOS_EXECUTE_PATH}) {
      if (!std::filesystem::exists(binary)) GTEST_SKIP() << binary << " is not built";
    }
    char dir[] = "/tmp/mesos-daemons-XXXXXX";
    ASSERT_NE(nullptr, mkdtemp(dir));
    workDir_ = dir;
    masterPort_ = freePort();
    master_ = startDaemon({MESOS_MASTER_PATH, "--ip=127.0.0.1", "--port=" + std::to_string(masterPort_)});
    ASSERT_GT(master_, 0);
    std::string launcherDir = std::filesystem::path(MESOS_EXECUTOR_PATH).parent_path().string();
    slave_ = startDaemon({MESOS_SLAVE_PATH, "--master=127.0.0.1:" + std::to_string(masterPort_),
                    "--ip=127.0.0.1", "--port=" + std::to_string(freePort()),
                    "--work_dir=" + workDir_, "--resources=cpus:2;mem:512;disk:512",
                    "--launcher_dir=" + launcherDir});
    ASSERT_GT(slave_, 0);
    // The slave has registered once the master counts it.
    process::Address master{0x7f000001, masterPort_};
    bool registered = waitUntil(
        [&] {
          std::string body;
          if (!connectable(master) || httpGet(master, "/metrics/snapshot", &body) != 200) {
            return false;
          }
          auto metrics = json::parse(body);
          return metrics.ok() && (*metrics)["master/slaves_active"].integer() == 1;
        },
        30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  void TearDown() override {
    for (pid_t pid : {slave_, master_}) {
      if (pid > 0) {
        kill(pid, SIGTERM);
        EXPECT_EQ(0, waitForExit(pid, 30s)) << "a daemon did not stop cleanly on SIGTERM";
      }
    }
    if (!workDir_.empty()) std::filesystem::remove_all(workDir_);
  }

  int execute(const std::string& name, const std::string& command) {
    pid_t pid = startDaemon({MESOS_EXECUTE_PATH, "--master=127.0.0.1:" + std::to_string(masterPort_),
                       "--name=" + name, "--command=" + command,
                       "--resources=cpus:0.1;mem:32"});
    return pid > 0 ? waitForExit(pid, 60s) : -1;
  }

  std::string workDir_;
  uint16_t masterPort_ = 0;
  pid_t master_ = -1;
  pid_t slave_ = -1;
};

TEST_F(DaemonsTest, MesosExecuteReturnsTheCommandsExitStatus) {
  EXPECT_EQ(0, execute("ok", "true"));
  EXPECT_EQ(4, execute("four", "exit 4"));
}

TEST_F(DaemonsTest, BadFlagsGetOneLineAndStatusOne) {
  for (const char* binary : {MESOS_MASTER_PATH, MESOS_SLAVE_PATH}) {
    pid_t pid = startDaemon({binary, "--no_such_flag=1"});
    ASSERT_GT(pid, 0);
    EXPECT_EQ(1, waitForExit(pid, 30s)) << binary;
  }
}

}  // namespace
}  // namespace mesos::test
