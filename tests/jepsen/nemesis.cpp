#include "jepsen/nemesis.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace mesos::jepsen {

using namespace std::chrono_literals;

std::string kindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::KillLeader: return "kill-leader";
    case FaultKind::KillSlave: return "kill-slave";
    case FaultKind::PauseSlave: return "pause-slave";
    case FaultKind::KillZkLeader: return "kill-zk-leader";
  }
  return "?";
}

std::vector<FaultKind> allFaults() {
  return {FaultKind::KillLeader, FaultKind::KillSlave, FaultKind::PauseSlave,
          FaultKind::KillZkLeader};
}

Nemesis::Nemesis(ProcessCluster* cluster, History* history, uint64_t seed,
                 std::vector<FaultKind> kinds, std::function<bool()> whole,
                 std::function<void()> idle)
    : cluster_(cluster),
      history_(history),
      random_(seed),
      kinds_(std::move(kinds)),
      whole_(std::move(whole)),
      idle_(std::move(idle)) {}

double Nemesis::uniform(double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(random_);
}

void Nemesis::rest(double seconds) {
  // The schedule of faults, not a wait for an event: time passes while the
  // frameworks work, and exited daemons are reaped and started again.
  auto until = std::chrono::steady_clock::now() +
               std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  while (std::chrono::steady_clock::now() < until) {
    idle_();
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        100ms, until - std::chrono::steady_clock::now()));
  }
}

bool Nemesis::strike(double bound) {
  const FaultKind kind = kinds_[random_() % kinds_.size()];
  Fault fault;
  fault.kind = kindName(kind);
  fault.start = history_->now();
  const size_t slave = random_() % cluster_->options().slaves;
  const ClusterOptions& options = cluster_->options();
  switch (kind) {
    case FaultKind::KillLeader: {
      int leader = cluster_->leader();
      if (leader < 0) return true;  // nothing leads: nothing to kill now
      fault.target = "master" + std::to_string(leader + 1);
      cluster_->killMaster(leader);
      rest(uniform(0, 1));
      cluster_->startMaster(leader);
      break;
    }
    case FaultKind::KillSlave:
      fault.target = cluster_->slaveName(slave);
      cluster_->killSlave(slave);
      rest(uniform(0, 3));
      cluster_->startSlave(slave);
      break;
    case FaultKind::PauseSlave:
      fault.target = cluster_->slaveName(slave);
      cluster_->stopSlave(slave);
      rest(options.pingTimeoutMs * options.maxPingTimeouts / 1000.0 + uniform(0.5, 2));
      cluster_->resumeSlave(slave);
      break;
    case FaultKind::KillZkLeader: {
      int leader = cluster_->zkLeader();
      if (leader < 0) return true;
      fault.target = "zk" + std::to_string(leader + 1);
      cluster_->killZk(leader);
      rest(uniform(0, 1));
      cluster_->restartZk(leader);
      break;
    }
  }
  counts_[fault.kind]++;
  fault.healed = history_->now();
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::microseconds(static_cast<int64_t>(bound * 1e6));
  bool whole = false;
  while (!(whole = whole_()) && std::chrono::steady_clock::now() < deadline) {
    idle_();
    std::this_thread::sleep_for(50ms);  // real processes, polled with a bound
  }
  if (whole) {
    fault.recovered = history_->now();
    maxRecoverS_ = std::max(maxRecoverS_, fault.recovered - fault.healed);
  }
  history_->faulted(fault);
  return whole;
}

}  // namespace mesos::jepsen
