// Docker image references: `[registry[:port]/]repository[:tag][@sha256:digest]`,
// read as the Docker CLI reads them (docs/container-images.md).
#pragma once

#include <optional>
#include <string>

#include "mesos/result.hpp"

namespace mesos::internal::slave::provisioner::docker {

// Docker Hub's registry, used when a reference names none.
inline constexpr char kDefaultRegistry[] = "registry-1.docker.io";

struct Reference {
  // host[:port]; kDefaultRegistry when the reference named none (or named
  // docker.io or index.docker.io, Docker Hub's other names).
  std::string registry;
  bool registryGiven = false;  // the reference named a registry itself
  std::string repository;      // "library/busybox", "test/busybox"
  std::string tag;             // "latest" when neither a tag nor a digest is given
  std::string digest;          // "sha256:<64 hex>" or ""

  // "registry/repository:tag@digest", every part spelled out: the key of the
  // store's image table.
  std::string canonical() const;

  // What the manifest is asked for by: the digest if there is one, else the tag.
  std::string manifestReference() const { return digest.empty() ? tag : digest; }

  bool onDockerHub() const { return registry == kDefaultRegistry; }
};

// Parses `text`. Fails, naming the part at fault, on an empty reference, an
// upper-case or malformed repository, a bad tag, a bad registry port or a
// digest that is not sha256 and 64 lower-case hex digits.
Result<Reference> parseReference(const std::string& text);

// True for "sha256:" followed by 64 lower-case hex digits.
bool isSha256Digest(const std::string& digest);

}  // namespace mesos::internal::slave::provisioner::docker
