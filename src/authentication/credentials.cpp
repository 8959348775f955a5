#include "authentication/credentials.hpp"

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <vector>

#include <glog/logging.h>

#include "common/json.hpp"

namespace mesos::internal::authentication {

namespace {

bool startsWithBrace(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

// One JSON credential object: {"principal": "...", "secret": "..."}.
Result<Credential> credentialFromJson(const json::Value& value, const std::string& where) {
  if (!value.isObject()) return Error{where + " is not an object"};
  const json::Value& principal = value["principal"];
  if (!principal.isString() || principal.string().empty()) {
    return Error{where + " has no \"principal\" string"};
  }
  Credential credential;
  credential.set_principal(principal.string());
  const json::Value& secret = value["secret"];
  if (secret.isString()) {
    credential.set_secret(secret.string());
  } else if (!secret.isNull()) {
    return Error{where + " (principal '" + principal.string() + "'): \"secret\" is not a string"};
  }
  return credential;
}

// The text form's lines that hold a credential: "principal secret".
Result<std::vector<Credential>> credentialsFromText(std::string_view text) {
  std::vector<Credential> out;
  size_t number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    std::istringstream words{std::string(line)};
    std::vector<std::string> tokens;
    for (std::string word; words >> word;) tokens.push_back(word);
    if (tokens.empty() || tokens[0][0] == '#') continue;
    if (tokens.size() != 2) {
      return Error{"line " + std::to_string(number) +
                   ": expected 'principal secret' (two words), found " +
                   std::to_string(tokens.size()) + " words"};
    }
    Credential credential;
    credential.set_principal(tokens[0]);
    credential.set_secret(tokens[1]);
    out.push_back(std::move(credential));
  }
  return out;
}

Result<std::string> readFile(const std::string& location, const char* what) {
  std::string path = location;
  if (path.rfind("file://", 0) == 0) path = path.substr(7);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot read " + std::string(what) + " file '" + path + "'"};
  std::ostringstream contents;
  contents << in.rdbuf();
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0 && (status.st_mode & S_IRWXO) != 0) {
    LOG(WARNING) << "Permissions on " << what << " file '" << path
                 << "' are too open: others should not be able to read it (chmod o-rwx)";
  }
  return contents.str();
}

}  // namespace

Result<Credentials> parseCredentials(std::string_view text) {
  Credentials credentials;
  if (startsWithBrace(text)) {
    auto parsed = json::parse(text);
    if (!parsed) return Error{"invalid JSON: " + parsed.error().message};
    if (!parsed->isObject()) return Error{"expected a JSON object {\"credentials\": [...]}"};
    const json::Value& list = (*parsed)["credentials"];
    if (!list.isArray()) return Error{"expected a \"credentials\" array"};
    for (size_t i = 0; i < list.array().size(); ++i) {
      auto credential =
          credentialFromJson(list.array()[i], "credentials[" + std::to_string(i) + "]");
      if (!credential) return credential.error();
      *credentials.add_credentials() = std::move(credential).value();
    }
    return credentials;
  }
  auto lines = credentialsFromText(text);
  if (!lines) return lines.error();
  for (Credential& credential : lines.value()) *credentials.add_credentials() = std::move(credential);
  return credentials;
}

Result<Credential> parseCredential(std::string_view text) {
  if (startsWithBrace(text)) {
    auto parsed = json::parse(text);
    if (!parsed) return Error{"invalid JSON: " + parsed.error().message};
    return credentialFromJson(*parsed, "the credential");
  }
  auto lines = credentialsFromText(text);
  if (!lines) return lines.error();
  if (lines->size() != 1) {
    return Error{"expected one 'principal secret' line, found " + std::to_string(lines->size())};
  }
  return std::move(lines.value()[0]);
}

Result<Credentials> readCredentials(const std::string& location) {
  auto text = readFile(location, "credentials");
  if (!text) return text.error();
  auto credentials = parseCredentials(*text);
  if (!credentials) {
    return Error{"credentials file '" + location + "': " + credentials.error().message};
  }
  return credentials;
}

Result<Credential> readCredential(const std::string& location) {
  auto text = readFile(location, "credential");
  if (!text) return text.error();
  auto credential = parseCredential(*text);
  if (!credential) {
    return Error{"credential file '" + location + "': " + credential.error().message};
  }
  return credential;
}

}  // namespace mesos::internal::authentication
