#include "support/zookeeper_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <zookeeper/zookeeper.h>

#include "support/daemon.hpp"

namespace mesos::test {

namespace {

constexpr const char* kJava = "/usr/bin/java";
constexpr const char* kClassPath =
    "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar";
constexpr std::chrono::seconds kStartBound{30};

bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

}  // namespace

std::string ZooKeeperServers::unavailable() {
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

ZooKeeperServers::ZooKeeperServers(size_t count) : servers_(count) {
  char pattern[] = "/tmp/zookeeper-test-XXXXXX";
  char* made = ::mkdtemp(pattern);
  root_ = made != nullptr ? made : "";
  for (size_t i = 0; i < count; ++i) {
    Server& server = servers_[i];
    server.dir = root_ + "/" + std::to_string(i + 1);
    server.clientPort = freePort();
    server.quorumPort = freePort();
    server.electionPort = freePort();
  }
}

ZooKeeperServers::~ZooKeeperServers() {
  for (size_t i = 0; i < servers_.size(); ++i) kill(i);
  std::error_code ignored;
  if (!root_.empty()) std::filesystem::remove_all(root_, ignored);
}

bool ZooKeeperServers::start() {
  if (root_.empty()) {
    error_ = "cannot make a scratch directory under /tmp";
    return false;
  }
  for (size_t i = 0; i < servers_.size(); ++i) {
    Server& server = servers_[i];
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
  for (size_t i = 0; i < servers_.size(); ++i) {
    if (!launch(i)) return false;
  }
  for (size_t i = 0; i < servers_.size(); ++i) {
    if (!awaitServing(i)) return false;
  }
  return true;
}

bool ZooKeeperServers::launch(size_t i) {
  Server& server = servers_[i];
  const char* main = servers_.size() > 1 ? "org.apache.zookeeper.server.quorum.QuorumPeerMain"
                                         : "org.apache.zookeeper.server.ZooKeeperServerMain";
  server.pid = startDaemon({kJava, "-Xmx64m", "-XX:+UseSerialGC", "-cp", kClassPath, main,
                            server.dir + "/zoo.cfg"},
                           server.dir + "/server.log");
  if (server.pid <= 0) {
    error_ = "cannot start " + std::string(kJava);
    return false;
  }
  return true;
}

bool ZooKeeperServers::awaitServing(size_t i) {
  int status = 0;
  if (waitUntil([this, i] { return serving(i); }, kStartBound, servers_[i].pid, &status)) {
    return true;
  }
  error_ = "ZooKeeper server " + std::to_string(i + 1) + " did not serve within " +
           std::to_string(kStartBound.count()) + " s; its log:\n" +
           readFile(servers_[i].dir + "/server.log");
  return false;
}

std::string ZooKeeperServers::connectString() const {
  std::string out;
  for (const Server& server : servers_) {
    if (!out.empty()) out += ",";
    out += "127.0.0.1:" + std::to_string(server.clientPort);
  }
  return out;
}

void ZooKeeperServers::kill(size_t i) {
  Server& server = servers_[i];
  if (server.pid <= 0) return;
  ::kill(server.pid, SIGKILL);
  int status = 0;
  ::waitpid(server.pid, &status, 0);
  server.pid = -1;
}

bool ZooKeeperServers::restart(size_t i) {
  kill(i);
  return launch(i) && awaitServing(i);
}

std::string ZooKeeperServers::command(size_t i, const std::string& word) const {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  timeval timeout{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(servers_[i].clientPort);
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

bool ZooKeeperServers::serving(size_t i) const {
  if (servers_[i].pid <= 0 || command(i, "ruok") != "imok") return false;
  std::string status = command(i, "srvr");
  return status.find("Mode: standalone") != std::string::npos ||
         status.find("Mode: leader") != std::string::npos ||
         status.find("Mode: follower") != std::string::npos;
}

int ZooKeeperServers::leader() const {
  for (size_t i = 0; i < servers_.size(); ++i) {
    if (servers_[i].pid <= 0) continue;
    std::string status = command(i, "srvr");
    if (status.find("Mode: leader") != std::string::npos ||
        status.find("Mode: standalone") != std::string::npos) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

bool ZooKeeperServers::endSession(int64_t id, const std::string& password,
                                   const std::function<bool()>& ended) const {
  for (int attempt = 0; attempt < 10; ++attempt) {
    clientid_t client{};
    client.client_id = id;
    std::copy(password.begin(), password.end(), client.passwd);
    zhandle_t* thief =
        zookeeper_init(connectString().c_str(), nullptr, 1000, &client, nullptr, 0);
    if (thief == nullptr) return false;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (zoo_state(thief) != ZOO_CONNECTED_STATE &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // a real client connecting
    }
    zookeeper_close(thief);
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      if (ended()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the owner hearing of it
    }
  }
  return ended();
}

}  // namespace mesos::test
