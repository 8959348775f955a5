#include "support/net.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <glog/logging.h>

#include "process/http.hpp"

namespace mesos::test {

TcpClient::TcpClient(const process::Address& address, uint32_t sourceIp) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  PCHECK(fd_ >= 0) << "socket";
  if (sourceIp != 0) {
    sockaddr_in source{};
    source.sin_family = AF_INET;
    source.sin_addr.s_addr = htonl(sourceIp);
    PCHECK(::bind(fd_, reinterpret_cast<sockaddr*>(&source), sizeof(source)) == 0)
        << "bind to " << process::Address{sourceIp, 0}.ipString();
  }
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(address.port);
  sa.sin_addr.s_addr = htonl(address.ip);
  PCHECK(::connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0)
      << "connect to " << address;
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

bool loopbackAliasesWork() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in source{};
  source.sin_family = AF_INET;
  source.sin_addr.s_addr = htonl(0x7f000002);
  bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof(source)) == 0;
  ::close(fd);
  return bound;
}

TcpClient::~TcpClient() {
  if (fd_ >= 0) ::close(fd_);
}

bool TcpClient::write(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool TcpClient::fill(int timeoutMs) {
  pollfd p{fd_, POLLIN, 0};
  int ready = ::poll(&p, 1, timeoutMs);
  if (ready <= 0) return false;
  char chunk[16384];
  ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
  if (n <= 0) return false;
  buffer_.append(chunk, static_cast<size_t>(n));
  return true;
}

bool TcpClient::readResponse(int* status, std::string* body, int timeoutMs, std::string* headOut) {
  size_t headEnd;
  while ((headEnd = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill(timeoutMs)) return false;
  }
  std::string head = buffer_.substr(0, headEnd);
  if (head.compare(0, 9, "HTTP/1.1 ") != 0) return false;
  *status = std::atoi(head.c_str() + 9);
  size_t length = 0;
  for (size_t pos = head.find("\r\n"); pos != std::string::npos; pos = head.find("\r\n", pos + 2)) {
    std::string line = head.substr(pos + 2, head.find("\r\n", pos + 2) - pos - 2);
    if (line.size() > 15 && strncasecmp(line.c_str(), "content-length:", 15) == 0) {
      length = std::strtoul(line.c_str() + 15, nullptr, 10);
    }
  }
  while (buffer_.size() < headEnd + 4 + length) {
    if (!fill(timeoutMs)) return false;
  }
  if (body != nullptr) *body = buffer_.substr(headEnd + 4, length);
  if (headOut != nullptr) *headOut = head;
  buffer_.erase(0, headEnd + 4 + length);
  return true;
}

bool TcpClient::awaitClose(int timeoutMs) {
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeoutMs) <= 0) return false;
    char chunk[4096];
    ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
  }
}

int httpGet(const process::Address& address, const std::string& path, std::string* body) {
  TcpClient client(address);
  if (!client.write("GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n")) return 0;
  int status = 0;
  if (!client.readResponse(&status, body)) return 0;
  return status;
}

std::string libprocessMessage(const std::string& from, const std::string& toId,
                              const std::string& name, const std::string& body) {
  std::string bytes;
  process::http::encodeMessage(from, toId, "test", name, body, &bytes);
  return bytes;
}

}  // namespace mesos::test
