#include "slave/containerizer/provisioner/docker/reference.hpp"

#include <cctype>
#include <vector>

#include "common/strings.hpp"

namespace mesos::internal::slave::provisioner::docker {

namespace {

bool isLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// One path component: runs of [a-z0-9] joined by '.', '_', '__' or any
// number of '-'.
bool validComponent(const std::string& part) {
  if (part.empty() || !isLowerAlnum(part.front()) || !isLowerAlnum(part.back())) return false;
  for (size_t i = 0; i < part.size();) {
    if (isLowerAlnum(part[i])) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < part.size() && !isLowerAlnum(part[i])) ++i;
    std::string separator = part.substr(start, i - start);
    bool dashes = separator.find_first_not_of('-') == std::string::npos;
    if (separator != "." && separator != "_" && separator != "__" && !dashes) return false;
  }
  return true;
}

bool validTag(const std::string& tag) {
  if (tag.empty() || tag.size() > 128) return false;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (!word(tag[0])) return false;
  for (char c : tag) {
    if (!word(c) && c != '.' && c != '-') return false;
  }
  return true;
}

Result<void> validateRegistry(const std::string& registry) {
  std::string host = registry;
  std::string port;
  if (!host.empty() && host[0] == '[') {
    size_t close = host.find(']');
    if (close == std::string::npos) return Error{"the registry '" + registry + "' lacks its ']'"};
    std::string rest = host.substr(close + 1);
    if (!rest.empty() && rest[0] != ':')
      return Error{"the registry '" + registry + "' is malformed"};
    port = rest.empty() ? "" : rest.substr(1);
    if (rest == ":") return Error{"the registry '" + registry + "' has an empty port"};
    host = host.substr(1, close - 1);
    for (char c : host) {
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') {
        return Error{"the registry '" + registry + "' is not a valid IPv6 address"};
      }
    }
  } else {
    size_t colon = host.find(':');
    if (colon != std::string::npos) {
      port = host.substr(colon + 1);
      host = host.substr(0, colon);
      if (port.empty()) return Error{"the registry '" + registry + "' has an empty port"};
    }
    if (host.empty()) return Error{"the registry '" + registry + "' has no host"};
    for (const std::string& label : strings::split(host, '.')) {
      bool ok = !label.empty() && label.front() != '-' && label.back() != '-';
      for (char c : label) {
        ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-');
      }
      if (!ok) return Error{"the registry host '" + host + "' is not a valid host name"};
    }
  }
  if (!port.empty()) {
    if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(port) == 0 || std::stoi(port) > 65535) {
      return Error{"the registry port '" + port + "' is not a number from 1 to 65535"};
    }
  }
  return {};
}

}  // namespace

bool isSha256Digest(const std::string& digest) {
  if (digest.size() != 7 + 64 || digest.rfind("sha256:", 0) != 0) return false;
  for (size_t i = 7; i < digest.size(); ++i) {
    char c = digest[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string Reference::canonical() const {
  std::string text = registry + "/" + repository;
  if (!tag.empty()) text += ":" + tag;
  if (!digest.empty()) text += "@" + digest;
  return text;
}

Result<Reference> parseReference(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Error{"invalid image reference '" + text + "': " + why};
  };
  if (text.empty()) return Error{"invalid image reference '': it is empty"};
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) ||
        std::iscntrl(static_cast<unsigned char>(c))) {
      return bad("it holds white space or a control character");
    }
  }

  Reference reference;
  std::string name = text;
  if (size_t at = name.find('@'); at != std::string::npos) {
    reference.digest = name.substr(at + 1);
    name = name.substr(0, at);
    if (reference.digest.find(':') == std::string::npos) {
      return bad("the digest '" + reference.digest + "' is not of the form algorithm:hex");
    }
    if (reference.digest.rfind("sha256:", 0) != 0) {
      return bad("the digest '" + reference.digest +
                 "' is not a sha256 digest (the only kind "
                 "supported)");
    }
    if (!isSha256Digest(reference.digest)) {
      return bad("the digest '" + reference.digest + "' is not 64 lower-case hex digits");
    }
  }

  size_t lastSlash = name.rfind('/');
  size_t lastColon = name.rfind(':');
  if (lastColon != std::string::npos && (lastSlash == std::string::npos || lastColon > lastSlash)) {
    reference.tag = name.substr(lastColon + 1);
    name = name.substr(0, lastColon);
    if (!validTag(reference.tag)) {
      return bad("the tag '" + reference.tag +
                 "' is not 1 to 128 letters, digits, '_', '.' or '-' (not starting with '.' "
                 "or '-')");
    }
  }
  if (reference.tag.empty() && reference.digest.empty()) reference.tag = "latest";
  if (name.empty()) return bad("it names no repository");

  size_t slash = name.find('/');
  std::string first = slash == std::string::npos ? "" : name.substr(0, slash);
  bool hasUpper = false;
  for (char c : first) hasUpper = hasUpper || std::isupper(static_cast<unsigned char>(c));
  if (slash != std::string::npos &&
      (first.find_first_of(".:") != std::string::npos || first == "localhost" || hasUpper)) {
    if (auto valid = validateRegistry(first); !valid) return bad(valid.error().message);
    reference.registry = first;
    reference.registryGiven = true;
    name = name.substr(slash + 1);
  } else {
    reference.registry = kDefaultRegistry;
  }
  if (reference.registry == "docker.io" || reference.registry == "index.docker.io") {
    reference.registry = kDefaultRegistry;
  }

  if (name.size() > 255) return bad("the repository name is longer than 255 characters");
  for (const std::string& part : strings::split(name, '/')) {
    if (part.empty()) return bad("the repository '" + name + "' has an empty component");
    for (char c : part) {
      if (std::isupper(static_cast<unsigned char>(c))) {
        return bad("the repository '" + name + "' must be lower case");
      }
    }
    if (!validComponent(part)) {
      return bad("the repository component '" + part +
                 "' is not lower-case letters and digits joined by '.', '_', '__' or '-'");
    }
  }
  if (reference.onDockerHub() && name.find('/') == std::string::npos) name = "library/" + name;
  reference.repository = name;
  return reference;
}

}  // namespace mesos::internal::slave::provisioner::docker
