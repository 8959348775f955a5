// The Jepsen-style checker's short run (tests/jepsen/run.hpp; the long one is
// bench/jepsen_bench): a 3-node ZooKeeper ensemble, two masters with the
// registry in it, two checkpointing slaves, a framework that is not
// partition-aware and one that is, and a seeded nemesis that kills the
// leading master, kills and pauses slaves and kills the ZooKeeper leader
// for 30 s. Then every task must have ended exactly once, in order, never
// run twice, and the master must agree with the frameworks. JEPSEN_SEED in
// the environment replays another seed.
#include <cstdlib>
#include <iostream>
#include <string>

#include <gtest/gtest.h>

#include "jepsen/run.hpp"

namespace mesos::test {
namespace {

using namespace mesos::jepsen;

TEST(JepsenTest, RandomFaultsLeaveEveryTaskEndedOnceAndNeverRunTwice) {
  if (std::string why = ProcessCluster::unavailable(); !why.empty()) GTEST_SKIP() << why;
  RunOptions options;
  options.seed = 27;
  if (const char* seed = std::getenv("JEPSEN_SEED")) options.seed = std::stoull(seed);
  options.durationS = 30;
  options.faultsPerMinute = 12;
  options.longMaxS = 15;
  std::cout << "seed: " << options.seed << " (JEPSEN_SEED=" << options.seed
            << " replays this run)" << std::endl;

  RunReport report = runJepsen(options);
  ASSERT_EQ("", report.error);
  int faults = 0;
  for (const auto& [kind, count] : report.faults) faults += count;
  std::cout << "tasks launched: " << report.tasksLaunched << ", updates: " << report.updates
            << ", faults: " << faults << ", max recovery: " << report.maxRecoverS << " s"
            << std::endl;
  for (const auto& [kind, count] : report.faults) std::cout << kind << ": " << count << "\n";
  for (const auto& [state, count] : report.ended) std::cout << state << ": " << count << "\n";
  EXPECT_GE(faults, 3) << report.text;
  EXPECT_GE(report.tasksLaunched, 10u) << report.text;
  EXPECT_TRUE(report.violations.empty()) << report.text;
}

}  // namespace
}  // namespace mesos::test
