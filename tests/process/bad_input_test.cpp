// Bad input over real TCP: a runtime listening on 127.0.0.1 is fed garbage,
// truncated, oversized, misaddressed, unparsable, silent and stalled
// requests from raw sockets. Each test checks the answer the runtime owes
// (if any), that it closes a stream it cannot resynchronise, that it logs one
// warning naming the peer, and that afterwards a well-formed message from
// another connection still reaches the actor.
//
// Waiting is always on an event (a future, a log line, bytes or EOF on a
// socket), bounded by a generous real-time limit so that a broken runtime
// fails the test instead of hanging it (support/raw_peer.hpp).
#include <gtest/gtest.h>
#include <glog/logging.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages.pb.h"
#include "process/actor.hpp"
#include "process/runtime.hpp"
#include "support/raw_peer.hpp"

namespace process {
namespace {

using mesos::internal::FrameworkToExecutorMessage;
using mesos::test::kSocketTimeout;
using mesos::test::RawPeer;
using mesos::test::WarningLog;
using namespace std::chrono_literals;

constexpr size_t kMaxBodyBytes = 1024;
constexpr Duration kRequestTimeout = 30s;
const std::string kMessageName = "mesos.internal.FrameworkToExecutorMessage";

// What the echo actor's handler saw, readable from the test thread.
class Recorder {
 public:
  // Completes with the sender once a message carrying `data` is handled.
  // REQUIRES: called before that message can arrive.
  Future<std::string> handled(const std::string& data) {
    std::lock_guard<std::mutex> lock(mutex_);
    return waiting_[data].future();
  }

  void record(const UPID& from, const FrameworkToExecutorMessage& message) {
    std::lock_guard<std::mutex> lock(mutex_);
    data_.push_back(message.data());
    auto it = waiting_.find(message.data());
    if (it != waiting_.end()) it->second.set(from.toString());
  }

  std::vector<std::string> data() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return data_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> data_;
  std::map<std::string, Promise<std::string>> waiting_;
};

class EchoActor : public Actor {
 public:
  explicit EchoActor(std::shared_ptr<Recorder> recorder)
      : Actor("echo"), recorder_(std::move(recorder)) {}

 protected:
  void initialize() override { on(&EchoActor::frameworkToExecutor); }

 private:
  void frameworkToExecutor(const UPID& from, const FrameworkToExecutorMessage& message) {
    recorder_->record(from, message);
  }

  std::shared_ptr<Recorder> recorder_;
};

std::string messageBody(const std::string& data) {
  FrameworkToExecutorMessage message;
  message.mutable_slave_id()->set_value("slave");
  message.mutable_framework_id()->set_value("framework");
  message.mutable_executor_id()->set_value("executor");
  message.set_data(data);
  return message.SerializeAsString();
}

// A message as a libprocess peer sends it: the runtime answers nothing.
std::string libprocessPost(const std::string& to, const std::string& name, const UPID& from,
                           const std::string& body) {
  return "POST /" + to + "/" + name + " HTTP/1.1\r\nUser-Agent: libprocess/" + from.toString() +
         "\r\nLibprocess-From: " + from.toString() +
         "\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// A message as a plain HTTP client sends it (Libprocess-From, no libprocess
// User-Agent): the runtime answers every one.
std::string httpPost(const std::string& to, const std::string& name, const std::string& from,
                     const std::string& body) {
  return "POST /" + to + "/" + name + " HTTP/1.1\r\nUser-Agent: bad-input-test\r\n" +
         "Libprocess-From: " + from + "\r\nHost: x\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

const std::string kHealth = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";

UPID sender(const std::string& tag) { return UPID(tag, Address{0x7f000001, 1}); }

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    google::AddLogSink(&warnings_);
    Runtime::Options options;
    options.ip = "127.0.0.1";
    options.port = 0;
    options.workers = 2;
    options.maxBodyBytes = kMaxBodyBytes;
    options.requestTimeout = kRequestTimeout;
    options.pauseClock = true;
    auto created = Runtime::create(options);
    ASSERT_TRUE(created) << created.error().message;
    runtime_ = std::move(created).value();
    recorder_ = std::make_shared<Recorder>();
    echo_ = runtime_->spawn<EchoActor>(recorder_);
  }

  void TearDown() override {
    echo_.reset();
    runtime_.reset();
    google::RemoveLogSink(&warnings_);
  }

  // Sends a well-formed message tagged `tag` on a new connection and checks
  // that it is delivered to, and handled by, the echo actor.
  void expectStillServed(const std::string& tag) {
    UPID from = sender("good-" + tag);
    Future<FrameworkToExecutorMessage> delivered =
        runtime_->hooks().await<FrameworkToExecutorMessage>(from);
    Future<std::string> handled = recorder_->handled(tag);
    RawPeer peer(runtime_->address());
    ASSERT_TRUE(peer.connected());
    ASSERT_TRUE(peer.write(libprocessPost("echo", kMessageName, from, messageBody(tag))));
    ASSERT_TRUE(delivered.await(kSocketTimeout)) << "message '" << tag << "' never delivered";
    ASSERT_TRUE(delivered.isReady()) << delivered.failure();
    EXPECT_EQ(delivered.get().data(), tag);
    ASSERT_TRUE(handled.await(kSocketTimeout)) << "message '" << tag << "' never handled";
    EXPECT_EQ(handled.get(), from.toString());
  }

  // Waits for one warning naming `peer` and mentioning `what`, and checks
  // that it is the only warning naming that peer.
  void expectOneWarning(const std::string& peer, const std::string& what) {
    ASSERT_TRUE(warnings_.await({peer, what}))
        << "no warning naming " << peer << " and '" << what << "'; warnings:\n"
        << warnings_.all();
    EXPECT_EQ(warnings_.count(peer), 1u) << warnings_.all();
  }

  WarningLog warnings_;
  std::unique_ptr<Runtime> runtime_;
  std::shared_ptr<Recorder> recorder_;
  Spawned<EchoActor> echo_;
};

TEST_F(BadInputTest, GarbageGets400AndTheConnectionIsClosed) {
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  // The start of a TLS ClientHello, then a blank line.
  ASSERT_TRUE(peer.write(std::string("\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03", 11) +
                         "\r\n\r\n"));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 400);
  EXPECT_EQ(response->headers["connection"], "close");
  std::string unread;
  EXPECT_EQ(peer.readToEnd(&unread), RawPeer::End::kEof);
  EXPECT_EQ(unread, "");
  expectOneWarning(peer.localAddress(), "malformed request line");
  expectStillServed("after-garbage");
}

TEST_F(BadInputTest, GarbageWithoutLineEndsGets431) {
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  // More than the 64 KB a request head may take, and no blank line.
  ASSERT_TRUE(peer.write(std::string(64 * 1024 + 16, 'G')));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 431);
  std::string unread;
  EXPECT_EQ(peer.readToEnd(&unread), RawPeer::End::kEof);
  expectOneWarning(peer.localAddress(), "request head exceeds");
  expectStillServed("after-long-garbage");
}

TEST_F(BadInputTest, MessagesBeforeGarbageOnTheSameConnectionAreDelivered) {
  UPID from = sender("before-garbage");
  Future<std::string> handled = recorder_->handled("before-garbage");
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.write(libprocessPost("echo", kMessageName, from, messageBody("before-garbage")) +
                         "NOT HTTP AT ALL\r\n\r\n"));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 400);
  std::string unread;
  EXPECT_EQ(peer.readToEnd(&unread), RawPeer::End::kEof);
  ASSERT_TRUE(handled.await(kSocketTimeout));
  EXPECT_EQ(handled.get(), from.toString());
  expectStillServed("after-trailing-garbage");
}

TEST_F(BadInputTest, TruncatedRequestIsDroppedWhenThePeerCloses) {
  UPID from = sender("truncated");
  auto delivered = runtime_->hooks().count<FrameworkToExecutorMessage>(from);
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  std::string message = libprocessPost("echo", kMessageName, from, messageBody("truncated"));
  ASSERT_TRUE(peer.write(message.substr(0, message.size() - 5)));
  peer.shutdownWrite();
  // A libprocess peer is owed no answer; the runtime just closes.
  std::string unread;
  EXPECT_EQ(peer.readToEnd(&unread), RawPeer::End::kEof);
  EXPECT_EQ(unread, "");
  expectOneWarning(peer.localAddress(), "in the middle of a request");
  expectStillServed("after-truncated");
  EXPECT_EQ(delivered->load(), 0u);
  EXPECT_EQ(recorder_->data(), std::vector<std::string>{"after-truncated"});
}

TEST_F(BadInputTest, ResetInTheMiddleOfABodyIsDropped) {
  UPID from = sender("reset");
  auto delivered = runtime_->hooks().count<FrameworkToExecutorMessage>(from);
  std::string address;
  {
    RawPeer peer(runtime_->address());
    ASSERT_TRUE(peer.connected());
    address = peer.localAddress();
    std::string message = libprocessPost("echo", kMessageName, from, messageBody("reset"));
    ASSERT_TRUE(peer.write(message.substr(0, message.size() - 3)));
    peer.reset();
  }
  expectOneWarning(address, "in the middle of a request");
  expectStillServed("after-reset");
  EXPECT_EQ(delivered->load(), 0u);
}

TEST_F(BadInputTest, OversizedBodyGets413WithoutWaitingForTheBody) {
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  UPID from = sender("oversized");
  // The head alone: the runtime must answer before any of the body arrives.
  ASSERT_TRUE(peer.write("POST /echo/" + kMessageName + " HTTP/1.1\r\nUser-Agent: libprocess/" +
                         from.toString() + "\r\nLibprocess-From: " + from.toString() +
                         "\r\nContent-Length: 4096\r\n\r\n"));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 413);
  EXPECT_EQ(response->headers["connection"], "close");
  std::string unread;
  EXPECT_EQ(peer.readToEnd(&unread), RawPeer::End::kEof);
  expectOneWarning(peer.localAddress(), "4096");
  expectStillServed("after-oversized");
}

TEST_F(BadInputTest, OversizedChunkGets413WithoutWaitingForIt) {
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.write("POST /echo/" + kMessageName +
                         " HTTP/1.1\r\nLibprocess-From: x@127.0.0.1:1\r\n"
                         "Transfer-Encoding: chunked\r\n\r\n200\r\n" +
                         std::string(0x200, 'a') + "\r\n201\r\n"));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 413);
  std::string unread;
  EXPECT_EQ(peer.readToEnd(&unread), RawPeer::End::kEof);
  expectOneWarning(peer.localAddress(), "limit");
  expectStillServed("after-oversized-chunk");
}

TEST_F(BadInputTest, BodyOfExactlyTheLimitIsDelivered) {
  std::string data;
  std::string body;
  for (size_t size = kMaxBodyBytes - 64; size <= kMaxBodyBytes; ++size) {
    data = "exact-" + std::string(size - 6, 'x');
    body = messageBody(data);
    if (body.size() == kMaxBodyBytes) break;
  }
  ASSERT_EQ(body.size(), kMaxBodyBytes);
  Future<std::string> handled = recorder_->handled(data);
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.write(httpPost("echo", kMessageName, "exact@127.0.0.1:1", body)));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 202);
  ASSERT_TRUE(handled.await(kSocketTimeout));
}

TEST_F(BadInputTest, UnknownReceiverGets404AndTheConnectionStaysUsable) {
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.write(httpPost("nobody", kMessageName, "lost@127.0.0.1:1", messageBody("lost"))));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 404);
  EXPECT_NE(response->body.find("nobody"), std::string::npos) << response->body;
  EXPECT_EQ(response->headers["connection"], "keep-alive");

  // The stream is intact, so the same connection goes on working.
  Future<std::string> handled = recorder_->handled("after-404");
  ASSERT_TRUE(peer.write(
      httpPost("echo", kMessageName, "found@127.0.0.1:1", messageBody("after-404"))));
  response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 202);
  ASSERT_TRUE(handled.await(kSocketTimeout));

  expectOneWarning(peer.localAddress(), "no actor 'nobody'");
  expectStillServed("after-unknown-receiver");
  EXPECT_EQ(recorder_->data(), (std::vector<std::string>{"after-404", "after-unknown-receiver"}));
}

TEST_F(BadInputTest, UnknownReceiverFromALibprocessPeerIsDroppedSilently) {
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  UPID from = sender("libprocess-peer");
  Future<std::string> handled = recorder_->handled("second");
  ASSERT_TRUE(peer.write(libprocessPost("nobody", kMessageName, from, messageBody("first")) +
                         libprocessPost("echo", kMessageName, from, messageBody("second"))));
  ASSERT_TRUE(handled.await(kSocketTimeout));
  expectOneWarning(peer.localAddress(), "no actor 'nobody'");
  EXPECT_EQ(recorder_->data(), std::vector<std::string>{"second"});
  expectStillServed("after-libprocess-404");
}

TEST_F(BadInputTest, UnknownMessageNameIsAcceptedAndDropped) {
  const std::string unknown = "mesos.internal.NoSuchMessage";
  Future<MessageEvent> reached = runtime_->hooks().await(MessageMatch{unknown, {}, {}});
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.write(httpPost("echo", unknown, "stranger@127.0.0.1:1", "whatever")));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 202);
  ASSERT_TRUE(reached.await(kSocketTimeout));
  ASSERT_TRUE(reached.isReady());
  EXPECT_EQ(reached.get().to.id, "echo");

  // Handled after the unknown one (same connection, same order), so by then
  // the actor has dropped it.
  Future<std::string> handled = recorder_->handled("after-unknown-name");
  ASSERT_TRUE(peer.write(httpPost("echo", kMessageName, "stranger@127.0.0.1:1",
                                  messageBody("after-unknown-name"))));
  response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 202);
  ASSERT_TRUE(handled.await(kSocketTimeout));
  EXPECT_EQ(recorder_->data(), std::vector<std::string>{"after-unknown-name"});

  expectOneWarning(peer.localAddress(), "no handler");
  EXPECT_EQ(warnings_.count(unknown), 1u);
  expectStillServed("after-unknown-name-2");
}

TEST_F(BadInputTest, UnparsableBodyIsDroppedAndTheActorKeepsWorking) {
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  // An unfinished varint tag, and a length-delimited field cut short.
  const std::string bodies[] = {std::string("\xff\xff\xff", 3), std::string("\x22\x05" "ab", 4)};
  for (const std::string& body : bodies) {
    ASSERT_TRUE(peer.write(httpPost("echo", kMessageName, "mangler@127.0.0.1:1", body)));
    auto response = peer.readResponse();
    ASSERT_TRUE(response.has_value());
    // The runtime accepts it: only the actor knows the type.
    EXPECT_EQ(response->status, 202);
  }
  Future<std::string> handled = recorder_->handled("after-unparsable");
  ASSERT_TRUE(peer.write(httpPost("echo", kMessageName, "mangler@127.0.0.1:1",
                                  messageBody("after-unparsable"))));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 202);
  ASSERT_TRUE(handled.await(kSocketTimeout));
  // Both bad bodies came first on this connection and never reached the
  // handler.
  EXPECT_EQ(recorder_->data(), std::vector<std::string>{"after-unparsable"});

  ASSERT_TRUE(warnings_.await({peer.localAddress(), "does not parse"})) << warnings_.all();
  EXPECT_EQ(warnings_.count(peer.localAddress()), 2u) << warnings_.all();
  expectStillServed("after-unparsable-2");
}

TEST_F(BadInputTest, InvalidSenderGets400AndTheConnectionStaysUsable) {
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.write(httpPost("echo", kMessageName, "not a upid", messageBody("anonymous"))));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 400);
  ASSERT_TRUE(peer.write(kHealth));
  response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  expectOneWarning(peer.localAddress(), "no valid sender");
  expectStillServed("after-invalid-sender");
  EXPECT_EQ(recorder_->data(), std::vector<std::string>{"after-invalid-sender"});
}

TEST_F(BadInputTest, SilentPeersDoNotKeepOthersWaiting) {
  std::vector<std::unique_ptr<RawPeer>> silent;
  for (int i = 0; i < 32; ++i) {
    silent.push_back(std::make_unique<RawPeer>(runtime_->address()));
    ASSERT_TRUE(silent.back()->connected());
  }
  expectStillServed("despite-silent-peers");
  // The silent peers were never dropped: each is served when it speaks.
  for (auto& peer : silent) {
    ASSERT_TRUE(peer->write(kHealth));
    auto response = peer->readResponse();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(warnings_.count(peer->localAddress()), 0u) << warnings_.all();
  }
}

TEST_F(BadInputTest, StalledRequestIsClosedAfterTheRequestTimeout) {
  RawPeer idle(runtime_->address());
  RawPeer stalled(runtime_->address());
  ASSERT_TRUE(idle.connected());
  ASSERT_TRUE(stalled.connected());
  UPID from = sender("stalled");
  auto delivered = runtime_->hooks().count<FrameworkToExecutorMessage>(from);

  // A whole request and half of the next one, in one write. The answer to
  // the first one is posted only after the runtime has buffered what
  // followed it in the same read and armed its stall timer, so once the
  // answer is here, advancing the clock must fire that timer.
  std::string message = libprocessPost("echo", kMessageName, from, messageBody("stalled"));
  ASSERT_TRUE(stalled.write(kHealth + message.substr(0, message.size() / 2)));
  auto response = stalled.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);

  runtime_->clock().advance(kRequestTimeout + 1s);

  std::string unread;
  EXPECT_EQ(stalled.readToEnd(&unread), RawPeer::End::kEof);
  EXPECT_EQ(unread, "");
  expectOneWarning(stalled.localAddress(), "left incomplete");

  // A peer between requests is not stalled: it stays connected and served.
  ASSERT_TRUE(idle.write(kHealth));
  response = idle.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(warnings_.count(idle.localAddress()), 0u) << warnings_.all();

  expectStillServed("after-stall");
  EXPECT_EQ(delivered->load(), 0u);
}

TEST_F(BadInputTest, TricklingRequestIsClosedAfterTheRequestTimeout) {
  RawPeer trickler(runtime_->address());
  ASSERT_TRUE(trickler.connected());
  UPID from = sender("trickler");
  std::string message = libprocessPost("echo", kMessageName, from, messageBody("trickle"));
  // As above: the answer to the health check means the stall timer is armed.
  ASSERT_TRUE(trickler.write(kHealth + message.substr(0, 10)));
  auto response = trickler.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);

  // Progress within the request does not extend its deadline.
  runtime_->clock().advance(kRequestTimeout / 2);
  ASSERT_TRUE(trickler.write(message.substr(10, 1)));
  runtime_->clock().advance(kRequestTimeout / 2 + 1s);

  std::string unread;
  EXPECT_EQ(trickler.readToEnd(&unread), RawPeer::End::kEof);
  expectOneWarning(trickler.localAddress(), "left incomplete");
  expectStillServed("after-trickle");
}

}  // namespace
}  // namespace process
