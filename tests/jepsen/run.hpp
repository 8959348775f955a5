// One Jepsen-style run, shared by tests/integration/jepsen_test.cpp (short)
// and bench/jepsen_bench.cpp (long): a ProcessCluster, a framework that is
// not partition-aware and one that is, the Nemesis striking for
// `durationS`, then everything healed, the frameworks' tasks reconciled and
// compared with the master, every task killed, and the History checked
// (checker.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "jepsen/checker.hpp"
#include "jepsen/cluster.hpp"
#include "jepsen/nemesis.hpp"

namespace mesos::jepsen {

struct RunOptions {
  uint64_t seed = 27;
  double durationS = 30;        // of faults
  double faultsPerMinute = 12;  // on average (exponential gaps)
  std::vector<FaultKind> faults = allFaults();
  ClusterOptions cluster;  // its dir: made (and removed) by the run
  size_t maxUnfinished = 4;  // tasks per framework
  double longMaxS = 20;
  bool partitionAware = true;  // also run a partition-aware framework
  double recoverBoundS = 60;  // a fault the cluster is not over by then is a violation
  double graceS = 10;         // see checkHistory()
  bool keepDir = false;       // keep the logs and sandboxes when violations are found
  std::ostream* progress = nullptr;
};

struct RunReport {
  std::string error;  // why the run could not be carried out ("" when it was)
  size_t tasksLaunched = 0;
  size_t updates = 0;
  std::map<std::string, int> ended;   // tasks by their last state ("TASK_FINISHED": n)
  std::map<std::string, int> faults;  // applied, by kind
  double maxRecoverS = 0;
  int crashes = 0;  // daemons that died other than by the nemesis's hand
  std::vector<Violation> violations;
  std::string text;  // report(): the violations with their tasks' stories
  std::string dir;   // kept when keepDir and violations
};

RunReport runJepsen(const RunOptions& options);

}  // namespace mesos::jepsen
