#include "slave/containerizer/provisioner/store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/json.hpp"

namespace mesos::internal::slave::provisioner {

namespace fs = std::filesystem;

namespace {

Error systemError(const std::string& what, int error) {
  return Error{what + ": " + std::strerror(error)};
}

json::Value stringArray(const std::vector<std::string>& items) {
  json::Array array;
  for (const std::string& item : items) array.emplace_back(item);
  return array;
}

std::vector<std::string> stringList(const json::Value& value) {
  std::vector<std::string> list;
  if (!value.isArray()) return list;
  for (const json::Value& item : value.array()) {
    if (item.isString()) list.push_back(item.string());
  }
  return list;
}

std::string text(const json::Value& value) { return value.isString() ? value.string() : ""; }

json::Value encode(const StoredImage& image) {
  json::Object config;
  config["entrypoint"] = stringArray(image.config.entrypoint);
  config["cmd"] = stringArray(image.config.cmd);
  config["env"] = stringArray(image.config.env);
  config["working_dir"] = image.config.workingDir;
  config["user"] = image.config.user;
  json::Object object;
  object["reference"] = image.reference;
  object["manifest_digest"] = image.manifestDigest;
  object["config_digest"] = image.configDigest;
  object["layers"] = stringArray(image.layers);
  object["config"] = std::move(config);
  return object;
}

StoredImage decode(const json::Value& value) {
  StoredImage image;
  image.reference = text(value["reference"]);
  image.manifestDigest = text(value["manifest_digest"]);
  image.configDigest = text(value["config_digest"]);
  image.layers = stringList(value["layers"]);
  const json::Value& config = value["config"];
  image.config.entrypoint = stringList(config["entrypoint"]);
  image.config.cmd = stringList(config["cmd"]);
  image.config.env = stringList(config["env"]);
  image.config.workingDir = text(config["working_dir"]);
  image.config.user = text(config["user"]);
  return image;
}

// The object under `key` of the JSON file at `path`; empty when the file is
// missing.
Result<json::Object> readTable(const std::string& path, const std::string& key) {
  if (::access(path.c_str(), F_OK) != 0) return json::Object{};
  auto contents = readFile(path);
  if (!contents) return contents.error();
  auto parsed = json::parse(*contents);
  if (!parsed) return Error{"'" + path + "' is not JSON: " + parsed.error().message};
  const json::Value& table = (*parsed)[key];
  if (table.isNull()) return json::Object{};
  if (!table.isObject()) return Error{"'" + path + "' holds no '" + key + "' object"};
  return table.object();
}

Result<void> writeTable(const std::string& path, const std::string& key, json::Object table) {
  json::Object document;
  document[key] = std::move(table);
  return writeFileAtomically(path, json::stringify(document) + "\n");
}

// The disk space the files below `path` (and it) take, hard links counted
// once each time they are met.
uint64_t diskBytes(const fs::path& path) {
  uint64_t bytes = 0;
  struct stat stats {};
  if (::lstat(path.c_str(), &stats) == 0) bytes += static_cast<uint64_t>(stats.st_blocks) * 512;
  std::error_code error;
  for (fs::recursive_directory_iterator it(path, error), end; !error && it != end;
       it.increment(error)) {
    if (::lstat(it->path().c_str(), &stats) == 0) {
      bytes += static_cast<uint64_t>(stats.st_blocks) * 512;
    }
  }
  return bytes;
}

}  // namespace

Result<void> writeFileAtomically(const std::string& path, const std::string& contents) {
  std::string temporary = path + ".XXXXXX";
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) return systemError("cannot create a file next to '" + path + "'", errno);
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      return systemError("cannot write '" + path + "'", error);
    }
    written += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) {
    int error = errno;
    ::close(fd);
    ::unlink(temporary.c_str());
    return systemError("cannot write '" + path + "'", error);
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temporary.c_str());
    return systemError("cannot replace '" + path + "'", error);
  }
  return {};
}

Result<std::string> readFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return systemError("cannot open '" + path + "'", errno);
  std::string contents;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      return systemError("cannot read '" + path + "'", error);
    }
    if (n == 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

StoreLock& StoreLock::operator=(StoreLock&& that) noexcept {
  if (this != &that) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = that.fd_;
    that.fd_ = -1;
  }
  return *this;
}

StoreLock::~StoreLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

Result<Store> Store::open(const std::string& directory) {
  if (directory.empty()) return Error{"the image store directory (--docker_store_dir) is empty"};
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) {
    return Error{"cannot create the image store '" + directory + "': " + error.message()};
  }
  char resolved[PATH_MAX];
  if (::realpath(directory.c_str(), resolved) == nullptr) {
    return systemError("cannot resolve the image store '" + directory + "'", errno);
  }
  Store store{std::string(resolved)};
  for (const char* folder : {"layers", "configs", "staging"}) {
    fs::create_directories(store.directory_ + "/" + folder, error);
    if (error) {
      return Error{"cannot create '" + store.directory_ + "/" + folder + "': " + error.message()};
    }
  }
  if (auto table = readTable(store.directory_ + "/images.json", "images"); !table) {
    return table.error();
  }
  return store;
}

std::string Store::layerPath(const std::string& layerId) const {
  return directory_ + "/layers/" + layerId;
}

bool Store::hasLayer(const std::string& layerId) const {
  struct stat stats {};
  return ::stat((layerPath(layerId) + "/rootfs").c_str(), &stats) == 0 && S_ISDIR(stats.st_mode);
}

Result<StoreLock> Store::lock(const std::string& name, bool exclusive) const {
  std::string path = directory_ + "/" + name;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return systemError("cannot open the lock '" + path + "'", errno);
  while (::flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0) {
    if (errno == EINTR) continue;
    int error = errno;
    ::close(fd);
    return systemError("cannot lock '" + path + "'", error);
  }
  return StoreLock(fd);
}

Result<StoreLock> Store::pullLock() const { return lock("gc.lock", false); }

Result<std::string> Store::makeStaging() const {
  std::string path = directory_ + "/staging/XXXXXX";
  if (::mkdtemp(path.data()) == nullptr) {
    return systemError("cannot create a staging directory in '" + directory_ + "/staging'", errno);
  }
  return path;
}

Result<void> Store::commitLayer(const std::string& layerId, const std::string& staged) const {
  std::string target = layerPath(layerId);
  if (::rename(staged.c_str(), target.c_str()) == 0) return {};
  int error = errno;
  if (error == EEXIST || error == ENOTEMPTY) {
    std::error_code ignored;
    fs::remove_all(staged, ignored);
    return {};
  }
  return systemError("cannot move layer " + layerId + " into '" + target + "'", error);
}

Result<void> Store::putConfig(const std::string& digest, const std::string& json) const {
  return writeFileAtomically(directory_ + "/configs/" + digest + ".json", json);
}

Result<std::optional<StoredImage>> Store::find(const std::string& reference) const {
  auto table = readTable(directory_ + "/images.json", "images");
  if (!table) return table.error();
  auto it = table->find(reference);
  if (it == table->end()) return std::optional<StoredImage>();
  return std::optional<StoredImage>(decode(it->second));
}

Result<std::vector<StoredImage>> Store::images() const {
  auto table = readTable(directory_ + "/images.json", "images");
  if (!table) return table.error();
  std::vector<StoredImage> images;
  for (const auto& [key, value] : *table) {
    if (key == text(value["reference"])) images.push_back(decode(value));
  }
  return images;
}

Result<void> Store::put(const StoredImage& image, const std::string& digestKey) const {
  for (const std::string& layer : image.layers) {
    if (!hasLayer(layer))
      return Error{"layer " + layer + " of '" + image.reference + "' is not stored"};
  }
  auto guard = lock("table.lock", true);
  if (!guard) return guard.error();
  std::string path = directory_ + "/images.json";
  auto table = readTable(path, "images");
  if (!table) return table.error();
  table.value()[image.reference] = encode(image);
  if (!digestKey.empty() && digestKey != image.reference) table.value()[digestKey] = encode(image);
  return writeTable(path, "images", std::move(table).value());
}

Result<void> Store::pin(const std::string& containerId, const std::string& reference) const {
  auto guard = lock("table.lock", true);
  if (!guard) return guard.error();
  auto table = readTable(directory_ + "/images.json", "images");
  if (!table) return table.error();
  auto image = table->find(reference);
  if (image == table->end()) return Error{"the image '" + reference + "' is not in the store"};
  std::string path = directory_ + "/pins.json";
  auto pins = readTable(path, "pins");
  if (!pins) return pins.error();
  json::Object pin;
  pin["image"] = reference;
  pin["layers"] = image->second["layers"];
  pin["config_digest"] = image->second["config_digest"];
  pins.value()[containerId] = std::move(pin);
  return writeTable(path, "pins", std::move(pins).value());
}

Result<void> Store::unpin(const std::string& containerId) const {
  auto guard = lock("table.lock", true);
  if (!guard) return guard.error();
  std::string path = directory_ + "/pins.json";
  auto pins = readTable(path, "pins");
  if (!pins) return pins.error();
  if (pins.value().erase(containerId) == 0) return {};
  return writeTable(path, "pins", std::move(pins).value());
}

Result<std::map<std::string, std::string>> Store::pins() const {
  auto pins = readTable(directory_ + "/pins.json", "pins");
  if (!pins) return pins.error();
  std::map<std::string, std::string> result;
  for (const auto& [container, pin] : *pins) result[container] = text(pin["image"]);
  return result;
}

Result<GcReport> Store::gc(const std::set<std::string>& keep) const {
  auto pulls = lock("gc.lock", true);
  if (!pulls) return pulls.error();
  auto guard = lock("table.lock", true);
  if (!guard) return guard.error();
  std::string tablePath = directory_ + "/images.json";
  auto table = readTable(tablePath, "images");
  if (!table) return table.error();
  auto pins = readTable(directory_ + "/pins.json", "pins");
  if (!pins) return pins.error();

  std::set<std::string> usedLayers;
  std::set<std::string> usedConfigs;
  std::set<std::string> pinnedImages;
  for (const auto& [container, pin] : *pins) {
    pinnedImages.insert(text(pin["image"]));
    for (const std::string& layer : stringList(pin["layers"])) usedLayers.insert(layer);
    usedConfigs.insert(text(pin["config_digest"]));
  }

  GcReport report;
  json::Object kept;
  for (const auto& [key, value] : *table) {
    std::string reference = text(value["reference"]);
    if (pinnedImages.count(key) > 0 || pinnedImages.count(reference) > 0 || keep.count(key) > 0 ||
        keep.count(reference) > 0) {
      kept[key] = value;
      for (const std::string& layer : stringList(value["layers"])) usedLayers.insert(layer);
      usedConfigs.insert(text(value["config_digest"]));
    } else if (key == reference) {
      report.images.push_back(reference);
    }
  }
  if (kept.size() != table->size()) {
    if (auto written = writeTable(tablePath, "images", std::move(kept)); !written) {
      return written.error();
    }
  }

  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory_ + "/layers", error)) {
    std::string id = entry.path().filename().string();
    if (usedLayers.count(id) > 0) continue;
    // Out of layers/ in one step, so that no pull ever sees half a layer.
    auto doomed = makeStaging();
    if (!doomed) return doomed.error();
    std::string moved = *doomed + "/layer";
    if (::rename(entry.path().c_str(), moved.c_str()) != 0) {
      return systemError("cannot move layer '" + entry.path().string() + "' out", errno);
    }
    report.bytes += diskBytes(moved);
    fs::remove_all(*doomed, error);
    if (error) return Error{"cannot remove layer '" + moved + "': " + error.message()};
    report.layers.push_back(id);
  }
  if (error) return Error{"cannot list '" + directory_ + "/layers': " + error.message()};
  for (const auto& entry : fs::directory_iterator(directory_ + "/configs", error)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 5 && usedConfigs.count(name.substr(0, name.size() - 5)) > 0) continue;
    uint64_t bytes = diskBytes(entry.path());
    if (fs::remove_all(entry.path(), error) > 0 && !error) report.bytes += bytes;
  }
  for (const auto& entry : fs::directory_iterator(directory_ + "/staging", error)) {
    fs::remove_all(entry.path(), error);
  }
  return report;
}

}  // namespace mesos::internal::slave::provisioner
