#include "slave/containerizer/isolators/network/cni/cni_isolator.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include <glog/logging.h>

#include "common/strings.hpp"

namespace mesos::internal::isolation {

namespace {

// The inode of a process's network namespace, 0 when it cannot be told.
ino_t networkNamespace(const std::string& process) {
  struct stat status {};
  if (::stat(("/proc/" + process + "/ns/net").c_str(), &status) != 0) return 0;
  return status.st_ino;
}

}  // namespace

bool joinsCniNetworks(const ExecutorInfo& executor) {
  for (const NetworkInfo& info : executor.container().network_infos()) {
    if (info.has_name() && !info.name().empty()) return true;
  }
  return false;
}

Result<std::unique_ptr<CniIsolator>> CniIsolator::create(CniOptions options) {
  if (options.configDir.empty()) {
    return Error{
        "needs --network_cni_config_dir (the directory of the CNI network "
        "configurations)"};
  }
  if (options.pluginsDir.empty()) {
    return Error{"needs --network_cni_plugins_dir (the directories of the CNI plugins)"};
  }
  if (::geteuid() != 0) return Error{"needs root (it mounts and enters network namespaces)"};
  auto configs = cni::loadNetworkConfigs(options.configDir);
  if (!configs) return configs.error();
  return std::unique_ptr<CniIsolator>(
      new CniIsolator(std::move(options), std::move(configs).value()));
}

CniIsolator::CniIsolator(CniOptions options, std::map<std::string, cni::NetworkConfig> configs)
    : options_(std::move(options)), configs_(std::move(configs)) {}

cni::PluginOptions CniIsolator::pluginOptions() const {
  cni::PluginOptions plugins;
  plugins.directories = strings::splitNonEmpty(options_.pluginsDir, ':');
  plugins.timeout = options_.pluginTimeout;
  plugins.hostNetns = options_.pluginNetns;
  return plugins;
}

Result<cni::NetworkConfig> CniIsolator::lookup(const std::string& name) {
  auto known = configs_.find(name);
  if (known != configs_.end()) {
    auto again = cni::readNetworkConfig(known->second.file);
    if (again && again->name == name) return again;
    configs_.erase(known);  // changed or gone: the directory is read again below
  }
  auto reloaded = cni::loadNetworkConfigs(options_.configDir);
  if (!reloaded) return Error{"cannot look up network '" + name + "': " + reloaded.error().message};
  configs_ = std::move(reloaded).value();
  known = configs_.find(name);
  if (known != configs_.end()) return known->second;
  std::string names;
  for (const auto& [configured, config] : configs_) {
    names += (names.empty() ? "" : ", ") + configured;
  }
  return Error{"the CNI network '" + name + "' is not configured in --network_cni_config_dir '" +
               options_.configDir + "' (configured: " + (names.empty() ? "none" : names) + ")"};
}

Result<void> CniIsolator::checkPlugins(const cni::NetworkConfig& config) const {
  const std::vector<std::string> directories = strings::splitNonEmpty(options_.pluginsDir, ':');
  for (const json::Value& plugin : config.plugins) {
    if (auto found = cni::findPlugin(directories, plugin["type"].string()); !found) {
      return Error{"CNI network '" + config.name + "' (" + config.file +
                   "): " + found.error().message};
    }
    const json::Value& ipam = plugin["ipam"]["type"];
    if (ipam.isString()) {
      if (auto found = cni::findPlugin(directories, ipam.string()); !found) {
        return Error{"CNI network '" + config.name + "' (" + config.file + "): its IPAM " +
                     found.error().message};
      }
    }
    if (!plugin["args"]["org.apache.mesos"].isNull()) {
      return Error{"CNI network '" + config.name + "' (" + config.file +
                   "): \"args\" must not hold \"org.apache.mesos\": Mesos passes the task's "
                   "NetworkInfo there"};
    }
  }
  return {};
}

Result<void> CniIsolator::recover(const std::map<std::string, pid_t>& known) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto ids = cni::listContainers(options_.rootDir);
  if (!ids) return ids.error();
  for (const std::string& id : ids.value()) {
    auto networks = cni::recoverNetworks(options_.rootDir, id);
    if (!networks) return Error{"container " + id + ": " + networks.error().message};
    if (known.count(id) > 0) {
      attached_[id] = std::move(networks).value();
      continue;
    }
    // Left by a container the slave does not keep: taken off its networks.
    LOG(INFO) << "Container " << id << " is not recovered: leaving its CNI networks";
    if (auto detached = cni::detach(pluginOptions(), networks.value()); !detached) {
      LOG(WARNING) << "Container " << id << ": cannot leave its CNI networks (tried again at the "
                   << "next start): " << detached.error().message;
    }
  }
  return {};
}

Result<mesos::isolation::LaunchRequirements> CniIsolator::prepare(
    const mesos::isolation::ContainerConfig& config) {
  const std::string& id = config.containerId.value();
  std::lock_guard<std::mutex> lock(mutex_);
  if (pending_.count(id) > 0 || attached_.count(id) > 0) {
    return Error{"container " + id + " is already prepared"};
  }
  if (!joinsCniNetworks(config.executor)) return mesos::isolation::LaunchRequirements{};
  const ContainerInfo& container = config.executor.container();
  if (container.type() != ContainerInfo::MESOS) {
    return Error{"CNI networks are for containers of type MESOS only"};
  }
  Pending pending;
  std::set<std::string> names;
  for (const NetworkInfo& info : container.network_infos()) {
    if (!info.has_name() || info.name().empty()) continue;  // the host's network: ignored
    if (!names.insert(info.name()).second) {
      return Error{"the CNI network '" + info.name() + "' is named twice"};
    }
    auto network = lookup(info.name());
    if (!network) return network.error();
    if (auto checked = checkPlugins(network.value()); !checked) return checked.error();
    pending.requests.push_back({std::move(network).value(), info});
  }
  pending.hostname =
      container.has_hostname() && !container.hostname().empty() ? container.hostname() : id;
  pending_[id] = std::move(pending);
  // The executor starts in network and UTS namespaces of its own (the
  // containerizer names the host after ContainerInfo.hostname, else the
  // container id, as prepare() did above) and sees the files isolate()
  // writes over its /etc. It listens on every address of its namespace and
  // advertises the address its hostname resolves to there (its first
  // network's), never the slave's.
  mesos::isolation::LaunchRequirements requirements;
  requirements.namespaces = {"net", "uts"};
  const std::string directory = options_.rootDir + "/" + id;
  for (const char* file : {"hosts", "hostname", "resolv.conf"}) {
    requirements.mounts.push_back({directory + "/" + file, std::string("/etc/") + file, false});
  }
  requirements.environment["LIBPROCESS_IP"] = "0.0.0.0";
  requirements.environment["LIBPROCESS_ADVERTISE_IP"] = "";
  return requirements;
}

Result<void> CniIsolator::isolate(const ContainerID& containerId, pid_t pid) {
  Pending pending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pending_.find(containerId.value());
    if (it == pending_.end()) return {};  // on the host's network
    pending = std::move(it->second);
    pending_.erase(it);
  }
  const ino_t own = networkNamespace("self");
  const ino_t its = networkNamespace(std::to_string(pid));
  if (its == 0) return Error{"cannot find the network namespace of process " + std::to_string(pid)};
  if (its == own) {
    return Error{"process " + std::to_string(pid) +
                 " is in the slave's network namespace: a container joining CNI networks needs "
                 "one of its own"};
  }
  // The plugins run without the lock: the other containers' calls go on.
  auto networks = cni::attach(pluginOptions(), options_.rootDir, containerId.value(), pid,
                              pending.requests, pending.hostname);
  if (!networks) return networks.error();
  std::lock_guard<std::mutex> lock(mutex_);
  attached_[containerId.value()] = std::move(networks).value();
  return {};
}

Result<void> CniIsolator::cleanup(const ContainerID& containerId) {
  cni::ContainerNetworks networks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.erase(containerId.value());
    auto it = attached_.find(containerId.value());
    if (it == attached_.end()) return {};
    networks = it->second;
  }
  // The plugins run without the lock, as in isolate(). Only the
  // containerizer's actor cleans up, so the entry stays as copied.
  if (auto detached = cni::detach(pluginOptions(), networks); !detached) {
    return detached;  // kept: a later cleanup (or the next start) tries again
  }
  std::lock_guard<std::mutex> lock(mutex_);
  attached_.erase(containerId.value());
  return {};
}

std::vector<NetworkInfo> CniIsolator::networkInfos(const ContainerID& containerId) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = attached_.find(containerId.value());
  if (it == attached_.end()) return {};
  return cni::networkInfos(it->second);
}

std::optional<ContainerStatus> CniIsolator::status(const ContainerID& containerId) {
  std::vector<NetworkInfo> infos = networkInfos(containerId);
  if (infos.empty()) return std::nullopt;
  ContainerStatus status;
  for (NetworkInfo& info : infos) *status.add_network_infos() = std::move(info);
  return status;
}

std::optional<std::string> CniIsolator::filesDirectory(const ContainerID& containerId) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = attached_.find(containerId.value());
  if (it == attached_.end()) return std::nullopt;
  return it->second.directory;
}

}  // namespace mesos::internal::isolation
