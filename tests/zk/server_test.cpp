// The ZooKeeper servers the tests run (tests/support/zookeeper_server.hpp)
// are real: a standalone server and a three-node ensemble serve the C
// client, ephemeral sequential znodes go with their session, and the
// ensemble serves again after its leader is killed.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <zookeeper/zookeeper.h>

#include "support/zookeeper_server.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

// A session of the C client (its synchronous calls), connected or failed.
class Session {
 public:
  explicit Session(const std::string& servers) {
    zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
    handle_ = zookeeper_init(servers.c_str(), &Session::watch, 10000, nullptr, this, 0);
  }
  ~Session() {
    if (handle_ != nullptr) zookeeper_close(handle_);
  }

  // Waits (at most 30 s) for the session to be connected.
  bool connected() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, 30s, [this] { return connected_; });
  }

  zhandle_t* handle() { return handle_; }

 private:
  static void watch(zhandle_t*, int type, int state, const char*, void* context) {
    auto* self = static_cast<Session*>(context);
    if (type != ZOO_SESSION_EVENT) return;
    std::lock_guard<std::mutex> lock(self->mutex_);
    self->connected_ = state == ZOO_CONNECTED_STATE;
    self->changed_.notify_all();
  }

  zhandle_t* handle_ = nullptr;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool connected_ = false;
};

// Creates `path` (or a sequential child under it), retrying while the
// connection is lost, for at most 30 s: the created path, or "".
std::string create(zhandle_t* handle, const std::string& path, const std::string& data,
                   int flags) {
  char created[512];
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    int rc = zoo_create(handle, path.c_str(), data.data(), static_cast<int>(data.size()),
                        &ZOO_OPEN_ACL_UNSAFE, flags, created, sizeof(created));
    if (rc == ZOK) return created;
    if (rc != ZCONNECTIONLOSS && rc != ZOPERATIONTIMEOUT) {
      ADD_FAILURE() << "zoo_create(" << path << "): " << zerror(rc);
      return "";
    }
    std::this_thread::sleep_for(50ms);  // the client is reconnecting
  }
  ADD_FAILURE() << "zoo_create(" << path << ") kept losing its connection for 30 s";
  return "";
}

std::string read(zhandle_t* handle, const std::string& path, int* rc) {
  char buffer[512];
  int length = sizeof(buffer);
  *rc = zoo_get(handle, path.c_str(), 0, buffer, &length, nullptr);
  return *rc == ZOK && length > 0 ? std::string(buffer, static_cast<size_t>(length)) : "";
}

TEST(ZooKeeperServerTest, AStandaloneServerKeepsEphemeralZnodesForTheirSession) {
  if (std::string why = ZooKeeperServers::unavailable(); !why.empty()) GTEST_SKIP() << why;
  ZooKeeperServers servers(1);
  ASSERT_TRUE(servers.start()) << servers.error();
  EXPECT_EQ(0, servers.leader());

  std::string member;
  {
    Session session(servers.connectString());
    ASSERT_TRUE(session.connected());
    ASSERT_EQ("/mesos", create(session.handle(), "/mesos", "", 0));
    member = create(session.handle(), "/mesos/json.info_", "{\"id\":\"a\"}",
                    ZOO_EPHEMERAL | ZOO_SEQUENCE);
    EXPECT_EQ("/mesos/json.info_0000000000", member);
    int rc = 0;
    EXPECT_EQ("{\"id\":\"a\"}", read(session.handle(), member, &rc));
  }
  // The session closed: its ephemeral znode is gone, the persistent one stays.
  Session other(servers.connectString());
  ASSERT_TRUE(other.connected());
  int rc = 0;
  read(other.handle(), member, &rc);
  EXPECT_EQ(ZNONODE, rc);
  EXPECT_EQ(ZOK, zoo_exists(other.handle(), "/mesos", 0, nullptr));
}

TEST(ZooKeeperServerTest, AnEnsembleServesAgainAfterItsLeaderIsKilled) {
  if (std::string why = ZooKeeperServers::unavailable(); !why.empty()) GTEST_SKIP() << why;
  ZooKeeperServers servers(3);
  ASSERT_TRUE(servers.start()) << servers.error();
  int leader = servers.leader();
  ASSERT_GE(leader, 0);

  Session session(servers.connectString());
  ASSERT_TRUE(session.connected());
  ASSERT_EQ("/before", create(session.handle(), "/before", "1", 0));

  servers.kill(static_cast<size_t>(leader));
  // The client moves to another server once the two left elect a leader.
  ASSERT_EQ("/after", create(session.handle(), "/after", "2", 0));
  int rc = 0;
  EXPECT_EQ("1", read(session.handle(), "/before", &rc));
  int next = servers.leader();
  EXPECT_GE(next, 0);
  EXPECT_NE(leader, next);

  // The killed server comes back as a follower, with what it missed.
  ASSERT_TRUE(servers.restart(static_cast<size_t>(leader))) << servers.error();
  Session rejoined("127.0.0.1:" + std::to_string(servers.clientPort(static_cast<size_t>(leader))));
  ASSERT_TRUE(rejoined.connected());
  EXPECT_EQ("2", read(rejoined.handle(), "/after", &rc));
}

}  // namespace
}  // namespace mesos::test
