// Real ZooKeeper servers for tests, from Debian's `zookeeper` package (a
// JRE runs them): one standalone server, or an ensemble of several, on
// loopback ports, each in a scratch directory of its own. Every server is
// killed when the object goes. Servers are real processes, so the waits
// have generous real-time bounds.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mesos::test {

class ZooKeeperServers {
 public:
  // Why servers cannot run on this machine ("" when they can): for tests
  // to skip with.
  static std::string unavailable();

  // `count` servers (1: standalone), with a tick of 100 ms and sessions
  // of at least 200 ms allowed, so that tests can expire sessions quickly.
  explicit ZooKeeperServers(size_t count = 1);
  ~ZooKeeperServers();
  ZooKeeperServers(const ZooKeeperServers&) = delete;
  ZooKeeperServers& operator=(const ZooKeeperServers&) = delete;

  // Starts every server and waits (at most 30 s) until each serves
  // (answers "ruok" with "imok" and, in an ensemble, is leader or
  // follower). False, with error(), when one does not.
  bool start();
  // "127.0.0.1:<port>,...": what a client connects to.
  std::string connectString() const;
  uint16_t clientPort(size_t server) const { return servers_[server].clientPort; }

  // SIGKILL to one server (its data stays), and starting it again.
  void kill(size_t server);
  bool restart(size_t server);
  bool running(size_t server) const { return servers_[server].pid > 0; }

  // A four-letter-word command ("ruok", "srvr", "mntr") to one server:
  // its answer, "" when it does not answer.
  std::string command(size_t server, const std::string& word) const;
  // Whether the server answers and says it serves (standalone, leader or
  // follower).
  bool serving(size_t server) const;
  // The server that leads the ensemble (or the standalone one), or -1.
  int leader() const;

  // Ends a client's session at the servers, as its expiry would: another
  // client takes the session over (`id`, `password`) and closes it, until
  // `ended()` says the owner saw it end (at most 10 times, 5 s each: the
  // owner's client reconnects at once when the session is taken, and may
  // take it back before the close arrives, so one theft is not always
  // enough). Whether `ended()` became true.
  bool endSession(int64_t id, const std::string& password,
                  const std::function<bool()>& ended) const;

  const std::string& error() const { return error_; }

 private:
  struct Server {
    std::string dir;
    uint16_t clientPort = 0;
    uint16_t quorumPort = 0;
    uint16_t electionPort = 0;
    pid_t pid = -1;
  };
  bool launch(size_t server);
  bool awaitServing(size_t server);

  std::string root_;
  std::vector<Server> servers_;
  std::string error_;
};

}  // namespace mesos::test
