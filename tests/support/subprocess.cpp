#include "support/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace mesos::test {

// Runs `args` (args[0] an absolute path) with stdin from /dev/null, stdout
// and stderr captured, for at most `limit` of real time.
ChildResult runChild(const std::vector<std::string>& args, std::chrono::milliseconds limit) {
  ChildResult result;
  int outPipe[2];
  int errPipe[2];
  if (pipe2(outPipe, O_CLOEXEC) != 0) {
    result.error = std::string("pipe2: ") + std::strerror(errno);
    return result;
  }
  if (pipe2(errPipe, O_CLOEXEC) != 0) {
    result.error = std::string("pipe2: ") + std::strerror(errno);
    close(outPipe[0]);
    close(outPipe[1]);
    return result;
  }

  // dup2 onto 1 and 2 clears O_CLOEXEC there; every other descriptor of
  // ours (both pipes included) closes on exec.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(outPipe[1]);
  close(errPipe[1]);
  if (spawned != 0) {
    result.error = "posix_spawn " + args[0] + ": " + std::strerror(spawned);
    close(outPipe[0]);
    close(errPipe[0]);
    return result;
  }

  const auto deadline = std::chrono::steady_clock::now() + limit;
  auto msLeft = [&deadline] {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return std::max<int64_t>(0, left.count());
  };

  // Read both pipes until the child closes them (normally: exits).
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  while (open > 0) {
    int64_t left = msLeft();
    if (left == 0) {
      result.timedOut = true;
      break;
    }
    int ready = poll(fds, 2, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (ready < 0 && errno != EINTR) {
      result.error = std::string("poll: ") + std::strerror(errno);
      break;
    }
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(fds[i].fd);
        fds[i].fd = -1;  // poll() skips negative descriptors
        --open;
      }
    }
  }
  for (pollfd& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }

  // Reap it: kill it once past the deadline, and only wait for it then.
  if (result.timedOut) kill(pid, SIGKILL);
  for (;;) {
    pid_t reaped = waitpid(pid, &result.status, result.timedOut ? 0 : WNOHANG);
    if (reaped == pid) break;
    if (reaped < 0) {
      if (errno == EINTR) continue;
      result.error = std::string("waitpid: ") + std::strerror(errno);
      break;
    }
    if (msLeft() == 0) {  // it closed its output but lives on
      result.timedOut = true;
      kill(pid, SIGKILL);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return result;
}

}  // namespace mesos::test
