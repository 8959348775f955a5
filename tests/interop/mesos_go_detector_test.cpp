// Interoperability with mesos-go's ZooKeeper master detector
// (api/v0/detector/zoo, as Debian packages it): it must find the master our
// masters elect, and follow a failover.
//
// One real ZooKeeper server, two mesos-master processes contending with
// --zk (each writes its MasterInfo as JSON into an ephemeral sequential
// znode /mesos/json.info_<sequence>, the lowest leads), and the Go probe
// go_detector (tests/interop/go/src/go_detector) watching the same URL and
// printing "leader <id> <pid>" or "none" on each change. The test checks
// that the detector names the master whose /master/state says it leads
// (has "elected_time"), and, once that master is killed with SIGKILL and
// its ZooKeeper session (1 s) expires, names the other master when that one
// leads. Everything runs as real processes, so every wait is a poll with a
// generous real-time bound.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "interop/go_probes.hpp"
#include "common/json.hpp"
#include "support/daemon.hpp"
#include "support/zookeeper_server.hpp"

extern char** environ;

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

// Bound on every wait: a master listening, an election, the detector
// reporting a change (it rests 1 s between changes, and a failover waits for
// the dead leader's 1 s session to expire).
constexpr auto kLimit = 60s;

// A JSON string's text, or "" for anything else.
std::string text(const json::Value& value) { return value.isString() ? value.string() : ""; }

std::vector<std::string> lines(const std::string& output) {
  std::vector<std::string> result;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

// Starts `args` (args[0] an absolute path) with its stdout into the file
// `out` and its stderr into the file `err`. The pid, or -1.
pid_t spawnWithFiles(const std::vector<std::string>& args, const std::string& out,
                     const std::string& err) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return error == 0 ? pid : -1;
}

class MesosGoDetectorTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::string missing = MESOS_INTEROP_GO_MISSING;
    if (!missing.empty()) GTEST_SKIP() << "mesos-go interop probes not built: " << missing;
    detector_ = std::string(MESOS_INTEROP_GO_BIN) + "/go_detector";
    if (access(detector_.c_str(), X_OK) != 0) {
      GTEST_SKIP() << detector_ << " is missing (" << std::strerror(errno)
                   << "); the mesos-interop-go target builds it with tests/interop/go/build.sh, "
                      "which needs golang-go and golang-github-mesos-mesos-go-dev";
    }
    if (std::string why = ZooKeeperServers::unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(servers_.start()) << servers_.error();
    url_ = "zk://" + servers_.connectString() + "/mesos";
  }

  void TearDown() override {
    if (detectorPid_ > 0) {
      ::kill(detectorPid_, SIGKILL);
      waitForExit(detectorPid_, 30s);
      detectorPid_ = -1;
    }
    DaemonsFixture::TearDown();
  }

  struct Master {
    std::string name;  // its log is <dir>/<name>.log
    process::Address address;
    pid_t pid = -1;
  };

  // Starts mesos-master contending through ZooKeeper and waits until it
  // listens.
  Master startZkMaster(const std::string& name) {
    Master master{name, process::Address{0x7f000001, freePort()}, -1};
    master.pid =
        start({MESOS_MASTER_PATH, "--ip=127.0.0.1", "--port=" + std::to_string(master.address.port),
               "--zk=" + url_, "--zk_session_timeout=1secs"},
              name);
    bool up = waitUntil([&] { return connectable(master.address); }, kLimit, master.pid);
    EXPECT_TRUE(up) << name << " did not listen:\n" << log(name);
    return master;
  }

  static json::Value state(const Master& master) {
    return getJson(master.address, "/master/state");
  }

  // Whether the master says it leads.
  static bool leads(const Master& master) { return !state(master)["elected_time"].isNull(); }

  std::string log(const std::string& name) const { return readFile(dir_ + "/" + name + ".log"); }

  // Its /master/state and its log, for failure messages.
  std::string describe(const Master& master) const {
    return master.name + "'s /master/state: " + json::stringify(state(master)) + "\n" +
           master.name + "'s log:\n" + log(master.name);
  }

  // Starts go_detector on the URL, its stdout into <dir>/go_detector.out and
  // its stderr into <dir>/go_detector.err.
  void startDetector() {
    detectorPid_ =
        spawnWithFiles({detector_, url_}, dir_ + "/go_detector.out", dir_ + "/go_detector.err");
    ASSERT_GT(detectorPid_, 0) << "cannot start " << detector_;
  }

  std::vector<std::string> detectorLines() const {
    return lines(readFile(dir_ + "/go_detector.out"));
  }

  // Waits until go_detector prints `line` as its line `from` or a later one;
  // the index of that line, or -1 (also when go_detector exits meanwhile).
  long awaitDetectorLine(const std::string& line, size_t from) {
    long found = -1;
    waitUntil(
        [&] {
          std::vector<std::string> all = detectorLines();
          for (size_t i = from; i < all.size(); ++i) {
            if (all[i] == line) {
              found = static_cast<long>(i);
              return true;
            }
          }
          return false;
        },
        kLimit, detectorPid_);
    return found;
  }

  std::string describeDetector() const {
    return "go_detector's stdout:\n" + readFile(dir_ + "/go_detector.out") +
           "go_detector's stderr:\n" + readFile(dir_ + "/go_detector.err");
  }

  ZooKeeperServers servers_{1};
  std::string url_;
  std::string detector_;
  pid_t detectorPid_ = -1;
};

TEST_F(MesosGoDetectorTest, FindsTheLeaderAndFollowsAFailover) {
  std::array<Master, 2> masters = {startZkMaster("master1"), startZkMaster("master2")};
  ASSERT_FALSE(HasFailure());

  int leader = -1;
  ASSERT_TRUE(waitUntil(
      [&] {
        for (int i = 0; i < 2; ++i) {
          if (leads(masters[i])) leader = i;
        }
        return leader != -1;
      },
      kLimit))
      << "no master was elected:\n"
      << describe(masters[0]) << describe(masters[1]);
  const int standby = 1 - leader;

  json::Value leading = state(masters[leader]);
  const std::string leaderPid = text(leading["leader"]);
  ASSERT_EQ(leaderPid, text(leading["pid"]))
      << "the leader should name itself: " << json::stringify(leading);
  const std::string leaderId = text(leading["leader_info"]["id"]);
  ASSERT_FALSE(leaderId.empty()) << json::stringify(leading);
  EXPECT_EQ(leaderId, text(leading["id"]));

  startDetector();
  long first = awaitDetectorLine("leader " + leaderId + " " + leaderPid, 0);
  ASSERT_NE(first, -1) << "go_detector did not report " << leaderPid << "\n" << describeDetector();
  // Nothing changed meanwhile: that was its first report.
  EXPECT_EQ(first, 0) << describeDetector();

  // The leader dies without a word; its znode goes when its session expires.
  ASSERT_EQ(0, ::kill(masters[leader].pid, SIGKILL)) << std::strerror(errno);
  EXPECT_EQ(128 + SIGKILL, waitForExit(masters[leader].pid, 30s));
  reaped(masters[leader].pid);

  ASSERT_TRUE(waitUntil([&] { return leads(masters[standby]); }, kLimit, masters[standby].pid))
      << masters[standby].name << " did not take over:\n"
      << describe(masters[standby]);
  json::Value next = state(masters[standby]);
  const std::string nextPid = text(next["leader"]);
  ASSERT_EQ(nextPid, text(next["pid"])) << json::stringify(next);
  ASSERT_NE(nextPid, leaderPid);
  const std::string nextId = text(next["leader_info"]["id"]);
  ASSERT_FALSE(nextId.empty()) << json::stringify(next);

  long second =
      awaitDetectorLine("leader " + nextId + " " + nextPid, static_cast<size_t>(first) + 1);
  EXPECT_NE(second, -1) << "go_detector did not report the new leader " << nextPid << "\n"
                        << describeDetector();

  // Every report was a leader or "none" (between the two, at most).
  for (const std::string& line : detectorLines()) {
    EXPECT_TRUE(line == "none" || line.starts_with("leader ")) << line;
  }

  ::kill(detectorPid_, SIGKILL);
  EXPECT_EQ(128 + SIGKILL, waitForExit(detectorPid_, 30s)) << describeDetector();
  detectorPid_ = -1;
}

}  // namespace
}  // namespace mesos::test
