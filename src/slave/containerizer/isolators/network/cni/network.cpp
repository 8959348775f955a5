#include "slave/containerizer/isolators/network/cni/network.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <glog/logging.h>

#include "common/protobuf_json.hpp"

namespace mesos::internal::cni {

namespace {

namespace fs = std::filesystem;

constexpr long kNsfsMagic = 0x6e736673;  // statfs f_type of /proc/<pid>/ns/* files

std::string errnoText(int error) { return std::strerror(error); }

Result<std::string> readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot read '" + path + "'", ENOENT};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Replaces `path` with `content`: a temporary file beside it, synced, then
// renamed over it, so that a crash leaves the old content or the new.
Result<void> writeAtomically(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{"cannot write '" + temporary + "': " + errnoText(errno)};
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      return Error{"cannot write '" + temporary + "': " + errnoText(error)};
    }
    written += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  if (!synced) return Error{"cannot sync '" + temporary + "': " + errnoText(error)};
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    return Error{"cannot rename '" + temporary + "' to '" + path + "': " + errnoText(errno)};
  }
  return {};
}

std::string withoutPrefixLength(const std::string& cidr) { return cidr.substr(0, cidr.find('/')); }

// Bind-mounts the network namespace of `pid` onto `target` (made empty).
Result<void> mountNamespace(pid_t pid, const std::string& target) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
  if (fd < 0) return Error{"cannot make '" + target + "': " + errnoText(errno)};
  ::close(fd);
  const std::string source = "/proc/" + std::to_string(pid) + "/ns/net";
  if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    return Error{"cannot bind-mount '" + source + "' onto '" + target + "': " + errnoText(errno)};
  }
  return {};
}

Result<void> unmountNamespace(const std::string& target) {
  if (isNamespaceMount(target) && ::umount2(target.c_str(), MNT_DETACH) != 0) {
    return Error{"cannot unmount '" + target + "': " + errnoText(errno)};
  }
  return {};
}

// The hosts file: localhost, and the container's hostname at its first
// address (an IPv4 one when it has one).
std::string hostsFile(const ContainerNetworks& networks, const std::string& hostname) {
  std::string first;
  for (const Attachment& attachment : networks.attachments) {
    auto result = parseResult(attachment.result);
    if (!result) continue;
    for (const NetworkResult::Ip& ip : result->ips) {
      if (first.empty() || (!ip.ipv6 && first.find(':') != std::string::npos)) {
        first = withoutPrefixLength(ip.address);
      }
    }
  }
  std::string hosts = "127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n";
  if (!first.empty()) hosts += first + " " + hostname + "\n";
  return hosts;
}

// resolv.conf from the plugins' DNS (every network's, in order; the last
// domain given wins), or this host's when none gave a nameserver.
std::string resolvConf(const ContainerNetworks& networks) {
  std::vector<std::string> nameservers, search, options;
  std::string domain;
  auto addAll = [](std::vector<std::string>* to, const std::vector<std::string>& from) {
    for (const std::string& item : from) {
      if (std::find(to->begin(), to->end(), item) == to->end()) to->push_back(item);
    }
  };
  for (const Attachment& attachment : networks.attachments) {
    auto result = parseResult(attachment.result);
    if (!result) continue;
    addAll(&nameservers, result->dns.nameservers);
    addAll(&search, result->dns.search);
    addAll(&options, result->dns.options);
    if (!result->dns.domain.empty()) domain = result->dns.domain;
  }
  if (nameservers.empty()) {
    auto host = readText("/etc/resolv.conf");
    return host ? host.value() : "";
  }
  std::string text;
  if (!domain.empty()) text += "domain " + domain + "\n";
  if (!search.empty()) {
    text += "search";
    for (const std::string& item : search) text += " " + item;
    text += "\n";
  }
  for (const std::string& server : nameservers) text += "nameserver " + server + "\n";
  if (!options.empty()) {
    text += "options";
    for (const std::string& item : options) text += " " + item;
    text += "\n";
  }
  return text;
}

Invocation invocationFor(const ContainerNetworks& networks, const Attachment& attachment) {
  Invocation invocation;
  invocation.containerId = networks.containerId;
  const std::string ns = networks.directory + "/ns";
  // A namespace that is gone (the machine rebooted) is not named: plugins
  // then release what they can without it.
  invocation.netns = isNamespaceMount(ns) ? ns : "";
  invocation.ifname = attachment.ifname;
  return invocation;
}

// Checkpoints what DEL of `attachment` needs, before ADD runs.
Result<void> checkpointRequest(const std::string& directory, const Attachment& attachment) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) return Error{"cannot make '" + directory + "': " + error.message()};
  if (auto written = writeAtomically(directory + "/network_info", toJson(attachment.info));
      !written) {
    return written;
  }
  return writeAtomically(directory + "/config.json", json::stringify(attachment.config.json));
}

}  // namespace

bool isNamespaceMount(const std::string& path) {
  struct statfs status {};
  return ::statfs(path.c_str(), &status) == 0 && static_cast<long>(status.f_type) == kNsfsMagic;
}

RuntimeConfig runtimeConfigFor(const NetworkInfo& info) {
  RuntimeConfig runtime;
  for (const NetworkInfo::PortMapping& mapping : info.port_mappings()) {
    PortMapping port;
    port.hostPort = mapping.host_port();
    port.containerPort = mapping.container_port();
    if (mapping.has_protocol() && !mapping.protocol().empty()) port.protocol = mapping.protocol();
    std::transform(port.protocol.begin(), port.protocol.end(), port.protocol.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    runtime.portMappings.push_back(port);
  }
  auto infoJson = json::parse(toJson(info));
  runtime.args["org.apache.mesos"] =
      json::Object{{"network_info", infoJson ? infoJson.value() : json::Value()}};
  return runtime;
}

Result<ContainerNetworks> attach(const PluginOptions& options, const std::string& root,
                                 const std::string& containerId, pid_t pid,
                                 const std::vector<NetworkRequest>& requests,
                                 const std::string& hostname) {
  ContainerNetworks networks;
  networks.containerId = containerId;
  networks.directory = root + "/" + containerId;
  std::error_code error;
  fs::create_directories(networks.directory, error);
  if (error) return Error{"cannot make '" + networks.directory + "': " + error.message()};

  // What fails from here on is undone before the error is returned.
  auto undo = [&](const std::string& message) -> Error {
    if (auto detached = detach(options, networks); !detached) {
      LOG(WARNING) << "Container " << containerId
                   << ": cannot undo its CNI networks: " << detached.error().message;
    }
    return Error{message};
  };
  if (auto mounted = mountNamespace(pid, networks.directory + "/ns"); !mounted) {
    return undo(mounted.error().message);
  }

  for (size_t i = 0; i < requests.size(); i++) {
    Attachment attachment;
    attachment.ifname = "eth" + std::to_string(i);
    attachment.config = requests[i].config;
    attachment.info = requests[i].info;
    const std::string directory = networks.directory + "/" + attachment.ifname;
    if (auto checkpointed = checkpointRequest(directory, attachment); !checkpointed) {
      return undo(checkpointed.error().message);
    }
    networks.attachments.push_back(attachment);
    auto added = addNetwork(options, attachment.config, invocationFor(networks, attachment),
                            runtimeConfigFor(attachment.info));
    if (!added) {
      return undo("CNI network '" + attachment.config.name + "': " + added.error().message);
    }
    networks.attachments.back().result = added.value();
    if (auto written = writeAtomically(directory + "/result.json", json::stringify(added.value()));
        !written) {
      return undo(written.error().message);
    }
    LOG(INFO) << "Container " << containerId << " joined CNI network '" << attachment.config.name
              << "' as " << attachment.ifname;
  }

  const std::vector<std::pair<std::string, std::string>> files = {
      {"hostname", hostname + "\n"},
      {"hosts", hostsFile(networks, hostname)},
      {"resolv.conf", resolvConf(networks)},
  };
  for (const auto& [name, content] : files) {
    if (auto written = writeAtomically(networks.directory + "/" + name, content); !written) {
      return undo(written.error().message);
    }
  }
  return networks;
}

Result<void> detach(const PluginOptions& options, const ContainerNetworks& networks) {
  std::error_code error;
  if (!fs::exists(networks.directory, error)) return {};
  std::string failures;
  for (auto it = networks.attachments.rbegin(); it != networks.attachments.rend(); ++it) {
    auto deleted = delNetwork(options, it->config, invocationFor(networks, *it),
                              runtimeConfigFor(it->info), it->result);
    if (!deleted) {
      failures += (failures.empty() ? "" : "; ") + ("CNI network '" + it->config.name + "': ") +
                  deleted.error().message;
      continue;
    }
    fs::remove_all(networks.directory + "/" + it->ifname, error);
  }
  if (!failures.empty()) return Error{failures};
  if (auto unmounted = unmountNamespace(networks.directory + "/ns"); !unmounted) return unmounted;
  fs::remove_all(networks.directory, error);
  if (error) return Error{"cannot remove '" + networks.directory + "': " + error.message()};
  return {};
}

Result<ContainerNetworks> recoverNetworks(const std::string& root, const std::string& containerId) {
  ContainerNetworks networks;
  networks.containerId = containerId;
  networks.directory = root + "/" + containerId;
  std::error_code error;
  std::vector<std::string> ifnames;
  for (const fs::directory_entry& entry : fs::directory_iterator(networks.directory, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.rfind("eth", 0) == 0) ifnames.push_back(name);
  }
  if (error) return Error{"cannot list '" + networks.directory + "': " + error.message()};
  // eth2 before eth10: the order they were joined in.
  std::sort(ifnames.begin(), ifnames.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });

  for (const std::string& ifname : ifnames) {
    const std::string directory = networks.directory + "/" + ifname;
    auto configText = readText(directory + "/config.json");
    if (!configText) {
      // A crash before the request was checkpointed: nothing ran for it.
      fs::remove_all(directory, error);
      continue;
    }
    Attachment attachment;
    attachment.ifname = ifname;
    auto config = parseNetworkConfig(configText.value(), directory + "/config.json");
    if (!config) return config.error();
    attachment.config = std::move(config).value();
    auto info = readText(directory + "/network_info");
    if (!info) return info.error();
    if (auto parsed = fromJson(info.value(), &attachment.info); !parsed) {
      return Error{"'" + directory + "/network_info': " + parsed.error().message};
    }
    if (auto result = readText(directory + "/result.json")) {
      auto parsed = json::parse(result.value());
      if (!parsed) {
        return Error{"'" + directory + "/result.json': " + parsed.error().message};
      }
      attachment.result = std::move(parsed).value();
    }
    networks.attachments.push_back(std::move(attachment));
  }
  return networks;
}

Result<std::vector<std::string>> listContainers(const std::string& root) {
  std::vector<std::string> ids;
  std::error_code error;
  if (!fs::exists(root, error)) return ids;
  for (const fs::directory_entry& entry : fs::directory_iterator(root, error)) {
    if (entry.is_directory()) ids.push_back(entry.path().filename().string());
  }
  if (error) return Error{"cannot list '" + root + "': " + error.message()};
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<NetworkInfo> networkInfos(const ContainerNetworks& networks) {
  std::vector<NetworkInfo> infos;
  for (const Attachment& attachment : networks.attachments) {
    NetworkInfo info = attachment.info;
    info.clear_ip_addresses();
    if (auto result = parseResult(attachment.result)) {
      for (const NetworkResult::Ip& ip : result->ips) {
        NetworkInfo::IPAddress* address = info.add_ip_addresses();
        address->set_protocol(ip.ipv6 ? NetworkInfo::IPv6 : NetworkInfo::IPv4);
        address->set_ip_address(withoutPrefixLength(ip.address));
      }
    }
    infos.push_back(std::move(info));
  }
  return infos;
}

}  // namespace mesos::internal::cni
