// Limits on peers over real TCP (docs/runtime.md, "Limits on peers"): caps
// on open connections, per process and per peer address; the idle timeout
// and what it spares (peer links, answers awaited, streams); the empty lines
// that keep a link alone alive; accept() pausing while the process is out of
// descriptors; a peer that does not read taken as gone at the unsent bound;
// and bounded mailboxes for what arrives from the network.
//
// Every wait is on an event (bytes or EOF on a socket, a log line, a
// future, a change of the runtime's gauges), bounded in real time. The idle
// timeout runs on the runtime's paused clock.
#include <fcntl.h>
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "messages.pb.h"
#include "process/actor.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "support/raw_peer.hpp"

namespace process {
namespace {

using mesos::internal::FrameworkToExecutorMessage;
using mesos::test::kSocketTimeout;
using mesos::test::RawPeer;
using mesos::test::WarningLog;
using namespace std::chrono_literals;

constexpr Duration kIdleTimeout = 5min;
const std::string kMessageName = "mesos.internal.FrameworkToExecutorMessage";
const std::string kHealth = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
constexpr uint32_t kOtherLoopback = 0x7f000002;  // 127.0.0.2: another host

FrameworkToExecutorMessage note(const std::string& data) {
  FrameworkToExecutorMessage message;
  message.mutable_slave_id()->set_value("s");
  message.mutable_framework_id()->set_value("f");
  message.mutable_executor_id()->set_value("e");
  message.set_data(data);
  return message;
}

// A message as a plain HTTP client posts it: the runtime answers each one
// (202, or 503 when the receiver's mailbox is full).
std::string httpPost(const std::string& to, const UPID& from, const std::string& body) {
  return "POST /" + to + "/" + kMessageName + " HTTP/1.1\r\nUser-Agent: peer-limits-test\r\n" +
         "Libprocess-From: " + from.toString() + "\r\nHost: x\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

// The same as a libprocess peer sends it: no answer; the connection
// becomes a peer link.
std::string libprocessPost(const std::string& to, const UPID& from, const std::string& body) {
  return "POST /" + to + "/" + kMessageName + " HTTP/1.1\r\nUser-Agent: libprocess/" +
         from.toString() + "\r\nLibprocess-From: " + from.toString() +
         "\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// Counts the notes it handles; a dispatched block() holds its worker until
// release(); /held answers only when told; links on request.
class Sink : public Actor {
 public:
  Sink() : Actor("sink") {}

  std::atomic<int> handled{0};
  Promise<UPID> exitedPid;
  Promise<Nothing> blocked;

  // Holds this actor's worker until release().
  void block() {
    blocked.set(Nothing{});
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return released_; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }
  void answerHeld() { held_.set(http::Response::ok("held\n", "text/plain")); }
  void watch(const UPID& pid) { link(pid); }
  void say(const UPID& to, const std::string& data) { send(to, note(data)); }

 protected:
  void initialize() override {
    on(&Sink::onNote);
    route("/held", [this](const http::Request&) { return held_.future(); });
  }
  void exited(const UPID& pid) override { exitedPid.set(pid); }

 private:
  void onNote(const UPID&, const FrameworkToExecutorMessage&) { handled.fetch_add(1); }

  std::mutex mutex_;
  std::condition_variable changed_;
  bool released_ = false;
  Promise<http::Response> held_;
};

class PeerLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override { google::AddLogSink(&warnings_); }
  void TearDown() override {
    if (sink_) sink_->release();
    sink_.reset();
    runtime_.reset();
    google::RemoveLogSink(&warnings_);
  }

  void start(Runtime::Options options) {
    options.ip = "127.0.0.1";
    options.port = 0;
    options.workers = 2;
    options.pauseClock = true;
    auto created = Runtime::create(options);
    ASSERT_TRUE(created) << created.error().message;
    runtime_ = std::move(created).value();
    sink_ = runtime_->spawn<Sink>();
  }

  bool awaitStats(const std::function<bool(const Transport::HttpStats&)>& done) {
    return runtime_->awaitHttpStats(done, kSocketTimeout);
  }

  // The peer is served: /health answers 200 on it.
  static bool served(RawPeer& peer) {
    if (!peer.write(kHealth)) return false;
    auto response = peer.readResponse();
    return response && response->status == 200;
  }

  // The runtime closed the peer's connection without a byte.
  static bool closedSilently(RawPeer& peer) {
    std::string unread;
    RawPeer::End end = peer.readToEnd(&unread);
    return (end == RawPeer::End::kEof || end == RawPeer::End::kReset) && unread.empty();
  }

  WarningLog warnings_;
  std::unique_ptr<Runtime> runtime_;
  Spawned<Sink> sink_;
};

TEST_F(PeerLimitsTest, ConnectionsOverTheProcessCapAreRefusedUntilOneCloses) {
  Runtime::Options options;
  options.maxConnections = 3;
  start(options);
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (int i = 0; i < 3; ++i) {
    peers.push_back(std::make_unique<RawPeer>(runtime_->address()));
    ASSERT_TRUE(served(*peers.back()));
  }
  RawPeer fourth(runtime_->address());
  ASSERT_TRUE(fourth.connected());
  EXPECT_TRUE(closedSilently(fourth));
  EXPECT_TRUE(awaitStats([](const auto& s) { return s.refusedConnections == 1; }));
  EXPECT_TRUE(warnings_.await({"Refusing a connection from", "LIBPROCESS_MAX_CONNECTIONS"}))
      << warnings_.all();

  // The three are still served; once one goes, another is taken.
  for (auto& peer : peers) EXPECT_TRUE(served(*peer));
  peers.pop_back();
  ASSERT_TRUE(awaitStats([](const auto& s) { return s.openConnections == 2; }));
  RawPeer fifth(runtime_->address());
  EXPECT_TRUE(served(fifth));
  EXPECT_EQ(runtime_->httpStats().refusedConnections, 1u);
}

TEST_F(PeerLimitsTest, ConnectionsFromOneAddressAreCappedAndOtherAddressesServed) {
  Runtime::Options options;
  options.maxConnectionsPerPeer = 2;
  start(options);
  RawPeer first(runtime_->address());
  RawPeer second(runtime_->address());
  ASSERT_TRUE(served(first));
  ASSERT_TRUE(served(second));
  RawPeer third(runtime_->address());
  ASSERT_TRUE(third.connected());
  EXPECT_TRUE(closedSilently(third));
  EXPECT_TRUE(awaitStats([](const auto& s) { return s.refusedFromPeer == 1; }));
  EXPECT_TRUE(warnings_.await({"Refusing a connection from 127.0.0.1:",
                               "LIBPROCESS_MAX_CONNECTIONS_PER_PEER"}))
      << warnings_.all();

  // Another host is not held to what 127.0.0.1 used.
  RawPeer other(runtime_->address(), 0, kOtherLoopback);
  ASSERT_TRUE(other.connected()) << "cannot connect from 127.0.0.2";
  EXPECT_TRUE(served(other));
  EXPECT_TRUE(served(first));
  EXPECT_EQ(runtime_->httpStats().refusedConnections, 0u);
}

TEST_F(PeerLimitsTest, IdleConnectionsAreClosedButPeerLinksWaitersAndStreamsStay) {
  Runtime::Options options;
  options.idleTimeout = kIdleTimeout;
  start(options);
  UPID from("peer", Address{0x7f000001, 1});
  RawPeer silent(runtime_->address());           // never sends a byte
  RawPeer answered(runtime_->address());         // asked once, then quiet
  RawPeer link(runtime_->address());             // carried a message
  RawPeer waiting(runtime_->address());          // awaits an answer
  ASSERT_TRUE(served(answered));
  auto note1 = runtime_->hooks().await<FrameworkToExecutorMessage>(from);
  ASSERT_TRUE(link.write(libprocessPost("sink", from, note("one").SerializeAsString())));
  ASSERT_TRUE(note1.await(kSocketTimeout));
  ASSERT_TRUE(waiting.write("GET /sink/held HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(awaitStats([](const auto& s) { return s.openConnections == 4 && s.reservedBytes > 0; }));

  // Not yet: a second short of the timeout.
  runtime_->clock().advance(kIdleTimeout - 1s);
  runtime_->clock().advance(1s - 1ms);
  EXPECT_TRUE(served(answered));  // and this starts its time again

  runtime_->clock().advance(kIdleTimeout);
  ASSERT_TRUE(awaitStats([](const auto& s) { return s.closedIdle == 2 && s.openConnections == 2; }))
      << "closed idle: " << runtime_->httpStats().closedIdle;
  EXPECT_TRUE(closedSilently(silent));
  EXPECT_TRUE(closedSilently(answered));

  // The link still carries messages; the waiter gets its answer.
  auto note2 = runtime_->hooks().await<FrameworkToExecutorMessage>(from);
  ASSERT_TRUE(link.write(libprocessPost("sink", from, note("two").SerializeAsString())));
  EXPECT_TRUE(note2.await(kSocketTimeout));
  dispatch(sink_.pid(), [sink = sink_.get()] { sink->answerHeld(); });
  auto response = waiting.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->body, "held\n");
  EXPECT_TRUE(warnings_.all().find("sent nothing") == std::string::npos)
      << "idle closes are logged at INFO, not as warnings:\n" << warnings_.all();
}

// A test-side server: accepts one connection and reads from it.
class RawServer {
 public:
  RawServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(0x7f000001);
    socklen_t length = sizeof(address);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    address_ = Address{0x7f000001, ntohs(address.sin_port)};
  }
  ~RawServer() {
    if (fd_ >= 0) ::close(fd_);
    if (accepted_ >= 0) ::close(accepted_);
  }
  const Address& address() const { return address_; }
  // Shrinks the receive buffer of connections accepted from now on.
  void smallReceiveBuffer() {
    int bytes = 4096;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
  }

  // Waits (bounded) for a connection.
  bool accept() {
    pollfd readable{fd_, POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(kSocketTimeout / 1ms)) != 1) return false;
    accepted_ = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    return accepted_ >= 0;
  }

  // Reads until what came holds `marker` (bounded).
  std::string readUntil(const std::string& marker) {
    std::string got;
    while (got.find(marker) == std::string::npos) {
      std::string more = read(1);
      if (more.empty()) break;
      got += more;
    }
    return got;
  }

  // Reads until `bytes` have come or `wait` has passed with nothing more.
  std::string read(size_t bytes, Duration wait = kSocketTimeout) {
    std::string got;
    while (got.size() < bytes) {
      pollfd readable{accepted_, POLLIN, 0};
      if (::poll(&readable, 1, static_cast<int>(wait / 1ms)) != 1) break;
      char buffer[4096];
      ssize_t n = ::recv(accepted_, buffer, std::min(sizeof(buffer), bytes - got.size()), 0);
      if (n <= 0) break;
      got.append(buffer, static_cast<size_t>(n));
    }
    return got;
  }

 private:
  int fd_ = -1;
  int accepted_ = -1;
  Address address_{};
};

TEST_F(PeerLimitsTest, ALinkAloneSendsEmptyLinesUntilItCarriesAMessage) {
  Runtime::Options options;
  options.idleTimeout = kIdleTimeout;
  start(options);
  RawServer server;
  ASSERT_NE(server.address().port, 0);
  UPID remote("remote", server.address());
  dispatch(sink_.pid(), [sink = sink_.get(), remote] { sink->watch(remote); });
  ASSERT_TRUE(server.accept());

  // Every quarter of the idle timeout, the peer hears an empty line. (The
  // first sweep may come before the runtime has seen its connection made:
  // a few more are allowed for it.)
  std::string first;
  for (int i = 0; i < 4 && first.empty(); ++i) {
    runtime_->clock().advance(kIdleTimeout / 4);
    first = server.read(2, 1s);
  }
  EXPECT_EQ(first, "\r\n");
  for (int i = 0; i < 2; ++i) {
    runtime_->clock().advance(kIdleTimeout / 4);
    EXPECT_EQ(server.read(2), "\r\n") << "sweep " << i;
  }

  // A message makes it a peer link: no empty line after it.
  dispatch(sink_.pid(), [sink = sink_.get(), remote] { sink->say(remote, "hello"); });
  std::string one = server.readUntil("hello");
  EXPECT_TRUE(one.starts_with("POST ")) << one;
  EXPECT_EQ(server.readUntil("0\r\n\r\n"), "\r\n0\r\n\r\n");  // its last chunk
  runtime_->clock().advance(kIdleTimeout / 4);
  runtime_->clock().advance(kIdleTimeout / 4);
  dispatch(sink_.pid(), [sink = sink_.get(), remote] { sink->say(remote, "again"); });
  std::string two = server.readUntil("again");
  EXPECT_TRUE(two.starts_with("POST ")) << "something came between the messages: " << two;
  EXPECT_FALSE(sink_->exitedPid.future().isReady());
}

TEST_F(PeerLimitsTest, PeerThatDoesNotReadIsTakenAsGoneAtTheUnsentBound) {
  Runtime::Options options;
  options.maxUnsentBytesPerPeer = 1024 * 1024;
  start(options);
  RawServer server;
  server.smallReceiveBuffer();
  UPID remote("remote", server.address());
  dispatch(sink_.pid(), [sink = sink_.get(), remote] { sink->watch(remote); });
  ASSERT_TRUE(server.accept());

  // It never reads: the kernel takes a little, the rest queues, and past
  // a megabyte the connection goes.
  std::string data(256 * 1024, 'x');
  UPID from("sender", runtime_->address());
  for (int i = 0; i < 400 && runtime_->httpStats().droppedNotReadingPeer == 0; ++i) {
    runtime_->send(from, remote, note(data));
  }
  ASSERT_TRUE(awaitStats([](const auto& s) { return s.droppedNotReadingPeer >= 1; }));
  auto exited = sink_->exitedPid.future();
  ASSERT_TRUE(exited.await(kSocketTimeout));
  EXPECT_EQ(exited.get(), remote);
  EXPECT_TRUE(warnings_.await({"Dropping the connection to " + server.address().toString(),
                               "it is not reading"}))
      << warnings_.all();
}

TEST_F(PeerLimitsTest, FullMailboxRefusesNetworkMessagesAndRequestsUntilItDrains) {
  Runtime::Options options;
  options.maxMailboxBytes = 64 * 1024;
  start(options);
  dispatch(sink_.pid(), [sink = sink_.get()] { sink->block(); });
  ASSERT_TRUE(sink_->blocked.future().await(kSocketTimeout));
  // The sink is busy; what arrives queues in its mailbox.
  UPID from("peer", Address{0x7f000001, 1});
  std::string body = note(std::string(30 * 1024, 'x')).SerializeAsString();
  RawPeer peer(runtime_->address());
  std::vector<int> statuses;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(peer.write(httpPost("sink", from, body)));
    auto response = peer.readResponse();
    ASSERT_TRUE(response.has_value());
    statuses.push_back(response->status);
  }
  EXPECT_EQ(statuses, (std::vector<int>{202, 202, 503, 503}));
  ASSERT_TRUE(peer.write("POST /sink/held HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\n\r\n" + body));
  auto refused = peer.readResponse();
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 503);
  EXPECT_EQ(refused->body, "the actor's mailbox is full\n");
  EXPECT_EQ(runtime_->mailboxRefusals(), 3u);
  EXPECT_EQ(warnings_.count("LIBPROCESS_MAX_MAILBOX_BYTES"), 1u) << warnings_.all();

  // Messages from this process are never refused.
  runtime_->send(from, sink_.pid(), note("local"));

  // Drained, it takes messages again.
  sink_->release();
  runtime_->settle();
  EXPECT_EQ(sink_->handled.load(), 3);
  auto delivered = runtime_->hooks().await<FrameworkToExecutorMessage>(from);
  ASSERT_TRUE(peer.write(httpPost("sink", from, body)));
  auto accepted = peer.readResponse();
  ASSERT_TRUE(accepted.has_value());
  EXPECT_EQ(accepted->status, 202);
  ASSERT_TRUE(delivered.await(kSocketTimeout));
  runtime_->settle();
  EXPECT_EQ(sink_->handled.load(), 4);  // two, the local one, and the last
}

TEST_F(PeerLimitsTest, AcceptPausesWhileOutOfDescriptorsAndResumes) {
  Runtime::Options options;
  options.maxConnections = 1000;
  start(options);
  constexpr int kClients = 6;
  std::vector<int> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  // One descriptor left: the lowest free one.
  int lowest = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(lowest, 0);
  ::close(lowest);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit tight = saved;
  tight.rlim_cur = static_cast<rlim_t>(lowest) + 1;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &tight), 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(runtime_->address().port);
  address.sin_addr.s_addr = htonl(runtime_->address().ip);
  for (int fd : clients) {
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  }
  bool paused = awaitStats([](const auto& s) { return s.acceptPauses >= 1; });
  size_t openWhileOut = runtime_->httpStats().openConnections;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
  EXPECT_TRUE(paused);
  EXPECT_LE(openWhileOut, 1u);
  EXPECT_TRUE(warnings_.await({"Cannot accept connections", "trying again in"}))
      << warnings_.all();

  // With descriptors back, every waiting client is taken and served.
  EXPECT_TRUE(awaitStats([](const auto& s) { return s.openConnections == kClients; }))
      << runtime_->httpStats().openConnections;
  for (int fd : clients) {
    ASSERT_EQ(::send(fd, kHealth.data(), kHealth.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(kHealth.size()));
    pollfd readable{fd, POLLIN, 0};
    EXPECT_EQ(::poll(&readable, 1, static_cast<int>(kSocketTimeout / 1ms)), 1);
    char buffer[64] = {};
    EXPECT_GT(::recv(fd, buffer, sizeof(buffer) - 1, 0), 0);
    EXPECT_TRUE(std::string(buffer).starts_with("HTTP/1.1 200")) << buffer;
    ::close(fd);
  }
}

TEST(PeerLimitsOptionsTest, EnvironmentSetsTheLimitsAndRefusesNonsense) {
  struct Variable {
    const char* name;
    const char* value;
  };
  auto with = [](std::vector<Variable> variables) {
    for (const auto& v : variables) ::setenv(v.name, v.value, 1);
    auto options = Runtime::withEnvironment(Runtime::Options{});
    for (const auto& v : variables) ::unsetenv(v.name);
    return options;
  };
  auto options = with({{"LIBPROCESS_MAX_CONNECTIONS", "5000"},
                       {"LIBPROCESS_MAX_CONNECTIONS_PER_PEER", "64"},
                       {"LIBPROCESS_IDLE_TIMEOUT", "90secs"},
                       {"LIBPROCESS_MAX_UNSENT_BYTES", "8MB"},
                       {"LIBPROCESS_MAX_MAILBOX_BYTES", "1GB"}});
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->maxConnections, 5000u);
  EXPECT_EQ(options->maxConnectionsPerPeer, 64u);
  EXPECT_EQ(options->idleTimeout, Duration(90s));
  EXPECT_EQ(options->maxUnsentBytesPerPeer, 8u << 20);
  EXPECT_EQ(options->maxMailboxBytes, size_t{1} << 30);

  auto defaults = with({});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->maxConnectionsPerPeer, 1024u);
  EXPECT_EQ(defaults->idleTimeout, Duration(5min));

  for (Variable bad : std::vector<Variable>{{"LIBPROCESS_MAX_CONNECTIONS", "many"},
                                            {"LIBPROCESS_MAX_CONNECTIONS_PER_PEER", "0"},
                                            {"LIBPROCESS_IDLE_TIMEOUT", "5"},
                                            {"LIBPROCESS_MAX_UNSENT_BYTES", "0MB"},
                                            {"LIBPROCESS_MAX_MAILBOX_BYTES", "lots"}}) {
    auto refused = with({bad});
    ASSERT_FALSE(refused) << bad.name << "=" << bad.value;
    EXPECT_NE(refused.error().message.find(bad.name), std::string::npos)
        << refused.error().message;
  }
}

}  // namespace
}  // namespace process
