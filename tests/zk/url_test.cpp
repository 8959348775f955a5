// ZooKeeper URLs: what Apache Mesos accepts, the password kept out of
// logs, file:// indirection, and a clear error for everything else.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include "zk/url.hpp"

namespace mesos::test {
namespace {

using internal::zk::parseUrl;

TEST(ZkUrlTest, ServersPathAndCredentials) {
  auto one = parseUrl("zk://127.0.0.1:2181/mesos");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ("127.0.0.1:2181", one->servers);
  EXPECT_EQ("/mesos", one->path);
  EXPECT_FALSE(one->credentials.has_value());
  EXPECT_EQ("zk://127.0.0.1:2181/mesos", one->toString());

  auto three = parseUrl("  zk://jo:s3cr:et@zk1:2181,zk2.example:2182,10.0.0.3:2183/a/b/  \n");
  ASSERT_TRUE(three.ok()) << three.error().message;
  EXPECT_EQ("zk1:2181,zk2.example:2182,10.0.0.3:2183", three->servers);
  EXPECT_EQ("/a/b", three->path);
  ASSERT_TRUE(three->credentials.has_value());
  EXPECT_EQ("jo", three->credentials->user);
  EXPECT_EQ("s3cr:et", three->credentials->password);
  EXPECT_EQ("zk://jo:********@zk1:2181,zk2.example:2182,10.0.0.3:2183/a/b", three->toString());

  auto root = parseUrl("zk://localhost:2181");
  ASSERT_TRUE(root.ok()) << root.error().message;
  EXPECT_EQ("/", root->path);
}

TEST(ZkUrlTest, BadUrlsAreRefusedWithAReason) {
  for (const char* text :
       {"", "127.0.0.1:2181", "http://zk:2181/mesos", "zk://", "zk:///mesos", "zk://zk/mesos",
        "zk://zk:0/mesos", "zk://zk:65536/mesos", "zk://zk:21x1/mesos", "zk://zk:2181,/mesos",
        "zk://z k:2181/mesos", "zk://zk:2181//mesos", "zk://zk:2181/a/../b", "zk://@zk:2181/m",
        "zk://nopassword@zk:2181/m", "file://relative/path"}) {
    auto url = parseUrl(text);
    ASSERT_FALSE(url.ok()) << "'" << text << "' was taken as " << url->toString();
    EXPECT_NE(std::string::npos, url.error().message.find(text)) << url.error().message;
  }
}

TEST(ZkUrlTest, AFileHoldsTheUrl) {
  std::string path = ::testing::TempDir() + "zk_url_test_" + std::to_string(::getpid());
  {
    std::ofstream file(path);
    file << "zk://user:pw@127.0.0.1:2181/mesos\n";
  }
  auto url = parseUrl("file://" + path);
  ASSERT_TRUE(url.ok()) << url.error().message;
  EXPECT_EQ("/mesos", url->path);
  EXPECT_EQ("pw", url->credentials->password);
  {
    std::ofstream file(path);
    file << "file://" << path << "\n";
  }
  auto loop = parseUrl("file://" + path);
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(std::string::npos, loop.error().message.find("must hold a zk:// URL"));
  std::remove(path.c_str());
  auto missing = parseUrl("file://" + path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(std::string::npos, missing.error().message.find("cannot read"));
}

}  // namespace
}  // namespace mesos::test
