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

class DaemonsTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    master_ = startMaster();
    startSlave(master_, "slave", {"--resources=cpus:2;mem:512;disk:512"});
    // The slave has registered once the master counts it.
    ASSERT_TRUE(waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s))
        << "the slave did not register within 30 s";
  }

  int execute(const std::string& name, const std::string& command) {
    pid_t pid = startDaemon({MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                             "--name=" + name, "--command=" + command,
                             "--resources=cpus:0.1;mem:32"});
    return pid > 0 ? waitForExit(pid, 60s) : -1;
  }

  process::Address master_;
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
