// Pulling real images with the mesos-provisioner helper: a docker-registry
// process on loopback serving an image the test builds from busybox-static
// (umoci, skopeo), and a directory of image tarballs. Then provisioning the
// pulled image with the overlay and copy backends.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <thread>

#include "common/json.hpp"
#include "slave/containerizer/provisioner/backends/backend.hpp"
#include "slave/containerizer/provisioner/backends/overlay.hpp"
#include "slave/containerizer/provisioner/provisioner.hpp"
#include "slave/containerizer/provisioner/store.hpp"
#include "containerizer/provisioner/image_helpers.hpp"

namespace mesos::internal::slave::provisioner {
namespace {

using testing::Ran;
using testing::readText;
using testing::Registry;
using testing::ScratchDir;

class ImagePullTest : public ::testing::Test {
 protected:
  // The test images are built once for the suite.
  static void SetUpTestSuite() {
    missing_ = testing::missingImageTool();
    if (!missing_.empty()) return;
    images_ = std::make_unique<ScratchDir>();
    buildFailure_ = testing::buildTestImages(images_->path());
  }
  static void TearDownTestSuite() { images_.reset(); }

  void SetUp() override {
    if (!missing_.empty())
      GTEST_SKIP() << "the image tests need " << missing_ << " (install-deps.sh)";
    ASSERT_EQ("", buildFailure_);
    store_ = scratch_.path() + "/store";
  }

  // Starts a registry holding the test images as test/busybox:latest
  // (two layers) and test/base:latest (one layer).
  std::unique_ptr<Registry> startRegistry() {
    auto registry = std::make_unique<Registry>(scratch_.path());
    EXPECT_EQ("", registry->error());
    for (const char* tag : {"latest", "base"}) {
      std::string name = std::string(tag) == "latest" ? "busybox" : "base";
      EXPECT_EQ(
          "", testing::copyImage(images_->path(), tag,
                                 "docker://" + registry->hostPort() + "/test/" + name + ":latest"));
    }
    return registry;
  }

  Ran pull(const std::string& image, const std::string& registry) {
    return testing::run({MESOS_PROVISIONER_PATH, "pull", "--image=" + image,
                         "--docker_registry=" + registry, "--docker_store_dir=" + store_},
                        scratch_.path());
  }

  // The helper's JSON answer.
  static json::Value answer(const Ran& ran) {
    auto parsed = json::parse(ran.out);
    EXPECT_TRUE(parsed.ok()) << ran.out << ran.err;
    return parsed.ok() ? parsed.value() : json::Value();
  }

  StoredImage stored(const std::string& reference) {
    auto store = Store::open(store_);
    EXPECT_TRUE(store.ok());
    auto image = store->find(reference);
    EXPECT_TRUE(image.ok() && image->has_value()) << reference;
    return image.ok() && image->has_value() ? **image : StoredImage{};
  }

  // Provisions `image` with `backend` and checks the test image's files.
  void expectProvisioned(const StoredImage& image, const std::string& backend) {
    auto store = Store::open(store_);
    ASSERT_TRUE(store.ok());
    auto provisioner = Provisioner::create(backend);
    ASSERT_TRUE(provisioner.ok()) << provisioner.error().message;
    std::string dir = scratch_.path() + "/provisioned-" + backend;
    auto rootfs = provisioner->provision(*store, image, dir);
    ASSERT_TRUE(rootfs.ok()) << rootfs.error().message;
    EXPECT_NE(std::string::npos, readText(*rootfs + "/etc/os-release").find("mesos test image"));
    EXPECT_TRUE(std::filesystem::exists(*rootfs + "/bin/busybox"));
    EXPECT_EQ("busybox", std::filesystem::read_symlink(*rootfs + "/bin/sh").string());
    EXPECT_FALSE(std::filesystem::exists(*rootfs + "/etc/removed"))
        << "the second layer's whiteout was not applied by " << backend;
    if (::geteuid() == 0 && testing::haveProgram("chroot")) {
      // The image's own busybox runs in it and sees the image's files.
      Ran cat = testing::run({"chroot", *rootfs, "/bin/sh", "-c", "cat /etc/os-release"},
                             scratch_.path());
      EXPECT_EQ(0, cat.status) << cat.err;
      EXPECT_NE(std::string::npos, cat.out.find("mesos test image")) << cat.out;
    }
    ASSERT_TRUE(provisioner->destroy(dir).ok());
    EXPECT_TRUE(mountsBelow(scratch_.path()).empty());
    EXPECT_FALSE(std::filesystem::exists(dir));
  }

  static inline std::string missing_;
  static inline std::string buildFailure_;
  static inline std::unique_ptr<ScratchDir> images_;
  ScratchDir scratch_;
  std::string store_;
};

TEST_F(ImagePullTest, PullsOnceThenServesFromTheStore) {
  auto registry = startRegistry();
  std::string image = registry->hostPort() + "/test/busybox:latest";
  Ran first = pull(image, registry->url());
  ASSERT_EQ(0, first.status) << first.err;
  json::Value pulled = answer(first);
  EXPECT_EQ(image, pulled["reference"].string());
  EXPECT_FALSE(pulled["cached"].boolean());
  ASSERT_EQ(2u, pulled["layers"].array().size());
  EXPECT_EQ(json::Value(json::Array{"/bin/sh"}), pulled["config"]["entrypoint"]);
  EXPECT_EQ(json::Value(json::Array{"-c", "cat /etc/os-release"}), pulled["config"]["cmd"]);
  EXPECT_EQ("1000:1000", pulled["config"]["user"].string());
  EXPECT_EQ("/tmp", pulled["config"]["working_dir"].string());
  bool greeting = false;
  for (const json::Value& variable : pulled["config"]["env"].array()) {
    greeting = greeting || variable.string() == "GREETING=hi";
  }
  EXPECT_TRUE(greeting) << json::stringify(pulled["config"]);
  for (const json::Value& layer : pulled["layers"].array()) {
    EXPECT_TRUE(std::filesystem::is_directory(store_ + "/layers/" + layer.string() + "/rootfs"));
  }

  // With the registry gone, a second pull can only succeed from the store.
  registry->stop();
  Ran second = pull(image, registry->url());
  ASSERT_EQ(0, second.status) << second.err;
  json::Value cached = answer(second);
  EXPECT_TRUE(cached["cached"].boolean());
  EXPECT_EQ(pulled["layers"], cached["layers"]);

  // The image by the manifest's digest is in the table too.
  StoredImage byTag = stored(image);
  EXPECT_EQ(byTag.layers,
            stored(registry->hostPort() + "/test/busybox@" + byTag.manifestDigest).layers);
}

TEST_F(ImagePullTest, TwoHelpersPullingOneImageAtOnceBothSucceed) {
  auto registry = startRegistry();
  std::string image = registry->hostPort() + "/test/busybox:latest";
  std::string outputs[2] = {scratch_.path() + "/a", scratch_.path() + "/b"};
  Ran ran[2];
  std::vector<std::thread> pulls;
  for (int i = 0; i < 2; ++i) {
    std::filesystem::create_directories(outputs[i]);
    pulls.emplace_back([&, i] {
      ran[i] =
          testing::run({MESOS_PROVISIONER_PATH, "pull", "--image=" + image,
                        "--docker_registry=" + registry->url(), "--docker_store_dir=" + store_},
                       outputs[i]);
    });
  }
  for (std::thread& pull : pulls) pull.join();
  ASSERT_EQ(0, ran[0].status) << ran[0].err;
  ASSERT_EQ(0, ran[1].status) << ran[1].err;
  EXPECT_EQ(answer(ran[0])["layers"], answer(ran[1])["layers"]);
  EXPECT_EQ(2, std::distance(std::filesystem::directory_iterator(store_ + "/layers"),
                             std::filesystem::directory_iterator()));
  EXPECT_TRUE(std::filesystem::is_empty(store_ + "/staging"));
  expectProvisioned(stored(image), "copy");
}

TEST_F(ImagePullTest, TheDockerRegistryFlagServesReferencesWithoutARegistry) {
  auto registry = startRegistry();
  Ran ran = pull("test/base", registry->url());
  ASSERT_EQ(0, ran.status) << ran.err;
  EXPECT_EQ(1u, answer(ran)["layers"].array().size());
  EXPECT_NE(std::string::npos, registry->log().find("/v2/test/base/manifests/latest"));
}

TEST_F(ImagePullTest, PulledImagesProvisionWithOverlayAndCopy) {
  auto registry = startRegistry();
  std::string image = registry->hostPort() + "/test/busybox:latest";
  Ran ran = pull(image, registry->url());
  ASSERT_EQ(0, ran.status) << ran.err;
  expectProvisioned(stored(image), "copy");
  if (!OverlayBackend::supported()) GTEST_SKIP() << "overlayfs needs root and kernel support";
  expectProvisioned(stored(image), "overlay");
}

TEST_F(ImagePullTest, ACorruptLayerFailsWithADigestMismatch) {
  auto registry = startRegistry();
  // The largest blob is busybox's layer: overwritten with as many other bytes.
  std::filesystem::path largest;
  uintmax_t size = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           registry->storage() + "/docker/registry/v2/blobs")) {
    if (entry.is_regular_file() && entry.file_size() > size) {
      size = entry.file_size();
      largest = entry.path();
    }
  }
  ASSERT_GT(size, 100000u);
  std::string digest = "sha256:" + largest.parent_path().filename().string();
  testing::writeText(largest.string(), std::string(size, 'x'));

  std::string image = registry->hostPort() + "/test/busybox:latest";
  Ran ran = pull(image, registry->url());
  EXPECT_EQ(1, ran.status);
  EXPECT_NE(std::string::npos, ran.err.find("digest mismatch")) << ran.err;
  EXPECT_NE(std::string::npos, ran.err.find(digest)) << ran.err;
  EXPECT_EQ(1, std::count(ran.err.begin(), ran.err.end(), '\n')) << ran.err;
  EXPECT_FALSE(std::filesystem::exists(store_ + "/layers/" + digest));
  auto store = Store::open(store_);
  ASSERT_TRUE(store.ok());
  EXPECT_FALSE(store->find(image)->has_value());
}

TEST_F(ImagePullTest, AMissingImageFailsWithTheRegistrysReason) {
  auto registry = startRegistry();
  Ran ran = pull(registry->hostPort() + "/test/nothing:latest", registry->url());
  EXPECT_EQ(1, ran.status);
  EXPECT_NE(std::string::npos, ran.err.find("Failed to pull")) << ran.err;
  EXPECT_NE(std::string::npos, ran.err.find("404")) << ran.err;
  EXPECT_NE(std::string::npos, ran.err.find("MANIFEST_UNKNOWN")) << ran.err;
}

TEST_F(ImagePullTest, AnUnreachableRegistryIsNamed) {
  Ran ran = pull("127.0.0.1:1/test/busybox", "http://127.0.0.1:1");
  EXPECT_EQ(1, ran.status);
  EXPECT_NE(std::string::npos, ran.err.find("127.0.0.1:1")) << ran.err;
}

TEST_F(ImagePullTest, ADirectoryOfDockerSaveTarballsServesAsTheRegistry) {
  std::string archives = scratch_.path() + "/archives";
  std::filesystem::create_directories(archives + "/test");
  ASSERT_EQ("",
            testing::copyImage(images_->path(), "latest",
                               "docker-archive:" + archives + "/saved.tar:test/busybox:latest"));
  std::filesystem::rename(archives + "/saved.tar", archives + "/test/busybox:latest.tar");
  ASSERT_EQ("",
            testing::copyImage(images_->path(), "base", "oci-archive:" + archives + "/oci.tar"));
  std::filesystem::rename(archives + "/oci.tar", archives + "/test/base.tar");

  Ran saved = pull("test/busybox:latest", archives);
  ASSERT_EQ(0, saved.status) << saved.err;
  json::Value image = answer(saved);
  EXPECT_EQ(2u, image["layers"].array().size());
  EXPECT_EQ("/tmp", image["config"]["working_dir"].string());
  expectProvisioned(stored(image["reference"].string()), "copy");

  Ran oci = pull("test/base", archives);
  ASSERT_EQ(0, oci.status) << oci.err;
  EXPECT_EQ(1u, answer(oci)["layers"].array().size());

  Ran missing = pull("test/nothing:1.0", archives);
  EXPECT_EQ(1, missing.status);
  EXPECT_NE(std::string::npos, missing.err.find(archives + "/test/nothing:1.0.tar")) << missing.err;
}

TEST_F(ImagePullTest, BadUsageExitsTwo) {
  Ran ran = testing::run({MESOS_PROVISIONER_PATH, "pull", "--docker_store_dir=" + store_},
                         scratch_.path());
  EXPECT_EQ(2, ran.status);
  EXPECT_NE(std::string::npos, ran.err.find("--image")) << ran.err;
  Ran bad = pull("Bad/Name", "http://127.0.0.1:1");
  EXPECT_EQ(1, bad.status);
  EXPECT_NE(std::string::npos, bad.err.find("lower case")) << bad.err;
}

}  // namespace
}  // namespace mesos::internal::slave::provisioner
