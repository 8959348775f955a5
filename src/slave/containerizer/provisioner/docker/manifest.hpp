// The JSON documents of an image: manifests, indexes (manifest lists) and the
// image configuration, in their Docker (v2 schema 2) and OCI spellings.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "mesos/result.hpp"

namespace mesos::internal::slave::provisioner::docker {

inline constexpr char kDockerManifest[] = "application/vnd.docker.distribution.manifest.v2+json";
inline constexpr char kDockerManifestList[] =
    "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr char kOciManifest[] = "application/vnd.oci.image.manifest.v1+json";
inline constexpr char kOciIndex[] = "application/vnd.oci.image.index.v1+json";

// A pointer to a blob or to another manifest.
struct Descriptor {
  std::string mediaType;
  std::string digest;  // "sha256:<hex>"
  int64_t size = -1;
  std::string os;            // of an index entry's platform
  std::string architecture;  // of an index entry's platform
};

struct Manifest {
  Descriptor config;
  std::vector<Descriptor> layers;  // bottom layer first
};

struct Index {
  std::vector<Descriptor> manifests;
};

// Reads a manifest or an index. `contentType` is the registry's
// Content-Type ("" when unknown); the document's own mediaType wins when it
// has one. Fails on schema 1 manifests (not supported), on unknown media
// types and on descriptors whose digest is not sha256.
Result<std::variant<Manifest, Index>> parseManifest(const std::string& body,
                                                    const std::string& contentType);

// The entry of `index` for linux and `architecture` (GOARCH spelling:
// amd64, arm64, ...); fails listing the platforms the index offers.
Result<Descriptor> selectPlatform(const Index& index, const std::string& architecture);

// This machine's architecture in GOARCH spelling.
std::string machineArchitecture();

// What a container of the image runs and how (the image configuration's
// "config" object).
struct ImageConfig {
  std::vector<std::string> entrypoint;
  std::vector<std::string> cmd;
  std::vector<std::string> env;  // "NAME=value"
  std::string workingDir;
  std::string user;
};

Result<ImageConfig> parseImageConfig(const std::string& json);

}  // namespace mesos::internal::slave::provisioner::docker
