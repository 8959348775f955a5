#include "slave/containerizer/provisioner/docker/local_puller.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>

#include "common/json.hpp"
#include "slave/containerizer/provisioner/docker/digest.hpp"
#include "slave/containerizer/provisioner/docker/manifest.hpp"
#include "slave/containerizer/provisioner/docker/puller.hpp"
#include "slave/containerizer/provisioner/layer_archive.hpp"

namespace mesos::internal::slave::provisioner::docker {

namespace {

// Removes a staging directory when it goes.
struct Cleanup {
  std::string path;
  ~Cleanup() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
};

// The path of the file `name` the tarball holds: `name` comes from the
// tarball, so it must lead (through its links too) to a file inside it.
Result<std::string> memberPath(const std::string& root, const std::string& name) {
  char resolved[PATH_MAX];
  std::string path = root + "/" + name;
  if (name.empty() || name[0] == '/' || ::realpath(path.c_str(), resolved) == nullptr ||
      std::string(resolved).rfind(root + "/", 0) != 0) {
    return Error{"the tarball names the file '" + name + "', which it does not hold"};
  }
  return std::string(resolved);
}

Result<std::string> readMember(const std::string& root, const std::string& name) {
  auto path = memberPath(root, name);
  if (!path) return path.error();
  return readFile(*path);
}

// Stores the layers at `paths` (files under `root`), checking each one's
// digest against `expected` (same order) where given.
Result<std::vector<std::string>> storeLayers(const Store& store, const std::string& root,
                                             const std::vector<std::string>& paths,
                                             const std::vector<std::string>& expected) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < paths.size(); ++i) {
    auto member = memberPath(root, paths[i]);
    if (!member) return member.error();
    std::string file = *member;
    auto digest = sha256OfFile(file);
    if (!digest) return digest.error();
    if (i < expected.size() && !expected[i].empty() && expected[i] != *digest) {
      return Error{"digest mismatch: the layer '" + paths[i] + "' should be " + expected[i] +
                   " but is " + *digest};
    }
    if (auto stored = storeLayer(store, *digest, file); !stored) return stored.error();
    ids.push_back(*digest);
  }
  return ids;
}

Result<StoredImage> fromDockerSave(const Store& store, const Reference& reference,
                                   const std::string& root) {
  auto text = readFile(root + "/manifest.json");
  if (!text) return text.error();
  auto manifest = json::parse(*text);
  if (!manifest || !manifest->isArray() || manifest->array().empty()) {
    return Error{"the tarball's manifest.json is not a list of images"};
  }
  std::string familiar = reference.repository;
  if (reference.onDockerHub() && familiar.rfind("library/", 0) == 0) familiar = familiar.substr(8);
  std::vector<std::string> names = {
      familiar + ":" + reference.tag, reference.repository + ":" + reference.tag,
      "docker.io/" + reference.repository + ":" + reference.tag,
      reference.registry + "/" + reference.repository + ":" + reference.tag};
  const json::Value* chosen = &manifest->array().at(0);
  for (const json::Value& entry : manifest->array()) {
    if (!entry["RepoTags"].isArray()) continue;
    for (const json::Value& tag : entry["RepoTags"].array()) {
      if (tag.isString() && std::find(names.begin(), names.end(), tag.string()) != names.end()) {
        chosen = &entry;
      }
    }
  }
  if (!(*chosen)["Config"].isString() || !(*chosen)["Layers"].isArray()) {
    return Error{"the tarball's manifest.json lacks Config or Layers"};
  }
  auto configText = readMember(root, (*chosen)["Config"].string());
  if (!configText) return configText.error();
  auto config = parseImageConfig(*configText);
  if (!config) return config.error();
  std::vector<std::string> paths;
  for (const json::Value& layer : (*chosen)["Layers"].array()) {
    if (layer.isString()) paths.push_back(layer.string());
  }
  std::vector<std::string> diffIds;
  auto configJson = json::parse(*configText);
  const json::Value& listed = (*configJson)["rootfs"]["diff_ids"];
  if (listed.isArray() && listed.array().size() == paths.size()) {
    for (const json::Value& id : listed.array())
      diffIds.push_back(id.isString() ? id.string() : "");
  }
  auto layers = storeLayers(store, root, paths, diffIds);
  if (!layers) return layers.error();

  StoredImage image;
  image.reference = reference.canonical();
  image.configDigest = sha256Of(*configText);
  image.layers = std::move(layers).value();
  image.config = std::move(config).value();
  if (auto put = store.putConfig(image.configDigest, *configText); !put) return put.error();
  if (auto put = store.put(image, ""); !put) return put.error();
  return image;
}

std::string blobPath(const std::string& digest) { return "blobs/sha256/" + digest.substr(7); }

Result<StoredImage> fromOciLayout(const Store& store, const Reference& reference,
                                  const std::string& root) {
  auto text = readFile(root + "/index.json");
  if (!text) return text.error();
  auto parsed = parseManifest(*text, kOciIndex);
  if (!parsed) return parsed.error();
  if (!std::holds_alternative<Index>(*parsed)) return Error{"the tarball's index.json is no index"};
  auto index = json::parse(*text);
  const Index& entries = std::get<Index>(*parsed);
  if (entries.manifests.empty()) return Error{"the tarball's index.json lists no image"};
  Descriptor chosen = entries.manifests.front();
  const json::Array& listed = (*index)["manifests"].array();
  for (size_t i = 0; i < listed.size(); ++i) {
    const json::Value& name = listed[i]["annotations"]["org.opencontainers.image.ref.name"];
    if (name.isString() && name.string() == reference.tag) chosen = entries.manifests.at(i);
  }
  for (int depth = 0; depth < 4; ++depth) {
    auto body = readMember(root, blobPath(chosen.digest));
    if (!body) return body.error();
    if (sha256Of(*body) != chosen.digest) {
      return Error{"digest mismatch: the manifest " + chosen.digest + " is " + sha256Of(*body)};
    }
    auto document = parseManifest(*body, chosen.mediaType);
    if (!document) return document.error();
    if (const Index* nested = std::get_if<Index>(&*document)) {
      auto platform = selectPlatform(*nested, machineArchitecture());
      if (!platform) return platform.error();
      chosen = *platform;
      continue;
    }
    const Manifest& manifest = std::get<Manifest>(*document);
    auto configText = readMember(root, blobPath(manifest.config.digest));
    if (!configText) return configText.error();
    if (sha256Of(*configText) != manifest.config.digest) {
      return Error{"digest mismatch: the config " + manifest.config.digest + " is " +
                   sha256Of(*configText)};
    }
    auto config = parseImageConfig(*configText);
    if (!config) return config.error();
    std::vector<std::string> paths, digests;
    for (const Descriptor& layer : manifest.layers) {
      paths.push_back(blobPath(layer.digest));
      digests.push_back(layer.digest);
    }
    auto layers = storeLayers(store, root, paths, digests);
    if (!layers) return layers.error();
    StoredImage image;
    image.reference = reference.canonical();
    image.manifestDigest = chosen.digest;
    image.configDigest = manifest.config.digest;
    image.layers = std::move(layers).value();
    image.config = std::move(config).value();
    if (auto put = store.putConfig(image.configDigest, *configText); !put) return put.error();
    std::string digestKey = reference.registry + "/" + reference.repository + "@" + chosen.digest;
    if (auto put = store.put(image, digestKey); !put) return put.error();
    return image;
  }
  return Error{"the tarball's indexes nest too deep"};
}

}  // namespace

std::vector<std::string> tarballNames(const Reference& reference) {
  std::string familiar = reference.repository;
  if (reference.onDockerHub() && familiar.rfind("library/", 0) == 0) familiar = familiar.substr(8);
  std::string prefix = reference.registryGiven ? reference.registry + "/" : "";
  std::vector<std::string> names;
  std::string suffix = reference.digest.empty() ? ":" + reference.tag : "@" + reference.digest;
  names.push_back(prefix + familiar + suffix + ".tar");
  if (reference.digest.empty() && reference.tag == "latest")
    names.push_back(prefix + familiar + ".tar");
  if (familiar != reference.repository)
    names.push_back(prefix + reference.repository + suffix + ".tar");
  return names;
}

Result<StoredImage> pullFromDirectory(const Store& store, const Reference& reference,
                                      const std::string& directory) {
  std::string tarball;
  std::string tried;
  for (const std::string& name : tarballNames(reference)) {
    std::string path = directory + "/" + name;
    if (::access(path.c_str(), R_OK) == 0) {
      tarball = path;
      break;
    }
    tried += (tried.empty() ? "'" : ", '") + path + "'";
  }
  if (tarball.empty()) return Error{"no image tarball: tried " + tried};

  auto staging = store.makeStaging();
  if (!staging) return staging.error();
  Cleanup cleanup{*staging};
  char resolved[PATH_MAX];
  if (::realpath(staging->c_str(), resolved) == nullptr) return Error{"cannot resolve " + *staging};
  std::string root = resolved;
  if (auto unpacked = extractLayer(tarball, root); !unpacked) {
    return Error{"cannot unpack '" + tarball + "': " + unpacked.error().message};
  }
  if (::access((root + "/manifest.json").c_str(), F_OK) == 0) {
    return fromDockerSave(store, reference, root);
  }
  if (::access((root + "/index.json").c_str(), F_OK) == 0) {
    return fromOciLayout(store, reference, root);
  }
  return Error{"'" + tarball + "' holds neither manifest.json (docker save) nor index.json (OCI)"};
}

}  // namespace mesos::internal::slave::provisioner::docker
