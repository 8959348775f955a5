// A fixture of the image store tests: a store in a scratch directory, and
// hand-made layers and images put into it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "slave/containerizer/provisioner/docker/digest.hpp"
#include "slave/containerizer/provisioner/docker/puller.hpp"
#include "slave/containerizer/provisioner/store.hpp"
#include "containerizer/provisioner/image_helpers.hpp"

namespace mesos::internal::slave::provisioner::testing {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    auto store = Store::open(scratch_.path() + "/store");
    ASSERT_TRUE(store.ok()) << store.error().message;
    store_.emplace(std::move(store).value());
  }

  // Stores a layer made of `entries`; returns its id.
  std::string addLayer(const std::vector<TarEntry>& entries) {
    std::string tar = tarOf(entries);
    std::string id = docker::sha256Of(tar);
    std::string file = scratch_.path() + "/" + id.substr(7) + ".tar";
    writeText(file, tar);
    auto stored = docker::storeLayer(*store_, id, file);
    EXPECT_TRUE(stored.ok()) << stored.error().message;
    return id;
  }

  // Stores an image of `layers` (bottom first) named `reference`, with an
  // empty configuration.
  StoredImage addImage(const std::string& reference, const std::vector<std::string>& layers) {
    StoredImage image;
    image.reference = reference;
    image.configDigest = docker::sha256Of(reference);
    image.layers = layers;
    EXPECT_TRUE(store_->putConfig(image.configDigest, "{}").ok());
    auto put = store_->put(image, "");
    EXPECT_TRUE(put.ok()) << put.error().message;
    return image;
  }

  ScratchDir scratch_;
  std::optional<Store> store_;
};

}  // namespace mesos::internal::slave::provisioner::testing
