// Leader election and detection against a real ZooKeeper server: the first
// contender leads and holds a lease, the next takes over when the leader's
// session ends (and the old one hears it lost), a leader cut off from the
// servers stops within its lease, and detectors follow the leader, passing
// over members that do not hold MasterInfo.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <zookeeper/zookeeper.h>

#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "support/zookeeper_server.hpp"
#include "zk/contender.hpp"
#include "zk/detector.hpp"
#include "zk/masters.hpp"
#include "zk/zookeeper.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using internal::zk::Lease;
using internal::zk::LeaderContender;
using internal::zk::MasterDetector;
using internal::zk::ZooKeeper;

MasterInfo masterInfo(const std::string& id, int port) {
  MasterInfo master;
  master.set_id(id);
  master.set_ip(0x0100007f);
  master.set_port(static_cast<uint32_t>(port));
  master.set_pid("master@127.0.0.1:" + std::to_string(port));
  master.set_hostname("localhost");
  return master;
}

// One contender: its session, its lease, the contender itself.
struct Contender {
  std::shared_ptr<Lease> lease = std::make_shared<Lease>();
  process::Spawned<ZooKeeper> zk;
  process::Spawned<LeaderContender> contender;

  process::Future<process::Nothing> elected() {
    return process::dispatch(contender.pid(), &LeaderContender::elected);
  }
  process::Future<std::string> lost() {
    return process::dispatch(contender.pid(), &LeaderContender::lost);
  }
};

class ContenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = ZooKeeperServers::unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(servers_.start()) << servers_.error();
    runtime_ = std::move(process::Runtime::create({})).value();
    auto url = internal::zk::parseUrl("zk://" + servers_.connectString() + "/mesos");
    ASSERT_TRUE(url.ok());
    url_ = *url;
  }

  void TearDown() override {
    contenders_.clear();
    detector_.reset();
    runtime_.reset();
  }

  Contender& contend(const std::string& id, int port) {
    auto c = std::make_unique<Contender>();
    c->zk = runtime_->spawn<ZooKeeper>(process::generateId("zookeeper"), url_, kTimeout);
    c->contender = runtime_->spawn<LeaderContender>(c->zk.pid(), url_.path, masterInfo(id, port),
                                                    c->lease, kTimeout);
    contenders_.push_back(std::move(c));
    return *contenders_.back();
  }

  // Waits (30 s at most) until the detector reports the master `id` as
  // the leader; that MasterInfo, or none.
  std::optional<MasterInfo> awaitLeader(const std::string& id) {
    auto deadline = std::chrono::steady_clock::now() + 30s;
    std::optional<MasterInfo> leader;
    while (std::chrono::steady_clock::now() < deadline) {
      auto future = detector_->detect(leader);
      if (!future.await(deadline - std::chrono::steady_clock::now())) break;
      leader = future.get();
      if (leader && leader->id() == id) return leader;
    }
    ADD_FAILURE() << "the detector did not report " << id << " as the leader within 30 s";
    return std::nullopt;
  }

  // Ends the session of `c` at the server (ZooKeeperServers::endSession),
  // until its contender hears it lost.
  void expire(Contender& c) {
    ZooKeeper* zk = c.zk.get();
    auto key = process::dispatch(c.zk.pid(), [zk] { return zk->sessionKey(); });
    ASSERT_TRUE(key.await(30s));
    auto lost = c.lost();
    ASSERT_TRUE(servers_.endSession(key.get().id, key.get().password,
                                    [lost] { return !lost.isPending(); }))
        << "the session did not end";
  }

  static constexpr std::chrono::milliseconds kTimeout{1000};
  ZooKeeperServers servers_{1};
  std::unique_ptr<process::Runtime> runtime_;
  internal::zk::Url url_;
  std::vector<std::unique_ptr<Contender>> contenders_;
  std::unique_ptr<MasterDetector> detector_;
};

TEST_F(ContenderTest, TheFirstLeadsAndTheNextTakesOverWhenItsSessionEnds) {
  detector_ = MasterDetector::zookeeper(*runtime_, url_, kTimeout);
  Contender& a = contend("A", 5050);
  ASSERT_TRUE(a.elected().await(30s)) << "A was not elected within 30 s";
  EXPECT_TRUE(a.lease->valid());
  Contender& b = contend("B", 5051);

  // The detector finds A.
  std::optional<MasterInfo> leader = awaitLeader("A");
  ASSERT_TRUE(leader.has_value());
  EXPECT_EQ("master@127.0.0.1:5050", leader->pid());
  // B waits; A's lease is renewed while its session lives.
  EXPECT_FALSE(b.elected().await(3 * kTimeout)) << "B was elected while A leads";
  EXPECT_TRUE(a.lease->valid());

  expire(a);
  auto lost = a.lost();
  ASSERT_TRUE(lost.await(30s)) << "A did not hear it lost its leadership";
  EXPECT_NE(std::string::npos, lost.get().find("expired")) << lost.get();
  EXPECT_FALSE(a.lease->valid());
  ASSERT_TRUE(b.elected().await(30s)) << "B did not take over within 30 s";
  EXPECT_TRUE(b.lease->valid());
  // A lost leader stays lost: its lease never comes back.
  EXPECT_FALSE(a.lease->valid());

  leader = awaitLeader("B");
  ASSERT_TRUE(leader.has_value());
  EXPECT_EQ("master@127.0.0.1:5051", leader->pid());
}

// Cut off from the servers, a leader stops within its lease (80% of the
// session timeout after its last answered renewal), without waiting to
// hear of the expiry.
TEST_F(ContenderTest, ALeaderCutOffStopsWithinItsLease) {
  Contender& a = contend("A", 5050);
  ASSERT_TRUE(a.elected().await(30s));
  ASSERT_TRUE(a.lease->valid());
  servers_.kill(0);
  auto killed = std::chrono::steady_clock::now();
  auto lost = a.lost();
  ASSERT_TRUE(lost.await(30s)) << "the leader did not stop without its servers";
  EXPECT_FALSE(a.lease->valid());
  EXPECT_NE(std::string::npos, lost.get().find("no answer from ZooKeeper")) << lost.get();
  // Its last renewal was at most a quarter timeout before the kill.
  EXPECT_LT(std::chrono::steady_clock::now() - killed, kTimeout * 2)
      << "the leader kept acting for longer than its lease";
}

// A member that does not hold MasterInfo JSON is passed over by detectors
// and contenders alike: the next member leads.
TEST_F(ContenderTest, GarbageInTheGroupIsPassedOver) {
  {
    auto zk = runtime_->spawn<ZooKeeper>("writer", url_, kTimeout);
    auto made = process::dispatch(zk.pid(), &ZooKeeper::createPath, std::string("/mesos"));
    ASSERT_TRUE(made.await(30s) && made.get().ok());
    auto garbage = process::dispatch(zk.pid(), &ZooKeeper::create,
                                     std::string("/mesos/json.info_"), std::string("{garbage"),
                                     static_cast<int>(ZOO_SEQUENCE));  // outlives the writer
    ASSERT_TRUE(garbage.await(30s) && garbage.get().ok());
  }
  detector_ = MasterDetector::zookeeper(*runtime_, url_, kTimeout);
  Contender& a = contend("A", 5050);
  ASSERT_TRUE(a.elected().await(30s)) << "garbage ahead of A kept it from leading";
  EXPECT_TRUE(awaitLeader("A").has_value());
}

}  // namespace
}  // namespace mesos::test
