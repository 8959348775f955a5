#include "slave/containerizer/isolators/network/cni/config.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mesos::internal::cni {

namespace {

namespace fs = std::filesystem;

bool validName(const std::string& name) {
  if (name.empty() || std::isalnum(static_cast<unsigned char>(name[0])) == 0) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
  });
}

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isConfigFile(const std::string& file) {
  return endsWith(file, ".conf") || endsWith(file, ".conflist") || endsWith(file, ".json");
}

// A plugin's configuration: an object with a non-empty string "type".
Result<void> checkPlugin(const json::Value& plugin, const std::string& what) {
  if (!plugin.isObject()) return Error{what + " is not a JSON object"};
  const json::Value& type = plugin["type"];
  if (!type.isString() || type.string().empty()) {
    return Error{what + " has no \"type\" (the plugin to run)"};
  }
  if (type.string().find('/') != std::string::npos) {
    return Error{what + " has a \"type\" with a '/' ('" + type.string() +
                 "'): a plugin is named, and found in --network_cni_plugins_dir"};
  }
  return {};
}

}  // namespace

Result<NetworkConfig> parseNetworkConfig(const std::string& text, const std::string& file) {
  const std::string where = "CNI network configuration '" + file + "': ";
  auto parsed = json::parse(text);
  if (!parsed) return Error{where + "not JSON: " + parsed.error().message};
  const json::Value& root = parsed.value();
  if (!root.isObject()) return Error{where + "not a JSON object"};

  NetworkConfig config;
  config.file = file;
  config.json = root;
  const json::Value& name = root["name"];
  if (!name.isString() || name.string().empty()) {
    return Error{where + "has no \"name\" (the network's name, which NetworkInfo.name asks for)"};
  }
  if (!validName(name.string())) {
    return Error{where + "the name '" + name.string() +
                 "' is not a CNI network name (a letter or digit, then letters, digits, "
                 "'_', '.' or '-')"};
  }
  config.name = name.string();
  const json::Value& version = root["cniVersion"];
  if (!version.isNull() && !version.isString()) {
    return Error{where + "\"cniVersion\" is not a string"};
  }
  if (version.isString()) config.cniVersion = version.string();

  const json::Value& plugins = root["plugins"];
  if (!plugins.isNull() || endsWith(file, ".conflist")) {
    if (!plugins.isArray() || plugins.array().empty()) {
      return Error{where + "a configuration list needs a non-empty \"plugins\" array"};
    }
    config.isList = true;
    for (size_t i = 0; i < plugins.array().size(); i++) {
      const json::Value& plugin = plugins.array().at(i);
      if (auto checked = checkPlugin(plugin, "plugin " + std::to_string(i)); !checked) {
        return Error{where + checked.error().message};
      }
      config.plugins.push_back(plugin);
    }
    return config;
  }
  if (auto checked = checkPlugin(root, "the configuration"); !checked) {
    return Error{where + checked.error().message};
  }
  config.plugins.push_back(root);
  return config;
}

Result<NetworkConfig> readNetworkConfig(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{"CNI network configuration '" + file + "': cannot be read"};
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{"CNI network configuration '" + file + "': cannot be read"};
  return parseNetworkConfig(text.str(), file);
}

Result<std::map<std::string, NetworkConfig>> loadNetworkConfigs(const std::string& directory) {
  std::error_code error;
  fs::directory_iterator entries(directory, error);
  if (error) {
    return Error{"--network_cni_config_dir: cannot list '" + directory + "': " + error.message()};
  }
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : entries) {
    std::error_code ignored;
    if (entry.is_directory(ignored)) continue;
    if (isConfigFile(entry.path().filename().string())) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());  // the first file of a name is named in the error

  std::map<std::string, NetworkConfig> configs;
  for (const std::string& file : files) {
    auto config = readNetworkConfig(file);
    if (!config) return config.error();
    auto [it, added] = configs.emplace(config->name, config.value());
    if (!added) {
      return Error{"CNI network configuration '" + file + "': the network '" + config->name +
                   "' is also configured by '" + it->second.file +
                   "' (a network has one configuration)"};
    }
  }
  return configs;
}

}  // namespace mesos::internal::cni
