#include "slave/images.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include <glog/logging.h>

#include "common/fd.hpp"
#include "common/json.hpp"
#include "common/json_flag.hpp"
#include "slave/containerizer/provisioner/backends/backend.hpp"
#include "slave/containerizer/provisioner/docker/reference.hpp"
#include "slave/containerizer/provisioner/store.hpp"
#include "slave/reaper.hpp"
#include "slave/spawn.hpp"

extern char** environ;

namespace mesos::internal::slave {

Result<std::string> dockerImageOf(const ContainerInfo& container) {
  if (!container.has_mesos() || !container.mesos().has_image()) return std::string();
  const Image& image = container.mesos().image();
  if (image.type() != Image::DOCKER || !image.has_docker()) {
    return Error{"ContainerInfo.mesos.image: only DOCKER images are supported (APPC is not)"};
  }
  if (image.docker().name().empty()) return Error{"ContainerInfo.mesos.image.docker.name is empty"};
  return image.docker().name();
}

Result<ImageGcConfig> parseImageGcConfig(const std::string& value) {
  const std::string flag = "--image_gc_config: ";
  const std::string example =
      " (e.g. '{\"image_disk_headroom\": 0.1, \"image_disk_watch_interval\": "
      "{\"nanoseconds\": 3600000000000}}')";
  auto text = jsonFlagText("image_gc_config", value);
  if (!text) return text.error();
  auto parsed = json::parse(*text);
  if (!parsed) return Error{flag + "not JSON (" + parsed.error().message + ")" + example};
  if (!parsed->isObject()) return Error{flag + "expected a JSON object" + example};
  const json::Value& config = *parsed;

  ImageGcConfig gc;
  const json::Value& headroom = config["image_disk_headroom"];
  if (headroom.isNull()) return Error{flag + "'image_disk_headroom' is required" + example};
  if (!headroom.isNumber()) return Error{flag + "'image_disk_headroom' must be a number"};
  gc.headroom = headroom.number();
  if (!(gc.headroom >= 0.0 && gc.headroom <= 1.0)) {
    return Error{flag + "'image_disk_headroom' must be between 0.0 and 1.0 (e.g. 0.1), not " +
                 json::stringify(headroom)};
  }

  const json::Value& interval = config["image_disk_watch_interval"];
  if (interval.isNull()) return Error{flag + "'image_disk_watch_interval' is required" + example};
  const json::Value& nanoseconds = interval["nanoseconds"];
  std::optional<int64_t> count;
  if (nanoseconds.isInteger()) {
    count = nanoseconds.integer();
  } else if (nanoseconds.isString() && !nanoseconds.string().empty()) {
    // Protobuf's JSON form writes an int64 as a string.
    errno = 0;
    char* end = nullptr;
    long long number = std::strtoll(nanoseconds.string().c_str(), &end, 10);
    if (*end == '\0' && errno == 0) count = number;
  }
  if (!count) {
    return Error{flag + "'image_disk_watch_interval' must be a DurationInfo: {\"nanoseconds\": N}"};
  }
  if (*count <= 0) {
    return Error{flag +
                 "'image_disk_watch_interval' must be positive (e.g. 3600000000000 "
                 "nanoseconds: an hour)"};
  }
  gc.interval = std::chrono::nanoseconds(*count);

  const json::Value& excluded = config["excluded_images"];
  if (!excluded.isNull() && !excluded.isArray()) {
    return Error{flag + "'excluded_images' must be an array of Image objects"};
  }
  if (excluded.isArray()) {
    for (const json::Value& image : excluded.array()) {
      if (!image.isObject()) return Error{flag + "'excluded_images' holds a non-object"};
      const json::Value& type = image["type"];
      if (type.isString() && type.string() == "APPC") continue;  // not in the Docker store
      if (!(type.isNull() || (type.isString() && type.string() == "DOCKER"))) {
        return Error{flag + "an excluded image's type must be DOCKER or APPC"};
      }
      const json::Value& name = image["docker"]["name"];
      if (!name.isString() || name.string().empty()) {
        return Error{flag +
                     "an excluded DOCKER image has no docker.name (e.g. {\"type\": "
                     "\"DOCKER\", \"docker\": {\"name\": \"busybox:1.36\"}})"};
      }
      if (auto reference = provisioner::docker::parseReference(name.string()); !reference) {
        return Error{flag + "excluded_images: " + reference.error().message};
      }
      gc.excludedImages.push_back(name.string());
    }
  }
  return gc;
}

Result<bool> needsImageGc(const std::string& path, double headroom, double* usage) {
  std::filesystem::path existing = path;
  struct statvfs stats {};
  while (::statvfs(existing.c_str(), &stats) != 0) {
    if (errno != ENOENT || !existing.has_relative_path()) {
      return Error{"cannot measure the file system of '" + existing.string() +
                   "': " + std::strerror(errno)};
    }
    existing = existing.parent_path();
  }
  if (stats.f_blocks == 0) return Error{"the file system of '" + path + "' has no blocks"};
  double free = static_cast<double>(stats.f_bfree) / static_cast<double>(stats.f_blocks);
  if (usage != nullptr) *usage = 1.0 - free;
  return free < headroom;
}

struct Images::State {
  std::mutex mutex;
  std::map<std::string, pid_t> running;       // container id -> provisioning helper
  std::map<std::string, std::string> killed;  // container id -> why
  pid_t gc = -1;                              // the gc helper, while it runs
};

namespace {

// The helper's output, read from the start of `fd` (an in-memory file).
std::string readAll(int fd) {
  std::string text;
  ::lseek(fd, 0, SEEK_SET);
  char buffer[8192];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

// The last non-empty line of `text`, without the helper's name.
std::string lastLine(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  size_t start = text.rfind('\n');
  std::string line = start == std::string::npos ? text : text.substr(start + 1);
  const std::string prefix = "mesos-provisioner: ";
  if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
  return line;
}

std::vector<std::string> strings(const json::Value& value) {
  std::vector<std::string> out;
  if (!value.isArray()) return out;
  for (const json::Value& item : value.array()) {
    if (item.isString()) out.push_back(item.string());
  }
  return out;
}

Result<ProvisionedImage> parseProvisioned(const std::string& text) {
  auto parsed = json::parse(text);
  if (!parsed || !parsed->isObject()) {
    return Error{"mesos-provisioner printed no image: '" + lastLine(text) + "'"};
  }
  const json::Value& object = *parsed;
  ProvisionedImage image;
  if (!object["rootfs"].isString() || !object["reference"].isString()) {
    return Error{"mesos-provisioner printed no root filesystem"};
  }
  image.rootfs = object["rootfs"].string();
  image.reference = object["reference"].string();
  image.cached = object["cached"].isBool() && object["cached"].boolean();
  const json::Value& config = object["config"];
  if (config.isObject()) {
    image.config.entrypoint = strings(config["entrypoint"]);
    image.config.cmd = strings(config["cmd"]);
    image.config.env = strings(config["env"]);
    if (config["working_dir"].isString()) image.config.workingDir = config["working_dir"].string();
    if (config["user"].isString()) image.config.user = config["user"].string();
  }
  return image;
}

struct Spawned {
  pid_t pid = -1;
  int out = -1;  // the helper's stdout and stderr, in-memory files
  int err = -1;
};

// Starts `argv` in its own session, its stdout and stderr into in-memory
// files (returned open: the caller closes them).
Result<Spawned> spawnHelper(std::vector<std::string> argv) {
  Fd out(::memfd_create("mesos-provisioner-out", MFD_CLOEXEC));
  Fd err(::memfd_create("mesos-provisioner-err", MFD_CLOEXEC));
  if (out.get() < 0 || err.get() < 0) {
    return Error{std::string("cannot make the helper's output files: ") + std::strerror(errno)};
  }
  SpawnState spawn;
  spawn.newSession();
  posix_spawn_file_actions_addopen(&spawn.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&spawn.actions, out.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&spawn.actions, err.get(), STDERR_FILENO);
  posix_spawn_file_actions_addclosefrom_np(&spawn.actions, STDERR_FILENO + 1);
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  Spawned spawned;
  int error = ::posix_spawn(&spawned.pid, argv[0].c_str(), &spawn.actions, &spawn.attr, args.data(),
                            environ);
  if (error != 0) {
    return Error{"cannot run '" + argv[0] + "': " + std::strerror(error)};
  }
  spawned.out = ::dup(out.get());
  spawned.err = ::dup(err.get());
  return spawned;
}

}  // namespace

Images::Images(std::string helper, const Flags& flags)
    : helper_(std::move(helper)),
      workDir_(flags.work_dir),
      storeDir_(flags.docker_store_dir),
      registry_(flags.docker_registry),
      backend_(flags.image_provisioner_backend),
      dockerConfig_(flags.docker_config.value_or("")),
      state_(std::make_shared<State>()) {}

Images::~Images() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  for (const auto& [id, pid] : state_->running) {
    state_->killed[id] = "the slave is stopping";
    ::kill(-pid, SIGKILL);
  }
  // Safe at any point: the store's table is replaced whole, and a layer
  // leaves layers/ in one rename before it is removed.
  if (state_->gc > 0) ::kill(-state_->gc, SIGKILL);
}

std::string Images::directory(const std::string& containerId) const {
  return workDir_ + "/provisioner/containers/" + containerId;
}

bool Images::provisioned(const std::string& containerId) const {
  struct stat info {};
  return ::stat(directory(containerId).c_str(), &info) == 0;
}

process::Future<Result<ProvisionedImage>> Images::provision(const std::string& containerId,
                                                            const std::string& image,
                                                            bool forcePull) {
  auto promise = std::make_shared<process::Promise<Result<ProvisionedImage>>>();
  auto future = promise->future();
  std::vector<std::string> argv = {
      helper_, "provision", "--image=" + image, "--container=" + containerId,
      "--directory=" + directory(containerId), "--docker_store_dir=" + storeDir_,
      "--docker_registry=" + registry_,
      // overlayfs in the container's own mount namespace
      "--mount_in_container=true"};
  if (!backend_.empty()) argv.push_back("--backend=" + backend_);
  if (!dockerConfig_.empty()) argv.push_back("--docker_config=" + dockerConfig_);
  if (forcePull) argv.push_back("--force_pull=true");
  std::error_code made;
  std::filesystem::create_directories(workDir_ + "/provisioner/containers", made);
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->running.count(containerId) != 0) {
    promise->set(Error{"container " + containerId + " is being provisioned already"});
    return future;
  }
  auto spawned = spawnHelper(std::move(argv));
  if (!spawned) {
    promise->set(Error{"Failed to pull '" + image + "': " + spawned.error().message});
    return future;
  }
  state_->running[containerId] = spawned->pid;
  Reaper::instance().watch(spawned->pid, [state = state_, containerId, image, promise,
                                          out = spawned->out, err = spawned->err](int status) {
    std::optional<std::string> killed;
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      state->running.erase(containerId);
      if (auto it = state->killed.find(containerId); it != state->killed.end()) {
        killed = it->second;
        state->killed.erase(it);
      }
    }
    const std::string output = readAll(out);
    const std::string errors = readAll(err);
    ::close(out);
    ::close(err);
    if (killed) {
      promise->set(Error{"Failed to pull '" + image + "': killed (" + *killed + ")"});
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      promise->set(parseProvisioned(output));
    } else if (!lastLine(errors).empty()) {
      promise->set(Error{lastLine(errors)});
    } else {
      promise->set(
          Error{"Failed to pull '" + image + "': mesos-provisioner " + describeWaitStatus(status)});
    }
  });
  return future;
}

void Images::kill(const std::string& containerId, const std::string& why) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  auto it = state_->running.find(containerId);
  if (it == state_->running.end()) return;
  state_->killed.emplace(containerId, why);
  ::kill(-it->second, SIGKILL);
}

process::Future<Result<process::Nothing>> Images::destroy(const std::string& containerId) {
  auto promise = std::make_shared<process::Promise<Result<process::Nothing>>>();
  auto future = promise->future();
  auto spawned =
      spawnHelper({helper_, "destroy", "--container=" + containerId,
                   "--directory=" + directory(containerId), "--docker_store_dir=" + storeDir_});
  if (!spawned) {
    promise->set(Error{"Failed to destroy the root filesystem of container " + containerId + ": " +
                       spawned.error().message});
    return future;
  }
  Reaper::instance().watch(
      spawned->pid, [containerId, promise, out = spawned->out, err = spawned->err](int status) {
        const std::string errors = readAll(err);
        ::close(out);
        ::close(err);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
          promise->set(process::Nothing{});
        } else {
          promise->set(Error{lastLine(errors).empty()
                                 ? "mesos-provisioner destroy " + describeWaitStatus(status)
                                 : lastLine(errors)});
        }
      });
  return future;
}

process::Future<Result<ImageGcReport>> Images::gc(const std::vector<std::string>& excluded) {
  auto promise = std::make_shared<process::Promise<Result<ImageGcReport>>>();
  auto future = promise->future();
  json::Array names;
  for (const std::string& name : excluded) names.emplace_back(name);
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->gc > 0) {
    promise->set(Error{"an image garbage collection is running already"});
    return future;
  }
  auto spawned = spawnHelper({helper_, "gc", "--docker_store_dir=" + storeDir_,
                              "--excluded_images=" + json::stringify(json::Value(names))});
  if (!spawned) {
    promise->set(Error{"Failed to collect the image store: " + spawned.error().message});
    return future;
  }
  state_->gc = spawned->pid;
  Reaper::instance().watch(
      spawned->pid, [state = state_, promise, out = spawned->out, err = spawned->err](int status) {
        {
          std::lock_guard<std::mutex> lock(state->mutex);
          state->gc = -1;
        }
        const std::string output = readAll(out);
        const std::string errors = readAll(err);
        ::close(out);
        ::close(err);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
          promise->set(Error{lastLine(errors).empty()
                                 ? "mesos-provisioner gc " + describeWaitStatus(status)
                                 : lastLine(errors)});
          return;
        }
        auto parsed = json::parse(output);
        if (!parsed || !parsed->isObject()) {
          promise->set(Error{"mesos-provisioner gc printed no report: '" + lastLine(output) + "'"});
          return;
        }
        ImageGcReport report;
        report.images = strings((*parsed)["removed_images"]);
        report.layers = strings((*parsed)["removed_layers"]);
        const json::Value& bytes = (*parsed)["bytes_freed"];
        if (bytes.isNumber() && bytes.number() > 0)
          report.bytesFreed = static_cast<uint64_t>(bytes.number());
        promise->set(std::move(report));
      });
  return future;
}

Result<void> Images::recover(const std::set<std::string>& keep) {
  const std::string containers = workDir_ + "/provisioner/containers";
  std::error_code error;
  std::set<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(containers, error)) {
    const std::string id = entry.path().filename().string();
    if (keep.count(id) == 0) left.insert(id);
  }
  for (const std::string& id : left) {
    if (auto destroyed = provisioner::destroyRootfs(directory(id)); !destroyed) {
      return Error{"cannot remove the root filesystem an earlier run left for container " + id +
                   ": " + destroyed.error().message};
    }
    LOG(INFO) << "Removed the root filesystem of container " << id << " (an earlier run's)";
  }
  if (left.empty()) return {};
  // Only the pins of this slave's containers: other slaves may share the store.
  auto store = provisioner::Store::open(storeDir_);
  if (!store) return Error{"cannot open the image store: " + store.error().message};
  for (const std::string& id : left) {
    if (auto unpinned = store->unpin(id); !unpinned) {
      return Error{"cannot unpin the image of container " + id + ": " + unpinned.error().message};
    }
  }
  return {};
}

}  // namespace mesos::internal::slave
