// Containers from images end to end: a docker-registry process on loopback
// serving images the test builds from busybox-static (umoci, skopeo),
// mesos-master and mesos-slave processes, the slave with
// --image_providers=docker and --isolation=filesystem/linux,docker/runtime,
// and mesos-execute --docker_image running command tasks in the images (as
// root, which the mounts need).
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "containerizer/provisioner/image_helpers.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace images = mesos::internal::slave::provisioner::testing;

constexpr char kImage[] = "test/busybox:latest";  // from the slave's --docker_registry

class ImageContainersTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "mount namespaces and overlay mounts need root";
    if (std::string missing = images::missingImageTool(); !missing.empty()) {
      GTEST_SKIP() << "needs " << missing << " (scripts/install-deps.sh installs it)";
    }
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    if (std::string failed = images::buildTestImages(dir_); !failed.empty()) {
      FAIL() << failed;
    }
    registry_ = std::make_unique<images::Registry>(dir_);
    ASSERT_EQ("", registry_->error());
    for (const char* tag : {"latest", "base"}) {
      ASSERT_EQ("", images::copyImage(
                        dir_, tag, "docker://" + registry_->hostPort() + "/test/busybox:" + tag));
    }
    master_ = startMaster({"--allocation_interval=100ms"});
  }

  void TearDown() override {
    // A container's root filesystem goes a moment after its executor (the
    // slave's destroy runs in a helper); what a failed test left mounted
    // is detached, so that the scratch directory is not removed through
    // a mount.
    if (!dir_.empty()) {
      waitUntil([&] { return rootfses().empty(); }, 30s);
      images::unmountBelow(dir_);
    }
    DaemonsFixture::TearDown();
    if (registry_) registry_->stop();
  }

  std::vector<std::string> slaveFlags(const std::string& isolation) const {
    return {"--resources=cpus:2;mem:512;disk:512", "--isolation=" + isolation,
            "--image_providers=docker", "--docker_registry=" + registry_->url(),
            "--docker_store_dir=" + dir_ + "/store"};
  }

  pid_t startSlaveWith(const std::string& isolation = "filesystem/linux,docker/runtime,posix/cpu",
                       std::vector<std::string> extra = {}) {
    std::vector<std::string> flags = slaveFlags(isolation);
    flags.insert(flags.end(), extra.begin(), extra.end());
    pid_t pid = startSlave(master_, "slave", flags, freePort());
    EXPECT_GT(pid, 0);
    EXPECT_TRUE(waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s))
        << "the slave did not register within 30 s";
    return pid;
  }

  ChildResult execute(const std::string& name, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                                     "--name=" + name, "--resources=cpus:0.1;mem:32"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runChild(args, 120s);
  }

  // The containers' root filesystems the slave has now.
  std::vector<std::string> rootfses() const {
    std::vector<std::string> found;
    std::error_code error;
    for (const auto& entry :
         fs::directory_iterator(dir_ + "/slave/provisioner/containers", error)) {
      found.push_back(entry.path().string());
    }
    return found;
  }

  // The mounts of this process's mount namespace (the host's) under the
  // test's directory.
  // Whether the master's /state shows a task TASK_RUNNING.
  bool aTaskRuns() const {
    json::Value state = getJson(master_, "/state");
    for (const json::Value& fw : state["frameworks"].array()) {
      for (const json::Value& task : fw["tasks"].array()) {
        if (task["state"].isString() && task["state"].string() == "TASK_RUNNING") return true;
      }
    }
    return false;
  }

  std::vector<std::string> mountsHere() const {
    std::vector<std::string> found;
    std::ifstream mountinfo("/proc/self/mountinfo");
    std::string line;
    while (std::getline(mountinfo, line)) {
      if (line.find(dir_) != std::string::npos) found.push_back(line);
    }
    return found;
  }

  // The sandbox's `file` of the executor `name` (the latest run).
  std::string sandboxFile(const std::string& name, const std::string& file) const {
    std::error_code error;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ + "/slave/slaves", error)) {
      const std::string path = entry.path().string();
      if (path.find("/executors/" + name + "/runs/") != std::string::npos &&
          entry.path().filename() == file) {
        return readFile(path);
      }
    }
    return "";
  }

  process::Address master_;
  std::unique_ptr<images::Registry> registry_;
};

TEST_F(ImageContainersTest, ATaskRunsInItsImageAsItsUserAndNothingStaysMounted) {
  ASSERT_GT(startSlaveWith(), 0);
  // Each check is a condition of the task's success: the image's own
  // /etc/os-release and its second layer's deletion of /etc/removed, the
  // image's user (1000), working directory and environment, the sandbox at
  // MESOS_SANDBOX.
  ChildResult run = execute(
      "inside", {"--docker_image=" + std::string(kImage),
                 "--command=grep -q 'mesos test image' /etc/os-release && [ ! -e /etc/removed ] && "
                 "[ \"$(id -u)\" = 1000 ] && [ \"$PWD\" = /tmp ] && [ \"$GREETING\" = hi ] && "
                 "[ \"$MESOS_SANDBOX\" = /mnt/mesos/sandbox ] && [ -f \"$MESOS_SANDBOX/stdout\" ] "
                 "&& echo seen-inside"});
  EXPECT_TRUE(run.exitedWith(0)) << run.describe() << readFile(dir_ + "/slave.log");
  EXPECT_NE(run.out.find("TASK_FINISHED"), std::string::npos) << run.describe();
  EXPECT_NE(sandboxFile("inside", "stdout").find("seen-inside"), std::string::npos);
  // Destroyed with its executor: no root filesystem, nothing mounted.
  EXPECT_TRUE(waitUntil([&] { return rootfses().empty(); }, 30s))
      << "left: " << (rootfses().empty() ? "" : rootfses().front());
  EXPECT_EQ(std::vector<std::string>{}, mountsHere());
}

// The command executor starts the task through the launch helper, as root:
// the framework's variables must reach the task, never the helper (a
// dynamic program, whose loader would load an LD_PRELOAD as root). The
// image's programs are static (busybox), so only the helper's loader could
// complain about the library.
TEST_F(ImageContainersTest, TheFrameworksVariablesReachTheTaskButNotTheHelperRunningAsRoot) {
  ASSERT_GT(startSlaveWith(), 0);
  ChildResult run = execute(
      "preload", {"--docker_image=" + std::string(kImage),
                  "--env={\"LD_PRELOAD\":\"/nonexistent/preload.so\",\"GREETING\":\"mine\"}",
                  "--command=[ \"$LD_PRELOAD\" = /nonexistent/preload.so ] && "
                  "[ \"$GREETING\" = mine ]"});
  EXPECT_TRUE(run.exitedWith(0)) << run.describe() << readFile(dir_ + "/slave.log");
  EXPECT_EQ(sandboxFile("preload", "stderr").find("preload.so"), std::string::npos)
      << sandboxFile("preload", "stderr");
}

TEST_F(ImageContainersTest, TheImagesEntrypointRunsWhenTheTaskGivesNoCommand) {
  ASSERT_GT(startSlaveWith(), 0);
  ChildResult run = execute("entrypoint", {"--docker_image=" + std::string(kImage), "--no-shell"});
  EXPECT_TRUE(run.exitedWith(0)) << run.describe() << readFile(dir_ + "/slave.log");
  // The image's entrypoint and cmd: sh -c 'cat /etc/os-release'.
  EXPECT_NE(sandboxFile("entrypoint", "stdout").find("mesos test image"), std::string::npos)
      << sandboxFile("entrypoint", "stderr");
}

TEST_F(ImageContainersTest, ASecondContainerOfTheImageStartsWithoutTheRegistry) {
  ASSERT_GT(startSlaveWith(), 0);
  ChildResult first = execute("first", {"--docker_image=" + std::string(kImage), "--command=true"});
  ASSERT_TRUE(first.exitedWith(0)) << first.describe() << readFile(dir_ + "/slave.log");
  registry_->stop();
  ChildResult second =
      execute("second", {"--docker_image=" + std::string(kImage), "--command=cat /etc/os-release"});
  EXPECT_TRUE(second.exitedWith(0)) << second.describe() << readFile(dir_ + "/slave.log");
  EXPECT_NE(readFile(dir_ + "/slave.log").find("(cached)"), std::string::npos);
  // A tag the store does not have needs the registry, which is gone now.
  ChildResult third = execute("third", {"--docker_image=test/busybox:base", "--command=true"});
  EXPECT_TRUE(third.exitedWith(1)) << third.describe();
  EXPECT_NE(third.out.find("Failed to pull 'test/busybox:base'"), std::string::npos)
      << third.describe();
}

// Image.cached=false (mesos-execute --task): the registry is asked again,
// so that without it the task fails, though the store has the image.
TEST_F(ImageContainersTest, AnImageNotCachedIsAskedOfTheRegistryEveryTime) {
  ASSERT_GT(startSlaveWith(), 0);
  auto task = [](const std::string& id) {
    return "--task={\"name\":\"" + id + "\",\"task_id\":{\"value\":\"" + id +
           "\"},\"resources\":[{\"name\":\"cpus\",\"type\":\"SCALAR\",\"scalar\":{"
           "\"value\":0.1}},{\"name\":\"mem\",\"type\":\"SCALAR\",\"scalar\":{\"value\":"
           "32}}],\"command\":{\"value\":\"true\"},\"container\":{\"type\":\"MESOS\","
           "\"mesos\":{\"image\":{\"type\":\"DOCKER\",\"docker\":{\"name\":\"" +
           std::string(kImage) + "\"},\"cached\":false}}}}";
  };
  ChildResult first =
      runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(), task("a")}, 120s);
  ASSERT_TRUE(first.exitedWith(0)) << first.describe() << readFile(dir_ + "/slave.log");
  ChildResult second =
      runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(), task("b")}, 120s);
  ASSERT_TRUE(second.exitedWith(0)) << second.describe() << readFile(dir_ + "/slave.log");
  EXPECT_EQ(readFile(dir_ + "/slave.log").find("(cached)"), std::string::npos)
      << "an image with cached=false was taken from the store";
  registry_->stop();
  ChildResult third =
      runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(), task("c")}, 120s);
  EXPECT_TRUE(third.exitedWith(1)) << third.describe();
  EXPECT_NE(third.out.find("TASK_FAILED"), std::string::npos) << third.describe();
  EXPECT_NE(third.out.find("Failed to pull '" + std::string(kImage) + "'"), std::string::npos)
      << third.describe();
}

// A persistent volume (reserved and created by the operator) in a container
// from an image: a bind mount in the image's tree at the volume's path in
// the sandbox, where the task's file lands in the volume on the host. (The
// base image: the latest one's user could not write the root-owned volume.)
TEST_F(ImageContainersTest, APersistentVolumeIsMountedIntoTheImage) {
  const std::string curl = "/usr/bin/curl";
  if (::access(curl.c_str(), X_OK) != 0) GTEST_SKIP() << "needs curl (scripts/install-deps.sh)";
  ASSERT_GT(startSlaveWith(), 0);
  json::Value state = getJson(master_, "/state");
  const std::string slaveId = state["slaves"].array().at(0)["id"].string();
  const std::string disk =
      "{\"name\":\"disk\",\"type\":\"SCALAR\",\"scalar\":{\"value\":64},\"role\":\"eng\","
      "\"reservation\":{\"principal\":\"ops\"}";
  const std::string volume = disk +
                             ",\"disk\":{\"persistence\":{\"id\":\"v1\",\"principal\":\"ops\"},"
                             "\"volume\":{\"container_path\":\"data\",\"mode\":\"RW\"}}}";
  auto post = [&](const std::string& endpoint, const std::string& field, const std::string& value) {
    return runChild({curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--data-urlencode",
                     "slaveId=" + slaveId, "--data-urlencode", field + "=[" + value + "]",
                     "http://" + master_.toString() + "/master/" + endpoint},
                    30s);
  };
  ChildResult reserved = post("reserve", "resources", disk + "}");
  ASSERT_EQ("202", reserved.out) << reserved.describe();
  ChildResult created = post("create-volumes", "volumes", volume);
  ASSERT_EQ("202", created.out) << created.describe();

  const std::string task =
      "--task={\"name\":\"kept\",\"task_id\":{\"value\":\"kept\"},\"resources\":[{\"name\":"
      "\"cpus\",\"type\":\"SCALAR\",\"scalar\":{\"value\":0.1}},{\"name\":\"mem\",\"type\":"
      "\"SCALAR\",\"scalar\":{\"value\":32}}," +
      volume +
      "],\"command\":{\"value\":\"grep -q 'test image' /etc/os-release && echo kept > "
      "$MESOS_SANDBOX/data/file\"},\"container\":{\"type\":\"MESOS\",\"mesos\":{\"image\":{"
      "\"type\":\"DOCKER\",\"docker\":{\"name\":\"test/busybox:base\"}}}}}";
  ChildResult run =
      runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--role=eng", task}, 120s);
  ASSERT_TRUE(run.exitedWith(0)) << run.describe() << readFile(dir_ + "/slave.log");
  std::string kept;
  std::error_code error;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ + "/slave/volumes", error)) {
    if (entry.path().filename() == "file") kept = readFile(entry.path().string());
  }
  EXPECT_EQ("kept\n", kept) << "the task's file is not in the volume on the host";
  EXPECT_TRUE(waitUntil([&] { return rootfses().empty(); }, 30s));
  EXPECT_EQ(std::vector<std::string>{}, mountsHere());
}

TEST_F(ImageContainersTest, AMissingImageFailsTheTaskWithTheRegistrysReason) {
  ASSERT_GT(startSlaveWith(), 0);
  ChildResult run = execute("missing", {"--docker_image=test/nothing:1", "--command=true"});
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.out.find("TASK_FAILED"), std::string::npos) << run.describe();
  EXPECT_NE(run.out.find("Failed to pull 'test/nothing:1'"), std::string::npos) << run.describe();
  EXPECT_TRUE(waitUntil([&] { return rootfses().empty(); }, 30s));
}

TEST_F(ImageContainersTest, ACorruptLayerFailsTheTaskNamingTheDigest) {
  ASSERT_GT(startSlaveWith(), 0);
  // The largest blob of the registry is busybox's layer: its bytes change,
  // its name (the digest the manifest gives) does not.
  std::string largest;
  uintmax_t size = 0;
  for (const auto& entry : fs::recursive_directory_iterator(registry_->storage())) {
    if (entry.is_regular_file() && entry.path().filename() == "data" && entry.file_size() > size) {
      size = entry.file_size();
      largest = entry.path().string();
    }
  }
  ASSERT_FALSE(largest.empty());
  std::ofstream(largest, std::ios::binary | std::ios::trunc) << std::string(4096, 'x');
  ChildResult run = execute("corrupt", {"--docker_image=" + std::string(kImage), "--command=true"});
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.out.find("TASK_FAILED"), std::string::npos) << run.describe();
  EXPECT_NE(run.out.find("sha256:"), std::string::npos) << run.describe();
  EXPECT_TRUE(waitUntil([&] { return rootfses().empty(); }, 30s));
  EXPECT_EQ(std::vector<std::string>{}, mountsHere());
}

TEST_F(ImageContainersTest, ASlaveKilledWithAContainerRunningLeavesNothingAfterItsRestart) {
  pid_t slave = startSlaveWith();
  ASSERT_GT(slave, 0);
  pid_t framework = startDaemon({MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                                 "--name=long", "--resources=cpus:0.1;mem:32",
                                 "--docker_image=" + std::string(kImage), "--command=sleep 1000"},
                                dir_ + "/execute.log");
  ASSERT_GT(framework, 0);
  ASSERT_TRUE(waitUntil([&] { return aTaskRuns(); }, 60s)) << readFile(dir_ + "/slave.log");
  // /state shows the task's container, its image among it (as the web UI
  // reads it).
  json::Value state = getJson(master_, "/state");
  const json::Value& task = state["frameworks"].array().at(0)["tasks"].array().at(0);
  EXPECT_EQ("\"" + std::string(kImage) + "\"",
            json::stringify(task["container"]["mesos"]["image"]["docker"]["name"]))
      << json::stringify(task);
  EXPECT_EQ("\"MESOS\"", json::stringify(task["container"]["type"])) << json::stringify(task);
  ASSERT_EQ(1u, rootfses().size());
  // The image's overlayfs is mounted in the container's own mount
  // namespace only: the host's table holds nothing of it.
  ASSERT_EQ(std::vector<std::string>{}, mountsHere());
  ::kill(slave, SIGKILL);
  EXPECT_EQ(128 + SIGKILL, waitForExit(slave, 30s));
  reaped(slave);
  ::kill(framework, SIGKILL);
  waitForExit(framework, 30s);
  // The restarted slave kills the container it does not keep and removes
  // its root filesystem.
  ASSERT_GT(startSlave(
                master_, "slave",
                [&] {
                  std::vector<std::string> flags =
                      slaveFlags("filesystem/linux,docker/runtime,posix/cpu");
                  flags.push_back("--recover=cleanup");
                  return flags;
                }(),
                freePort()),
            0);
  EXPECT_TRUE(waitUntil([&] { return rootfses().empty() && mountsHere().empty(); }, 60s))
      << "left: " << mountsHere().size() << " mounts, " << rootfses().size() << " rootfses\n"
      << readFile(dir_ + "/slave.log");
}

TEST_F(ImageContainersTest, ASlaveWithoutImageProvidersFailsTheTaskSayingSo) {
  ASSERT_GT(
      startSlave(master_, "slave", {"--resources=cpus:2;mem:512;disk:512", "--isolation=posix/cpu"},
                 freePort()),
      0);
  ASSERT_TRUE(waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s));
  ChildResult run =
      execute("unprovided", {"--docker_image=" + std::string(kImage), "--command=true"});
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.out.find("--image_providers"), std::string::npos) << run.describe();
}

// --image_gc_config with a headroom no file system has (every check
// collects) and a short interval: the slave removes the image no container
// uses, with the layer only it used, while a running container's image and
// the excluded image stay; once that container is gone, its image goes too.
TEST_F(ImageContainersTest, ImageGcRemovesUnusedImagesButNotARunningContainersOrExcludedOnes) {
  // test/kept:1 is the base image again, under a name the config excludes.
  ASSERT_EQ("",
            images::copyImage(dir_, "base", "docker://" + registry_->hostPort() + "/test/kept:1"));
  const std::string store = dir_ + "/store";
  // The references in the store's table.
  auto stored = [&]() {
    std::set<std::string> references;
    auto table = json::parse(readFile(store + "/images.json"));
    if (!table || !table->isObject() || !(*table)["images"].isObject()) return references;
    for (const auto& [key, image] : (*table)["images"].object()) {
      references.insert(image["reference"].string());
    }
    return references;
  };
  auto layers = [&]() {
    std::set<std::string> found;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(store + "/layers", error)) {
      found.insert(entry.path().filename().string());
    }
    return found;
  };
  const std::string latest = "registry-1.docker.io/test/busybox:latest";
  const std::string base = "registry-1.docker.io/test/busybox:base";
  const std::string kept = "registry-1.docker.io/test/kept:1";
  ASSERT_GT(startSlaveWith("filesystem/linux,docker/runtime,posix/cpu",
                           {"--image_gc_config={\"image_disk_headroom\": 1.0, "
                            "\"image_disk_watch_interval\": {\"nanoseconds\": 100000000}, "
                            "\"excluded_images\": [{\"type\": \"DOCKER\", \"docker\": "
                            "{\"name\": \"test/kept:1\"}}]}"}),
            0);
  ChildResult excluded = execute("excluded", {"--docker_image=test/kept:1", "--command=true"});
  ASSERT_TRUE(excluded.exitedWith(0)) << excluded.describe() << readFile(dir_ + "/slave.log");
  ChildResult unused =
      execute("unused", {"--docker_image=" + std::string(kImage), "--command=true"});
  ASSERT_TRUE(unused.exitedWith(0)) << unused.describe() << readFile(dir_ + "/slave.log");

  pid_t framework = startDaemon(
      {MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--name=running",
       "--resources=cpus:0.1;mem:32", "--docker_image=test/busybox:base", "--command=sleep 1000"},
      dir_ + "/execute.log");
  ASSERT_GT(framework, 0);
  ASSERT_TRUE(waitUntil([&] { return aTaskRuns(); }, 60s)) << readFile(dir_ + "/slave.log");

  // The base image has one layer, which the latest image and test/kept:1
  // share; the latest image's second layer is its own.
  EXPECT_TRUE(waitUntil(
      [&] {
        return stored() == std::set<std::string>{base, kept} && layers().size() == 1;
      },
      60s))
      << "images: " << stored().size() << ", layers: " << layers().size() << "\n"
      << readFile(dir_ + "/slave.log");
  // The slave logs what went once the collector has exited, which can be
  // after the store already shows it.
  EXPECT_TRUE(waitUntil(
      [&] {
        return readFile(dir_ + "/slave.log")
                   .find("Image garbage collection removed 1 image(s) (" + latest +
                         ") and 1 layer(s)") != std::string::npos;
      },
      30s))
      << readFile(dir_ + "/slave.log");
  EXPECT_EQ(1u, rootfses().size()) << "the running container lost its root filesystem";

  // The framework goes, its task is killed and its container destroyed:
  // nothing pins the base image any more.
  ::kill(framework, SIGKILL);
  waitForExit(framework, 30s);
  EXPECT_TRUE(
      waitUntil([&] { return rootfses().empty() && stored() == std::set<std::string>{kept}; }, 60s))
      << "images: " << stored().size() << ", rootfses: " << rootfses().size() << "\n"
      << readFile(dir_ + "/slave.log");
  EXPECT_EQ(1u, layers().size());
}

TEST_F(ImageContainersTest, ABadImageGcConfigStopsTheSlave) {
  std::vector<std::string> flags = slaveFlags("filesystem/linux,docker/runtime");
  flags.push_back(
      "--image_gc_config={\"image_disk_headroom\": 2, \"image_disk_watch_interval\": "
      "{\"nanoseconds\": 1000000000}}");
  pid_t slave = startSlave(master_, "bad", flags, freePort());
  ASSERT_GT(slave, 0);
  EXPECT_EQ(1, waitForExit(slave, 30s));
  reaped(slave);
  EXPECT_NE(readFile(dir_ + "/bad.log")
                .find("--image_gc_config: 'image_disk_headroom' must be between 0.0 and 1.0"),
            std::string::npos)
      << readFile(dir_ + "/bad.log");
}

TEST_F(ImageContainersTest, ImageProvidersWithoutFilesystemLinuxStopTheSlave) {
  pid_t slave = startSlave(master_, "bad", slaveFlags("posix/cpu"), freePort());
  ASSERT_GT(slave, 0);
  EXPECT_EQ(1, waitForExit(slave, 30s));
  reaped(slave);
  EXPECT_NE(readFile(dir_ + "/bad.log").find("needs the filesystem/linux isolator"),
            std::string::npos)
      << readFile(dir_ + "/bad.log");
}

}  // namespace
}  // namespace mesos::test
