// Where the scheduler driver finds the master: the standalone forms of a
// master address (zk:// and file:// go through zk/detector.hpp first).
#pragma once

#include <string>

#include "mesos/result.hpp"
#include "process/upid.hpp"

namespace mesos::internal {

// The master's port when an address leaves it out.
constexpr uint16_t kDefaultMasterPort = 5050;

// Parses "host:port", "id@host:port" (usually "master@host:port") or
// "ip:port"; the port defaults to 5050 and the id to "master". A host name is
// resolved to its first IPv4 address, which blocks on the resolver: call it
// from a plain thread, never from an actor. Fails with a message that quotes
// `text` and names the problem (unsupported "zk://" or "file://" schemes,
// a bad port, a name that does not resolve).
mesos::Result<process::UPID> parseMasterAddress(const std::string& text);

}  // namespace mesos::internal
