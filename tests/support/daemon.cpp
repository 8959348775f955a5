#include "support/daemon.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/free_port.hpp"
#include "support/net.hpp"

extern char** environ;

namespace mesos::test {

using namespace std::chrono_literals;

uint16_t freePort(const std::string& ip) { return mesos::freePort(ip); }

uint16_t freePort() { return freePort("127.0.0.1"); }

namespace {

pid_t spawnWithOutput(const std::vector<std::string>& args, const char* output, int flags) {
  std::vector<char*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, output, flags, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return error == 0 ? pid : -1;
}

}  // namespace

pid_t startDaemon(const std::vector<std::string>& args) {
  // Daemon logs would drown the test's output.
  return spawnWithOutput(args, "/dev/null", O_WRONLY);
}

pid_t startDaemon(const std::vector<std::string>& args, const std::string& log) {
  return spawnWithOutput(args, log.c_str(), O_WRONLY | O_CREAT | O_APPEND);
}

int waitForExit(pid_t pid, std::chrono::seconds bound) {
  auto deadline = std::chrono::steady_clock::now() + bound;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(20ms);  // a real process, polled with a bound
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return -1;
}

bool connectable(const process::Address& address) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(address.port);
  sa.sin_addr.s_addr = htonl(address.ip);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
  ::close(fd);
  return ok;
}

bool waitUntil(const std::function<bool()>& ready, std::chrono::seconds bound, pid_t pid,
               int* exited) {
  auto deadline = std::chrono::steady_clock::now() + bound;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pid > 0) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        if (exited != nullptr) *exited = status;
        return false;
      }
    }
    if (ready()) return true;
    std::this_thread::sleep_for(50ms);  // real processes, polled with a bound
  }
  return false;
}

json::Value getJson(const process::Address& address, const std::string& path) {
  std::string body;
  if (!connectable(address) || httpGet(address, path, &body) != 200) return json::Value();
  auto parsed = json::parse(body);
  return parsed ? std::move(parsed).value() : json::Value();
}

std::string readFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

void DaemonsFixture::SetUp() {
  for (const char* binary : {MESOS_MASTER_PATH, MESOS_SLAVE_PATH, MESOS_EXECUTE_PATH}) {
    if (!std::filesystem::exists(binary)) GTEST_SKIP() << binary << " is not built";
  }
  char dir[] = "/tmp/mesos-daemons-XXXXXX";
  ASSERT_NE(nullptr, mkdtemp(dir));
  dir_ = dir;
}

int killProcessesUnder(const std::string& dir) {
  int found = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it("/proc", error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == getpid()) continue;
    std::string cmdline = readFile(it->path().string() + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    std::error_code ignored;
    const std::string cwd = std::filesystem::read_symlink(it->path() / "cwd", ignored).string();
    if (cmdline.find(dir) != std::string::npos || cwd.rfind(dir + "/", 0) == 0 || cwd == dir) {
      if (kill(pid, SIGKILL) == 0) ++found;
    }
  }
  return found;
}

void DaemonsFixture::TearDown() {
  for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) {
    if (*it <= 0) continue;
    kill(*it, SIGTERM);
    EXPECT_EQ(0, waitForExit(*it, 30s)) << "a daemon did not stop cleanly on SIGTERM";
  }
  if (!dir_.empty()) {
    // Twice: a process may start another while the first pass runs.
    if (killProcessesUnder(dir_) > 0) killProcessesUnder(dir_);
    std::filesystem::remove_all(dir_);
  }
}

pid_t DaemonsFixture::start(const std::vector<std::string>& args, const std::string& log) {
  pid_t pid = log.empty() ? startDaemon(args) : startDaemon(args, dir_ + "/" + log + ".log");
  EXPECT_GT(pid, 0) << args[0];
  daemons_.push_back(pid);
  return pid;
}

void DaemonsFixture::reaped(pid_t pid) { std::erase(daemons_, pid); }

namespace {

// `flags`, after --ip=127.0.0.1 unless they give an --ip of their own.
std::vector<std::string> onLoopbackUnlessSaid(const std::vector<std::string>& flags) {
  bool ip = std::any_of(flags.begin(), flags.end(),
                        [](const std::string& flag) { return flag.starts_with("--ip="); });
  std::vector<std::string> out;
  if (!ip) out.push_back("--ip=127.0.0.1");
  out.insert(out.end(), flags.begin(), flags.end());
  return out;
}

}  // namespace

process::Address DaemonsFixture::startMaster(const std::vector<std::string>& flags) {
  process::Address address{0x7f000001, freePort()};
  std::vector<std::string> args = {MESOS_MASTER_PATH, "--port=" + std::to_string(address.port)};
  for (const std::string& flag : onLoopbackUnlessSaid(flags)) args.push_back(flag);
  pid_t pid = start(args, "master");
  bool up = waitUntil([&] { return connectable(address); }, 30s, pid);
  EXPECT_TRUE(up) << "the master did not listen within 30 s:\n" << readFile(dir_ + "/master.log");
  return address;
}

pid_t DaemonsFixture::startSlave(const process::Address& master, const std::string& name,
                                 const std::vector<std::string>& flags, uint16_t port) {
  std::string launcherDir = std::filesystem::path(MESOS_EXECUTOR_PATH).parent_path().string();
  if (port == 0) {
    // Free on the slave's own address: tests run slaves on 127.0.0.N too.
    std::string ip = "127.0.0.1";
    for (const std::string& flag : flags) {
      if (flag.rfind("--ip=", 0) == 0) ip = flag.substr(5);
    }
    port = freePort(ip);
  }
  std::vector<std::string> args = {
      MESOS_SLAVE_PATH, "--master=" + master.toString(),
      "--port=" + std::to_string(port), "--work_dir=" + dir_ + "/" + name,
      "--launcher_dir=" + launcherDir};
  for (const std::string& flag : onLoopbackUnlessSaid(flags)) args.push_back(flag);
  return start(args, name);
}

int64_t DaemonsFixture::metric(const process::Address& master, const std::string& name) {
  json::Value value = getJson(master, "/metrics/snapshot")[name];
  return value.isNumber() ? value.integer() : -1;
}

}  // namespace mesos::test
