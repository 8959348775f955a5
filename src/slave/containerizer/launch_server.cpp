// The launch server's loop (launch_server.hpp), in mesos-containerizer.
#include "slave/containerizer/launch_server.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

extern char** environ;

namespace mesos::internal::slave {

namespace {

// Reads exactly `size` bytes; false at the end of the stream or an error.
bool readAll(int fd, char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool writeAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// In the clone: the descriptors at 0, 1, ..., nothing else open, a session
// of its own, no signal blocked, then the helper as if executed.
[[noreturn]] void runHelper(LaunchRequest& request, std::vector<int>& fds,
                            int (*helperMain)(int, char**)) {
  const int count = static_cast<int>(fds.size());
  for (int& fd : fds) {
    if (fd < count) fd = ::fcntl(fd, F_DUPFD_CLOEXEC, count);  // out of the targets' way
  }
  for (int i = 0; i < count; ++i) {
    if (fds[i] < 0 || ::dup2(fds[i], i) != i) ::_exit(127);
  }
  ::close_range(static_cast<unsigned>(count), ~0u, 0);
  ::setsid();
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::chdir(request.directory.c_str()) != 0) {
    std::fprintf(stderr, "mesos-containerizer: cannot enter %s: %s\n", request.directory.c_str(),
                 std::strerror(errno));
    ::_exit(127);
  }
  std::vector<char*> argv;
  for (std::string& argument : request.arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& entry : request.environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  environ = envp.data();
  const int status = helperMain(static_cast<int>(argv.size()) - 1, argv.data());
  std::fflush(nullptr);
  ::_exit(status);
}

}  // namespace

int serveLaunches(int socket, int (*helperMain)(int, char**)) {
  // It goes with the slave (or as soon as the slave closes its end).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Ready: the launcher waits for this before its first request.
  if (!writeAll(socket, "S", 1)) return 1;
  for (;;) {
    uint32_t header[2] = {0, 0};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kLaunchRequestMaxFds)];
    iovec part{header, sizeof(header)};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    ssize_t n;
    do {
      n = ::recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n == 0) return 0;  // the slave is gone
    if (n < 0) {
      std::fprintf(stderr, "mesos-containerizer: launch server: %s\n", std::strerror(errno));
      return 1;
    }
    std::vector<int> fds;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        fds.push_back(fd);
      }
    }
    auto closeAll = [&fds] {
      for (int fd : fds) ::close(fd);
    };
    // A short read of the header, or a payload beyond the limit: the
    // stream cannot be followed any more.
    if ((message.msg_flags & MSG_CTRUNC) != 0 ||
        (static_cast<size_t>(n) < sizeof(header) &&
         !readAll(socket, reinterpret_cast<char*>(header) + n, sizeof(header) - n)) ||
        header[0] > kLaunchRequestMaxBytes) {
      closeAll();
      return 1;
    }
    std::string payload(header[0], '\0');
    if (!readAll(socket, payload.data(), payload.size())) {
      closeAll();
      return 1;
    }
    LaunchRequest request;
    int32_t answer;
    if (header[1] != fds.size() || !decodeRequest(payload, &request)) {
      answer = -EINVAL;
    } else {
      // A fork whose child's parent is the slave (this process's parent).
      const long pid = ::syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
      if (pid == 0) {
        ::close(socket);
        runHelper(request, fds, helperMain);
      }
      answer = pid < 0 ? -errno : static_cast<int32_t>(pid);
    }
    closeAll();
    if (!writeAll(socket, reinterpret_cast<const char*>(&answer), sizeof(answer))) return 1;
  }
}

}  // namespace mesos::internal::slave
