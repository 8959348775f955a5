// Transport: the runtime's TCP side. It accepts connections and decodes the
// requests on them (libprocess messages and plain HTTP), and keeps one
// persistent outbound connection per peer address for sending messages, with
// writes coalesced. All socket work runs on one Asio I/O thread; send() and
// connect() may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "process/asio.hpp"
#include "process/clock.hpp"
#include "process/decoder.hpp"
#include "process/http.hpp"
#include "process/upid.hpp"

namespace process {

class InboundConnection;
class OutboundConnection;

// Answers one inbound request. Responses on a connection go out in request
// order however they complete. Safe to call from any thread; only the first
// call counts; a connection closed meanwhile drops the response.
class Responder {
 public:
  Responder() = default;
  Responder(std::shared_ptr<InboundConnection> connection, uint64_t slot, bool keepAlive)
      : connection_(std::move(connection)), slot_(slot), keepAlive_(keepAlive) {}

  void respond(const http::Response& response) const;
  // False for requests whose sender waits for no answer (libprocess peers).
  bool wanted() const { return connection_ != nullptr; }

 private:
  std::shared_ptr<InboundConnection> connection_;
  uint64_t slot_ = 0;
  bool keepAlive_ = true;
};

class Transport {
 public:
  struct Options {
    size_t maxBodyBytes = 64 * 1024 * 1024;
    // A peer that leaves a request half sent for this long is disconnected.
    Duration requestTimeout = std::chrono::seconds(60);
  };

  // Called on the I/O thread.
  struct Handler {
    virtual ~Handler() = default;
    // One decoded request from `peer` ("ip:port"). `responder.wanted()` is
    // false for libprocess-style messages, which get no answer.
    virtual void onRequest(http::Request&& request, const std::string& peer,
                           Responder responder) = 0;
    // The outbound connection to `address` failed or closed.
    virtual void onPeerDown(const Address& address) = 0;
  };

  Transport(Handler& handler, Clock& clock, Options options);
  ~Transport();

  // Binds and listens on ip:port (port 0: any free port). Returns the bound
  // address. Nothing is accepted until run().
  Result<Address> start(const std::string& ip, uint16_t port);
  // Starts the I/O thread: accepting, reading, writing, timers.
  void run();
  // Closes every socket and joins the I/O thread.
  void stop();

  // Queues `bytes` (one or more encoded requests) for `to`, connecting first
  // if needed. If the connection fails, the bytes are dropped and the handler
  // hears onPeerDown(to).
  void send(const Address& to, std::string bytes);
  // Ensures a connection to `to` exists (for link()); onPeerDown(to) follows
  // if it cannot be made or later breaks.
  void connect(const Address& to);

  // Waits, at most `bound`, until every byte queued so far on an outbound
  // connection has been handed to the kernel (or its connection failed).
  // Returns whether that happened in time. For a process about to exit with
  // messages still queued (a scheduler driver's last UnregisterFramework-
  // Message). REQUIRES: not called on the I/O thread.
  bool flush(Duration bound);

  asio::io_context& io() { return io_; }
  const Options& options() const { return options_; }

 private:
  friend class InboundConnection;
  friend class OutboundConnection;

  void accept();
  std::shared_ptr<OutboundConnection> outbound(const Address& to);
  void outboundFailed(const std::shared_ptr<OutboundConnection>& connection);
  // An outbound connection has nothing more to write (see flush()).
  void outboundIdle();

  Handler& handler_;
  Clock& clock_;
  Options options_;
  asio::io_context io_;
  std::unique_ptr<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
  std::atomic<bool> stopped_{false};

  std::mutex mutex_;  // guards the two maps below
  std::unordered_map<Address, std::shared_ptr<OutboundConnection>> outbound_;
  std::unordered_map<InboundConnection*, std::weak_ptr<InboundConnection>> inbound_;

  std::mutex flushMutex_;  // taken before mutex_
  std::condition_variable flushed_;
};

}  // namespace process
