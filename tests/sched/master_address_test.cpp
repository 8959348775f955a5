// The master address forms the scheduler driver accepts, and the errors for
// the ones it does not.
#include <gtest/gtest.h>

#include "sched/master_address.hpp"

namespace mesos::test {
namespace {

using mesos::internal::parseMasterAddress;

std::string parsed(const std::string& text) {
  auto pid = parseMasterAddress(text);
  return pid ? pid->toString() : "error: " + pid.error().message;
}

TEST(MasterAddressTest, StandaloneForms) {
  EXPECT_EQ("master@10.0.0.1:5050", parsed("10.0.0.1:5050"));
  EXPECT_EQ("master@10.0.0.1:5051", parsed("master@10.0.0.1:5051"));
  EXPECT_EQ("master@10.0.0.1:5050", parsed("10.0.0.1")) << "port defaults to 5050";
  EXPECT_EQ("master@10.0.0.1:6000", parsed("  10.0.0.1:6000\n"));
  EXPECT_EQ("other(2)@10.0.0.1:7000", parsed("other(2)@10.0.0.1:7000"));
  EXPECT_EQ("master@127.0.0.1:5050", parsed("localhost:5050")) << "names resolve to IPv4";
}

TEST(MasterAddressTest, ErrorsNameTheProblem) {
  auto contains = [](const std::string& text, const std::string& part) {
    std::string result = parsed(text);
    EXPECT_EQ(0u, result.rfind("error: ", 0)) << text << " -> " << result;
    EXPECT_NE(std::string::npos, result.find(part)) << text << " -> " << result;
    EXPECT_NE(std::string::npos, result.find("'" )) << "quotes the input: " << result;
  };
  contains("zk://10.0.0.1:2181/mesos", "ZooKeeper");
  contains("file:///etc/mesos/master", "file://");
  contains("", "empty");
  contains("10.0.0.1:99999", "'99999' is not a port");
  contains("10.0.0.1:http", "'http' is not a port");
  contains("10.0.0.1:", "'' is not a port");
  contains("@10.0.0.1:5050", "process id");
  contains(":5050", "host is empty");
}

}  // namespace
}  // namespace mesos::test
