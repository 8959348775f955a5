// Interoperability with mesos-go's v1 HTTP scheduler client for containers
// from images: the probe go_v1_scheduler launches its command task in a
// MESOS container whose ContainerInfo.mesos.image names a Docker image,
// through our master's POST /api/v1/scheduler, as a framework written
// against mesos-go would (ContainerInfo, Image and Image.Docker as mesos-go
// encodes them, protobuf and JSON). The image is built by the test from
// busybox-static and served by a docker-registry process on loopback; the
// slave runs with --image_providers=docker.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "containerizer/provisioner/image_helpers.hpp"
#include "interop/go_probes.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace images = mesos::internal::slave::provisioner::testing;

class MesosGoV1ImageTest : public DaemonsFixture,
                           public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "containers from images need root";
    if (std::string missing = images::missingImageTool(); !missing.empty()) {
      GTEST_SKIP() << "needs " << missing << " (scripts/install-deps.sh installs it)";
    }
    DaemonsFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::string missing = MESOS_INTEROP_GO_MISSING;
    if (!missing.empty()) GTEST_SKIP() << "mesos-go interop probes not built: " << missing;
    probe_ = std::string(MESOS_INTEROP_GO_BIN) + "/go_v1_scheduler";
    if (access(probe_.c_str(), X_OK) != 0) {
      GTEST_SKIP() << probe_ << " is missing (" << std::strerror(errno) << ")";
    }
    ASSERT_EQ("", images::buildTestImages(dir_));
    registry_ = std::make_unique<images::Registry>(dir_);
    ASSERT_EQ("", registry_->error());
    ASSERT_EQ("", images::copyImage(dir_, "base",
                                    "docker://" + registry_->hostPort() + "/test/busybox:base"));
    master_ = startMaster({"--allocation_interval=100ms"});
    ASSERT_GT(startSlave(master_, "slave",
                         {"--resources=cpus:2;mem:512;disk:512",
                          "--isolation=filesystem/linux,docker/runtime,posix/cpu",
                          "--image_providers=docker", "--docker_registry=" + registry_->url(),
                          "--docker_store_dir=" + dir_ + "/store"}),
              0);
    ASSERT_TRUE(waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 60s));
  }

  void TearDown() override {
    if (!dir_.empty()) images::unmountBelow(dir_);
    DaemonsFixture::TearDown();
    if (registry_) registry_->stop();
  }

  std::string probe_;
  process::Address master_;
  std::unique_ptr<images::Registry> registry_;
};

TEST_P(MesosGoV1ImageTest, LaunchesACommandTaskInADockerImage) {
  ChildResult run =
      runChild({probe_, "--master=" + master_.toString(), "--encoding=" + GetParam(),
                "--timeout=60s", "--docker_image=" + registry_->hostPort() + "/test/busybox:base",
                "--command=cat /etc/os-release && [ ! -e /etc/debian_version ]"},
               90s);
  ASSERT_TRUE(run.exitedWith(0)) << run.describe() << readFile(dir_ + "/slave.log");
  EXPECT_NE(std::string::npos, run.out.find("status go-v1-task TASK_FINISHED")) << run.describe();
  // The task saw the image's tree: its /etc/os-release, and not the host's.
  std::string stdoutText;
  std::error_code error;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/slave", error)) {
    const std::string path = entry.path().string();
    if (entry.path().filename() == "stdout" &&
        path.find("/executors/go-v1-task/runs/") != std::string::npos) {
      stdoutText = readFile(path);
    }
  }
  EXPECT_NE(std::string::npos, stdoutText.find("mesos test image")) << stdoutText;
  // And its root filesystem went with its executor.
  EXPECT_TRUE(waitUntil([&] { return images::mountsBelow(dir_ + "/slave").empty(); }, 30s));
}

INSTANTIATE_TEST_SUITE_P(Encodings, MesosGoV1ImageTest, ::testing::Values("protobuf", "json"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "protobuf" ? std::string("Protobuf")
                                                           : std::string("Json");
                         });

}  // namespace
}  // namespace mesos::test
