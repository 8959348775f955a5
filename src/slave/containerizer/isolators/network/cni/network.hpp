// A container's CNI networks: its network namespace kept as a file, the
// networks it joined (ADD), the files its /etc/hosts, /etc/resolv.conf and
// /etc/hostname are made from, and the checkpoints that let a later run of
// the slave take it all down again (DEL). docs/cni.md.
//
// Everything of container ID lives in one directory, <root>/<ID>/:
//   ns            a bind mount of the container's network namespace
//   hostname, hosts, resolv.conf
//   <ifname>/     one per network joined: eth0, eth1, ... in the order asked
//     network_info  the NetworkInfo asked for (JSON)
//     config.json   the network's configuration ADD ran with
//     result.json   ADD's result; missing: ADD did not finish
// Checkpoints are written before the plugins run (a crash during ADD still
// gets its DEL) and replaced atomically.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/json.hpp"
#include "mesos.pb.h"
#include "mesos/result.hpp"
#include "slave/containerizer/isolators/network/cni/config.hpp"
#include "slave/containerizer/isolators/network/cni/plugin.hpp"

namespace mesos::internal::cni {

// A network a container asks to join.
struct NetworkRequest {
  NetworkConfig config;
  NetworkInfo info;  // as the framework gave it: name, labels, port mappings
};

// A network a container joined, or was joining.
struct Attachment {
  std::string ifname;
  NetworkConfig config;  // what ADD ran with, and DEL runs with
  NetworkInfo info;
  json::Value result;  // ADD's result; null: ADD did not finish
};

struct ContainerNetworks {
  std::string containerId;
  std::string directory;                // <root>/<containerId>
  std::vector<Attachment> attachments;  // in the order joined
};

// Joins container `containerId`, whose process `pid` is in its own network
// namespace, to `requests` in order (interfaces eth0, eth1, ...), keeping
// the namespace at <root>/<containerId>/ns, and writes its hostname, hosts
// and resolv.conf (the plugins' DNS, else a copy of this host's). On failure
// everything done is undone (DEL for what was added, the mount, the
// directory) and the error names the network and the plugin's reason.
// Blocks while the plugins run (each bounded by options.timeout).
Result<ContainerNetworks> attach(const PluginOptions& options, const std::string& root,
                                 const std::string& containerId, pid_t pid,
                                 const std::vector<NetworkRequest>& requests,
                                 const std::string& hostname);

// Runs DEL for every attachment in reverse order (each with the result of
// its ADD), then unmounts the namespace file and removes the directory.
// Goes on past a failing DEL, but then keeps the directory (and the
// namespace) so that a later call can try again, and fails naming every
// failure. Nothing to do when the directory is gone.
Result<void> detach(const PluginOptions& options, const ContainerNetworks& networks);

// What attach() checkpointed of `containerId` under `root`. Fails naming
// the file that cannot be read.
Result<ContainerNetworks> recoverNetworks(const std::string& root, const std::string& containerId);

// The IDs of the containers with a directory under `root` (none when `root`
// does not exist).
Result<std::vector<std::string>> listContainers(const std::string& root);

// Each joined network as the framework asked for it, with the addresses
// its plugins gave (ip_addresses, the prefix length left out).
std::vector<NetworkInfo> networkInfos(const ContainerNetworks& networks);

// What the runtime adds to the plugins' configurations for `info`: its
// port mappings, and the NetworkInfo itself as args "org.apache.mesos"
// {"network_info": ...} as Apache Mesos passes it.
RuntimeConfig runtimeConfigFor(const NetworkInfo& info);

// Whether `path` is a mounted network namespace file (the bind mount of ns).
bool isNamespaceMount(const std::string& path);

}  // namespace mesos::internal::cni
