// Process identifiers: UPID (`id@ip:port`) names any actor on any host;
// Pid<T> is a UPID that also says which actor class it names, so that
// dispatch() can call that class's methods.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "mesos/result.hpp"

namespace process {

using mesos::Error;
using mesos::Result;

class ActorCell;

// An IPv4 address and port, `ip` in host byte order.
struct Address {
  uint32_t ip = 0;
  uint16_t port = 0;

  // Parses "a.b.c.d:port". Fails with a message naming the bad part.
  static Result<Address> parse(std::string_view text);
  // Parses a dotted quad "a.b.c.d".
  static Result<uint32_t> parseIp(std::string_view text);

  std::string ipString() const;
  std::string toString() const;  // "a.b.c.d:port"
  uint64_t key() const { return (uint64_t{ip} << 16) | port; }

  friend bool operator==(const Address&, const Address&) = default;
};

class UPID {
 public:
  UPID() = default;
  UPID(std::string id, Address address) : id(std::move(id)), address(address) {}

  // Parses `id@ip:port` (ip a dotted IPv4 quad). The id must be non-empty and
  // must not contain '/', '@' or whitespace. Fails with a message that quotes
  // the input and names what is wrong.
  static Result<UPID> parse(std::string_view text);

  std::string toString() const;

  // True when this names some actor (a default UPID names none).
  explicit operator bool() const { return !id.empty(); }

  friend bool operator==(const UPID& a, const UPID& b) {
    return a.id == b.id && a.address == b.address;
  }
  friend bool operator<(const UPID& a, const UPID& b) {
    if (a.address.key() != b.address.key()) return a.address.key() < b.address.key();
    return a.id < b.id;
  }

  std::string id;
  Address address;

  // Set by the runtime on UPIDs of local actors (self()) so that sending to
  // them needs no lookup. Never part of identity or of the wire form.
  std::weak_ptr<ActorCell> ref;
};

std::ostream& operator<<(std::ostream& out, const UPID& pid);
std::ostream& operator<<(std::ostream& out, const Address& address);

// A UPID known to name an actor of class T (or a subclass).
template <typename T>
class Pid : public UPID {
 public:
  Pid() = default;
  explicit Pid(const UPID& pid) : UPID(pid) {}
};

// Returns "prefix(N)", with N counting up from 1 for each prefix in this OS
// process, the way libprocess names actors ("slave(1)", "scheduler(3)").
std::string generateId(const std::string& prefix);

}  // namespace process

template <>
struct std::hash<process::UPID> {
  size_t operator()(const process::UPID& pid) const {
    return std::hash<std::string>()(pid.id) ^ std::hash<uint64_t>()(pid.address.key());
  }
};

template <>
struct std::hash<process::Address> {
  size_t operator()(const process::Address& a) const { return std::hash<uint64_t>()(a.key()); }
};
