// `mesos-provisioner gc` as the slave runs it: a real store on disk with
// hand-made layers, the helper as a child process, its JSON report, and
// what is left in the store afterwards.
#include <sys/stat.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "slave/containerizer/provisioner/docker/digest.hpp"
#include "slave/containerizer/provisioner/docker/puller.hpp"
#include "slave/containerizer/provisioner/docker/reference.hpp"
#include "slave/containerizer/provisioner/store.hpp"
#include "containerizer/provisioner/image_helpers.hpp"
#include "containerizer/provisioner/store_fixture.hpp"

namespace mesos::internal::slave::provisioner {
namespace {

using testing::Ran;
using testing::ScratchDir;
using testing::TarEntry;
using testing::tarOf;
using testing::writeText;

std::string canonical(const std::string& name) { return docker::parseReference(name)->canonical(); }

std::vector<std::string> strings(const json::Value& value) {
  std::vector<std::string> out;
  for (const json::Value& item : value.array()) out.push_back(item.string());
  return out;
}

class ImageGcTest : public testing::StoreTest {
 protected:
  // A layer of one file.
  std::string addLayer(const std::string& file, const std::string& contents) {
    return StoreTest::addLayer({TarEntry(file, '0', contents)});
  }

  // An image named as the store names it.
  StoredImage addImage(const std::string& name, const std::vector<std::string>& layers) {
    return StoreTest::addImage(canonical(name), layers);
  }

  Ran gc(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {MESOS_PROVISIONER_PATH, "gc",
                                     "--docker_store_dir=" + store_->directory()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::run(argv, scratch_.path());
  }

  bool hasConfig(const StoredImage& image) const {
    struct stat stats {};
    return ::stat((store_->directory() + "/configs/" + image.configDigest + ".json").c_str(),
                  &stats) == 0;
  }
};

TEST_F(ImageGcTest, RemovesAnUnusedImageAndItsLayersButKeepsPinnedAndExcludedOnes) {
  // The layers' contents are large enough to take disk blocks of their own.
  std::string shared = addLayer("shared", std::string(64 << 10, 's'));
  std::string onlyPinned = addLayer("pinned", std::string(64 << 10, 'p'));
  std::string onlyUnused = addLayer("unused", std::string(64 << 10, 'u'));
  std::string onlyExcluded = addLayer("excluded", std::string(64 << 10, 'e'));
  StoredImage pinned = addImage("test/pinned:1", {shared, onlyPinned});
  StoredImage unused = addImage("test/unused:1", {shared, onlyUnused});
  StoredImage excluded = addImage("test/excluded:1", {onlyExcluded});
  ASSERT_TRUE(store_->pin("container-1", pinned.reference).ok());

  // Excluded by its short name, as --image_gc_config names images.
  Ran ran = gc({"--excluded_images=[\"test/excluded:1\"]"});
  ASSERT_EQ(0, ran.status) << ran.err;
  EXPECT_EQ("", ran.err);
  auto report = json::parse(ran.out);
  ASSERT_TRUE(report.ok()) << ran.out;
  EXPECT_EQ(std::vector<std::string>{unused.reference}, strings((*report)["removed_images"]));
  EXPECT_EQ(std::vector<std::string>{onlyUnused}, strings((*report)["removed_layers"]));
  ASSERT_TRUE((*report)["bytes_freed"].isInteger()) << ran.out;
  EXPECT_GE((*report)["bytes_freed"].integer(), 64 << 10) << ran.out;

  // On disk: the unused image, its own layer and its configuration are
  // gone; the pinned image, the excluded one and the shared layer stay.
  EXPECT_FALSE(store_->find(unused.reference)->has_value());
  EXPECT_FALSE(store_->hasLayer(onlyUnused));
  EXPECT_FALSE(std::filesystem::exists(store_->layerPath(onlyUnused)));
  EXPECT_FALSE(hasConfig(unused));
  EXPECT_TRUE(store_->find(pinned.reference)->has_value());
  EXPECT_TRUE(store_->find(excluded.reference)->has_value());
  for (const std::string& layer : {shared, onlyPinned, onlyExcluded}) {
    EXPECT_TRUE(store_->hasLayer(layer)) << layer;
  }
  EXPECT_TRUE(hasConfig(pinned));
  EXPECT_TRUE(hasConfig(excluded));
  EXPECT_TRUE(std::filesystem::is_empty(store_->directory() + "/staging"));

  // Nothing more to remove; once the pin goes, the pinned image goes too.
  Ran again = gc({"--excluded_images=[\"test/excluded:1\"]"});
  ASSERT_EQ(0, again.status) << again.err;
  EXPECT_EQ("{\"bytes_freed\":0,\"removed_images\":[],\"removed_layers\":[]}\n", again.out);
  ASSERT_TRUE(store_->unpin("container-1").ok());
  Ran last = gc();
  ASSERT_EQ(0, last.status) << last.err;
  auto lastReport = json::parse(last.out);
  ASSERT_TRUE(lastReport.ok()) << last.out;
  std::vector<std::string> images = strings((*lastReport)["removed_images"]);
  EXPECT_EQ((std::set<std::string>{pinned.reference, excluded.reference}),
            std::set<std::string>(images.begin(), images.end()));
  EXPECT_EQ(3u, (*lastReport)["removed_layers"].array().size());
  EXPECT_TRUE(std::filesystem::is_empty(store_->directory() + "/layers"));
}

TEST_F(ImageGcTest, BadExcludedImagesAreRefusedAndNothingIsRemoved) {
  std::string layer = addLayer("x", "x");
  StoredImage image = addImage("test/x:1", {layer});
  for (const std::string& bad :
       {std::string("--excluded_images=busybox"), std::string("--excluded_images={}"),
        std::string("--excluded_images=[1]"), std::string("--excluded_images=[\"two words\"]")}) {
    Ran ran = gc({bad});
    EXPECT_EQ(2, ran.status) << bad;
    EXPECT_NE(std::string::npos, ran.err.find("mesos-provisioner: --excluded_images")) << ran.err;
    EXPECT_EQ("", ran.out);
  }
  Ran unknown = gc({"--image=busybox"});
  EXPECT_EQ(2, unknown.status);
  EXPECT_NE(std::string::npos, unknown.err.find("unknown flag '--image' for gc")) << unknown.err;
  EXPECT_TRUE(store_->find(image.reference)->has_value());
  EXPECT_TRUE(store_->hasLayer(layer));
}

// A provision pins its image before it lets go of the store's pull lock:
// the image is never unpinned while a gc could run.
TEST_F(ImageGcTest, APulledImageIsPinnedBeforeTheStoreIsUnlocked) {
  std::string layer = addLayer("y", "y");
  StoredImage image = addImage("test/y:1", {layer});
  docker::PullOptions options;
  options.pinFor = "container-2";
  auto pulled = docker::pull(*store_, "test/y:1", options);
  ASSERT_TRUE(pulled.ok()) << pulled.error().message;
  EXPECT_TRUE(pulled->cached);
  auto pins = store_->pins();
  ASSERT_TRUE(pins.ok());
  EXPECT_EQ((std::map<std::string, std::string>{{"container-2", image.reference}}), *pins);
  Ran ran = gc();
  ASSERT_EQ(0, ran.status) << ran.err;
  EXPECT_TRUE(store_->find(image.reference)->has_value());
  EXPECT_TRUE(store_->hasLayer(layer));
}

}  // namespace
}  // namespace mesos::internal::slave::provisioner
