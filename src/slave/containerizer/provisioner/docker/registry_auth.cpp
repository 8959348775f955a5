#include "slave/containerizer/provisioner/docker/registry_auth.hpp"

#include <cctype>

#include "common/base64.hpp"
#include "common/json.hpp"
#include "slave/containerizer/provisioner/docker/reference.hpp"
#include "slave/containerizer/provisioner/store.hpp"

namespace mesos::internal::slave::provisioner::docker {

namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The host[:port] a config key names: "https://host:port/v1/" -> "host:port".
std::string hostOfKey(std::string key) {
  if (size_t scheme = key.find("://"); scheme != std::string::npos) key = key.substr(scheme + 3);
  if (size_t slash = key.find('/'); slash != std::string::npos) key = key.substr(0, slash);
  return lower(key);
}

bool dockerHub(const std::string& host) {
  return host == kDefaultRegistry || host == "index.docker.io" || host == "docker.io" ||
         host == "registry.docker.io";
}

}  // namespace

Result<Challenge> parseChallenge(const std::string& header) {
  size_t i = 0;
  while (i < header.size() && header[i] == ' ') ++i;
  size_t start = i;
  while (i < header.size() && header[i] != ' ') ++i;
  Challenge challenge;
  challenge.scheme = lower(header.substr(start, i - start));
  if (challenge.scheme.empty()) return Error{"the challenge '" + header + "' names no scheme"};
  while (i < header.size()) {
    while (i < header.size() && (header[i] == ' ' || header[i] == ',')) ++i;
    if (i >= header.size()) break;
    size_t equals = header.find('=', i);
    if (equals == std::string::npos) {
      return Error{"the challenge '" + header + "' has a parameter without '='"};
    }
    std::string name = lower(header.substr(i, equals - i));
    while (!name.empty() && name.back() == ' ') name.pop_back();
    i = equals + 1;
    std::string value;
    if (i < header.size() && header[i] == '"') {
      ++i;
      while (i < header.size() && header[i] != '"') {
        if (header[i] == '\\' && i + 1 < header.size()) ++i;
        value += header[i++];
      }
      if (i >= header.size()) return Error{"the challenge '" + header + "' has an open quote"};
      ++i;
    } else {
      while (i < header.size() && header[i] != ',') value += header[i++];
      while (!value.empty() && value.back() == ' ') value.pop_back();
    }
    challenge.params[name] = value;
  }
  return challenge;
}

Result<std::optional<std::string>> credentialsFor(const std::string& text,
                                                  const std::string& host) {
  auto parsed = json::parse(text);
  if (!parsed || !parsed->isObject()) {
    return Error{"the Docker config (--docker_config) is not a JSON object"};
  }
  const json::Value& auths = (*parsed)["auths"].isObject() ? (*parsed)["auths"] : *parsed;
  std::string wanted = lower(host);
  for (const auto& [key, entry] : auths.object()) {
    std::string keyHost = hostOfKey(key);
    if (keyHost != wanted && !(dockerHub(keyHost) && dockerHub(wanted))) continue;
    if (!entry["auth"].isString() || entry["auth"].string().empty()) continue;
    auto decoded = base64::decode(entry["auth"].string());
    if (!decoded || decoded->find(':') == std::string::npos) {
      return Error{"the Docker config's auth for '" + key + "' is not base64 of user:password"};
    }
    return std::optional<std::string>(entry["auth"].string());
  }
  return std::optional<std::string>();
}

Result<std::string> loadDockerConfig(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return text;
  auto contents = readFile(text);
  if (!contents) return Error{"cannot read the Docker config: " + contents.error().message};
  return contents;
}

}  // namespace mesos::internal::slave::provisioner::docker
