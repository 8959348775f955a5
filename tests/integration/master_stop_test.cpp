// mesos-master stops promptly on SIGTERM however busy it is: its state is
// soft, so it stops in an orderly way but within a bound (under 1 s).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/daemon.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

// GETs `path` and reads until the server closes or 2 s pass; whether any
// answer came. Never fails hard: the server may be stopping.
bool tryGet(const process::Address& address, const char* path) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  timeval timeout{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(address.port);
  sa.sin_addr.s_addr = htonl(address.ip);
  bool answered = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0) {
    std::string request = std::string("GET ") + path + " HTTP/1.1\r\nConnection: close\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      char buffer[65536];
      ssize_t n;
      while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) answered = true;
    }
  }
  ::close(fd);
  return answered;
}

class MasterStopTest : public DaemonsFixture {};

TEST_F(MasterStopTest, SigtermUnderLoadStopsWithinASecond) {
  process::Address master = startMaster();
  // Two slaves and a stream of readers of /state and /metrics on many
  // connections keep the master busy.
  startSlave(master, "a", {"--resources=cpus:2;mem:256"});
  startSlave(master, "b", {"--resources=cpus:2;mem:256"});
  ASSERT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 2; }, 30s));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> answered{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < 16; ++i) {
    readers.emplace_back([&, i] {
      const char* path = i % 2 == 0 ? "/state" : "/metrics/snapshot";
      while (!stop) {
        if (tryGet(master, path)) answered++;
      }
    });
  }
  ASSERT_TRUE(waitUntil([&] { return answered >= 200; }, 30s));

  pid_t pid = daemons_.front();
  auto sent = std::chrono::steady_clock::now();
  ASSERT_EQ(0, kill(pid, SIGTERM));
  int status = waitForExit(pid, 10s);
  auto took = std::chrono::steady_clock::now() - sent;
  reaped(pid);
  stop = true;
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(0, status);
  EXPECT_LT(took, 1500ms) << "stopping took "
                          << std::chrono::duration<double>(took).count() << " s";
}

}  // namespace
}  // namespace mesos::test
