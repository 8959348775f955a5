#include "slave/containerizer/provisioner/docker/manifest.hpp"

#include <sys/utsname.h>

#include "common/json.hpp"
#include "slave/containerizer/provisioner/docker/reference.hpp"

namespace mesos::internal::slave::provisioner::docker {

namespace {

Result<Descriptor> parseDescriptor(const json::Value& value, const std::string& what) {
  if (!value.isObject()) return Error{"the manifest's " + what + " is not an object"};
  Descriptor descriptor;
  if (value["mediaType"].isString()) descriptor.mediaType = value["mediaType"].string();
  if (!value["digest"].isString()) return Error{"the manifest's " + what + " has no digest"};
  descriptor.digest = value["digest"].string();
  if (!isSha256Digest(descriptor.digest)) {
    return Error{"the manifest's " + what + " has the digest '" + descriptor.digest +
                 "', not a sha256 digest"};
  }
  if (value["size"].isInteger()) descriptor.size = value["size"].integer();
  const json::Value& platform = value["platform"];
  if (platform["os"].isString()) descriptor.os = platform["os"].string();
  if (platform["architecture"].isString()) {
    descriptor.architecture = platform["architecture"].string();
  }
  return descriptor;
}

std::vector<std::string> strings(const json::Value& value) {
  std::vector<std::string> list;
  if (value.isString()) list.push_back(value.string());
  if (!value.isArray()) return list;
  for (const json::Value& item : value.array()) {
    if (item.isString()) list.push_back(item.string());
  }
  return list;
}

}  // namespace

Result<std::variant<Manifest, Index>> parseManifest(const std::string& body,
                                                    const std::string& contentType) {
  auto parsed = json::parse(body);
  if (!parsed) return Error{"the manifest is not JSON: " + parsed.error().message};
  const json::Value& document = *parsed;
  if (!document.isObject()) return Error{"the manifest is not a JSON object"};
  if (document["schemaVersion"].isInteger() && document["schemaVersion"].integer() == 1) {
    return Error{
        "the manifest is of schema 1, which is not supported (push the image again "
        "with a current client)"};
  }
  std::string type = document["mediaType"].isString() ? document["mediaType"].string() : "";
  if (type.empty()) {
    type = contentType.substr(0, contentType.find(';'));
    while (!type.empty() && type.back() == ' ') type.pop_back();
  }
  if (type.empty() || type == "application/json") {
    // OCI documents may leave mediaType out: what they hold tells them apart.
    type = document["manifests"].isArray() ? kOciIndex : kOciManifest;
  }

  if (type == kDockerManifestList || type == kOciIndex) {
    Index index;
    if (!document["manifests"].isArray()) return Error{"the image index has no manifests"};
    for (const json::Value& item : document["manifests"].array()) {
      auto descriptor = parseDescriptor(item, "index entry");
      if (!descriptor) return descriptor.error();
      index.manifests.push_back(std::move(descriptor).value());
    }
    return std::variant<Manifest, Index>(std::move(index));
  }
  if (type != kDockerManifest && type != kOciManifest) {
    return Error{"the manifest is of the unsupported media type '" + type + "'"};
  }
  Manifest manifest;
  auto config = parseDescriptor(document["config"], "config");
  if (!config) return config.error();
  manifest.config = std::move(config).value();
  if (!document["layers"].isArray()) return Error{"the manifest has no layers"};
  for (const json::Value& item : document["layers"].array()) {
    auto layer = parseDescriptor(item, "layer");
    if (!layer) return layer.error();
    manifest.layers.push_back(std::move(layer).value());
  }
  return std::variant<Manifest, Index>(std::move(manifest));
}

Result<Descriptor> selectPlatform(const Index& index, const std::string& architecture) {
  std::string offered;
  for (const Descriptor& entry : index.manifests) {
    if (entry.os == "linux" && entry.architecture == architecture) return entry;
    offered += (offered.empty() ? "" : ", ") + entry.os + "/" + entry.architecture;
  }
  return Error{"the image index has no manifest for linux/" + architecture + " (it offers " +
               (offered.empty() ? "none" : offered) + ")"};
}

std::string machineArchitecture() {
  struct utsname name {};
  ::uname(&name);
  std::string machine = name.machine;
  if (machine == "x86_64") return "amd64";
  if (machine == "aarch64") return "arm64";
  if (machine == "i686" || machine == "i386") return "386";
  if (machine.rfind("armv", 0) == 0) return "arm";
  if (machine == "ppc64le") return "ppc64le";
  if (machine == "s390x") return "s390x";
  return machine;
}

Result<ImageConfig> parseImageConfig(const std::string& text) {
  auto parsed = json::parse(text);
  if (!parsed) return Error{"the image configuration is not JSON: " + parsed.error().message};
  if (!parsed->isObject()) return Error{"the image configuration is not a JSON object"};
  const json::Value& config = (*parsed)["config"];
  ImageConfig result;
  result.entrypoint = strings(config["Entrypoint"]);
  result.cmd = strings(config["Cmd"]);
  result.env = strings(config["Env"]);
  if (config["WorkingDir"].isString()) result.workingDir = config["WorkingDir"].string();
  if (config["User"].isString()) result.user = config["User"].string();
  return result;
}

}  // namespace mesos::internal::slave::provisioner::docker
