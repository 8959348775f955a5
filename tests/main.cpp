// The test binary's entry point: GoogleTest with glog writing to stderr.
#include <cstdlib>

#include <gtest/gtest.h>
#include <glog/logging.h>

#include "support/root_tasks.hpp"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  // Masters started as processes read MESOS_ACLS unless given --acls:
  // their tasks may run as root (support/root_tasks.hpp). Tests of the rule
  // itself give --acls of their own.
  ::setenv("MESOS_ACLS", mesos::test::kRootTasksAcls, 0);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  // Quiet by default; MESOS_TEST_VERBOSE=1 shows INFO logs too.
  const char* verbose = std::getenv("MESOS_TEST_VERBOSE");
  FLAGS_minloglevel = verbose != nullptr && *verbose == '1' ? google::GLOG_INFO : google::GLOG_WARNING;
  return RUN_ALL_TESTS();
}
