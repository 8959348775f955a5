// The nemesis of a Jepsen-style run: from a seeded generator, one fault at
// a time on a ProcessCluster, undone after a random while, then a bounded
// wait until the cluster is whole again. Every fault is recorded in the
// History (kind, target, start, healed, recovered).
//
//   kill-leader     kill -9 of the leading master; a supervisor starts it
//                   again (at once or up to 1 s later)
//   kill-slave      kill -9 of a slave, started again 0 to 3 s later (past
//                   the ping timeouts or not): it recovers its executors
//   pause-slave     SIGSTOP of a slave past the master's ping timeouts
//                   (it becomes unreachable), SIGCONT up to 1.5 s later
//   kill-zk-leader  kill -9 of the ZooKeeper ensemble's leader, started
//                   again up to 1 s later
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "jepsen/cluster.hpp"
#include "jepsen/history.hpp"

namespace mesos::jepsen {

enum class FaultKind { KillLeader, KillSlave, PauseSlave, KillZkLeader };

std::string kindName(FaultKind kind);
// Every kind.
std::vector<FaultKind> allFaults();

class Nemesis {
 public:
  // `cluster` and `history` are borrowed. `whole` says whether the cluster
  // is whole again (every framework back too); `idle` is called while the
  // nemesis waits (to reap and restart daemons that exited by themselves).
  Nemesis(ProcessCluster* cluster, History* history, uint64_t seed, std::vector<FaultKind> kinds,
          std::function<bool()> whole, std::function<void()> idle);

  // Applies one fault, undoes it, and waits (at most `bound` seconds)
  // until the cluster is whole. False when it was not.
  bool strike(double bound);

  // Waits `seconds` of wall time, calling `idle` meanwhile: the pause
  // between two faults.
  void rest(double seconds);

  const std::map<std::string, int>& counts() const { return counts_; }
  // The longest time from undoing a fault to the cluster whole again.
  double maxRecoverS() const { return maxRecoverS_; }

 private:
  double uniform(double low, double high);

  ProcessCluster* cluster_;
  History* history_;
  std::mt19937_64 random_;
  std::vector<FaultKind> kinds_;
  std::function<bool()> whole_;
  std::function<void()> idle_;
  std::map<std::string, int> counts_;
  double maxRecoverS_ = 0;
};

}  // namespace mesos::jepsen
