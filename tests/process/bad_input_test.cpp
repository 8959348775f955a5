// Bad input over real TCP: a runtime listening on 127.0.0.1 is fed garbage,
// truncated, oversized, misaddressed, unparsable, silent and stalled
// requests from raw sockets. Each test checks the answer the runtime owes
// (if any), that it closes a stream it cannot resynchronise, that it logs one
// warning naming the peer, and that afterwards a well-formed message from
// another connection still reaches the actor.
//
// Waiting is always on an event (a future, a log line, bytes or EOF on a
// socket), bounded by a generous real-time limit so that a broken runtime
// fails the test instead of hanging it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <glog/logging.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
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

namespace process {
namespace {

using mesos::internal::FrameworkToExecutorMessage;
using namespace std::chrono_literals;

constexpr auto kSocketTimeout = 10s;
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

// Collects WARNING (and worse) log lines so that tests can wait for one and
// count them.
class WarningLog : public google::LogSink {
 public:
  void send(google::LogSeverity severity, const char* /*fullFilename*/,
            const char* /*baseFilename*/, int /*line*/, const google::LogMessageTime& /*time*/,
            const char* message, size_t length) override {
    if (severity < google::GLOG_WARNING) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.emplace_back(message, length);
    }
    logged_.notify_all();
  }

  // Waits (real time, bounded) for a line containing every one of `parts`.
  bool await(const std::vector<std::string>& parts) {
    std::unique_lock<std::mutex> lock(mutex_);
    return logged_.wait_for(lock, kSocketTimeout, [&] {
      return std::any_of(lines_.begin(), lines_.end(),
                         [&](const std::string& line) { return containsAll(line, parts); });
    });
  }

  size_t count(const std::string& part) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<size_t>(std::count_if(lines_.begin(), lines_.end(), [&](const auto& line) {
      return line.find(part) != std::string::npos;
    }));
  }

  std::string all() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string out;
    for (const std::string& line : lines_) out += "  " + line + "\n";
    return out;
  }

 private:
  static bool containsAll(const std::string& line, const std::vector<std::string>& parts) {
    return std::all_of(parts.begin(), parts.end(),
                       [&](const std::string& part) { return line.find(part) != std::string::npos; });
  }

  mutable std::mutex mutex_;
  std::condition_variable logged_;
  std::vector<std::string> lines_;
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// One raw TCP connection to the runtime, as a hostile or clumsy peer would
// open it. Every read is bounded by kSocketTimeout.
class RawPeer {
 public:
  enum class End { kEof, kReset, kTimeout, kData };

  explicit RawPeer(const Address& to) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(to.port);
    address.sin_addr.s_addr = htonl(to.ip);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~RawPeer() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;

  bool connected() const { return fd_ >= 0; }

  // "127.0.0.1:<port>", the way the runtime names this peer in its logs.
  std::string localAddress() const {
    sockaddr_in address{};
    socklen_t length = sizeof(address);
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "?";
    char ip[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &address.sin_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(address.sin_port));
  }

  // Writes all of `bytes`; false when the connection is broken.
  bool write(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Sends FIN: the runtime reads EOF after what was written.
  void shutdownWrite() { ::shutdown(fd_, SHUT_WR); }

  // Closes with RST instead of FIN.
  void reset() {
    linger hard{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
    ::close(fd_);
    fd_ = -1;
  }

  // Reads one Content-Length framed response; nullopt on EOF, error,
  // timeout or a response that is not HTTP.
  std::optional<HttpResponse> readResponse() {
    auto deadline = std::chrono::steady_clock::now() + kSocketTimeout;
    size_t headEnd;
    while ((headEnd = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (fill(deadline) != End::kData) return std::nullopt;
    }
    std::string_view head(buffer_.data(), headEnd);
    if (!head.starts_with("HTTP/1.1 ") || head.size() < 12) return std::nullopt;
    HttpResponse response;
    response.status = std::atoi(std::string(head.substr(9, 3)).c_str());
    size_t lineEnd = head.find("\r\n");
    while (lineEnd != std::string_view::npos) {
      head.remove_prefix(lineEnd + 2);
      lineEnd = head.find("\r\n");
      std::string_view line = head.substr(0, lineEnd);
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) return std::nullopt;
      std::string name(line.substr(0, colon));
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      response.headers[name] = std::string(value);
    }
    auto length = response.headers.find("content-length");
    if (length == response.headers.end()) return std::nullopt;
    size_t bodySize = std::stoul(length->second);
    size_t total = headEnd + 4 + bodySize;
    while (buffer_.size() < total) {
      if (fill(deadline) != End::kData) return std::nullopt;
    }
    response.body = buffer_.substr(headEnd + 4, bodySize);
    buffer_.erase(0, total);
    return response;
  }

  // Reads until the runtime closes the connection. `unread` gets every byte
  // that arrived first (including any not consumed by readResponse()).
  End readToEnd(std::string* unread) {
    auto deadline = std::chrono::steady_clock::now() + kSocketTimeout;
    End end;
    while ((end = fill(deadline)) == End::kData) {
    }
    *unread = std::move(buffer_);
    buffer_.clear();
    return end;
  }

 private:
  End fill(std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return End::kTimeout;
      pollfd readable{fd_, POLLIN, 0};
      int ready = ::poll(&readable, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) return End::kTimeout;
      char chunk[16 * 1024];
      ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) return End::kEof;
      if (n < 0) return End::kReset;
      buffer_.append(chunk, static_cast<size_t>(n));
      return End::kData;
    }
  }

  int fd_ = -1;
  std::string buffer_;
};

std::ostream& operator<<(std::ostream& out, RawPeer::End end) {
  switch (end) {
    case RawPeer::End::kEof: return out << "EOF";
    case RawPeer::End::kReset: return out << "reset";
    case RawPeer::End::kTimeout: return out << "timeout";
    case RawPeer::End::kData: return out << "data";
  }
  return out;
}

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
