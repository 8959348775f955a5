// Interoperability with mesos-go: a real mesos-go v0 messenger (the Go
// program tests/interop/go/src/mesosinterop/echo_client, built by
// tests/interop/CMakeLists.txt) talks to an actor of ours over TCP.
//
// The Go side sends libprocess messages the way mesos-go frameworks do (POST
// with Content-Length, `Libprocess-From`, a Go User-Agent, and a wait for
// `202 Accepted` before the next message on its keep-alive connection) and
// receives our replies on its own HTTP server, which insists on a Host header
// and `Connection: Keep-Alive`. The tests check both directions: the bytes
// the runtime decoded and delivered (seen through Hooks), and the replies the
// Go program printed.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "interop/go_probes.hpp"
#include "messages.pb.h"
#include "process/runtime.hpp"
#include "support/subprocess.hpp"

extern char** environ;

namespace {

using mesos::test::ChildResult;
using mesos::test::runChild;

using mesos::internal::ExecutorToFrameworkMessage;
using mesos::internal::FrameworkToExecutorMessage;
using process::Actor;
using process::Hooks;
using process::MessageEvent;
using process::MessageMatch;
using process::Runtime;
using process::Spawned;
using process::UPID;

// Real-time bound on one run of the Go program; it is killed after this.
constexpr auto kChildLimit = std::chrono::seconds(30);
// What the Go program itself waits for its replies (below kChildLimit, so
// that a lost reply shows up as its exit status 1 rather than as a kill).
constexpr const char* kClientTimeout = "--timeout=20s";

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

// The UPID echo_client reports on stderr ("self: <upid>").
mesos::Result<UPID> clientSelf(const ChildResult& result) {
  for (const std::string& line : lines(result.err)) {
    if (line.starts_with("self: ")) return UPID::parse(line.substr(6));
  }
  return mesos::Error{"echo_client printed no 'self: <upid>' line on stderr"};
}

// ---------------------------------------------------------------------------
// The actor under test, and a recorder of the traffic it sees.

// Answers every FrameworkToExecutorMessage with an ExecutorToFrameworkMessage
// carrying the same ids and "echo:" + data, sent back to the sender.
class EchoActor : public Actor {
 public:
  EchoActor() : Actor("echo") {}

 protected:
  void initialize() override { on(&EchoActor::echo); }

 private:
  void echo(const UPID& from, const FrameworkToExecutorMessage& message) {
    ExecutorToFrameworkMessage reply;
    *reply.mutable_slave_id() = message.slave_id();
    *reply.mutable_framework_id() = message.framework_id();
    *reply.mutable_executor_id() = message.executor_id();
    reply.set_data("echo:" + message.data());
    send(from, std::move(reply));
  }
};

// Records every message that matches, including the connection it arrived
// on (MessageEvent::peer). Built on Hooks::await: each await is re-armed from
// the completion of the previous one, which runs inside Hooks::decide() on
// the delivering thread, before that thread can deliver the next message.
// Messages from the network are all delivered by the one I/O thread, and an
// actor's sends happen one event at a time, so none is missed.
class Recorder {
 public:
  static std::shared_ptr<Recorder> start(Hooks& hooks, MessageMatch match) {
    auto recorder = std::shared_ptr<Recorder>(new Recorder(std::move(match)));
    arm(hooks, recorder);
    return recorder;
  }

  // Waits (real time) until at least `n` messages were recorded.
  bool waitFor(size_t n, std::chrono::seconds timeout = std::chrono::seconds(15)) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return events_.size() >= n; });
  }

  std::vector<MessageEvent> events() {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_;
  }

 private:
  explicit Recorder(MessageMatch match) : match_(std::move(match)) {}

  // The callback holds the recorder only weakly, and the future it completes
  // is kept here, not in the callback: no cycle keeps either alive once the
  // test drops the recorder and the runtime (with its pending await) goes.
  static void arm(Hooks& hooks, const std::shared_ptr<Recorder>& self) {
    process::Future<MessageEvent> next = hooks.await(self->match_);
    {
      std::lock_guard<std::mutex> lock(self->mutex_);
      self->pending_ = next;
    }
    std::weak_ptr<Recorder> weak = self;
    next.onAny([&hooks, weak] {
      std::shared_ptr<Recorder> self = weak.lock();
      if (!self) return;
      process::Future<MessageEvent> done;
      {
        std::lock_guard<std::mutex> lock(self->mutex_);
        done = self->pending_;
      }
      if (!done.isReady()) return;
      arm(hooks, self);
      {
        std::lock_guard<std::mutex> lock(self->mutex_);
        self->events_.push_back(done.get());
      }
      self->changed_.notify_all();
    });
  }

  MessageMatch match_;
  std::mutex mutex_;
  std::condition_variable changed_;
  process::Future<MessageEvent> pending_;  // the await armed last
  std::vector<MessageEvent> events_;
};

// Where echo_client should be, or (returned empty, with `why`) why it is not.
std::string findEchoClient(std::string* why) {
  const std::string missing = MESOS_INTEROP_GO_MISSING;
  if (!missing.empty()) {
    *why = "mesos-go interop probe not built: " + missing;
    return "";
  }
  std::string path = std::string(MESOS_INTEROP_GO_BIN) + "/echo_client";
  if (access(path.c_str(), X_OK) != 0) {
    *why = path + " is missing (" + std::strerror(errno) +
           "); the mesos-interop-go build target makes it with tests/interop/go/build.sh, "
           "which needs golang-go and golang-github-mesos-mesos-go-dev";
    return "";
  }
  return path;
}

class MesosGoInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    client_ = findEchoClient(&why);
    if (client_.empty()) GTEST_SKIP() << why;

    Runtime::Options options;
    options.ip = "127.0.0.1";
    options.port = 0;
    options.workers = 2;
    auto created = Runtime::create(options);
    ASSERT_TRUE(created.ok()) << created.error().message;
    runtime_ = std::move(created).value();
    echo_ = runtime_->spawn<EchoActor>();
    target_ = echo_.pid().toString();
    ASSERT_EQ(target_, "echo@127.0.0.1:" + std::to_string(runtime_->address().port));

    inbound_ = Recorder::start(runtime_->hooks(),
                               MessageMatch{FrameworkToExecutorMessage::descriptor()->full_name(),
                                            std::nullopt, echo_.pid()});
    outbound_ = Recorder::start(runtime_->hooks(),
                                MessageMatch{ExecutorToFrameworkMessage::descriptor()->full_name(),
                                             echo_.pid(), std::nullopt});
  }

  ChildResult runClient(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {client_, "--target=" + target_, kClientTimeout};
    args.insert(args.end(), extra.begin(), extra.end());
    return runChild(args, kChildLimit);
  }

  // Stops the actor and the runtime; returns how long that took.
  std::chrono::steady_clock::duration stopRuntime() {
    auto start = std::chrono::steady_clock::now();
    outbound_.reset();
    inbound_.reset();
    echo_.reset();
    runtime_.reset();
    return std::chrono::steady_clock::now() - start;
  }

  // Checks one message the echo actor received from the Go client.
  static void expectRequest(const MessageEvent& event, const UPID& client,
                            const std::string& data) {
    EXPECT_EQ(event.from, client) << "the sender should be the Go messenger's own UPID";
    EXPECT_EQ(event.to.id, "echo");
    EXPECT_TRUE(event.peer.starts_with("127.0.0.1:")) << event.peer;
    FrameworkToExecutorMessage message;
    ASSERT_TRUE(event.parse(&message)) << "body of " << event.body.size() << " bytes";
    EXPECT_EQ(message.slave_id().value(), "s1");
    EXPECT_EQ(message.framework_id().value(), "f1");
    EXPECT_EQ(message.executor_id().value(), "e1");
    EXPECT_EQ(message.data(), data);
  }

  // Checks one reply the echo actor sent back.
  static void expectReply(const MessageEvent& event, const UPID& client,
                          const std::string& data) {
    EXPECT_EQ(event.to, client);
    EXPECT_EQ(event.from.id, "echo");
    ExecutorToFrameworkMessage message;
    ASSERT_TRUE(event.parse(&message));
    EXPECT_EQ(message.slave_id().value(), "s1");
    EXPECT_EQ(message.framework_id().value(), "f1");
    EXPECT_EQ(message.executor_id().value(), "e1");
    EXPECT_EQ(message.data(), data);
  }

  std::string client_;
  std::string target_;
  // Declared before echo_: the actor must go before its runtime.
  std::unique_ptr<Runtime> runtime_;
  Spawned<EchoActor> echo_;
  std::shared_ptr<Recorder> inbound_;
  std::shared_ptr<Recorder> outbound_;
};

TEST_F(MesosGoInteropTest, RoundTrip) {
  ChildResult result = runClient({"--data=hello"});
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  EXPECT_EQ(result.out, "reply: echo:hello\n") << result.describe();
  auto client = clientSelf(result);
  ASSERT_TRUE(client.ok()) << client.error().message << "\n" << result.describe();
  EXPECT_EQ(client->id, "echo_client");
  EXPECT_EQ(client->address.ipString(), "127.0.0.1");
  EXPECT_NE(client->address.port, 0);

  ASSERT_TRUE(inbound_->waitFor(1));
  ASSERT_TRUE(outbound_->waitFor(1));
  std::vector<MessageEvent> requests = inbound_->events();
  std::vector<MessageEvent> replies = outbound_->events();
  ASSERT_EQ(requests.size(), 1u);
  ASSERT_EQ(replies.size(), 1u);
  expectRequest(requests[0], *client, "hello");
  expectReply(replies[0], *client, "echo:hello");
}

// Several messages in a row: mesos-go sends them one after another on one
// keep-alive connection (each waiting for our 202), and receives the replies
// on one connection of ours.
TEST_F(MesosGoInteropTest, SeveralMessagesOnOneConnection) {
  constexpr int kCount = 5;
  ChildResult result = runClient({"--data=m", "--count=" + std::to_string(kCount)});
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  std::string expected;
  for (int i = 1; i <= kCount; ++i) expected += "reply: echo:m-" + std::to_string(i) + "\n";
  EXPECT_EQ(result.out, expected) << result.describe();
  auto client = clientSelf(result);
  ASSERT_TRUE(client.ok()) << client.error().message << "\n" << result.describe();

  ASSERT_TRUE(inbound_->waitFor(kCount));
  ASSERT_TRUE(outbound_->waitFor(kCount));
  std::vector<MessageEvent> requests = inbound_->events();
  std::vector<MessageEvent> replies = outbound_->events();
  ASSERT_EQ(requests.size(), static_cast<size_t>(kCount));
  ASSERT_EQ(replies.size(), static_cast<size_t>(kCount));
  for (int i = 0; i < kCount; ++i) {
    SCOPED_TRACE("message " + std::to_string(i + 1));
    expectRequest(requests[i], *client, "m-" + std::to_string(i + 1));
    expectReply(replies[i], *client, "echo:m-" + std::to_string(i + 1));
    EXPECT_EQ(requests[i].peer, requests[0].peer)
        << "mesos-go should have reused its keep-alive connection";
  }
}

// One client after another against the same runtime: each is a new peer
// (new connection in, new address to reply to) while the connections to the
// previous, exited, clients go away.
TEST_F(MesosGoInteropTest, SuccessiveClients) {
  constexpr int kRuns = 3;
  std::vector<UPID> clients;
  for (int i = 1; i <= kRuns; ++i) {
    SCOPED_TRACE("run " + std::to_string(i));
    std::string data = "run" + std::to_string(i);
    ChildResult result = runClient({"--data=" + data});
    ASSERT_TRUE(result.exitedWith(0)) << result.describe();
    EXPECT_EQ(result.out, "reply: echo:" + data + "\n") << result.describe();
    auto client = clientSelf(result);
    ASSERT_TRUE(client.ok()) << client.error().message << "\n" << result.describe();
    clients.push_back(*client);

    ASSERT_TRUE(inbound_->waitFor(i));
    ASSERT_TRUE(outbound_->waitFor(i));
    expectRequest(inbound_->events().back(), *client, data);
    expectReply(outbound_->events().back(), *client, "echo:" + data);
  }
  std::set<uint16_t> ports;
  for (const UPID& client : clients) ports.insert(client.address.port);
  EXPECT_EQ(ports.size(), clients.size()) << "each run should have had its own address";
  EXPECT_EQ(inbound_->events().size(), static_cast<size_t>(kRuns));
  EXPECT_EQ(outbound_->events().size(), static_cast<size_t>(kRuns));
}

// A payload larger than one read on either side (the runtime reads 64 KiB at
// a time; mesos-go reads through a 4 KiB bufio.Reader), in both directions:
// Content-Length in, one large chunk out.
TEST_F(MesosGoInteropTest, LargePayload) {
  // Below Linux's 128 KiB limit on one command-line argument.
  std::string data(100 * 1000, 'x');
  for (size_t i = 0; i < data.size(); i += 997) data[i] = static_cast<char>('a' + i % 26);
  ChildResult result = runClient({"--data=" + data});
  ASSERT_TRUE(result.exitedWith(0)) << result.describe().substr(0, 4096);
  EXPECT_TRUE(result.out == "reply: echo:" + data + "\n")
      << "stdout has " << result.out.size() << " bytes";
  auto client = clientSelf(result);
  ASSERT_TRUE(client.ok()) << client.error().message;

  ASSERT_TRUE(inbound_->waitFor(1));
  ASSERT_TRUE(outbound_->waitFor(1));
  expectRequest(inbound_->events()[0], *client, data);
  expectReply(outbound_->events()[0], *client, "echo:" + data);

  // The request came in over several reads, so the runtime armed its stall
  // timer (Options::requestTimeout, 60 s) meanwhile. Stopping the runtime
  // must not wait for that timer's deadline.
  auto took = stopRuntime();
  EXPECT_LT(took, std::chrono::seconds(10))
      << "stopping the runtime took "
      << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
}

// A message to an actor that does not exist is refused with 404, which
// mesos-go reports as a send error (echo_client's exit status 2).
TEST_F(MesosGoInteropTest, UnknownReceiverIsRefused) {
  std::string target = "nobody@127.0.0.1:" + std::to_string(runtime_->address().port);
  ChildResult result =
      runChild({client_, "--target=" + target, kClientTimeout, "--data=lost"}, kChildLimit);
  ASSERT_TRUE(result.exitedWith(2)) << result.describe();
  EXPECT_NE(result.err.find("404"), std::string::npos) << result.describe();
  EXPECT_EQ(result.out, "");
  EXPECT_TRUE(inbound_->events().empty());
  EXPECT_TRUE(outbound_->events().empty());
}

}  // namespace
