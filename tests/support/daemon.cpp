#include "support/daemon.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "support/net.hpp"

extern char** environ;

namespace mesos::test {

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

}  // namespace mesos::test
