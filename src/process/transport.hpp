// Transport: the runtime's TCP side. It accepts connections and decodes the
// requests on them (libprocess messages and plain HTTP), and keeps one
// persistent outbound connection per peer address for sending messages, with
// writes coalesced. With TLS (Options::tls) every outbound connection and
// every inbound one (but plain ones, with downgrade) is encrypted. All socket work runs on one Asio I/O thread; send() and
// connect() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "process/asio.hpp"
#include "process/clock.hpp"
#include "process/decoder.hpp"
#include "process/http.hpp"
#include "process/tls.hpp"
#include "process/upid.hpp"

namespace process {

class InboundConnection;
class OutboundConnection;
struct Outgoing;

// Answers one inbound request. Responses on a connection go out in request
// order however they complete. Safe to call from any thread; only the first
// call counts; a connection closed meanwhile drops the response. The answer
// to a HEAD request carries the head only (Content-Length still counts the
// whole body). The head is encoded on the calling thread; the body and
// pieces are never copied into it: the const& overload copies the body and
// the list of pieces (not the pieces), the rvalue one moves them, the
// shared one copies nothing.
class Responder {
 public:
  Responder() = default;
  Responder(std::shared_ptr<InboundConnection> connection, uint64_t slot, bool keepAlive,
            bool headOnly)
      : connection_(std::move(connection)), slot_(slot), keepAlive_(keepAlive),
        headOnly_(headOnly) {}

  void respond(const http::Response& response) const;
  void respond(http::Response&& response) const;
  // Shares `response` instead of copying it: it is kept, unchanged, until
  // written. REQUIRES: not null.
  void respond(std::shared_ptr<const http::Response> response) const;
  // False for requests whose sender waits for no answer (libprocess peers).
  bool wanted() const { return connection_ != nullptr; }

 private:
  // A response whose body is a file (process/sendfile.hpp).
  void sendFile(const http::Response& response) const;
  // Hands the answer to the connection's I/O thread, in its slot.
  void deliver(Outgoing&& outgoing) const;

  std::shared_ptr<InboundConnection> connection_;
  uint64_t slot_ = 0;
  bool keepAlive_ = true;
  bool headOnly_ = false;
};

class Transport {
 public:
  struct Options {
    size_t maxBodyBytes = 64 * 1024 * 1024;
    // A peer that leaves a request half sent for this long is disconnected.
    Duration requestTimeout = std::chrono::seconds(60);
    // Bounds on the bytes of answers queued on inbound connections and not
    // yet written: on a connection every answer counts its whole length;
    // in the total, a response held by several connections counts its body
    // once. See docs/runtime.md, "Slow HTTP clients".
    //
    // Per connection: while a connection has this much queued, nothing
    // more is read from it; an answer that would leave more than this
    // queued behind the one being written closes the connection (its client
    // asked for more and is not reading). One answer, however large, is
    // always accepted on a connection with nothing else queued.
    size_t maxQueuedBytesPerConnection = 64 * 1024 * 1024;
    // Whole transport: while this much is queued, or expected (each HTTP
    // request being answered counts what the last answer to its path
    // weighed, or maxQueuedBytesPerConnection for a path not answered yet;
    // once for all the requests for one target at once on a path known to
    // be answered together), decoded HTTP requests wait, in arrival order,
    // before they are handed to actors. Messages never wait for it.
    size_t maxQueuedBytes = 512 * 1024 * 1024;
    // A connection with answers queued whose writes make no progress for
    // this long (its client stopped reading) is closed.
    Duration writeTimeout = std::chrono::seconds(60);
    // TLS for every connection, null for none. Inbound connections
    // starting with anything but a TLS handshake are served plain with
    // supportDowngrade, closed without. A handshake must finish within
    // requestTimeout.
    std::shared_ptr<TlsContext> tls;

    // Limits on peers (docs/runtime.md, "Limits on peers"). A connection
    // over a cap is accepted and closed at once.
    //
    // Inbound connections open at once; 0: the descriptor limit
    // (RLIMIT_NOFILE) less a reserve for files, children and outbound
    // connections (an eighth, at least 64).
    size_t maxConnections = 0;
    // Inbound connections from one IP address.
    size_t maxConnectionsPerPeer = 1024;
    // An inbound connection that sends nothing for this long is closed,
    // unless it has carried a message (a peer link), awaits an answer or
    // is being sent a streamed one (a subscription). Zero: never. Outbound
    // connections that have carried no message yet (a link alone) send an
    // empty line now and then so that peers keep them.
    Duration idleTimeout = std::chrono::minutes(5);
    // Bytes queued for one peer address and not yet taken by its kernel:
    // past this, the peer is taken as gone (the connection is dropped with
    // what it held, and links to it break). One message, however large, is
    // always accepted on a connection with nothing queued.
    size_t maxUnsentBytesPerPeer = 64 * 1024 * 1024;
  };

  // The HTTP serving side's gauges and counters, for tests and metrics.
  struct HttpStats {
    size_t queuedBytes = 0;           // answers queued, not yet written
    size_t peakQueuedBytes = 0;       // the most queuedBytes has been
    size_t reservedBytes = 0;         // expected for requests being answered
    size_t heldRequests = 0;          // decoded requests waiting for the bounds
    size_t pausedConnections = 0;     // connections not read because of the bounds
    size_t blockedConnections = 0;    // connections waiting for their socket to drain
    uint64_t closedNotReading = 0;    // connections closed by the per-connection bound
    uint64_t closedWriteTimeout = 0;  // connections closed by the write timeout
    uint64_t writtenBytes = 0;        // bytes of answers written to clients, in all
    // Connections (Options, "Limits on peers").
    size_t openConnections = 0;          // inbound connections open now
    uint64_t refusedConnections = 0;     // over maxConnections
    uint64_t refusedFromPeer = 0;        // over maxConnectionsPerPeer
    uint64_t closedIdle = 0;             // by the idle timeout
    uint64_t acceptPauses = 0;           // accept() out of descriptors, paused
    uint64_t droppedNotReadingPeer = 0;  // outbound, over maxUnsentBytesPerPeer
  };

  // Called on the I/O thread.
  struct Handler {
    virtual ~Handler() = default;
    // One decoded request from `peer` ("ip:port"). `responder.wanted()` is
    // false for libprocess-style messages, which get no answer. `tls` is
    // what the peer's certificate says, for a TLS connection; null on a
    // plain one.
    virtual void onRequest(http::Request&& request, const std::string& peer,
                           Responder responder, const TlsPeer* tls) = 0;
    // The outbound connection to `address` failed or closed.
    virtual void onPeerDown(const Address& address) = 0;
  };

  Transport(Handler& handler, Clock& clock, Options options);
  ~Transport();

  // Binds and listens on ip:port (port 0: any free port). Returns the bound
  // address. Nothing is accepted until run(). With a specific ip (not
  // 0.0.0.0), outbound connections leave from it too, so that peers see
  // the address this side's pids name (see docs/runtime.md, "Who sent
  // it"); a loopback ip is not used to reach a peer off this machine.
  Result<Address> start(const std::string& ip, uint16_t port);
  // Every IPv4 address of this machine's interfaces, loopback included.
  static std::vector<uint32_t> localAddresses();
  // The same, as start() found them.
  const std::vector<uint32_t>& localIps() const { return localIps_; }

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

  // While a WriteBatch of this transport lives on a thread, connections
  // that send() finds idle there start writing when the batch flushes (or
  // ends), together: one wake-up of the I/O thread, and one write per
  // connection, for what several events send, instead of one for each
  // message (a master answering thousands of re-registering slaves). Each
  // runtime worker keeps one; it flushes kHeldEvents events after the
  // first held write, at the end of the first event that finishes
  // kHeldFor (real time) or more after it, before the worker waits for
  // work, and before this thread blocks (flush(), Runtime::wait()): a
  // write waits at most for the events that ran meanwhile. Batches nest;
  // the innermost of this transport takes the sends.
  class WriteBatch {
   public:
    static constexpr unsigned kHeldEvents = 16;
    static constexpr auto kHeldFor = std::chrono::microseconds(500);

    explicit WriteBatch(Transport& transport);
    ~WriteBatch();
    WriteBatch(const WriteBatch&) = delete;
    WriteBatch& operator=(const WriteBatch&) = delete;
    // Starts the writes held so far.
    void flush();
    bool holding() const { return !held_.empty(); }
    // An event ran on this thread: flushes by the rules above.
    void eventDone();
    // Flushes every batch of this thread (for code about to block).
    static void flushThread();

   private:
    friend class OutboundConnection;
    Transport& transport_;
    WriteBatch* outer_;
    std::vector<std::shared_ptr<OutboundConnection>> held_;
    unsigned events_ = 0;  // events since the first write was held
    std::chrono::steady_clock::time_point heldSince_;
  };

  // Waits, at most `bound`, until every byte queued so far on an outbound
  // connection has been handed to the kernel (or its connection failed).
  // Returns whether that happened in time. For a process about to exit with
  // messages still queued (a scheduler driver's last UnregisterFramework-
  // Message). REQUIRES: not called on the I/O thread.
  bool flush(Duration bound);

  asio::io_context& io() { return io_; }
  const Options& options() const { return options_; }

  HttpStats httpStats() const;
  // Waits, at most `bound` (real time), until `done(httpStats())` holds;
  // whether it did. For tests on real sockets: `done` is checked again
  // every time a gauge or counter changes. REQUIRES: not called on the I/O
  // thread.
  bool awaitHttpStats(const std::function<bool(const HttpStats&)>& done, Duration bound);

 private:
  friend class InboundConnection;
  friend class OutboundConnection;

  uint32_t localIp_ = 0;  // the listening ip, when specific; set by start()
  std::vector<uint32_t> localIps_;  // localAddresses(), at start()

  void accept();
  // After accept() failed for want of descriptors or memory: accepts again
  // after a pause that doubles, up to a second, while it keeps failing.
  void pauseAccepting(const boost::system::error_code& ec);
  // Closes the inbound connections idle for idleTimeout, and keeps links
  // alone alive (Options::idleTimeout). Runs every quarter of it.
  void scheduleSweep();
  void sweep();
  // An inbound connection ended: it no longer counts against the caps.
  void forget(InboundConnection* connection, uint32_t ip);
  std::shared_ptr<OutboundConnection> outbound(const Address& to);
  void outboundFailed(const std::shared_ptr<OutboundConnection>& connection);
  // An outbound connection has nothing more to write (see flush()).
  void outboundIdle();

  // I/O thread: the bytes of answers queued, and reserved for answers on
  // their way, change by `added` - `removed`. When their sum falls below
  // maxQueuedBytes, connections holding requests for room are resumed,
  // first come first served.
  void queued(size_t added, size_t removed);
  void reserved(size_t added, size_t removed);
  // I/O thread. An HTTP request for `target` (path and query) is on its
  // way to an actor: reserves what the last answer to `path` weighed and
  // returns it, or nothing when another request for the target is being
  // answered and the path's actor is known to answer such requests with
  // one shared response (as the master does /state).
  size_t reserve(const std::string& target, const std::string& path);
  void unreserve(const std::string& target, size_t bytes);
  // I/O thread. An answer to a request for `path` is queued on a
  // connection / written or dropped: its head counts on every connection,
  // its body once however many connections hold the same response (which
  // marks `path` as answered together).
  void hold(Outgoing& answer, const std::string& path);
  void release(const Outgoing& answer);
  void roomMade();
  void waitForRoom(std::shared_ptr<InboundConnection> connection);
  // Something is queued or reserved, and at least maxQueuedBytes (so a
  // bound of 0 still lets one thing through at a time).
  bool overTotal() const {
    size_t total = queuedBytes_.load() + reservedBytes_.load();
    return total > 0 && total >= options_.maxQueuedBytes;
  }
  // An HTTP request must wait: the total is over its bound, or requests
  // held earlier wait for room (first come, first served).
  bool mustWaitForRoom() const { return overTotal() || (!waitingForRoom_.empty() && !waking_); }
  // I/O thread: what the last answer to `path` weighed
  // (maxQueuedBytesPerConnection if none is known).
  size_t estimate(const std::string& path) const;
  void learn(const std::string& path, size_t bytes);
  // Wakes awaitHttpStats() callers, if any.
  void statsChanged();

  Handler& handler_;
  Clock& clock_;
  Options options_;
  // What inbound connections read into, one at a time (I/O thread only).
  char* readBuffer();
  std::unique_ptr<char[]> readBuffer_;
  asio::io_context io_;
  std::unique_ptr<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
  std::atomic<bool> stopped_{false};

  std::mutex mutex_;  // guards the two maps below
  std::unordered_map<Address, std::shared_ptr<OutboundConnection>> outbound_;
  std::unordered_map<InboundConnection*, std::weak_ptr<InboundConnection>> inbound_;
  std::unordered_map<uint32_t, size_t> inboundFrom_;  // open inbound connections by peer ip
  size_t maxConnections_ = 0;  // Options::maxConnections, or what start() derived

  // Warnings a peer can cause as often as it likes: at most one of a kind
  // every 10 s (I/O thread only). due() says whether to log now, and how
  // many were not logged since the last one.
  struct Quiet {
    std::chrono::steady_clock::time_point last{};
    uint64_t skipped = 0;
    std::optional<uint64_t> due();
  };
  // What ends such a warning: how many were skipped.
  static std::string skippedNote(uint64_t skipped);
  Quiet refusalWarnings_;  // connections over a cap
  Quiet tlsWarnings_;      // inbound handshakes that failed or stalled

  // Accepting (I/O thread only).
  std::unique_ptr<asio::steady_timer> acceptTimer_;  // the pause after EMFILE
  Duration acceptPause_{};
  std::optional<TimerId> sweepTimer_;
  std::atomic<size_t> openConnections_{0};
  std::atomic<uint64_t> refusedConnections_{0};
  std::atomic<uint64_t> refusedFromPeer_{0};
  std::atomic<uint64_t> closedIdle_{0};
  std::atomic<uint64_t> acceptPauses_{0};
  std::atomic<uint64_t> droppedNotReadingPeer_{0};

  std::mutex flushMutex_;  // taken before mutex_
  std::condition_variable flushed_;

  // HTTP serving bounds. The gauges are written on the I/O thread (and by
  // a connection dropped without being closed, see ~InboundConnection).
  std::atomic<size_t> queuedBytes_{0};
  std::atomic<size_t> peakQueuedBytes_{0};
  std::atomic<size_t> reservedBytes_{0};
  std::unordered_map<std::string, size_t> answerSizes_;  // by path (I/O thread only)
  // HTTP requests being answered, by target; paths whose actor answered
  // concurrent requests with one response (I/O thread only).
  std::unordered_map<std::string, size_t> pendingTargets_;
  std::unordered_set<std::string> sharedPaths_;
  // Responses and stream chunks queued on connections, by address: how
  // many answers hold each (I/O thread only).
  std::unordered_map<const void*, size_t> sharedAnswers_;
  std::atomic<size_t> blockedConnections_{0};
  std::atomic<size_t> heldRequests_{0};
  std::atomic<size_t> pausedConnections_{0};
  std::atomic<uint64_t> closedNotReading_{0};
  std::atomic<uint64_t> closedWriteTimeout_{0};
  std::atomic<uint64_t> writtenBytes_{0};
  // Connections whose next request waits for the total to fall below
  // maxQueuedBytes, oldest first (I/O thread only). Owning: nothing else
  // refers to a connection that is neither read nor written.
  std::deque<std::shared_ptr<InboundConnection>> waitingForRoom_;
  bool wakePosted_ = false;  // a resumption of waitingForRoom_ is queued on io_
  bool waking_ = false;      // resuming waitingForRoom_ now
  std::atomic<int> statsWaiters_{0};
  std::mutex statsMutex_;
  std::condition_variable statsChanged_;
};

}  // namespace process
