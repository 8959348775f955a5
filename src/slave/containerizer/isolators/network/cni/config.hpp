// CNI network configurations: the files of --network_cni_config_dir, one
// network each, as the CNI specification defines them (a single plugin's
// configuration, or a list of plugins run in turn). docs/cni.md.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::cni {

// One network: what a file of the configuration directory says.
struct NetworkConfig {
  std::string name;        // its "name": what NetworkInfo.name asks for
  std::string file;        // the file it was read from
  std::string cniVersion;  // its "cniVersion" ("" when the file has none)
  // The plugins' configurations, in the order ADD runs them: the file's
  // "plugins" for a list, else the file itself. Each has a string "type".
  std::vector<json::Value> plugins;
  bool isList = false;  // the file was a configuration list
  json::Value json;     // the whole file, as parsed
};

// Parses the text of a configuration `file` (named in errors). A list is an
// object with a "plugins" array (required in a *.conflist file) of objects
// each with a "type"; otherwise the object needs a "type". Either needs a
// "name" as the specification allows (a letter or digit, then letters,
// digits, '_', '.', '-'). Fails with one line naming the file and what is
// wrong with it.
Result<NetworkConfig> parseNetworkConfig(const std::string& text, const std::string& file);

// Reads and parses `file`. Fails naming the file when it cannot be read.
Result<NetworkConfig> readNetworkConfig(const std::string& file);

// Every *.conf, *.conflist and *.json file of `directory` (other files and
// directories are left alone), by network name. Fails naming the file on
// the first that is not a network configuration, or whose name another file
// of the directory already took (naming both files), and when the directory
// cannot be read.
Result<std::map<std::string, NetworkConfig>> loadNetworkConfigs(const std::string& directory);

}  // namespace mesos::internal::cni
