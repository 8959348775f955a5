#include "sched/master_address.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <charconv>
#include <cctype>

namespace mesos::internal {

namespace {

Error bad(const std::string& text, const std::string& why) {
  return Error{"bad master address '" + text + "': " + why +
               " (expected host:port, master@host:port or ip:port)"};
}

// The first IPv4 address `host` resolves to, in host byte order.
mesos::Result<uint32_t> resolve(const std::string& text, const std::string& host) {
  auto dotted = process::Address::parseIp(host);
  if (dotted) return *dotted;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    return bad(text, "cannot resolve host '" + host + "' to an IPv4 address: " +
                         (rc != 0 ? gai_strerror(rc) : "no address"));
  }
  uint32_t ip = ntohl(reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr.s_addr);
  freeaddrinfo(found);
  return ip;
}

}  // namespace

mesos::Result<process::UPID> parseMasterAddress(const std::string& input) {
  std::string text = input;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(0, 1);
  if (text.empty()) return bad(input, "it is empty");
  if (text.rfind("zk://", 0) == 0) {
    return bad(text, "a ZooKeeper URL is not an address (the driver detects the leader from it)");
  }
  size_t scheme = text.find("://");
  if (scheme != std::string::npos) {
    return bad(text, "the scheme '" + text.substr(0, scheme) + "://' is not supported");
  }

  std::string id = "master";
  std::string rest = text;
  size_t at = text.find('@');
  if (at != std::string::npos) {
    id = text.substr(0, at);
    rest = text.substr(at + 1);
    if (id.empty()) return bad(text, "the process id before '@' is empty");
    for (char c : id) {
      if (c == '/' || c == '@' || std::isspace(static_cast<unsigned char>(c))) {
        return bad(text, "the process id may not contain '" + std::string(1, c) + "'");
      }
    }
  }

  std::string host = rest;
  uint16_t port = kDefaultMasterPort;
  size_t colon = rest.rfind(':');
  if (colon != std::string::npos) {
    host = rest.substr(0, colon);
    std::string portText = rest.substr(colon + 1);
    unsigned value = 0;
    auto [next, ec] =
        std::from_chars(portText.data(), portText.data() + portText.size(), value);
    if (portText.empty() || ec != std::errc() || next != portText.data() + portText.size() ||
        value == 0 || value > 65535) {
      return bad(text, "'" + portText + "' is not a port number (1-65535)");
    }
    port = static_cast<uint16_t>(value);
  }
  if (host.empty()) return bad(text, "the host is empty");

  auto ip = resolve(text, host);
  if (!ip) return ip.error();
  return process::UPID(id, process::Address{*ip, port});
}

}  // namespace mesos::internal
