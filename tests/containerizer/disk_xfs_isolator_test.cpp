// disk/xfs: refused, saying why, where --work_dir cannot hold XFS project
// quotas; where it can (an XFS image the test makes and mounts with
// -o prjquota), a sandbox's writes stop at the container's disk and its
// usage is the filesystem's count.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "slave/containerizer/isolators/disk/disk_xfs_isolator.hpp"
#include "slave/containerizer/isolators/isolators.hpp"

namespace mesos::internal::isolation {
namespace {

using mesos::isolation::ContainerConfig;

// Runs `command` through the shell; its exit status, and its output in
// `output`.
int run(const std::string& command, std::string* output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) *output += buffer;
  return ::pclose(pipe);
}

class DiskXfsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/disk-xfs-XXXXXX";
    ASSERT_NE(nullptr, ::mkdtemp(pattern));
    dir_ = pattern;
  }
  void TearDown() override {
    if (mounted_) {
      std::string output;
      EXPECT_EQ(0, run("umount " + dir_ + "/mnt", &output)) << output;
    }
    std::filesystem::remove_all(dir_);
  }

  bool onXfs(const std::string& path) {
    struct statfs fs {};
    return ::statfs(path.c_str(), &fs) == 0 && fs.f_type == XFS_SUPER_MAGIC;
  }

  // An XFS filesystem at dir_/mnt mounted with `options`, or why there is
  // none.
  std::optional<std::string> mountXfs(const std::string& options) {
    if (::geteuid() != 0) return "not root (a loop mount needs it)";
    std::string output;
    if (run("command -v mkfs.xfs", &output) != 0) return "mkfs.xfs is missing (xfsprogs)";
    std::filesystem::create_directories(dir_ + "/mnt");
    output.clear();
    if (run("truncate -s 300M " + dir_ + "/xfs.img && mkfs.xfs -q " + dir_ + "/xfs.img", &output) !=
        0) {
      return "mkfs.xfs failed: " + output;
    }
    output.clear();
    if (run("mount -o " + options + " " + dir_ + "/xfs.img " + dir_ + "/mnt", &output) != 0) {
      return "mount -o " + options +
             " failed (a kernel without XFS quota support says so in "
             "dmesg): " +
             output;
    }
    mounted_ = true;
    return std::nullopt;
  }

  static ContainerConfig config(const std::string& directory, const std::string& resources) {
    ContainerConfig config;
    config.containerId.set_value(std::filesystem::path(directory).filename().string());
    config.directory = directory;
    std::filesystem::create_directories(directory);
    config.resources = Resources::parse(resources).value();
    return config;
  }

  // Writes `megabytes` of real blocks to `path`; the errno of the first
  // failed write (0: all written).
  static int write(const std::string& path, int megabytes) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    std::string block(1 << 20, 'x');
    int error = 0;
    for (int i = 0; i < megabytes && error == 0; ++i) {
      if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size())) {
        error = errno == 0 ? ENOSPC : errno;
      }
    }
    if (error == 0 && ::fsync(fd) != 0) error = errno;
    ::close(fd);
    return error;
  }

  std::string dir_;
  bool mounted_ = false;
};

TEST_F(DiskXfsTest, AWorkDirThatCannotHoldProjectQuotasIsRefusedSayingWhy) {
  if (onXfs(dir_)) GTEST_SKIP() << "/tmp is on XFS here: the refusal needs another filesystem";
  IsolationOptions options;
  options.isolation = "disk/xfs";
  options.workDir = dir_;
  auto refused = createIsolators(options);
  ASSERT_FALSE(refused);
  EXPECT_NE(std::string::npos, refused.error().message.find("disk/xfs"));
  EXPECT_NE(std::string::npos, refused.error().message.find("is not on XFS"))
      << refused.error().message;
  EXPECT_NE(std::string::npos, refused.error().message.find("-o prjquota"));

  options.xfsProjectRange = "[10-5]";
  auto badRange = createIsolators(options);
  ASSERT_FALSE(badRange);
  EXPECT_NE(std::string::npos, badRange.error().message.find("--xfs_project_range"))
      << badRange.error().message;

  options.xfsProjectRange = "[5000-10000]";
  options.isolation = "disk/du,disk/xfs";
  auto both = createIsolators(options);
  ASSERT_FALSE(both);
  EXPECT_NE(std::string::npos, both.error().message.find("disk/du")) << both.error().message;
}

TEST_F(DiskXfsTest, AnXfsWorkDirWithoutProjectQuotasIsRefusedSayingSo) {
  if (auto missing = mountXfs("loop,noquota")) GTEST_SKIP() << "no XFS here: " << *missing;
  DiskXfsOptions options;
  options.workDir = dir_ + "/mnt/work";
  options.projectRange = "[5000-10000]";
  auto refused = DiskXfsIsolator::create(options);
  ASSERT_FALSE(refused);
  EXPECT_NE(std::string::npos, refused.error().message.find(dir_ + "/mnt"))
      << refused.error().message;
  EXPECT_NE(std::string::npos, refused.error().message.find("-o prjquota"));
}

TEST_F(DiskXfsTest, AWriteStopsAtTheContainersDiskAndUsageIsTheFilesystemsCount) {
  if (auto missing = mountXfs("loop,prjquota")) {
    GTEST_SKIP() << "no XFS with project quotas here: " << *missing;
  }
  DiskXfsOptions options;
  options.workDir = dir_ + "/mnt/work";
  options.projectRange = "[5000-5001]";
  options.enforce = true;
  auto isolator = DiskXfsIsolator::create(options);
  ASSERT_TRUE(isolator) << isolator.error().message;

  ContainerConfig box = config(options.workDir + "/box", "cpus:1;mem:32;disk:4");
  ASSERT_TRUE((*isolator)->prepare(box));
  EXPECT_EQ(0, write(box.directory + "/small", 1));
  ResourceStatistics statistics;
  ASSERT_TRUE((*isolator)->usage(box.containerId, &statistics));
  EXPECT_GE(statistics.disk_used_bytes(), 1u << 20);
  EXPECT_LT(statistics.disk_used_bytes(), 2u << 20);
  EXPECT_EQ(4u << 20, statistics.disk_limit_bytes());
  // A subdirectory made now belongs to the project too.
  std::filesystem::create_directories(box.directory + "/deep");
  EXPECT_EQ(EDQUOT, write(box.directory + "/deep/big", 8));
  ASSERT_TRUE((*isolator)->usage(box.containerId, &statistics));
  EXPECT_LE(statistics.disk_used_bytes(), 4u << 20);

  // Two projects in the range: a third container finds none free.
  ContainerConfig other = config(options.workDir + "/other", "cpus:1;mem:32;disk:4");
  ASSERT_TRUE((*isolator)->prepare(other));
  ContainerConfig third = config(options.workDir + "/third", "cpus:1;mem:32;disk:4");
  auto none = (*isolator)->prepare(third);
  ASSERT_FALSE(none);
  EXPECT_NE(std::string::npos, none.error().message.find("--xfs_project_range"));

  // Cleaned up, its project is free again and starts empty.
  ASSERT_TRUE((*isolator)->cleanup(box.containerId));
  ASSERT_TRUE((*isolator)->prepare(third));
  ASSERT_TRUE((*isolator)->usage(third.containerId, &statistics));
  EXPECT_LT(statistics.disk_used_bytes(), 1u << 20);
}

}  // namespace
}  // namespace mesos::internal::isolation
