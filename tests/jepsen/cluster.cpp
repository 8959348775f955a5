#include "jepsen/cluster.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "support/daemon.hpp"
#include "support/zookeeper_server.hpp"

namespace mesos::jepsen {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr const char* kMarker = "jepsen-task=";

int64_t metric(const process::Address& address, const std::string& name) {
  json::Value value = test::getJson(address, "/metrics/snapshot")[name];
  return value.isNumber() ? value.integer() : -1;
}

std::string tail(const std::string& path, size_t bytes) {
  std::string text = test::readFile(path);
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

}  // namespace

ProcessCluster::ProcessCluster(ClusterOptions options)
    : options_(std::move(options)),
      zk_(std::make_unique<test::ZooKeeperServers>(options_.zkServers)),
      masters_(options_.masters),
      slaves_(options_.slaves) {
  url_ = "zk://" + zk_->connectString() + "/mesos";
  for (size_t i = 0; i < masters_.size(); ++i) masters_[i].name = "master" + std::to_string(i + 1);
  for (size_t i = 0; i < slaves_.size(); ++i) {
    slaves_[i].name = slaveName(i);
    slaves_[i].port = test::freePort();
  }
}

ProcessCluster::~ProcessCluster() {
  for (std::vector<Daemon>* daemons : {&masters_, &slaves_}) {
    for (Daemon& d : *daemons) {
      if (d.pid <= 0) continue;
      ::kill(d.pid, SIGKILL);
      if (d.stopped) ::kill(d.pid, SIGCONT);
      ::waitpid(d.pid, nullptr, 0);
    }
  }
  killSandboxes();
}

std::string ProcessCluster::unavailable() {
  for (const char* binary : {MESOS_MASTER_PATH, MESOS_SLAVE_PATH, MESOS_EXECUTOR_PATH}) {
    if (!fs::exists(binary)) return std::string(binary) + " is not built";
  }
  return test::ZooKeeperServers::unavailable();
}

std::vector<std::string> ProcessCluster::masterArgs(const Daemon& m) const {
  return {MESOS_MASTER_PATH,
          "--ip=127.0.0.1",
          "--port=" + std::to_string(m.address.port),
          "--zk=" + url_,
          "--zk_session_timeout=" + std::to_string(options_.zkSessionTimeoutMs) + "ms",
          "--allocation_settle_delay=200ms",
          "--allocation_interval=200ms",
          "--slave_ping_timeout=" + std::to_string(options_.pingTimeoutMs) + "ms",
          "--max_slave_ping_timeouts=" + std::to_string(options_.maxPingTimeouts)};
}

std::vector<std::string> ProcessCluster::slaveArgs(size_t i) const {
  return {MESOS_SLAVE_PATH,
          "--master=" + url_,
          "--ip=127.0.0.1",
          "--port=" + std::to_string(slaves_[i].port),
          "--work_dir=" + options_.dir + "/" + slaves_[i].name,
          "--launcher_dir=" + fs::path(MESOS_EXECUTOR_PATH).parent_path().string(),
          "--registration_backoff_factor=100ms",
          "--resources=" + options_.slaveResources};
}

bool ProcessCluster::start(std::string* error) {
  if (!zk_->start()) {
    *error = "ZooKeeper did not start: " + zk_->error();
    return false;
  }
  for (size_t i = 0; i < masters_.size(); ++i) {
    if (!startMaster(i)) {
      *error = masters_[i].name + " did not listen within 30 s:\n" + logs(4000);
      return false;
    }
  }
  if (!test::waitUntil([&] { return leader() >= 0; }, 30s)) {
    *error = "no master was elected within 30 s:\n" + logs(4000);
    return false;
  }
  for (size_t i = 0; i < slaves_.size(); ++i) startSlave(i);
  if (!test::waitUntil([&] { return whole(0); }, 30s)) {
    *error = "the slaves did not register within 30 s:\n" + logs(4000);
    return false;
  }
  return true;
}

int ProcessCluster::leader() const {
  for (size_t i = 0; i < masters_.size(); ++i) {
    if (masters_[i].pid > 0 && metric(masters_[i].address, "master/elected") == 1) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

void ProcessCluster::killMaster(size_t i) {
  Daemon& m = masters_[i];
  if (m.pid <= 0) return;
  ::kill(m.pid, SIGKILL);
  test::waitForExit(m.pid, 30s);
  m.pid = -1;
}

bool ProcessCluster::startMaster(size_t i) {
  Daemon& m = masters_[i];
  // A fresh port: the killed master's may still be held by its connections.
  m.address = process::Address{0x7f000001, test::freePort()};
  m.pid = test::startDaemon(masterArgs(m), options_.dir + "/" + m.name + ".log");
  if (m.pid <= 0) return false;
  return test::waitUntil([&] { return test::connectable(m.address); }, 30s, m.pid);
}

void ProcessCluster::killSlave(size_t i) {
  Daemon& s = slaves_[i];
  if (s.pid <= 0) return;
  ::kill(s.pid, SIGKILL);
  if (s.stopped) ::kill(s.pid, SIGCONT);
  test::waitForExit(s.pid, 30s);
  s.pid = -1;
  s.stopped = false;
}

bool ProcessCluster::startSlave(size_t i) {
  Daemon& s = slaves_[i];
  s.pid = test::startDaemon(slaveArgs(i), options_.dir + "/" + s.name + ".log");
  return s.pid > 0;
}

void ProcessCluster::stopSlave(size_t i) {
  Daemon& s = slaves_[i];
  if (s.pid <= 0 || s.stopped) return;
  ::kill(s.pid, SIGSTOP);
  s.stopped = true;
}

void ProcessCluster::resumeSlave(size_t i) {
  Daemon& s = slaves_[i];
  if (s.pid <= 0 || !s.stopped) return;
  ::kill(s.pid, SIGCONT);
  s.stopped = false;
}

int ProcessCluster::zkLeader() const { return zk_->leader(); }

void ProcessCluster::killZk(size_t i) { zk_->kill(i); }

bool ProcessCluster::restartZk(size_t i) { return zk_->restart(i); }

std::vector<std::string> ProcessCluster::reap() {
  std::vector<std::string> lines;
  auto check = [&](Daemon& d, bool master) {
    if (d.pid <= 0) return false;
    int status = 0;
    if (::waitpid(d.pid, &status, WNOHANG) != d.pid) return false;
    std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                        : "died of signal " + std::to_string(WTERMSIG(status));
    lines.push_back(d.name + " " + how);
    if (!(master && WIFEXITED(status) && WEXITSTATUS(status) == 1)) crashes_++;
    d.pid = -1;
    d.stopped = false;
    return true;
  };
  for (size_t i = 0; i < masters_.size(); ++i) {
    if (check(masters_[i], true)) startMaster(i);
  }
  for (size_t i = 0; i < slaves_.size(); ++i) {
    if (check(slaves_[i], false)) startSlave(i);
  }
  return lines;
}

void ProcessCluster::heal() {
  for (size_t i = 0; i < options_.zkServers; ++i) {
    if (!zk_->running(i)) zk_->restart(i);
  }
  for (size_t i = 0; i < slaves_.size(); ++i) {
    resumeSlave(i);
    if (!slaveUp(i)) startSlave(i);
  }
  for (size_t i = 0; i < masters_.size(); ++i) {
    if (!masterUp(i)) startMaster(i);
  }
}

bool ProcessCluster::whole(size_t frameworks) const {
  int leaders = 0;
  int at = -1;
  for (size_t i = 0; i < masters_.size(); ++i) {
    if (masters_[i].pid > 0 && metric(masters_[i].address, "master/elected") == 1) {
      leaders++;
      at = static_cast<int>(i);
    }
  }
  if (leaders != 1) return false;
  json::Value m = test::getJson(masters_[at].address, "/metrics/snapshot");
  auto is = [&](const char* name, size_t value) {
    return m[name].isNumber() && m[name].integer() == static_cast<int64_t>(value);
  };
  return is("master/slaves_active", slaves_.size()) && is("master/slaves_unreachable", 0) &&
         is("master/slaves_recovering", 0) && is("master/frameworks_active", frameworks);
}

json::Value ProcessCluster::leaderState() const {
  int at = leader();
  return at < 0 ? json::Value() : test::getJson(masters_[at].address, "/master/state");
}

std::vector<Sighting> ProcessCluster::scanTasks(double time) const {
  std::vector<Sighting> out;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc", error)) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = test::readFile(entry.path().string() + "/cmdline");
    size_t marker = cmdline.find(kMarker);
    if (cmdline.rfind("sh", 0) != 0 || marker == std::string::npos) continue;
    size_t begin = marker + std::string(kMarker).size();
    size_t end = cmdline.find_first_of(std::string(" ;\0", 3), begin);
    std::string task = cmdline.substr(begin, end == std::string::npos ? end : end - begin);
    std::error_code ignored;
    std::string cwd = fs::read_symlink(entry.path() / "cwd", ignored).string();
    for (const Daemon& s : slaves_) {
      if (cwd.rfind(options_.dir + "/" + s.name + "/", 0) == 0) {
        out.push_back({time, task, s.name, static_cast<pid_t>(std::stol(pid))});
      }
    }
  }
  return out;
}

std::vector<std::string> ProcessCluster::shutdown() {
  std::vector<std::string> lines;
  for (std::vector<Daemon>* daemons : {&slaves_, &masters_}) {
    for (Daemon& d : *daemons) {
      if (d.pid <= 0) continue;
      if (d.stopped) ::kill(d.pid, SIGCONT);
      ::kill(d.pid, SIGTERM);
      int status = test::waitForExit(d.pid, 30s);
      if (status != 0) lines.push_back(d.name + " stopped with status " + std::to_string(status));
      d.pid = -1;
    }
  }
  killSandboxes();
  return lines;
}

void ProcessCluster::killSandboxes() const {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc", error)) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ignored;
    std::string cwd = fs::read_symlink(entry.path() / "cwd", ignored).string();
    if (!cwd.empty() && cwd.rfind(options_.dir + "/", 0) == 0) {
      ::kill(static_cast<pid_t>(std::stol(pid)), SIGKILL);
    }
  }
}

std::string ProcessCluster::logs(size_t bytes) const {
  std::string out;
  for (const std::vector<Daemon>* daemons : {&masters_, &slaves_}) {
    for (const Daemon& d : *daemons) {
      out += "--- " + d.name + ".log (end) ---\n" +
             tail(options_.dir + "/" + d.name + ".log", bytes);
    }
  }
  return out;
}

}  // namespace mesos::jepsen
