// A TCP port free right now on a local address, for programs that start
// servers of their own on loopback (tests, benchmarks). Chosen at random
// below the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range),
// so that the outbound connections of everything else running cannot take
// it between the check and the server's bind, as a port the kernel hands
// out for bind(0) can be taken.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <string>

namespace mesos {

// A port free on `ip` (a dotted quad) now, or 0 when none was found.
inline uint16_t freePort(const std::string& ip = "127.0.0.1") {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  if (::inet_pton(AF_INET, ip.c_str(), &address.sin_addr) != 1) return 0;
  int ephemeralLow = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeralLow;
  int low = 10000, high = ephemeralLow - 1;
  if (high - low < 1000) low = 1024;
  static thread_local std::mt19937 random{std::random_device{}()};
  std::uniform_int_distribution<int> pick(low, high);
  for (int attempt = 0; attempt < 200; ++attempt) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    auto port = static_cast<uint16_t>(pick(random));
    address.sin_port = htons(port);
    bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    ::close(fd);
    if (bound) return port;
  }
  return 0;
}

}  // namespace mesos
