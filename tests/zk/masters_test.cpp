// MasterInfo as masters write it into ZooKeeper (Apache Mesos's JSON) and
// read back; data that is not a master's is refused with a reason.
#include <gtest/gtest.h>

#include "zk/masters.hpp"

namespace mesos::test {
namespace {

using internal::zk::masterInfoJson;
using internal::zk::parseMasterInfo;

TEST(ZkMastersTest, MasterInfoRoundTrips) {
  MasterInfo info;
  info.set_id("a1b2-c3");
  info.set_ip(0x0100007f);  // 127.0.0.1, network byte order
  info.set_port(5050);
  info.set_pid("master@127.0.0.1:5050");
  info.set_hostname("m1.example");
  info.set_version("1.12.0");
  info.mutable_address()->set_hostname("m1.example");
  info.mutable_address()->set_ip("127.0.0.1");
  info.mutable_address()->set_port(5050);
  std::string text = masterInfoJson(info);
  EXPECT_NE(std::string::npos, text.find("\"pid\":\"master@127.0.0.1:5050\"")) << text;
  auto back = parseMasterInfo(text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(info.SerializeAsString(), back->SerializeAsString());
}

TEST(ZkMastersTest, DataThatIsNotAMastersIsRefused) {
  for (const char* text : {"", "garbage", "[]", "{\"pid\":\"master@127.0.0.1:5050\"}",
                           "{\"id\":\"a\",\"ip\":1,\"port\":5050}",
                           "{\"id\":\"a\",\"pid\":\"nonsense\",\"ip\":1,\"port\":5050}",
                           "{\"id\":\"a\",\"pid\":\"master@127.0.0.1:5050\",\"port\":5050}",
                           "{\"id\":\"a\",\"pid\":\"master@127.0.0.1:5050\",\"ip\":-1,\"port\":1}"}) {
    auto info = parseMasterInfo(text);
    EXPECT_FALSE(info.ok()) << "'" << text << "' was taken";
  }
}

}  // namespace
}  // namespace mesos::test
