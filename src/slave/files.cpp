#include "slave/files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <glog/logging.h>

#include "process/sendfile.hpp"

#include "common/json.hpp"

namespace mesos::internal::slave {

using process::Future;
using process::http::Request;
using process::http::Response;

namespace {

// Apache Mesos caps a read at 16 pages.
constexpr int64_t kMaxReadLength = 16 * 4096;

Response status(int code, std::string message) {
  return Response{code, "text/plain", std::move(message) + "\n", {}};
}

// Splits a virtual path into components, dropping empty ones and ".".
// Returns nullopt if any component is "..".
std::optional<std::vector<std::string>> components(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    std::string part = path.substr(start, slash - start);
    if (part == "..") return std::nullopt;
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
    start = slash + 1;
  }
  return parts;
}

std::string join(const std::vector<std::string>& parts, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < parts.size(); ++i) out += "/" + parts[i];
  return out.empty() ? "/" : out;
}

std::optional<std::string> realPath(const std::string& path) {
  char buffer[PATH_MAX];
  if (::realpath(path.c_str(), buffer) == nullptr) return std::nullopt;
  return std::string(buffer);
}

std::optional<int64_t> parseInteger(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

std::string modeString(mode_t mode) {
  std::string out(10, '-');
  if (S_ISDIR(mode)) out[0] = 'd';
  else if (S_ISLNK(mode)) out[0] = 'l';
  else if (S_ISCHR(mode)) out[0] = 'c';
  else if (S_ISBLK(mode)) out[0] = 'b';
  else if (S_ISFIFO(mode)) out[0] = 'p';
  else if (S_ISSOCK(mode)) out[0] = 's';
  const char* letters = "rwxrwxrwx";
  for (int i = 0; i < 9; ++i) {
    if (mode & (1 << (8 - i))) out[static_cast<size_t>(i) + 1] = letters[i];
  }
  return out;
}

std::string userName(uid_t uid) {
  struct passwd entry {};
  struct passwd* result = nullptr;
  char buffer[4096];
  if (::getpwuid_r(uid, &entry, buffer, sizeof(buffer), &result) == 0 && result != nullptr) {
    return result->pw_name;
  }
  return std::to_string(uid);
}

std::string groupName(gid_t gid) {
  struct group entry {};
  struct group* result = nullptr;
  char buffer[4096];
  if (::getgrgid_r(gid, &entry, buffer, sizeof(buffer), &result) == 0 && result != nullptr) {
    return result->gr_name;
  }
  return std::to_string(gid);
}

json::Value fileInfo(const std::string& virtualPath, const struct stat& s) {
  json::Object info;
  info["path"] = virtualPath;
  info["nlink"] = static_cast<int64_t>(s.st_nlink);
  info["size"] = static_cast<int64_t>(s.st_size);
  info["mtime"] = static_cast<int64_t>(s.st_mtime);
  info["mode"] = modeString(s.st_mode);
  info["uid"] = userName(s.st_uid);
  info["gid"] = groupName(s.st_gid);
  return info;
}

}  // namespace

void Files::initialize() {
  route("/browse", guarded("/files/browse", &Files::browse));
  route("/browse.json", guarded("/files/browse", &Files::browse));
  route("/read", guarded("/files/read", &Files::read));
  route("/read.json", guarded("/files/read", &Files::read));
  route("/download", guarded("/files/download", &Files::download));
  route("/download.json", guarded("/files/download", &Files::download));
  route("/debug", guarded("/files/debug", &Files::debug));
  route("/debug.json", guarded("/files/debug", &Files::debug));
}

authentication::RouteHandler Files::guarded(std::string path,
                                            Future<Response> (Files::*handler)(const Request&)) {
  authentication::RouteHandler open = [this, handler](const Request& request) {
    return (this->*handler)(request);
  };
  return [this, path = std::move(path), open](const Request& request) -> Future<Response> {
    if (!guard_) return open(request);
    return guard_->guard(authentication::Realm::kReadonly, path, open)(request);
  };
}

void Files::setGuard(std::shared_ptr<const authentication::EndpointGuard> guard) {
  guard_ = std::move(guard);
}

Result<void> Files::attach(std::string path, std::string name, std::optional<std::string> user) {
  auto real = realPath(path);
  if (!real) return Error{"cannot attach '" + path + "': " + std::strerror(errno)};
  auto parts = components(name);
  if (!parts) return Error{"cannot attach as '" + name + "': the name may not contain '..'"};
  paths_[join(*parts)] = Attached{*real, std::move(user)};
  return {};
}

void Files::detach(std::string name) {
  auto parts = components(name);
  if (parts) paths_.erase(join(*parts));
}

Files::Resolved Files::resolve(const std::string& virtualPath,
                              const std::optional<std::string>& principal) const {
  auto parts = components(virtualPath);
  if (!parts) return {400, "path '" + virtualPath + "' may not contain '..'", ""};

  // The longest attached prefix, by whole components.
  for (size_t n = parts->size() + 1; n-- > 0;) {
    std::vector<std::string> prefix(parts->begin(), parts->begin() + static_cast<std::ptrdiff_t>(n));
    auto it = paths_.find(join(prefix));
    if (it == paths_.end()) continue;
    if (guard_ && !guard_->authorized(authorizer::Action::kAccessSandbox, principal,
                                      it->second.user)) {
      return {403,
              "Not authorized to access the sandbox of user '" + it->second.user.value_or("") +
                  "' (ACL access_sandboxes)",
              ""};
    }
    const std::string& root = it->second.path;
    std::string candidate = root;
    for (size_t i = n; i < parts->size(); ++i) candidate += "/" + (*parts)[i];
    auto real = realPath(candidate);
    if (!real) return {404, "'" + virtualPath + "' does not exist", ""};
    bool inside = *real == root || real->rfind(root == "/" ? root : root + "/", 0) == 0;
    if (!inside) {
      return {403, "'" + virtualPath + "' resolves outside its sandbox", ""};
    }
    return {200, "", *real};
  }
  return {404, "'" + virtualPath + "' is not in any sandbox served here", ""};
}

Future<Response> Files::browse(const Request& request) {
  auto query = request.queryParameters();
  auto path = query.find("path");
  if (path == query.end() || path->second.empty()) {
    return status(400, "Expecting 'path=value' in query.");
  }
  Resolved resolved = resolve(path->second, request.principal);
  if (resolved.status != 200) return status(resolved.status, resolved.message);

  struct stat s {};
  if (::stat(resolved.path.c_str(), &s) != 0) return status(404, "cannot stat '" + path->second + "'");
  if (!S_ISDIR(s.st_mode)) return status(400, "'" + path->second + "' is not a directory");

  DIR* dir = ::opendir(resolved.path.c_str());
  if (dir == nullptr) {
    return status(500, "cannot list '" + path->second + "': " + std::strerror(errno));
  }
  std::map<std::string, json::Value> entries;  // sorted by name
  std::string base = path->second;
  while (!base.empty() && base.back() == '/') base.pop_back();
  while (struct dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat es {};
    if (::stat((resolved.path + "/" + name).c_str(), &es) != 0) continue;
    entries[name] = fileInfo(base + "/" + name, es);
  }
  ::closedir(dir);

  json::Array listing;
  for (auto& [name, info] : entries) listing.push_back(std::move(info));
  return Response::ok(json::stringify(json::Value(std::move(listing))));
}

Future<Response> Files::read(const Request& request) {
  auto query = request.queryParameters();
  auto path = query.find("path");
  if (path == query.end() || path->second.empty()) {
    return status(400, "Expecting 'path=value' in query.");
  }
  // -1 (or absent): the end of the file, and the rest of it.
  int64_t offset = -1;
  if (auto it = query.find("offset"); it != query.end()) {
    auto parsed = parseInteger(it->second);
    if (!parsed || *parsed < -1) {
      return status(400, "Failed to parse offset: '" + it->second + "' is not a non-negative integer");
    }
    offset = *parsed;
  }
  int64_t length = -1;
  if (auto it = query.find("length"); it != query.end()) {
    auto parsed = parseInteger(it->second);
    if (!parsed || *parsed < -1) {
      return status(400, "Failed to parse length: '" + it->second + "' is not a non-negative integer");
    }
    length = *parsed;
  }

  Resolved resolved = resolve(path->second, request.principal);
  if (resolved.status != 200) return status(resolved.status, resolved.message);

  int fd = ::open(resolved.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return status(500, "cannot open '" + path->second + "': " + std::strerror(errno));
  struct stat s {};
  if (::fstat(fd, &s) != 0 || S_ISDIR(s.st_mode)) {
    ::close(fd);
    return status(400, "Cannot read a directory.");
  }
  int64_t size = s.st_size;
  int64_t from = offset == -1 ? size : offset;
  int64_t count = length == -1 ? size - from : length;
  count = std::min(count, kMaxReadLength);

  json::Object result;
  if (from >= size || count <= 0) {
    ::close(fd);
    result["offset"] = from >= size ? size : from;
    result["data"] = "";
    return Response::ok(json::stringify(json::Value(std::move(result))));
  }
  std::string data(static_cast<size_t>(count), '\0');
  ssize_t n = ::pread(fd, data.data(), data.size(), from);
  int error = errno;
  ::close(fd);
  if (n < 0) return status(500, "cannot read '" + path->second + "': " + std::strerror(error));
  data.resize(static_cast<size_t>(n));
  result["offset"] = from;
  result["data"] = std::move(data);
  return Response::ok(json::stringify(json::Value(std::move(result))));
}

Future<Response> Files::download(const Request& request) {
  auto query = request.queryParameters();
  auto path = query.find("path");
  if (path == query.end() || path->second.empty()) {
    return status(400, "Expecting 'path=value' in query.");
  }
  Resolved resolved = resolve(path->second, request.principal);
  if (resolved.status != 200) return status(resolved.status, resolved.message);

  int fd = ::open(resolved.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return status(500, "cannot open '" + path->second + "': " + std::strerror(errno));
  struct stat s {};
  if (::fstat(fd, &s) != 0 || S_ISDIR(s.st_mode)) {
    ::close(fd);
    return status(400, "Cannot download a directory.");
  }
  ::close(fd);
  // Streamed from disk by the transport as the client reads: a file of any
  // size costs no memory here.
  std::string name = resolved.path.substr(resolved.path.find_last_of('/') + 1);
  Response response = Response::ok("", "application/octet-stream");
  response.headers.emplace_back("Content-Disposition", "attachment; filename=" + name);
  response.headers.emplace_back(process::http::kSendFileHeader, resolved.path);
  return response;
}

Future<Response> Files::debug(const Request&) {
  json::Object object;
  for (const auto& [name, attached] : paths_) object[name] = attached.path;
  return Response::ok(json::stringify(json::Value(std::move(object))));
}

}  // namespace mesos::internal::slave
