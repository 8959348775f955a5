// --image_gc_config (Apache Mesos's ImageGcConfig as JSON): what parses, in
// its inline and file forms, the checks with their messages, and the disk
// check that decides when the slave collects the image store.
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "slave/flags.hpp"
#include "slave/images.hpp"

namespace mesos::internal::slave {
namespace {

using namespace std::chrono_literals;

// The error of loading the slave's flags with `--image_gc_config=value`.
std::string refused(const std::string& value) {
  std::string flag = "--image_gc_config=" + value;
  const char* argv[] = {"mesos-slave", flag.c_str()};
  auto loaded = Flags().load("MESOS_TEST_UNSET_", 2, argv);
  EXPECT_FALSE(loaded) << value;
  return loaded ? "" : loaded.error().message;
}

TEST(ImageGcFlagsTest, ApacheMesosConfigsParse) {
  Flags unset;
  EXPECT_FALSE(unset.image_gc_config.has_value());

  auto config = parseImageGcConfig(
      "{\"image_disk_headroom\": 0.1, \"image_disk_watch_interval\": {\"nanoseconds\": "
      "3600000000000}, \"excluded_images\": [{\"type\": \"DOCKER\", \"docker\": {\"name\": "
      "\"busybox:1.36\"}}, {\"type\": \"APPC\", \"appc\": {\"name\": \"example.com/app\"}}]}");
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_DOUBLE_EQ(0.1, config->headroom);
  EXPECT_EQ(std::chrono::nanoseconds(1h), config->interval);
  EXPECT_EQ(std::vector<std::string>{"busybox:1.36"}, config->excludedImages);

  // Protobuf's JSON writes an int64 as a string; excluded_images may be missing.
  auto quoted = parseImageGcConfig(
      "{\"image_disk_headroom\": 1, \"image_disk_watch_interval\": {\"nanoseconds\": "
      "\"500000000\"}}");
  ASSERT_TRUE(quoted.ok()) << quoted.error().message;
  EXPECT_EQ(std::chrono::nanoseconds(500ms), quoted->interval);
  EXPECT_TRUE(quoted->excludedImages.empty());

  // From a file: file:///PATH, or the absolute path Apache also takes.
  char path[] = "/tmp/mesos-image-gc-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << "{\"image_disk_headroom\": 0.25, \"image_disk_watch_interval\": "
                         "{\"nanoseconds\": 60000000000}}";
  for (const std::string& value : {"file://" + std::string(path), std::string(path)}) {
    const std::string flag = "--image_gc_config=" + value;
    const char* argv[] = {"mesos-slave", flag.c_str()};
    Flags flags;
    auto loaded = flags.load("MESOS_TEST_UNSET_", 2, argv);
    EXPECT_TRUE(loaded) << loaded.error().message;
    auto fromFile = parseImageGcConfig(*flags.image_gc_config);
    ASSERT_TRUE(fromFile.ok()) << fromFile.error().message;
    EXPECT_DOUBLE_EQ(0.25, fromFile->headroom);
    EXPECT_EQ(std::chrono::nanoseconds(1min), fromFile->interval);
  }
  ::unlink(path);
}

TEST(ImageGcFlagsTest, BadConfigsAreRefusedSayingWhy) {
  const std::string interval = "\"image_disk_watch_interval\": {\"nanoseconds\": 1000000000}";
  EXPECT_EQ(refused("{\"image_disk_headroom\": 1.5, " + interval + "}"),
            "--image_gc_config: 'image_disk_headroom' must be between 0.0 and 1.0 (e.g. 0.1), "
            "not 1.5");
  EXPECT_NE(
      refused("{\"image_disk_headroom\": -0.1, " + interval + "}").find("between 0.0 and 1.0"),
      std::string::npos);
  EXPECT_EQ(refused("{\"image_disk_headroom\": 0.1, \"image_disk_watch_interval\": "
                    "{\"nanoseconds\": 0}}"),
            "--image_gc_config: 'image_disk_watch_interval' must be positive (e.g. 3600000000000 "
            "nanoseconds: an hour)");
  EXPECT_EQ(refused("{\"image_disk_headroom\": 0.1, \"image_disk_watch_interval\": 5}"),
            "--image_gc_config: 'image_disk_watch_interval' must be a DurationInfo: "
            "{\"nanoseconds\": N}");
  EXPECT_NE(refused("{" + interval + "}").find("'image_disk_headroom' is required"),
            std::string::npos);
  EXPECT_NE(
      refused("{\"image_disk_headroom\": 0.1}").find("'image_disk_watch_interval' is required"),
      std::string::npos);
  EXPECT_NE(refused("headroom=0.1").find("--image_gc_config: not JSON"), std::string::npos);
  EXPECT_NE(refused("file:///nonexistent/gc.json").find("cannot read '/nonexistent/gc.json'"),
            std::string::npos);
  EXPECT_NE(refused("{\"image_disk_headroom\": 0.1, " + interval +
                    ", \"excluded_images\": [{\"type\": \"DOCKER\"}]}")
                .find("an excluded DOCKER image has no docker.name"),
            std::string::npos);
  EXPECT_NE(refused("{\"image_disk_headroom\": 0.1, " + interval +
                    ", \"excluded_images\": [{\"type\": \"DOCKER\", \"docker\": {\"name\": "
                    "\"two words\"}}]}")
                .find("--image_gc_config: excluded_images: invalid image reference 'two words'"),
            std::string::npos);
}

TEST(ImageGcFlagsTest, TheDiskCheckComparesTheFreeShareWithTheHeadroom) {
  double usage = -1;
  // A store not made yet is measured on its nearest existing parent.
  auto never = needsImageGc("/tmp/mesos-image-gc-missing/store/docker", 0.0, &usage);
  ASSERT_TRUE(never.ok()) << never.error().message;
  EXPECT_FALSE(*never);
  EXPECT_GE(usage, 0.0);
  EXPECT_LE(usage, 1.0);
  auto always = needsImageGc("/tmp", 1.0, nullptr);
  ASSERT_TRUE(always.ok()) << always.error().message;
  EXPECT_EQ(usage > 0.0, *always);
}

}  // namespace
}  // namespace mesos::internal::slave
