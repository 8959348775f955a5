// Runtime: hosts actors on a pool of worker threads, gives them a clock and
// timers, and connects them to the network (libprocess messages and HTTP on
// one TCP port). Several runtimes may live in one OS process (tests do this
// to put real TCP between them); each has its own address.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "process/actor.hpp"
#include "process/cors.hpp"
#include "process/clock.hpp"
#include "process/hooks.hpp"
#include "process/tls.hpp"
#include "process/transport.hpp"
#include "process/upid.hpp"

namespace process {

class ActorCell;
template <typename T>
class Spawned;

// The actor whose event the calling thread is running, or nullptr.
Actor* currentActor();

class Runtime : public Transport::Handler {
 public:
  struct Options {
    // Address to listen on, a dotted IPv4 quad: "0.0.0.0" listens on every
    // interface; "" on this host's address (see hostAddress()).
    std::string ip = "127.0.0.1";
    uint16_t port = 0;  // 0: any free port
    // The address peers are told to use, in every UPID of this runtime:
    // for a wildcard `ip`, or for an address translated on the way (NAT, a
    // container's published port). Unset: the address listened on, except
    // that a wildcard `ip` advertises hostAddress().
    std::optional<std::string> advertiseIp = std::nullopt;  // a dotted quad, not 0.0.0.0
    std::optional<uint16_t> advertisePort = std::nullopt;   // 1-65535
    unsigned workers = 0;  // actor worker threads; 0: one per core
    size_t maxBodyBytes = 64 * 1024 * 1024;  // larger requests are refused
    Duration requestTimeout = std::chrono::seconds(60);  // for half-sent requests
    // Bounds on HTTP responses queued for clients and not yet written
    // (Transport::Options has the details; docs/runtime.md, "Slow HTTP
    // clients", the story): per connection, in total, and how long a write
    // may make no progress before its client is dropped.
    size_t maxQueuedResponseBytesPerConnection = 64 * 1024 * 1024;
    size_t maxQueuedResponseBytes = 512 * 1024 * 1024;
    Duration httpWriteTimeout = std::chrono::seconds(60);
    // Limits on peers (Transport::Options has the details; docs/runtime.md,
    // "Limits on peers"). withEnvironment() reads them from
    // LIBPROCESS_MAX_CONNECTIONS, LIBPROCESS_MAX_CONNECTIONS_PER_PEER,
    // LIBPROCESS_IDLE_TIMEOUT, LIBPROCESS_MAX_UNSENT_BYTES and
    // LIBPROCESS_MAX_MAILBOX_BYTES.
    size_t maxConnections = 0;  // 0: from RLIMIT_NOFILE
    size_t maxConnectionsPerPeer = 1024;
    Duration idleTimeout = std::chrono::minutes(5);  // 0: none
    size_t maxUnsentBytesPerPeer = 64 * 1024 * 1024;
    // Bytes of messages and HTTP requests from the network waiting in one
    // actor's mailbox: what arrives beyond this is dropped (a message; an
    // HTTP request is answered 503) with a warning, at most one every 10 s
    // per actor. One is always accepted into an empty mailbox.
    size_t maxMailboxBytes = 256 * 1024 * 1024;
    bool pauseClock = false;  // start with the clock paused (tests)
    // TLS for every connection (docs/security.md, "TLS"); off unless
    // tls.enabled. withEnvironment() reads it from LIBPROCESS_SSL_*.
    TlsOptions tls = {};
  };

  // Starts a runtime listening on options.ip:options.port and advertising
  // the address options choose. Logs the addresses when they differ or one
  // was chosen (saying where from). Fails (with the reason) when an address
  // is bad or cannot be bound, or when another runtime of this OS process
  // advertises the same address. With an empty or wildcard ip it blocks on
  // the resolver (hostAddress()).
  static Result<std::unique_ptr<Runtime>> create(Options options);

  // `options` with the address fields set from the environment the way
  // libprocess reads it: LIBPROCESS_IP, LIBPROCESS_PORT,
  // LIBPROCESS_ADVERTISE_IP and LIBPROCESS_ADVERTISE_PORT, and the worker
  // threads from LIBPROCESS_NUM_WORKER_THREADS, TLS from LIBPROCESS_SSL_*
  // (unset or empty variables change nothing). Fails with one line naming the variable and
  // what to write instead.
  static Result<Options> withEnvironment(Options options);

  // Checks `value` as an IPv4 address to listen on (`advertised` false: the
  // wildcard 0.0.0.0 is fine) or to advertise (`advertised` true: it is not,
  // nobody can reach it). The error starts with `name` (a flag or a
  // variable) and says what to write.
  static Result<void> checkIp(const std::string& name, const std::string& value, bool advertised);
  // The daemons' address flags together: --ip (any address), --advertise_ip
  // (not the wildcard) and --advertise_port (not 0), each when given.
  static Result<void> checkAddressFlags(const std::optional<std::string>& ip,
                                        const std::optional<std::string>& advertiseIp,
                                        const std::optional<uint16_t>& advertisePort);

  // The OS process's shared runtime, started on first use and never
  // destroyed: what the scheduler and executor drivers use unless given a
  // runtime. Configured by withEnvironment(), listening on this host's
  // address when LIBPROCESS_IP is not set. Exits the process with one clear
  // line if a variable is bad or the address cannot be bound.
  static Runtime& global();

  // This host's IPv4 address for peers: the first non-loopback address its
  // name resolves to; else the first non-loopback address of an interface
  // that is up; else 127.0.0.1. `source` says which, for the log ("the
  // address of host name 'db1'"). Blocks on the resolver: call it at
  // start-up, not from an actor.
  struct HostAddress {
    std::string ip;
    std::string source;
  };
  static HostAddress hostAddress();
  // Every IPv4 address of this machine's interfaces, loopback included.
  static std::vector<uint32_t> localAddresses();
  // Whether a connection from ip `peer` may speak for a pid at ip `claimed`:
  // the same address, or two addresses of this machine (docs/runtime.md,
  // "Who sent it"). Any thread.
  bool speaksFor(uint32_t peer, uint32_t claimed) const;

  // Terminates any actor still running, closes every connection and joins
  // all threads. REQUIRES: every Spawned handle of this runtime is gone, and
  // the caller is not one of its actors.
  ~Runtime() override;

  // The address this runtime advertises: the one in its actors' UPIDs, the
  // one peers send to and the one it is known by in this OS process.
  const Address& address() const { return address_; }
  // The address its socket is bound to (0.0.0.0 when listening on every
  // interface); equal to address() unless an advertised address was given
  // or chosen.
  const Address& listenAddress() const { return listenAddress_; }

  // Starts `actor` (its initialize() runs as its first event). The returned
  // handle owns it: destroying the handle terminates the actor, waits for its
  // finalize() and deletes it. REQUIRES: no live actor here has its id.
  template <typename T>
  Spawned<T> spawn(std::unique_ptr<T> actor);
  template <typename T, typename... Args>
  Spawned<T> spawn(Args&&... args) {
    return spawn(std::make_unique<T>(std::forward<Args>(args)...));
  }

  // Asks the actor to terminate after the events it is running. Returns false
  // when there is no such actor here.
  bool terminate(const UPID& pid);
  // Blocks until `pid` has terminated (or at once if it is not here).
  void wait(const UPID& pid);

  // Routes bare HTTP paths ("/state") to this actor's routes.
  void setDelegate(const std::string& actorId);

  // Which other web pages may read this runtime's HTTP answers from a
  // browser (process/cors.hpp). Without a policy, no CORS header is added.
  // Any thread.
  void setCorsPolicy(std::shared_ptr<const http::CorsPolicy> policy);

  Clock& clock() { return clock_; }
  // Returns once no actor has queued or running work. Meant for tests with a
  // paused clock (then no timer can fall due meanwhile); work arriving from
  // the network while it waits is not tracked.
  void settle();

  Hooks& hooks() { return hooks_; }

  // Waits, at most `bound`, until every message sent to another address so
  // far has been written to its socket (or its connection failed); whether
  // it happened in time. For processes about to exit (Transport::flush()).
  // REQUIRES: not called from an actor of this runtime.
  bool flush(Duration bound) { return transport_->flush(bound); }

  // The HTTP serving side's gauges and counters (queued response bytes,
  // held requests, paused connections, clients dropped); any thread.
  Transport::HttpStats httpStats() const { return transport_->httpStats(); }
  // Network messages and HTTP requests refused for a full mailbox
  // (Options::maxMailboxBytes), since the start.
  uint64_t mailboxRefusals() const { return mailboxRefusals_.load(); }
  // Bytes of HTTP responses answered and not yet written, on all
  // connections (every piece counted on every response that holds it).
  size_t queuedResponseBytes() const { return transport_->httpStats().queuedBytes; }
  // Waits, at most `bound` (real time), until `done(httpStats())` holds;
  // whether it did. For tests. REQUIRES: not called from an actor.
  bool awaitHttpStats(const std::function<bool(const Transport::HttpStats&)>& done,
                      Duration bound) {
    return transport_->awaitHttpStats(done, bound);
  }

  // Sends from outside any actor (tests, tools): `from` is only a return
  // address.
  void send(const UPID& from, const UPID& to, const google::protobuf::Message& message);

  // Runtime internals, used by Actor, Future and dispatch(). A UPID is this
  // runtime's when it carries the advertised address (the only one its
  // actors' UPIDs, and so peers' replies, carry).
  bool isLocal(const UPID& pid) const { return pid.address == address_; }
  std::shared_ptr<ActorCell> find(const UPID& pid);
  // `full`, when given, is set when the event came from the network and
  // was refused because the mailbox holds maxMailboxBytes of such events.
  // `ahead`: the event runs at the start of the actor's next turn, before
  // what its mailbox holds (only for events of this process).
  bool enqueue(const std::shared_ptr<ActorCell>& cell, Event&& event, bool* full = nullptr,
               bool ahead = false);
  void sendMessage(const UPID& from, const std::string& fromText, const UPID& to,
                   const std::string& name,
                   std::shared_ptr<const google::protobuf::Message> message, std::string body,
                   const std::string& authorization = {});
  void link(const UPID& linker, const UPID& pid);
  // The runtime advertising `address` in this OS process, if any.
  static Runtime* at(const Address& address);

 private:
  explicit Runtime(const Options& options);

  UPID start(Actor* actor);
  // Puts `cell` on the shared run queue and wakes a worker.
  void makeRunnable(std::shared_ptr<ActorCell> cell);
  void workerLoop();
  void run(const std::shared_ptr<ActorCell>& cell);
  void finish(const std::shared_ptr<ActorCell>& cell);
  // False when the message was refused for a full mailbox.
  bool deliver(MessageEvent&& event);
  bool deliverNow(MessageEvent&& event);
  // Logs a message dropped because no actor `to` is here: quietly for an
  // actor that terminated lately, as a warning otherwise.
  void dropForMissingActor(const std::string& name, const UPID& from, const std::string& peer,
                           const std::string& to);
  void idle();

  // Transport::Handler, on the I/O thread (public base: the transport calls
  // it; nothing else should).
  void onRequest(http::Request&& request, const std::string& peer, Responder responder,
                 const TlsPeer* tls) override;
  void onPeerDown(const Address& address) override;
  void onMessage(http::Request&& request, const std::string& peer, const Responder& responder,
                 const TlsPeer* tls);
  // As speaksFor(), and, for a peer with a verified certificate (`tls`),
  // that the certificate names the claimed address; warning (at most once
  // a minute per peer address) when not.
  bool vouches(uint32_t peer, uint32_t claimed, const std::string& name, const UPID& from,
               const std::string& peerText, const TlsPeer* tls);
  void onHttp(http::Request&& request, const std::string& peer, const Responder& responder);

  Options options_;
  Address address_;        // advertised
  Address listenAddress_;  // bound
  std::mutex spoofWarningsMutex_;
  std::unordered_map<uint32_t, std::chrono::steady_clock::time_point> spoofWarnings_;
  Clock clock_;
  Hooks hooks_;
  std::unique_ptr<Transport> transport_;

  std::shared_mutex actorsMutex_;
  std::unordered_map<std::string, std::shared_ptr<ActorCell>> actors_;
  // Ids of the latest actors that terminated here (bounded), so that late
  // messages for them are not reported as messages for strangers.
  static constexpr size_t kTerminatedIdsKept = 1024;
  std::unordered_set<std::string> terminatedIds_;
  std::deque<std::string> terminatedOrder_;
  std::string delegate_;
  std::mutex corsMutex_;
  std::shared_ptr<const http::CorsPolicy> cors_;

  std::mutex runMutex_;
  std::condition_variable runnable_;
  std::deque<std::shared_ptr<ActorCell>> runQueue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;

  std::atomic<int64_t> busy_{0};  // actors queued or running
  std::atomic<uint64_t> mailboxRefusals_{0};
  std::mutex settleMutex_;
  std::condition_variable settled_;

  std::mutex linksMutex_;
  // address -> (linker, linked pid) for links to other addresses (many
  // per address when one peer process holds many actors: hashed).
  struct LinkHash {
    size_t operator()(const std::pair<UPID, UPID>& link) const {
      return std::hash<UPID>()(link.first) * 31 + std::hash<UPID>()(link.second);
    }
  };
  using Links = std::unordered_set<std::pair<UPID, UPID>, LinkHash>;
  std::unordered_map<Address, Links> remoteLinks_;
};

// Owns a spawned actor; see Runtime::spawn(). Movable, not copyable.
template <typename T>
class Spawned {
 public:
  Spawned() = default;
  Spawned(Runtime* runtime, std::unique_ptr<T> actor, Pid<T> pid)
      : runtime_(runtime), actor_(std::move(actor)), pid_(std::move(pid)) {}
  Spawned(Spawned&&) noexcept = default;
  Spawned& operator=(Spawned&& other) noexcept {
    if (this != &other) {
      reset();
      runtime_ = other.runtime_;
      actor_ = std::move(other.actor_);
      pid_ = std::move(other.pid_);
    }
    return *this;
  }
  ~Spawned() { reset(); }

  const Pid<T>& pid() const { return pid_; }
  // The actor object. Touch it only while it cannot be running (tests, after
  // settle()); otherwise talk to it through pid().
  T* get() const { return actor_.get(); }
  T* operator->() const { return actor_.get(); }
  explicit operator bool() const { return actor_ != nullptr; }

  // Terminates the actor, waits for it, and deletes it.
  void reset() {
    if (!actor_) return;
    runtime_->terminate(pid_);
    runtime_->wait(pid_);
    actor_.reset();
  }

 private:
  Runtime* runtime_ = nullptr;
  std::unique_ptr<T> actor_;
  Pid<T> pid_;
};

template <typename T>
Spawned<T> Runtime::spawn(std::unique_ptr<T> actor) {
  Pid<T> pid(start(actor.get()));
  return Spawned<T>(this, std::move(actor), std::move(pid));
}

}  // namespace process
