#include "subscribers.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fig10 {

namespace {

constexpr char kSubscribe[] = R"({"type":"SUBSCRIBE"})";

// A connected, subscribed, non-blocking socket from `from` (host order);
// -1 with `error` on failure.
int subscribe(uint32_t from, uint16_t port, bool protobuf, std::string* error) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_addr.s_addr = htonl(from);
  sockaddr_in master{};
  master.sin_family = AF_INET;
  master.sin_port = htons(port);
  master.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&master), sizeof(master)) != 0) {
    *error = std::string("connect: ") + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  std::string body = kSubscribe;
  std::string request = "POST /api/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        "Content-Type: application/json\r\nAccept: " +
                        std::string(protobuf ? "application/x-protobuf" : "application/json") +
                        "\r\n"
                        "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    *error = std::string("send: ") + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

}  // namespace

bool OperatorSubscribers::start(uint16_t port, int count, bool protobuf, std::string* error) {
  bool ok = true;
  for (int i = 0; i < count; ++i) {
    uint32_t from = INADDR_LOOPBACK + 1 + static_cast<uint32_t>(i / kPerAddress);
    int fd = subscribe(from, port, protobuf, error);
    if (fd < 0) {
      ok = false;
      break;
    }
    fds_.push_back(fd);
  }
  thread_ = std::thread([this] { loop(); });
  return ok;
}

void OperatorSubscribers::stop() {
  if (thread_.joinable()) {
    stopping_ = true;
    thread_.join();
  }
  for (int fd : fds_) {
    if (fd >= 0) ::close(fd);
  }
  fds_.clear();
}

void OperatorSubscribers::loop() {
  std::vector<pollfd> polled;
  for (int fd : fds_) polled.push_back(pollfd{fd, POLLIN, 0});
  std::vector<bool> answered(fds_.size(), false);
  static thread_local char buffer[256 * 1024];
  while (!stopping_) {
    int ready = ::poll(polled.data(), polled.size(), 100);
    if (ready <= 0) continue;
    for (size_t i = 0; i < polled.size(); ++i) {
      if (polled[i].fd < 0 || polled[i].revents == 0) continue;
      for (;;) {
        ssize_t n = ::recv(polled[i].fd, buffer, sizeof(buffer), 0);
        if (n > 0) {
          if (!answered[i]) {
            answered[i] = true;
            if (std::strncmp(buffer, "HTTP/1.1 200", std::min<size_t>(12, n)) == 0) {
              accepted_++;
            }
          }
          bytes_ += static_cast<uint64_t>(n);
          continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0 && errno == EINTR) continue;
        closed_++;
        polled[i].fd = -1;  // fds_ still owns it
        break;
      }
    }
  }
}

}  // namespace fig10
