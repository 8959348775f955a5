#include "ensemble.hpp"

#include "common/free_port.hpp"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace failover {

namespace {

constexpr const char* kJava = "/usr/bin/java";
constexpr const char* kClassPath =
    "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar";

bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

}  // namespace

uint16_t freePort() { return mesos::freePort(); }

std::string zkCommand(uint16_t port, const std::string& word) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  timeval timeout{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::send(fd, word.data(), word.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(word.size())) {
    char buffer[4096];
    ssize_t n;
    while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) {
      answer.append(buffer, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return answer;
}

std::string Ensemble::unavailable() {
  if (!exists(kJava)) {
    return "no Java runtime at /usr/bin/java (Debian package default-jre-headless)";
  }
  if (!exists("/usr/share/java/zookeeper.jar")) {
    return "no /usr/share/java/zookeeper.jar (Debian package zookeeper)";
  }
  if (!exists("/usr/share/java/slf4j-simple.jar")) {
    return "no /usr/share/java/slf4j-simple.jar (Debian package libslf4j-java)";
  }
  return "";
}

Ensemble::Ensemble(fig10::Children& children, std::string dir, size_t count)
    : children_(children), dir_(std::move(dir)), servers_(count) {
  for (size_t i = 0; i < count; ++i) {
    Server& server = servers_[i];
    server.dir = dir_ + "/zk-" + std::to_string(i + 1);
    server.clientPort = freePort();
    server.quorumPort = freePort();
    server.electionPort = freePort();
  }
}

bool Ensemble::start(std::chrono::seconds bound, std::string* error) {
  for (size_t i = 0; i < servers_.size(); ++i) {
    const Server& server = servers_[i];
    if (server.clientPort == 0 || server.quorumPort == 0 || server.electionPort == 0) {
      *error = "no free loopback ports for ZooKeeper";
      return false;
    }
    std::filesystem::create_directories(server.dir + "/data");
    std::ofstream config(server.dir + "/zoo.cfg");
    config << "tickTime=100\n"
           << "minSessionTimeout=200\n"
           << "maxSessionTimeout=60000\n"
           << "initLimit=50\n"
           << "syncLimit=20\n"
           << "dataDir=" << server.dir << "/data\n"
           << "clientPort=" << server.clientPort << "\n"
           << "clientPortAddress=127.0.0.1\n"
           << "admin.enableServer=false\n"
           << "4lw.commands.whitelist=*\n";
    if (servers_.size() > 1) {
      for (size_t j = 0; j < servers_.size(); ++j) {
        config << "server." << j + 1 << "=127.0.0.1:" << servers_[j].quorumPort << ":"
               << servers_[j].electionPort << "\n";
      }
      std::ofstream(server.dir + "/data/myid") << i + 1 << "\n";
    }
  }
  const char* main = servers_.size() > 1 ? "org.apache.zookeeper.server.quorum.QuorumPeerMain"
                                         : "org.apache.zookeeper.server.ZooKeeperServerMain";
  for (size_t i = 0; i < servers_.size(); ++i) {
    const Server& server = servers_[i];
    std::string name = "zk-" + std::to_string(i + 1);
    auto index = children_.spawn(name,
                                 {kJava, "-Xmx1g", "-XX:+UseSerialGC", "-cp", kClassPath, main,
                                  server.dir + "/zoo.cfg"},
                                 false, dir_ + "/" + name + ".log", error);
    if (!index) return false;
    indices_.push_back(*index);
  }
  auto deadline = std::chrono::steady_clock::now() + bound;
  for (size_t i = 0; i < servers_.size(); ++i) {
    while (!serving(servers_[i])) {
      if (std::chrono::steady_clock::now() > deadline) {
        *error = "ZooKeeper server " + std::to_string(i + 1) + " did not serve within " +
                 std::to_string(bound.count()) + " s; see " + dir_ + "/zk-" +
                 std::to_string(i + 1) + ".log";
        return false;
      }
      // A JVM starting: polled with a bound.
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return true;
}

bool Ensemble::serving(const Server& server) const {
  if (zkCommand(server.clientPort, "ruok") != "imok") return false;
  std::string status = zkCommand(server.clientPort, "srvr");
  return status.find("Mode: standalone") != std::string::npos ||
         status.find("Mode: leader") != std::string::npos ||
         status.find("Mode: follower") != std::string::npos;
}

std::string Ensemble::connectString() const {
  std::string out;
  for (const Server& server : servers_) {
    if (!out.empty()) out += ",";
    out += "127.0.0.1:" + std::to_string(server.clientPort);
  }
  return out;
}

}  // namespace failover
