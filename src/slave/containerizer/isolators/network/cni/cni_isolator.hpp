// network/cni: joins a container to the CNI networks its executor's
// ContainerInfo names (NetworkInfo.name), through the plugins of
// --network_cni_plugins_dir as --network_cni_config_dir configures them,
// and takes it off them again when it ends, also after a slave restart.
// A container that names no network stays in the host's network and this
// isolator does nothing for it. docs/cni.md.
//
// The executor of a container that joins networks is started in network
// and UTS namespaces of its own (prepare() asks for them, with the files
// over its /etc); isolate() refuses one that shares the slave's. The plugins run from isolate() and
// cleanup(): those calls block while they run, each plugin at most
// CniOptions::pluginTimeout.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mesos/isolator.hpp"
#include "slave/containerizer/isolators/network/cni/config.hpp"
#include "slave/containerizer/isolators/network/cni/network.hpp"
#include "slave/containerizer/isolators/network/cni/plugin.hpp"

namespace mesos::internal::isolation {

// Where each container's state is kept (as Apache Mesos keeps it).
inline constexpr char kDefaultCniRootDir[] = "/run/mesos/isolators/network/cni";

struct CniOptions {
  std::string configDir;   // --network_cni_config_dir
  std::string pluginsDir;  // --network_cni_plugins_dir: directories, ':' between
  // <rootDir>/<container id>/ holds each container's namespace, files and
  // checkpoints (cni/network.hpp).
  std::string rootDir = kDefaultCniRootDir;
  // When set, a network namespace file the plugins run in instead of the
  // slave's (cni::PluginOptions::hostNetns). No slave flag sets it: tests.
  std::string pluginNetns;
  std::chrono::milliseconds pluginTimeout{60000};
};

// Whether a container of `executor` joins CNI networks (it names one).
bool joinsCniNetworks(const ExecutorInfo& executor);

class CniIsolator : public mesos::isolation::Isolator {
 public:
  // Loads the network configurations. Fails with one line naming the flag
  // that is missing, or the configuration file that is wrong.
  static Result<std::unique_ptr<CniIsolator>> create(CniOptions options);

  std::string name() const override { return "network/cni"; }
  // Its isolate() and cleanup() run the plugins without its lock (mutex_):
  // a slow ADD or DEL holds up no other container.
  bool concurrent() const override { return true; }
  Result<void> recover(const std::map<std::string, pid_t>& known) override;
  Result<mesos::isolation::LaunchRequirements> prepare(
      const mesos::isolation::ContainerConfig& config) override;
  Result<void> isolate(const ContainerID& containerId, pid_t pid) override;
  Result<void> update(const ContainerID&, const Resources&) override { return {}; }
  Result<void> usage(const ContainerID&, ResourceStatistics*) override { return {}; }
  Result<void> kill(const ContainerID&) override { return {}; }
  Result<void> cleanup(const ContainerID& containerId) override;
  // The networks it joined, with their addresses (networkInfos()).
  std::optional<ContainerStatus> status(const ContainerID& containerId) override;

  // The networks the container joined, with their addresses: for
  // ContainerStatus.network_infos. Empty for a container on the host's
  // network, or not known.
  std::vector<NetworkInfo> networkInfos(const ContainerID& containerId) const;

  // The directory holding the container's hostname, hosts and resolv.conf
  // files (to be bind-mounted over its /etc/hostname, /etc/hosts and
  // /etc/resolv.conf); nullopt when it joined no network.
  std::optional<std::string> filesDirectory(const ContainerID& containerId) const;

 private:
  explicit CniIsolator(CniOptions options, std::map<std::string, cni::NetworkConfig> configs);

  cni::PluginOptions pluginOptions() const;
  // The configuration of network `name`, read again from its file (which
  // may have changed); the directory is read again when the name is not
  // known. Fails naming the network, or the file that is wrong. REQUIRES:
  // mutex_ held.
  Result<cni::NetworkConfig> lookup(const std::string& name);
  Result<void> checkPlugins(const cni::NetworkConfig& config) const;

  struct Pending {
    std::vector<cni::NetworkRequest> requests;
    std::string hostname;
  };

  const CniOptions options_;
  mutable std::mutex mutex_;  // guards the three maps below
  std::map<std::string, cni::NetworkConfig> configs_;
  std::map<std::string, Pending> pending_;                  // prepared, not isolated
  std::map<std::string, cni::ContainerNetworks> attached_;  // by container id
};

}  // namespace mesos::internal::isolation
