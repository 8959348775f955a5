// The status update manager on its own: delivery order per task, resending
// with backoff until acknowledged, pausing while the master is away, a
// checkpointed stream taken up again by a new manager (a restarted slave),
// and a stream whose log the disk refuses (a small tmpfs the test fills).
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "common/uuid.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "slave/status_update_manager.hpp"
#include "support/small_disk.hpp"

namespace mesos::internal::slave {
namespace {

using namespace std::chrono_literals;

class StatusUpdateManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    process::Runtime::Options options;
    options.pauseClock = true;
    runtime_ = process::Runtime::create(options).value();
    manager_ = runtime_->spawn<StatusUpdateManager>([this](const StatusUpdate& update) {
      std::lock_guard<std::mutex> lock(mutex_);
      forwarded_.push_back(update);
    });
  }

  void TearDown() override {
    manager_.reset();
    runtime_.reset();
  }

  static StatusUpdate makeUpdate(const std::string& task, TaskState state,
                                 const std::string& framework = "F1") {
    StatusUpdate update;
    update.mutable_framework_id()->set_value(framework);
    update.mutable_status()->mutable_task_id()->set_value(task);
    update.mutable_status()->set_state(state);
    update.set_timestamp(1);
    update.set_uuid(randomUuid());
    return update;
  }

  Result<void> add(const StatusUpdate& update, const std::string& log = "") {
    auto result = process::dispatch(manager_.pid(), &StatusUpdateManager::update, update, log);
    EXPECT_TRUE(result.await());
    return result.get();
  }

  Result<bool> ack(const StatusUpdate& update) {
    auto result = process::dispatch(manager_.pid(), &StatusUpdateManager::acknowledge,
                                    update.framework_id(), update.status().task_id(),
                                    update.uuid());
    EXPECT_TRUE(result.await());
    return result.get();
  }

  void resume() {
    ASSERT_TRUE(process::dispatch(manager_.pid(), &StatusUpdateManager::resume).await());
  }
  void pause() {
    ASSERT_TRUE(process::dispatch(manager_.pid(), &StatusUpdateManager::pause).await());
  }
  size_t pending() {
    auto result = process::dispatch(manager_.pid(), &StatusUpdateManager::pending);
    EXPECT_TRUE(result.await());
    return result.get();
  }

  std::vector<StatusUpdate> forwarded() {
    runtime_->settle();
    std::lock_guard<std::mutex> lock(mutex_);
    return forwarded_;
  }

  void advance(process::Duration d) {
    runtime_->clock().advance(d);
    runtime_->settle();
  }

  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<StatusUpdateManager> manager_;
  std::mutex mutex_;
  std::vector<StatusUpdate> forwarded_;
};

TEST_F(StatusUpdateManagerTest, HoldsUpdatesWhilePausedAndSendsOnResume) {
  StatusUpdate running = makeUpdate("t1", TASK_RUNNING);
  ASSERT_TRUE(add(running).ok());
  EXPECT_TRUE(forwarded().empty());  // starts paused: no master yet
  EXPECT_EQ(pending(), 1u);

  resume();
  auto sent = forwarded();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].uuid(), running.uuid());
}

TEST_F(StatusUpdateManagerTest, OnlyTheHeadOfEachTaskIsInFlight) {
  resume();
  StatusUpdate running = makeUpdate("t1", TASK_RUNNING);
  StatusUpdate finished = makeUpdate("t1", TASK_FINISHED);
  StatusUpdate other = makeUpdate("t2", TASK_RUNNING);
  ASSERT_TRUE(add(running).ok());
  ASSERT_TRUE(add(finished).ok());
  ASSERT_TRUE(add(other).ok());

  auto sent = forwarded();
  ASSERT_EQ(sent.size(), 2u);  // t1's RUNNING and t2's RUNNING, not t1's FINISHED
  EXPECT_EQ(sent[0].uuid(), running.uuid());
  EXPECT_EQ(sent[0].latest_state(), TASK_RUNNING);
  EXPECT_EQ(sent[1].uuid(), other.uuid());

  auto acked = ack(running);
  ASSERT_TRUE(acked.ok());
  EXPECT_FALSE(*acked);
  sent = forwarded();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[2].uuid(), finished.uuid());

  acked = ack(finished);
  ASSERT_TRUE(acked.ok());
  EXPECT_TRUE(*acked);  // the terminal update: the stream is done
  EXPECT_EQ(pending(), 1u);  // t2's RUNNING
}

TEST_F(StatusUpdateManagerTest, ResendsWithDoublingBackoffUntilAcknowledged) {
  resume();
  StatusUpdate running = makeUpdate("t1", TASK_RUNNING);
  ASSERT_TRUE(add(running).ok());
  EXPECT_EQ(forwarded().size(), 1u);

  advance(9s);
  EXPECT_EQ(forwarded().size(), 1u);
  advance(1s);  // 10 s
  EXPECT_EQ(forwarded().size(), 2u);
  advance(19s);
  EXPECT_EQ(forwarded().size(), 2u);
  advance(1s);  // 20 s later
  EXPECT_EQ(forwarded().size(), 3u);
  advance(40s);  // 40 s later
  EXPECT_EQ(forwarded().size(), 4u);
  for (const StatusUpdate& update : forwarded()) EXPECT_EQ(update.uuid(), running.uuid());

  ASSERT_TRUE(ack(running).ok());
  advance(1h);
  EXPECT_EQ(forwarded().size(), 4u);
  EXPECT_EQ(pending(), 0u);
}

TEST_F(StatusUpdateManagerTest, BackoffIsCappedAtTenMinutes) {
  resume();
  ASSERT_TRUE(add(makeUpdate("t1", TASK_RUNNING)).ok());
  // Resent after 10, 20, 40, 80, 160 and 320 s; then every 600 s.
  for (auto wait : {10s, 20s, 40s, 80s, 160s, 320s}) advance(wait);
  EXPECT_EQ(forwarded().size(), 7u);
  advance(599s);
  EXPECT_EQ(forwarded().size(), 7u);
  advance(1s);
  EXPECT_EQ(forwarded().size(), 8u);
  advance(600s);
  EXPECT_EQ(forwarded().size(), 9u);
}

TEST_F(StatusUpdateManagerTest, NothingIsSentOrLostWhilePaused) {
  resume();
  StatusUpdate running = makeUpdate("t1", TASK_RUNNING);
  ASSERT_TRUE(add(running).ok());
  EXPECT_EQ(forwarded().size(), 1u);

  pause();
  StatusUpdate finished = makeUpdate("t1", TASK_FINISHED);
  ASSERT_TRUE(add(finished).ok());
  advance(1h);
  EXPECT_EQ(forwarded().size(), 1u);
  EXPECT_EQ(pending(), 2u);

  resume();  // the head goes out again at once
  auto sent = forwarded();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1].uuid(), running.uuid());
  EXPECT_EQ(sent[1].latest_state(), TASK_FINISHED);  // the master learns the newest state
  ASSERT_TRUE(ack(running).ok());
  sent = forwarded();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[2].uuid(), finished.uuid());
}

TEST_F(StatusUpdateManagerTest, RejectsUnexpectedAcknowledgements) {
  resume();
  StatusUpdate running = makeUpdate("t1", TASK_RUNNING);
  StatusUpdate finished = makeUpdate("t1", TASK_FINISHED);
  ASSERT_TRUE(add(running).ok());
  ASSERT_TRUE(add(finished).ok());

  // Acknowledging the second before the first is refused; so is an unknown task.
  EXPECT_FALSE(ack(finished).ok());
  EXPECT_FALSE(ack(makeUpdate("nope", TASK_RUNNING)).ok());
  EXPECT_EQ(pending(), 2u);

  ASSERT_TRUE(ack(running).ok());
  auto duplicate = ack(running);
  ASSERT_FALSE(duplicate.ok());
  EXPECT_NE(duplicate.error().message.find("duplicate"), std::string::npos);
  EXPECT_EQ(pending(), 1u);
}

TEST_F(StatusUpdateManagerTest, DuplicatesAreIgnoredAndStreamsEndAtTheTerminalAck) {
  resume();
  StatusUpdate finished = makeUpdate("t1", TASK_FINISHED);
  ASSERT_TRUE(add(finished).ok());
  ASSERT_TRUE(add(finished).ok());  // an executor resending: accepted, not queued twice
  EXPECT_EQ(pending(), 1u);
  EXPECT_EQ(forwarded().size(), 1u);

  auto acked = ack(finished);
  ASSERT_TRUE(acked.ok());
  EXPECT_TRUE(*acked);
  EXPECT_EQ(pending(), 0u);
}

TEST_F(StatusUpdateManagerTest, CleanupForgetsOnlyThatFramework) {
  resume();
  ASSERT_TRUE(add(makeUpdate("t1", TASK_RUNNING, "F1")).ok());
  ASSERT_TRUE(add(makeUpdate("t2", TASK_RUNNING, "F2")).ok());
  EXPECT_EQ(pending(), 2u);
  FrameworkID f1;
  f1.set_value("F1");
  ASSERT_TRUE(process::dispatch(manager_.pid(), &StatusUpdateManager::cleanup, f1).await());
  EXPECT_EQ(pending(), 1u);
  size_t before = forwarded().size();
  advance(10s);  // only F2's update is resent
  auto sent = forwarded();
  ASSERT_EQ(sent.size(), before + 1);
  EXPECT_EQ(sent.back().framework_id().value(), "F2");
}

TEST_F(StatusUpdateManagerTest, ACheckpointedStreamGoesOnInANewManagerWhereItStopped) {
  char pattern[] = "/tmp/mesos-updates-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string log = dir + "/tasks/t1/task.updates";
  resume();
  StatusUpdate running = makeUpdate("t1", TASK_RUNNING);
  StatusUpdate staging = makeUpdate("t1", TASK_STARTING);
  StatusUpdate finished = makeUpdate("t1", TASK_FINISHED);
  ASSERT_TRUE(add(staging, log).ok());
  ASSERT_TRUE(add(running, log).ok());
  ASSERT_TRUE(ack(staging).ok());
  ASSERT_TRUE(add(finished, log).ok());
  ASSERT_TRUE(add(running, log).ok());  // a duplicate: not written again

  // The slave stops here; a new one reads the log back.
  auto records = StatusUpdateManager::read(log);
  ASSERT_TRUE(records.ok()) << records.error().message;
  EXPECT_EQ(3u, records->updates.size());
  EXPECT_EQ(std::vector<std::string>{staging.uuid()}, records->acknowledged);
  manager_.reset();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    forwarded_.clear();
  }
  manager_ = runtime_->spawn<StatusUpdateManager>([this](const StatusUpdate& update) {
    std::lock_guard<std::mutex> lock(mutex_);
    forwarded_.push_back(update);
  });
  auto recovered = process::dispatch(manager_.pid(), &StatusUpdateManager::recover, log,
                                     std::move(records).value());
  ASSERT_TRUE(recovered.await());
  ASSERT_TRUE(recovered.get().ok()) << recovered.get().error().message;
  EXPECT_EQ(2u, recovered.get().value());
  EXPECT_TRUE(forwarded().empty());  // paused until the slave registers
  resume();
  // What the master had not acknowledged goes out again, in order.
  ASSERT_EQ(1u, forwarded().size());
  EXPECT_EQ(running.uuid(), forwarded()[0].uuid());
  EXPECT_EQ(TASK_FINISHED, forwarded()[0].latest_state());
  ASSERT_TRUE(ack(running).ok());
  ASSERT_EQ(2u, forwarded().size());
  EXPECT_EQ(finished.uuid(), forwarded()[1].uuid());
  auto closed = ack(finished);
  ASSERT_TRUE(closed.ok());
  EXPECT_TRUE(closed.value());

  // The log says it all: a third manager has nothing left to send.
  records = StatusUpdateManager::read(log);
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(3u, records->acknowledged.size());
  auto again = process::dispatch(manager_.pid(), &StatusUpdateManager::recover, log,
                                 std::move(records).value());
  ASSERT_TRUE(again.await());
  EXPECT_EQ(0u, again.get().value());
  EXPECT_EQ(0u, pending());
  std::filesystem::remove_all(dir);
}

TEST_F(StatusUpdateManagerTest, AFullDiskDelaysTheLogButNotTheUpdates) {
  char pattern[] = "/tmp/mesos-updates-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  struct Cleanup {
    std::string dir;
    ~Cleanup() { std::filesystem::remove_all(dir); }
  } cleanup{dir};
  std::optional<mesos::test::SmallDisk> disk;
  disk.emplace(dir + "/disk", 64 << 10);
  if (!disk->missing().empty()) GTEST_SKIP() << disk->missing();
  const std::string log = disk->dir() + "/tasks/t1/task.updates";

  // What the manager reported: the error ("" for none), the records waiting.
  auto reports = std::make_shared<std::vector<std::pair<std::string, size_t>>>();
  manager_.reset();
  manager_ = runtime_->spawn<StatusUpdateManager>(
      [this](const StatusUpdate& update) {
        std::lock_guard<std::mutex> lock(mutex_);
        forwarded_.push_back(update);
      },
      [this, reports](const Result<void>& written, size_t unwritten) {
        std::lock_guard<std::mutex> lock(mutex_);
        reports->emplace_back(written ? "" : written.error().message, unwritten);
      });
  auto lastReport = [&] {
    runtime_->settle();
    std::lock_guard<std::mutex> lock(mutex_);
    return reports->empty() ? std::make_pair(std::string("none"), size_t{0}) : reports->back();
  };
  auto unwritten = [&] {
    auto count = process::dispatch(manager_.pid(), &StatusUpdateManager::unwritten);
    EXPECT_TRUE(count.await());
    return count.get();
  };

  ASSERT_TRUE(disk->fill());
  resume();
  StatusUpdate running = makeUpdate("t1", TASK_RUNNING);
  StatusUpdate finished = makeUpdate("t1", TASK_FINISHED);
  ASSERT_TRUE(add(running, log).ok());
  // Sent, though not written; and the failure said, with the file and why.
  ASSERT_EQ(1u, forwarded().size());
  EXPECT_EQ(running.uuid(), forwarded()[0].uuid());
  auto report = lastReport();
  // (The file, or on a file system where a full disk refuses directories
  // too, its directory.)
  EXPECT_NE(std::string::npos, report.first.find(disk->dir() + "/tasks/t1")) << report.first;
  EXPECT_NE(std::string::npos, report.first.find("No space left on device")) << report.first;
  EXPECT_EQ(1u, report.second);

  // Resent until acknowledged, as any other.
  advance(10s);
  ASSERT_EQ(2u, forwarded().size());
  EXPECT_EQ(running.uuid(), forwarded()[1].uuid());
  ASSERT_TRUE(ack(running).ok());
  ASSERT_TRUE(add(finished, log).ok());
  ASSERT_EQ(3u, forwarded().size());
  EXPECT_EQ(finished.uuid(), forwarded()[2].uuid());
  auto closed = ack(finished);
  ASSERT_TRUE(closed.ok());
  EXPECT_TRUE(closed.value());
  EXPECT_EQ(0u, pending());
  EXPECT_EQ(4u, unwritten());  // two updates, two acknowledgements
  advance(10s);                // tried again: still full
  EXPECT_EQ(4u, unwritten());
  EXPECT_FALSE(lastReport().first.empty());

  // Space again: the records go to the log in order at the next try.
  disk->free();
  advance(10s);
  EXPECT_EQ(0u, unwritten());
  EXPECT_EQ(std::make_pair(std::string(), size_t{0}), lastReport());
  auto records = StatusUpdateManager::read(log);
  ASSERT_TRUE(records.ok()) << records.error().message;
  EXPECT_FALSE(records->torn);
  ASSERT_EQ(2u, records->updates.size());
  EXPECT_EQ(running.uuid(), records->updates[0].uuid());
  EXPECT_EQ(finished.uuid(), records->updates[1].uuid());
  EXPECT_EQ((std::vector<std::string>{running.uuid(), finished.uuid()}), records->acknowledged);
  manager_.reset();
}

TEST_F(StatusUpdateManagerTest, ALogThatIsNotAStreamIsRefusedNamingIt) {
  char pattern[] = "/tmp/mesos-updates-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  {
    auto log = checkpoint::RecordLog::open(dir + "/task.updates");
    ASSERT_TRUE(log.ok());
    SlaveInfo notARecord;
    notARecord.set_hostname("h");
    ASSERT_TRUE(log.value().append(notARecord).ok());
  }
  auto records = StatusUpdateManager::read(dir + "/task.updates");
  ASSERT_FALSE(records.ok());
  EXPECT_NE(std::string::npos, records.error().message.find(dir + "/task.updates"));
  EXPECT_FALSE(StatusUpdateManager::read(dir + "/missing").ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mesos::internal::slave
