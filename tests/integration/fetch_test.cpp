// The slave's fetch, end to end, where it can go wrong slowly: a URI whose
// server accepts the connection and never answers. The slave gives the
// fetch and the executor's start --executor_registration_timeout together:
// when it passes, the mesos-fetcher helper is killed, the task fails with
// the registration timeout's reason, nothing of the helper is left, and
// the slave goes on.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

class FetchTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    master_ = startMaster({"--allocation_interval=100ms"});
    startSlave(master_, "slave",
               {"--resources=cpus:2;mem:512;disk:512", "--executor_registration_timeout=2secs"});
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  void TearDown() override {
    if (silent_ >= 0) ::close(silent_);
    DaemonsFixture::TearDown();
  }

  // A server that takes connections (the kernel's backlog does) and never
  // answers. Its port.
  uint16_t silentServer() {
    silent_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(silent_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_EQ(::listen(silent_, 16), 0);
    socklen_t length = sizeof(address);
    ::getsockname(silent_, reinterpret_cast<sockaddr*>(&address), &length);
    return ntohs(address.sin_port);
  }

  ChildResult execute(const std::vector<std::string>& flags) {
    std::vector<std::string> args = {MESOS_EXECUTE_PATH, "--master=" + master_.toString()};
    args.insert(args.end(), flags.begin(), flags.end());
    return runChild(args, 90s);
  }

  process::Address master_;
  int silent_ = -1;
};

TEST_F(FetchTest, AFetchThatHangsIsKilledAtTheRegistrationTimeout) {
  std::string uri = "http://127.0.0.1:" + std::to_string(silentServer()) + "/app.tar.gz";
  auto started = std::chrono::steady_clock::now();
  ChildResult run = execute({"--name=stuck", "--command=true", "--uris=" + uri,
                             "--resources=cpus:0.1;mem:32"});
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_FALSE(run.exitedWith(0)) << run.describe();
  EXPECT_NE(run.out.find("TASK_FAILED"), std::string::npos) << run.describe();
  EXPECT_NE(run.out.find("REASON_EXECUTOR_REGISTRATION_TIMEOUT"), std::string::npos)
      << run.describe();
  EXPECT_NE(run.out.find("did not register within 2secs"), std::string::npos) << run.describe();
  EXPECT_GE(took, 2s);
  EXPECT_LT(took, 60s) << "the stuck fetch held the task far past the timeout";

  // The fetch had begun (its progress is in the sandbox), and the slave
  // goes on.
  std::string err;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/slave")) {
    if (entry.path().filename() == "stderr") err += readFile(entry.path().string());
  }
  EXPECT_NE(err.find("mesos-fetcher: fetching '" + uri + "'"), std::string::npos) << err;
  ChildResult next = execute({"--name=after", "--command=true", "--resources=cpus:0.1;mem:32"});
  EXPECT_TRUE(next.exitedWith(0)) << next.describe();
}

}  // namespace
}  // namespace mesos::test
