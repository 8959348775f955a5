// fig10 --operator_subscribers=N: N subscribers of the master's operator
// event stream (SUBSCRIBE to /api/v1, docs/operator-http-api.md) that read
// everything, so that the master's cost per task can be measured with them
// attached. They live on one thread of the coordinator, which polls their
// sockets and throws what arrives away (counting it).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace fig10 {

class OperatorSubscribers {
 public:
  OperatorSubscribers() = default;
  OperatorSubscribers(const OperatorSubscribers&) = delete;
  OperatorSubscribers& operator=(const OperatorSubscribers&) = delete;
  ~OperatorSubscribers() { stop(); }

  // Opens `count` streams to the master at 127.0.0.1:`port`, from
  // 127.0.0.2, 127.0.0.3, ... (at most kPerAddress from each, below the
  // master's connections-per-peer bound), and starts reading them. False,
  // with `error`, when a connection or a write fails; those opened so far
  // keep being read until stop().
  // `protobuf`: they ask for application/x-protobuf records, else JSON.
  bool start(uint16_t port, int count, bool protobuf, std::string* error);
  // Closes every stream and joins the thread. Idempotent.
  void stop();

  static constexpr int kPerAddress = 1000;

  int opened() const { return static_cast<int>(fds_.size()); }
  // Streams whose answer began "HTTP/1.1 200".
  int accepted() const { return accepted_.load(); }
  // Streams the master closed.
  int closed() const { return closed_.load(); }
  uint64_t bytes() const { return bytes_.load(); }

 private:
  void loop();

  std::vector<int> fds_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::atomic<int> closed_{0};
  std::atomic<uint64_t> bytes_{0};
};

}  // namespace fig10
