// Images: the slave's side of containers from Docker and OCI images
// (docs/container-images.md). The image store, the pulls and the root
// filesystems are the mesos-provisioner helper's work
// (containerizer/provisioner/provisioner_main.cpp), run as a child process:
// a pull waits on the network and a copy backend on the disk, and neither
// may hold up the slave's actor, which only starts the helper and hears
// how it ended, through a Future (as with the Fetcher).
//
//   Images images(launcherBinaryPath(flags.launcher_dir, kProvisionerHelper), flags);
//   images.provision(containerId, "busybox:1.36")
//       .then(self(), [=](const Result<ProvisionedImage>& image) {...});
//   ...the container ends...
//   images.destroy(containerId);
//
// A container's root filesystem is <work_dir>/provisioner/containers/<id>/rootfs
// on the host; its image's layers are pinned in the store until destroy().
//
// Image garbage collection (docs/container-images.md): gc() runs
// `mesos-provisioner gc` the same way; the slave starts it every
// image_disk_watch_interval of --image_gc_config when the store's file system
// has less than image_disk_headroom of its space free.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "mesos.pb.h"
#include "mesos/isolator.hpp"
#include "mesos/result.hpp"
#include "process/future.hpp"
#include "slave/flags.hpp"

namespace mesos::internal::slave {

// The helper's binary name, looked up in --launcher_dir.
constexpr const char* kProvisionerHelper = "mesos-provisioner";

struct ProvisionedImage {
  std::string reference;  // canonical: registry/repository:tag
  std::string rootfs;     // on the host
  mesos::isolation::ContainerConfig::Image config;
  bool cached = false;  // the store had it: nothing was pulled
};

// The image name a ContainerInfo asks for ("" when none): the Docker image
// of ContainerInfo.mesos.image (type DOCKER). An APPC image fails.
Result<std::string> dockerImageOf(const ContainerInfo& container);

// --image_gc_config: Apache Mesos's ImageGcConfig message as JSON, inline,
// in a file named file:///PATH, or by an absolute path:
//   {"image_disk_headroom": 0.1,
//    "image_disk_watch_interval": {"nanoseconds": 3600000000000},
//    "excluded_images": [{"type": "DOCKER", "docker": {"name": "busybox"}}]}
struct ImageGcConfig {
  double headroom = 0;                      // image_disk_headroom, in [0, 1]
  std::chrono::nanoseconds interval{};      // image_disk_watch_interval, positive
  std::vector<std::string> excludedImages;  // the Docker names (APPC images are ignored)
};

// Parses and checks the flag's value; the error names the flag and the fix.
Result<ImageGcConfig> parseImageGcConfig(const std::string& value);

// Whether the file system holding `path` (or, while it does not exist yet,
// its nearest existing parent) has less than `headroom` of its space free;
// the used share of that file system (0 to 1) in `usage`. statvfs(2): cheap,
// fine on an actor's thread.
Result<bool> needsImageGc(const std::string& path, double headroom, double* usage);

// What `mesos-provisioner gc` removed.
struct ImageGcReport {
  std::vector<std::string> images;  // references
  std::vector<std::string> layers;  // layer ids
  uint64_t bytesFreed = 0;
};

class Images {
 public:
  // `helper`: the mesos-provisioner binary; the store, registry, backend
  // and work directory come from `flags`.
  Images(std::string helper, const Flags& flags);
  // Kills the helpers still running (their futures then fail).
  ~Images();

  Images(const Images&) = delete;
  Images& operator=(const Images&) = delete;

  // The directory of a container's root filesystem (its parent).
  std::string directory(const std::string& containerId) const;

  // Starts pulling `image` (unless the store has it) and making the
  // container's root filesystem; returns at once. The future becomes ready
  // on the reaper's thread, never failed: the image, or an Error whose
  // message is one line, e.g. "Failed to pull 'busybox:1.36': ...". After
  // an Error, call destroy() (a pull or a mount may be half done).
  // `forcePull` (Image.cached=false): the registry is asked for the image's
  // manifest even when the store has the image.
  process::Future<Result<ProvisionedImage>> provision(const std::string& containerId,
                                                      const std::string& image,
                                                      bool forcePull = false);

  // SIGKILLs the helper provisioning `containerId`, if one runs: its
  // future gets an Error saying `why`.
  void kill(const std::string& containerId, const std::string& why);

  // Starts unmounting and removing the container's root filesystem and
  // forgetting its pin, when it has a directory; returns at once. The
  // future (reaper's thread) holds why it failed, if it did.
  process::Future<Result<process::Nothing>> destroy(const std::string& containerId);

  // Starts `mesos-provisioner gc`: removes from the store the images no
  // container pins and `excluded` (image names) does not name, and the
  // layers nothing kept uses; returns at once. The future becomes ready on
  // the reaper's thread with what was removed, or why it failed. A gc waits
  // for the pulls under way (the store's lock); a pull's image is pinned
  // before the pull lets go of that lock, so no image being provisioned is
  // removed.
  process::Future<Result<ImageGcReport>> gc(const std::vector<std::string>& excluded);

  // At start-up, before any container starts (it blocks): destroys the
  // root filesystems and pins of the containers not in `keep` (what an
  // earlier run of the slave left).
  Result<void> recover(const std::set<std::string>& keep);

  // Whether the container has a root filesystem directory.
  bool provisioned(const std::string& containerId) const;

 private:
  struct State;

  std::string helper_;
  std::string workDir_;
  std::string storeDir_;
  std::string registry_;
  std::string backend_;
  std::string dockerConfig_;
  std::shared_ptr<State> state_;
};

}  // namespace mesos::internal::slave
