// mesos-provisioner: pulls an image into the store for the slave, as
// mesos-fetcher fetches URIs (the slave runs it as a subprocess, so that
// libcurl and the network stay out of the slave's own process):
//
//   mesos-provisioner pull --image=REF --docker_store_dir=DIR
//       [--docker_registry=URL|DIR] [--docker_config=FILE|JSON]
//
// On success it prints one JSON object on stdout, the image as stored:
//   {"reference": "registry/repo:tag", "manifest_digest": "sha256:...",
//    "config_digest": "sha256:...", "layers": ["sha256:...", ...] (bottom first),
//    "config": {"entrypoint": [...], "cmd": [...], "env": [...],
//               "working_dir": "...", "user": "..."},
//    "cached": false}
// and exits 0; "cached" is true when the store had the image and nothing
// was fetched. On failure it writes one line on stderr ("mesos-provisioner:
// Failed to pull 'REF': why") and exits 1; 2 on bad usage.
#include <curl/curl.h>

#include <cstdio>
#include <map>
#include <string>

#include "common/json.hpp"
#include "slave/containerizer/provisioner/docker/puller.hpp"
#include "slave/containerizer/provisioner/store.hpp"

namespace {

using namespace mesos::internal::slave::provisioner;

int usage(const std::string& problem) {
  std::fprintf(stderr,
               "mesos-provisioner: %s\n"
               "usage: mesos-provisioner pull --image=REF --docker_store_dir=DIR "
               "[--docker_registry=URL|DIR] [--docker_config=FILE|JSON]\n",
               problem.c_str());
  return 2;
}

mesos::json::Value strings(const std::vector<std::string>& items) {
  mesos::json::Array array;
  for (const std::string& item : items) array.emplace_back(item);
  return array;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--help") {
    usage("pulls a Docker image into the image store");
    return 0;
  }
  if (argc < 2 || std::string(argv[1]) != "pull") return usage("the command must be 'pull'");
  std::map<std::string, std::string> flags = {{"docker_registry", "https://registry-1.docker.io"},
                                              {"docker_store_dir", "/tmp/mesos/store/docker"}};
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    size_t equals = arg.find('=');
    if (arg.rfind("--", 0) != 0 || equals == std::string::npos) {
      return usage("unknown argument '" + arg + "'");
    }
    std::string name = arg.substr(2, equals - 2);
    if (name != "image" && name != "docker_registry" && name != "docker_store_dir" &&
        name != "docker_config") {
      return usage("unknown flag '--" + name + "'");
    }
    flags[name] = arg.substr(equals + 1);
  }
  if (flags["image"].empty()) return usage("--image is required");

  curl_global_init(CURL_GLOBAL_DEFAULT);
  auto fail = [](const std::string& message) {
    std::fprintf(stderr, "mesos-provisioner: %s\n", message.c_str());
    return 1;
  };
  auto store = Store::open(flags["docker_store_dir"]);
  if (!store) return fail("Failed to pull '" + flags["image"] + "': " + store.error().message);
  docker::PullOptions options;
  options.registry = flags["docker_registry"];
  options.dockerConfig = flags["docker_config"];
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
  std::printf("%s\n", mesos::json::stringify(output).c_str());
  return 0;
}
