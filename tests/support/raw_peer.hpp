// Tests that talk to a runtime over real TCP as a hostile, clumsy or slow
// peer would: RawPeer, one raw socket with bounded reads, and WarningLog,
// which collects the runtime's warnings so that tests can wait for one and
// count them.
//
// Waiting is always on an event (bytes or EOF on a socket, a log line),
// bounded by a generous real-time limit so that a broken runtime fails the
// test instead of hanging it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glog/logging.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "process/upid.hpp"

namespace mesos::test {

inline constexpr std::chrono::seconds kSocketTimeout{10};

// Collects WARNING (and worse) log lines.
class WarningLog : public google::LogSink {
 public:
  void send(google::LogSeverity severity, const char* /*fullFilename*/,
            const char* /*baseFilename*/, int /*line*/, const google::LogMessageTime& /*time*/,
            const char* message, size_t length) override {
    if (severity < google::GLOG_WARNING) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.emplace_back(message, length);
    }
    logged_.notify_all();
  }

  // Waits (real time, bounded) for a line containing every one of `parts`.
  bool await(const std::vector<std::string>& parts) {
    std::unique_lock<std::mutex> lock(mutex_);
    return logged_.wait_for(lock, kSocketTimeout, [&] {
      return std::any_of(lines_.begin(), lines_.end(),
                         [&](const std::string& line) { return containsAll(line, parts); });
    });
  }

  size_t count(const std::string& part) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<size_t>(std::count_if(lines_.begin(), lines_.end(), [&](const auto& line) {
      return line.find(part) != std::string::npos;
    }));
  }

  std::string all() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string out;
    for (const std::string& line : lines_) out += "  " + line + "\n";
    return out;
  }

 private:
  static bool containsAll(const std::string& line, const std::vector<std::string>& parts) {
    return std::all_of(parts.begin(), parts.end(),
                       [&](const std::string& part) { return line.find(part) != std::string::npos; });
  }

  mutable std::mutex mutex_;
  std::condition_variable logged_;
  std::vector<std::string> lines_;
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// One raw TCP connection to a runtime. Every read is bounded by
// kSocketTimeout.
class RawPeer {
 public:
  enum class End { kEof, kReset, kTimeout, kData };

  // `receiveBuffer` > 0 sets SO_RCVBUF before connecting (the kernel
  // doubles it): a peer that reads slowly, or not at all, then holds little
  // in its own socket and the runtime's writes block early.
  // `fromIp` (host order, 0 for any) is the local address to connect
  // from: another loopback address plays another host.
  explicit RawPeer(const process::Address& to, int receiveBuffer = 0, uint32_t fromIp = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    if (receiveBuffer > 0) {
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, sizeof(receiveBuffer));
    }
    if (fromIp != 0) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      local.sin_addr.s_addr = htonl(fromIp);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(to.port);
    address.sin_addr.s_addr = htonl(to.ip);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~RawPeer() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;

  bool connected() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  // "127.0.0.1:<port>", the way the runtime names this peer in its logs.
  std::string localAddress() const {
    sockaddr_in address{};
    socklen_t length = sizeof(address);
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "?";
    char ip[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &address.sin_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(address.sin_port));
  }

  // Writes all of `bytes`; false when the connection is broken.
  bool write(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Sends FIN: the runtime reads EOF after what was written.
  void shutdownWrite() { ::shutdown(fd_, SHUT_WR); }

  // Closes with RST instead of FIN.
  void reset() {
    linger hard{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
    ::close(fd_);
    fd_ = -1;
  }

  // Reads one Content-Length framed response (only its head when
  // `headOnly`: the answer to a HEAD request); nullopt on EOF, error,
  // timeout or a response that is not HTTP.
  std::optional<HttpResponse> readResponse(bool headOnly = false) {
    auto deadline = std::chrono::steady_clock::now() + kSocketTimeout;
    size_t headEnd;
    while ((headEnd = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (fill(deadline) != End::kData) return std::nullopt;
    }
    std::string_view head(buffer_.data(), headEnd);
    if (!head.starts_with("HTTP/1.1 ") || head.size() < 12) return std::nullopt;
    HttpResponse response;
    response.status = std::atoi(std::string(head.substr(9, 3)).c_str());
    size_t lineEnd = head.find("\r\n");
    while (lineEnd != std::string_view::npos) {
      head.remove_prefix(lineEnd + 2);
      lineEnd = head.find("\r\n");
      std::string_view line = head.substr(0, lineEnd);
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) return std::nullopt;
      std::string name(line.substr(0, colon));
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      response.headers[name] = std::string(value);
    }
    auto length = response.headers.find("content-length");
    if (length == response.headers.end()) return std::nullopt;
    size_t bodySize = headOnly ? 0 : std::stoul(length->second);
    size_t total = headEnd + 4 + bodySize;
    while (buffer_.size() < total) {
      if (fill(deadline) != End::kData) return std::nullopt;
    }
    response.body = buffer_.substr(headEnd + 4, bodySize);
    buffer_.erase(0, total);
    return response;
  }

  // Reads the head of a response whose body is streamed (chunked): status
  // and headers, the body left unread; nullopt on EOF, error, timeout or
  // a head that is not HTTP.
  std::optional<HttpResponse> readStreamHead() {
    auto deadline = std::chrono::steady_clock::now() + kSocketTimeout;
    size_t headEnd;
    while ((headEnd = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (fill(deadline) != End::kData) return std::nullopt;
    }
    std::string head = buffer_.substr(0, headEnd + 2);
    buffer_.erase(0, headEnd + 4);
    if (!head.starts_with("HTTP/1.1 ") || head.size() < 12) return std::nullopt;
    HttpResponse response;
    response.status = std::atoi(head.substr(9, 3).c_str());
    size_t at = head.find("\r\n") + 2;
    for (size_t end; (end = head.find("\r\n", at)) != std::string::npos; at = end + 2) {
      std::string line = head.substr(at, end - at);
      size_t colon = line.find(':');
      if (colon == std::string::npos) return std::nullopt;
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      size_t value = line.find_first_not_of(' ', colon + 1);
      response.headers[name] = value == std::string::npos ? "" : line.substr(value);
    }
    return response;
  }

  // Reads one chunk of a chunked body: its data, "" for the last (empty)
  // chunk; nullopt on EOF, error, timeout or bytes that are not a chunk.
  std::optional<std::string> readChunk() {
    auto deadline = std::chrono::steady_clock::now() + kSocketTimeout;
    size_t lineEnd;
    while ((lineEnd = buffer_.find("\r\n")) == std::string::npos) {
      if (fill(deadline) != End::kData) return std::nullopt;
    }
    char* end = nullptr;
    size_t size = std::strtoul(buffer_.c_str(), &end, 16);
    if (end == buffer_.c_str()) return std::nullopt;
    size_t total = lineEnd + 2 + size + 2;
    while (buffer_.size() < total) {
      if (fill(deadline) != End::kData) return std::nullopt;
    }
    if (buffer_.compare(total - 2, 2, "\r\n") != 0) return std::nullopt;
    std::string data = buffer_.substr(lineEnd + 2, size);
    buffer_.erase(0, total);
    return data;
  }

  // Waits for bytes, at most kSocketTimeout, and reads one chunk of at most
  // `max` into the buffer readResponse() reads from.
  End readSome(size_t max = 64 * 1024) {
    return fill(std::chrono::steady_clock::now() + kSocketTimeout, max);
  }

  // Bytes read and not yet consumed by readResponse().
  size_t buffered() const { return buffer_.size(); }

  // Reads until the runtime closes the connection. `unread` gets every byte
  // that arrived first (including any not consumed by readResponse()).
  End readToEnd(std::string* unread) {
    auto deadline = std::chrono::steady_clock::now() + kSocketTimeout;
    End end;
    while ((end = fill(deadline)) == End::kData) {
    }
    *unread = std::move(buffer_);
    buffer_.clear();
    return end;
  }

 private:
  End fill(std::chrono::steady_clock::time_point deadline, size_t max = 256 * 1024) {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return End::kTimeout;
      pollfd readable{fd_, POLLIN, 0};
      int ready = ::poll(&readable, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) return End::kTimeout;
      size_t old = buffer_.size();
      buffer_.resize(old + max);
      ssize_t n = ::recv(fd_, buffer_.data() + old, max, 0);
      buffer_.resize(old + (n > 0 ? static_cast<size_t>(n) : 0));
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) return End::kEof;
      if (n < 0) return End::kReset;
      return End::kData;
    }
  }

  int fd_ = -1;
  std::string buffer_;
};

inline std::ostream& operator<<(std::ostream& out, RawPeer::End end) {
  switch (end) {
    case RawPeer::End::kEof: return out << "EOF";
    case RawPeer::End::kReset: return out << "reset";
    case RawPeer::End::kTimeout: return out << "timeout";
    case RawPeer::End::kData: return out << "data";
  }
  return out;
}

}  // namespace mesos::test
