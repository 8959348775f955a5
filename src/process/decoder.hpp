// RequestDecoder: turns the bytes of one inbound TCP stream into HTTP/1.1
// requests, incrementally, with hard limits. It is the runtime's only parser
// of untrusted input (and the target of tests/fuzz/decoder_fuzzer.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "process/http.hpp"

namespace process::http {

class RequestDecoder {
 public:
  struct Limits {
    size_t maxHeaderBytes = 64 * 1024;  // request line plus headers
    size_t maxBodyBytes = 64 * 1024 * 1024;
  };

  // Why decoding stopped; the stream cannot be resynchronised after any of
  // these, so the connection should be closed (after a response, for peers
  // that wait for one).
  struct Failure {
    int status;           // 400 malformed, 413 too large, 501 unsupported
    std::string message;  // names the problem, for the log
  };

  explicit RequestDecoder(Limits limits) : limits_(limits) {}

  // Consumes `size` bytes. Complete requests are appended to `out`. Returns
  // a Failure once the input cannot be a valid request stream; after that,
  // every call returns the same failure.
  std::optional<Failure> feed(const char* data, size_t size, std::vector<Request>* out);

  // True when no partial request is buffered (the peer is between requests).
  bool idle() const { return phase_ == Phase::kHead && buffer_.size() == consumed_; }

 private:
  enum class Phase { kHead, kBody, kChunkSize, kChunkData, kChunkDataEnd, kTrailer };

  std::optional<Failure> fail(int status, std::string message);
  std::optional<Failure> parseHead(size_t headEnd);
  void finishRequest(std::vector<Request>* out);

  Limits limits_;
  std::string buffer_;  // unconsumed input
  size_t consumed_ = 0; // bytes of buffer_ already used
  size_t scanned_ = 0;  // in kHead: how far buffer_ was searched for the blank line
  Phase phase_ = Phase::kHead;
  Request current_;
  size_t remaining_ = 0;  // body or chunk bytes still expected
  std::optional<Failure> failure_;
};

}  // namespace process::http
