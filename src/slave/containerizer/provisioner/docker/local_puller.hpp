// Pulling from a directory of image tarballs (--docker_registry=/some/dir),
// as Apache Mesos does: the image `[REGISTRY/]NAME[:TAG]` is the file
// `<dir>/[REGISTRY/]NAME:TAG.tar` (or `<dir>/NAME.tar` for the tag latest),
// written by `docker save` (manifest.json and layer tars) or holding an OCI
// image layout (oci-layout, index.json and blobs/).
#pragma once

#include <string>

#include "mesos/result.hpp"
#include "slave/containerizer/provisioner/docker/reference.hpp"
#include "slave/containerizer/provisioner/store.hpp"

namespace mesos::internal::slave::provisioner::docker {

// The tarball names tried for `reference`, in order, relative to the directory.
std::vector<std::string> tarballNames(const Reference& reference);

// Unpacks the image's tarball into staging, verifies its layers (against
// the configuration's diff_ids, or the OCI descriptors' digests), stores
// them and records the image. Fails naming the files tried when there is
// no tarball for `reference`.
Result<StoredImage> pullFromDirectory(const Store& store, const Reference& reference,
                                      const std::string& directory);

}  // namespace mesos::internal::slave::provisioner::docker
