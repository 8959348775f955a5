// The cluster of a Jepsen-style run, as separate OS processes on this
// machine: a ZooKeeper ensemble (tests/support/zookeeper_server.hpp),
// mesos-masters electing a leader through it and keeping the registry of
// agents in it (--zk), and mesos-slaves that find the leader through it and
// recover their checkpointed executors when restarted. The cluster only
// runs and breaks processes; the nemesis decides what to break. Calls come
// from one thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "jepsen/history.hpp"
#include "process/upid.hpp"

namespace mesos::test {
class ZooKeeperServers;
}

namespace mesos::jepsen {

struct ClusterOptions {
  std::string dir;  // scratch directory (exists): work directories, logs
  size_t zkServers = 3;
  size_t masters = 2;
  size_t slaves = 2;
  std::string slaveResources = "cpus:2;mem:1024;disk:1024";
  // A master marks a slave unreachable after this many pings of this many
  // milliseconds go unanswered.
  int pingTimeoutMs = 500;
  int maxPingTimeouts = 3;
  int zkSessionTimeoutMs = 1000;  // the masters'
};

class ProcessCluster {
 public:
  explicit ProcessCluster(ClusterOptions options);
  // Kills (SIGKILL) every daemon and every process left in a sandbox.
  ~ProcessCluster();
  ProcessCluster(const ProcessCluster&) = delete;
  ProcessCluster& operator=(const ProcessCluster&) = delete;

  // What this machine lacks to run it ("" when nothing).
  static std::string unavailable();

  // Starts ZooKeeper, the masters and the slaves, and waits (bounded) until
  // a master leads and every slave is registered with it. False, with the
  // reason in *error, when not.
  bool start(std::string* error);

  const ClusterOptions& options() const { return options_; }
  const std::string& url() const { return url_; }  // zk://.../mesos

  // The index of the master that says it leads, or -1.
  int leader() const;
  process::Address masterAddress(size_t i) const { return masters_[i].address; }
  bool masterUp(size_t i) const { return masters_[i].pid > 0; }
  void killMaster(size_t i);  // SIGKILL, reaped
  bool startMaster(size_t i);  // on a fresh port; false if it does not listen

  bool slaveUp(size_t i) const { return slaves_[i].pid > 0; }
  void killSlave(size_t i);  // SIGKILL, reaped; its executors run on
  bool startSlave(size_t i);  // same port and work directory: it recovers
  void stopSlave(size_t i);   // SIGSTOP
  void resumeSlave(size_t i);  // SIGCONT
  std::string slaveName(size_t i) const { return "slave" + std::to_string(i + 1); }

  int zkLeader() const;
  void killZk(size_t i);
  bool restartZk(size_t i);

  // Reaps the masters and slaves that exited by themselves (a master that
  // lost its lease exits with status 1, as documented) and starts them
  // again, as a supervisor would; a line for each, with its status. Exits
  // other than status 1 of a master are also counted in crashes().
  std::vector<std::string> reap();
  int crashes() const { return crashes_; }

  // Resumes stopped slaves and starts every daemon that is down.
  void heal();

  // Whether exactly one master leads and holds every slave active, none
  // unreachable or recovering, and `frameworks` active frameworks.
  bool whole(size_t frameworks) const;

  // The leader's /master/state (Null when no leader answers).
  json::Value leaderState() const;

  // Processes of tasks now: the shells whose command holds "jepsen-task=",
  // with the slave whose sandbox they run in.
  std::vector<Sighting> scanTasks(double time) const;

  // Stops the slaves and masters with SIGTERM (a line for each that does
  // not exit with status 0 within 30 s), then kills what is left in the
  // sandboxes.
  std::vector<std::string> shutdown();

  // The last `bytes` of each daemon's log, for failure messages.
  std::string logs(size_t bytes) const;

 private:
  struct Daemon {
    std::string name;
    pid_t pid = -1;
    bool stopped = false;
    process::Address address;
    uint16_t port = 0;
  };
  std::vector<std::string> masterArgs(const Daemon& m) const;
  std::vector<std::string> slaveArgs(size_t i) const;
  void killSandboxes() const;

  ClusterOptions options_;
  std::unique_ptr<test::ZooKeeperServers> zk_;
  std::string url_;
  std::vector<Daemon> masters_;
  std::vector<Daemon> slaves_;
  int crashes_ = 0;
};

}  // namespace mesos::jepsen
