// mesos-provisioner: the slave's helper for container images, as
// mesos-fetcher is for URIs (the slave runs it as a subprocess, so that
// libcurl, the network, and the blocking mounts and copies stay out of the
// slave's own process and threads):
//
//   mesos-provisioner pull --image=REF --docker_store_dir=DIR
//       [--docker_registry=URL|DIR] [--docker_config=FILE|JSON]
//   mesos-provisioner provision --image=REF --container=ID --directory=DIR
//       --docker_store_dir=DIR [--backend=overlay|copy|bind]
//       [--docker_registry=URL|DIR] [--docker_config=FILE|JSON] [--force_pull=true]
//       [--mount_in_container=true]
//   mesos-provisioner destroy --container=ID --directory=DIR --docker_store_dir=DIR
//   mesos-provisioner gc --docker_store_dir=DIR [--excluded_images=JSON]
//
// pull puts the image in the store (unless it is there) and prints one JSON
// object on stdout, the image as stored:
//   {"reference": "registry/repo:tag", "manifest_digest": "sha256:...",
//    "config_digest": "sha256:...", "layers": ["sha256:...", ...] (bottom first),
//    "config": {"entrypoint": [...], "cmd": [...], "env": [...],
//               "working_dir": "...", "user": "..."},
//    "cached": false}
// ("cached": the store had the image and nothing was fetched). provision
// pulls the same way (with --force_pull=true it asks the registry for the
// manifest even when the store has the image: Image.cached=false), pins the image for container ID
// (its layers stay in the store until destroy), makes the container's root filesystem at DIR/rootfs
// with the backend, and prints the same object with "rootfs" added (with --mount_in_container=true
// the overlay backend mounts nothing: the launch helper mounts it in the container's own mount
// namespace, rootfs.hpp). destroy unmounts and removes
// DIR and forgets the container's pin; it prints nothing, and succeeds when there is nothing to
// undo. gc removes the images no container pins and --excluded_images (a JSON array of image
// names, e.g. '["busybox:1.36"]') does not name, then the layers and configurations nothing
// kept uses (Store::gc, which waits for running pulls), and prints what went:
//   {"removed_images": ["registry/repo:tag", ...], "removed_layers": ["sha256:...", ...],
//    "bytes_freed": N}
// On failure each writes one line on stderr ("mesos-provisioner: Failed to pull 'REF': why")
// and exits 1, having undone what it did; 2 on bad usage.
#include <curl/curl.h>

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "common/json.hpp"
#include "slave/containerizer/provisioner/docker/puller.hpp"
#include "slave/containerizer/provisioner/docker/reference.hpp"
#include "slave/containerizer/provisioner/provisioner.hpp"
#include "slave/containerizer/provisioner/store.hpp"

namespace {

using namespace mesos::internal::slave::provisioner;

int usage(const std::string& problem) {
  std::fprintf(stderr,
               "mesos-provisioner: %s\n"
               "usage: mesos-provisioner pull --image=REF --docker_store_dir=DIR "
               "[--docker_registry=URL|DIR] [--docker_config=FILE|JSON]\n"
               "       mesos-provisioner provision --image=REF --container=ID --directory=DIR "
               "--docker_store_dir=DIR [--backend=overlay|copy|bind] [--docker_registry=URL|DIR] "
               "[--docker_config=FILE|JSON]\n"
               "       mesos-provisioner destroy --container=ID --directory=DIR "
               "--docker_store_dir=DIR\n"
               "       mesos-provisioner gc --docker_store_dir=DIR "
               "[--excluded_images='[\"IMAGE\", ...]']\n",
               problem.c_str());
  return 2;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "mesos-provisioner: %s\n", message.c_str());
  return 1;
}

mesos::json::Value strings(const std::vector<std::string>& items) {
  mesos::json::Array array;
  for (const std::string& item : items) array.emplace_back(item);
  return array;
}

// --excluded_images: a JSON array of image names, as canonical references.
mesos::Result<std::set<std::string>> excludedImages(const std::string& text) {
  std::set<std::string> keep;
  if (text.empty()) return keep;
  auto parsed = mesos::json::parse(text);
  if (!parsed) {
    return mesos::Error{"--excluded_images is not JSON (" + parsed.error().message +
                        "); expected an array of image names, e.g. '[\"busybox:1.36\"]'"};
  }
  if (!parsed->isArray()) {
    return mesos::Error{
        "--excluded_images must be a JSON array of image names, e.g. "
        "'[\"busybox:1.36\"]'"};
  }
  for (const mesos::json::Value& item : parsed->array()) {
    if (!item.isString())
      return mesos::Error{"--excluded_images holds an item that is not a string"};
    auto reference = docker::parseReference(item.string());
    if (!reference) return mesos::Error{"--excluded_images: " + reference.error().message};
    keep.insert(reference->canonical());
  }
  return keep;
}

int collect(const std::string& storeDir, const std::string& excluded) {
  auto keep = excludedImages(excluded);
  if (!keep) return usage(keep.error().message);
  auto store = Store::open(storeDir);
  if (!store) return fail("Failed to open the image store: " + store.error().message);
  auto report = store->gc(*keep);
  if (!report) {
    return fail("Failed to collect the image store '" + store->directory() +
                "': " + report.error().message);
  }
  mesos::json::Object output;
  output["removed_images"] = strings(report->images);
  output["removed_layers"] = strings(report->layers);
  output["bytes_freed"] = report->bytes;
  std::printf("%s\n", mesos::json::stringify(output).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--help") {
    usage("pulls Docker images into the image store and makes containers' root filesystems");
    return 0;
  }
  const std::string command = argc >= 2 ? argv[1] : "";
  std::set<std::string> known = {"docker_store_dir"};
  if (command == "pull" || command == "provision") {
    known.insert({"image", "docker_registry", "docker_config"});
  }
  if (command == "provision" || command == "destroy") known.insert({"container", "directory"});
  if (command == "provision") known.insert({"backend", "force_pull", "mount_in_container"});
  if (command == "gc") known.insert("excluded_images");
  if (known.size() == 1) return usage("the command must be pull, provision, destroy or gc");
  std::map<std::string, std::string> flags = {{"docker_registry", "https://registry-1.docker.io"},
                                              {"docker_store_dir", "/tmp/mesos/store/docker"}};
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    size_t equals = arg.find('=');
    if (arg.rfind("--", 0) != 0 || equals == std::string::npos) {
      return usage("unknown argument '" + arg + "'");
    }
    std::string name = arg.substr(2, equals - 2);
    if (known.count(name) == 0) return usage("unknown flag '--" + name + "' for " + command);
    flags[name] = arg.substr(equals + 1);
  }
  for (const std::string& name : known) {
    if (name != "docker_config" && name != "backend" && name != "force_pull" &&
        name != "mount_in_container" && name != "excluded_images" && flags[name].empty()) {
      return usage("--" + name + " is required");
    }
  }
  if (command == "gc") return collect(flags["docker_store_dir"], flags["excluded_images"]);
  auto store = Store::open(flags["docker_store_dir"]);

  if (command == "destroy") {
    if (!store) return fail("Failed to open the image store: " + store.error().message);
    if (auto destroyed = destroyRootfs(flags["directory"]); !destroyed) {
      return fail("Failed to destroy the root filesystem of container " + flags["container"] +
                  ": " + destroyed.error().message);
    }
    if (auto unpinned = store->unpin(flags["container"]); !unpinned) {
      return fail("Failed to unpin the image of container " + flags["container"] + ": " +
                  unpinned.error().message);
    }
    return 0;
  }

  if (!store) return fail("Failed to pull '" + flags["image"] + "': " + store.error().message);
  std::optional<Provisioner> provisioner;
  if (command == "provision") {
    auto created = Provisioner::create(flags["backend"], flags["mount_in_container"] == "true");
    if (!created) return fail(created.error().message);
    provisioner.emplace(std::move(created).value());
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  docker::PullOptions options;
  options.registry = flags["docker_registry"];
  options.dockerConfig = flags["docker_config"];
  options.forcePull = flags["force_pull"] == "true";
  // Pinned under the pull's lock: a gc cannot come between the two.
  if (provisioner) options.pinFor = flags["container"];
  auto pulled = docker::pull(*store, flags["image"], options);
  if (!pulled) return fail(pulled.error().message);

  const StoredImage& image = pulled->image;
  mesos::json::Object config;
  config["entrypoint"] = strings(image.config.entrypoint);
  config["cmd"] = strings(image.config.cmd);
  config["env"] = strings(image.config.env);
  config["working_dir"] = image.config.workingDir;
  config["user"] = image.config.user;
  mesos::json::Object output;
  output["reference"] = image.reference;
  output["manifest_digest"] = image.manifestDigest;
  output["config_digest"] = image.configDigest;
  output["layers"] = strings(image.layers);
  output["config"] = std::move(config);
  output["cached"] = pulled->cached;

  if (provisioner) {
    const std::string& container = flags["container"];
    auto rootfs = provisioner->provision(*store, image, flags["directory"]);
    if (!rootfs) {
      (void)store->unpin(container);
      return fail(rootfs.error().message);
    }
    output["rootfs"] = *rootfs;
  }
  std::printf("%s\n", mesos::json::stringify(output).c_str());
  return 0;
}
