// The test binary's entry point: GoogleTest with glog writing to stderr.
#include <gtest/gtest.h>
#include <glog/logging.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = google::GLOG_WARNING;
  return RUN_ALL_TESTS();
}
