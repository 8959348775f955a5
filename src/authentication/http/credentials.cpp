#include "authentication/http/credentials.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/json.hpp"

namespace mesos::internal::authentication {

namespace {

Result<Secrets> parseJson(std::string_view text) {
  auto document = json::parse(text);
  if (!document) return Error{"not valid JSON: " + document.error().message};
  if (!document->isObject() || !(*document)["credentials"].isArray()) {
    return Error{"expected {\"credentials\": [{\"principal\": ..., \"secret\": ...}, ...]}"};
  }
  Secrets secrets;
  size_t index = 0;
  for (const json::Value& entry : (*document)["credentials"].array()) {
    std::string where = "credentials[" + std::to_string(index++) + "]";
    if (!entry.isObject() || !entry["principal"].isString() ||
        entry["principal"].string().empty()) {
      return Error{where + ": expected a non-empty string \"principal\""};
    }
    if (!entry["secret"].isString()) return Error{where + ": expected a string \"secret\""};
    secrets[entry["principal"].string()] = entry["secret"].string();
  }
  return secrets;
}

Result<Secrets> parseLines(std::string_view text) {
  Secrets secrets;
  size_t lineNumber = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::istringstream words{std::string(line)};
    std::string principal, secret, extra;
    words >> principal;
    if (principal.empty() || principal[0] == '#') continue;
    words >> secret >> extra;
    if (secret.empty() || !extra.empty()) {
      return Error{"line " + std::to_string(lineNumber) +
                   ": expected 'principal secret' (two words)"};
    }
    secrets[principal] = secret;
  }
  return secrets;
}

}  // namespace

Result<Secrets> parseCredentials(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return parseJson(text);
  return parseLines(text);
}

Result<Secrets> loadCredentials(const std::string& flag, const std::string& flagName) {
  std::string prefix = "--" + flagName + ": ";
  size_t first = flag.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && flag[first] == '{') {
    auto secrets = parseJson(flag);
    if (!secrets) return Error{prefix + secrets.error().message};
    return secrets;
  }
  std::string path = flag.rfind("file://", 0) == 0 ? flag.substr(7) : flag;
  if (path.empty() || path[0] != '/') {
    return Error{prefix + "expected the absolute path or file:// URL of a credentials file, not '" +
                 flag + "'"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{prefix + "cannot read " + path + ": " + std::strerror(errno)};
  std::ostringstream text;
  text << in.rdbuf();
  auto secrets = parseCredentials(text.str());
  if (!secrets) return Error{prefix + path + ": " + secrets.error().message};
  return secrets;
}

}  // namespace mesos::internal::authentication
