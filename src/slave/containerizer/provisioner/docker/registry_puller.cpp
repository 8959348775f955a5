#include "slave/containerizer/provisioner/docker/registry_puller.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "common/json.hpp"
#include "slave/containerizer/provisioner/docker/digest.hpp"
#include "slave/containerizer/provisioner/docker/manifest.hpp"
#include "slave/containerizer/provisioner/docker/registry_auth.hpp"

namespace mesos::internal::slave::provisioner::docker {

namespace {

// Blocks of a successful answer's body; an error stops the transfer.
using Sink = std::function<Result<void>(const char* data, size_t size)>;

struct Response {
  long status = 0;
  std::string statusLine;                      // "404 Not Found"
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;                            // unless a sink took it
};

struct Transfer {
  Response* response;
  const Sink* sink;
  std::optional<Error> error;
};

bool successful(long status) { return status >= 200 && status < 300; }

size_t onHeader(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    // A new answer (after a redirect): forget the previous one's headers.
    size_t space = line.find(' ');
    transfer->response->statusLine = space == std::string::npos ? line : line.substr(space + 1);
    transfer->response->status = std::strtol(transfer->response->statusLine.c_str(), nullptr, 10);
    transfer->response->headers.clear();
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return size * count;
  std::string name = line.substr(0, colon);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t start = line.find_first_not_of(' ', colon + 1);
  transfer->response->headers[name] = start == std::string::npos ? "" : line.substr(start);
  return size * count;
}

size_t onData(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  size_t bytes = size * count;
  if (!successful(transfer->response->status) || *transfer->sink == nullptr) {
    if (transfer->response->body.size() + bytes > (16u << 20)) {
      transfer->error = Error{"the answer is larger than 16 MiB"};
      return 0;
    }
    transfer->response->body.append(data, bytes);
    return bytes;
  }
  if (auto taken = (*transfer->sink)(data, bytes); !taken) {
    transfer->error = taken.error();
    return 0;
  }
  return bytes;
}

Result<Response> httpGet(const std::string& url, const std::vector<std::string>& headers,
                         const Sink& sink = nullptr) {
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Error{"cannot start libcurl"};
  Response response;
  Transfer transfer{&response, &sink, std::nullopt};
  curl_slist* list = nullptr;
  for (const std::string& header : headers) list = curl_slist_append(list, header.c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> headerList(list, curl_slist_free_all);
  char message[CURL_ERROR_SIZE] = {0};
  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(handle, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, 120L);
  curl_easy_setopt(handle, CURLOPT_USERAGENT, "mesos-provisioner");
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, message);
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headerList.get());
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, onData);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &transfer);
  CURLcode code = curl_easy_perform(handle);
  if (transfer.error) return *transfer.error;
  if (code != CURLE_OK) {
    return Error{"GET " + url + ": " +
                 (message[0] != '\0' ? std::string(message) : curl_easy_strerror(code))};
  }
  return response;
}

std::string escape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The registry's reasons in an error body ({"errors": [{"code", "message"}]}),
// or the body itself when it has none.
std::string reasons(const std::string& body) {
  auto parsed = json::parse(body);
  std::string text;
  if (parsed && (*parsed)["errors"].isArray()) {
    for (const json::Value& error : (*parsed)["errors"].array()) {
      std::string code = error["code"].isString() ? error["code"].string() : "";
      std::string message = error["message"].isString() ? error["message"].string() : "";
      text += (text.empty() ? "" : "; ") + code + (code.empty() || message.empty() ? "" : ": ") +
              message;
    }
  }
  if (!text.empty()) return text;
  std::string trimmed = body.substr(0, 200);
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) {
    trimmed.pop_back();
  }
  return trimmed;
}

Error httpError(const std::string& what, const std::string& url, const Response& response) {
  std::string why = reasons(response.body);
  return Error{"the registry answered " + response.statusLine + " to GET " + url + " (" + what +
               ")" + (why.empty() ? "" : ": " + why)};
}

// One repository of one registry, with what authenticates to it.
class Session {
 public:
  Session(std::string base, std::string repository, std::optional<std::string> basic)
      : base_(std::move(base)), repository_(std::move(repository)), basic_(std::move(basic)) {}

  // GETs /v2/<repository>/<path>, answering one 401 challenge. The answer
  // is returned whatever its status.
  Result<Response> get(const std::string& path, const std::string& accept, const Sink& sink) {
    std::string target = url(path);
    for (int attempt = 0;; ++attempt) {
      std::vector<std::string> headers;
      if (!accept.empty()) headers.push_back("Accept: " + accept);
      if (!authorization_.empty()) headers.push_back("Authorization: " + authorization_);
      auto response = httpGet(target, headers, sink);
      if (!response || response->status != 401 || attempt > 0) return response;
      auto challenged = answer(response.value().headers["www-authenticate"]);
      if (!challenged) return challenged.error();
      if (!*challenged) return response;
    }
  }

  std::string url(const std::string& path) const {
    return base_ + "/v2/" + repository_ + "/" + path;
  }

 private:
  // Sets authorization_ for a challenge; false when it cannot be answered.
  Result<bool> answer(const std::string& header) {
    if (header.empty()) return false;
    auto challenge = parseChallenge(header);
    if (!challenge) return challenge.error();
    if (challenge->scheme == "basic") {
      if (!basic_) return false;
      authorization_ = "Basic " + *basic_;
      return true;
    }
    if (challenge->scheme != "bearer") return false;
    std::string realm = challenge.value().params["realm"];
    if (realm.empty()) return Error{"the registry's Bearer challenge names no realm"};
    std::string url = realm + (realm.find('?') == std::string::npos ? "?" : "&");
    std::string query;
    if (!challenge.value().params["service"].empty()) {
      query += "service=" + escape(challenge.value().params["service"]);
    }
    std::string scope = challenge.value().params["scope"];
    if (scope.empty()) scope = "repository:" + repository_ + ":pull";
    query += (query.empty() ? "" : "&") + std::string("scope=") + escape(scope);
    url += query;
    std::vector<std::string> headers;
    if (basic_) headers.push_back("Authorization: Basic " + *basic_);
    auto response = httpGet(url, headers);
    if (!response) return Error{"cannot get a token: " + response.error().message};
    if (!successful(response->status)) {
      return Error{"the token server answered " + response->statusLine + " to GET " + url +
                   (reasons(response->body).empty() ? "" : ": " + reasons(response->body))};
    }
    auto parsed = json::parse(response->body);
    std::string token;
    if (parsed && (*parsed)["token"].isString()) token = (*parsed)["token"].string();
    if (token.empty() && parsed && (*parsed)["access_token"].isString()) {
      token = (*parsed)["access_token"].string();
    }
    if (token.empty()) return Error{"the token server at " + realm + " sent no token"};
    authorization_ = "Bearer " + token;
    return true;
  }

  std::string base_;
  std::string repository_;
  std::optional<std::string> basic_;
  std::string authorization_;
};

// A manifest or configuration at `path`, checked against `digest` (or the
// registry's Docker-Content-Digest when `digest` is "").
Result<std::string> fetchSmallBlob(Session& session, const std::string& path,
                                   const std::string& what, const std::string& accept,
                                   const std::string& digest, std::string* contentType) {
  auto response = session.get(path, accept, nullptr);
  if (!response) return response.error();
  if (!successful(response->status)) return httpError(what, session.url(path), *response);
  if (contentType != nullptr) *contentType = response.value().headers["content-type"];
  std::string actual = sha256Of(response->body);
  std::string expected = digest;
  if (expected.empty()) expected = response.value().headers["docker-content-digest"];
  if (!expected.empty() && isSha256Digest(expected) && actual != expected) {
    return Error{"digest mismatch for the " + what + " " + expected + ": the registry sent " +
                 std::to_string(response->body.size()) + " bytes of digest " + actual};
  }
  return response->body;
}

// Downloads the layer `layer` into `file`, checking its digest and size.
Result<void> fetchLayer(Session& session, const Descriptor& layer, const std::string& file) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"cannot create '" + file + "': " + std::strerror(errno)};
  Sha256 hash;
  uint64_t size = 0;
  Sink sink = [&](const char* data, size_t bytes) -> Result<void> {
    for (size_t done = 0; done < bytes;) {
      ssize_t n = ::write(fd, data + done, bytes - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{"cannot write '" + file + "': " + std::strerror(errno)};
      done += static_cast<size_t>(n);
    }
    hash.update(data, bytes);
    size += bytes;
    if (layer.size >= 0 && size > static_cast<uint64_t>(layer.size)) {
      return Error{"size mismatch for the layer " + layer.digest + ": the manifest says " +
                   std::to_string(layer.size) + " bytes, the registry sends more"};
    }
    return {};
  };
  auto response = session.get("blobs/" + layer.digest, "", sink);
  ::close(fd);
  if (!response) return response.error();
  if (!successful(response->status)) {
    return httpError("layer " + layer.digest, session.url("blobs/" + layer.digest), *response);
  }
  std::string actual = hash.finish();
  if (actual != layer.digest) {
    return Error{"digest mismatch for the layer " + layer.digest + ": the registry sent " +
                 std::to_string(size) + " bytes of digest " + actual};
  }
  if (layer.size >= 0 && static_cast<uint64_t>(layer.size) != size) {
    return Error{"size mismatch for the layer " + layer.digest + ": the manifest says " +
                 std::to_string(layer.size) + " bytes, the registry sent " + std::to_string(size)};
  }
  return {};
}

std::string hostOf(const std::string& url) {
  std::string rest = url.substr(url.find("://") == std::string::npos ? 0 : url.find("://") + 3);
  return rest.substr(0, rest.find('/'));
}

bool loopback(const std::string& hostPort) {
  std::string host = hostPort;
  if (!host.empty() && host[0] == '[') {
    host = host.substr(1, host.find(']') - 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace

std::string registryUrl(const Reference& reference, const std::string& flag) {
  std::string url = flag;
  if (url.find("://") == std::string::npos) url = "https://" + url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (!reference.registryGiven) return url;
  if (hostOf(url) == reference.registry) return url;
  return (loopback(reference.registry) ? "http://" : "https://") + reference.registry;
}

Result<StoredImage> pullFromRegistry(const Store& store, const Reference& reference,
                                     const PullOptions& options) {
  std::string base = registryUrl(reference, options.registry);
  std::optional<std::string> basic;
  if (!options.dockerConfig.empty()) {
    auto config = loadDockerConfig(options.dockerConfig);
    if (!config) return config.error();
    auto credentials = credentialsFor(*config, hostOf(base));
    if (!credentials) return credentials.error();
    basic = *credentials;
  }
  Session session(base, reference.repository, basic);

  static const std::string kAccept = std::string(kDockerManifest) + ", " + kDockerManifestList +
                                     ", " + kOciManifest + ", " + kOciIndex;
  std::string wanted = reference.manifestReference();
  std::string digest = reference.digest;
  std::string topDigest;
  std::optional<Manifest> manifest;
  for (int depth = 0; depth < 3 && !manifest; ++depth) {
    std::string contentType;
    auto body = fetchSmallBlob(session, "manifests/" + wanted, "manifest " + wanted, kAccept,
                               digest, &contentType);
    if (!body) return body.error();
    if (digest.empty()) digest = sha256Of(*body);
    // The digest the image goes by is the first document's (an index's
    // when there is one), as Docker reports it.
    if (topDigest.empty()) topDigest = digest;
    auto document = parseManifest(*body, contentType);
    if (!document) return document.error();
    if (auto* index = std::get_if<Index>(&*document)) {
      auto entry = selectPlatform(*index, machineArchitecture());
      if (!entry) return entry.error();
      wanted = digest = entry->digest;
      continue;
    }
    manifest = std::get<Manifest>(std::move(*document));
  }
  if (!manifest) return Error{"the registry's image indexes nest too deep"};

  auto configText =
      fetchSmallBlob(session, "blobs/" + manifest->config.digest,
                     "config " + manifest->config.digest, "", manifest->config.digest, nullptr);
  if (!configText) return configText.error();
  auto config = parseImageConfig(*configText);
  if (!config) return config.error();

  auto staging = store.makeStaging();
  if (!staging) return staging.error();
  struct Cleanup {
    std::string path;
    ~Cleanup() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } cleanup{*staging};
  StoredImage image;
  for (const Descriptor& layer : manifest->layers) {
    image.layers.push_back(layer.digest);
    if (store.hasLayer(layer.digest)) continue;
    std::string file = *staging + "/" + layer.digest.substr(7);
    if (auto fetched = fetchLayer(session, layer, file); !fetched) return fetched.error();
    if (auto stored = storeLayer(store, layer.digest, file); !stored) return stored.error();
    ::unlink(file.c_str());
  }
  image.reference = reference.canonical();
  image.manifestDigest = topDigest;
  image.configDigest = manifest->config.digest;
  image.config = std::move(config).value();
  if (auto put = store.putConfig(image.configDigest, *configText); !put) return put.error();
  std::string digestKey = reference.registry + "/" + reference.repository + "@" + topDigest;
  if (auto put = store.put(image, digestKey); !put) return put.error();
  return image;
}

}  // namespace mesos::internal::slave::provisioner::docker
