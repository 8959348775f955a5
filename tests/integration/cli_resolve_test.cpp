// mesos-resolve (docs/cli.md) against two masters contending in a real
// ZooKeeper: the leader from the zk:// URL and from either master's
// address, the new leader after the leader is killed, and a clear error
// when no master leads within --timeout. Real processes, so waits have
// generous real-time bounds.
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/daemon.hpp"
#include "support/subprocess.hpp"
#include "support/zookeeper_server.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

const std::string kResolve = std::string(MESOS_BINARY_DIR) + "/src/cli/mesos-resolve";

ChildResult resolve(const std::vector<std::string>& args) {
  std::vector<std::string> command = {kResolve};
  command.insert(command.end(), args.begin(), args.end());
  return runChild(command, 30s);
}

class CliResolveTest : public DaemonsFixture {
 protected:
  struct Master {
    pid_t pid = -1;
    process::Address address;
  };

  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    if (!std::filesystem::exists(kResolve)) GTEST_SKIP() << "mesos-resolve is not built";
    if (std::string why = ZooKeeperServers::unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(zk_.start()) << zk_.error();
    url_ = "zk://" + zk_.connectString() + "/mesos";
  }

  // A master contending through ZooKeeper, listening.
  Master startZkMaster() {
    Master m;
    m.address = process::Address{0x7f000001, freePort()};
    m.pid = start({MESOS_MASTER_PATH, "--ip=127.0.0.1",
                   "--port=" + std::to_string(m.address.port), "--zk=" + url_,
                   "--zk_session_timeout=1secs"},
                  "master" + std::to_string(m.address.port));
    EXPECT_TRUE(waitUntil([&] { return connectable(m.address); }, 30s, m.pid))
        << "a master did not listen within 30 s";
    return m;
  }

  static bool leads(const Master& m) { return metric(m.address, "master/elected") == 1; }

  // What mesos-resolve prints for `master`, or its failure.
  static std::string resolved(const std::string& master) {
    ChildResult run = resolve({master});
    return run.exitedWith(0) ? run.out : run.describe();
  }

  ZooKeeperServers zk_{1};
  std::string url_;
};

TEST_F(CliResolveTest, FindsTheLeaderInZooKeeperAndAfterAFailover) {
  Master a = startZkMaster();
  ASSERT_TRUE(waitUntil([&] { return leads(a); }, 30s)) << "the first master did not lead";
  Master b = startZkMaster();
  // The standby has read the group: it names the leader.
  ASSERT_TRUE(waitUntil(
      [&] { return getJson(b.address, "/master/state")["leader"].isString(); }, 30s));

  const std::string leader = a.address.toString() + "\n";
  EXPECT_EQ(leader, resolved(url_));
  EXPECT_EQ(leader, resolved(a.address.toString()));
  EXPECT_EQ(leader, resolved(b.address.toString()));  // the standby is asked who leads
  // The other tools find the leader the same way.
  ChildResult ps = runChild({std::string(MESOS_BINARY_DIR) + "/src/cli/mesos-ps",
                             "--master=" + url_},
                            30s);
  EXPECT_TRUE(ps.exitedWith(0)) << ps.describe();
  EXPECT_EQ(0u, ps.out.find("FRAMEWORK")) << ps.describe();

  ::kill(a.pid, SIGKILL);
  EXPECT_EQ(128 + SIGKILL, waitForExit(a.pid, 30s));
  reaped(a.pid);
  ASSERT_TRUE(waitUntil([&] { return leads(b); }, 30s)) << "the standby did not take over";
  EXPECT_EQ(b.address.toString() + "\n", resolved(url_));
  EXPECT_EQ(b.address.toString() + "\n", resolved(b.address.toString()));
}

TEST_F(CliResolveTest, NoLeaderWithinTheTimeoutIsAnError) {
  // No master contends under this path.
  const std::string empty = "zk://" + zk_.connectString() + "/nobody";
  auto started = std::chrono::steady_clock::now();
  ChildResult run = resolve({"--timeout=1secs", empty});
  EXPECT_GE(std::chrono::steady_clock::now() - started, 1s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_TRUE(run.out.empty()) << run.describe();
  EXPECT_NE(std::string::npos, run.err.find("no leading master in zk://" + zk_.connectString() +
                                            "/nobody within 1secs (--timeout)"))
      << run.describe();
  EXPECT_EQ(run.err.size() - 1, run.err.find('\n')) << "not one line: " << run.err;

  // Nothing answers at the ZooKeeper address.
  const std::string nowhere = "zk://127.0.0.1:" + std::to_string(freePort()) + "/mesos";
  ChildResult unreachable = resolve({"--timeout=1secs", nowhere});
  EXPECT_TRUE(unreachable.exitedWith(1)) << unreachable.describe();
  EXPECT_NE(std::string::npos, unreachable.err.find("no leading master in " + nowhere))
      << unreachable.describe();

  ChildResult malformed = resolve({"zk://"});
  EXPECT_TRUE(malformed.exitedWith(1)) << malformed.describe();
  EXPECT_NE(std::string::npos, malformed.err.find("bad master 'zk://'")) << malformed.describe();
}

}  // namespace
}  // namespace mesos::test
