// A blocking HTTP/1.1 GET over its own TCP connection, for the Figure 10
// harness: the frameworks poll the master's /state with it (as mesos-go v0
// does) and the coordinator reads /metrics/snapshot and /health. Not for
// actors: it blocks the calling thread for up to `timeout`.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace fig10 {

struct HttpGetResult {
  bool complete = false;  // a whole response arrived (any status)
  int status = 0;         // the status code, when one was read
  std::string error;      // why not complete: connect, timeout, closed early...
  size_t bodyBytes = 0;   // bytes of body (chunk framing not counted)
  std::string body;       // the body, when asked to keep it
  double seconds = 0;     // from connecting to the last byte of the response
};

// GETs http://ip:port/path with "Connection: close". The body is counted as
// it streams in and kept only when `keepBody` (a /state of tens of
// megabytes need not be held). Understands Content-Length and chunked
// bodies. Never throws; gives up once `timeout` of real time has passed
// since the call.
HttpGetResult httpGet(const std::string& ip, uint16_t port, const std::string& path,
                      std::chrono::milliseconds timeout, bool keepBody);

// The number after "\"key\":" in a flat JSON object such as
// /metrics/snapshot; -1 when absent or not a number.
double jsonNumber(const std::string& json, const std::string& key);

}  // namespace fig10
