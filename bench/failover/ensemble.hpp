// A ZooKeeper ensemble for bench/failover_bench: real servers from Debian's
// `zookeeper` package (a JRE runs them), on loopback ports, configured as
// tests/support/zookeeper_server.cpp configures them for the tests (a tick
// of 100 ms, sessions of 200 ms allowed). The servers are children of the
// bench (fig10::Children), so that none outlives it however it ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "../fig10/children.hpp"

namespace failover {

class Ensemble {
 public:
  // Why servers cannot run on this machine ("" when they can).
  static std::string unavailable();

  // `count` servers (1: standalone), each in a directory of its own under
  // `dir`, its log in <dir>/zk-<n>.log. `children` is borrowed and must
  // outlive the ensemble.
  Ensemble(fig10::Children& children, std::string dir, size_t count);

  // Starts every server and waits, at most `bound`, until each serves
  // (answers "ruok" and, in an ensemble, is leader or follower). False,
  // with the reason in *error, when one does not.
  bool start(std::chrono::seconds bound, std::string* error);

  // "127.0.0.1:<port>,...": what a client connects to.
  std::string connectString() const;
  // The servers' indices among the children (to notice one exiting).
  const std::vector<size_t>& children() const { return indices_; }

 private:
  struct Server {
    std::string dir;
    uint16_t clientPort = 0;
    uint16_t quorumPort = 0;
    uint16_t electionPort = 0;
  };
  bool serving(const Server& server) const;

  fig10::Children& children_;
  std::string dir_;
  std::vector<Server> servers_;
  std::vector<size_t> indices_;
};

// A loopback TCP port free when asked, below the ephemeral range
// (common/free_port.hpp).
uint16_t freePort();

// A four-letter-word command ("ruok", "srvr") to the server at 127.0.0.1
// `port`: its answer, "" when it does not answer within a second.
std::string zkCommand(uint16_t port, const std::string& word);

}  // namespace failover
