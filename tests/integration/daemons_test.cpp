// The daemons as operators run them: mesos-master and mesos-slave as
// separate OS processes talking over TCP, and mesos-execute running commands
// on them. Real processes, so waits have generous real-time bounds.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/net.hpp"

extern char** environ;

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

uint16_t freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  socklen_t length = sizeof(sa);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &length);
  ::close(fd);
  return ntohs(sa.sin_port);
}

pid_t start(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // Daemon logs and tool output would drown the test's output.
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return error == 0 ? pid : -1;
}

// Waits (bounded) for `pid` to exit; its exit status, or -1.
int waitFor(pid_t pid, std::chrono::seconds bound) {
  auto deadline = std::chrono::steady_clock::now() + bound;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(20ms);  // a real process, polled with a bound
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

class DaemonsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* binary : {MESOS_MASTER_PATH, MESOS_SLAVE_PATH, MESOS_EXECUTE_PATH}) {
      if (!std::filesystem::exists(binary)) GTEST_SKIP() << binary << " is not built";
    }
    char dir[] = "/tmp/mesos-daemons-XXXXXX";
    ASSERT_NE(nullptr, mkdtemp(dir));
    workDir_ = dir;
    masterPort_ = freePort();
    master_ = start({MESOS_MASTER_PATH, "--ip=127.0.0.1", "--port=" + std::to_string(masterPort_)});
    ASSERT_GT(master_, 0);
    std::string launcherDir = std::filesystem::path(MESOS_EXECUTOR_PATH).parent_path().string();
    slave_ = start({MESOS_SLAVE_PATH, "--master=127.0.0.1:" + std::to_string(masterPort_),
                    "--ip=127.0.0.1", "--port=" + std::to_string(freePort()),
                    "--work_dir=" + workDir_, "--resources=cpus:2;mem:512;disk:512",
                    "--launcher_dir=" + launcherDir});
    ASSERT_GT(slave_, 0);
    // The slave has registered once the master counts it.
    process::Address master{0x7f000001, masterPort_};
    auto deadline = std::chrono::steady_clock::now() + 30s;
    bool registered = false;
    while (!registered && std::chrono::steady_clock::now() < deadline) {
      std::string body;
      if (connectable(master) && httpGet(master, "/metrics/snapshot", &body) == 200) {
        auto metrics = json::parse(body);
        registered = metrics.ok() && (*metrics)["master/slaves_active"].integer() == 1;
      }
      if (!registered) std::this_thread::sleep_for(50ms);  // real processes, bounded
    }
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  static bool connectable(const process::Address& address) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(address.port);
    sa.sin_addr.s_addr = htonl(address.ip);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
    ::close(fd);
    return ok;
  }

  void TearDown() override {
    for (pid_t pid : {slave_, master_}) {
      if (pid > 0) {
        kill(pid, SIGTERM);
        EXPECT_EQ(0, waitFor(pid, 30s)) << "a daemon did not stop cleanly on SIGTERM";
      }
    }
    if (!workDir_.empty()) std::filesystem::remove_all(workDir_);
  }

  int execute(const std::string& name, const std::string& command) {
    pid_t pid = start({MESOS_EXECUTE_PATH, "--master=127.0.0.1:" + std::to_string(masterPort_),
                       "--name=" + name, "--command=" + command,
                       "--resources=cpus:0.1;mem:32"});
    return pid > 0 ? waitFor(pid, 60s) : -1;
  }

  std::string workDir_;
  uint16_t masterPort_ = 0;
  pid_t master_ = -1;
  pid_t slave_ = -1;
};

TEST_F(DaemonsTest, MesosExecuteReturnsTheCommandsExitStatus) {
  EXPECT_EQ(0, execute("ok", "true"));
  EXPECT_EQ(4, execute("four", "exit 4"));
}

TEST_F(DaemonsTest, BadFlagsGetOneLineAndStatusOne) {
  for (const char* binary : {MESOS_MASTER_PATH, MESOS_SLAVE_PATH}) {
    pid_t pid = start({binary, "--no_such_flag=1"});
    ASSERT_GT(pid, 0);
    EXPECT_EQ(1, waitFor(pid, 30s)) << binary;
  }
}

}  // namespace
}  // namespace mesos::test
