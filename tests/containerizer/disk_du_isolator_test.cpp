// disk/du: sandboxes measured by walking them, on real files; a container
// over its disk reported once, only when enforcing.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "slave/containerizer/isolators/disk/disk_du_isolator.hpp"
#include "slave/containerizer/isolators/isolators.hpp"

namespace mesos::internal::isolation {
namespace {

using namespace std::chrono_literals;
using mesos::isolation::ContainerConfig;
using mesos::isolation::ContainerLimitation;

class DiskDuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/disk-du-XXXXXX";
    ASSERT_NE(nullptr, ::mkdtemp(pattern));
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `megabytes` of data (real blocks, not a hole) to `path`.
  static void write(const std::string& path, int megabytes) {
    std::ofstream out(path, std::ios::binary);
    std::string block(1 << 20, 'x');
    for (int i = 0; i < megabytes; ++i) out.write(block.data(), block.size());
  }

  ContainerConfig config(const std::string& id, const std::string& resources) {
    ContainerConfig config;
    config.containerId.set_value(id);
    config.directory = dir_ + "/" + id;
    std::filesystem::create_directories(config.directory);
    config.resources = Resources::parse(resources).value();
    return config;
  }

  // Waits (real time, bounded) until `done`.
  static bool waitUntil(const std::function<bool()>& done) {
    for (auto deadline = std::chrono::steady_clock::now() + 20s;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(10ms)) {
      if (done()) return true;
    }
    return done();
  }

  std::string dir_;
};

TEST_F(DiskDuTest, MeasuresBlocksCountingALinkedFileOnceAndASparseOneByItsBlocks) {
  const std::string sandbox = dir_ + "/box";
  std::filesystem::create_directories(sandbox + "/deep/er");
  write(sandbox + "/deep/er/data", 3);
  std::filesystem::create_hard_link(sandbox + "/deep/er/data", sandbox + "/same");
  {
    std::ofstream sparse(sandbox + "/sparse", std::ios::binary);
    sparse.seekp(100 << 20);
    sparse.put('x');
  }
  uint64_t used = DiskDuIsolator::measure(sandbox);
  EXPECT_GE(used, 3u << 20);
  EXPECT_LT(used, 4u << 20) << "a hard link counted twice, or the sparse file's size counted";
  EXPECT_EQ(0u, DiskDuIsolator::measure(dir_ + "/nonexistent"));
}

TEST_F(DiskDuTest, AContainerOverItsDiskIsReportedOnceWhenEnforcing) {
  std::mutex mutex;
  std::vector<ContainerLimitation> reported;
  DiskDuOptions options;
  options.interval = 20ms;
  options.enforce = true;
  options.onLimitation = [&](const ContainerLimitation& limitation) {
    std::lock_guard<std::mutex> lock(mutex);
    reported.push_back(limitation);
  };
  DiskDuIsolator isolator(options);
  ContainerConfig small = config("small", "cpus:1;mem:32;disk:2");
  ContainerConfig large = config("large", "cpus:1;mem:32;disk:10");
  ASSERT_TRUE(isolator.prepare(small).ok());
  ASSERT_TRUE(isolator.prepare(large).ok());
  write(small.directory + "/out", 1);
  write(large.directory + "/out", 4);

  // Within their disks: measured, not limited.
  ResourceStatistics statistics;
  ASSERT_TRUE(waitUntil([&] {
    statistics.Clear();
    return isolator.usage(small.containerId, &statistics).ok() &&
           statistics.disk_used_bytes() >= (1u << 20);
  }));
  EXPECT_EQ(2u << 20, statistics.disk_limit_bytes());
  EXPECT_FALSE(isolator.limitation(small.containerId));

  // 4 MB in the small one's 2 MB: reported, once.
  write(small.directory + "/more", 3);
  ASSERT_TRUE(waitUntil([&] {
    std::lock_guard<std::mutex> lock(mutex);
    return !reported.empty();
  }));
  std::this_thread::sleep_for(100ms);  // five more walks: nothing more to report
  std::lock_guard<std::mutex> lock(mutex);
  ASSERT_EQ(1u, reported.size());
  EXPECT_EQ("small", reported[0].containerId.value());
  EXPECT_EQ(TaskStatus::REASON_CONTAINER_LIMITATION_DISK, reported[0].reason);
  EXPECT_NE(std::string::npos, reported[0].message.find("exceeds quota (2.0 MB)"))
      << reported[0].message;
  EXPECT_EQ(2.0, reported[0].resources.scalar("disk"));
  auto limited = isolator.limitation(small.containerId);
  ASSERT_TRUE(limited);
  EXPECT_EQ(TaskStatus::REASON_CONTAINER_LIMITATION_DISK, limited->reason);
  EXPECT_FALSE(isolator.limitation(large.containerId));

  // A larger disk from update() is what counts from then on.
  ASSERT_TRUE(isolator.update(large.containerId, Resources::parse("disk:3").value()).ok());
  ResourceStatistics updated;
  ASSERT_TRUE(isolator.usage(large.containerId, &updated).ok());
  EXPECT_EQ(3u << 20, updated.disk_limit_bytes());
  ASSERT_TRUE(isolator.cleanup(small.containerId).ok());
  ResourceStatistics gone;
  EXPECT_FALSE(isolator.usage(small.containerId, &gone).ok());
}

TEST_F(DiskDuTest, WithoutEnforcingUsageIsOnlyMeasured) {
  std::atomic<int> reported{0};
  DiskDuOptions options;
  options.interval = 20ms;
  options.onLimitation = [&](const ContainerLimitation&) { ++reported; };
  DiskDuIsolator isolator(options);
  ContainerConfig box = config("box", "cpus:1;mem:32;disk:1");
  ASSERT_TRUE(isolator.prepare(box).ok());
  write(box.directory + "/out", 3);
  ResourceStatistics statistics;
  ASSERT_TRUE(waitUntil([&] {
    statistics.Clear();
    return isolator.usage(box.containerId, &statistics).ok() &&
           statistics.disk_used_bytes() >= (3u << 20);
  }));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(0, reported.load());
  EXPECT_FALSE(isolator.limitation(box.containerId));
}

TEST_F(DiskDuTest, ItIsNamedByIsolationAndAfterARestartWatchesTheContainersKept) {
  IsolationOptions options;
  options.isolation = "posix/cpu,disk/du";
  auto isolators = createIsolators(options);
  ASSERT_TRUE(isolators.ok()) << isolators.error().message;
  ASSERT_EQ(2u, isolators->size());
  auto& disk = isolators->back();
  EXPECT_EQ("disk/du", disk->name());
  ContainerConfig kept = config("kept", "cpus:1;mem:32;disk:5");
  write(kept.directory + "/out", 2);
  ASSERT_TRUE(disk->recover({{"kept", 1234}}).ok());
  disk->recovered(kept);
  ResourceStatistics statistics;
  ASSERT_TRUE(disk->usage(kept.containerId, &statistics).ok());
  EXPECT_GE(statistics.disk_used_bytes(), 2u << 20);
  EXPECT_EQ(5u << 20, statistics.disk_limit_bytes());
}

// A persistent volume is linked into the sandbox: its files are not the
// sandbox's, and its disk is not the sandbox's limit.
TEST_F(DiskDuTest, APersistentVolumeIsNeitherMeasuredNorPartOfTheLimit) {
  DiskDuOptions options;
  options.interval = 20ms;
  DiskDuIsolator isolator(options);
  ContainerConfig withVolume = config("withVolume", "cpus:1;mem:32;disk:2");
  Resource volume = *Resources::parse("disk:64").value().begin();
  volume.set_role("eng");
  volume.mutable_reservation()->set_principal("ops");
  volume.mutable_disk()->mutable_persistence()->set_id("v1");
  volume.mutable_disk()->mutable_volume()->set_container_path("data");
  volume.mutable_disk()->mutable_volume()->set_mode(Volume::RW);
  withVolume.resources += Resources(volume);
  const std::string target = dir_ + "/volume";
  std::filesystem::create_directories(target);
  write(target + "/big", 3);
  std::filesystem::create_directory_symlink(target, withVolume.directory + "/data");
  write(withVolume.directory + "/own", 1);

  ASSERT_TRUE(isolator.prepare(withVolume).ok());
  ResourceStatistics statistics;
  ASSERT_TRUE(waitUntil([&] {
    statistics.Clear();
    return isolator.usage(withVolume.containerId, &statistics).ok() &&
           statistics.disk_used_bytes() >= (1u << 20);
  }));
  EXPECT_EQ(2u << 20, statistics.disk_limit_bytes());
  EXPECT_LT(statistics.disk_used_bytes(), 2u << 20) << "the volume's 3 MB were counted";
}

}  // namespace
}  // namespace mesos::internal::isolation
