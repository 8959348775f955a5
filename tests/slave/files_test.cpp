// /files/browse and /files/read: sandbox files readable, nothing else.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/json.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "slave/files.hpp"
#include "support/net.hpp"

namespace mesos::internal::slave {
namespace {

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = process::Runtime::create({}).value();
    files_ = runtime_->spawn<Files>();
    char pattern[] = "/tmp/mesos-files-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    root_ = pattern;
    sandbox_ = root_ + "/sandbox";
    ASSERT_EQ(::mkdir(sandbox_.c_str(), 0755), 0);
    ASSERT_EQ(::mkdir((sandbox_ + "/sub").c_str(), 0755), 0);
    write(sandbox_ + "/stdout", "hello, sandbox\n");
    write(sandbox_ + "/sub/nested", "deep");
    write(root_ + "/secret", "TOP-SECRET");
    ASSERT_EQ(::symlink((root_ + "/secret").c_str(), (sandbox_ + "/escape").c_str()), 0);
    auto attached = process::dispatch(files_.pid(), &Files::attach, sandbox_, sandbox_);
    ASSERT_TRUE(attached.await());
    ASSERT_TRUE(attached.get().ok()) << attached.get().error().message;
  }

  void TearDown() override {
    files_.reset();
    runtime_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  static void write(const std::string& path, const std::string& text) {
    {
      std::ofstream out(path);
      out << text;
    }
    ::chmod(path.c_str(), 0644);
  }

  int get(const std::string& path, std::string* body) {
    return mesos::test::httpGet(runtime_->address(), path, body);
  }

  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<Files> files_;
  std::string root_;
  std::string sandbox_;
};

TEST_F(FilesTest, ReadsAPieceOfASandboxFile) {
  std::string body;
  ASSERT_EQ(get("/files/read?path=" + sandbox_ + "/stdout&offset=7&length=7", &body), 200);
  auto json = json::parse(body);
  ASSERT_TRUE(json.ok()) << body;
  EXPECT_EQ((*json)["data"].string(), "sandbox");
  EXPECT_EQ((*json)["offset"].integer(), 7);

  // No offset: the file's size, so a reader can start tailing there.
  ASSERT_EQ(get("/files/read?path=" + sandbox_ + "/stdout", &body), 200);
  json = json::parse(body);
  ASSERT_TRUE(json.ok());
  EXPECT_EQ((*json)["data"].string(), "");
  EXPECT_EQ((*json)["offset"].integer(), 15);

  // Past the end: nothing, at the end.
  ASSERT_EQ(get("/files/read?path=" + sandbox_ + "/stdout&offset=100&length=5", &body), 200);
  json = json::parse(body);
  ASSERT_TRUE(json.ok());
  EXPECT_EQ((*json)["data"].string(), "");
  EXPECT_EQ((*json)["offset"].integer(), 15);

  ASSERT_EQ(get("/files/read.json?path=" + sandbox_ + "/sub/nested&offset=0", &body), 200);
  EXPECT_EQ((*json::parse(body))["data"].string(), "deep");
}

TEST_F(FilesTest, RefusesPathsOutsideTheSandboxes) {
  std::string body;
  EXPECT_EQ(get("/files/read?path=" + sandbox_ + "/../secret&offset=0", &body), 400);
  EXPECT_EQ(get("/files/read?path=" + sandbox_ + "/sub/../../secret&offset=0", &body), 400);
  EXPECT_EQ(get("/files/read?path=" + root_ + "/secret&offset=0", &body), 404);
  EXPECT_EQ(get("/files/read?path=/etc/passwd&offset=0", &body), 404);
  EXPECT_EQ(get("/files/read?path=" + sandbox_ + "/escape&offset=0", &body), 403);
  EXPECT_EQ(body.find("TOP-SECRET"), std::string::npos);
  EXPECT_EQ(get("/files/read?path=" + sandbox_ + "/missing&offset=0", &body), 404);
  EXPECT_EQ(get("/files/read?offset=0", &body), 400);
  EXPECT_EQ(get("/files/read?path=" + sandbox_ + "/stdout&offset=abc", &body), 400);
  EXPECT_EQ(get("/files/read?path=" + sandbox_ + "&offset=0", &body), 400);  // a directory
  EXPECT_EQ(get("/files/browse?path=" + sandbox_ + "/..", &body), 400);
  EXPECT_EQ(get("/files/download?path=" + sandbox_ + "/escape", &body), 403);
}

TEST_F(FilesTest, BrowsesASandbox) {
  std::string body;
  ASSERT_EQ(get("/files/browse?path=" + sandbox_, &body), 200);
  auto json = json::parse(body);
  ASSERT_TRUE(json.ok()) << body;
  ASSERT_TRUE(json->isArray());
  std::vector<std::string> paths;
  for (const json::Value& entry : json->array()) paths.push_back(entry["path"].string());
  // The escaping link is listed (it is in the sandbox) but cannot be read.
  EXPECT_EQ(paths, (std::vector<std::string>{sandbox_ + "/escape", sandbox_ + "/stdout",
                                             sandbox_ + "/sub"}));
  const json::Value& stdoutEntry = json->array()[1];
  EXPECT_EQ(stdoutEntry["size"].integer(), 15);
  EXPECT_EQ(stdoutEntry["mode"].string(), "-rw-r--r--");
  EXPECT_EQ(json->array()[2]["mode"].string().substr(0, 1), "d");
}

TEST_F(FilesTest, DetachedSandboxesAreGone) {
  std::string body;
  ASSERT_EQ(get("/files/download?path=" + sandbox_ + "/stdout", &body), 200);
  EXPECT_EQ(body, "hello, sandbox\n");
  ASSERT_TRUE(process::dispatch(files_.pid(), &Files::detach, sandbox_).await());
  EXPECT_EQ(get("/files/read?path=" + sandbox_ + "/stdout&offset=0", &body), 404);
}

}  // namespace
}  // namespace mesos::internal::slave
