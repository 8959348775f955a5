// The launch server (slave/containerizer/launch_server.hpp): PosixLauncher
// forks the launch helper from a long-lived `mesos-containerizer
// --serve_fd` instead of executing it per container. Through the real
// mesos-containerizer; no root needed.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "slave/containerizer/launch_server.hpp"
#include "slave/containerizer/launcher.hpp"
#include "slave/paths.hpp"
#include "support/daemon.hpp"

namespace mesos::internal::slave {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using mesos::test::readFile;
using mesos::test::waitForExit;

std::string helperPath() {
  return launcherBinaryPath(MESOS_BINARY_DIR "/src/slave", "mesos-containerizer");
}

// The parent pid field of /proc/PID/stat.
pid_t parentOf(pid_t pid) {
  std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t end = stat.rfind(')');
  if (end == std::string::npos) return -1;
  std::istringstream fields(stat.substr(end + 2));
  std::string state;
  pid_t parent = -1;
  fields >> state >> parent;
  return parent;
}

class LaunchServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(helperPath())) GTEST_SKIP() << "mesos-containerizer is not built";
    char pattern[] = "/tmp/mesos-launch-server-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // `sh -c command` through the helper (first, as the containerizer puts
  // it), with TASK=task in the command's environment and HELPER=helper in
  // the helper's own.
  LaunchSpec spec(const std::string& name, const std::string& command,
                  const std::string& helper = helperPath()) {
    LaunchSpec spec;
    spec.command.set_value(command);
    spec.directory = dir_;
    spec.environment = {{"PATH", "/usr/bin:/bin"}, {"TASK", "task"}};
    spec.helperEnvironment =
        std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}, {"HELPER", "helper"}};
    spec.stdoutPath = dir_ + "/" + name + ".out";
    spec.stderrPath = dir_ + "/" + name + ".err";
    spec.prefix = {helper, "--environment_fd=" + std::to_string(kEnvironmentFd), "--"};
    spec.helperFirst = true;
    return spec;
  }

  std::string dir_;
};

TEST_F(LaunchServerTest, TheHelperIsForkedAsTheLaunchersChildWithTheRequestsEnvironment) {
  // In the launcher's environment when the server starts: the server keeps
  // it, but no helper it forks may see it.
  ::setenv("MESOS_LAUNCH_SERVER_TEST_LEAK", "leaked", 1);
  PosixLauncher launcher;
  auto pid =
      launcher.launch(spec("a",
                           "echo \"$TASK $HELPER ${MESOS_LAUNCH_SERVER_TEST_LEAK:-none} $(pwd)\"; "
                           "cat /proc/self/stat > " +
                               dir_ + "/stat; ls /proc/self/fd > " + dir_ +
                               "/fds; "
                               "read line < /dev/stdin || echo empty-stdin"));
  ::unsetenv("MESOS_LAUNCH_SERVER_TEST_LEAK");
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  const pid_t server = launcher.serverPid();
  ASSERT_GT(server, 0) << "no launch server was started";
  EXPECT_NE(server, *pid);
  // The helper is this process's child (CLONE_PARENT), not the server's,
  // and leads a session of its own.
  EXPECT_EQ(parentOf(server), ::getpid());
  ASSERT_EQ(0, waitForExit(*pid, 10s)) << readFile(dir_ + "/a.err");
  EXPECT_EQ(readFile(dir_ + "/a.out"), "task helper none " + dir_ + "\nempty-stdin\n");
  // In the command (after the helper's exec): its own session, only 0, 1,
  // 2 open (and ls's own directory descriptor).
  std::istringstream stat(readFile(dir_ + "/stat").substr(readFile(dir_ + "/stat").rfind(')') + 2));
  std::string state;
  long parent = 0, group = 0, session = 0;
  stat >> state >> parent >> group >> session;
  EXPECT_EQ(session, *pid);
  EXPECT_EQ(group, *pid);
  std::istringstream fds(readFile(dir_ + "/fds"));
  int open = 0;
  for (std::string fd; fds >> fd;) ++open;
  EXPECT_EQ(open, 4) << readFile(dir_ + "/fds");
}

TEST_F(LaunchServerTest, OneServerServesEveryLaunchAndAKilledOneIsReplaced) {
  PosixLauncher launcher;
  auto first = launcher.launch(spec("a", "exit 3"));
  ASSERT_TRUE(first.ok()) << first.error().message;
  const pid_t server = launcher.serverPid();
  auto second = launcher.launch(spec("b", "exit 4"));
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(launcher.serverPid(), server);
  EXPECT_EQ(3, waitForExit(*first, 10s));
  EXPECT_EQ(4, waitForExit(*second, 10s));

  // kill -9 of the server: the next launch finds it gone before its
  // request and starts another.
  ASSERT_EQ(::kill(server, SIGKILL), 0);
  // (Once it is a zombie: a request sent before it died would fail the
  // launch instead.)
  const std::string stat = "/proc/" + std::to_string(server) + "/stat";
  for (int i = 0; i < 2000 && readFile(stat).find(") Z") == std::string::npos; ++i) {
    std::this_thread::sleep_for(5ms);
  }
  auto third = launcher.launch(spec("c", "exit 5"));
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_GT(launcher.serverPid(), 0);
  EXPECT_NE(launcher.serverPid(), server);
  EXPECT_EQ(5, waitForExit(*third, 10s));
}

TEST_F(LaunchServerTest, TheServerEndsWithItsLauncher) {
  pid_t server = -1;
  {
    PosixLauncher launcher;
    auto pid = launcher.launch(spec("a", "true"));
    ASSERT_TRUE(pid.ok()) << pid.error().message;
    server = launcher.serverPid();
    ASSERT_GT(server, 0);
    waitForExit(*pid, 10s);
  }
  // Reaped by the launcher: no such child any more.
  EXPECT_EQ(::waitpid(server, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(LaunchServerTest, AProgramThatIsNoServerIsExecutedForEachLaunch) {
  // env(1) refuses --serve_fd; in front of the command it just runs it.
  PosixLauncher launcher;
  LaunchSpec wrapped = spec("a", "echo ran");
  wrapped.prefix = {"/usr/bin/env", "--"};
  wrapped.helperEnvironment.reset();
  auto pid = launcher.launch(wrapped);
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  EXPECT_EQ(launcher.serverPid(), -1);
  EXPECT_EQ(0, waitForExit(*pid, 10s));
  EXPECT_EQ(readFile(dir_ + "/a.out"), "ran\n");
}

// Talks to a server directly: a request it cannot read is answered with
// EINVAL and the next is served; a length beyond the limit ends it.
TEST_F(LaunchServerTest, ABadRequestIsRefusedAndTheServerGoesOn) {
  int ends[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, ends), 0);
  const pid_t server = ::fork();
  ASSERT_GE(server, 0);
  if (server == 0) {
    ::dup2(ends[1], 3);
    ::execl(helperPath().c_str(), "mesos-containerizer", "--serve_fd=3", nullptr);
    ::_exit(127);
  }
  ::close(ends[1]);
  const int socket = ends[0];
  char hello = 0;
  ASSERT_EQ(::recv(socket, &hello, 1, 0), 1);
  EXPECT_EQ(hello, 'S');
  auto ask = [socket](const std::string& payload, uint32_t fdCount) {
    uint32_t header[2] = {static_cast<uint32_t>(payload.size()), fdCount};
    EXPECT_EQ(::send(socket, header, sizeof(header), 0), static_cast<ssize_t>(sizeof(header)));
    EXPECT_EQ(::send(socket, payload.data(), payload.size(), 0),
              static_cast<ssize_t>(payload.size()));
    int32_t answer = 0;
    EXPECT_EQ(::recv(socket, &answer, sizeof(answer), MSG_WAITALL),
              static_cast<ssize_t>(sizeof(answer)));
    return answer;
  };
  // A count of a billion arguments in a short payload, a count of
  // descriptors that were not sent, and no arguments at all.
  EXPECT_EQ(ask(std::string("/\0"
                            "999999999\0x\0"
                            "0\0",
                            16),
                0),
            -EINVAL);
  LaunchRequest request{dir_, {"mesos-containerizer", "--", "/bin/true"}, {}};
  EXPECT_EQ(ask(encodeRequest(request), 2), -EINVAL);
  EXPECT_EQ(ask(encodeRequest(LaunchRequest{dir_, {}, {}}), 0), -EINVAL);
  // Still serving: a good one forks a helper (the child of this process)
  // that runs /bin/true with no descriptors at all.
  const int32_t pid = ask(encodeRequest(request), 0);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(0, waitForExit(pid, 10s));
  // A length it will not read ends it (the stream cannot be followed).
  uint32_t header[2] = {kLaunchRequestMaxBytes + 1, 0};
  ASSERT_EQ(::send(socket, header, sizeof(header), 0), static_cast<ssize_t>(sizeof(header)));
  EXPECT_EQ(1, waitForExit(server, 10s));
  ::close(socket);
}

}  // namespace
}  // namespace mesos::internal::slave
