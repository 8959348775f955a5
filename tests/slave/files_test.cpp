// /files/browse, /files/read and /files/download: sandbox files readable,
// nothing else; downloads streamed from disk.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "process/sendfile.hpp"
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
    auto attached = process::dispatch(files_.pid(), &Files::attach, sandbox_, sandbox_,
                                      std::optional<std::string>());
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

// A download is streamed from disk by the transport (sendfile), not read
// into the Files actor's answer: a big file arrives whole, byte for byte,
// and an answer pipelined behind it on the same connection follows it.
TEST_F(FilesTest, ADownloadIsStreamedWholeAndWhatFollowsItComesAfter) {
  const std::string big = sandbox_ + "/big";
  constexpr off_t kSize = 48LL << 20;  // 48 MiB, sparse but for its last bytes
  {
    int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, kSize - 4), 0);
    ASSERT_EQ(::pwrite(fd, "TAIL", 4, kSize - 4), 4);
    ::close(fd);
  }
  int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(runtime_->address().port);
  to.sin_addr.s_addr = htonl(runtime_->address().ip);
  ASSERT_EQ(::connect(sock, reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
  std::string requests = "GET /files/download?path=" + big + " HTTP/1.1\r\nHost: x\r\n\r\n" +
                         "GET /files/read?path=" + sandbox_ +
                         "/stdout&offset=0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(::write(sock, requests.data(), requests.size()),
            static_cast<ssize_t>(requests.size()));
  std::string received;
  char buffer[1 << 16];
  ssize_t n;
  while ((n = ::read(sock, buffer, sizeof(buffer))) > 0) received.append(buffer, static_cast<size_t>(n));
  ::close(sock);

  size_t headEnd = received.find("\r\n\r\n");
  ASSERT_NE(headEnd, std::string::npos);
  std::string head = received.substr(0, headEnd);
  EXPECT_NE(head.find("HTTP/1.1 200"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Length: " + std::to_string(kSize)), std::string::npos) << head;
  EXPECT_EQ(head.find("Content-Length: 0"), std::string::npos) << head;
  EXPECT_EQ(head.find(process::http::kSendFileHeader), std::string::npos) << head;
  ASSERT_GE(received.size(), headEnd + 4 + static_cast<size_t>(kSize)) << "the file was cut short";
  std::string body = received.substr(headEnd + 4, static_cast<size_t>(kSize));
  EXPECT_EQ(body.substr(body.size() - 4), "TAIL");
  EXPECT_EQ(body.find_first_not_of('\0'), body.size() - 4);
  std::string rest = received.substr(headEnd + 4 + static_cast<size_t>(kSize));
  EXPECT_EQ(rest.find("HTTP/1.1 200"), 0u) << rest.substr(0, 200);
  EXPECT_NE(rest.find("hello, sandbox"), std::string::npos) << rest.substr(0, 400);
}

}  // namespace
}  // namespace mesos::internal::slave
