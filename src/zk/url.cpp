#include "zk/url.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/secrets.hpp"

#include "common/strings.hpp"

namespace mesos::internal::zk {

namespace {

constexpr const char* kZk = "zk://";
constexpr const char* kFile = "file://";

std::string trim(const std::string& text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::vector<std::string> split(const std::string& text, char separator) {
  return strings::split(text, separator);
}

// The URL is shown with its password masked: errors reach logs.
Error bad(const std::string& text, const std::string& why) {
  return Error{"ZooKeeper URL '" + maskUrlPasswords(text) + "': " + why};
}

// host:port, port 1..65535; the host a name or an IPv4 address.
std::optional<std::string> checkServer(const std::string& server) {
  size_t colon = server.rfind(':');
  if (colon == std::string::npos || colon == 0) return "'" + server + "' is not host:port";
  std::string host = server.substr(0, colon);
  std::string port = server.substr(colon + 1);
  for (char c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') {
      return "'" + server + "' has a bad host name";
    }
  }
  if (port.empty() || port.size() > 5) return "'" + server + "' has a bad port";
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return "'" + server + "' has a bad port";
  }
  int number = std::stoi(port);
  if (number < 1 || number > 65535) return "'" + server + "' has a bad port";
  return std::nullopt;
}

Result<Url> parseZk(const std::string& text) {
  std::string rest = text.substr(std::string(kZk).size());
  Url url;
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  url.path = slash == std::string::npos ? "/" : rest.substr(slash);
  if (size_t at = authority.rfind('@'); at != std::string::npos) {
    std::string credentials = authority.substr(0, at);
    authority = authority.substr(at + 1);
    size_t colon = credentials.find(':');
    if (colon == std::string::npos || colon == 0) {
      return bad(text, "credentials must be user:password@");
    }
    url.credentials = Url::Credentials{credentials.substr(0, colon), credentials.substr(colon + 1)};
  }
  if (authority.empty()) return bad(text, "no servers (zk://host:port[,host:port...]/path)");
  for (const std::string& server : split(authority, ',')) {
    if (auto problem = checkServer(server)) return bad(text, *problem);
  }
  url.servers = authority;
  if (url.path.size() > 1 && url.path.back() == '/') url.path.pop_back();
  if (url.path != "/") {
    for (const std::string& component : split(url.path.substr(1), '/')) {
      if (component.empty()) return bad(text, "the path has an empty component");
      if (component == "." || component == "..") {
        return bad(text, "the path may not hold '.' or '..'");
      }
    }
  }
  return url;
}

}  // namespace

std::string Url::toString() const {
  std::string out = kZk;
  if (credentials) out += credentials->user + ":" + kMasked + "@";
  out += servers;
  out += path == "/" ? "" : path;
  return out;
}

Result<Url> parseUrl(const std::string& given) {
  std::string text = trim(given);
  if (text.rfind(kFile, 0) == 0) {
    std::string path = text.substr(std::string(kFile).size());
    if (path.empty() || path[0] != '/') {
      return Error{"'" + text + "': a file:// URL names an absolute path (file:///...)"};
    }
    std::ifstream file(path);
    if (!file) return Error{"'" + text + "': cannot read " + path};
    std::stringstream content;
    content << file.rdbuf();
    std::string inner = trim(content.str());
    if (inner.rfind(kZk, 0) != 0) {
      return Error{"'" + text + "': " + path + " must hold a zk:// URL"};
    }
    return parseZk(inner);
  }
  if (text.rfind(kZk, 0) != 0) {
    return Error{"'" + maskUrlPasswords(text) +
                 "' is not a ZooKeeper URL (zk://host:port/path or file:///path)"};
  }
  return parseZk(text);
}

}  // namespace mesos::internal::zk
