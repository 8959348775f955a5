// Serving HTTP over real TCP: responses whose body is made of shared pieces
// (written with scatter-gather I/O, never copied into one string), and the
// bounds on what is queued for clients that read slowly or not at all.
//
// Every wait is on an event (bytes or EOF on a socket, a log line, a future,
// a change of the runtime's HTTP gauges), bounded in real time. Timeouts are
// driven by the runtime's paused clock.
#include <poll.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "process/actor.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "support/raw_peer.hpp"

namespace process {
namespace {

using mesos::test::kSocketTimeout;
using mesos::test::RawPeer;
using mesos::test::WarningLog;
using namespace std::chrono_literals;
using Pieces = std::vector<std::shared_ptr<const std::string>>;

constexpr Duration kWriteTimeout = 30s;
// A receive buffer small enough that a peer that does not read makes the
// runtime's writes block after a few hundred KB.
constexpr int kSmallReceiveBuffer = 16 * 1024;

// Piece `i` of a body: its own text, so that a piece out of place, repeated
// or cut shows in the comparison, and sizes that vary around `size`.
std::string pieceText(size_t i, size_t size) {
  std::string text = "<" + std::to_string(i) + ">";
  size_t target = size + i % 7;
  text.resize(std::max(target, text.size()), static_cast<char>('a' + i % 26));
  return text;
}

// The body a /pieces?count=&size= answer must carry: its inline prefix and
// then every piece, as one string built independently of the runtime.
std::string expectedBody(size_t count, size_t size) {
  std::string body = "pieces " + std::to_string(count) + "\n";
  for (size_t i = 0; i < count; ++i) body += pieceText(i, size);
  return body;
}

std::string get(const std::string& path, const std::string& extraHeaders = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: test\r\n" + extraHeaders + "\r\n";
}

std::string piecesPath(size_t count, size_t size) {
  return "/pieces/pieces?count=" + std::to_string(count) + "&size=" + std::to_string(size);
}

// What the test learns from the actor, from any thread.
struct Signals {
  Promise<Nothing> heldArrived;   // /held was called
  Promise<Nothing> countArrived;  // /count was called (the first time)
  std::atomic<int> countHits{0};

  // /together was called `hits` times so far.
  void together() {
    std::lock_guard<std::mutex> lock(mutex);
    ++togetherHits;
    changed.notify_all();
  }
  bool awaitTogether(int hits) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, kSocketTimeout, [&] { return togetherHits >= hits; });
  }
  // The pipe of the last /stream request, once it arrived.
  void streamed(std::shared_ptr<http::Pipe> pipe) {
    std::lock_guard<std::mutex> lock(mutex);
    pipes.push_back(std::move(pipe));
    changed.notify_all();
  }
  std::shared_ptr<http::Pipe> awaitPipe(size_t index) {
    std::unique_lock<std::mutex> lock(mutex);
    if (!changed.wait_for(lock, kSocketTimeout, [&] { return pipes.size() > index; })) return {};
    return pipes[index];
  }
  std::mutex mutex;
  std::condition_variable changed;
  int togetherHits = 0;
  std::vector<std::shared_ptr<http::Pipe>> pipes;
};

// Serves pieced bodies built from pieces it keeps (so that concurrent
// answers share them, as a master's cached fragments are), a counter, and a
// request it answers only when told to.
class PiecesActor : public Actor {
 public:
  explicit PiecesActor(std::shared_ptr<Signals> signals)
      : Actor("pieces"), signals_(std::move(signals)) {}

  // Answers the oldest held request with a pieced body.
  void release(size_t count, size_t size) {
    held_.front().set(piecedResponse(count, size));
    held_.pop_front();
  }

  // Answers every /together request so far with one pieced response.
  void releaseTogether(size_t count, size_t size) {
    together_->set(piecedResponse(count, size));
    together_.reset();
  }

 protected:
  void initialize() override {
    route("/pieces", &PiecesActor::pieces);
    route("/count", &PiecesActor::count);
    route("/held", &PiecesActor::held);
    route("/odd", &PiecesActor::odd);
    route("/together", &PiecesActor::together);
    route("/stream", &PiecesActor::stream);
  }

 private:
  http::Response piecedResponse(size_t count, size_t size) {
    Pieces& pieces = cache_[{count, size}];
    if (pieces.size() != count) {
      pieces.clear();
      for (size_t i = 0; i < count; ++i) {
        pieces.push_back(std::make_shared<const std::string>(pieceText(i, size)));
      }
    }
    http::Response response = http::Response::ok("pieces " + std::to_string(count) + "\n",
                                                 "text/plain");
    response.pieces = pieces;
    return response;
  }

  Future<http::Response> pieces(const http::Request& request) {
    auto parameters = request.queryParameters();
    return piecedResponse(std::stoul(parameters["count"]), std::stoul(parameters["size"]));
  }

  Future<http::Response> count(const http::Request&) {
    int hits = ++signals_->countHits;
    if (hits == 1) signals_->countArrived.set(Nothing{});
    return http::Response::ok("{\"hits\":" + std::to_string(hits) + "}");
  }

  Future<http::Response> held(const http::Request&) {
    held_.emplace_back();
    signals_->heldArrived.set(Nothing{});
    return held_.back().future();
  }

  // Requests that arrive before the next releaseTogether() share its
  // answer, as concurrent /state requests share a master's render.
  Future<http::Response> together(const http::Request&) {
    if (!together_) together_ = std::make_shared<Promise<http::Response>>();
    Future<http::Response> future = together_->future();
    signals_->together();
    return future;
  }

  // A streamed answer: the test writes to its pipe.
  Future<http::Response> stream(const http::Request&) {
    http::Response response = http::Response::ok("", "text/plain");
    response.stream = std::make_shared<http::Pipe>();
    signals_->streamed(response.stream);
    return response;
  }

  // A 404 whose body is all pieces, among them an empty and a null one.
  Future<http::Response> odd(const http::Request&) {
    http::Response response = http::Response::notFound();
    response.pieces = {std::make_shared<const std::string>("no "), nullptr,
                       std::make_shared<const std::string>(""),
                       std::make_shared<const std::string>("such thing\n")};
    return response;
  }

  std::shared_ptr<Signals> signals_;
  std::map<std::pair<size_t, size_t>, Pieces> cache_;
  std::deque<Promise<http::Response>> held_;
  std::shared_ptr<Promise<http::Response>> together_;
};

// Reads `answers` answers carrying `expected` from every client, taking
// bytes from each as they come: the runtime serves some clients only once
// others have read (the total bound), so never one client at a time.
void readAll(const std::vector<std::unique_ptr<RawPeer>>& clients, int answers,
             const std::string& expected) {
  std::vector<size_t> unfinished(clients.size());
  for (size_t i = 0; i < unfinished.size(); ++i) unfinished[i] = i;
  while (!unfinished.empty()) {
    std::vector<pollfd> readable;
    for (size_t i : unfinished) readable.push_back({clients[i]->fd(), POLLIN, 0});
    int ready = ::poll(readable.data(), readable.size(),
                       static_cast<int>(std::chrono::milliseconds(kSocketTimeout).count()));
    ASSERT_GT(ready, 0) << unfinished.size() << " clients got nothing for "
                        << kSocketTimeout.count() << " s";
    std::vector<size_t> still;
    for (size_t k = 0; k < unfinished.size(); ++k) {
      size_t i = unfinished[k];
      if (readable[k].revents != 0) {
        ASSERT_EQ(clients[i]->readSome(256 * 1024), RawPeer::End::kData) << "client " << i;
      }
      if (clients[i]->buffered() < answers * expected.size()) {
        still.push_back(i);
        continue;
      }
      for (int answer = 0; answer < answers; ++answer) {
        auto response = clients[i]->readResponse();
        ASSERT_TRUE(response.has_value()) << "client " << i << ", answer " << answer;
        ASSERT_TRUE(response->body == expected) << "client " << i << ", answer " << answer;
      }
    }
    unfinished.swap(still);
  }
}

class HttpServingTest : public ::testing::Test {
 protected:
  void SetUp() override { google::AddLogSink(&warnings_); }

  void TearDown() override {
    actor_.reset();
    runtime_.reset();
    google::RemoveLogSink(&warnings_);
  }

  // Starts the runtime (paused clock, write timeout kWriteTimeout) after
  // `configure` has had its say on the options, and the pieces actor.
  void start(const std::function<void(Runtime::Options&)>& configure = {}) {
    Runtime::Options options;
    options.workers = 2;
    options.pauseClock = true;
    options.httpWriteTimeout = kWriteTimeout;
    if (configure) configure(options);
    auto created = Runtime::create(options);
    ASSERT_TRUE(created) << created.error().message;
    runtime_ = std::move(created).value();
    signals_ = std::make_shared<Signals>();
    actor_ = runtime_->spawn<PiecesActor>(signals_);
  }

  // Waits until the runtime's HTTP gauges satisfy `done`.
  bool awaitStats(const std::function<bool(const Transport::HttpStats&)>& done) {
    return runtime_->awaitHttpStats(done, kSocketTimeout);
  }

  bool awaitNothingQueued() {
    return awaitStats([](const auto& stats) { return stats.queuedBytes == 0; });
  }

  // GETs /count on a fresh connection: the runtime still serves others.
  void expectStillServed() {
    RawPeer peer(runtime_->address());
    ASSERT_TRUE(peer.connected());
    ASSERT_TRUE(peer.write(get("/pieces/count")));
    auto response = peer.readResponse();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->status, 200);
  }

  WarningLog warnings_;
  std::unique_ptr<Runtime> runtime_;
  std::shared_ptr<Signals> signals_;
  Spawned<PiecesActor> actor_;
};

TEST(HttpResponseTest, BodySizeAndEncodingCountEveryPiece) {
  http::Response response = http::Response::ok("[", "text/plain");
  response.pieces = {std::make_shared<const std::string>("a,"), nullptr,
                     std::make_shared<const std::string>(""),
                     std::make_shared<const std::string>("b]")};
  EXPECT_EQ(response.bodySize(), 5u);
  EXPECT_EQ(response.flatBody(), "[a,b]");
  std::string head;
  http::encodeResponseHead(response, true, &head);
  EXPECT_EQ(head,
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
            "Connection: keep-alive\r\n\r\n");
  std::string whole;
  http::encodeResponse(response, true, &whole);
  EXPECT_EQ(whole, head + "[a,b]");
}

TEST(HttpResponseTest, StreamedResponseHeadSaysChunkedInsteadOfALength) {
  http::Response response = http::Response::ok("", "application/x-protobuf");
  response.stream = std::make_shared<http::Pipe>();
  std::string head;
  http::encodeResponseHead(response, true, &head);
  EXPECT_EQ(head,
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\n"
            "Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n");
}

TEST(HttpPipeTest, WritesAfterCloseOrTheReaderGoingAreRefused) {
  http::Pipe pipe;
  std::vector<std::pair<std::string, bool>> sunk;
  EXPECT_TRUE(pipe.write("early"));
  pipe.attach([&](std::shared_ptr<const std::string> data, bool last) {
    sunk.emplace_back(data ? *data : std::string(), last);
  });
  EXPECT_TRUE(pipe.write("late"));
  EXPECT_FALSE(pipe.closed());
  pipe.close();
  EXPECT_TRUE(pipe.closed());
  EXPECT_FALSE(pipe.write("after"));
  ASSERT_EQ(sunk.size(), 3u);
  EXPECT_EQ(sunk[0], std::make_pair(std::string("early"), false));
  EXPECT_EQ(sunk[1], std::make_pair(std::string("late"), false));
  EXPECT_EQ(sunk[2], std::make_pair(std::string(), true));

  http::Pipe gone;
  int told = 0;
  gone.onReaderGone([&] { ++told; });
  gone.readerGone();
  gone.readerGone();
  EXPECT_EQ(told, 1);
  EXPECT_FALSE(gone.write("x"));
  int late = 0;
  gone.onReaderGone([&] { ++late; });  // already gone: at once
  EXPECT_EQ(late, 1);
}

// Bytes written to several pipes reach each sink as the one shared buffer.
TEST(HttpPipeTest, ASharedWriteReachesEverySinkUncopied) {
  auto batch = std::make_shared<const std::string>("3\nabc");
  std::vector<const std::string*> sunk;
  http::Pipe first;
  http::Pipe second;
  EXPECT_TRUE(first.write(batch));  // before attach: kept as it is
  for (http::Pipe* pipe : {&first, &second}) {
    pipe->attach([&](std::shared_ptr<const std::string> data, bool) {
      if (data) sunk.push_back(data.get());
    });
  }
  EXPECT_TRUE(second.write(batch));
  ASSERT_EQ(sunk.size(), 2u);
  EXPECT_EQ(sunk[0], batch.get());
  EXPECT_EQ(sunk[1], batch.get());
  EXPECT_TRUE(first.write(std::make_shared<const std::string>()));  // empty: nothing sent
  EXPECT_EQ(sunk.size(), 2u);
}

TEST_F(HttpServingTest, StreamedChunksGoOutAsWrittenAndTheConnectionGoesOnAfter) {
  start();
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  // A request pipelined behind the stream is answered after its end.
  ASSERT_TRUE(peer.write(get("/pieces/stream") + get("/pieces/count")));
  auto pipe = signals_->awaitPipe(0);
  ASSERT_TRUE(pipe);
  auto head = peer.readStreamHead();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->headers["transfer-encoding"], "chunked");
  EXPECT_EQ(head->headers.count("content-length"), 0u);
  std::vector<std::string> events = {"first", "second event", std::string(100000, 'x')};
  for (const std::string& data : events) {
    ASSERT_TRUE(pipe->write(data));
    EXPECT_EQ(peer.readChunk(), data);
  }
  ASSERT_TRUE(signals_->countArrived.future().await(kSocketTimeout));
  pipe->close();
  EXPECT_EQ(peer.readChunk(), "");
  auto next = peer.readResponse();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->body, "{\"hits\":1}");
  EXPECT_TRUE(awaitNothingQueued());
}

TEST_F(HttpServingTest, ChunksWrittenBeforeTheHeadGoesOutFollowItInOrder) {
  start();
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  // The stream's head waits behind a held answer; its chunks wait too.
  ASSERT_TRUE(peer.write(get("/pieces/held") + get("/pieces/stream")));
  auto pipe = signals_->awaitPipe(0);
  ASSERT_TRUE(pipe);
  ASSERT_TRUE(pipe->write("one"));
  ASSERT_TRUE(pipe->write("two"));
  dispatch(actor_.pid(), &PiecesActor::release, size_t{3}, size_t{10});
  auto first = peer.readResponse();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->body, expectedBody(3, 10));
  ASSERT_TRUE(peer.readStreamHead().has_value());
  EXPECT_EQ(peer.readChunk(), "one");
  EXPECT_EQ(peer.readChunk(), "two");
  ASSERT_TRUE(pipe->write("three"));
  EXPECT_EQ(peer.readChunk(), "three");
}

TEST_F(HttpServingTest, ReaderThatHangsUpIsReportedAndItsPipeRefusesWrites) {
  start();
  auto peer = std::make_unique<RawPeer>(runtime_->address());
  ASSERT_TRUE(peer->connected());
  ASSERT_TRUE(peer->write(get("/pieces/stream")));
  auto pipe = signals_->awaitPipe(0);
  ASSERT_TRUE(pipe);
  Promise<Nothing> gone;
  pipe->onReaderGone([&gone] { gone.set(Nothing{}); });
  ASSERT_TRUE(peer->readStreamHead().has_value());
  ASSERT_TRUE(pipe->write("hello"));
  EXPECT_EQ(peer->readChunk(), "hello");
  peer.reset();
  ASSERT_TRUE(gone.future().await(kSocketTimeout));
  EXPECT_TRUE(pipe->closed());
  EXPECT_FALSE(pipe->write("nobody"));
  expectStillServed();
}

TEST_F(HttpServingTest, StreamReaderThatDoesNotReadIsDroppedAtTheBound) {
  start([](Runtime::Options& options) { options.maxQueuedResponseBytesPerConnection = 1 << 20; });
  RawPeer peer(runtime_->address(), kSmallReceiveBuffer);
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.write(get("/pieces/stream")));
  auto pipe = signals_->awaitPipe(0);
  ASSERT_TRUE(pipe);
  Promise<Nothing> gone;
  pipe->onReaderGone([&gone] { gone.set(Nothing{}); });
  std::string event(64 * 1024, 'e');
  // Far more than the socket buffers and the 1 MiB bound hold.
  for (int i = 0; i < 200 && pipe->write(event); ++i) {
  }
  ASSERT_TRUE(gone.future().await(kSocketTimeout));
  EXPECT_TRUE(warnings_.await({"not reading its event stream"}));
  expectStillServed();
  EXPECT_TRUE(awaitNothingQueued());
}

TEST_F(HttpServingTest, PiecedResponsesArriveByteIdenticalWithTheirLength) {
  start();
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  // No pieces, one, a few, and more than IOV_MAX (1024) buffers in one
  // answer, all on one kept-alive connection.
  for (size_t count : {0, 1, 3, 1000, 5000}) {
    ASSERT_TRUE(peer.write(get(piecesPath(count, 10))));
    auto response = peer.readResponse();
    ASSERT_TRUE(response.has_value()) << count << " pieces";
    EXPECT_EQ(response->status, 200);
    std::string expected = expectedBody(count, 10);
    EXPECT_EQ(response->headers["content-length"], std::to_string(expected.size()));
    EXPECT_EQ(response->headers["content-type"], "text/plain");
    EXPECT_EQ(response->body, expected) << count << " pieces";
  }
  EXPECT_TRUE(awaitNothingQueued());
}

TEST_F(HttpServingTest, LargePiecedResponseArrivesWhole) {
  start();
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  // 100,000 pieces, about 20 MB: what a /state of a large cluster is made of.
  ASSERT_TRUE(peer.write(get(piecesPath(100000, 200))));
  auto response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  std::string expected = expectedBody(100000, 200);
  EXPECT_EQ(response->headers["content-length"], std::to_string(expected.size()));
  EXPECT_TRUE(response->body == expected) << "bodies of " << response->body.size() << " and "
                                          << expected.size() << " bytes differ";
  // The connection goes on after it.
  ASSERT_TRUE(peer.write(get("/pieces/count")));
  response = peer.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->body, "{\"hits\":1}");
  EXPECT_TRUE(awaitNothingQueued());
}

TEST_F(HttpServingTest, PipelinedPiecedResponsesGoOutInRequestOrder) {
  start();
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  // The first answer completes last: the pieced answer behind it must wait.
  ASSERT_TRUE(peer.write(get("/pieces/held") + get(piecesPath(3000, 100)) + get("/pieces/count") +
                         get(piecesPath(2, 5))));
  ASSERT_TRUE(signals_->heldArrived.future().await(kSocketTimeout));
  ASSERT_TRUE(signals_->countArrived.future().await(kSocketTimeout));
  // The answers behind the held one are queued, unwritten.
  size_t waiting = expectedBody(3000, 100).size() + expectedBody(2, 5).size();
  EXPECT_TRUE(awaitStats([&](const auto& stats) { return stats.queuedBytes > waiting; }));
  dispatch(actor_.pid(), &PiecesActor::release, size_t{1500}, size_t{30});

  auto first = peer.readResponse();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->body, expectedBody(1500, 30));
  auto second = peer.readResponse();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->body, expectedBody(3000, 100));
  auto third = peer.readResponse();
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->body, "{\"hits\":1}");
  auto fourth = peer.readResponse();
  ASSERT_TRUE(fourth.has_value());
  EXPECT_EQ(fourth->body, expectedBody(2, 5));
  EXPECT_TRUE(awaitNothingQueued());
}

TEST_F(HttpServingTest, HeadAnswersTheLengthWithoutTheBody) {
  start();
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.write("HEAD " + piecesPath(2000, 50) + " HTTP/1.1\r\nHost: test\r\n\r\n"));
  auto head = peer.readResponse(/*headOnly=*/true);
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->headers["content-length"], std::to_string(expectedBody(2000, 50).size()));
  // Had any body byte followed, this answer would not parse.
  ASSERT_TRUE(peer.write(get("/pieces/count")));
  auto next = peer.readResponse();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(next->body, "{\"hits\":1}");
}

TEST_F(HttpServingTest, ErrorsAndConnectionCloseCarryPieces) {
  start();
  RawPeer peer(runtime_->address());
  ASSERT_TRUE(peer.connected());
  ASSERT_TRUE(peer.write(get("/pieces/odd")));
  auto odd = peer.readResponse();
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(odd->status, 404);
  EXPECT_EQ(odd->headers["content-length"], "14");
  EXPECT_EQ(odd->body, "no such thing\n");

  // Asked to close: the whole pieced body, then EOF.
  ASSERT_TRUE(peer.write(get(piecesPath(4000, 20), "Connection: close\r\n")));
  auto last = peer.readResponse();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->headers["connection"], "close");
  EXPECT_EQ(last->body, expectedBody(4000, 20));
  std::string unread;
  EXPECT_EQ(peer.readToEnd(&unread), RawPeer::End::kEof);
  EXPECT_EQ(unread, "");
}

TEST_F(HttpServingTest, ClientThatNeverReadsIsDroppedAfterTheWriteTimeout) {
  start();
  RawPeer reader(runtime_->address(), kSmallReceiveBuffer);
  ASSERT_TRUE(reader.connected());
  // About 100 MB made of 25,000 pieces of 4 KB; the client reads none of it.
  size_t size = expectedBody(25000, 4096).size();
  ASSERT_TRUE(reader.write(get(piecesPath(25000, 4096))));
  ASSERT_TRUE(awaitStats([&](const auto& stats) {
    return stats.blockedConnections == 1 && stats.queuedBytes > size / 2;
  })) << "the answer was never queued, or its writes never blocked";

  runtime_->clock().advance(kWriteTimeout - 1s);
  expectStillServed();  // short of the timeout: still connected
  EXPECT_EQ(runtime_->httpStats().closedWriteTimeout, 0u);
  runtime_->clock().advance(2s);

  ASSERT_TRUE(awaitStats([](const auto& stats) {
    return stats.closedWriteTimeout == 1 && stats.queuedBytes == 0 &&
           stats.blockedConnections == 0;
  })) << "queued bytes: " << runtime_->queuedResponseBytes();
  std::string unread;
  RawPeer::End end = reader.readToEnd(&unread);
  EXPECT_TRUE(end == RawPeer::End::kEof || end == RawPeer::End::kReset) << end;
  EXPECT_LT(unread.size(), size);
  ASSERT_TRUE(warnings_.await({reader.localAddress(), "write timeout"})) << warnings_.all();
  EXPECT_EQ(warnings_.count(reader.localAddress()), 1u) << warnings_.all();
  expectStillServed();
}

TEST_F(HttpServingTest, PipeliningClientThatDoesNotReadIsDroppedAtTheBound) {
  constexpr size_t kBound = 16 << 20;
  start([&](Runtime::Options& options) { options.maxQueuedResponseBytesPerConnection = kBound; });
  RawPeer reader(runtime_->address(), kSmallReceiveBuffer);
  ASSERT_TRUE(reader.connected());
  // Five answers of 12 MB asked at once: the first may be any size, but
  // the third would leave 24 MB queued behind it.
  size_t answer = expectedBody(3000, 4096).size();
  std::string requests;
  for (int i = 0; i < 5; ++i) requests += get(piecesPath(3000, 4096));
  ASSERT_TRUE(reader.write(requests));

  ASSERT_TRUE(awaitStats([](const auto& stats) {
    return stats.closedNotReading == 1 && stats.queuedBytes == 0;
  })) << "queued bytes: " << runtime_->queuedResponseBytes();
  EXPECT_LE(runtime_->httpStats().peakQueuedBytes, answer + kBound);
  ASSERT_TRUE(warnings_.await({reader.localAddress(), "not reading"})) << warnings_.all();
  EXPECT_EQ(warnings_.count(reader.localAddress()), 1u) << warnings_.all();
  std::string unread;
  RawPeer::End end = reader.readToEnd(&unread);
  EXPECT_TRUE(end == RawPeer::End::kEof || end == RawPeer::End::kReset) << end;
  EXPECT_LT(unread.size(), 2 * answer);
  expectStillServed();
}

TEST_F(HttpServingTest, SlowSteadyReaderGetsEverything) {
  // Over its bound the whole time, and far longer than the write timeout
  // in all, but never without progress for that long.
  start([](Runtime::Options& options) {
    options.maxQueuedResponseBytesPerConnection = 1 << 20;
    options.httpWriteTimeout = 10s;
  });
  RawPeer reader(runtime_->address(), kSmallReceiveBuffer);
  ASSERT_TRUE(reader.connected());
  ASSERT_TRUE(reader.write(get(piecesPath(6000, 4096))));
  std::string expected = expectedBody(6000, 4096);
  ASSERT_TRUE(awaitStats([](const auto& stats) { return stats.queuedBytes > 0; }));

  // Each time the runtime is seen to have written more, four seconds pass.
  // A progress seen just after an advance may have happened just before it,
  // so at most two advances (8 s) separate two writes.
  uint64_t lastSeen = runtime_->httpStats().writtenBytes;
  Duration passed{};
  while (reader.buffered() < expected.size() + 64) {
    RawPeer::End end = reader.readSome(16 * 1024);
    if (end == RawPeer::End::kTimeout) break;
    ASSERT_EQ(end, RawPeer::End::kData) << "after " << reader.buffered() << " bytes";
    uint64_t written = runtime_->httpStats().writtenBytes;
    if (written > lastSeen) {
      lastSeen = written;
      runtime_->clock().advance(4s);
      passed += 4s;
    }
    if (runtime_->queuedResponseBytes() == 0) break;
  }
  auto response = reader.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_TRUE(response->body == expected);
  EXPECT_GT(passed, 2 * 10s) << "the test did not outlast the write timeout";
  EXPECT_EQ(runtime_->httpStats().closedWriteTimeout, 0u);
  EXPECT_EQ(warnings_.count(reader.localAddress()), 0u) << warnings_.all();
}

TEST_F(HttpServingTest, ConnectionOverItsBoundIsNotReadUntilItDrains) {
  start([](Runtime::Options& options) { options.maxQueuedResponseBytesPerConnection = 4 << 20; });
  RawPeer reader(runtime_->address(), kSmallReceiveBuffer);
  ASSERT_TRUE(reader.connected());
  ASSERT_TRUE(reader.write(get(piecesPath(2000, 4096))));  // 8 MB
  ASSERT_TRUE(awaitStats([](const auto& stats) {
    return stats.pausedConnections == 1 && stats.blockedConnections == 1;
  }));
  // The read in flight when the bound was reached takes the next request;
  // it is held, not handed to the actor. Nothing more is read.
  ASSERT_TRUE(reader.write(get("/pieces/count")));
  ASSERT_TRUE(awaitStats([](const auto& stats) { return stats.heldRequests == 1; }));
  ASSERT_TRUE(reader.write(get("/pieces/count")));
  EXPECT_FALSE(runtime_->awaitHttpStats(
      [](const auto& stats) { return stats.heldRequests != 1 || stats.pausedConnections != 1; },
      std::chrono::milliseconds(300)));
  EXPECT_EQ(signals_->countHits.load(), 0);

  // Reading the answer drains the connection: both requests are served,
  // in order.
  auto big = reader.readResponse();
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->body, expectedBody(2000, 4096));
  auto count = reader.readResponse();
  ASSERT_TRUE(count.has_value());
  EXPECT_EQ(count->body, "{\"hits\":1}");
  count = reader.readResponse();
  ASSERT_TRUE(count.has_value());
  EXPECT_EQ(count->body, "{\"hits\":2}");
  EXPECT_TRUE(awaitStats([](const auto& stats) {
    return stats.queuedBytes == 0 && stats.pausedConnections == 0 && stats.heldRequests == 0;
  }));
}

TEST_F(HttpServingTest, RequestsWaitForRoomWhileTheTotalIsOverItsBound) {
  start([](Runtime::Options& options) { options.maxQueuedResponseBytes = 8 << 20; });
  RawPeer hog(runtime_->address(), kSmallReceiveBuffer);
  ASSERT_TRUE(hog.connected());
  ASSERT_TRUE(hog.write(get(piecesPath(3000, 4096))));  // 12 MB, not read for now
  ASSERT_TRUE(awaitStats([](const auto& stats) {
    return stats.blockedConnections == 1 && stats.queuedBytes >= (8u << 20);
  }));

  RawPeer other(runtime_->address());
  ASSERT_TRUE(other.connected());
  ASSERT_TRUE(other.write(get("/pieces/count")));
  ASSERT_TRUE(awaitStats([](const auto& stats) { return stats.heldRequests == 1; }));
  EXPECT_EQ(signals_->countHits.load(), 0);

  // Once the hog has read enough, the held request is handed on.
  auto big = hog.readResponse();
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->body, expectedBody(3000, 4096));
  auto count = other.readResponse();
  ASSERT_TRUE(count.has_value());
  EXPECT_EQ(count->body, "{\"hits\":1}");
  EXPECT_TRUE(awaitStats([](const auto& stats) {
    return stats.queuedBytes == 0 && stats.heldRequests == 0;
  }));
}

TEST_F(HttpServingTest, RoomFreedByDroppingAStalledClientLetsOthersIn) {
  start([](Runtime::Options& options) { options.maxQueuedResponseBytes = 8 << 20; });
  RawPeer hog(runtime_->address(), kSmallReceiveBuffer);
  ASSERT_TRUE(hog.connected());
  ASSERT_TRUE(hog.write(get(piecesPath(3000, 4096))));
  ASSERT_TRUE(awaitStats([](const auto& stats) {
    return stats.blockedConnections == 1 && stats.queuedBytes >= (8u << 20);
  }));
  RawPeer other(runtime_->address());
  ASSERT_TRUE(other.connected());
  ASSERT_TRUE(other.write(get(piecesPath(100, 10))));
  ASSERT_TRUE(awaitStats([](const auto& stats) { return stats.heldRequests == 1; }));

  runtime_->clock().advance(kWriteTimeout + 1s);
  auto response = other.readResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->body, expectedBody(100, 10));
  EXPECT_EQ(runtime_->httpStats().closedWriteTimeout, 1u);
  ASSERT_TRUE(warnings_.await({hog.localAddress(), "write timeout"})) << warnings_.all();
}

TEST_F(HttpServingTest, MessagesAreNeverHeldForTheTotalBound) {
  start([](Runtime::Options& options) { options.maxQueuedResponseBytes = 1 << 20; });
  RawPeer hog(runtime_->address(), kSmallReceiveBuffer);
  ASSERT_TRUE(hog.connected());
  ASSERT_TRUE(hog.write(get(piecesPath(3000, 4096))));  // 12 MB, more than the kernel holds
  ASSERT_TRUE(awaitStats([](const auto& stats) {
    return stats.blockedConnections == 1 && stats.queuedBytes >= (1u << 20);
  }));
  // A plain HTTP client posting a libprocess message is answered 202 at
  // once: the offer path does not wait for slow readers of /state.
  RawPeer poster(runtime_->address());
  ASSERT_TRUE(poster.connected());
  ASSERT_TRUE(poster.write("POST /pieces/mesos.internal.PingSlaveMessage HTTP/1.1\r\n"
                           "Libprocess-From: tester@127.0.0.1:1\r\nContent-Length: 0\r\n\r\n"));
  auto accepted = poster.readResponse();
  ASSERT_TRUE(accepted.has_value());
  EXPECT_EQ(accepted->status, 202);
  EXPECT_EQ(runtime_->httpStats().heldRequests, 0u);
}

TEST_F(HttpServingTest, ManyConcurrentClientsShareLargePiecedResponses) {
  // 64 clients ask at once, twice each, for 4 MB answers made of the same
  // 1000 pieces; one thread reads them all.
  constexpr int kClients = 64;
  start([](Runtime::Options& options) {
    options.maxQueuedResponseBytesPerConnection = 8 << 20;
    options.maxQueuedResponseBytes = 64 << 20;
  });
  std::string expected = expectedBody(1000, 4096);
  std::vector<std::unique_ptr<RawPeer>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<RawPeer>(runtime_->address()));
    ASSERT_TRUE(clients.back()->connected());
  }
  for (auto& client : clients) {
    ASSERT_TRUE(client->write(get(piecesPath(1000, 4096)) + get(piecesPath(1000, 4096))));
  }
  readAll(clients, 2, expected);
  EXPECT_TRUE(awaitStats([](const auto& stats) {
    return stats.queuedBytes == 0 && stats.heldRequests == 0 && stats.pausedConnections == 0;
  }));
  auto stats = runtime_->httpStats();
  EXPECT_EQ(stats.closedNotReading, 0u);
  EXPECT_EQ(stats.closedWriteTimeout, 0u);
}

TEST_F(HttpServingTest, BurstOfLargeRequestsIsLetInAsFarAsTheTotalAllows) {
  constexpr size_t kTotal = 20 << 20;
  start([&](Runtime::Options& options) { options.maxQueuedResponseBytes = kTotal; });
  std::string expected = expectedBody(3000, 4096);  // 12 MB
  {
    // Once one answer to the path is known, each request for it counts
    // that much until its own answer is in.
    RawPeer first(runtime_->address());
    ASSERT_TRUE(first.write(get(piecesPath(3000, 4096))));
    auto response = first.readResponse();
    ASSERT_TRUE(response.has_value());
    ASSERT_TRUE(awaitNothingQueued());
  }
  std::vector<std::unique_ptr<RawPeer>> clients;
  for (int i = 0; i < 10; ++i) {
    clients.push_back(std::make_unique<RawPeer>(runtime_->address(), kSmallReceiveBuffer));
    ASSERT_TRUE(clients.back()->connected());
    ASSERT_TRUE(clients.back()->write(get(piecesPath(3000, 4096))));
  }
  ASSERT_TRUE(awaitStats([](const auto& stats) { return stats.heldRequests > 0; }));
  readAll(clients, 1, expected);
  EXPECT_TRUE(awaitStats([](const auto& stats) {
    return stats.queuedBytes == 0 && stats.reservedBytes == 0 && stats.heldRequests == 0;
  }));
  // Never more than the bound and the one answer that crossed it.
  EXPECT_LE(runtime_->httpStats().peakQueuedBytes, kTotal + expected.size() + 1024);
}

TEST_F(HttpServingTest, ConcurrentRequestsAnsweredTogetherCountOnce) {
  // Ten clients at once for a 12 MB answer the actor gives them all,
  // under a total bound of 30 MB: the answer counts once, and once the
  // runtime has seen the path answered together, requests for it being
  // answered reserve once, so none waits for room.
  constexpr size_t kTotal = 30 << 20;
  start([&](Runtime::Options& options) { options.maxQueuedResponseBytes = kTotal; });
  std::string expected = expectedBody(3000, 4096);
  auto round = [&](int clients, int hitsBefore) {
    std::vector<std::unique_ptr<RawPeer>> peers;
    for (int i = 0; i < clients; ++i) {
      peers.push_back(std::make_unique<RawPeer>(runtime_->address(), kSmallReceiveBuffer));
      ASSERT_TRUE(peers.back()->connected());
      ASSERT_TRUE(peers.back()->write(get("/pieces/together")));
    }
    ASSERT_TRUE(signals_->awaitTogether(hitsBefore + clients))
        << "requests were held: " << runtime_->httpStats().heldRequests;
    EXPECT_EQ(runtime_->httpStats().heldRequests, 0u);
    dispatch(actor_.pid(), &PiecesActor::releaseTogether, size_t{3000}, size_t{4096});
    readAll(peers, 1, expected);
    ASSERT_TRUE(awaitNothingQueued());
  };
  round(1, 0);  // learns the answer's size
  round(2, 1);  // learns that the path is answered together
  round(10, 3);
  // One body, and a head per answer.
  EXPECT_LT(runtime_->httpStats().peakQueuedBytes, expected.size() + 10 * 1024);
  EXPECT_EQ(runtime_->httpStats().reservedBytes, 0u);
}

}  // namespace
}  // namespace process
