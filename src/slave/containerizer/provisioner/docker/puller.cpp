#include "slave/containerizer/provisioner/docker/puller.hpp"

#include <sys/stat.h>

#include <filesystem>

#include "slave/containerizer/provisioner/docker/local_puller.hpp"
#include "slave/containerizer/provisioner/docker/registry_puller.hpp"
#include "slave/containerizer/provisioner/layer_archive.hpp"

namespace mesos::internal::slave::provisioner::docker {

Result<void> storeLayer(const Store& store, const std::string& layerId, const std::string& blob) {
  if (store.hasLayer(layerId)) return {};
  auto staging = store.makeStaging();
  if (!staging) return staging.error();
  std::error_code ignored;
  std::string rootfs = *staging + "/rootfs";
  if (::mkdir(rootfs.c_str(), 0755) != 0) {
    std::filesystem::remove_all(*staging, ignored);
    return Error{"cannot create '" + rootfs + "'"};
  }
  if (auto extracted = extractLayer(blob, rootfs); !extracted) {
    std::filesystem::remove_all(*staging, ignored);
    return Error{"layer " + layerId + ": " + extracted.error().message};
  }
  return store.commitLayer(layerId, *staging);
}

Result<Pulled> pull(const Store& store, const std::string& image, const PullOptions& options) {
  auto failed = [&](const std::string& why) {
    return Error{"Failed to pull '" + image + "': " + why};
  };
  auto reference = parseReference(image);
  if (!reference) return Error{"Failed to pull: " + reference.error().message};

  // Taken before looking in the store: a gc() waits for it, so that an
  // image found here is still there when it is pinned below.
  auto lock = store.pullLock();
  if (!lock) return failed(lock.error().message);
  auto pin = [&](Pulled pulled) -> Result<Pulled> {
    if (options.pinFor.empty()) return pulled;
    if (auto pinned = store.pin(options.pinFor, pulled.image.reference); !pinned) {
      return Error{"Failed to pin '" + pulled.image.reference + "' for container " +
                   options.pinFor + ": " + pinned.error().message};
    }
    return pulled;
  };

  std::string key = reference->canonical();
  auto found = store.find(key);
  if (!found) return failed(found.error().message);
  if (*found && !options.forcePull) {
    bool whole = true;
    for (const std::string& layer : (*found)->layers) whole = whole && store.hasLayer(layer);
    if (whole) return pin(Pulled{std::move(**found), true});
  }

  Result<StoredImage> pulled = Error{};
  if (!options.registry.empty() && options.registry[0] == '/') {
    pulled = pullFromDirectory(store, *reference, options.registry);
  } else {
    pulled = pullFromRegistry(store, *reference, options);
  }
  if (!pulled) return failed(pulled.error().message);
  return pin(Pulled{std::move(pulled).value(), false});
}

}  // namespace mesos::internal::slave::provisioner::docker
