// Blocking TCP helpers for tests that talk to a runtime as an outside peer
// would. Every read has a real-time bound so a broken runtime fails the test
// instead of hanging it.
#pragma once

#include <string>

#include "process/upid.hpp"

namespace mesos::test {

class TcpClient {
 public:
  // Connects to `address`, from `sourceIp` when given (e.g. 127.0.0.2, to
  // stand for another host); CHECK-fails if it cannot.
  explicit TcpClient(const process::Address& address, uint32_t sourceIp = 0);
  ~TcpClient();
  TcpClient(const TcpClient&) = delete;
  TcpClient& operator=(const TcpClient&) = delete;

  // Writes all of `bytes`. Returns false if the connection is broken.
  bool write(const std::string& bytes);
  // Reads one HTTP response (Content-Length framed), its status line and
  // headers into *head when given. Returns false on EOF, error or timeout.
  bool readResponse(int* status, std::string* body, int timeoutMs = 10000,
                    std::string* head = nullptr);
  // Returns true when the peer closes the connection within `timeoutMs`
  // (data arriving meanwhile is read and discarded).
  bool awaitClose(int timeoutMs = 10000);

 private:
  bool fill(int timeoutMs);  // reads more into buffer_; false on EOF/error/timeout

  int fd_ = -1;
  std::string buffer_;
};

// GET `path` on a fresh connection; returns the status (0 on failure).
int httpGet(const process::Address& address, const std::string& path, std::string* body = nullptr);

// A libprocess-framed message as an Apache Mesos peer sends it (chunked).
// Whether a socket can be bound to 127.0.0.2 (the loopback addresses
// beyond 127.0.0.1 stand for other hosts in tests).
bool loopbackAliasesWork();

std::string libprocessMessage(const std::string& from, const std::string& toId,
                              const std::string& name, const std::string& body);

}  // namespace mesos::test
