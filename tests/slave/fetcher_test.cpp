// The fetcher: the slave-side API (Fetcher) driving the real mesos-fetcher
// helper against files, archives made here with tar/zip/gzip, and a tiny
// HTTP server on a loopback port that counts the requests it gets. Timeouts
// run on a paused clock; nothing waits on the wall clock for an event.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "slave/fetcher.hpp"
#include "slave/fetcher_plan.hpp"
#include "slave/flags.hpp"

namespace mesos::internal::slave {
namespace {

using namespace std::chrono_literals;

// An HTTP/1.1 server on 127.0.0.1 serving fixed answers, one thread per
// connection. It counts requests per path and can be told to cut a body
// short or never to answer.
class TestHttpServer {
 public:
  struct Answer {
    Answer(int status = 200, std::string body = "") : status(status), body(std::move(body)) {}
    static Answer cutShort(std::string body) {
      Answer answer(200, std::move(body));
      answer.truncated = true;
      return answer;
    }
    static Answer hanging() {
      Answer answer;
      answer.hang = true;
      return answer;
    }
    static Answer redirect(std::string to) {
      Answer answer(302);
      answer.location = std::move(to);
      return answer;
    }

    int status;
    std::string body;
    bool truncated = false;  // announces the whole body, sends half, closes
    bool hang = false;       // reads the request, never answers
    std::string location;    // a redirect's target
  };

  TestHttpServer() {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_GE(listener_, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    CHECK_EQ(::listen(listener_, 64), 0);
    socklen_t length = sizeof(address);
    CHECK_EQ(::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length), 0);
    port_ = ntohs(address.sin_port);
    stop_ = ::eventfd(0, EFD_CLOEXEC);
    acceptor_ = std::thread([this] { acceptLoop(); });
  }

  ~TestHttpServer() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      released_.notify_all();
    }
    uint64_t one = 1;
    CHECK_EQ(::write(stop_, &one, sizeof(one)), static_cast<ssize_t>(sizeof(one)));
    acceptor_.join();
    std::vector<std::thread> connections;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      connections.swap(connections_);
    }
    for (std::thread& connection : connections) connection.join();
    ::close(listener_);
    ::close(stop_);
  }

  void serve(const std::string& path, Answer answer) {
    std::lock_guard<std::mutex> lock(mutex_);
    answers_[path] = std::move(answer);
  }

  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  int requests(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_[path];
  }

  // Waits until `path` has been asked for `count` times (at most `bound`).
  bool awaitRequests(const std::string& path, int count, std::chrono::seconds bound = 30s) {
    std::unique_lock<std::mutex> lock(mutex_);
    return requested_.wait_for(lock, bound, [&] { return requests_[path] >= count; });
  }

  // Holds every answer of `path` until release() (the request is counted).
  void gate(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    gated_[path] = true;
  }
  void release(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    gated_[path] = false;
    released_.notify_all();
  }

 private:
  void acceptLoop() {
    for (;;) {
      pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) continue;
      if (fds[1].revents & POLLIN) return;
      int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      std::lock_guard<std::mutex> lock(mutex_);
      connections_.emplace_back([this, client] { handle(client); });
    }
  }

  // Whether the server is stopping or the client went away, after waiting
  // for either (or for data when `forData`).
  bool waitClient(int client, bool forData) {
    pollfd fds[2] = {{client, static_cast<short>(forData ? POLLIN : POLLRDHUP), 0},
                     {stop_, POLLIN, 0}};
    ::poll(fds, 2, forData ? 30000 : -1);
    return (fds[1].revents & POLLIN) || (fds[0].revents & (POLLHUP | POLLERR | POLLRDHUP));
  }

  void handle(int client) {
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      if (waitClient(client, true)) break;
      ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
      if (n <= 0) break;
      request.append(buffer, static_cast<size_t>(n));
    }
    std::istringstream line(request.substr(0, request.find("\r\n")));
    std::string method, path;
    line >> method >> path;
    Answer answer{404, "no such file\n"};
    {
      std::unique_lock<std::mutex> lock(mutex_);
      requests_[path]++;
      requested_.notify_all();
      if (answers_.count(path)) answer = answers_[path];
      released_.wait(lock, [&] { return stopping_ || !gated_[path]; });
    }
    if (answer.hang) {
      waitClient(client, false);
      ::close(client);
      return;
    }
    std::string reason = answer.status == 200   ? "OK"
                         : answer.status == 404 ? "Not Found"
                         : answer.status == 302 ? "Found"
                                                : "Error";
    std::string head = "HTTP/1.1 " + std::to_string(answer.status) + " " + reason +
                       "\r\nContent-Length: " + std::to_string(answer.body.size()) +
                       "\r\nConnection: close\r\n";
    if (!answer.location.empty()) head += "Location: " + answer.location + "\r\n";
    std::string response =
        head + "\r\n" +
        (answer.truncated ? answer.body.substr(0, answer.body.size() / 2) : answer.body);
    for (size_t sent = 0; sent < response.size();) {
      ssize_t n = ::send(client, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    ::close(client);
  }

  int listener_ = -1;
  int stop_ = -1;
  uint16_t port_ = 0;
  std::thread acceptor_;
  std::mutex mutex_;
  std::condition_variable requested_;
  std::condition_variable released_;
  std::vector<std::thread> connections_;
  std::map<std::string, Answer> answers_;
  std::map<std::string, int> requests_;
  std::map<std::string, bool> gated_;
  bool stopping_ = false;
};

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeFile(const std::string& path, const std::string& text, mode_t mode = 0644) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  ::chmod(path.c_str(), mode);
}

bool exists(const std::string& path) {
  struct stat s {};
  return ::lstat(path.c_str(), &s) == 0;
}

mode_t modeOf(const std::string& path) {
  struct stat s {};
  return ::stat(path.c_str(), &s) == 0 ? (s.st_mode & 07777) : 0;
}

using Fetched = process::Future<Result<process::Nothing>>;

// The error a fetch ended with: "" when it succeeded.
std::string errorOf(const Fetched& done) {
  if (!done.isReady()) return "(the fetch has not ended)";
  return done.get() ? "" : done.get().error().message;
}

CommandInfo::URI uri(const std::string& value) {
  CommandInfo::URI uri;
  uri.set_value(value);
  return uri;
}

class FetcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/mesos-fetcher-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    root_ = pattern;
    files_ = root_ + "/files";
    ASSERT_EQ(::mkdir(files_.c_str(), 0755), 0);
    sandbox_ = newSandbox();
  }

  void TearDown() override {
    fetcher_.reset();
    if (!mounted_.empty()) ::umount2(mounted_.c_str(), MNT_DETACH);
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  std::string newSandbox() {
    std::string sandbox = root_ + "/sandbox" + std::to_string(++sandboxes_);
    EXPECT_EQ(::mkdir(sandbox.c_str(), 0755), 0);
    return sandbox;
  }

  FetchPlan plan(std::vector<CommandInfo::URI> uris, const std::string& sandbox = "") {
    FetchPlan plan;
    plan.uris = std::move(uris);
    plan.sandbox = sandbox.empty() ? sandbox_ : sandbox;
    plan.user = "alice";
    plan.cacheDirectory = root_ + "/cache";
    plan.cacheSize = 1 << 20;
    return plan;
  }

  // Runs the plan to its end.
  Fetched run(const FetchPlan& plan) {
    auto done = fetcher_->fetch("c" + std::to_string(++fetches_), plan, 60s);
    EXPECT_TRUE(done.await(60s)) << "the fetch did not end";
    return done;
  }

  // The failure of a fetch expected to fail ("" when it did not fail).
  std::string failure(const FetchPlan& plan) {
    std::string error = errorOf(run(plan));
    EXPECT_NE(error, "") << "the fetch succeeded";
    return error;
  }

  void expectFetched(const FetchPlan& plan) {
    ASSERT_EQ(errorOf(run(plan)), "") << "stderr: " << readFile(plan.sandbox + "/stderr");
  }

  static void shell(const std::string& command) {
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  // A tree to archive: pkg/bin/run.sh (0755) and pkg/data.txt.
  void makeTree(const std::string& dir) {
    writeFile(dir + "/pkg/bin/run.sh", "#!/bin/sh\necho run\n", 0755);
    writeFile(dir + "/pkg/data.txt", "payload\n");
  }

  size_t cachedFiles() {
    size_t count = 0;
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator(root_ + "/cache", ignored)) {
      if (entry.path().extension() == ".data") ++count;
    }
    return count;
  }

  process::Clock clock_{[](process::TimePoint) {}};
  std::unique_ptr<Fetcher> fetcher_ = std::make_unique<Fetcher>(MESOS_FETCHER_PATH, clock_);
  TestHttpServer server_;
  std::string root_;
  std::string files_;
  std::string sandbox_;
  std::string mounted_;
  int sandboxes_ = 0;
  int fetches_ = 0;
};

TEST_F(FetcherTest, LocalPathAndFileUriAreCopied) {
  writeFile(files_ + "/a.txt", "alpha");
  writeFile(files_ + "/b.txt", "beta");
  expectFetched(plan({uri(files_ + "/a.txt"), uri("file://" + files_ + "/b.txt")}));
  EXPECT_EQ(readFile(sandbox_ + "/a.txt"), "alpha");
  EXPECT_EQ(readFile(sandbox_ + "/b.txt"), "beta");
  EXPECT_EQ(modeOf(sandbox_ + "/a.txt"), 0644u);
}

TEST_F(FetcherTest, RelativeSandboxIsTakenFromTheSlavesDirectory) {
  writeFile(files_ + "/a.txt", "alpha");
  std::string relative = std::filesystem::relative(sandbox_).string();
  ASSERT_NE(relative[0], '/');
  expectFetched(plan({uri(files_ + "/a.txt")}, relative));
  EXPECT_EQ(readFile(sandbox_ + "/a.txt"), "alpha");
}

TEST_F(FetcherTest, HttpDownloadNamedAfterThePathWithoutQuery) {
  server_.serve("/dist/tool.txt?v=3", {200, "downloaded"});
  expectFetched(plan({uri(server_.url("/dist/tool.txt?v=3"))}));
  EXPECT_EQ(readFile(sandbox_ + "/tool.txt"), "downloaded");
  EXPECT_EQ(server_.requests("/dist/tool.txt?v=3"), 1);
}

TEST_F(FetcherTest, RedirectsAreFollowed) {
  server_.serve("/old", TestHttpServer::Answer::redirect(server_.url("/new.txt")));
  server_.serve("/new.txt", {200, "moved"});
  CommandInfo::URI moved = uri(server_.url("/old"));
  moved.set_output_file("result.txt");
  expectFetched(plan({moved}));
  EXPECT_EQ(readFile(sandbox_ + "/result.txt"), "moved");
}

TEST_F(FetcherTest, ProgressIsAppendedToTheSandboxStderr) {
  writeFile(sandbox_ + "/stderr", "before\n");
  server_.serve("/p.txt", {200, "x"});
  expectFetched(plan({uri(server_.url("/p.txt"))}));
  std::string err = readFile(sandbox_ + "/stderr");
  EXPECT_EQ(err.rfind("before\n", 0), 0u) << err;
  EXPECT_NE(err.find("mesos-fetcher: fetching '" + server_.url("/p.txt") + "'"), std::string::npos)
      << err;
  EXPECT_TRUE(exists(sandbox_ + "/stdout"));
}

TEST_F(FetcherTest, ExecutableGetsMode0755AndIsNotExtracted) {
  makeTree(files_ + "/tree");
  shell("tar -C " + files_ + "/tree -czf " + files_ + "/tool.tar.gz pkg");
  writeFile(files_ + "/script", "#!/bin/sh\n");
  CommandInfo::URI script = uri(files_ + "/script");
  script.set_executable(true);
  CommandInfo::URI archive = uri(files_ + "/tool.tar.gz");
  archive.set_executable(true);
  expectFetched(plan({script, archive}));
  EXPECT_EQ(modeOf(sandbox_ + "/script"), 0755u);
  EXPECT_EQ(modeOf(sandbox_ + "/tool.tar.gz"), 0755u);
  EXPECT_FALSE(exists(sandbox_ + "/pkg"));
}

TEST_F(FetcherTest, OutputFileNamesTheFileInsideTheSandbox) {
  server_.serve("/blob", {200, "bytes"});
  CommandInfo::URI named = uri(server_.url("/blob"));
  named.set_output_file("./sub//dir/renamed.bin");
  expectFetched(plan({named}));
  EXPECT_EQ(readFile(sandbox_ + "/sub/dir/renamed.bin"), "bytes");
}

TEST_F(FetcherTest, EveryArchiveKindIsExtracted) {
  makeTree(files_ + "/tree");
  const std::string tree = files_ + "/tree";
  const std::vector<std::pair<std::string, std::string>> archives = {
      {"a.tar", "tar -C " + tree + " -cf " + files_ + "/a.tar pkg"},
      {"a.tar.gz", "tar -C " + tree + " -czf " + files_ + "/a.tar.gz pkg"},
      {"a.tgz", "tar -C " + tree + " -czf " + files_ + "/a.tgz ./pkg"},
      {"a.tar.bz2", "tar -C " + tree + " -cjf " + files_ + "/a.tar.bz2 pkg"},
      {"a.tar.xz", "tar -C " + tree + " -cJf " + files_ + "/a.tar.xz pkg"},
      {"a.zip", "cd " + tree + " && zip -qr " + files_ + "/a.zip pkg"},
  };
  for (const auto& [name, command] : archives) {
    SCOPED_TRACE(name);
    shell(command);
    std::string sandbox = newSandbox();
    expectFetched(plan({uri(files_ + "/" + name)}, sandbox));
    EXPECT_EQ(readFile(sandbox + "/pkg/data.txt"), "payload\n");
    EXPECT_EQ(readFile(sandbox + "/pkg/bin/run.sh"), "#!/bin/sh\necho run\n");
    EXPECT_TRUE(modeOf(sandbox + "/pkg/bin/run.sh") & 0100) << "the executable bit was lost";
    EXPECT_TRUE(exists(sandbox + "/" + name)) << "the archive itself stays";
  }

  // A gzip file alone is decompressed next to itself, over HTTP too.
  writeFile(files_ + "/notes.txt", "compressed notes\n");
  shell("gzip -c " + files_ + "/notes.txt > " + files_ + "/notes.txt.gz");
  server_.serve("/notes.txt.gz", {200, readFile(files_ + "/notes.txt.gz")});
  CommandInfo::URI gz = uri(server_.url("/notes.txt.gz"));
  gz.set_output_file("docs/notes.txt.gz");
  std::string sandbox = newSandbox();
  expectFetched(plan({gz}, sandbox));
  EXPECT_EQ(readFile(sandbox + "/docs/notes.txt"), "compressed notes\n");
}

TEST_F(FetcherTest, ExtractFalseKeepsTheArchiveOnly) {
  makeTree(files_ + "/tree");
  shell("tar -C " + files_ + "/tree -czf " + files_ + "/a.tar.gz pkg");
  CommandInfo::URI archive = uri(files_ + "/a.tar.gz");
  archive.set_extract(false);
  expectFetched(plan({archive}));
  EXPECT_TRUE(exists(sandbox_ + "/a.tar.gz"));
  EXPECT_FALSE(exists(sandbox_ + "/pkg"));
}

TEST_F(FetcherTest, NotFoundNamesTheUriAndTheAnswer) {
  std::string missing = server_.url("/missing.tar.gz");
  EXPECT_EQ(failure(plan({uri(missing)})),
            "Failed to fetch '" + missing + "': the server answered 404 Not Found");
  EXPECT_FALSE(exists(sandbox_ + "/missing.tar.gz"));
  // The failure is in the sandbox's stderr too.
  EXPECT_NE(readFile(sandbox_ + "/stderr").find("404 Not Found"), std::string::npos);
}

TEST_F(FetcherTest, LaterUrisAreNotFetchedAfterAFailure) {
  writeFile(files_ + "/ok.txt", "ok");
  std::string message = failure(plan({uri(files_ + "/absent"), uri(files_ + "/ok.txt")}));
  EXPECT_EQ(message.rfind("Failed to fetch '" + files_ + "/absent': cannot open", 0), 0u)
      << message;
  EXPECT_FALSE(exists(sandbox_ + "/ok.txt"));
}

TEST_F(FetcherTest, TruncatedArchiveFails) {
  makeTree(files_ + "/tree");
  writeFile(files_ + "/tree/pkg/big.bin", std::string(200000, 'z') + "end");
  shell("head -c 300000 /dev/urandom > " + files_ + "/tree/pkg/noise.bin");
  shell("tar -C " + files_ + "/tree -czf " + files_ + "/full.tar.gz pkg");
  std::string full = readFile(files_ + "/full.tar.gz");

  // Served whole but cut short: the archive cannot be read to its end.
  server_.serve("/broken.tar.gz", {200, full.substr(0, full.size() / 2)});
  std::string url = server_.url("/broken.tar.gz");
  std::string message = failure(plan({uri(url)}));
  EXPECT_EQ(
      message.rfind("Failed to fetch '" + url + "': cannot read archive 'broken.tar.gz': ", 0), 0u)
      << message;

  // The connection closes before the announced length: the download fails.
  server_.serve("/cut.tar.gz", TestHttpServer::Answer::cutShort(full));
  url = server_.url("/cut.tar.gz");
  message = failure(plan({uri(url)}, newSandbox()));
  EXPECT_EQ(message.rfind("Failed to fetch '" + url + "': transfer closed", 0), 0u) << message;
}

TEST_F(FetcherTest, OutputOutsideTheSandboxIsRefused) {
  writeFile(files_ + "/f.txt", "f");
  CommandInfo::URI up = uri(files_ + "/f.txt");
  up.set_output_file("../escape.txt");
  EXPECT_EQ(failure(plan({up})), "Failed to fetch '" + files_ +
                                     "/f.txt': output_file "
                                     "'../escape.txt' climbs out with '..'");
  CommandInfo::URI nested = uri(files_ + "/f.txt");
  nested.set_output_file("a/../../escape.txt");
  EXPECT_NE(failure(plan({nested})).find("climbs out with '..'"), std::string::npos);
  CommandInfo::URI absolute = uri(files_ + "/f.txt");
  absolute.set_output_file(root_ + "/absolute.txt");
  EXPECT_EQ(failure(plan({absolute})), "Failed to fetch '" + files_ + "/f.txt': output_file '" +
                                           root_ +
                                           "/absolute.txt' is absolute; it must be "
                                           "relative to the sandbox");
  std::string dots = server_.url("/dir/..");
  EXPECT_EQ(failure(plan({uri(dots)})), "Failed to fetch '" + dots +
                                            "': no file name can be taken from '" + dots +
                                            "' (set output_file)");
  EXPECT_NE(failure(plan({uri("file://" + files_ + "/..")})).find("no file name"),
            std::string::npos);
  EXPECT_FALSE(exists(root_ + "/escape.txt"));
  EXPECT_FALSE(exists(root_ + "/absolute.txt"));

  // A symbolic link already in the sandbox is not followed out of it.
  ASSERT_EQ(::symlink(root_.c_str(), (sandbox_ + "/link").c_str()), 0);
  CommandInfo::URI through = uri(files_ + "/f.txt");
  through.set_output_file("link/through.txt");
  EXPECT_NE(failure(plan({through})).find("is not a directory"), std::string::npos);
  EXPECT_FALSE(exists(root_ + "/through.txt"));
}

TEST_F(FetcherTest, ArchiveEntriesOutsideTheSandboxAreRefused) {
  const std::string work = files_ + "/work/inner";
  writeFile(work + "/../outside.txt", "outside");
  // Member names kept as written (-P): "../outside.txt", an absolute path.
  shell("cd " + work + " && tar -cPf " + files_ + "/dotdot.tar ../outside.txt");
  shell("tar -cPf " + files_ + "/absolute.tar " + files_ + "/work/outside.txt");
  ASSERT_EQ(::symlink("/etc", (work + "/etc-link").c_str()), 0);
  shell("tar -C " + work + " -cf " + files_ + "/abslink.tar etc-link");
  ASSERT_EQ(::symlink("../../up", (work + "/up-link").c_str()), 0);
  shell("tar -C " + work + " -cf " + files_ + "/uplink.tar up-link");
  // Each link alone stays inside; together they lead out.
  ASSERT_EQ(::symlink(".", (work + "/here").c_str()), 0);
  ASSERT_EQ(::symlink("here/..", (work + "/chain").c_str()), 0);
  shell("tar -C " + work + " -cf " + files_ + "/chain.tar here chain");
  // A hard link through such a chain, made the way only a crafted archive
  // holds it.
  shell(
      "python3 -c \"import tarfile, sys\n"
      "t = tarfile.open(sys.argv[1], 'w')\n"
      "for name, target, kind in [('here', '.', tarfile.SYMTYPE),\n"
      "                           ('chain', 'here/..', tarfile.SYMTYPE),\n"
      "                           ('h', 'chain/secret.txt', tarfile.LNKTYPE)]:\n"
      "    entry = tarfile.TarInfo(name); entry.type = kind; entry.linkname = target\n"
      "    t.addfile(entry)\n"
      "t.close()\" " +
      files_ + "/hardlink.tar");
  writeFile(root_ + "/secret.txt", "secret");

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"dotdot.tar", "'dotdot.tar' holds '../outside.txt': '../outside.txt' climbs out with '..'"},
      {"absolute.tar",
       "holds '" + files_ + "/work/outside.txt': '" + files_ + "/work/outside.txt' is absolute"},
      {"abslink.tar", "holds 'etc-link': it is a symbolic link to the absolute path '/etc'"},
      {"uplink.tar", "holds 'up-link': it is a symbolic link to '../../up', outside the sandbox"},
      {"chain.tar", "holds 'chain', a symbolic link that leads to '" + root_ + "'"},
      {"hardlink.tar",
       "holds 'h', a hard link to 'chain/secret.txt' through its symbolic link 'chain'"},
  };
  for (const auto& [name, expected] : cases) {
    SCOPED_TRACE(name);
    std::string sandbox = newSandbox();
    std::string message = failure(plan({uri(files_ + "/" + name)}, sandbox));
    EXPECT_EQ(message.rfind("Failed to fetch '" + files_ + "/" + name + "': ", 0), 0u) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }
  EXPECT_FALSE(exists(root_ + "/outside.txt"));
  EXPECT_FALSE(exists(root_ + "/up"));
  EXPECT_FALSE(exists(root_ + "/sandbox" + std::to_string(sandboxes_ - 1) + "/chain"))
      << "the link leading out was not removed";
  EXPECT_FALSE(exists(root_ + "/sandbox" + std::to_string(sandboxes_) + "/h"));
}

TEST_F(FetcherTest, UnsupportedSchemeIsNamed) {
  EXPECT_EQ(failure(plan({uri("ftp://example.com/x.tar.gz")})),
            "Failed to fetch 'ftp://example.com/x.tar.gz': unsupported URI scheme 'ftp' (the "
            "fetcher takes local paths, file://, http:// and https://; other schemes need the "
            "slave's --hadoop_home)");
  EXPECT_NE(failure(plan({uri("file://otherhost/x")})).find("names a host"), std::string::npos);
}

TEST_F(FetcherTest, OtherSchemesGoThroughHadoop) {
  writeFile(files_ + "/remote.txt", "from hdfs");
  const std::string hadoop = root_ + "/hadoop";
  writeFile(hadoop + "/bin/hadoop",
            "#!/bin/sh\n[ \"$1 $2\" = 'fs -cat' ] || exit 3\nexec cat \"" + files_ +
                "/${3#hdfs://namenode/}\"\n",
            0755);
  FetchPlan through = plan({uri("hdfs://namenode/remote.txt")});
  through.hadoopHome = hadoop;
  expectFetched(through);
  EXPECT_EQ(readFile(sandbox_ + "/remote.txt"), "from hdfs");

  FetchPlan missing = plan({uri("hdfs://namenode/absent.txt")}, newSandbox());
  missing.hadoopHome = hadoop;
  std::string message = failure(missing);
  EXPECT_EQ(message.rfind("Failed to fetch 'hdfs://namenode/absent.txt': '" + hadoop +
                              "/bin/hadoop fs -cat' exited with status 1",
                          0),
            0u)
      << message;
}

TEST_F(FetcherTest, RelativeUrisNeedFrameworksHome) {
  writeFile(files_ + "/frameworks/exec/run.txt", "relative");
  EXPECT_EQ(failure(plan({uri("exec/run.txt")})),
            "Failed to fetch 'exec/run.txt': 'exec/run.txt' is a relative path, and the slave has "
            "no --frameworks_home to find it in");
  FetchPlan home = plan({uri("exec/run.txt")});
  home.frameworksHome = files_ + "/frameworks/";
  expectFetched(home);
  EXPECT_EQ(readFile(sandbox_ + "/run.txt"), "relative");
  FetchPlan climbing = plan({uri("../a.txt")});
  climbing.frameworksHome = files_ + "/frameworks";
  EXPECT_NE(failure(climbing).find("relative URI: '../a.txt' climbs out with '..'"),
            std::string::npos);
}

TEST_F(FetcherTest, CachedUriIsDownloadedOncePerUser) {
  server_.serve("/pkg.tar.gz", {200, "not really an archive"});
  CommandInfo::URI cached = uri(server_.url("/pkg.tar.gz"));
  cached.set_cache(true);
  cached.set_extract(false);
  std::string first = newSandbox();
  std::string second = newSandbox();
  expectFetched(plan({cached}, first));
  expectFetched(plan({cached}, second));
  EXPECT_EQ(server_.requests("/pkg.tar.gz"), 1);
  EXPECT_EQ(readFile(first + "/pkg.tar.gz"), "not really an archive");
  EXPECT_EQ(readFile(second + "/pkg.tar.gz"), "not really an archive");
  EXPECT_NE(readFile(second + "/stderr").find("is in the cache"), std::string::npos);

  // The key is user and URI: another user downloads again.
  FetchPlan bob = plan({cached}, newSandbox());
  bob.user = "bob";
  expectFetched(bob);
  EXPECT_EQ(server_.requests("/pkg.tar.gz"), 2);
  EXPECT_EQ(cachedFiles(), 2u);

  // Without `cache` the cache is not used.
  CommandInfo::URI direct = uri(server_.url("/pkg.tar.gz"));
  direct.set_extract(false);
  expectFetched(plan({direct}, newSandbox()));
  EXPECT_EQ(server_.requests("/pkg.tar.gz"), 3);
}

TEST_F(FetcherTest, ClearedCacheFetchesAgain) {
  server_.serve("/c.txt", {200, "cached"});
  CommandInfo::URI cached = uri(server_.url("/c.txt"));
  cached.set_cache(true);
  expectFetched(plan({cached}, newSandbox()));
  EXPECT_EQ(cachedFiles(), 1u);
  ASSERT_TRUE(clearFetcherCache(root_ + "/cache"));
  EXPECT_FALSE(exists(root_ + "/cache"));
  ASSERT_TRUE(clearFetcherCache(root_ + "/cache")) << "a missing directory is fine";
  expectFetched(plan({cached}, newSandbox()));
  EXPECT_EQ(server_.requests("/c.txt"), 2);
}

TEST_F(FetcherTest, CachedArchiveIsExtractedFromEachCopy) {
  makeTree(files_ + "/tree");
  shell("tar -C " + files_ + "/tree -czf " + files_ + "/a.tar.gz pkg");
  server_.serve("/a.tar.gz", {200, readFile(files_ + "/a.tar.gz")});
  CommandInfo::URI cached = uri(server_.url("/a.tar.gz"));
  cached.set_cache(true);
  for (int i = 0; i < 2; ++i) {
    std::string sandbox = newSandbox();
    expectFetched(plan({cached}, sandbox));
    EXPECT_EQ(readFile(sandbox + "/pkg/data.txt"), "payload\n");
  }
  EXPECT_EQ(server_.requests("/a.tar.gz"), 1);
}

TEST_F(FetcherTest, LeastRecentlyUsedIsEvicted) {
  for (const char* name : {"/a", "/b", "/c"})
    server_.serve(name, {200, std::string(1000, name[1])});
  auto fetchCached = [&](const std::string& path) {
    CommandInfo::URI cached = uri(server_.url(path));
    cached.set_cache(true);
    FetchPlan small = plan({cached}, newSandbox());
    small.cacheSize = 2500;  // two of the files
    expectFetched(small);
    EXPECT_EQ(readFile(small.sandbox + path), std::string(1000, path[1]));
  };
  fetchCached("/a");
  fetchCached("/b");
  fetchCached("/a");  // a is now more recent than b
  EXPECT_EQ(server_.requests("/a"), 1);
  fetchCached("/c");  // evicts b
  EXPECT_EQ(cachedFiles(), 2u);
  fetchCached("/a");
  EXPECT_EQ(server_.requests("/a"), 1);
  fetchCached("/b");
  EXPECT_EQ(server_.requests("/b"), 2);
  fetchCached("/a");  // b evicted c, the least recent
  EXPECT_EQ(server_.requests("/a"), 1);
  EXPECT_EQ(server_.requests("/c"), 1);
}

TEST_F(FetcherTest, FileLargerThanTheCacheIsFetchedButNotKept) {
  server_.serve("/huge", {200, std::string(3000, 'h')});
  CommandInfo::URI cached = uri(server_.url("/huge"));
  cached.set_cache(true);
  for (int i = 0; i < 2; ++i) {
    FetchPlan small = plan({cached}, newSandbox());
    small.cacheSize = 2500;
    expectFetched(small);
    EXPECT_EQ(readFile(small.sandbox + "/huge"), std::string(3000, 'h'));
    EXPECT_NE(readFile(small.sandbox + "/stderr").find("more than the whole cache"),
              std::string::npos);
  }
  EXPECT_EQ(server_.requests("/huge"), 2);
  EXPECT_EQ(cachedFiles(), 0u);
}

TEST_F(FetcherTest, ConcurrentFetchersDownloadACachedUriOnce) {
  server_.serve("/shared", {200, "shared bytes"});
  server_.gate("/shared");
  CommandInfo::URI cached = uri(server_.url("/shared"));
  cached.set_cache(true);
  FetchPlan one = plan({cached}, newSandbox());
  FetchPlan two = plan({cached}, newSandbox());
  auto first = fetcher_->fetch("one", one, 60s);
  ASSERT_TRUE(server_.awaitRequests("/shared", 1));
  // The second starts while the first holds the download; whenever it
  // reaches the cache, it finds the entry taken or filled.
  auto second = fetcher_->fetch("two", two, 60s);
  server_.release("/shared");
  ASSERT_TRUE(first.await(60s));
  ASSERT_TRUE(second.await(60s));
  ASSERT_EQ(errorOf(first), "");
  ASSERT_EQ(errorOf(second), "");
  EXPECT_EQ(server_.requests("/shared"), 1);
  EXPECT_EQ(readFile(two.sandbox + "/shared"), "shared bytes");
}

TEST_F(FetcherTest, TimeoutKillsAHangingDownload) {
  server_.serve("/slow.tar.gz", TestHttpServer::Answer::hanging());
  clock_.pause();
  std::string url = server_.url("/slow.tar.gz");
  auto done = fetcher_->fetch("slow", plan({uri(url)}), 5s);
  ASSERT_TRUE(server_.awaitRequests("/slow.tar.gz", 1));
  std::optional<pid_t> pid = fetcher_->pid("slow");
  ASSERT_TRUE(pid.has_value());
  clock_.advance(4s);
  EXPECT_TRUE(done.isPending());
  clock_.advance(1s);
  ASSERT_TRUE(done.await(30s));
  EXPECT_EQ(errorOf(done), "Failed to fetch '" + url + "': timed out after 5secs");
  EXPECT_FALSE(fetcher_->pid("slow").has_value());
  EXPECT_NE(::kill(*pid, 0), 0) << "the helper still runs";
}

TEST_F(FetcherTest, KillEndsAFetch) {
  server_.serve("/forever", TestHttpServer::Answer::hanging());
  auto done = fetcher_->fetch("k", plan({uri(server_.url("/forever"))}), 60s);
  ASSERT_TRUE(server_.awaitRequests("/forever", 1));
  auto again = fetcher_->fetch("k", plan({uri(server_.url("/forever"))}), 60s);
  EXPECT_NE(errorOf(again).find("another fetch for 'k' is running"), std::string::npos)
      << errorOf(again);
  fetcher_->kill("k", "the task was killed");
  ASSERT_TRUE(done.await(30s));
  EXPECT_EQ(errorOf(done),
            "Failed to fetch '" + server_.url("/forever") + "': killed (the task was killed)");
}

TEST_F(FetcherTest, NoUrisNeedNoHelper) {
  auto done = fetcher_->fetch("none", plan({}), 60s);
  EXPECT_EQ(errorOf(done), "");
  EXPECT_FALSE(exists(sandbox_ + "/stderr"));
}

TEST_F(FetcherTest, MissingHelperFailsAtOnce) {
  Fetcher broken(root_ + "/no-such-helper", clock_);
  auto done = broken.fetch("x", plan({uri("/etc/hostname")}), 60s);
  std::string error = errorOf(done);
  EXPECT_EQ(
      error.rfind("Failed to fetch '/etc/hostname': cannot run '" + root_ + "/no-such-helper'", 0),
      0u)
      << error;
}

TEST_F(FetcherTest, DownloadStopsWhenTheDiskIsFull) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  std::string small = root_ + "/small";
  ASSERT_EQ(::mkdir(small.c_str(), 0755), 0);
  if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=1m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
  }
  mounted_ = small;
  std::string big(2 << 20, 'b');
  server_.serve("/big", {200, big});
  std::string message = failure(plan({uri(server_.url("/big"))}, small));
  EXPECT_NE(message.find("it is 2097152 bytes and the file system of '" + small + "/big' has "),
            std::string::npos)
      << message;
  writeFile(files_ + "/big", big);
  message = failure(plan({uri(files_ + "/big")}, small));
  EXPECT_NE(message.find("'" + small + "/big' needs 2097152 bytes; its file system has "),
            std::string::npos)
      << message;
  // An archive that expands beyond the free space stops mid-way.
  writeFile(files_ + "/tree/zeros.bin", std::string(3 << 20, '\0'));
  shell("tar -C " + files_ + "/tree -czf " + files_ + "/zeros.tar.gz zeros.bin");
  message = failure(plan({uri(files_ + "/zeros.tar.gz")}, small));
  EXPECT_NE(message.find("holds 'zeros.bin' of 3145728 bytes; the sandbox's file system has"),
            std::string::npos)
      << message;
  EXPECT_FALSE(exists(small + "/big"));
}

TEST(FetcherPlanTest, PlanRoundTripsThroughJson) {
  FetchPlan plan;
  CommandInfo::URI a;
  a.set_value("http://h/a.tgz");
  a.set_cache(true);
  a.set_output_file("x/a.tgz");
  CommandInfo::URI b;
  b.set_value("/b");
  b.set_executable(true);
  b.set_extract(false);
  plan.uris = {a, b};
  plan.sandbox = "/s";
  plan.user = "u";
  plan.cacheDirectory = "/c";
  plan.cacheSize = 3ULL << 30;
  plan.hadoopHome = "/h";
  auto decoded = decodePlan(encodePlan(plan));
  ASSERT_TRUE(decoded) << decoded.error().message;
  ASSERT_EQ(decoded->uris.size(), 2u);
  EXPECT_EQ(decoded->uris[0].SerializeAsString(), a.SerializeAsString());
  EXPECT_EQ(decoded->uris[1].SerializeAsString(), b.SerializeAsString());
  EXPECT_EQ(decoded->sandbox, "/s");
  EXPECT_EQ(decoded->user, "u");
  EXPECT_EQ(decoded->cacheDirectory, "/c");
  EXPECT_EQ(decoded->cacheSize, 3ULL << 30);
  EXPECT_EQ(decoded->hadoopHome, std::optional<std::string>("/h"));
  EXPECT_FALSE(decoded->frameworksHome.has_value());

  EXPECT_EQ(decodePlan("{\"uris\": []}").error().message, "fetch plan: 'sandbox' is missing");
  EXPECT_EQ(decodePlan("{\"sandbox\": \"/s\", \"uris\": [{\"value\": 1}]}").error().message,
            "fetch plan: 'value' is not a string");
}

TEST(FetcherPlanTest, ArchiveKindsByName) {
  EXPECT_EQ(archiveKind("a.tar"), ArchiveKind::kTar);
  EXPECT_EQ(archiveKind("a.TAR.GZ"), ArchiveKind::kTar);
  EXPECT_EQ(archiveKind("a.tgz"), ArchiveKind::kTar);
  EXPECT_EQ(archiveKind("a.tar.bz2"), ArchiveKind::kTar);
  EXPECT_EQ(archiveKind("a.tar.xz"), ArchiveKind::kTar);
  EXPECT_EQ(archiveKind("a.txz"), ArchiveKind::kTar);
  EXPECT_EQ(archiveKind("a.zip"), ArchiveKind::kZip);
  EXPECT_EQ(archiveKind("a.gz"), ArchiveKind::kGzip);
  EXPECT_EQ(archiveKind("a.jar"), ArchiveKind::kNone);
  EXPECT_EQ(archiveKind(".gz"), ArchiveKind::kNone);
  EXPECT_EQ(archiveKind("tar"), ArchiveKind::kNone);
}

TEST(FetcherPlanTest, OutputPaths) {
  CommandInfo::URI u;
  u.set_value("https://h/p/q/file.bin?x=1#frag");
  EXPECT_EQ(*outputPath(u), "file.bin");
  u.set_value("https://h");
  EXPECT_FALSE(outputPath(u));
  u.set_value("/local/dir/");
  EXPECT_FALSE(outputPath(u));
  u.set_value("relative/name.txt");
  EXPECT_EQ(*outputPath(u), "name.txt");
  u.set_output_file("a/./b//c");
  EXPECT_EQ(*outputPath(u), "a/b/c");
  u.set_output_file(".");
  EXPECT_EQ(outputPath(u).error().message,
            "output_file '.' names the sandbox itself, not a file in it");
}

TEST(FetcherFlagsTest, DefaultsAndValidation) {
  Flags flags;
  EXPECT_EQ(flags.fetcher_cache_size.value, 2ULL << 30);
  EXPECT_EQ(flags.fetcher_cache_dir, "/tmp/mesos/fetch");
  EXPECT_FALSE(flags.hadoop_home.has_value());
  EXPECT_FALSE(flags.frameworks_home.has_value());

  const char* size[] = {"mesos-slave", "--fetcher_cache_size=lots"};
  auto loaded = Flags().load("MESOS_TEST_UNSET_", 2, size);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message.find('\n'), std::string::npos);
  EXPECT_NE(loaded.error().message.find("--fetcher_cache_size"), std::string::npos)
      << loaded.error().message;

  const char* dir[] = {"mesos-slave", "--fetcher_cache_dir=relative/cache"};
  loaded = Flags().load("MESOS_TEST_UNSET_", 2, dir);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message,
            "--fetcher_cache_dir: 'relative/cache' is not an absolute path (e.g. "
            "--fetcher_cache_dir=/tmp/mesos/fetch)");

  const char* home[] = {"mesos-slave", "--frameworks_home=frameworks"};
  loaded = Flags().load("MESOS_TEST_UNSET_", 2, home);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message,
            "--frameworks_home: 'frameworks' is not an absolute path to a directory");

  const char* good[] = {"mesos-slave", "--fetcher_cache_size=512MB", "--hadoop_home=/opt/hadoop"};
  Flags parsed;
  ASSERT_TRUE(parsed.load("MESOS_TEST_UNSET_", 3, good));
  EXPECT_EQ(parsed.fetcher_cache_size.value, 512ULL << 20);
  EXPECT_EQ(parsed.hadoop_home, std::optional<std::string>("/opt/hadoop"));

  SlaveID slaveId;
  slaveId.set_value("S1");
  CommandInfo command;
  command.add_uris()->set_value("http://h/x");
  FetchPlan plan = fetchPlan(parsed, slaveId, command, "/sandbox", "alice");
  EXPECT_EQ(plan.cacheDirectory, "/tmp/mesos/fetch/slaves/S1");
  EXPECT_EQ(plan.cacheSize, 512ULL << 20);
  EXPECT_EQ(plan.uris.size(), 1u);
  EXPECT_EQ(plan.hadoopHome, std::optional<std::string>("/opt/hadoop"));
}

}  // namespace
}  // namespace mesos::internal::slave
