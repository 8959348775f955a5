// The ZooKeeper actor against a real server: calls and their answers,
// children watches, and a session that expires and is replaced.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include <zookeeper/zookeeper.h>

#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "support/zookeeper_server.hpp"
#include "zk/masters.hpp"
#include "zk/zookeeper.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using internal::zk::ZooKeeper;
using process::Future;

class ZooKeeperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = ZooKeeperServers::unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(servers_.start()) << servers_.error();
    runtime_ = std::move(process::Runtime::create({})).value();
    auto url = internal::zk::parseUrl("zk://" + servers_.connectString() + "/mesos");
    ASSERT_TRUE(url.ok());
    zk_ = runtime_->spawn<ZooKeeper>("zookeeper", *url, std::chrono::milliseconds(1000));
  }

  void TearDown() override {
    zk_ = {};
    runtime_.reset();
  }

  // Runs `f` on the actor and waits for the future it returns.
  template <typename F>
  auto call(F f) {
    ZooKeeper* zk = zk_.get();
    auto future = process::dispatch(zk_.pid(), [zk, f] { return f(*zk); });
    EXPECT_TRUE(future.await(30s)) << "no answer from ZooKeeper within 30 s";
    return future.get();
  }

  ZooKeeperServers servers_{1};
  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<ZooKeeper> zk_;
};

TEST_F(ZooKeeperTest, CallsAndWatches) {
  ASSERT_TRUE(call([](ZooKeeper& zk) { return zk.createPath("/mesos/group"); }).ok());
  // Made already: still fine.
  ASSERT_TRUE(call([](ZooKeeper& zk) { return zk.createPath("/mesos/group"); }).ok());

  auto first = call([](ZooKeeper& zk) {
    return zk.create("/mesos/group/json.info_", "one", ZOO_EPHEMERAL | ZOO_SEQUENCE);
  });
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ("/mesos/group/json.info_0000000000", *first);
  auto data = call([&](ZooKeeper& zk) { return zk.get(*first); });
  ASSERT_TRUE(data.ok());
  EXPECT_EQ("one", *data);

  auto children = call([](ZooKeeper& zk) { return zk.children("/mesos/group"); });
  ASSERT_TRUE(children.ok());
  EXPECT_EQ(std::vector<std::string>{"json.info_0000000000"}, children->names);
  Future<process::Nothing> changed = children->changed;
  EXPECT_FALSE(changed.isReady());
  auto second = call([](ZooKeeper& zk) {
    return zk.create("/mesos/group/json.info_", "two", ZOO_EPHEMERAL | ZOO_SEQUENCE);
  });
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(changed.await(30s)) << "the children watch did not fire";

  auto missing = call([](ZooKeeper& zk) { return zk.get("/mesos/nothing"); });
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(ZNONODE, missing.error().code);
  auto removed = call([&](ZooKeeper& zk) { return zk.remove(*first); });
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(*removed);
  auto again = call([&](ZooKeeper& zk) { return zk.remove(*first); });
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  auto exists = call([](ZooKeeper& zk) { return zk.create("/mesos/group", "", 0); });
  ASSERT_FALSE(exists.ok());
  EXPECT_EQ(ZNODEEXISTS, exists.error().code);
}

TEST_F(ZooKeeperTest, AnExpiredSessionIsReplacedAndItsEphemeralNodesAreGone) {
  // What the listener heard, in order.
  struct Heard {
    std::mutex mutex;
    std::vector<ZooKeeper::Session> events;
    std::vector<int64_t> ids;
  };
  auto heard = std::make_shared<Heard>();
  auto made = call([heard](ZooKeeper& zk) {
    zk.listen([heard](ZooKeeper::Session session, int64_t id) {
      std::lock_guard<std::mutex> lock(heard->mutex);
      heard->events.push_back(session);
      heard->ids.push_back(id);
    });
    return zk.createPath("/mesos");
  });
  ASSERT_TRUE(made.ok()) << made.error().message;
  auto node = call([](ZooKeeper& zk) {
    return zk.create("/mesos/json.info_", "x", ZOO_EPHEMERAL | ZOO_SEQUENCE);
  });
  ASSERT_TRUE(node.ok());
  auto children = call([](ZooKeeper& zk) { return zk.children("/mesos"); });
  ASSERT_TRUE(children.ok());
  ZooKeeper::SessionKey key = call([](ZooKeeper& zk) { return zk.sessionKey(); });
  ASSERT_NE(0, key.id);

  // Another client takes the session over and closes it: the server ends
  // the session, and our actor learns it has expired.
  ASSERT_TRUE(servers_.endSession(key.id, key.password, [heard] {
    std::lock_guard<std::mutex> lock(heard->mutex);
    return std::find(heard->events.begin(), heard->events.end(),
                     ZooKeeper::Session::kExpired) != heard->events.end();
  })) << "the session did not end";

  EXPECT_TRUE(children->changed.await(30s)) << "the watch did not end with the session";
  // A new session: connected again, with another id.
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    int64_t now = call([](ZooKeeper& zk) { return zk.connected() ? zk.sessionId() : 0; });
    if (now != 0 && now != key.id) break;
    std::this_thread::sleep_for(20ms);  // the real server making the session
  }
  {
    std::lock_guard<std::mutex> lock(heard->mutex);
    ASSERT_GE(heard->events.size(), 3u);
    EXPECT_EQ(ZooKeeper::Session::kConnected, heard->events.front());
    EXPECT_EQ(ZooKeeper::Session::kConnected, heard->events.back());
    EXPECT_NE(heard->ids.front(), heard->ids.back());
    bool expired = false;
    for (auto event : heard->events) expired = expired || event == ZooKeeper::Session::kExpired;
    EXPECT_TRUE(expired);
  }
  auto gone = call([&](ZooKeeper& zk) { return zk.get(*node); });
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(ZNONODE, gone.error().code);
}

// Group membership as Apache Mesos lays it out: members in order of
// sequence, joining again finds the member made before, and a member goes
// with its session.
TEST_F(ZooKeeperTest, GroupMembersInOrderAndGoneWithTheirSession) {
  auto url = internal::zk::parseUrl("zk://" + servers_.connectString() + "/mesos");
  ASSERT_TRUE(url.ok());
  auto other = runtime_->spawn<ZooKeeper>("zookeeper-b", *url, std::chrono::milliseconds(1000));
  ZooKeeper* b = other.get();

  auto a1 = call([](ZooKeeper& zk) {
    return zk.join("/mesos/masters", "json.info", "{\"id\":\"A\"}", "\"id\":\"A\"");
  });
  ASSERT_TRUE(a1.ok()) << a1.error().message;
  EXPECT_EQ("/mesos/masters/json.info_0000000000", a1->path);
  EXPECT_EQ(0u, a1->sequence);
  auto b1 = process::dispatch(other.pid(), [b] {
    return b->join("/mesos/masters", "json.info", "{\"id\":\"B\"}", "\"id\":\"B\"");
  });
  ASSERT_TRUE(b1.await(30s));
  ASSERT_TRUE(b1.get().ok()) << b1.get().error().message;
  EXPECT_EQ(1u, b1.get()->sequence);
  // Not a member: another label, or not a sequence.
  ASSERT_TRUE(call([](ZooKeeper& zk) {
                return zk.create("/mesos/masters/log_replicas", "", ZOO_EPHEMERAL);
              }).ok());

  // A joins again (as after a lost answer): the same member.
  auto a2 = call([](ZooKeeper& zk) {
    return zk.join("/mesos/masters", "json.info", "{\"id\":\"A\"}", "\"id\":\"A\"");
  });
  ASSERT_TRUE(a2.ok());
  EXPECT_EQ(a1->path, a2->path);

  auto seen = process::dispatch(other.pid(), [b] { return b->members("/mesos/masters", "json.info"); });
  ASSERT_TRUE(seen.await(30s));
  ASSERT_TRUE(seen.get().ok());
  const auto& members = seen.get()->members;
  ASSERT_EQ(2u, members.size());
  EXPECT_EQ(a1->path, members[0].path);
  EXPECT_EQ(b1.get()->path, members[1].path);
  auto leader = process::dispatch(other.pid(), [b, path = members[0].path] { return b->get(path); });
  ASSERT_TRUE(leader.await(30s));
  EXPECT_EQ("{\"id\":\"A\"}", *leader.get());

  // A's session closes: its member goes, and B sees the change.
  zk_ = {};
  ASSERT_TRUE(seen.get()->changed.await(30s));
  auto after = process::dispatch(other.pid(), [b] { return b->members("/mesos/masters", "json.info"); });
  ASSERT_TRUE(after.await(30s));
  ASSERT_TRUE(after.get().ok());
  ASSERT_EQ(1u, after.get()->members.size());
  EXPECT_EQ(b1.get()->path, after.get()->members[0].path);
}

// The leading master: the lowest json.info member, its MasterInfo read
// back; the next one leads once it goes; a leader's node that does not hold
// MasterInfo is an error that says so.
TEST_F(ZooKeeperTest, TheLeadingMasterIsTheLowestMember) {
  auto info = [](const std::string& id, int port) {
    MasterInfo master;
    master.set_id(id);
    master.set_ip(0x0100007f);
    master.set_port(static_cast<uint32_t>(port));
    master.set_pid("master@127.0.0.1:" + std::to_string(port));
    return master;
  };
  auto none = call([](ZooKeeper& zk) { return zk.leader("/mesos"); });
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_FALSE(none->leader.has_value());

  auto a = call([&](ZooKeeper& zk) {
    return zk.join("/mesos", internal::zk::kMasterLabel,
                   internal::zk::masterInfoJson(info("A", 5050)), "\"id\":\"A\"");
  });
  ASSERT_TRUE(a.ok());
  auto b = call([&](ZooKeeper& zk) {
    return zk.join("/mesos", internal::zk::kMasterLabel,
                   internal::zk::masterInfoJson(info("B", 5051)), "\"id\":\"B\"");
  });
  ASSERT_TRUE(b.ok());
  auto first = call([](ZooKeeper& zk) { return zk.leader("/mesos"); });
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(first->leader.has_value());
  EXPECT_EQ("A", first->leader->id());
  EXPECT_EQ("master@127.0.0.1:5050", first->leader->pid());
  EXPECT_EQ(a->path, first->member);

  ASSERT_TRUE(call([&](ZooKeeper& zk) { return zk.leave(*a); }).ok());
  ASSERT_TRUE(first->changed.await(30s));
  auto second = call([](ZooKeeper& zk) { return zk.leader("/mesos"); });
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(second->leader.has_value());
  EXPECT_EQ("B", second->leader->id());

  ASSERT_TRUE(call([](ZooKeeper& zk) { return zk.createPath("/bad"); }).ok());
  ASSERT_TRUE(call([](ZooKeeper& zk) {
                return zk.create("/bad/json.info_", "garbage", ZOO_EPHEMERAL | ZOO_SEQUENCE);
              }).ok());
  // Garbage in the lowest member is passed over: alone, no leader; with a
  // good member after it, that one leads.
  auto bad = call([](ZooKeeper& zk) { return zk.leader("/bad"); });
  ASSERT_TRUE(bad.ok()) << bad.error().message;
  EXPECT_FALSE(bad->leader.has_value());
  auto c = call([&](ZooKeeper& zk) {
    return zk.join("/bad", internal::zk::kMasterLabel,
                   internal::zk::masterInfoJson(info("C", 5052)), "\"id\":\"C\"");
  });
  ASSERT_TRUE(c.ok());
  auto good = call([](ZooKeeper& zk) { return zk.leader("/bad"); });
  ASSERT_TRUE(good.ok()) << good.error().message;
  ASSERT_TRUE(good->leader.has_value());
  EXPECT_EQ("C", good->leader->id());
  EXPECT_EQ("/bad/json.info_0000000001", good->member);
}

// A server name that does not resolve is not fatal: the actor keeps
// trying, and calls wait for a session.
TEST(ZooKeeperUnresolvableTest, CallsWaitAndTheActorLives) {
  auto runtime = std::move(process::Runtime::create({})).value();
  auto url = internal::zk::parseUrl("zk://no-such-host.invalid:2181/mesos");
  ASSERT_TRUE(url.ok());
  auto zk = runtime->spawn<ZooKeeper>("zookeeper", *url, std::chrono::milliseconds(1000));
  ZooKeeper* actor = zk.get();
  Future<Result<std::string>> answer =
      process::dispatch(zk.pid(), [actor] { return actor->get("/mesos"); });
  auto connected = process::dispatch(zk.pid(), [actor] { return actor->connected(); });
  ASSERT_TRUE(connected.await(30s));
  EXPECT_FALSE(connected.get());
  EXPECT_FALSE(answer.await(300ms)) << "answered without a session";
}

}  // namespace
}  // namespace mesos::test
