// Pulling from a registry over the Docker Registry HTTP API v2 (http or
// https, through libcurl): the manifest (Docker v2 schema 2 or OCI; from an
// index, the entry for linux and this machine's architecture), then the
// configuration and the layers, each checked against its digest and size.
// A 401 with a Bearer challenge is answered by fetching a token from the
// challenge's realm and asking again; Basic credentials come from
// --docker_config. Errors carry the registry's HTTP status and its own
// reasons ("MANIFEST_UNKNOWN: manifest unknown").
#pragma once

#include <string>

#include "mesos/result.hpp"
#include "slave/containerizer/provisioner/docker/puller.hpp"
#include "slave/containerizer/provisioner/docker/reference.hpp"
#include "slave/containerizer/provisioner/store.hpp"

namespace mesos::internal::slave::provisioner::docker {

// The registry's base URL for `reference`: --docker_registry when the
// reference names no registry; otherwise its own registry over https, or
// over http for a loopback host (Docker's default insecure registries) or
// when --docker_registry is that very registry given with http://.
std::string registryUrl(const Reference& reference, const std::string& flag);

// Fetches what the store lacks of `reference` and records the image.
// Layers the store has already are not downloaded.
Result<StoredImage> pullFromRegistry(const Store& store, const Reference& reference,
                                     const PullOptions& options);

}  // namespace mesos::internal::slave::provisioner::docker
