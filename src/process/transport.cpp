#include "process/transport.hpp"

#include <algorithm>
#include <deque>
#include <optional>

#include <glog/logging.h>

namespace process {

using asio::ip::tcp;
using boost::system::error_code;

namespace {

constexpr size_t kReadBufferBytes = 64 * 1024;

std::string describe(const tcp::endpoint& endpoint) {
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

tcp::endpoint endpointOf(const Address& address) {
  return tcp::endpoint(asio::ip::address_v4(address.ip), address.port);
}

}  // namespace

// One accepted connection. Lives on the I/O thread; shared ownership keeps it
// alive while an operation or a Responder refers to it.
class InboundConnection : public std::enable_shared_from_this<InboundConnection> {
 public:
  // `from` is the address accept() reported: the socket itself may no
  // longer know its peer (a peer that reset at once).
  InboundConnection(Transport& transport, tcp::socket socket, const tcp::endpoint& from)
      : transport_(transport),
        socket_(std::move(socket)),
        peer_(describe(from)),
        buffer_(new char[kReadBufferBytes]),
        decoder_({64 * 1024, transport.options().maxBodyBytes}) {
    error_code ec;
    socket_.set_option(tcp::no_delay(true), ec);
  }

  void start() { read(); }

  // Runs on the I/O thread: fills `slot` with an encoded response and sends
  // every response that is now next in order.
  void complete(uint64_t slot, std::string bytes, bool closeAfter) {
    if (closed_ || slot < firstSlot_) return;
    size_t index = slot - firstSlot_;
    if (index >= slots_.size()) return;
    if (slots_[index].has_value()) return;  // answered already
    slots_[index] = Slot{std::move(bytes), closeAfter};
    while (!slots_.empty() && slots_.front().has_value()) {
      outgoing_.append(slots_.front()->bytes);
      if (slots_.front()->closeAfter) closeAfterWrite_ = true;
      slots_.pop_front();
      ++firstSlot_;
      if (closeAfterWrite_) break;
    }
    write();
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    cancelStallTimer();
    error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    std::lock_guard<std::mutex> lock(transport_.mutex_);
    transport_.inbound_.erase(this);
  }

  const std::string& peer() const { return peer_; }
  Transport& transport() { return transport_; }

 private:
  struct Slot {
    std::string bytes;
    bool closeAfter;
  };

  uint64_t reserveSlot() {
    slots_.emplace_back();
    return firstSlot_ + slots_.size() - 1;
  }

  void read() {
    if (closed_ || reading_stopped_) return;
    auto self = shared_from_this();
    socket_.async_read_some(asio::buffer(buffer_.get(), kReadBufferBytes),
                            [self](const error_code& ec, size_t n) { self->onRead(ec, n); });
  }

  void onRead(const error_code& ec, size_t n) {
    if (closed_) return;
    if (ec) {
      if (!decoder_.idle()) {
        LOG(WARNING) << "Connection from " << peer_
                     << " closed in the middle of a request; dropping the partial request";
      }
      close();
      return;
    }
    std::vector<http::Request> requests;
    auto failure = decoder_.feed(buffer_.get(), n, &requests);
    size_t completed = requests.size();
    for (auto& request : requests) dispatch(std::move(request));
    if (failure) {
      LOG(WARNING) << "Closing connection from " << peer_ << ": " << failure->message;
      reading_stopped_ = true;
      cancelStallTimer();
      http::Response response{failure->status, "text/plain", failure->message + "\n", {}};
      std::string bytes;
      http::encodeResponse(response, false, &bytes);
      complete(reserveSlot(), std::move(bytes), true);
      return;
    }
    // A request must arrive whole within the request timeout of its first
    // byte; progress within it does not extend that (a trickle would hold
    // the connection forever), finishing a request starts a new one.
    if (decoder_.idle()) {
      cancelStallTimer();
    } else if (!stallTimer_ || completed > 0) {
      armStallTimer();
    }
    read();
  }

  void dispatch(http::Request&& request) {
    bool libprocessPeer = request.method == "POST" &&
                          request.header("user-agent").starts_with("libprocess/");
    Responder responder;
    if (!libprocessPeer) {
      responder = Responder(shared_from_this(), reserveSlot(), request.keepAlive);
    }
    transport_.handler_.onRequest(std::move(request), peer_, std::move(responder));
  }

  void write() {
    if (closed_ || writing_ || outgoing_.empty()) {
      if (!writing_ && outgoing_.empty() && closeAfterWrite_) close();
      return;
    }
    writing_ = true;
    inflight_.swap(outgoing_);
    outgoing_.clear();
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(inflight_), [self](const error_code& ec, size_t) {
      self->writing_ = false;
      self->inflight_.clear();
      if (ec) {
        self->close();
        return;
      }
      self->write();
    });
  }

  void armStallTimer() {
    cancelStallTimer();
    std::weak_ptr<InboundConnection> weak = shared_from_this();
    asio::io_context& io = transport_.io_;
    stallTimer_ = transport_.clock_.schedule(
        transport_.clock_.now() + transport_.options().requestTimeout, [weak, &io] {
          asio::post(io, [weak] {
            auto self = weak.lock();
            if (!self || self->closed_ || self->decoder_.idle() || !self->stallTimer_) return;
            self->stallTimer_.reset();
            LOG(WARNING) << "Closing connection from " << self->peer_
                         << ": a request was left incomplete for longer than the request timeout";
            self->close();
          });
        });
  }

  void cancelStallTimer() {
    if (stallTimer_) {
      transport_.clock_.cancel(*stallTimer_);
      stallTimer_.reset();
    }
  }

  Transport& transport_;
  tcp::socket socket_;
  std::string peer_;
  std::unique_ptr<char[]> buffer_;
  http::RequestDecoder decoder_;
  std::deque<std::optional<Slot>> slots_;
  uint64_t firstSlot_ = 0;
  std::string outgoing_;
  std::string inflight_;
  bool writing_ = false;
  bool closeAfterWrite_ = false;
  bool closed_ = false;
  bool reading_stopped_ = false;
  std::optional<TimerId> stallTimer_;
};

void Responder::respond(const http::Response& response) const {
  if (!connection_) return;
  std::string bytes;
  http::encodeResponse(response, keepAlive_, &bytes);
  auto connection = connection_;
  uint64_t slot = slot_;
  bool close = !keepAlive_;
  asio::post(connection->transport().io(), [connection, slot, close, bytes = std::move(bytes)]() mutable {
    connection->complete(slot, std::move(bytes), close);
  });
}

// One outbound connection to a peer address, shared by every actor here that
// sends to that address. Bytes queued while a write is in flight go out
// together in the next write.
class OutboundConnection : public std::enable_shared_from_this<OutboundConnection> {
 public:
  OutboundConnection(Transport& transport, Address to)
      : transport_(transport), to_(to), socket_(transport.io_), readBuffer_(new char[4096]) {}

  void start() {
    auto self = shared_from_this();
    socket_.async_connect(endpointOf(to_), [self](const error_code& ec) {
      if (ec) {
        self->fail("could not connect: " + ec.message());
        return;
      }
      error_code ignored;
      self->socket_.set_option(tcp::no_delay(true), ignored);
      {
        std::lock_guard<std::mutex> lock(self->mutex_);
        self->connected_ = true;
        if (self->pending_.empty() || self->writing_) {
          self->read();
          return;
        }
        self->writing_ = true;
      }
      self->read();
      self->write();
    });
  }

  // Returns false when this connection has failed (the bytes are dropped).
  bool enqueue(std::string&& bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failed_) return false;
      if (pending_.empty()) {
        pending_.swap(bytes);
      } else {
        pending_.append(bytes);
      }
      if (!connected_ || writing_) return true;
      writing_ = true;
    }
    auto self = shared_from_this();
    asio::post(transport_.io_, [self] { self->write(); });
    return true;
  }

  const Address& to() const { return to_; }

  // Nothing queued or being written (or the connection failed).
  bool idle() {
    std::lock_guard<std::mutex> lock(mutex_);
    return failed_ || (pending_.empty() && !writing_);
  }

  void fail(const std::string& why) {
    size_t dropped;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failed_) return;
      failed_ = true;
      dropped = pending_.size();
      pending_.clear();
    }
    LOG(INFO) << "Connection to " << to_ << " ended (" << why << ")"
              << (dropped > 0 ? "; dropped " + std::to_string(dropped) + " unsent bytes" : "");
    error_code ec;
    socket_.close(ec);
    transport_.outboundFailed(shared_from_this());
    transport_.outboundIdle();
  }

 private:
  // I/O thread; REQUIRES: writing_ was set by the caller.
  void write() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failed_) return;
      inflight_.clear();
      inflight_.swap(pending_);
    }
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(inflight_), [self](const error_code& ec, size_t) {
      if (ec) {
        self->fail("write failed: " + ec.message());
        return;
      }
      bool more;
      {
        std::lock_guard<std::mutex> lock(self->mutex_);
        more = !self->pending_.empty();
        if (!more) self->writing_ = false;
      }
      if (more) {
        self->write();
      } else {
        self->transport_.outboundIdle();
      }
    });
  }

  // Peers may answer (HTTP servers send 202); the answers carry nothing we
  // need. Reading tells us when the peer goes away.
  void read() {
    auto self = shared_from_this();
    socket_.async_read_some(asio::buffer(readBuffer_.get(), 4096),
                            [self](const error_code& ec, size_t) {
                              if (ec) {
                                self->fail(ec == asio::error::eof ? "closed by peer"
                                                                  : ec.message());
                                return;
                              }
                              self->read();
                            });
  }

  Transport& transport_;
  Address to_;
  tcp::socket socket_;
  std::unique_ptr<char[]> readBuffer_;
  std::mutex mutex_;
  std::string pending_;
  std::string inflight_;
  bool connected_ = false;
  bool writing_ = false;
  bool failed_ = false;
};

Transport::Transport(Handler& handler, Clock& clock, Options options)
    : handler_(handler),
      clock_(clock),
      options_(options),
      work_(std::make_unique<asio::executor_work_guard<asio::io_context::executor_type>>(
          io_.get_executor())),
      acceptor_(io_) {}

Transport::~Transport() { stop(); }

Result<Address> Transport::start(const std::string& ip, uint16_t port) {
  auto parsed = Address::parseIp(ip);
  if (!parsed) return parsed.error();
  error_code ec;
  tcp::endpoint endpoint(asio::ip::address_v4(*parsed), port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Error{"cannot listen on " + ip + ":" + std::to_string(port) + ": " + ec.message()};
  }
  uint16_t bound = acceptor_.local_endpoint(ec).port();
  return Address{*parsed, bound};
}

void Transport::run() {
  accept();
  thread_ = std::thread([this] { io_.run(); });
}

void Transport::stop() {
  if (stopped_.exchange(true)) return;
  asio::post(io_, [this] {
    error_code ec;
    acceptor_.close(ec);
    std::vector<std::shared_ptr<InboundConnection>> inbound;
    std::vector<std::shared_ptr<OutboundConnection>> outbound;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& [key, weak] : inbound_) {
        if (auto connection = weak.lock()) inbound.push_back(connection);
      }
      for (auto& [address, connection] : outbound_) outbound.push_back(connection);
      outbound_.clear();
    }
    for (auto& connection : inbound) connection->close();
    for (auto& connection : outbound) connection->fail("runtime stopping");
    work_.reset();
    // Timer waits the runtime's clock armed on io_ (for delay()s, stall
    // timers, ...) are still pending and would keep run() going until their
    // deadlines: stop once the handlers queued by the closes above have run.
    asio::post(io_, [this] { io_.stop(); });
  });
  if (thread_.joinable()) {
    thread_.join();
  } else {
    work_.reset();
  }
  io_.stop();
}

void Transport::accept() {
  auto from = std::make_shared<tcp::endpoint>();
  acceptor_.async_accept(*from, [this, from](const error_code& ec, tcp::socket socket) {
    if (ec) {
      if (ec != asio::error::operation_aborted) {
        LOG(WARNING) << "accept failed: " << ec.message();
        accept();
      }
      return;
    }
    auto connection = std::make_shared<InboundConnection>(*this, std::move(socket), *from);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      inbound_[connection.get()] = connection;
    }
    connection->start();
    accept();
  });
}

std::shared_ptr<OutboundConnection> Transport::outbound(const Address& to) {
  std::shared_ptr<OutboundConnection> connection;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = outbound_.find(to);
    if (it != outbound_.end()) return it->second;
    connection = std::make_shared<OutboundConnection>(*this, to);
    outbound_[to] = connection;
  }
  asio::post(io_, [connection] { connection->start(); });
  return connection;
}

void Transport::send(const Address& to, std::string bytes) {
  if (stopped_) return;
  outbound(to)->enqueue(std::move(bytes));
}

void Transport::connect(const Address& to) {
  if (stopped_) {
    handler_.onPeerDown(to);
    return;
  }
  outbound(to);
}

bool Transport::flush(Duration bound) {
  auto allIdle = [this] {
    std::vector<std::shared_ptr<OutboundConnection>> connections;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& [address, connection] : outbound_) connections.push_back(connection);
    }
    return std::all_of(connections.begin(), connections.end(),
                       [](const auto& connection) { return connection->idle(); });
  };
  std::unique_lock<std::mutex> lock(flushMutex_);
  return flushed_.wait_for(lock, bound, allIdle);
}

void Transport::outboundIdle() {
  { std::lock_guard<std::mutex> lock(flushMutex_); }
  flushed_.notify_all();
}

void Transport::outboundFailed(const std::shared_ptr<OutboundConnection>& connection) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = outbound_.find(connection->to());
    if (it != outbound_.end() && it->second == connection) outbound_.erase(it);
  }
  handler_.onPeerDown(connection->to());
}

}  // namespace process
