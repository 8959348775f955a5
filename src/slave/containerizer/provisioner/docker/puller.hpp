// Pulling a Docker image into the store (store.hpp): from a registry
// (registry_puller.hpp) or from a directory of `docker save` tarballs
// (local_puller.hpp). Runs in the mesos-provisioner helper: it blocks on the
// network and the disk, and links libcurl and libarchive.
#pragma once

#include <string>

#include "mesos/result.hpp"
#include "slave/containerizer/provisioner/docker/reference.hpp"
#include "slave/containerizer/provisioner/store.hpp"

namespace mesos::internal::slave::provisioner::docker {

struct PullOptions {
  // --docker_registry: a registry URL (http:// or https://; a bare host is
  // taken as https://) or an absolute path to a directory of tarballs.
  std::string registry = "https://registry-1.docker.io";
  // --docker_config: Docker's config.json with registry credentials, or "".
  std::string dockerConfig;
  // Image.cached=false: ask the registry for the image's manifest even when
  // the store has the image (layers it has already are not fetched again).
  bool forcePull = false;
  // When set, the image is pinned for this container before the pull lets go
  // of the store's pull lock, so that no gc() runs between the pull and the
  // pin (the image would be unpinned then, and removed).
  std::string pinFor;
};

struct Pulled {
  StoredImage image;
  bool cached = false;  // found in the store: nothing was fetched
};

// Pulls `image` into `store` unless the store has it already, holding the
// store's pull lock throughout (also when the store has the image). Fails
// with "Failed to pull 'IMAGE': <why>", or "Failed to pin ..." when
// options.pinFor is set and the pin cannot be recorded.
Result<Pulled> pull(const Store& store, const std::string& image, const PullOptions& options);

// Extracts the verified layer blob `blob` into the store as `layerId` (no-op
// when the store has that layer).
Result<void> storeLayer(const Store& store, const std::string& layerId, const std::string& blob);

}  // namespace mesos::internal::slave::provisioner::docker
