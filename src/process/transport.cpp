#include "process/transport.hpp"

#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/sendfile.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>

#include <boost/asio/ssl/stream.hpp>
#include <glog/logging.h>
#include <openssl/ssl.h>

#include "process/sendfile.hpp"

namespace process {

using asio::ip::tcp;
using boost::system::error_code;

namespace {

constexpr size_t kReadBufferBytes = 64 * 1024;
// Buffers gathered into one sendmsg(); the kernel refuses more than IOV_MAX.
#ifdef IOV_MAX
constexpr size_t kMaxIovecs = IOV_MAX;
#else
constexpr size_t kMaxIovecs = 1024;
#endif
// An outbound connection keeps a write buffer up to this size for reuse.
constexpr size_t kKeptWriteBufferBytes = 1024 * 1024;
// Bytes one connection writes before the I/O thread turns to the others.
constexpr size_t kWriteTurnBytes = 1024 * 1024;
// A TLS connection's own read buffer (a record carries at most 16 KiB) and
// the most it encrypts in one write.
constexpr size_t kTlsReadBytes = 17 * 1024;
constexpr size_t kTlsWriteBytes = 64 * 1024;
// The first byte of a TLS connection: a handshake record.
constexpr unsigned char kTlsHandshakeByte = 0x16;

using TlsStream = asio::ssl::stream<tcp::socket&>;

std::string describe(const tcp::endpoint& endpoint) {
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

tcp::endpoint endpointOf(const Address& address) {
  return tcp::endpoint(asio::ip::address_v4(address.ip), address.port);
}

// Messages (as the runtime tells them from HTTP requests) never wait for
// the transport-wide bound on queued answers: they are the offer path.
bool isMessage(const http::Request& request) {
  return request.method == "POST" && (request.header("user-agent").starts_with("libprocess/") ||
                                      request.hasHeader("libprocess-from"));
}

// The innermost WriteBatch alive on this thread.
thread_local Transport::WriteBatch* currentBatch = nullptr;

std::string mib(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1024 * 1024));
  return text;
}

}  // namespace

// A file an answer's body comes from (http::kSendFileHeader): written to
// the socket by sendfile() after the answer's buffers, never read into
// memory.
struct FileBody {
  int fd = -1;
  off_t offset = 0;
  size_t remaining = 0;
  ~FileBody() {
    if (fd >= 0) ::close(fd);
  }
};

// An answer ready to go out: `head` (status line and headers), then the
// body and every piece of `response` (null for a head alone), written from
// where they are, never copied; then `file`, if any.
struct Outgoing {
  std::string head;
  std::shared_ptr<const http::Response> response;
  std::shared_ptr<FileBody> file;
  size_t bytes = 0;  // head, body and pieces: what counts against the bounds
  bool closeAfter = false;
  bool held = false;  // counted in the transport's total (Transport::hold)
  // The head of a streamed response: its chunks follow as Outgoings of
  // their own (InboundConnection::streamed()).
  std::shared_ptr<http::Pipe> stream;
  // A chunk of a streamed response: `head` is its size line, `chunk` its
  // data (perhaps shared with other connections), `tail` what ends it.
  std::shared_ptr<const std::string> chunk;
  std::string tail;

  // The buffers to write, in order: 0 the head, 1 the body, 2... the pieces
  // (a chunk: 0 the size line, 1 the data, 2 the tail).
  size_t buffers() const {
    if (chunk) return 3;
    return response ? 2 + response->pieces.size() : 1;
  }
  const std::string& buffer(size_t i) const {
    static const std::string kNone;
    if (i == 0) return head;
    if (chunk) return i == 1 ? *chunk : tail;
    if (i == 1) return response->body;
    const auto& piece = response->pieces[i - 2];
    return piece ? *piece : kNone;
  }
};

// One accepted connection. Lives on the I/O thread; shared ownership keeps it
// alive while an operation or a Responder refers to it.
//
// Requests decoded from it wait in `pending_` until the bounds let them be
// handed on (in order); answers wait in `slots_` until every earlier one is
// there, then in `ready_` until written. `queued_` counts the bytes of both.
class InboundConnection : public std::enable_shared_from_this<InboundConnection> {
 public:
  // `from` is the address accept() reported: the socket itself may no
  // longer know its peer (a peer that reset at once).
  InboundConnection(Transport& transport, tcp::socket socket, const tcp::endpoint& from)
      : transport_(transport),
        socket_(std::move(socket)),
        peer_(describe(from)),
        peerIp_(from.address().is_v4() ? from.address().to_v4().to_uint() : 0),
        decoder_({64 * 1024, transport.options().maxBodyBytes}),
        lastActivity_(transport.clock_.now()) {
    error_code ec;
    socket_.set_option(tcp::no_delay(true), ec);
    socket_.non_blocking(true, ec);
  }

  // Only a connection dropped by its last Responder (an actor that never
  // answered) gets here unclosed, maybe on a worker thread: its gauges go
  // back; the socket closes itself.
  ~InboundConnection() {
    if (closed_) return;
    // The transport's accounts are kept on its I/O thread: hand it what
    // this connection still held there.
    std::vector<std::pair<std::string, size_t>> reservations;
    std::vector<Outgoing> answers(std::make_move_iterator(ready_.begin()),
                                  std::make_move_iterator(ready_.end()));
    for (Slot& slot : slots_) {
      if (!slot.target.empty()) reservations.emplace_back(std::move(slot.target), slot.reserved);
      if (slot.answer) answers.push_back(std::move(*slot.answer));
    }
    for (const Outgoing& answer : answers) {
      if (answer.stream) answer.stream->readerGone();
    }
    if (stream_) stream_->readerGone();
    Transport* transport = &transport_;
    asio::post(transport_.io_, [transport, reservations = std::move(reservations),
                                answers = std::move(answers)] {
      for (const auto& [target, bytes] : reservations) transport->unreserve(target, bytes);
      for (const Outgoing& answer : answers) transport->release(answer);
    });
    transport_.heldRequests_.fetch_sub(pending_.size());
    if (paused_) transport_.pausedConnections_.fetch_sub(1);
    if (blocked_) transport_.blockedConnections_.fetch_sub(1);
    cancelStallTimer();
    cancelWriteTimer();
    transport_.forget(this, peerIp_);
    transport_.statsChanged();
  }

  void start() {
    if (transport_.options_.tls) {
      sniff();
    } else {
      read();
    }
  }

  // Runs on the I/O thread: puts the answer in `slot`, moves every answer
  // that is now next in order to the write queue and writes.
  void complete(uint64_t slot, Outgoing outgoing) {
    size_t index = slot - firstSlot_;
    if (closed_ || slot < firstSlot_ || index >= slots_.size() ||
        slots_[index].answer.has_value()) {  // closed, or answered already
      if (outgoing.stream) outgoing.stream->readerGone();
      return;
    }
    Slot& answered = slots_[index];
    std::string path = answered.path;
    if (!path.empty()) transport_.learn(path, outgoing.bytes);
    if (!answered.target.empty()) {
      transport_.unreserve(std::exchange(answered.target, {}), answered.reserved);
    }
    queued_ += outgoing.bytes;
    answered.answer = std::move(outgoing);
    size_t readyBefore = ready_.size();
    size_t moved = advance();
    // Where the new answer is now: in the write queue, or still waiting
    // for an earlier one.
    Outgoing& added =
        index < moved ? ready_[readyBefore + index] : *slots_[index - moved].answer;
    // The oldest answer may be of any size; what waits behind it is bounded.
    size_t behind = queued_ - oldestRemaining();
    if (behind > transport_.options().maxQueuedBytesPerConnection) {
      LOG(WARNING) << "Closing connection from " << peer_ << ": it is not reading its responses ("
                   << mib(queued_) << " queued, " << mib(behind)
                   << " of them behind the one being written, over the per-connection limit of "
                   << mib(transport_.options().maxQueuedBytesPerConnection) << ")";
      transport_.closedNotReading_.fetch_add(1);
      close();
      return;
    }
    transport_.hold(added, path);
    write();
    transport_.statsChanged();
  }

  // Moves every answer that is next in order to the write queue, up to
  // the end of a streamed one (which starts streaming) or one that closes
  // the connection; returns how many.
  size_t advance() {
    size_t moved = 0;
    while (!closeAfterWrite_ && !stream_ && !slots_.empty() && slots_.front().answer.has_value()) {
      Outgoing& next = *slots_.front().answer;
      if (next.stream) {
        // Closing, when the request asked for it, waits for the stream's end.
        stream_ = next.stream;
        streamCloseAfter_ = std::exchange(next.closeAfter, false);
      }
      if (next.closeAfter) closeAfterWrite_ = true;
      ready_.push_back(std::move(next));
      slots_.pop_front();
      ++firstSlot_;
      ++moved;
    }
    if (stream_ && moved > 0 && ready_.back().stream == stream_) {
      std::weak_ptr<InboundConnection> weak = shared_from_this();
      asio::io_context& io = transport_.io_;
      stream_->attach([weak, &io](std::shared_ptr<const std::string> data, bool last) {
        asio::post(io, [weak, data = std::move(data), last]() mutable {
          if (auto self = weak.lock()) self->streamed(std::move(data), last);
        });
      });
    }
    return moved;
  }

  // A chunk of the streamed response (the last one when `last`): queued
  // behind what is there, then the answers that waited for its end.
  void streamed(std::shared_ptr<const std::string> data, bool last) {
    if (closed_ || !stream_) return;
    size_t bound = limit();
    if (size_t own = stream_->queueLimit(); own > 0) bound = std::min(bound, own);
    Outgoing chunk;
    if (data != nullptr && !data->empty()) {
      char size[20];
      int n = std::snprintf(size, sizeof(size), "%zx\r\n", data->size());
      chunk.head.assign(size, static_cast<size_t>(n));
      chunk.chunk = std::move(data);
      chunk.tail = "\r\n";
    }
    if (last) {
      (chunk.chunk ? chunk.tail : chunk.head).append("0\r\n\r\n");
      chunk.closeAfter = streamCloseAfter_;
      if (chunk.closeAfter) closeAfterWrite_ = true;
      stream_.reset();
    }
    chunk.bytes = chunk.head.size() + (chunk.chunk ? chunk.chunk->size() : 0) + chunk.tail.size();
    queued_ += chunk.bytes;
    if (queued_ > bound) {
      LOG(WARNING) << "Closing connection from " << peer_
                   << ": it is not reading its event stream (" << mib(queued_)
                   << " queued, over the limit of " << mib(bound) << ")";
      transport_.closedNotReading_.fetch_add(1);
      queued_ -= chunk.bytes;
      close();
      return;
    }
    transport_.hold(chunk, "");
    ready_.push_back(std::move(chunk));
    if (last) advance();
    write();
    transport_.statsChanged();
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    if (stream_) std::exchange(stream_, nullptr)->readerGone();
    cancelStallTimer();
    cancelWriteTimer();
    setPaused(false);
    setBlocked(false);
    transport_.heldRequests_.fetch_sub(pending_.size());
    pending_.clear();
    for (const Outgoing& answer : ready_) transport_.release(answer);
    ready_.clear();
    for (Slot& slot : slots_) {
      if (!slot.target.empty()) transport_.unreserve(slot.target, slot.reserved);
      if (slot.answer) {
        transport_.release(*slot.answer);
        if (slot.answer->stream) slot.answer->stream->readerGone();
      }
    }
    slots_.clear();
    queued_ = 0;
    error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    transport_.forget(this, peerIp_);
    transport_.statsChanged();
  }

  // The transport-wide bound has room again (see Transport::waitForRoom).
  void roomAvailable() {
    waitingForRoom_ = false;
    pump();
  }

  const std::string& peer() const { return peer_; }
  Transport& transport() { return transport_; }

  // Sent nothing since `cutoff`, and nothing makes that expected: it has
  // carried no message (a peer link may be quiet for hours), awaits no
  // answer, is sent no stream, holds no request. I/O thread.
  bool idleSince(TimePoint cutoff) const {
    return !closed_ && !peerLink_ && !handshaking_ && !stream_ && slots_.empty() &&
           ready_.empty() && pending_.empty() && !waitingForRoom_ && !failure_ &&
           decoder_.idle() && lastActivity_ <= cutoff;
  }

 private:
  // A place for the answer to a request in the order of requests. An HTTP
  // request for `target` (its path and query) reserves, against the
  // transport-wide bound, what the last answer to its path weighed, until
  // its own answer is in (requests for one target that the actor is known
  // to answer together reserve once: Transport::reserve).
  uint64_t reserveSlot(const http::Request* request = nullptr) {
    Slot& slot = slots_.emplace_back();
    if (request != nullptr) {
      slot.path = request->path;
      slot.target = request->path + "?" + request->query;
      slot.reserved = transport_.reserve(slot.target, slot.path);
    }
    return firstSlot_ + slots_.size() - 1;
  }

  size_t limit() const { return transport_.options().maxQueuedBytesPerConnection; }
  // Nothing more is read or handed on (see pump()).
  bool full() const { return queued_ > 0 && queued_ >= limit(); }

  // Waits until the socket is readable, then reads into the transport's
  // one read buffer (every read is on the I/O thread): a connection holds
  // no read buffer of its own, only what its decoder keeps of a request
  // not yet whole.
  void read() {
    if (closed_ || readStopped_ || reading_) return;
    reading_ = true;
    auto self = shared_from_this();
    if (tls_) {
      // Records already decrypted may be waiting in the TLS stream: it is
      // read, not waited on.
      tls_->async_read_some(asio::buffer(tlsBuffer_.get(), kTlsReadBytes),
                            [self](const error_code& ec, size_t n) {
                              self->reading_ = false;
                              if (self->closed_) return;
                              self->onRead(ec, self->tlsBuffer_.get(), n);
                            });
      return;
    }
    socket_.async_wait(tcp::socket::wait_read, [self](const error_code& waited) {
      self->reading_ = false;
      if (self->closed_) return;
      if (waited) {
        self->onRead(waited, nullptr, 0);
        return;
      }
      char* buffer = self->transport_.readBuffer();
      error_code ec;
      size_t n = self->socket_.read_some(asio::buffer(buffer, kReadBufferBytes), ec);
      if (ec == asio::error::would_block || ec == asio::error::try_again) {
        self->read();
        return;
      }
      self->onRead(ec, buffer, n);
    });
  }

  void onRead(const error_code& ec, const char* data, size_t n) {
    if (closed_) return;
    if (ec) {
      if (!decoder_.idle()) {
        LOG(WARNING) << "Connection from " << peer_
                     << " closed in the middle of a request; dropping the partial request";
      }
      close();
      return;
    }
    lastActivity_ = transport_.clock_.now();
    std::vector<http::Request> requests;
    auto failure = decoder_.feed(data, n, &requests);
    size_t completed = requests.size();
    for (auto& request : requests) pending_.push_back(std::move(request));
    transport_.heldRequests_.fetch_add(completed);
    if (failure) {
      LOG(WARNING) << "Closing connection from " << peer_ << ": " << failure->message;
      readStopped_ = true;
      cancelStallTimer();
      failure_ = std::move(failure);
    } else if (decoder_.idle()) {
      // A request must arrive whole within the request timeout of its first
      // byte; progress within it does not extend that (a trickle would hold
      // the connection forever), finishing a request starts a new one.
      cancelStallTimer();
    } else if (!stallTimer_ || completed > 0) {
      armStallTimer();
    }
    pump();
  }

  // Hands decoded requests on, in order, as far as the bounds allow, then
  // reads more unless a request is still held. Nothing is read from a
  // connection with maxQueuedBytesPerConnection queued (backpressure: its
  // client sends requests faster than it reads the answers), and HTTP
  // requests wait while the whole transport is over maxQueuedBytes.
  void pump() {
    while (!closed_ && !pending_.empty()) {
      if (full()) break;
      if (!isMessage(pending_.front()) && transport_.mustWaitForRoom()) {
        if (!waitingForRoom_) {
          waitingForRoom_ = true;
          transport_.waitForRoom(shared_from_this());
        }
        break;
      }
      http::Request request = std::move(pending_.front());
      pending_.pop_front();
      transport_.heldRequests_.fetch_sub(1);
      dispatch(std::move(request));
    }
    if (closed_) return;
    if (pending_.empty() && failure_) {
      http::Response response{failure_->status, "text/plain", failure_->message + "\n", {}};
      failure_.reset();
      Outgoing outgoing;
      http::encodeResponse(response, false, &outgoing.head);
      outgoing.bytes = outgoing.head.size();
      outgoing.closeAfter = true;
      complete(reserveSlot(), std::move(outgoing));
      return;
    }
    bool paused = !readStopped_ && (!pending_.empty() || full());
    setPaused(paused);
    if (!paused) read();
    transport_.statsChanged();
  }

  void setBlocked(bool blocked) {
    if (blocked == blocked_) return;
    blocked_ = blocked;
    if (blocked) {
      transport_.blockedConnections_.fetch_add(1);
    } else {
      transport_.blockedConnections_.fetch_sub(1);
    }
  }

  void setPaused(bool paused) {
    if (paused == paused_) return;
    paused_ = paused;
    if (paused) {
      transport_.pausedConnections_.fetch_add(1);
      // Not reading is our doing: a request left half read meanwhile is
      // not the peer's stall.
      cancelStallTimer();
    } else {
      transport_.pausedConnections_.fetch_sub(1);
      if (!closed_ && !readStopped_ && !decoder_.idle()) armStallTimer();
    }
  }

  void dispatch(http::Request&& request) {
    if (isMessage(request)) peerLink_ = true;
    bool libprocessPeer = request.method == "POST" &&
                          request.header("user-agent").starts_with("libprocess/");
    Responder responder;
    if (!libprocessPeer) {
      // Messages are answered 202, HEAD requests with a head: neither says
      // what the path's answers weigh.
      bool head = request.method == "HEAD";
      uint64_t slot = reserveSlot(isMessage(request) || head ? nullptr : &request);
      responder = Responder(shared_from_this(), slot, request.keepAlive, head);
    }
    transport_.handler_.onRequest(std::move(request), peer_, std::move(responder), tlsPeer_.get());
  }

  // Unwritten bytes of the oldest answer queued here (in request order).
  size_t oldestRemaining() const {
    if (!ready_.empty()) return ready_.front().bytes - frontWritten_;
    for (const Slot& slot : slots_) {
      if (slot.answer.has_value()) return slot.answer->bytes;
    }
    return 0;
  }

  void write() {
    if (closed_ || writing_) return;
    if (ready_.empty()) {
      if (closeAfterWrite_) close();
      // Answered: the client's turn to send, from now.
      lastActivity_ = transport_.clock_.now();
      return;
    }
    writing_ = true;
    lastProgress_ = transport_.clock_.now();
    writeSome();
  }

  // Writes from the write queue with scatter-gather sendmsg() calls until
  // the socket would block (then waits for it to drain, under the write
  // timeout), the queue is empty, or this connection has had its turn.
  // REQUIRES: writing_.
  void writeSome() {
    if (closed_) return;
    if (tls_) {
      writeSomeTls();
      return;
    }
    size_t turn = 0;
    iovec iov[kMaxIovecs];
    while (!ready_.empty()) {
      Outgoing& front = ready_.front();
      if (index_ == front.buffers() && front.file && front.file->remaining > 0) {
        FileBody& file = *front.file;
        ssize_t n = ::sendfile(socket_.native_handle(), file.fd, &file.offset,
                               std::min(file.remaining, kWriteTurnBytes));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
          awaitWritable();
          pump();
          return;
        }
        if (n <= 0) {
          // An error, or the file shrank: the promised length cannot be kept.
          VLOG(1) << "Sending a file to " << peer_ << " failed: "
                  << (n < 0 ? std::strerror(errno) : "the file got shorter");
          close();
          return;
        }
        lastProgress_ = transport_.clock_.now();
        file.remaining -= static_cast<size_t>(n);
        transport_.writtenBytes_.fetch_add(static_cast<size_t>(n));
        turn += static_cast<size_t>(n);
        if (file.remaining == 0) consume(0);
        if (turn >= kWriteTurnBytes && !ready_.empty()) {
          asio::post(transport_.io_, [self = shared_from_this()] { self->writeSome(); });
          pump();
          return;
        }
        continue;
      }
      msghdr message{};
      message.msg_iov = iov;
      message.msg_iovlen = gather(iov);
      ssize_t n = ::sendmsg(socket_.native_handle(), &message, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          awaitWritable();
          pump();
          return;
        }
        VLOG(1) << "Writing to " << peer_ << " failed: " << std::strerror(errno);
        close();
        return;
      }
      lastProgress_ = transport_.clock_.now();
      consume(static_cast<size_t>(n));
      turn += static_cast<size_t>(n);
      if (turn >= kWriteTurnBytes && !ready_.empty()) {
        asio::post(transport_.io_, [self = shared_from_this()] { self->writeSome(); });
        pump();
        return;
      }
    }
    writing_ = false;
    cancelWriteTimer();
    if (closeAfterWrite_) {
      close();
      return;
    }
    pump();
  }

  // TLS: the first byte tells a handshake (encrypted from here on) from
  // a plain request (served as such with downgrade, refused otherwise).
  void sniff() {
    handshaking_ = true;
    armStallTimer();
    auto self = shared_from_this();
    socket_.async_wait(tcp::socket::wait_read, [self](const error_code& waited) {
      if (self->closed_) return;
      unsigned char first = 0;
      ssize_t n = waited ? -1 : ::recv(self->socket_.native_handle(), &first, 1, MSG_PEEK);
      if (n < 0 && !waited && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        self->sniff();
        return;
      }
      if (n <= 0) {
        self->close();
        return;
      }
      if (first == kTlsHandshakeByte) {
        self->handshake();
        return;
      }
      if (!self->transport_.options_.tls->options().supportDowngrade) {
        if (auto skipped = self->transport_.tlsWarnings_.due()) {
          LOG(WARNING) << "Closing connection from " << self->peer_
                       << ": it does not start a TLS handshake, and plain connections are "
                          "refused (LIBPROCESS_SSL_SUPPORT_DOWNGRADE is off)"
                       << Transport::skippedNote(*skipped);
        }
        self->close();
        return;
      }
      self->handshaking_ = false;
      self->cancelStallTimer();
      self->read();
    });
  }

  void handshake() {
    TlsContext& tls = *transport_.options_.tls;
    tls_ = std::make_unique<TlsStream>(socket_, tls.context());
    tls_->set_verify_mode(tls.serverVerifyMode());
    tlsBuffer_.reset(new char[kTlsReadBytes]);
    auto self = shared_from_this();
    tls_->async_handshake(asio::ssl::stream_base::server, [self](const error_code& ec) {
      if (self->closed_) return;
      if (ec) {
        if (auto skipped = self->transport_.tlsWarnings_.due()) {
          LOG(WARNING) << "Closing connection from " << self->peer_
                       << ": TLS handshake failed: " << ec.message()
                       << Transport::skippedNote(*skipped);
        }
        self->close();
        return;
      }
      self->transport_.options_.tls->identify(
          self->transport_.io_, self->tls_->native_handle(),
          [self](std::shared_ptr<const TlsPeer> peer) {
            if (self->closed_) return;
            self->tlsPeer_ = std::move(peer);
            self->handshaking_ = false;
            self->lastActivity_ = self->transport_.clock_.now();
            self->cancelStallTimer();
            self->read();
          });
    });
  }

  // TLS: writes the front of the write queue (up to kTlsWriteBytes of its
  // buffers, or of a file's bytes, copied once to be encrypted) and goes
  // on when that is written, until the queue is empty. The write timeout
  // runs while anything is queued. REQUIRES: writing_.
  void writeSomeTls() {
    if (closed_) return;
    if (ready_.empty()) {
      writing_ = false;
      cancelWriteTimer();
      if (closeAfterWrite_) {
        close();
        return;
      }
      pump();
      return;
    }
    if (!writeTimer_) armWriteTimer();
    tlsOut_.clear();
    Outgoing& front = ready_.front();
    std::shared_ptr<FileBody> file;
    if (index_ == front.buffers() && front.file && front.file->remaining > 0) {
      file = front.file;
      tlsOut_.resize(std::min(file->remaining, kTlsWriteBytes));
      ssize_t n = ::pread(file->fd, tlsOut_.data(), tlsOut_.size(), file->offset);
      if (n <= 0) {
        VLOG(1) << "Sending a file to " << peer_ << " failed: "
                << (n < 0 ? std::strerror(errno) : "the file got shorter");
        close();
        return;
      }
      tlsOut_.resize(static_cast<size_t>(n));
    } else {
      iovec iov[64];
      size_t count = gather(iov);
      for (size_t i = 0; i < count && i < 64 && tlsOut_.size() < kTlsWriteBytes; ++i) {
        size_t take = std::min(iov[i].iov_len, kTlsWriteBytes - tlsOut_.size());
        tlsOut_.append(static_cast<const char*>(iov[i].iov_base), take);
      }
    }
    auto self = shared_from_this();
    asio::async_write(*tls_, asio::buffer(tlsOut_),
                      [self, file](const error_code& ec, size_t n) {
                        if (self->closed_) return;
                        if (ec) {
                          VLOG(1) << "Writing to " << self->peer_ << " failed: " << ec.message();
                          self->close();
                          return;
                        }
                        self->lastProgress_ = self->transport_.clock_.now();
                        if (file) {
                          file->offset += static_cast<off_t>(n);
                          file->remaining -= n;
                          self->transport_.writtenBytes_.fetch_add(n);
                          if (file->remaining == 0) self->consume(0);
                        } else {
                          self->consume(n);
                        }
                        self->pump();
                        self->writeSomeTls();
                      });
  }

  // Fills `iov` with the unwritten buffers at the front of the write queue
  // (empty ones left out); returns how many.
  size_t gather(iovec* iov) const {
    size_t count = 0;
    size_t index = index_;
    size_t offset = offset_;
    for (auto it = ready_.begin(); it != ready_.end() && count < kMaxIovecs; ++it) {
      size_t buffers = it->buffers();
      for (; index < buffers && count < kMaxIovecs; ++index) {
        const std::string& bytes = it->buffer(index);
        if (bytes.size() > offset) {
          iov[count].iov_base = const_cast<char*>(bytes.data()) + offset;
          iov[count].iov_len = bytes.size() - offset;
          ++count;
        }
        offset = 0;
      }
      index = 0;
      // A file's bytes come next, by sendfile(): nothing after it yet.
      if (it->file && it->file->remaining > 0) break;
    }
    return count;
  }

  // `n` bytes from the front of the write queue were written: moves past
  // them, dropping each answer once written.
  void consume(size_t n) {
    queued_ -= n;
    transport_.writtenBytes_.fetch_add(n);
    while (!ready_.empty()) {
      Outgoing& front = ready_.front();
      if (index_ == front.buffers()) {
        if (front.file && front.file->remaining > 0) return;  // writeSome() sends it
        transport_.release(front);
        ready_.pop_front();
        index_ = 0;
        frontWritten_ = 0;
        continue;
      }
      size_t left = front.buffer(index_).size() - offset_;
      if (left == 0) {
        ++index_;
        offset_ = 0;
        continue;
      }
      if (n == 0) return;
      size_t taken = std::min(n, left);
      offset_ += taken;
      frontWritten_ += taken;
      n -= taken;
    }
  }

  void awaitWritable() {
    if (!writeTimer_) armWriteTimer();
    setBlocked(true);
    transport_.statsChanged();
    auto self = shared_from_this();
    socket_.async_wait(tcp::socket::wait_write, [self](const error_code& ec) {
      if (self->closed_) return;
      self->setBlocked(false);
      if (ec) {
        self->close();
        return;
      }
      self->writeSome();
    });
  }

  // Fires writeTimeout after the last progress; a write that has made some
  // progress since re-arms it rather than closing.
  void armWriteTimer() {
    std::weak_ptr<InboundConnection> weak = shared_from_this();
    asio::io_context& io = transport_.io_;
    uint64_t generation = ++writeTimerGeneration_;
    writeTimer_ = transport_.clock_.schedule(
        lastProgress_ + transport_.options().writeTimeout, [weak, &io, generation] {
          asio::post(io, [weak, generation] {
            auto self = weak.lock();
            if (self && generation == self->writeTimerGeneration_) self->onWriteTimer();
          });
        });
  }

  void onWriteTimer() {
    if (closed_ || !writeTimer_) return;
    writeTimer_.reset();
    if (ready_.empty()) return;
    Duration timeout = transport_.options().writeTimeout;
    if (transport_.clock_.now() - lastProgress_ < timeout) {
      armWriteTimer();
      return;
    }
    LOG(WARNING) << "Closing connection from " << peer_ << ": it read nothing for "
                 << std::chrono::duration_cast<std::chrono::seconds>(timeout).count()
                 << " s (the write timeout) with " << mib(queued_)
                 << " of responses queued for it";
    transport_.closedWriteTimeout_.fetch_add(1);
    close();
  }

  void cancelWriteTimer() {
    if (writeTimer_) {
      transport_.clock_.cancel(*writeTimer_);
      writeTimer_.reset();
      ++writeTimerGeneration_;
    }
  }

  void armStallTimer() {
    cancelStallTimer();
    std::weak_ptr<InboundConnection> weak = shared_from_this();
    asio::io_context& io = transport_.io_;
    stallTimer_ = transport_.clock_.schedule(
        transport_.clock_.now() + transport_.options().requestTimeout, [weak, &io] {
          asio::post(io, [weak] {
            auto self = weak.lock();
            if (!self || self->closed_ || self->paused_ ||
                (self->decoder_.idle() && !self->handshaking_) || !self->stallTimer_) {
              return;
            }
            self->stallTimer_.reset();
            if (self->handshaking_) {
              if (auto skipped = self->transport_.tlsWarnings_.due()) {
                LOG(WARNING) << "Closing connection from " << self->peer_
                             << ": its TLS handshake did not finish within the request timeout"
                             << Transport::skippedNote(*skipped);
              }
              self->close();
              return;
            }
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
  // TLS, once a handshake started (it refers to socket_).
  std::unique_ptr<TlsStream> tls_;
  std::unique_ptr<char[]> tlsBuffer_;
  std::string tlsOut_;  // being encrypted and written
  std::shared_ptr<const TlsPeer> tlsPeer_;
  bool handshaking_ = false;  // deciding plain or TLS, or in the handshake
  std::string peer_;
  uint32_t peerIp_;
  http::RequestDecoder decoder_;
  TimePoint lastActivity_;  // of the last bytes read, or the last answer written
  bool peerLink_ = false;   // has carried a libprocess message
  bool reading_ = false;       // a read is in flight
  bool readStopped_ = false;   // the stream is broken: never read again
  bool paused_ = false;        // not reading because of the bounds
  bool waitingForRoom_ = false;
  std::deque<http::Request> pending_;  // decoded, not handed on yet
  std::optional<http::RequestDecoder::Failure> failure_;  // to answer after pending_
  struct Slot {
    std::optional<Outgoing> answer;
    std::string path;    // of an HTTP request: whose answer size to learn
    std::string target;  // path and query, while reserved for
    size_t reserved = 0;  // against the transport-wide bound, until answered
  };
  std::deque<Slot> slots_;  // answers, in request order
  uint64_t firstSlot_ = 0;
  std::deque<Outgoing> ready_;  // the write queue
  size_t index_ = 0;            // of the buffer of ready_.front() being written
  size_t offset_ = 0;           // bytes of that buffer already written
  size_t frontWritten_ = 0;     // bytes of ready_.front() already written
  size_t queued_ = 0;           // unwritten bytes of slots_ and ready_
  bool writing_ = false;
  bool blocked_ = false;  // waiting for the socket to drain
  TimePoint lastProgress_{};
  std::optional<TimerId> writeTimer_;
  uint64_t writeTimerGeneration_ = 0;
  bool closeAfterWrite_ = false;
  bool closed_ = false;
  std::shared_ptr<http::Pipe> stream_;  // the streamed answer being sent
  bool streamCloseAfter_ = false;       // close the connection at its end
  std::optional<TimerId> stallTimer_;
};

void Responder::respond(const http::Response& response) const {
  if (connection_) respond(std::make_shared<const http::Response>(response));
}

void Responder::respond(http::Response&& response) const {
  if (connection_) respond(std::make_shared<const http::Response>(std::move(response)));
}

void Responder::respond(std::shared_ptr<const http::Response> response) const {
  if (!connection_) return;
  for (const auto& [name, value] : response->headers) {
    if (name == http::kSendFileHeader) {
      sendFile(*response);
      return;
    }
  }
  std::string head;
  http::encodeResponseHead(*response, keepAlive_, &head);
  std::shared_ptr<http::Pipe> stream = response->stream;
  if (headOnly_) {
    response.reset();
    if (stream) std::exchange(stream, nullptr)->readerGone();
  }
  Outgoing outgoing;
  outgoing.head = std::move(head);
  outgoing.bytes = outgoing.head.size();
  if (response && (!response->body.empty() || !response->pieces.empty())) {
    outgoing.bytes += response->bodySize();
    outgoing.response = std::move(response);
  }
  outgoing.stream = std::move(stream);
  deliver(std::move(outgoing));
}

void Responder::deliver(Outgoing&& outgoing) const {
  outgoing.closeAfter = !keepAlive_;
  auto connection = connection_;
  uint64_t slot = slot_;
  asio::post(connection->transport().io(),
             [connection, slot, outgoing = std::move(outgoing)]() mutable {
               connection->complete(slot, std::move(outgoing));
             });
}

void Responder::sendFile(const http::Response& response) const {
  std::string path;
  for (const auto& [name, value] : response.headers) {
    if (name == http::kSendFileHeader) path = value;
  }
  auto file = std::make_shared<FileBody>();
  file->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (file->fd < 0 || ::fstat(file->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    std::string why = file->fd < 0 ? std::strerror(errno) : "not a regular file";
    respond(http::Response::notFound("cannot read '" + path + "': " + why));
    return;
  }
  file->remaining = static_cast<size_t>(st.st_size);
  http::Response head{response.status, response.contentType, "", {}};
  for (const auto& [name, value] : response.headers) {
    if (name != http::kSendFileHeader) head.headers.emplace_back(name, value);
  }
  head.headers.emplace_back("Content-Length", std::to_string(file->remaining));
  std::string text;
  http::encodeResponseHead(head, keepAlive_, &text);
  // encodeResponseHead() said the length of the (empty) body too: the
  // file's, given above, stands.
  const std::string zero = "Content-Length: 0\r\n";
  if (size_t at = text.rfind(zero); at != std::string::npos) text.erase(at, zero.size());
  Outgoing outgoing;
  outgoing.head = std::move(text);
  outgoing.bytes = outgoing.head.size();
  if (!headOnly_ && file->remaining > 0) outgoing.file = std::move(file);
  deliver(std::move(outgoing));
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
    // Leave from the address this side listens on (see Transport::start()).
    uint32_t local = transport_.localIp_;
    auto loopback = [](uint32_t ip) { return (ip >> 24) == 127; };
    const std::vector<uint32_t>& mine = transport_.localIps_;
    bool here = loopback(to_.ip) || std::find(mine.begin(), mine.end(), to_.ip) != mine.end();
    if (local != 0 && (!loopback(local) || here)) {
      error_code ec;
      socket_.open(tcp::v4(), ec);
      // The port is chosen at connect(), per destination, as without the
      // bind: binding does not take one of the ephemeral ports for itself.
      if (!ec) {
        socket_.set_option(asio::detail::socket_option::boolean<IPPROTO_IP,
                                                                IP_BIND_ADDRESS_NO_PORT>(true),
                           ec);
      }
      if (!ec) socket_.bind(tcp::endpoint(asio::ip::address_v4(local), 0), ec);
      if (ec) {
        fail("could not bind to " + asio::ip::address_v4(local).to_string() + ": " + ec.message());
        return;
      }
    }
    socket_.async_connect(endpointOf(to_), [self](const error_code& ec) {
      if (ec) {
        self->fail("could not connect: " + ec.message());
        return;
      }
      error_code ignored;
      self->socket_.set_option(tcp::no_delay(true), ignored);
      if (self->transport_.options_.tls) {
        self->handshake();
      } else {
        self->connected();
      }
    });
  }

  // Returns false when this connection has failed (the bytes are dropped).
  // `message`: the bytes are messages (not a keep-alive).
  bool enqueue(std::string&& bytes, bool message = true) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failed_) return false;
      size_t unsent = pending_.size() + inflight_.size();
      if (unsent > 0 && unsent + bytes.size() > transport_.options_.maxUnsentBytesPerPeer) {
        // The peer takes nothing: it is treated as gone rather than let
        // the queue grow without bound.
        failed_ = true;
        size_t dropped = pending_.size() + bytes.size();
        pending_.clear();
        auto self = shared_from_this();
        asio::post(transport_.io_, [self, unsent, dropped] {
          LOG(WARNING) << "Dropping the connection to " << self->to_ << ": it is not reading ("
                       << mib(unsent) << " unsent; the limit is "
                       << mib(self->transport_.options_.maxUnsentBytesPerPeer) << ")";
          self->transport_.droppedNotReadingPeer_.fetch_add(1);
          self->failed("not reading", dropped);
        });
        return false;
      }
      if (message) messages_ = true;
      // Messages are copied into the queue's buffer, whose memory is reused
      // write after write (growing a fresh string for every burst was a
      // fifth of a busy master's time in malloc); a large one that finds
      // the queue empty is taken as it is.
      if (pending_.empty() && bytes.size() > pending_.capacity()) {
        pending_.swap(bytes);
      } else {
        pending_.append(bytes);
      }
      if (!connected_ || writing_) return true;
      writing_ = true;
    }
    Transport::WriteBatch* batch = currentBatch;
    while (batch != nullptr && &batch->transport_ != &transport_) batch = batch->outer_;
    if (batch != nullptr) {
      if (batch->held_.empty()) batch->heldSince_ = std::chrono::steady_clock::now();
      batch->held_.push_back(shared_from_this());
      return true;
    }
    auto self = shared_from_this();
    asio::post(transport_.io_, [self] { self->write(); });
    return true;
  }

  const Address& to() const { return to_; }

  // Connected, and has carried no message: a link alone, which the peer
  // would close as idle (Transport::Options::idleTimeout) but for this.
  void keepAlive() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!connected_ || failed_ || messages_) return;
    }
    enqueue(std::string("\r\n"), false);
  }

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
    failed(why, dropped);
  }

 private:
  friend class Transport::WriteBatch;

  // I/O thread: the rest of fail(), once failed_ is set.
  void failed(const std::string& why, size_t dropped) {
    LOG(INFO) << "Connection to " << to_ << " ended (" << why << ")"
              << (dropped > 0 ? "; dropped " + std::to_string(dropped) + " unsent bytes" : "");
    error_code ec;
    socket_.close(ec);
    transport_.outboundFailed(shared_from_this());
    transport_.outboundIdle();
  }

  // TLS: the handshake, then (with LIBPROCESS_SSL_VERIFY_CERT) the check
  // that the server's certificate names the address connected to.
  void handshake() {
    TlsContext& tls = *transport_.options_.tls;
    tls_ = std::make_unique<TlsStream>(socket_, tls.context());
    tls_->set_verify_mode(tls.clientVerifyMode());
    auto self = shared_from_this();
    // A server that never answers the handshake must not hold the queue.
    handshakeTimer_ = std::make_unique<asio::steady_timer>(transport_.io_);
    handshakeTimer_->expires_after(transport_.options_.requestTimeout);
    handshakeTimer_->async_wait([self](const error_code& ec) {
      if (ec) return;  // cancelled: the handshake ended
      self->fail("no TLS handshake within the request timeout");
    });
    tls_->async_handshake(asio::ssl::stream_base::client, [self](const error_code& ec) {
      self->handshakeTimer_->cancel();
      if (ec) {
        bool failed;
        {
          std::lock_guard<std::mutex> lock(self->mutex_);
          failed = self->failed_;
        }
        // Not when it was cut short here (stopping, the timeout).
        if (!failed) {
          LOG(WARNING) << "TLS handshake with " << self->to_ << " failed: " << ec.message();
        }
        self->fail("TLS handshake failed: " + ec.message());
        return;
      }
      const TlsContext& tls = *self->transport_.options_.tls;
      if (!tls.options().verifyServerCert) {
        self->connected();
        return;
      }
      tls.identify(self->transport_.io_, self->tls_->native_handle(),
                   [self](std::shared_ptr<const TlsPeer> peer) {
                     if (!peer->names(self->to_.ip)) {
                       LOG(WARNING) << "Refusing the TLS connection to " << self->to_
                                    << ": its " << peer->describe() << " does not name "
                                    << self->to_.ipString();
                       self->fail("the server's certificate does not name " +
                                  self->to_.ipString());
                       return;
                     }
                     self->connected();
                   });
    });
  }

  // Connected (and through the handshake): what was queued meanwhile goes.
  void connected() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failed_) return;
      connected_ = true;
      if (pending_.empty() || writing_) {
        read();
        return;
      }
      writing_ = true;
    }
    read();
    write();
  }

  // I/O thread; REQUIRES: writing_ was set by the caller.
  void write() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failed_) return;
      // The buffer just written becomes the next queue, emptied; one that a
      // burst made large is let go.
      if (inflight_.capacity() > kKeptWriteBufferBytes) {
        std::string().swap(inflight_);
      } else {
        inflight_.clear();
      }
      inflight_.swap(pending_);
    }
    auto self = shared_from_this();
    auto written = [self](const error_code& ec, size_t) {
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
    };
    if (tls_) {
      asio::async_write(*tls_, asio::buffer(inflight_), std::move(written));
    } else {
      asio::async_write(socket_, asio::buffer(inflight_), std::move(written));
    }
  }

  // Peers may answer (HTTP servers send 202); the answers carry nothing we
  // need. Reading tells us when the peer goes away.
  void read() {
    auto self = shared_from_this();
    auto done = [self](const error_code& ec, size_t) {
      if (ec) {
        self->fail(ec == asio::error::eof ? "closed by peer" : ec.message());
        return;
      }
      self->read();
    };
    if (tls_) {
      tls_->async_read_some(asio::buffer(readBuffer_.get(), 4096), std::move(done));
    } else {
      socket_.async_read_some(asio::buffer(readBuffer_.get(), 4096), std::move(done));
    }
  }

  Transport& transport_;
  Address to_;
  tcp::socket socket_;
  std::unique_ptr<TlsStream> tls_;  // with TLS, once connected (refers to socket_)
  std::unique_ptr<asio::steady_timer> handshakeTimer_;
  std::unique_ptr<char[]> readBuffer_;
  std::mutex mutex_;
  std::string pending_;
  std::string inflight_;
  bool connected_ = false;
  bool writing_ = false;
  bool failed_ = false;
  bool messages_ = false;  // a message was queued
};

Transport::Transport(Handler& handler, Clock& clock, Options options)
    : handler_(handler),
      clock_(clock),
      options_(options),
      work_(std::make_unique<asio::executor_work_guard<asio::io_context::executor_type>>(
          io_.get_executor())),
      acceptor_(io_) {}

Transport::~Transport() { stop(); }

std::vector<uint32_t> Transport::localAddresses() {
  std::vector<uint32_t> ips;
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) != 0) return ips;
  for (ifaddrs* i = interfaces; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    ips.push_back(ntohl(reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr));
  }
  freeifaddrs(interfaces);
  return ips;
}

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
  localIp_ = *parsed;
  localIps_ = localAddresses();
  maxConnections_ = options_.maxConnections;
  if (maxConnections_ == 0) {
    rlimit limit{};
    size_t descriptors = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                             ? static_cast<size_t>(limit.rlim_cur)
                             : 1024 * 1024;
    size_t reserve = std::max<size_t>(64, descriptors / 8);
    maxConnections_ = descriptors > reserve + 16 ? descriptors - reserve : 16;
  }
  return Address{*parsed, bound};
}

void Transport::run() {
  accept();
  scheduleSweep();
  thread_ = std::thread([this] { io_.run(); });
}

void Transport::stop() {
  if (stopped_.exchange(true)) return;
  asio::post(io_, [this] {
    error_code ec;
    acceptor_.close(ec);
    if (acceptTimer_) acceptTimer_->cancel();
    if (sweepTimer_) clock_.cancel(*sweepTimer_);
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
    waitingForRoom_.clear();
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
    if (ec == asio::error::operation_aborted || stopped_) return;
    if (ec == asio::error::no_descriptors || ec.value() == ENFILE ||
        ec == asio::error::no_buffer_space || ec == asio::error::no_memory) {
      pauseAccepting(ec);
      return;
    }
    acceptPause_ = Duration::zero();
    if (ec) {
      // This connection's trouble (it was reset before it was taken).
      VLOG(1) << "accept failed: " << ec.message();
      accept();
      return;
    }
    uint32_t ip = from->address().is_v4() ? from->address().to_v4().to_uint() : 0;
    const char* refused = nullptr;
    std::shared_ptr<InboundConnection> connection;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (inbound_.size() >= maxConnections_) {
        refused = "connections";
      } else if (size_t& fromPeer = inboundFrom_[ip]; fromPeer >= options_.maxConnectionsPerPeer) {
        refused = "peer";
      } else {
        ++fromPeer;
        connection = std::make_shared<InboundConnection>(*this, std::move(socket), *from);
        inbound_[connection.get()] = connection;
        openConnections_.store(inbound_.size());
      }
    }
    if (refused != nullptr) {
      bool byPeer = std::string_view(refused) == "peer";
      (byPeer ? refusedFromPeer_ : refusedConnections_).fetch_add(1);
      if (auto skipped = refusalWarnings_.due()) {
        LOG(WARNING) << "Refusing a connection from " << describe(*from) << ": "
                     << (byPeer ? std::to_string(options_.maxConnectionsPerPeer) +
                                      " connections from its address are open "
                                      "(LIBPROCESS_MAX_CONNECTIONS_PER_PEER)"
                                : std::to_string(maxConnections_) +
                                      " connections are open (LIBPROCESS_MAX_CONNECTIONS)")
                     << skippedNote(*skipped);
      }
      error_code ignored;
      socket.close(ignored);
      statsChanged();
    } else {
      statsChanged();
      connection->start();
    }
    accept();
  });
}

std::optional<uint64_t> Transport::Quiet::due() {
  auto now = std::chrono::steady_clock::now();
  if (last != std::chrono::steady_clock::time_point{} && now - last < std::chrono::seconds(10)) {
    ++skipped;
    return std::nullopt;
  }
  last = now;
  return std::exchange(skipped, 0);
}

std::string Transport::skippedNote(uint64_t skipped) {
  return skipped == 0 ? std::string(" (such warnings: at most one in 10 s)")
                      : " (" + std::to_string(skipped) +
                            " more since the last such warning, at most one in 10 s)";
}

void Transport::pauseAccepting(const error_code& ec) {
  acceptPauses_.fetch_add(1);
  bool first = acceptPause_ == Duration::zero();
  acceptPause_ = first ? Duration(std::chrono::milliseconds(10))
                       : std::min<Duration>(acceptPause_ * 2, std::chrono::seconds(1));
  if (first || acceptPause_ == std::chrono::seconds(1)) {
    LOG(WARNING) << "Cannot accept connections: " << ec.message() << " (" << openConnections_.load()
                 << " inbound connections open); trying again in "
                 << std::chrono::duration_cast<std::chrono::milliseconds>(acceptPause_).count()
                 << " ms";
  }
  statsChanged();
  // Real time: this waits for descriptors, whatever a test does with the
  // runtime's clock.
  if (!acceptTimer_) acceptTimer_ = std::make_unique<asio::steady_timer>(io_);
  acceptTimer_->expires_after(acceptPause_);
  acceptTimer_->async_wait([this](const error_code& waited) {
    if (!waited && !stopped_) accept();
  });
}

void Transport::forget(InboundConnection* connection, uint32_t ip) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (inbound_.erase(connection) == 0) return;
  if (auto it = inboundFrom_.find(ip); it != inboundFrom_.end() && --it->second == 0) {
    inboundFrom_.erase(it);
  }
  openConnections_.store(inbound_.size());
}

void Transport::scheduleSweep() {
  if (options_.idleTimeout <= Duration::zero() || stopped_) return;
  Duration every = std::max<Duration>(options_.idleTimeout / 4, std::chrono::milliseconds(1));
  sweepTimer_ = clock_.schedule(clock_.now() + every, [this] {
    asio::post(io_, [this] { sweep(); });
  });
}

void Transport::sweep() {
  if (stopped_) return;
  TimePoint cutoff = clock_.now() - options_.idleTimeout;
  std::vector<std::shared_ptr<InboundConnection>> idle;
  std::vector<std::shared_ptr<OutboundConnection>> outbound;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [key, weak] : inbound_) {
      auto connection = weak.lock();
      if (connection && connection->idleSince(cutoff)) idle.push_back(std::move(connection));
    }
    for (const auto& [address, connection] : outbound_) outbound.push_back(connection);
  }
  if (!idle.empty()) {
    std::string some;
    for (size_t i = 0; i < idle.size() && i < 3; ++i) some += (i > 0 ? ", " : "") + idle[i]->peer();
    LOG(INFO) << "Closing " << idle.size() << " connection" << (idle.size() > 1 ? "s" : "")
              << " that sent nothing for "
              << std::chrono::duration_cast<std::chrono::seconds>(options_.idleTimeout).count()
              << " s (LIBPROCESS_IDLE_TIMEOUT): from " << some
              << (idle.size() > 3 ? ", ..." : "");
    closedIdle_.fetch_add(idle.size());
    for (auto& connection : idle) connection->close();
  }
  for (auto& connection : outbound) connection->keepAlive();
  scheduleSweep();
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

Transport::WriteBatch::WriteBatch(Transport& transport)
    : transport_(transport), outer_(currentBatch) {
  currentBatch = this;
}

Transport::WriteBatch::~WriteBatch() {
  flush();
  currentBatch = outer_;
}

void Transport::WriteBatch::flush() {
  events_ = 0;
  if (held_.empty()) return;
  asio::post(transport_.io_, [held = std::move(held_)] {
    for (const auto& connection : held) connection->write();
  });
  held_.clear();
}

void Transport::WriteBatch::eventDone() {
  if (held_.empty()) return;
  if (++events_ >= kHeldEvents || std::chrono::steady_clock::now() - heldSince_ >= kHeldFor) {
    flush();
  }
}

void Transport::WriteBatch::flushThread() {
  for (WriteBatch* batch = currentBatch; batch != nullptr; batch = batch->outer_) batch->flush();
}

void Transport::connect(const Address& to) {
  if (stopped_) {
    handler_.onPeerDown(to);
    return;
  }
  outbound(to);
}

bool Transport::flush(Duration bound) {
  WriteBatch::flushThread();  // what this thread holds would never go
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

void Transport::queued(size_t added, size_t removed) {
  if (added > 0) {
    size_t now = queuedBytes_.fetch_add(added) + added;
    if (now > peakQueuedBytes_.load()) peakQueuedBytes_.store(now);
  }
  if (removed > 0) {
    queuedBytes_.fetch_sub(removed);
    roomMade();
  }
}

void Transport::reserved(size_t added, size_t removed) {
  if (added > 0) reservedBytes_.fetch_add(added);
  if (removed > 0) {
    reservedBytes_.fetch_sub(removed);
    roomMade();
  }
}

size_t Transport::reserve(const std::string& target, const std::string& path) {
  size_t& pending = pendingTargets_[target];
  size_t bytes = pending > 0 && sharedPaths_.count(path) > 0 ? 0 : estimate(path);
  ++pending;
  reserved(bytes, 0);
  return bytes;
}

void Transport::unreserve(const std::string& target, size_t bytes) {
  if (auto it = pendingTargets_.find(target); it != pendingTargets_.end() && --it->second == 0) {
    pendingTargets_.erase(it);
  }
  reserved(0, bytes);
}

void Transport::hold(Outgoing& answer, const std::string& path) {
  answer.held = true;
  size_t added = answer.head.size() + answer.tail.size();
  if (answer.chunk) {
    // A chunk written to many streams is in memory once.
    if (sharedAnswers_[answer.chunk.get()]++ == 0) added += answer.chunk->size();
  } else if (answer.response) {
    if (sharedAnswers_[answer.response.get()]++ == 0) {
      added += answer.bytes - answer.head.size();
    } else if (!path.empty()) {
      sharedPaths_.insert(path);  // its actor answers requests together
    }
  }
  queued(added, 0);
}

void Transport::release(const Outgoing& answer) {
  if (!answer.held) return;
  size_t removed = answer.head.size() + answer.tail.size();
  if (answer.chunk) {
    auto it = sharedAnswers_.find(answer.chunk.get());
    if (it != sharedAnswers_.end() && --it->second == 0) {
      sharedAnswers_.erase(it);
      removed += answer.chunk->size();
    }
  } else if (answer.response) {
    auto it = sharedAnswers_.find(answer.response.get());
    if (it != sharedAnswers_.end() && --it->second == 0) {
      sharedAnswers_.erase(it);
      removed += answer.bytes - answer.head.size();
    }
  }
  queued(0, removed);
}

size_t Transport::estimate(const std::string& path) const {
  // An answer of unknown size may be as large as a connection may queue:
  // a burst of first requests for a new path is let in a few at a time.
  auto it = answerSizes_.find(path);
  return it == answerSizes_.end() ? options_.maxQueuedBytesPerConnection : it->second;
}

void Transport::learn(const std::string& path, size_t bytes) {
  // Bounded: clients choose the paths.
  if (answerSizes_.size() >= 1024 && !answerSizes_.contains(path)) answerSizes_.clear();
  answerSizes_[path] = bytes;
}

void Transport::roomMade() {
  if (waitingForRoom_.empty() || wakePosted_ || overTotal()) return;
  // Resumed from a fresh handler, not from inside the write that made room.
  wakePosted_ = true;
  asio::post(io_, [this] {
    wakePosted_ = false;
    waking_ = true;
    while (!waitingForRoom_.empty() && !overTotal()) {
      auto connection = std::move(waitingForRoom_.front());
      waitingForRoom_.pop_front();
      connection->roomAvailable();
    }
    waking_ = false;
  });
}

void Transport::waitForRoom(std::shared_ptr<InboundConnection> connection) {
  waitingForRoom_.push_back(std::move(connection));
}

void Transport::statsChanged() {
  if (statsWaiters_.load() == 0) return;
  { std::lock_guard<std::mutex> lock(statsMutex_); }
  statsChanged_.notify_all();
}

char* Transport::readBuffer() {
  if (!readBuffer_) readBuffer_.reset(new char[kReadBufferBytes]);
  return readBuffer_.get();
}

Transport::HttpStats Transport::httpStats() const {
  HttpStats stats;
  stats.queuedBytes = queuedBytes_.load();
  stats.writtenBytes = writtenBytes_.load();
  stats.reservedBytes = reservedBytes_.load();
  stats.peakQueuedBytes = peakQueuedBytes_.load();
  stats.blockedConnections = blockedConnections_.load();
  stats.heldRequests = heldRequests_.load();
  stats.pausedConnections = pausedConnections_.load();
  stats.closedNotReading = closedNotReading_.load();
  stats.closedWriteTimeout = closedWriteTimeout_.load();
  stats.openConnections = openConnections_.load();
  stats.refusedConnections = refusedConnections_.load();
  stats.refusedFromPeer = refusedFromPeer_.load();
  stats.closedIdle = closedIdle_.load();
  stats.acceptPauses = acceptPauses_.load();
  stats.droppedNotReadingPeer = droppedNotReadingPeer_.load();
  return stats;
}

bool Transport::awaitHttpStats(const std::function<bool(const HttpStats&)>& done, Duration bound) {
  statsWaiters_.fetch_add(1);
  bool met;
  {
    std::unique_lock<std::mutex> lock(statsMutex_);
    met = statsChanged_.wait_for(lock, bound, [&] { return done(httpStats()); });
  }
  statsWaiters_.fetch_sub(1);
  return met;
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
