// The master under a crowd of /state readers, over real sockets: their
// requests share renders and never hold up the offer path, and a client
// that asks and never reads is dropped without the master buffering more
// than its per-connection bound for it.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/master_fixture.hpp"
#include "support/raw_peer.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr size_t kSlaves = 1000;
constexpr size_t kHeldOffers = 10;  // offers kept for the launches the test times

std::string getState() { return "GET /master/state HTTP/1.1\r\nHost: master\r\n\r\n"; }

class StateLoadTest : public MasterFixture {
 protected:
  void SetUp() override { google::AddLogSink(&warnings_); }
  void TearDown() override {
    MasterFixture::TearDown();
    google::RemoveLogSink(&warnings_);
  }

  // kSlaves slaves; the framework runs two tasks on every slave but the
  // last kHeldOffers, whose offers it keeps.
  void populate() {
    scheduler_ = &scheduler("scheduler(1)");
    frameworkId_ = registerFramework(*scheduler_, frameworkInfo("crowd"));
    for (size_t i = 0; i < kSlaves; ++i) {
      Peer& peer = slave("slave(" + std::to_string(i + 1) + ")");
      slaves_.push_back(&peer);
      slaveIds_.push_back(registerSlave(peer, "cpus:4;mem:4096"));
    }
    std::vector<Offer> offers;
    for (const auto& message : scheduler_->received<ResourceOffersMessage>()) {
      offers.insert(offers.end(), message.offers().begin(), message.offers().end());
    }
    ASSERT_EQ(offers.size(), kSlaves);
    for (const Offer& offer : offers) {
      size_t index = std::stoul(offer.hostname().substr(6));  // slave(<n>).example
      if (index > kSlaves - kHeldOffers) {
        held_.push_back(offer);
        continue;
      }
      std::vector<TaskInfo> tasks;
      for (const char* suffix : {"a", "b"}) {
        tasks.push_back(commandTask(std::to_string(index) + suffix, offer.slave_id()));
      }
      launch(*scheduler_, frameworkId_, {offer.id()}, tasks, 1000);
    }
    ASSERT_EQ(held_.size(), kHeldOffers);
  }

  Peer* scheduler_ = nullptr;
  FrameworkID frameworkId_;
  std::vector<Peer*> slaves_;
  std::vector<SlaveID> slaveIds_;
  std::vector<Offer> held_;
  WarningLog warnings_;
};

// 200 clients ask for /state three times each, pipelined, all at once, and
// read their answers as a single thread gets to them; meanwhile the
// framework launches a task on each offer it kept, one at a time. Each
// launch reaches its slave within the bound. A master that renders every
// request on its own, from scratch and in one go (fragment caching and
// shared renders off, no steps) put 5.3 s ahead of the first launch here;
// this one takes about a millisecond.
TEST_F(StateLoadTest, HundredsOfReadersDoNotHoldUpLaunches) {
  constexpr size_t kReaders = 200;
  constexpr size_t kRequestsEach = 3;
  start();
  ASSERT_NO_FATAL_FAILURE(populate());
  std::string first;
  ASSERT_EQ(200, httpGet(runtime_->address(), "/master/state", &first));
  ASSERT_GT(first.size(), 1000000u) << "a document worth rendering";

  std::vector<std::unique_ptr<RawPeer>> readers;
  for (size_t i = 0; i < kReaders; ++i) {
    readers.push_back(std::make_unique<RawPeer>(runtime_->address()));
    ASSERT_TRUE(readers.back()->connected()) << "reader " << i;
  }
  std::string requests;
  for (size_t i = 0; i < kRequestsEach; ++i) requests += getState();
  for (auto& reader : readers) ASSERT_TRUE(reader->write(requests));

  // Read everything on another thread. The launches are timed here, spread
  // over the reading: launch i waits until the reader has (i + 1) / 11 of
  // the answers, so each meets requests still being served.
  std::vector<std::optional<HttpResponse>> answers(kReaders * kRequestsEach);
  std::mutex mutex;
  std::condition_variable progressed;
  size_t read = 0;
  std::thread reading([&] {
    for (size_t i = 0; i < answers.size(); ++i) {
      answers[i] = readers[i / kRequestsEach]->readResponse();
      std::lock_guard<std::mutex> lock(mutex);
      read = i + 1;
      progressed.notify_all();
    }
  });

  std::vector<double> latencies;
  for (size_t i = 0; i < held_.size(); ++i) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      size_t due = (i + 1) * answers.size() / (held_.size() + 1);
      if (!progressed.wait_for(lock, 60s, [&] { return read >= due; })) {
        ADD_FAILURE() << "the readers got " << read << " answers";
        break;
      }
    }
    const Offer& offer = held_[i];
    process::UPID to = slaves_[std::stoul(offer.hostname().substr(6)) - 1]->self();
    auto run = runtime_->hooks().await<RunTaskMessage>(master(), to);
    LaunchTasksMessage message;
    message.mutable_framework_id()->CopyFrom(frameworkId_);
    message.add_offer_ids()->CopyFrom(offer.id());
    message.add_tasks()->CopyFrom(commandTask("timed-" + offer.hostname(), offer.slave_id()));
    message.mutable_filters()->set_refuse_seconds(1000);
    Clock::time_point sent = Clock::now();
    scheduler_->post(master(), message);
    if (!run.await(30s)) {
      ADD_FAILURE() << "launch on " << offer.hostname() << " never arrived";
      break;
    }
    latencies.push_back(std::chrono::duration<double>(Clock::now() - sent).count());
  }
  reading.join();

  for (double latency : latencies) EXPECT_LT(latency, 1.0) << "seconds from launch to slave";
  for (size_t i = 0; i < answers.size(); ++i) {
    ASSERT_TRUE(answers[i].has_value()) << "answer " << i;
    EXPECT_EQ(answers[i]->status, 200);
    // Each answer is a whole document; parsing them all would take longer
    // than the test, so one in fifty is parsed.
    EXPECT_GT(answers[i]->body.size(), first.size() / 2) << "answer " << i;
    if (i % 50 == 0) {
      auto parsed = json::parse(answers[i]->body);
      ASSERT_TRUE(parsed.ok()) << "answer " << i;
      EXPECT_EQ((*parsed)["slaves"].array().size(), kSlaves);
    }
  }
  EXPECT_LE(runtime_->httpStats().peakQueuedBytes, runtimeOptions_.maxQueuedResponseBytes +
                                                       2 * first.size());
}

// A client pipelines fifty /state requests and reads nothing: the master
// queues at most its per-connection bound behind the answer being written,
// then drops it, and goes on serving everyone else.
TEST_F(StateLoadTest, ClientThatNeverReadsIsDroppedAtItsBound) {
  constexpr size_t kBound = 4 << 20;
  runtimeOptions_.maxQueuedResponseBytesPerConnection = kBound;
  start();
  ASSERT_NO_FATAL_FAILURE(populate());
  std::string first;
  ASSERT_EQ(200, httpGet(runtime_->address(), "/master/state", &first));

  RawPeer stalled(runtime_->address(), 4096);
  ASSERT_TRUE(stalled.connected());
  std::string requests;
  for (int i = 0; i < 50; ++i) requests += getState();
  ASSERT_TRUE(stalled.write(requests));
  bool dropped = runtime_->awaitHttpStats(
      [](const process::Transport::HttpStats& stats) {
        return stats.closedNotReading == 1 && stats.queuedBytes == 0;
      },
      30s);
  ASSERT_TRUE(dropped) << "queued: " << runtime_->queuedResponseBytes();
  // The answer being written, plus at most the bound behind it (each
  // answer's head adds a few hundred bytes to its body).
  EXPECT_LE(runtime_->httpStats().peakQueuedBytes, first.size() + kBound + 4096);
  EXPECT_TRUE(warnings_.await({stalled.localAddress(), "not reading"})) << warnings_.all();
  std::string unread;
  RawPeer::End end = stalled.readToEnd(&unread);
  EXPECT_TRUE(end == RawPeer::End::kEof || end == RawPeer::End::kReset) << end;

  // Still serving: a document, and a launch.
  std::string again;
  ASSERT_EQ(200, httpGet(runtime_->address(), "/master/state", &again));
  EXPECT_TRUE(json::parse(again).ok());
  const Offer& offer = held_.front();
  launch(*scheduler_, frameworkId_, {offer.id()}, {commandTask("after", offer.slave_id())});
  EXPECT_EQ(slaves_[std::stoul(offer.hostname().substr(6)) - 1]->count<RunTaskMessage>(), 1u);
}

}  // namespace
}  // namespace mesos::test
