#include "process/runtime.hpp"

#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <iostream>
#include <utility>

#include <glog/logging.h>

#include "common/flags.hpp"
#include "process/cell.hpp"

namespace process {

namespace {

std::mutex registryMutex;
thread_local Actor* runningActor = nullptr;

// What a worker thread keeps for itself: the actor it runs next. An actor
// that the running actor makes runnable (by a message, a dispatch, a
// continuation) goes there rather than to the shared run queue, so that it
// runs on this worker right after, on warm caches, and no other worker is
// woken for it (Tokio's "LIFO slot", Go's runnext). `streak` bounds how many
// times in a row a worker takes it, so that actors handing work back and
// forth cannot starve the shared queue.
struct Worker {
  Runtime* runtime = nullptr;
  std::shared_ptr<ActorCell> next;
  unsigned streak = 0;
  // What the worker's events send goes out a few events at a time, and
  // before the worker waits for work (Transport::WriteBatch).
  Transport::WriteBatch* writes = nullptr;
};
thread_local Worker* thisWorker = nullptr;

std::unordered_map<Address, Runtime*>& registry() {
  static auto* runtimes = new std::unordered_map<Address, Runtime*>();
  return *runtimes;
}

}  // namespace

namespace internal {

namespace {

// The live actor `pid` names, wherever in this OS process it runs.
std::shared_ptr<ActorCell> resolve(const UPID& pid) {
  if (auto cell = pid.ref.lock(); cell && !cell->terminating.load(std::memory_order_acquire)) {
    return cell;
  }
  Runtime* runtime = Runtime::at(pid.address);
  return runtime == nullptr ? nullptr : runtime->find(pid);
}

}  // namespace

bool post(const UPID& on, std::function<void()> fn, bool ahead) {
  auto cell = resolve(on);
  if (!cell) return false;
  return cell->runtime->enqueue(cell, DispatchEvent{[fn = std::move(fn)](Actor&) { fn(); }},
                                nullptr, ahead);
}

bool postToActor(const UPID& pid, std::function<void(Actor&)> fn) {
  auto cell = resolve(pid);
  if (!cell) return false;
  return cell->runtime->enqueue(cell, DispatchEvent{std::move(fn)});
}

}  // namespace internal

Actor* currentActor() { return runningActor; }

Runtime* Runtime::at(const Address& address) {
  std::lock_guard<std::mutex> lock(registryMutex);
  auto it = registry().find(address);
  return it == registry().end() ? nullptr : it->second;
}

Runtime::Runtime(const Options& options)
    : options_(options), clock_([this](TimePoint deadline) {
        // Arm a one-shot real-time timer on the I/O thread for `deadline`.
        auto timer = std::make_shared<asio::steady_timer>(transport_->io(), deadline);
        timer->async_wait([this, timer](const boost::system::error_code& ec) {
          if (!ec) clock_.fireDue();
        });
      }) {}

Result<std::unique_ptr<Runtime>> Runtime::create(Options options) {
  std::string listenSource;
  if (options.ip.empty()) {
    HostAddress host = hostAddress();
    options.ip = host.ip;
    listenSource = host.source;
  }
  if (auto listen = checkIp("ip", options.ip, false); !listen) return listen.error();
  if (options.advertiseIp) {
    if (auto advertise = checkIp("advertise ip", *options.advertiseIp, true); !advertise) {
      return advertise.error();
    }
  }
  if (options.advertisePort && *options.advertisePort == 0) {
    return Error{"advertise port: 0 is not a port peers can reach; give the port they connect to"};
  }

  std::shared_ptr<TlsContext> tls;
  if (options.tls.enabled) {
    auto created = TlsContext::create(options.tls);
    if (!created) return created.error();
    tls = std::move(created).value();
  }

  std::unique_ptr<Runtime> runtime(new Runtime(options));
  if (options.pauseClock) runtime->clock_.pause();
  Transport::Options transportOptions;
  transportOptions.maxBodyBytes = options.maxBodyBytes;
  transportOptions.requestTimeout = options.requestTimeout;
  transportOptions.maxQueuedBytesPerConnection = options.maxQueuedResponseBytesPerConnection;
  transportOptions.maxQueuedBytes = options.maxQueuedResponseBytes;
  transportOptions.writeTimeout = options.httpWriteTimeout;
  transportOptions.maxConnections = options.maxConnections;
  transportOptions.maxConnectionsPerPeer = options.maxConnectionsPerPeer;
  transportOptions.idleTimeout = options.idleTimeout;
  transportOptions.maxUnsentBytesPerPeer = options.maxUnsentBytesPerPeer;
  transportOptions.tls = std::move(tls);
  runtime->transport_ = std::make_unique<Transport>(*runtime, runtime->clock_, transportOptions);
  auto bound = runtime->transport_->start(options.ip, options.port);
  if (!bound) return bound.error();
  runtime->listenAddress_ = *bound;

  Address advertised = *bound;
  std::string advertiseSource;
  if (options.advertiseIp) {
    advertised.ip = Address::parseIp(*options.advertiseIp).value();
  } else if (bound->ip == 0) {
    HostAddress host = hostAddress();
    advertised.ip = Address::parseIp(host.ip).value();
    advertiseSource = host.source;
  }
  if (options.advertisePort) advertised.port = *options.advertisePort;
  runtime->address_ = advertised;
  {
    std::lock_guard<std::mutex> lock(registryMutex);
    auto [it, inserted] = registry().emplace(advertised, runtime.get());
    if (!inserted) {
      return Error{"another runtime of this process advertises " + advertised.toString() +
                   " already; give this one another advertised address or port"};
    }
  }

  if (!listenSource.empty()) {
    LOG(INFO) << "Listening on " << *bound << ", " << listenSource;
  }
  if (advertised != *bound) {
    LOG(INFO) << "Listening on " << *bound << (bound->ip == 0 ? " (every interface)" : "")
              << " and advertising " << advertised
              << (advertiseSource.empty() ? " (as configured)" : ", " + advertiseSource);
  }

  if (options.tls.enabled) {
    const TlsOptions& t = options.tls;
    LOG(INFO) << "TLS on every connection of " << *bound << ": servers' certificates "
              << (t.verifyServerCert ? "verified" : "not verified") << ", clients' "
              << (t.requireClientCert ? "required" : t.verifyServerCert ? "verified if sent"
                                                                       : "not asked for")
              << ", plain connections " << (t.supportDowngrade ? "served too" : "refused");
  }
  runtime->transport_->run();
  unsigned workers = options.workers ? options.workers : std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < workers; ++i) {
    runtime->workers_.emplace_back([r = runtime.get()] { r->workerLoop(); });
  }
  return runtime;
}

Result<void> Runtime::checkIp(const std::string& name, const std::string& value, bool advertised) {
  auto ip = Address::parseIp(value);
  if (!ip) {
    return Error{name + ": '" + value + "' is not a dotted IPv4 address (e.g. 10.0.0.1)"};
  }
  if (advertised && *ip == 0) {
    return Error{name + ": 0.0.0.0 is the wildcard address, which peers cannot reach; give an "
                        "address of this host they can reach (e.g. 10.0.0.1)"};
  }
  return {};
}

Result<void> Runtime::checkAddressFlags(const std::optional<std::string>& ip,
                                        const std::optional<std::string>& advertiseIp,
                                        const std::optional<uint16_t>& advertisePort) {
  if (ip) {
    if (auto ok = checkIp("--ip", *ip, false); !ok) return ok.error();
  }
  if (advertiseIp) {
    if (auto ok = checkIp("--advertise_ip", *advertiseIp, true); !ok) return ok.error();
  }
  if (advertisePort && *advertisePort == 0) {
    return Error{"--advertise_port: 0 is not a port peers can reach; give the port they connect "
                 "to (1-65535)"};
  }
  return {};
}

Result<Runtime::Options> Runtime::withEnvironment(Options options) {
  auto variable = [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
  auto port = [](const std::string& name, const std::string& text) -> Result<uint16_t> {
    auto parsed = Address::parse("0.0.0.0:" + text);
    if (!parsed) {
      return Error{name + ": '" + text + "' is not a port (an integer from 0 to 65535)"};
    }
    return parsed->port;
  };
  if (auto ip = variable("LIBPROCESS_IP")) {
    if (auto ok = checkIp("LIBPROCESS_IP", *ip, false); !ok) return ok.error();
    options.ip = *ip;
  }
  if (auto text = variable("LIBPROCESS_PORT")) {
    auto parsed = port("LIBPROCESS_PORT", *text);
    if (!parsed) return parsed.error();
    options.port = *parsed;
  }
  if (auto ip = variable("LIBPROCESS_ADVERTISE_IP")) {
    if (auto ok = checkIp("LIBPROCESS_ADVERTISE_IP", *ip, true); !ok) return ok.error();
    options.advertiseIp = *ip;
  }
  if (auto text = variable("LIBPROCESS_ADVERTISE_PORT")) {
    auto parsed = port("LIBPROCESS_ADVERTISE_PORT", *text);
    if (!parsed) return parsed.error();
    if (*parsed == 0) {
      return Error{"LIBPROCESS_ADVERTISE_PORT: 0 is not a port peers can reach; give the port "
                   "they connect to (1-65535)"};
    }
    options.advertisePort = *parsed;
  }
  if (auto text = variable("LIBPROCESS_NUM_WORKER_THREADS")) {
    unsigned workers = 0;
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), workers);
    if (error != std::errc() || end != text->data() + text->size() || workers == 0 ||
        workers > 1024) {
      return Error{"LIBPROCESS_NUM_WORKER_THREADS: '" + *text +
                   "' is not a number of worker threads (1 to 1024)"};
    }
    options.workers = workers;
  }
  // Limits on peers: counts, sizes ("64MB") and a duration ("5mins").
  auto count = [&variable](const char* name, size_t least, size_t* out) -> Result<void> {
    auto text = variable(name);
    if (!text) return {};
    size_t value = 0;
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (error != std::errc() || end != text->data() + text->size() || value < least) {
      return Error{std::string(name) + ": '" + *text + "' is not a number of at least " +
                   std::to_string(least)};
    }
    *out = value;
    return {};
  };
  auto bytes = [&variable](const char* name, size_t* out) -> Result<void> {
    auto text = variable(name);
    if (!text) return {};
    auto parsed = mesos::flags::parseBytes(*text);
    if (!parsed || parsed->value == 0 || parsed->value > SIZE_MAX) {
      return Error{std::string(name) + ": '" + *text + "' is not a size above zero (like 64MB)"};
    }
    *out = static_cast<size_t>(parsed->value);
    return {};
  };
  for (auto ok : {count("LIBPROCESS_MAX_CONNECTIONS", 0, &options.maxConnections),
                  count("LIBPROCESS_MAX_CONNECTIONS_PER_PEER", 1, &options.maxConnectionsPerPeer),
                  bytes("LIBPROCESS_MAX_UNSENT_BYTES", &options.maxUnsentBytesPerPeer),
                  bytes("LIBPROCESS_MAX_MAILBOX_BYTES", &options.maxMailboxBytes)}) {
    if (!ok) return ok.error();
  }
  if (auto text = variable("LIBPROCESS_IDLE_TIMEOUT")) {
    auto parsed = mesos::flags::parseDuration(*text);
    if (!parsed || *parsed < Duration::zero()) {
      return Error{"LIBPROCESS_IDLE_TIMEOUT: '" + *text +
                   "' is not a duration (like 5mins; 0secs for none)"};
    }
    options.idleTimeout = *parsed;
  }
  auto tls = TlsOptions::fromEnvironment();
  if (!tls) return tls.error();
  options.tls = std::move(tls).value();
  return options;
}

Runtime& Runtime::global() {
  static Runtime* runtime = [] {
    Options defaults;
    defaults.ip = "";  // this host's address unless LIBPROCESS_IP says otherwise
    auto options = withEnvironment(defaults);
    if (!options) {
      std::cerr << options.error().message << std::endl;
      std::exit(1);
    }
    if (options->tls.enabled) {
      if (auto tls = TlsContext::create(options->tls); !tls) {
        std::cerr << tls.error().message << std::endl;
        std::exit(1);
      }
    }
    auto created = create(*options);
    if (!created) {
      std::cerr << "Cannot start the runtime: " << created.error().message
                << " (set LIBPROCESS_IP / LIBPROCESS_PORT / LIBPROCESS_ADVERTISE_IP / "
                   "LIBPROCESS_ADVERTISE_PORT)"
                << std::endl;
      std::exit(1);
    }
    return std::move(created).value().release();
  }();
  return *runtime;
}

namespace {

bool isLoopback(uint32_t ip) { return (ip >> 24) == 127; }

// The first non-loopback IPv4 address `name` resolves to, or 0.
uint32_t resolveHostName(const char* name) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  if (getaddrinfo(name, nullptr, &hints, &result) != 0) return 0;
  uint32_t chosen = 0;
  for (addrinfo* a = result; a != nullptr && chosen == 0; a = a->ai_next) {
    uint32_t ip = ntohl(reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr.s_addr);
    if (ip != 0 && !isLoopback(ip)) chosen = ip;
  }
  freeaddrinfo(result);
  return chosen;
}

}  // namespace

Runtime::HostAddress Runtime::hostAddress() {
  char name[256] = {};
  bool named = gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0';
  if (named) {
    if (uint32_t ip = resolveHostName(name); ip != 0) {
      return {Address{ip, 0}.ipString(), "the address of host name '" + std::string(name) + "'"};
    }
  }
  std::string why = named ? "host name '" + std::string(name) + "' resolves to no other address"
                          : "this host has no name";
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) == 0) {
    for (ifaddrs* i = interfaces; i != nullptr; i = i->ifa_next) {
      if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
      if ((i->ifa_flags & IFF_UP) == 0 || (i->ifa_flags & IFF_LOOPBACK) != 0) continue;
      uint32_t ip = ntohl(reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr);
      if (ip == 0 || isLoopback(ip)) continue;
      HostAddress found{Address{ip, 0}.ipString(),
                        "the address of interface " + std::string(i->ifa_name) + " (" + why + ")"};
      freeifaddrs(interfaces);
      return found;
    }
    freeifaddrs(interfaces);
  }
  return {"127.0.0.1", "the loopback address: " + why + " and no interface has a non-loopback "
                       "one, so only this host can reach it"};
}

std::vector<uint32_t> Runtime::localAddresses() { return Transport::localAddresses(); }

Runtime::~Runtime() {
  {
    std::lock_guard<std::mutex> lock(registryMutex);
    if (auto it = registry().find(address_); it != registry().end() && it->second == this) {
      registry().erase(it);
    }
  }
  std::vector<std::shared_ptr<ActorCell>> remaining;
  {
    std::shared_lock lock(actorsMutex_);
    for (auto& [id, cell] : actors_) remaining.push_back(cell);
  }
  for (auto& cell : remaining) {
    LOG(WARNING) << "Runtime stopping: terminating actor '" << cell->actor->id() << "'";
    terminate(cell->actor->self());
    wait(cell->actor->self());
  }
  transport_->stop();
  {
    std::lock_guard<std::mutex> lock(runMutex_);
    stopping_ = true;
  }
  runnable_.notify_all();
  for (auto& worker : workers_) worker.join();
}

UPID Runtime::start(Actor* actor) {
  CHECK(actor->runtime_ == nullptr) << "actor '" << actor->id() << "' was spawned already";
  auto cell = std::make_shared<ActorCell>(actor, this);
  actor->runtime_ = this;
  actor->self_ = UPID(actor->id(), address_);
  actor->self_.ref = cell;
  actor->selfText_ = actor->self_.toString();
  {
    std::unique_lock lock(actorsMutex_);
    auto [it, inserted] = actors_.emplace(actor->id(), cell);
    CHECK(inserted) << "an actor with id '" << actor->id() << "' is running already";
  }
  enqueue(cell, InitializeEvent{});
  return actor->self_;
}

std::shared_ptr<ActorCell> Runtime::find(const UPID& pid) {
  // The cached reference is only good while its actor lives: a new actor
  // under the same id (a restarted master) must get the old UPID's messages.
  if (auto cell = pid.ref.lock()) {
    if (cell->runtime == this && !cell->terminating.load(std::memory_order_acquire)) return cell;
  }
  if (!isLocal(pid)) return nullptr;
  std::shared_lock lock(actorsMutex_);
  auto it = actors_.find(pid.id);
  return it == actors_.end() ? nullptr : it->second;
}

namespace {

// What an event from the network weighs against Options::maxMailboxBytes
// (0 for one from this process).
size_t networkBytes(const Event& event) {
  constexpr size_t kEventBytes = sizeof(Event);
  if (const auto* message = std::get_if<MessageEvent>(&event); message && !message->peer.empty()) {
    return kEventBytes + message->body.size() + message->name.size() +
           message->authorization.size();
  }
  if (const auto* http = std::get_if<HttpEvent>(&event); http && !http->request.peer.empty()) {
    size_t bytes = kEventBytes + http->request.body.size() + http->request.path.size() +
                   http->request.query.size();
    for (const auto& [name, value] : http->request.headers) bytes += name.size() + value.size();
    return bytes;
  }
  return 0;
}

}  // namespace

bool Runtime::enqueue(const std::shared_ptr<ActorCell>& cell, Event&& event, bool* full,
                      bool ahead) {
  bool schedule = false;
  size_t bytes = networkBytes(event);
  {
    std::lock_guard<std::mutex> lock(cell->mutex);
    if (cell->terminating && !std::holds_alternative<TerminateEvent>(event)) return false;
    if (cell->state == ActorCell::State::kDone) return false;
    if (bytes > 0) {
      if (cell->networkBytes > 0 && cell->networkBytes + bytes > options_.maxMailboxBytes) {
        mailboxRefusals_.fetch_add(1);
        ++cell->refusedUnreported;
        auto now = std::chrono::steady_clock::now();
        if (now - cell->lastRefusalWarning >= std::chrono::seconds(10)) {
          cell->lastRefusalWarning = now;
          const auto* message = std::get_if<MessageEvent>(&event);
          LOG(WARNING) << "Refusing "
                       << (message ? "message " + message->name + " from " +
                                         message->from.toString()
                                   : "an HTTP request for " +
                                         std::get<HttpEvent>(event).request.path)
                       << " (peer "
                       << (message ? message->peer : std::get<HttpEvent>(event).request.peer)
                       << ") to actor '" << cell->actor->id() << "': its mailbox holds "
                       << cell->networkBytes << " bytes from the network, the most it takes "
                       << "(LIBPROCESS_MAX_MAILBOX_BYTES); " << cell->refusedUnreported
                       << " refused since the last such warning (at most one in 10 s)";
          cell->refusedUnreported = 0;
        }
        if (full != nullptr) *full = true;
        return false;
      }
      cell->networkBytes += bytes;
    }
    (ahead ? cell->ahead : cell->mailbox).push_back(std::move(event));
    if (cell->state == ActorCell::State::kIdle) {
      cell->state = ActorCell::State::kQueued;
      busy_.fetch_add(1, std::memory_order_relaxed);
      schedule = true;
    }
  }
  if (!schedule) return true;
  // Made runnable by the actor running on this worker: it runs next here,
  // and an actor already waiting there moves to the shared queue.
  std::shared_ptr<ActorCell> shared = cell;
  if (thisWorker != nullptr && thisWorker->runtime == this && runningActor != nullptr) {
    shared = std::exchange(thisWorker->next, cell);
  }
  if (shared) makeRunnable(std::move(shared));
  return true;
}

void Runtime::makeRunnable(std::shared_ptr<ActorCell> cell) {
  {
    std::lock_guard<std::mutex> lock(runMutex_);
    runQueue_.push_back(std::move(cell));
  }
  runnable_.notify_one();
}

void Runtime::workerLoop() {
  constexpr unsigned kMaxStreak = 16;
  Worker worker;
  Transport::WriteBatch writes(*transport_);
  worker.runtime = this;
  worker.writes = &writes;
  thisWorker = &worker;
  for (;;) {
    std::shared_ptr<ActorCell> cell;
    if (worker.next && worker.streak < kMaxStreak) {
      ++worker.streak;
      cell = std::move(worker.next);
    } else {
      worker.streak = 0;
      if (worker.next) makeRunnable(std::move(worker.next));
      std::unique_lock<std::mutex> lock(runMutex_);
      if (runQueue_.empty() && writes.holding()) {
        lock.unlock();
        writes.flush();
        lock.lock();
      }
      runnable_.wait(lock, [this] { return stopping_ || !runQueue_.empty(); });
      if (runQueue_.empty()) {
        thisWorker = nullptr;
        return;
      }
      cell = std::move(runQueue_.front());
      runQueue_.pop_front();
    }
    run(cell);
  }
}

void Runtime::run(const std::shared_ptr<ActorCell>& cell) {
  // A drained batch keeps its memory (for the next one) up to 4 MiB.
  constexpr size_t kKeptBatchCapacity = (4 << 20) / sizeof(Event);
  // Events one turn runs at most: an actor with tens of thousands queued
  // (a master after a failover, its allocator) leaves the worker to the
  // others between turns (the ZooKeeper session's actors, whose answers
  // keep the leader's lease) instead of holding it for a second.
  constexpr size_t kMaxTurn = 1024;
  std::vector<Event>& batch = cell->batch;
  size_t& next = cell->batchNext;
  std::vector<Event> ahead;
  {
    std::lock_guard<std::mutex> lock(cell->mutex);
    ahead.swap(cell->ahead);
    if (next >= batch.size()) {
      batch.clear();
      next = 0;
      batch.swap(cell->mailbox);
      // The batch is bounded as the mailbox was: at most twice the bound live.
      cell->networkBytes = 0;
    }
    cell->state = ActorCell::State::kRunning;
  }
  for (Event& event : ahead) {
    runningActor = cell->actor;
    cell->actor->consume(event);
    runningActor = nullptr;
    if (thisWorker != nullptr && thisWorker->writes) thisWorker->writes->eventDone();
  }
  const size_t end = std::min(batch.size(), next + kMaxTurn);
  while (next < end) {
    Event& event = batch[next++];
    bool last = std::holds_alternative<TerminateEvent>(event);
    runningActor = cell->actor;
    cell->actor->consume(event);
    runningActor = nullptr;
    if (thisWorker != nullptr && thisWorker->writes) thisWorker->writes->eventDone();
    if (last) {
      batch.clear();
      next = 0;
      finish(cell);
      return;
    }
  }
  if (next >= batch.size()) {
    if (batch.capacity() > kKeptBatchCapacity) {
      std::vector<Event>().swap(batch);
    } else {
      batch.clear();
    }
    next = 0;
  }
  bool requeue;
  {
    std::lock_guard<std::mutex> lock(cell->mutex);
    requeue = next < batch.size() || !cell->mailbox.empty() || !cell->ahead.empty();
    cell->state = requeue ? ActorCell::State::kQueued : ActorCell::State::kIdle;
  }
  if (requeue) {
    makeRunnable(cell);
  } else {
    idle();
  }
}

void Runtime::finish(const std::shared_ptr<ActorCell>& cell) {
  const UPID self = cell->actor->self();
  std::vector<UPID> linkers;
  {
    std::lock_guard<std::mutex> lock(cell->mutex);
    cell->terminating = true;
    cell->mailbox.clear();
    cell->ahead.clear();
    linkers.swap(cell->linkers);
  }
  {
    std::unique_lock lock(actorsMutex_);
    auto it = actors_.find(self.id);
    if (it != actors_.end() && it->second == cell) actors_.erase(it);
    if (terminatedIds_.insert(self.id).second) terminatedOrder_.push_back(self.id);
    while (terminatedOrder_.size() > kTerminatedIdsKept) {
      terminatedIds_.erase(terminatedOrder_.front());
      terminatedOrder_.pop_front();
    }
  }
  {
    std::lock_guard<std::mutex> lock(linksMutex_);
    for (auto& [address, links] : remoteLinks_) {
      std::erase_if(links, [&](const auto& link) { return link.first == self; });
    }
  }
  for (const UPID& linker : linkers) {
    if (auto target = find(linker)) enqueue(target, ExitedEvent{self});
  }
  {
    std::lock_guard<std::mutex> lock(cell->mutex);
    cell->state = ActorCell::State::kDone;
  }
  cell->done.notify_all();
  idle();
}

void Runtime::idle() {
  if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard<std::mutex> lock(settleMutex_);
    settled_.notify_all();
  }
}

void Runtime::settle() {
  std::unique_lock<std::mutex> lock(settleMutex_);
  settled_.wait(lock, [this] { return busy_.load(std::memory_order_acquire) == 0; });
}

bool Runtime::terminate(const UPID& pid) {
  auto cell = find(pid);
  if (!cell) return false;
  {
    std::lock_guard<std::mutex> lock(cell->mutex);
    if (cell->terminating) return true;
    cell->terminating = true;
  }
  return enqueue(cell, TerminateEvent{});
}

void Runtime::wait(const UPID& pid) {
  // A worker about to block hands the actor it would have run next to the
  // other workers: it may be the very actor waited for (an actor destroying
  // the Spawned handle of one it has just sent to).
  if (thisWorker != nullptr && thisWorker->next) {
    thisWorker->runtime->makeRunnable(std::move(thisWorker->next));
  }
  // Nor do the messages it holds wait for it (an actor stopping another
  // may have just told it why).
  Transport::WriteBatch::flushThread();
  auto cell = pid.ref.lock();
  if (!cell) cell = find(pid);
  if (!cell) return;
  std::unique_lock<std::mutex> lock(cell->mutex);
  cell->done.wait(lock, [&] { return cell->state == ActorCell::State::kDone; });
}

void Runtime::setDelegate(const std::string& actorId) {
  std::unique_lock lock(actorsMutex_);
  delegate_ = actorId;
}

void Runtime::send(const UPID& from, const UPID& to, const google::protobuf::Message& message) {
  std::shared_ptr<google::protobuf::Message> copy(message.New());
  copy->MergeFrom(message);  // into an empty message: CopyFrom's checks cost more
  const std::string& name = message.GetDescriptor()->full_name();
  sendMessage(from, from.toString(), to, name, std::move(copy), {});
}

void Runtime::sendMessage(const UPID& from, const std::string& fromText, const UPID& to,
                          const std::string& name,
                          std::shared_ptr<const google::protobuf::Message> message,
                          std::string body, const std::string& authorization) {
  if (isLocal(to)) {
    deliver(MessageEvent{from, to, name, std::move(message), std::move(body), {}, authorization});
    return;
  }
  if (message) body = message->SerializePartialAsString();
  if (hooks_.active()) {
    MessageEvent event{from, to, name, nullptr, body, {}, authorization};
    auto decision = hooks_.decide(event);
    for (auto& awaited : decision.awaited) awaited->set(event);
    if (decision.verdict == Hooks::Verdict::kDrop) return;
    if (decision.verdict == Hooks::Verdict::kHold) {
      hooks_.keep(decision.filter, [this, fromText, to, name, body, authorization] {
        std::string bytes;
        http::encodeMessage(fromText, to.id, to.address.toString(), name, body, &bytes,
                            authorization);
        transport_->send(to.address, std::move(bytes));
      });
      return;
    }
  }
  std::string bytes;
  bytes.reserve(body.size() + 200 + 2 * fromText.size() + name.size() + authorization.size());
  http::encodeMessage(fromText, to.id, to.address.toString(), name, body, &bytes, authorization);
  transport_->send(to.address, std::move(bytes));
}

bool Runtime::deliver(MessageEvent&& event) {
  if (!hooks_.active()) return deliverNow(std::move(event));
  auto decision = hooks_.decide(event);
  std::optional<MessageEvent> copy;
  if (!decision.awaited.empty()) copy = event;
  if (decision.verdict == Hooks::Verdict::kHold) {
    auto held = std::make_shared<MessageEvent>(std::move(event));
    hooks_.keep(decision.filter, [this, held] { deliverNow(MessageEvent(*held)); });
  } else if (decision.verdict == Hooks::Verdict::kDeliver) {
    if (!deliverNow(std::move(event))) return false;
  }
  for (auto& awaited : decision.awaited) awaited->set(*copy);
  return true;
}

void Runtime::dropForMissingActor(const std::string& name, const UPID& from,
                                  const std::string& peer, const std::string& to) {
  bool terminated;
  {
    std::shared_lock lock(actorsMutex_);
    terminated = terminatedIds_.count(to) > 0;
  }
  // A late message for an actor that was here and stopped (a scheduler
  // driver stopped while the master was still sending) is expected; one for
  // an actor never seen here is worth a warning.
  if (terminated) {
    VLOG(1) << "Dropping message " << name << " from " << from << " for actor '" << to
            << "', which has terminated";
    return;
  }
  LOG(WARNING) << "Dropping message " << name << " from " << from
               << (peer.empty() ? "" : " (peer " + peer + ")") << ": no actor '" << to
               << "' here";
}

bool Runtime::deliverNow(MessageEvent&& event) {
  auto cell = find(event.to);
  if (!cell) {
    dropForMissingActor(event.name, event.from, event.peer, event.to.id);
    return true;
  }
  // enqueue() leaves the event alone when it refuses it.
  Event queued(std::move(event));
  bool full = false;
  if (!enqueue(cell, std::move(queued), &full) && !full) {
    VLOG(1) << "Dropping message " << std::get<MessageEvent>(queued).name
            << " to terminating actor " << cell->actor->id();
  }
  return !full;
}

void Runtime::link(const UPID& linker, const UPID& pid) {
  if (isLocal(pid)) {
    auto cell = find(pid);
    bool alive = false;
    if (cell) {
      std::lock_guard<std::mutex> lock(cell->mutex);
      if (!cell->terminating) {
        cell->linkers.push_back(linker);
        alive = true;
      }
    }
    if (!alive) {
      if (auto self = find(linker)) enqueue(self, ExitedEvent{pid});
    }
    return;
  }
  {
    std::lock_guard<std::mutex> lock(linksMutex_);
    remoteLinks_[pid.address].emplace(linker, pid);
  }
  transport_->connect(pid.address);
}

void Runtime::onPeerDown(const Address& address) {
  Links links;
  {
    std::lock_guard<std::mutex> lock(linksMutex_);
    auto it = remoteLinks_.find(address);
    if (it == remoteLinks_.end()) return;
    links.swap(it->second);
    remoteLinks_.erase(it);
  }
  for (const auto& [linker, pid] : links) {
    if (auto cell = find(linker)) enqueue(cell, ExitedEvent{pid});
  }
}

void Runtime::onRequest(http::Request&& request, const std::string& peer, Responder responder,
                        const TlsPeer* tls) {
  bool message = !responder.wanted() ||
                 (request.method == "POST" && request.hasHeader("libprocess-from"));
  if (message) {
    onMessage(std::move(request), peer, responder, tls);
  } else {
    onHttp(std::move(request), peer, responder);
  }
}

void Runtime::onMessage(http::Request&& request, const std::string& peer,
                        const Responder& responder, const TlsPeer* tls) {
  // Path: /<receiver id>/<message name>.
  std::string_view path = request.path;
  size_t slash = path.find('/', 1);
  if (slash == std::string_view::npos || slash == 1 || slash + 1 == path.size()) {
    LOG(WARNING) << "Dropping message from peer " << peer << ": path '" << request.path
                 << "' is not /<receiver>/<message name>";
    responder.respond(http::Response::badRequest("expected POST /<receiver>/<message name>\n"));
    return;
  }
  std::string_view fromText = request.header("libprocess-from");
  if (fromText.empty()) {
    std::string_view agent = request.header("user-agent");
    if (agent.starts_with("libprocess/")) fromText = agent.substr(11);
  }
  auto from = UPID::parse(fromText);
  std::string name(path.substr(slash + 1));
  if (!from) {
    LOG(WARNING) << "Dropping message " << name << " from peer " << peer
                 << ": no valid sender (" << from.error().message << ")";
    responder.respond(http::Response::badRequest(from.error().message + "\n"));
    return;
  }
  // The sender a message names counts only if the connection could have
  // come from it, and, over TLS, if the peer's certificate names its
  // address (docs/runtime.md, "Who sent it").
  auto peerAddress = Address::parse(peer);
  if (!peerAddress || !vouches(peerAddress->ip, from->address.ip, name, *from, peer, tls)) {
    responder.respond(http::Response{403, "text/plain",
                                     "the sender " + from->toString() +
                                         " is not at the address this connection comes from (" +
                                         peer + ") or its certificate does not name it\n",
                                     {}});
    return;
  }
  UPID to(std::string(path.substr(1, slash - 1)), address_);
  if (!find(to)) {
    dropForMissingActor(name, *from, peer, to.id);
    responder.respond(http::Response::notFound("no actor '" + to.id + "'\n"));
    return;
  }
  if (!deliver(MessageEvent{*from, std::move(to), std::move(name), nullptr,
                            std::move(request.body), peer,
                            std::string(request.header("authorization"))})) {
    responder.respond(http::Response{503, "text/plain", "the receiver's mailbox is full\n", {}});
    return;
  }
  responder.respond(http::Response::accepted());
}

bool Runtime::speaksFor(uint32_t peer, uint32_t claimed) const {
  const std::vector<uint32_t>& localIps = transport_->localIps();
  auto local = [&localIps](uint32_t ip) {
    return std::find(localIps.begin(), localIps.end(), ip) != localIps.end();
  };
  return peer == claimed || (local(peer) && local(claimed));
}

bool Runtime::vouches(uint32_t peer, uint32_t claimed, const std::string& name, const UPID& from,
                      const std::string& peerText, const TlsPeer* tls) {
  bool address = speaksFor(peer, claimed);
  bool certificate = tls == nullptr || !tls->verified || tls->names(claimed);
  if (address && certificate) return true;
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(spoofWarningsMutex_);
    if (spoofWarnings_.size() > 4096) spoofWarnings_.clear();
    auto [it, first] = spoofWarnings_.emplace(peer, now);
    if (!first && now - it->second < std::chrono::minutes(1)) return false;
    it->second = now;
  }
  LOG(WARNING) << "Dropping message " << name << " from peer " << peerText << ": it names "
               << from << " as its sender, "
               << (address ? "whose address the peer's " + tls->describe() + " does not name"
                           : std::string("which is not at the connection's address"))
               << " (further such messages from " << Address{peer, 0}.ipString()
               << " are dropped without a warning for a minute)";
  return false;
}

void Runtime::setCorsPolicy(std::shared_ptr<const http::CorsPolicy> policy) {
  std::lock_guard<std::mutex> lock(corsMutex_);
  cors_ = std::move(policy);
}

void Runtime::onHttp(http::Request&& request, const std::string& peer,
                     const Responder& responder) {
  if (request.path == "/health") {
    // A delegate (a daemon's master or slave) says how it is; otherwise
    // answering at all is health.
    std::shared_lock lock(actorsMutex_);
    if (delegate_.empty()) {
      lock.unlock();
      responder.respond(http::Response::ok("", "text/plain"));
      return;
    }
  }
  std::string_view path = request.path;
  size_t slash = path.find('/', 1);
  std::string id(path.substr(1, slash == std::string_view::npos ? std::string_view::npos : slash - 1));
  std::shared_ptr<ActorCell> cell = id.empty() ? nullptr : find(UPID(id, address_));
  if (!cell) {
    std::string delegate;
    {
      std::shared_lock lock(actorsMutex_);
      delegate = delegate_;
    }
    if (!delegate.empty()) cell = find(UPID(delegate, address_));
  }
  if (!cell && request.path == "/health") {
    responder.respond(http::Response::ok("", "text/plain"));  // the delegate is gone
    return;
  }
  if (!cell) {
    VLOG(1) << "HTTP " << request.method << " " << request.path << " from " << peer << ": 404";
    responder.respond(http::Response::notFound("no route " + request.path + "\n"));
    return;
  }
  // A page of another origin reads the answer only if the policy lets it.
  std::string origin;
  std::shared_ptr<const http::CorsPolicy> cors;
  {
    std::lock_guard<std::mutex> lock(corsMutex_);
    cors = cors_;
  }
  if (const std::string& claimed = request.header("origin"); cors && !claimed.empty()) {
    if (http::isPreflight(request)) {
      responder.respond(cors->allows(claimed)
                            ? http::preflightAnswer(request, claimed)
                            : http::Response{403, "text/plain", "origin not allowed\n", {}});
      return;
    }
    if (cors->allows(claimed)) origin = claimed;
  }
  auto answer = [responder, origin](const Future<http::Response>& future) {
    future.onAny([future, responder, origin] {
      if (!future.isReady()) {
        responder.respond(http::Response::internalError(future.failure() + "\n"));
        return;
      }
      if (!origin.empty()) {
        http::Response allowed = future.get();
        http::allowOrigin(&allowed, origin);
        responder.respond(std::move(allowed));
        return;
      }
      // The route's response itself, shared rather than copied (a /state
      // may hold a hundred thousand pieces): a ready future's value never
      // changes, and the transport keeps the future until it is written.
      auto kept = std::make_shared<const Future<http::Response>>(future);
      responder.respond(std::shared_ptr<const http::Response>(kept, &kept->get()));
    });
  };
  request.peer = peer;
  bool full = false;
  if (!enqueue(cell, HttpEvent{std::move(request), answer}, &full)) {
    answer(Future<http::Response>(http::Response{
        503, "text/plain", full ? "the actor's mailbox is full\n" : "actor terminating\n", {}}));
  }
}

}  // namespace process
