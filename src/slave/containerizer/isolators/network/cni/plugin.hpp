// Running CNI plugins as the CNI specification asks of a runtime: the
// command and the container in environment variables, the network's
// configuration on stdin, the result (or a CNI error) on stdout; a list's
// plugins in turn, each given the result of the one before (`prevResult`),
// in reverse order for DEL. docs/cni.md.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "mesos/result.hpp"
#include "slave/containerizer/isolators/network/cni/config.hpp"

namespace mesos::internal::cni {

struct PluginOptions {
  // Where plugins are looked for, in order (--network_cni_plugins_dir, a
  // colon-separated list); also the plugins' CNI_PATH.
  std::vector<std::string> directories;
  // A plugin still running after this long is killed (with what it started
  // in its process group) and the call fails.
  std::chrono::milliseconds timeout{60000};
  // When set, a network namespace file (e.g. /run/netns/NAME) the plugins
  // run in instead of the caller's: the host end of what they make (a
  // bridge, iptables rules) is made there. Tests use it to keep everything
  // inside namespaces they made.
  std::string hostNetns;
};

enum class Command { kAdd, kDel, kCheck };

const char* commandName(Command command);  // "ADD", "DEL", "CHECK"

// The container a plugin works on: CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME,
// CNI_ARGS ("KEY=VALUE;KEY=VALUE", may be empty).
struct Invocation {
  std::string containerId;
  std::string netns;  // the container's network namespace file ("": gone, DEL only)
  std::string ifname;
  std::string args;
};

// A host port forwarded to the container (CNI's portMappings capability).
struct PortMapping {
  uint32_t hostPort = 0;
  uint32_t containerPort = 0;
  std::string protocol = "tcp";
};

// What the runtime adds to every plugin's configuration.
struct RuntimeConfig {
  // Given as runtimeConfig.portMappings to the plugins whose configuration
  // declares "capabilities": {"portMappings": true}.
  std::vector<PortMapping> portMappings;
  // Members added to the configuration's "args" (which must not have them).
  json::Object args;
};

// What a plugin's result says (CNI 0.3.0 and later; 0.1.0/0.2.0's "ip4" and
// "ip6" are read too).
struct NetworkResult {
  struct Interface {
    std::string name;
    std::string mac;
    std::string sandbox;  // set for the container's interfaces
  };
  struct Ip {
    std::string address;  // CIDR: "10.1.0.5/24"
    std::string gateway;
    bool ipv6 = false;
    int interface = -1;  // index into interfaces, -1: not said
  };
  struct Dns {
    std::vector<std::string> nameservers;
    std::string domain;
    std::vector<std::string> search;
    std::vector<std::string> options;
  };
  std::vector<Interface> interfaces;
  std::vector<Ip> ips;
  Dns dns;
};

// Reads a result. Fails naming what is malformed.
Result<NetworkResult> parseResult(const json::Value& result);

// The first executable file named `type` in `directories`. Fails naming the
// plugin and the directories searched.
Result<std::string> findPlugin(const std::vector<std::string>& directories,
                               const std::string& type);

// The JSON a plugin of `network` is given on stdin: `plugin`
// (one of network.plugins) with the list's name and cniVersion, the
// runtime's args and port mappings, and `prevResult` when not null.
json::Value pluginInput(const NetworkConfig& network, const json::Value& plugin,
                        const RuntimeConfig& runtime, const json::Value& prevResult);

// Runs the plugin named by `input`'s "type" once and waits for it (at most
// options.timeout). Returns what it printed on stdout when it exits 0 (the
// result of an ADD, often nothing for DEL). Fails with one line naming the
// plugin and the command: its CNI error ("code N: msg; details") when it
// printed one, else its exit status and stderr; or that it was killed
// after the timeout; or why it could not be started.
Result<std::string> runPlugin(const PluginOptions& options, Command command,
                              const Invocation& invocation, const json::Value& input);

// ADD: runs the network's plugins in order, each after the first given the
// result of the one before; returns the last result. On failure the plugins
// are not undone (the caller runs delNetwork(), as the specification asks).
Result<json::Value> addNetwork(const PluginOptions& options, const NetworkConfig& network,
                               const Invocation& invocation, const RuntimeConfig& runtime);

// DEL: runs the network's plugins in reverse order, with `added` (the
// result ADD returned, null when unknown) as prevResult for CNI 0.4.0 and
// later. Goes on past a failing plugin, and fails naming every failure.
Result<void> delNetwork(const PluginOptions& options, const NetworkConfig& network,
                        const Invocation& invocation, const RuntimeConfig& runtime,
                        const json::Value& added);

// CHECK (CNI 0.4.0 and later; refused before): runs the plugins in order
// with `added` as prevResult. A list with "disableCheck": true passes.
Result<void> checkNetwork(const PluginOptions& options, const NetworkConfig& network,
                          const Invocation& invocation, const RuntimeConfig& runtime,
                          const json::Value& added);

}  // namespace mesos::internal::cni
