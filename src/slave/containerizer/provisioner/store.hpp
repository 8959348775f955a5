// The image store under --docker_store_dir (docs/container-images.md):
//
//   layers/sha256:<hex>/rootfs/   one extracted layer, named by its blob's digest
//   configs/sha256:<hex>.json     an image configuration, named by its digest
//   images.json                   the image table: reference -> layers and config
//   pins.json                     which container uses which image's layers
//   staging/                      pulls in progress (emptied by gc())
//   table.lock, gc.lock           flock(2) locks (see below)
//
// Layers are shared by every image and container that uses them. A layer
// is extracted into staging/ and renamed into layers/ in one step, so a
// layer directory is always whole; when two pulls extract one layer, the
// first rename wins and the other pull drops its copy. Pulls hold gc.lock
// shared for as long as they stage; gc() holds it exclusively, so it never
// removes what a pull is about to record. The table and the pins are JSON
// files replaced whole under table.lock. Several processes (the slave and
// its mesos-provisioner helpers) may use one store at once.
//
// Every call blocks on the file system: call it off an actor's thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mesos/result.hpp"
#include "slave/containerizer/provisioner/docker/manifest.hpp"

namespace mesos::internal::slave::provisioner {

// An image in the store.
struct StoredImage {
  std::string reference;       // canonical (docker::Reference::canonical())
  std::string manifestDigest;  // of the manifest (or index) the image was pulled by
  std::string configDigest;
  std::vector<std::string> layers;  // layer ids ("sha256:<hex>"), bottom first
  docker::ImageConfig config;
};

// What gc() removed.
struct GcReport {
  std::vector<std::string> images;  // references
  std::vector<std::string> layers;  // layer ids
  uint64_t bytes = 0;  // of disk the layers and configurations removed held (st_blocks)
};

// Holds a lock until it goes (flock on an open file).
class StoreLock {
 public:
  StoreLock() = default;
  explicit StoreLock(int fd) : fd_(fd) {}
  StoreLock(StoreLock&& that) noexcept : fd_(that.fd_) { that.fd_ = -1; }
  StoreLock& operator=(StoreLock&& that) noexcept;
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;
  ~StoreLock();

 private:
  int fd_ = -1;
};

class Store {
 public:
  // Opens the store at `directory`, making it and its folders when missing.
  // Fails when they cannot be made or the table is not readable.
  static Result<Store> open(const std::string& directory);

  const std::string& directory() const { return directory_; }
  std::string layerPath(const std::string& layerId) const;
  std::string layerRootfs(const std::string& layerId) const {
    return layerPath(layerId) + "/rootfs";
  }
  bool hasLayer(const std::string& layerId) const;

  // The image stored under `reference` (a canonical reference, or one by
  // digest: "registry/repository@sha256:..."), nullopt when none.
  Result<std::optional<StoredImage>> find(const std::string& reference) const;
  Result<std::vector<StoredImage>> images() const;

  // --- For pullers (they hold pullLock() throughout). ---

  // Taken shared by a pull for as long as it stages and commits.
  Result<StoreLock> pullLock() const;
  // A new, empty directory under staging/; the caller removes it.
  Result<std::string> makeStaging() const;
  // Moves `staged` (a directory holding rootfs/) to layers/<layerId>. When
  // that layer is already there, `staged` is removed and this succeeds.
  Result<void> commitLayer(const std::string& layerId, const std::string& staged) const;
  // Writes configs/<digest>.json.
  Result<void> putConfig(const std::string& digest, const std::string& json) const;
  // Records `image` under its reference and under
  // "registry/repository@<manifestDigest>" (`digestKey`), replacing what was
  // there. Every layer must be committed already.
  Result<void> put(const StoredImage& image, const std::string& digestKey) const;

  // --- For the slave. ---

  // Records that `containerId` uses the image stored under `reference` (its
  // layers are kept until unpin()). Fails when the image is not stored.
  Result<void> pin(const std::string& containerId, const std::string& reference) const;
  // Forgets `containerId`'s pin; no error when it has none.
  Result<void> unpin(const std::string& containerId) const;
  // Container id -> the image reference it pinned.
  Result<std::map<std::string, std::string>> pins() const;

  // Removes every image that no container pins and that is not in `keep`
  // (canonical references), then every layer and configuration no remaining
  // image or pin uses, and leftover staging directories. Waits for running
  // pulls to finish first. A layer is first moved into staging/ whole, then
  // removed: a gc() killed half-way leaves no partial layer in layers/.
  Result<GcReport> gc(const std::set<std::string>& keep = {}) const;

 private:
  explicit Store(std::string directory) : directory_(std::move(directory)) {}

  Result<StoreLock> lock(const std::string& name, bool exclusive) const;

  std::string directory_;
};

// Writes `contents` to `path` whole: a temporary file renamed over it.
Result<void> writeFileAtomically(const std::string& path, const std::string& contents);
Result<std::string> readFile(const std::string& path);

}  // namespace mesos::internal::slave::provisioner
