// Authenticating to a registry: the WWW-Authenticate challenges of its 401
// answers, and credentials from Docker's config file (--docker_config).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "mesos/result.hpp"

namespace mesos::internal::slave::provisioner::docker {

// `Bearer realm="https://auth.example/token",service="registry",scope="..."`.
struct Challenge {
  std::string scheme;                         // lower case: "bearer", "basic"
  std::map<std::string, std::string> params;  // names in lower case
};

// Fails on a header without a scheme or with malformed parameters.
Result<Challenge> parseChallenge(const std::string& header);

// The Basic credentials ("user:password" in base64, as the file keeps them)
// that Docker's config file `text` holds for `host` ("host" or "host:port").
// Reads both the `{"auths": {KEY: {"auth": ...}}}` layout and the older
// top-level one; KEY may be a bare host or a URL ("https://host/v1/").
// Docker Hub's key (index.docker.io) serves registry-1.docker.io. nullopt
// when the file has none for `host`; fails when the file is not JSON or the
// entry's auth is not base64 of "user:password".
Result<std::optional<std::string>> credentialsFor(const std::string& text, const std::string& host);

// `text` is a path to the config file or the JSON itself (as Apache Mesos
// takes --docker_config); returns the JSON.
Result<std::string> loadDockerConfig(const std::string& text);

}  // namespace mesos::internal::slave::provisioner::docker
