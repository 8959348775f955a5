#include "process/upid.hpp"

#include <charconv>
#include <map>
#include <mutex>
#include <ostream>

namespace process {

Result<uint32_t> Address::parseIp(std::string_view text) {
  uint32_t ip = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int part = 0; part < 4; ++part) {
    unsigned value = 0;
    auto [next, ec] = std::from_chars(p, end, value);
    if (ec != std::errc() || next == p || value > 255 || next - p > 3) {
      return Error{"'" + std::string(text) + "' is not a dotted IPv4 address (a.b.c.d)"};
    }
    ip = (ip << 8) | value;
    p = next;
    if (part < 3) {
      if (p == end || *p != '.') {
        return Error{"'" + std::string(text) + "' is not a dotted IPv4 address (a.b.c.d)"};
      }
      ++p;
    }
  }
  if (p != end) {
    return Error{"'" + std::string(text) + "' is not a dotted IPv4 address (a.b.c.d)"};
  }
  return ip;
}

Result<Address> Address::parse(std::string_view text) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return Error{"'" + std::string(text) + "' is missing ':port'"};
  }
  auto ip = parseIp(text.substr(0, colon));
  if (!ip) return ip.error();
  std::string_view portText = text.substr(colon + 1);
  unsigned port = 0;
  auto [next, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
  if (ec != std::errc() || next != portText.data() + portText.size() || portText.empty() ||
      port > 65535) {
    return Error{"'" + std::string(portText) + "' is not a port number (0-65535)"};
  }
  return Address{*ip, static_cast<uint16_t>(port)};
}

std::string Address::ipString() const {
  return std::to_string((ip >> 24) & 0xff) + "." + std::to_string((ip >> 16) & 0xff) + "." +
         std::to_string((ip >> 8) & 0xff) + "." + std::to_string(ip & 0xff);
}

std::string Address::toString() const { return ipString() + ":" + std::to_string(port); }

Result<UPID> UPID::parse(std::string_view text) {
  size_t at = text.find('@');
  if (at == std::string_view::npos) {
    return Error{"bad process id '" + std::string(text) + "': expected id@ip:port"};
  }
  std::string_view id = text.substr(0, at);
  if (id.empty()) {
    return Error{"bad process id '" + std::string(text) + "': the id before '@' is empty"};
  }
  for (char c : id) {
    if (c == '/' || c == '@' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      return Error{"bad process id '" + std::string(text) + "': the id may not contain '" +
                   std::string(1, c) + "'"};
    }
  }
  auto address = Address::parse(text.substr(at + 1));
  if (!address) {
    return Error{"bad process id '" + std::string(text) + "': " + address.error().message};
  }
  return UPID(std::string(id), *address);
}

std::string UPID::toString() const { return id + "@" + address.toString(); }

std::ostream& operator<<(std::ostream& out, const UPID& pid) { return out << pid.toString(); }

std::ostream& operator<<(std::ostream& out, const Address& address) {
  return out << address.toString();
}

std::string generateId(const std::string& prefix) {
  static std::mutex mutex;
  static std::map<std::string, uint64_t> counters;
  std::lock_guard<std::mutex> lock(mutex);
  return prefix + "(" + std::to_string(++counters[prefix]) + ")";
}

}  // namespace process
