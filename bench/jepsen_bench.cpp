// jepsen_bench: the Jepsen-style checker of tests/jepsen/ over a long
// randomized run (docs/benchmarks.md, "Faults and the checker"): a 3-node
// ZooKeeper ensemble, --masters mesos-masters with --zk, --slaves
// checkpointing mesos-slaves, a framework that is not partition-aware and
// one that is, launching short and long `sleep` tasks; the nemesis kills
// the leading master, kills and pauses slaves and kills the ZooKeeper
// leader (--faults_per_minute, from --seed) for --duration_s; then it
// heals, reconciles, compares with the master, kills every task and checks
// the history.
//
// Figures go to stdout as `name: value unit` lines; the violation report
// (each task's story) to stderr. Exit status 0 without violations, 2 with,
// 3 when the run could not be carried out, 1 on a usage error.
#include <cctype>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <gflags/gflags.h>

#include "jepsen/run.hpp"

DEFINE_uint64(seed, 27, "Seed of the nemesis and the frameworks.");
DEFINE_double(duration_s, 300, "Seconds of faults.");
DEFINE_double(faults_per_minute, 6, "Faults per minute, on average.");
DEFINE_int32(masters, 3, "mesos-master processes.");
DEFINE_int32(slaves, 3, "mesos-slave processes.");
DEFINE_int32(tasks_per_framework, 6, "Unfinished tasks per framework, at most.");
DEFINE_double(long_task_s, 60, "Long tasks sleep a third of this to this.");
DEFINE_string(faults, "kill-leader,kill-slave,pause-slave,kill-zk-leader",
              "The kinds of faults, comma-separated.");
DEFINE_bool(keep, false, "Keep the logs and sandboxes when violations are found.");

int main(int argc, char** argv) {
  gflags::SetUsageMessage("jepsen_bench [--seed=N] [--duration_s=S] [--faults_per_minute=F]");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  using namespace mesos::jepsen;
  if (std::string why = ProcessCluster::unavailable(); !why.empty()) {
    std::cerr << "jepsen_bench: cannot run: " << why << std::endl;
    return 3;
  }
  RunOptions options;
  options.seed = FLAGS_seed;
  options.durationS = FLAGS_duration_s;
  options.faultsPerMinute = FLAGS_faults_per_minute;
  options.cluster.masters = static_cast<size_t>(FLAGS_masters);
  options.cluster.slaves = static_cast<size_t>(FLAGS_slaves);
  options.maxUnfinished = static_cast<size_t>(FLAGS_tasks_per_framework);
  options.longMaxS = FLAGS_long_task_s;
  options.keepDir = FLAGS_keep;
  options.progress = &std::cerr;
  options.faults.clear();
  std::stringstream kinds(FLAGS_faults);
  for (std::string kind; std::getline(kinds, kind, ',');) {
    bool known = false;
    for (FaultKind k : allFaults()) {
      if (kindName(k) == kind) {
        options.faults.push_back(k);
        known = true;
      }
    }
    if (!known) {
      std::cerr << "jepsen_bench: unknown fault '" << kind
                << "' (kill-leader, kill-slave, pause-slave, kill-zk-leader)" << std::endl;
      return 1;
    }
  }
  if (options.faults.empty() || FLAGS_masters < 1 || FLAGS_slaves < 1 ||
      FLAGS_faults_per_minute <= 0) {
    std::cerr << "jepsen_bench: --faults, --masters, --slaves and --faults_per_minute must "
                 "be positive" << std::endl;
    return 1;
  }

  std::cerr << "seed: " << options.seed << std::endl;
  RunReport report = runJepsen(options);
  if (!report.error.empty()) {
    std::cerr << "jepsen_bench: " << report.error << std::endl;
    std::cout << "status: start_failed" << std::endl;
    return 3;
  }
  int faults = 0;
  std::cout << "seed: " << options.seed << "\n"
            << "duration: " << options.durationS << " s\n"
            << "tasks_launched: " << report.tasksLaunched << " tasks\n"
            << "status_updates: " << report.updates << " updates\n";
  for (const auto& [state, count] : report.ended) {
    std::string name = state.substr(state.find('_') + 1);
    for (char& c : name) c = static_cast<char>(std::tolower(c));
    std::cout << "tasks_ended_" << name << ": " << count << " tasks\n";
  }
  for (FaultKind kind : allFaults()) {
    int count = report.faults.count(kindName(kind)) ? report.faults.at(kindName(kind)) : 0;
    faults += count;
    std::string name = kindName(kind);
    for (char& c : name) c = c == '-' ? '_' : c;
    std::cout << "faults_" << name << ": " << count << " faults\n";
  }
  std::printf("faults: %d faults\nmax_recover_s: %.3f s\ncrashes: %d daemons\nviolations: %zu "
              "violations\n",
              faults, report.maxRecoverS, report.crashes, report.violations.size());
  std::cout << "status: " << (report.violations.empty() ? "ok" : "violations") << std::endl;
  std::cerr << report.text;
  if (!report.dir.empty()) std::cerr << "logs and sandboxes kept in " << report.dir << std::endl;
  return report.violations.empty() ? 0 : 2;
}
