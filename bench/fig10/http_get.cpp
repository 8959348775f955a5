#include "http_get.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace fig10 {

namespace {

using SteadyClock = std::chrono::steady_clock;

// Reads a response incrementally: head first, then the body by
// Content-Length, by chunks, or until the connection closes.
class ResponseReader {
 public:
  explicit ResponseReader(bool keepBody) : keepBody_(keepBody) {}

  // Consumes `n` bytes. Returns false on a malformed response.
  bool feed(const char* data, size_t n) {
    size_t i = 0;
    while (i < n && !done_) {
      switch (phase_) {
        case Phase::kHead: {
          head_.push_back(data[i++]);
          if (head_.size() > 64 * 1024) return fail("response head over 64 KiB");
          if (head_.size() >= 4 && head_.compare(head_.size() - 4, 4, "\r\n\r\n") == 0) {
            if (!parseHead()) return false;
          }
          break;
        }
        case Phase::kBody: {
          size_t take = n - i;
          if (remaining_ >= 0) take = std::min<size_t>(take, static_cast<size_t>(remaining_));
          body(data + i, take);
          i += take;
          if (remaining_ >= 0) {
            remaining_ -= static_cast<int64_t>(take);
            if (remaining_ == 0) done_ = true;
          }
          break;
        }
        case Phase::kChunkSize: {
          char c = data[i++];
          if (c != '\n') {
            line_.push_back(c);
            if (line_.size() > 1024) return fail("chunk size line too long");
            break;
          }
          char* end = nullptr;
          long long size = std::strtoll(line_.c_str(), &end, 16);
          if (end == line_.c_str() || size < 0) return fail("bad chunk size '" + line_ + "'");
          line_.clear();
          if (size == 0) {
            phase_ = Phase::kTrailer;
          } else {
            remaining_ = size;
            phase_ = Phase::kChunkData;
          }
          break;
        }
        case Phase::kChunkData: {
          size_t take = std::min<size_t>(n - i, static_cast<size_t>(remaining_));
          body(data + i, take);
          i += take;
          remaining_ -= static_cast<int64_t>(take);
          if (remaining_ == 0) {
            phase_ = Phase::kChunkEnd;
            line_.clear();
          }
          break;
        }
        case Phase::kChunkEnd: {  // the CRLF after a chunk's data
          if (data[i++] == '\n') phase_ = Phase::kChunkSize;
          break;
        }
        case Phase::kTrailer: {  // trailer lines, up to an empty one
          char c = data[i++];
          if (c != '\n') {
            if (c != '\r') line_.push_back(c);
            break;
          }
          if (line_.empty()) done_ = true;
          line_.clear();
          break;
        }
      }
    }
    return true;
  }

  // The peer closed the connection: a body delimited by the close ends here.
  void closed() {
    if (phase_ == Phase::kBody && remaining_ < 0) done_ = true;
  }

  bool done() const { return done_; }
  int status() const { return status_; }
  const std::string& error() const { return error_; }
  size_t bodyBytes() const { return bodyBytes_; }
  std::string takeBody() { return std::move(body_); }

 private:
  enum class Phase { kHead, kBody, kChunkSize, kChunkData, kChunkEnd, kTrailer };

  bool fail(std::string why) {
    error_ = std::move(why);
    return false;
  }

  void body(const char* data, size_t n) {
    bodyBytes_ += n;
    if (keepBody_) body_.append(data, n);
  }

  bool parseHead() {
    // "HTTP/1.1 200 OK\r\n"
    if (head_.compare(0, 5, "HTTP/") != 0) return fail("not an HTTP response");
    size_t space = head_.find(' ');
    if (space == std::string::npos) return fail("no status code");
    status_ = std::atoi(head_.c_str() + space + 1);
    bool chunked = false;
    int64_t length = -1;
    size_t at = head_.find("\r\n");
    while (at != std::string::npos && at + 2 < head_.size()) {
      size_t next = head_.find("\r\n", at + 2);
      if (next == std::string::npos) break;
      std::string line = head_.substr(at + 2, next - at - 2);
      at = next;
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      if (name == "content-length") length = std::atoll(value.c_str());
      if (name == "transfer-encoding" && value.find("chunked") != std::string::npos) {
        chunked = true;
      }
    }
    if (chunked) {
      phase_ = Phase::kChunkSize;
    } else {
      phase_ = Phase::kBody;
      remaining_ = length;
      if (length == 0) done_ = true;
    }
    return true;
  }

  const bool keepBody_;
  Phase phase_ = Phase::kHead;
  std::string head_;
  std::string line_;
  int64_t remaining_ = -1;  // body or chunk bytes still to come; -1: until close
  int status_ = 0;
  bool done_ = false;
  size_t bodyBytes_ = 0;
  std::string body_;
  std::string error_;
};

// Waits for `events` on `fd` until `deadline`; false on timeout or error.
bool waitFor(int fd, short events, SteadyClock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

}  // namespace

HttpGetResult httpGet(const std::string& ip, uint16_t port, const std::string& path,
                      std::chrono::milliseconds timeout, bool keepBody) {
  HttpGetResult result;
  auto start = SteadyClock::now();
  auto deadline = start + timeout;
  auto finish = [&](std::string error) {
    result.error = std::move(error);
    result.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
    return result;
  };

  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) return finish("bad ip " + ip);

  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return finish(std::string("socket: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};

  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (errno != EINPROGRESS) return finish(std::string("connect: ") + std::strerror(errno));
    if (!waitFor(fd, POLLOUT, deadline)) return finish("connect: timed out");
    int error = 0;
    socklen_t size = sizeof(error);
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
    if (error != 0) return finish(std::string("connect: ") + std::strerror(error));
  }

  std::string request = "GET " + path + " HTTP/1.1\r\nHost: " + ip + ":" + std::to_string(port) +
                        "\r\nAccept: */*\r\nConnection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!waitFor(fd, POLLOUT, deadline)) return finish("send: timed out");
    } else {
      return finish(std::string("send: ") + std::strerror(errno));
    }
  }

  ResponseReader reader(keepBody);
  char buffer[64 * 1024];
  while (!reader.done()) {
    ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n > 0) {
      if (!reader.feed(buffer, static_cast<size_t>(n))) return finish(reader.error());
    } else if (n == 0) {
      reader.closed();
      if (!reader.done()) return finish("connection closed before the response ended");
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!waitFor(fd, POLLIN, deadline)) {
        result.status = reader.status();
        result.bodyBytes = reader.bodyBytes();
        return finish("timed out after " + std::to_string(timeout.count()) + " ms");
      }
    } else {
      return finish(std::string("recv: ") + std::strerror(errno));
    }
  }
  result.complete = true;
  result.status = reader.status();
  result.bodyBytes = reader.bodyBytes();
  result.body = reader.takeBody();
  return finish("");
}

double jsonNumber(const std::string& json, const std::string& key) {
  std::string quoted = "\"" + key + "\"";
  size_t at = json.find(quoted);
  if (at == std::string::npos) return -1;
  at += quoted.size();
  while (at < json.size() && (json[at] == ' ' || json[at] == ':')) at++;
  if (at >= json.size()) return -1;
  char* end = nullptr;
  double value = std::strtod(json.c_str() + at, &end);
  if (end == json.c_str() + at) return -1;
  return value;
}

}  // namespace fig10
