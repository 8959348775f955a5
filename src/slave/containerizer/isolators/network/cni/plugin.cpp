// What goes to each plugin of a network and in which order; what comes back.
// Starting a plugin is plugin_process.cpp.
#include "slave/containerizer/isolators/network/cni/plugin.hpp"

#include <cstdio>

namespace mesos::internal::cni {

namespace {

// "0.4.0" -> 400; "" (a configuration from before versions) -> 100.
int versionNumber(const std::string& version) {
  if (version.empty()) return 100;
  int major = 0, minor = 0, patch = 0;
  std::sscanf(version.c_str(), "%d.%d.%d", &major, &minor, &patch);
  return major * 10000 + minor * 100 + patch;
}

// The version the network's plugins are run with.
std::string versionOf(const NetworkConfig& network, const json::Value& plugin) {
  if (!network.cniVersion.empty()) return network.cniVersion;
  const json::Value& own = plugin["cniVersion"];
  return own.isString() ? own.string() : "";
}

Result<std::vector<std::string>> strings(const json::Value& value, const std::string& what) {
  std::vector<std::string> items;
  if (value.isNull()) return items;
  if (!value.isArray()) return Error{what + " is not an array"};
  for (const json::Value& item : value.array()) {
    if (!item.isString()) return Error{what + " holds a value that is not a string"};
    items.push_back(item.string());
  }
  return items;
}

std::string stringOr(const json::Value& value) { return value.isString() ? value.string() : ""; }

// 0.1.0 / 0.2.0 results: "ip4": {"ip": CIDR, "gateway": ...}, "ip6" likewise.
void addLegacyIp(const json::Value& ip, bool ipv6, NetworkResult* result) {
  if (!ip.isObject() || !ip["ip"].isString()) return;
  NetworkResult::Ip entry;
  entry.address = ip["ip"].string();
  entry.gateway = stringOr(ip["gateway"]);
  entry.ipv6 = ipv6;
  result->ips.push_back(entry);
}

}  // namespace

const char* commandName(Command command) {
  switch (command) {
    case Command::kAdd:
      return "ADD";
    case Command::kDel:
      return "DEL";
    case Command::kCheck:
      return "CHECK";
  }
  return "?";
}

Result<NetworkResult> parseResult(const json::Value& value) {
  if (!value.isObject()) return Error{"the CNI result is not a JSON object"};
  NetworkResult result;
  const json::Value& interfaces = value["interfaces"];
  if (!interfaces.isNull() && !interfaces.isArray()) {
    return Error{"the CNI result's \"interfaces\" is not an array"};
  }
  if (interfaces.isArray()) {
    for (const json::Value& entry : interfaces.array()) {
      if (!entry.isObject()) return Error{"the CNI result has an interface that is not an object"};
      result.interfaces.push_back(
          {stringOr(entry["name"]), stringOr(entry["mac"]), stringOr(entry["sandbox"])});
    }
  }
  const json::Value& ips = value["ips"];
  if (!ips.isNull() && !ips.isArray()) return Error{"the CNI result's \"ips\" is not an array"};
  if (ips.isArray()) {
    for (const json::Value& entry : ips.array()) {
      if (!entry.isObject() || !entry["address"].isString()) {
        return Error{"the CNI result has an IP without an \"address\""};
      }
      NetworkResult::Ip ip;
      ip.address = entry["address"].string();
      ip.gateway = stringOr(entry["gateway"]);
      ip.ipv6 = ip.address.find(':') != std::string::npos;
      const json::Value& index = entry["interface"];
      if (index.isNumber()) ip.interface = static_cast<int>(index.integer());
      result.ips.push_back(ip);
    }
  }
  addLegacyIp(value["ip4"], false, &result);
  addLegacyIp(value["ip6"], true, &result);

  const json::Value& dns = value["dns"];
  if (!dns.isNull() && !dns.isObject()) return Error{"the CNI result's \"dns\" is not an object"};
  if (dns.isObject()) {
    auto nameservers = strings(dns["nameservers"], "the CNI result's dns.nameservers");
    if (!nameservers) return nameservers.error();
    auto search = strings(dns["search"], "the CNI result's dns.search");
    if (!search) return search.error();
    auto options = strings(dns["options"], "the CNI result's dns.options");
    if (!options) return options.error();
    result.dns.nameservers = std::move(nameservers).value();
    result.dns.search = std::move(search).value();
    result.dns.options = std::move(options).value();
    result.dns.domain = stringOr(dns["domain"]);
  }
  return result;
}

json::Value pluginInput(const NetworkConfig& network, const json::Value& plugin,
                        const RuntimeConfig& runtime, const json::Value& prevResult) {
  json::Object input = plugin.object();
  input["name"] = network.name;
  const std::string version = versionOf(network, plugin);
  if (!version.empty()) input["cniVersion"] = version;

  if (!runtime.args.empty()) {
    json::Object args = input["args"].isObject() ? input["args"].object() : json::Object();
    for (const auto& [key, value] : runtime.args) args[key] = value;
    input["args"] = std::move(args);
  }
  const json::Value& capabilities = plugin["capabilities"];
  if (!runtime.portMappings.empty() && capabilities["portMappings"].isBool() &&
      capabilities["portMappings"].boolean()) {
    json::Array mappings;
    for (const PortMapping& mapping : runtime.portMappings) {
      mappings.push_back(json::Object{{"hostPort", mapping.hostPort},
                                      {"containerPort", mapping.containerPort},
                                      {"protocol", mapping.protocol}});
    }
    json::Object config =
        input["runtimeConfig"].isObject() ? input["runtimeConfig"].object() : json::Object();
    config["portMappings"] = std::move(mappings);
    input["runtimeConfig"] = std::move(config);
  }
  if (!prevResult.isNull()) input["prevResult"] = prevResult;
  return input;
}

Result<json::Value> addNetwork(const PluginOptions& options, const NetworkConfig& network,
                               const Invocation& invocation, const RuntimeConfig& runtime) {
  json::Value previous;
  for (const json::Value& plugin : network.plugins) {
    auto output = runPlugin(options, Command::kAdd, invocation,
                            pluginInput(network, plugin, runtime, previous));
    if (!output) return output.error();
    auto parsed = json::parse(output.value());
    if (!parsed || !parsed->isObject()) {
      return Error{"CNI plugin '" + plugin["type"].string() +
                   "' (ADD) printed no JSON result: " + output.value()};
    }
    if (auto checked = parseResult(parsed.value()); !checked) {
      return Error{"CNI plugin '" + plugin["type"].string() +
                   "' (ADD): " + checked.error().message};
    }
    previous = std::move(parsed).value();
  }
  return previous;
}

Result<void> delNetwork(const PluginOptions& options, const NetworkConfig& network,
                        const Invocation& invocation, const RuntimeConfig& runtime,
                        const json::Value& added) {
  std::string failures;
  for (auto it = network.plugins.rbegin(); it != network.plugins.rend(); ++it) {
    const bool withResult = versionNumber(versionOf(network, *it)) >= 400;
    auto output = runPlugin(options, Command::kDel, invocation,
                            pluginInput(network, *it, runtime, withResult ? added : json::Value()));
    if (!output) failures += (failures.empty() ? "" : "; ") + output.error().message;
  }
  if (!failures.empty()) return Error{failures};
  return {};
}

Result<void> checkNetwork(const PluginOptions& options, const NetworkConfig& network,
                          const Invocation& invocation, const RuntimeConfig& runtime,
                          const json::Value& added) {
  if (network.json["disableCheck"].isBool() && network.json["disableCheck"].boolean()) return {};
  for (const json::Value& plugin : network.plugins) {
    if (versionNumber(versionOf(network, plugin)) < 400) {
      return Error{"CNI network '" + network.name + "': CHECK needs cniVersion 0.4.0 or later"};
    }
    auto output = runPlugin(options, Command::kCheck, invocation,
                            pluginInput(network, plugin, runtime, added));
    if (!output) return output.error();
  }
  return {};
}

}  // namespace mesos::internal::cni
