// The sandbox garbage collector on its own, on real directories and the
// paused clock: removal after the delay and not before, rescheduling and
// unscheduling, pruning the oldest on disk pressure, the age the disk
// allows, and a removal that fails.
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "slave/gc.hpp"

namespace mesos::internal::slave {
namespace {

using namespace std::chrono_literals;
using process::Future;
using process::Nothing;

constexpr process::Duration kWeek = 7 * 24h;

class GarbageCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/mesos-gc-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr) << std::strerror(errno);
    dir_ = pattern;
    process::Runtime::Options options;
    options.pauseClock = true;
    runtime_ = process::Runtime::create(options).value();
    gc_ = runtime_->spawn<GarbageCollector>();
  }

  void TearDown() override {
    gc_.reset();
    runtime_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A sandbox-like tree under the test's directory: a few levels, a file.
  std::string makeTree(const std::string& name) {
    std::string root = dir_ + "/" + name;
    std::filesystem::create_directories(root + "/runs/1/logs");
    std::ofstream(root + "/runs/1/logs/stdout") << "output\n";
    return root;
  }

  Future<Nothing> schedule(process::Duration delay, const std::string& path) {
    return process::dispatch(gc_.pid(), &GarbageCollector::schedule, delay, path);
  }

  bool unschedule(const std::string& path) {
    auto result = process::dispatch(gc_.pid(), &GarbageCollector::unschedule, path);
    EXPECT_TRUE(result.await());
    return result.get();
  }

  size_t prune(process::Duration maxAge) {
    auto result = process::dispatch(gc_.pid(), &GarbageCollector::prune, maxAge);
    EXPECT_TRUE(result.await());
    return result.get();
  }

  size_t scheduled() {
    auto result = process::dispatch(gc_.pid(), &GarbageCollector::scheduled);
    EXPECT_TRUE(result.await());
    return result.get();
  }

  void advance(process::Duration d) {
    runtime_->clock().advance(d);
    runtime_->settle();
  }

  std::string dir_;
  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<GarbageCollector> gc_;
};

TEST_F(GarbageCollectorTest, RemovesATreeAfterItsDelayAndNotBefore) {
  std::string sandbox = makeTree("sandbox");
  Future<Nothing> removed = schedule(10s, sandbox);
  runtime_->settle();
  EXPECT_EQ(scheduled(), 1u);

  advance(10s - 1ns);
  EXPECT_TRUE(removed.isPending());
  EXPECT_TRUE(std::filesystem::exists(sandbox + "/runs/1/logs/stdout"));

  advance(1ns);
  ASSERT_TRUE(removed.await());
  ASSERT_TRUE(removed.isReady()) << removed.failure();
  EXPECT_FALSE(std::filesystem::exists(sandbox));
  EXPECT_TRUE(std::filesystem::exists(dir_));
  EXPECT_EQ(scheduled(), 0u);
}

TEST_F(GarbageCollectorTest, APathAlreadyGoneCountsAsRemoved) {
  Future<Nothing> removed = schedule(1s, dir_ + "/never-made");
  runtime_->settle();
  advance(1s);
  ASSERT_TRUE(removed.await());
  EXPECT_TRUE(removed.isReady());
}

TEST_F(GarbageCollectorTest, RescheduleReplacesTheEarlierSchedule) {
  std::string sandbox = makeTree("sandbox");
  Future<Nothing> first = schedule(10s, sandbox);
  runtime_->settle();
  advance(5s);
  Future<Nothing> second = schedule(20s, sandbox);  // due at 25s now
  runtime_->settle();
  ASSERT_TRUE(first.isFailed());
  EXPECT_EQ(first.failure(), "rescheduled");
  EXPECT_EQ(scheduled(), 1u);

  advance(20s - 1ns);  // past the first deadline, short of the second
  EXPECT_TRUE(second.isPending());
  EXPECT_TRUE(std::filesystem::exists(sandbox));

  advance(1ns);
  ASSERT_TRUE(second.await());
  ASSERT_TRUE(second.isReady()) << second.failure();
  EXPECT_FALSE(std::filesystem::exists(sandbox));
}

TEST_F(GarbageCollectorTest, ASoonerRescheduleRemovesSooner) {
  std::string sandbox = makeTree("sandbox");
  Future<Nothing> first = schedule(kWeek, sandbox);
  Future<Nothing> second = schedule(1s, sandbox);
  runtime_->settle();
  advance(1s);
  ASSERT_TRUE(second.await());
  EXPECT_TRUE(second.isReady());
  EXPECT_TRUE(first.isFailed());
  EXPECT_FALSE(std::filesystem::exists(sandbox));
}

TEST_F(GarbageCollectorTest, UnscheduleKeepsTheTreeAndFailsItsFuture) {
  std::string sandbox = makeTree("sandbox");
  Future<Nothing> removed = schedule(10s, sandbox);
  runtime_->settle();

  EXPECT_TRUE(unschedule(sandbox));
  ASSERT_TRUE(removed.isFailed());
  EXPECT_EQ(removed.failure(), "unscheduled");
  EXPECT_EQ(scheduled(), 0u);

  advance(1min);
  EXPECT_TRUE(std::filesystem::exists(sandbox + "/runs/1/logs/stdout"));
  EXPECT_FALSE(unschedule(sandbox));  // no longer scheduled
  EXPECT_FALSE(unschedule(dir_ + "/never-scheduled"));
}

TEST_F(GarbageCollectorTest, UnscheduleIsTooLateOnceRemovalStarted) {
  std::string sandbox = makeTree("sandbox");
  Future<Nothing> removed = schedule(1s, sandbox);
  runtime_->settle();
  advance(1s);
  EXPECT_FALSE(unschedule(sandbox));
  ASSERT_TRUE(removed.await());
  EXPECT_TRUE(removed.isReady());
}

TEST_F(GarbageCollectorTest, PruneRemovesTheOldestScheduledFirstAndLeavesTheNewer) {
  std::string oldest = makeTree("oldest");
  std::string older = makeTree("older");
  std::string newest = makeTree("newest");
  // The order the futures complete in; each returned future completes once
  // its name is in.
  std::vector<std::string> order;
  std::mutex mutex;
  std::vector<std::unique_ptr<process::Promise<Nothing>>> recorded;
  auto record = [&](const std::string& name, const Future<Nothing>& future) {
    recorded.push_back(std::make_unique<process::Promise<Nothing>>());
    process::Promise<Nothing>* done = recorded.back().get();
    future.onAny([&order, &mutex, name, done] {
      {
        std::lock_guard<std::mutex> lock(mutex);
        order.push_back(name);
      }
      done->set(Nothing{});
    });
    return done->future();
  };

  // Scheduled in reverse alphabetical order, an hour apart, so that the
  // removal order can only come from the schedule times.
  Future<Nothing> a = schedule(kWeek, oldest);
  Future<Nothing> aRecorded = record("oldest", a);
  runtime_->settle();
  advance(1h);
  Future<Nothing> b = schedule(kWeek, older);
  Future<Nothing> bRecorded = record("older", b);
  runtime_->settle();
  advance(1h);
  Future<Nothing> c = schedule(kWeek, newest);
  runtime_->settle();

  // Scheduled at least an hour ago: the first two (the bound is inclusive).
  EXPECT_EQ(prune(1h), 2u);
  ASSERT_TRUE(aRecorded.await());
  ASSERT_TRUE(bRecorded.await());
  EXPECT_TRUE(a.isReady());
  EXPECT_TRUE(b.isReady());
  EXPECT_FALSE(std::filesystem::exists(oldest));
  EXPECT_FALSE(std::filesystem::exists(older));
  {
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_EQ(order, (std::vector<std::string>{"oldest", "older"}));
  }

  EXPECT_TRUE(c.isPending());
  EXPECT_TRUE(std::filesystem::exists(newest));
  EXPECT_EQ(scheduled(), 1u);
  EXPECT_EQ(prune(1h), 0u);

  // The one left keeps its own schedule.
  advance(kWeek);
  ASSERT_TRUE(c.await());
  EXPECT_TRUE(c.isReady());
  EXPECT_FALSE(std::filesystem::exists(newest));
}

TEST_F(GarbageCollectorTest, PruneWithNoAgeAllowedRemovesEverythingScheduled) {
  std::string sandbox = makeTree("sandbox");
  Future<Nothing> removed = schedule(kWeek, sandbox);
  runtime_->settle();
  EXPECT_EQ(prune(0ns), 1u);
  ASSERT_TRUE(removed.await());
  EXPECT_TRUE(removed.isReady());
  EXPECT_FALSE(std::filesystem::exists(sandbox));
  EXPECT_EQ(scheduled(), 0u);
}

// As root nothing refuses to remove a writable tree on a local filesystem
// (a read-only parent directory does not stop root, and chattr +i or a
// mount point need privileges a test should not use). A name longer than
// NAME_MAX fails the same way for everyone: ENAMETOOLONG.
TEST_F(GarbageCollectorTest, ARemovalThatFailsFailsTheFutureNamingThePathAndTheCause) {
  std::string path = dir_ + "/" + std::string(300, 'x');
  Future<Nothing> removed = schedule(1s, path);
  runtime_->settle();
  advance(1s);
  ASSERT_TRUE(removed.await());
  ASSERT_TRUE(removed.isFailed());
  EXPECT_NE(removed.failure().find("cannot remove " + path), std::string::npos)
      << removed.failure();
  EXPECT_NE(removed.failure().find(std::strerror(ENAMETOOLONG)), std::string::npos)
      << removed.failure();
  EXPECT_EQ(scheduled(), 0u);

  // The collector goes on working.
  std::string sandbox = makeTree("sandbox");
  Future<Nothing> next = schedule(1s, sandbox);
  runtime_->settle();
  advance(1s);
  ASSERT_TRUE(next.await());
  EXPECT_TRUE(next.isReady());
}

TEST_F(GarbageCollectorTest, TerminationFailsWhatIsStillScheduled) {
  std::string sandbox = makeTree("sandbox");
  Future<Nothing> removed = schedule(10s, sandbox);
  runtime_->settle();
  gc_.reset();
  ASSERT_TRUE(removed.isFailed());
  EXPECT_EQ(removed.failure(), "garbage collector terminated");
  EXPECT_TRUE(std::filesystem::exists(sandbox));
}

TEST_F(GarbageCollectorTest, TheDiskWatchPrunesWhatIsOlderThanTheDiskAllows) {
  // With no headroom the age allowed is 1000h * (1 - usage): at most 1000h,
  // and more than a second unless the disk is all but full.
  const process::Duration gcDelay = 1000h;
  std::string old = makeTree("old");
  std::string recent = makeTree("recent");
  Future<Nothing> oldRemoved = schedule(2 * gcDelay, old);
  runtime_->settle();
  advance(gcDelay);
  ASSERT_TRUE(process::dispatch(gc_.pid(), &GarbageCollector::watchDisk, dir_, 1min, gcDelay, 0.0)
                  .await());
  advance(59s);
  Future<Nothing> recentRemoved = schedule(2 * gcDelay, recent);
  runtime_->settle();
  EXPECT_TRUE(oldRemoved.isPending());  // no check before the interval

  advance(1s);
  ASSERT_TRUE(oldRemoved.await());
  EXPECT_TRUE(oldRemoved.isReady());
  EXPECT_FALSE(std::filesystem::exists(old));
  EXPECT_TRUE(recentRemoved.isPending());
  EXPECT_TRUE(std::filesystem::exists(recent));
  EXPECT_EQ(scheduled(), 1u);
}

TEST_F(GarbageCollectorTest, TheDiskWatchChecksEveryIntervalAndAFullHeadroomAllowsNoAge) {
  std::string first = makeTree("first");
  std::string second = makeTree("second");
  ASSERT_TRUE(
      process::dispatch(gc_.pid(), &GarbageCollector::watchDisk, dir_, 1min, kWeek, 1.0).await());
  Future<Nothing> firstRemoved = schedule(kWeek, first);
  runtime_->settle();
  advance(1min);
  ASSERT_TRUE(firstRemoved.await());
  EXPECT_TRUE(firstRemoved.isReady());

  Future<Nothing> secondRemoved = schedule(kWeek, second);
  runtime_->settle();
  advance(1min);
  ASSERT_TRUE(secondRemoved.await());
  EXPECT_TRUE(secondRemoved.isReady());
  EXPECT_FALSE(std::filesystem::exists(second));
}

TEST(MaxAllowedAgeTest, AFullerDiskAllowsLessAgeAndBeyondTheHeadroomNone) {
  // Past 1 - headroom, and exactly at it: nothing may be kept.
  EXPECT_EQ(maxAllowedAge(kWeek, 0.1, 0.95), process::Duration::zero());
  EXPECT_EQ(maxAllowedAge(kWeek, 0.1, 0.9), process::Duration::zero());
  EXPECT_EQ(maxAllowedAge(kWeek, 0.1, 1.0), process::Duration::zero());
  EXPECT_EQ(maxAllowedAge(kWeek, 1.0, 0.0), process::Duration::zero());

  // An empty disk keeps sandboxes gcDelay * (1 - headroom).
  EXPECT_NEAR(std::chrono::duration<double>(maxAllowedAge(kWeek, 0.1, 0.0)).count(),
              std::chrono::duration<double>(kWeek).count() * 0.9, 1e-3);
  EXPECT_EQ(maxAllowedAge(kWeek, 0.5, 0.0), kWeek / 2);
  EXPECT_EQ(maxAllowedAge(kWeek, 0.25, 0.25), kWeek / 2);
  EXPECT_EQ(maxAllowedAge(kWeek, 0.0, 0.0), kWeek);
  EXPECT_EQ(maxAllowedAge(process::Duration::zero(), 0.1, 0.0), process::Duration::zero());

  // Monotonic in the usage.
  EXPECT_GT(maxAllowedAge(kWeek, 0.1, 0.3), maxAllowedAge(kWeek, 0.1, 0.6));
}

TEST(DiskUsageTest, IsAFractionForTmpAndAnErrorNamingAMissingPath) {
  Result<double> usage = diskUsage("/tmp");
  ASSERT_TRUE(usage.ok()) << usage.error().message;
  EXPECT_GE(*usage, 0.0);
  EXPECT_LE(*usage, 1.0);

  Result<double> missing = diskUsage("/tmp/mesos-gc-no-such-directory/x");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ENOENT);
  EXPECT_NE(missing.error().message.find("/tmp/mesos-gc-no-such-directory/x"), std::string::npos);
  EXPECT_NE(missing.error().message.find(std::strerror(ENOENT)), std::string::npos);

  // procfs reports no blocks: no usage to speak of.
  EXPECT_FALSE(diskUsage("/proc").ok());
}

// A sandbox holds a persistent volume as a link (slave/volumes.hpp): its
// removal takes the link, never the volume or what it holds.
TEST_F(GarbageCollectorTest, ASandboxsVolumeLinkGoesAndTheVolumeStays) {
  std::string sandbox = makeTree("sandbox");
  std::string volume = dir_ + "/volumes/roles/eng/v1";
  std::filesystem::create_directories(volume + "/deep");
  std::ofstream(volume + "/deep/data") << "kept\n";
  std::filesystem::create_directory_symlink(volume, sandbox + "/runs/1/data");
  Future<Nothing> removed = schedule(1s, sandbox);
  runtime_->settle();
  advance(1s);
  ASSERT_TRUE(removed.await());
  ASSERT_TRUE(removed.isReady()) << removed.failure();
  EXPECT_FALSE(std::filesystem::exists(sandbox));
  EXPECT_TRUE(std::filesystem::exists(volume + "/deep/data"));
}

}  // namespace
}  // namespace mesos::internal::slave
