// process_bench: throughput and latency of the actor runtime (src/process/).
//
// Prints one `name: value unit` line per figure, on stdout:
//   local_oneway_msgs_per_s    one actor streams small protobuf messages to
//                              another in the same runtime
//   local_pingpong_rtts_per_s  two actors of one runtime bounce one message
//   dispatch_calls_per_s       dispatch(pid, &T::method, arg) with the result
//                              consumed by then(self(), ...), pipelined
//   remote_oneway_msgs_per_s   the one-way stream between two OS processes
//                              over loopback TCP
//   remote_rtt_p50_us,         ping-pong between the two processes, one
//   remote_rtt_p99_us          message in flight at a time
//   http_pieced_mb_per_s       one keep-alive HTTP client fetching a body of
//                              --http_pieces shared pieces (20 MB by default)
//   http_flat_mb_per_s         the same bytes as one string body
//   http_concurrent_*          --http_clients clients fetching the pieced body
//                              at once: throughput, fairness, memory
//
// The remote peer is this same binary, re-executed with --role=sink. One-way
// senders keep at most --window batches of --batch messages unacknowledged;
// the receiver acknowledges each batch, so no mailbox or socket buffer grows
// without bound; dispatch keeps --dispatch_window calls in flight. Every
// figure is taken over --seconds of real time after --warmup seconds.
// docs/benchmarks.md records the figures and the targets.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "messages.pb.h"
#include "tls_env.hpp"
#include "process/actor.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"

extern char** environ;

DEFINE_double(seconds, 2.0, "Length of each measurement, in seconds of real time.");
DEFINE_double(warmup, 0.3, "Seconds each measurement runs before it starts counting.");
DEFINE_string(only, "",
              "Comma-separated measurements to run: local_oneway, local_pingpong, dispatch, "
              "remote_oneway, remote_rtt, http_pieced, http_flat, http_concurrent, or a prefix "
              "of them ('remote', 'local', 'http'), or a figure's full name. Empty runs all.");
DEFINE_uint32(batch, 1000, "One-way receivers acknowledge every this many messages.");
DEFINE_uint32(window, 4, "One-way senders keep at most this many batches unacknowledged.");
DEFINE_uint32(dispatch_window, 1000, "Dispatch calls in flight at once.");
DEFINE_uint32(workers, 0, "Worker threads per runtime (0: one per core).");
DEFINE_string(role, "bench",
              "bench: run the measurements. sink: serve as the remote peer (bench starts it).");
DEFINE_string(parent, "", "With --role=sink: the UPID of the bench actor to greet.");
DEFINE_bool(tls, false,
            "TLS between the runtimes: makes a throw-away CA and certificate with the openssl "
            "tool and sets LIBPROCESS_SSL_* for this process and the sink (client certificates "
            "required; the HTTP measurements' plain clients are served by downgrade). Without "
            "it, LIBPROCESS_SSL_* from the environment apply.");
DEFINE_int32(cpu, -1, "Pin this process (all its threads) to this CPU; -1: no pinning.");
DEFINE_uint32(http_pieces, 100000, "Pieces of the body the HTTP measurements fetch.");
DEFINE_uint32(http_piece_bytes, 200, "Bytes of each piece of that body.");
DEFINE_uint32(http_clients, 100, "Concurrent clients of http_concurrent.");
DEFINE_bool(pin_remote, false,
            "Pin the bench process to the first CPU it may use and the sink to the second "
            "for the remote measurements, so that each process has one core of its own.");

namespace {

using namespace std::chrono_literals;
using mesos::internal::FrameworkToExecutorMessage;
using mesos::internal::PingSlaveMessage;
using mesos::internal::PongSlaveMessage;
using process::Actor;
using process::Future;
using process::Nothing;
using process::Pid;
using process::Promise;
using process::Runtime;
using process::UPID;
using SteadyClock = std::chrono::steady_clock;

// Control messages, sent raw so that only the measured traffic is protobuf.
constexpr char kAck[] = "bench/ack";      // receiver -> sender: one more batch handled
constexpr char kHello[] = "bench/hello";  // sink -> bench: the sink is up; `from` names it
constexpr char kQuit[] = "bench/quit";    // bench -> sink: exit

// What a driving actor shares with the thread that measures it.
struct Probe {
  std::atomic<uint64_t> done{0};         // units of work completed so far
  std::atomic<bool> measuring{false};    // the counted interval has begun
  std::atomic<bool> stop{false};         // wind down: start no new work
  Promise<Nothing> drained;              // set once stopped with nothing in flight
};

// A typical small message: three short ids and 16 bytes of data (about 40
// bytes serialized).
FrameworkToExecutorMessage smallPayload() {
  FrameworkToExecutorMessage message;
  message.mutable_slave_id()->set_value("S0");
  message.mutable_framework_id()->set_value("F0");
  message.mutable_executor_id()->set_value("E0");
  message.set_data(std::string(16, 'x'));
  return message;
}

// Receives one-way streams (acknowledging every --batch messages) and
// answers pings. In the sink process it greets `parent` and quits when told
// to or when the parent goes away.
class Sink : public Actor {
 public:
  explicit Sink(uint32_t batch, UPID parent = {})
      : Actor("sink"), batch_(batch), parent_(std::move(parent)) {}

  Future<Nothing> quit() const { return quit_.future(); }

 protected:
  void initialize() override {
    on(&Sink::payload);
    on(&Sink::ping);
    onRaw(kQuit, [this](const UPID&, const std::string&) { quit_.set(Nothing{}); });
    if (parent_) {
      link(parent_);
      sendRaw(parent_, kHello, "");
    }
  }

  void exited(const UPID& pid) override {
    if (pid == parent_) quit_.set(Nothing{});
  }

 private:
  // Senders stop only on batch boundaries, so one counter serves them all.
  void payload(const UPID& from, const FrameworkToExecutorMessage&) {
    if (++received_ % batch_ == 0) sendRaw(from, kAck, "");
  }

  void ping(const UPID& from, const PingSlaveMessage&) { send(from, PongSlaveMessage()); }

  const uint32_t batch_;
  const UPID parent_;
  uint64_t received_ = 0;
  Promise<Nothing> quit_;
};

// Streams smallPayload() to `sink`, at most `window` batches ahead of the
// acknowledgements. probe.done counts acknowledged messages.
class Source : public Actor {
 public:
  Source(std::string id, UPID sink, uint32_t batch, uint32_t window, Probe& probe)
      : Actor(std::move(id)), sink_(std::move(sink)), batch_(batch), window_(window),
        probe_(probe), payload_(smallPayload()) {}

 protected:
  void initialize() override {
    onRaw(kAck, [this](const UPID&, const std::string&) { acknowledged(); });
    refill();
  }

 private:
  void acknowledged() {
    ++acked_;
    probe_.done.store(acked_ * batch_, std::memory_order_relaxed);
    if (probe_.stop.load(std::memory_order_relaxed)) {
      if (acked_ == sent_) probe_.drained.set(Nothing{});
      return;
    }
    refill();
  }

  void refill() {
    while (sent_ - acked_ < window_) {
      for (uint32_t i = 0; i < batch_; ++i) send(sink_, payload_);
      ++sent_;
    }
  }

  const UPID sink_;
  const uint32_t batch_;
  const uint32_t window_;
  Probe& probe_;
  const FrameworkToExecutorMessage payload_;
  uint64_t sent_ = 0;   // batches
  uint64_t acked_ = 0;  // batches
};

// Sends a ping to `peer`, waits for the pong, repeats. probe.done counts round
// trips; while probe.measuring, each round trip's time (ns) goes to `rtts`
// when it is given.
class Pinger : public Actor {
 public:
  Pinger(std::string id, UPID peer, Probe& probe, std::vector<int64_t>* rtts)
      : Actor(std::move(id)), peer_(std::move(peer)), probe_(probe), rtts_(rtts) {
    ping_.set_connected(true);
  }

 protected:
  void initialize() override {
    on(&Pinger::pong);
    ping();
  }

 private:
  void ping() {
    sentAt_ = SteadyClock::now();
    send(peer_, ping_);
  }

  void pong(const UPID&, const PongSlaveMessage&) {
    SteadyClock::duration rtt = SteadyClock::now() - sentAt_;
    probe_.done.store(++count_, std::memory_order_relaxed);
    if (rtts_ != nullptr && probe_.measuring.load(std::memory_order_relaxed)) {
      rtts_->push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(rtt).count());
    }
    if (probe_.stop.load(std::memory_order_relaxed)) {
      probe_.drained.set(Nothing{});
      return;
    }
    ping();
  }

  const UPID peer_;
  Probe& probe_;
  std::vector<int64_t>* const rtts_;
  PingSlaveMessage ping_;
  SteadyClock::time_point sentAt_;
  uint64_t count_ = 0;
};

// The target of the dispatch benchmark.
class Counter : public Actor {
 public:
  Counter() : Actor("counter") {}
  int64_t add(int64_t n) { return total_ += n; }

 private:
  int64_t total_ = 0;
};

// Keeps `window` dispatches to Counter::add in flight, each consumed by
// then(self(), ...). probe.done counts completed calls.
class Caller : public Actor {
 public:
  Caller(Pid<Counter> counter, uint32_t window, Probe& probe)
      : Actor("caller"), counter_(std::move(counter)), window_(window), probe_(probe) {}

 protected:
  void initialize() override {
    for (uint32_t i = 0; i < window_; ++i) call();
  }

 private:
  void call() {
    ++inFlight_;
    dispatch(counter_, &Counter::add, int64_t{1}).then(self(), [this](int64_t) { completed(); });
  }

  void completed() {
    --inFlight_;
    probe_.done.store(++count_, std::memory_order_relaxed);
    if (probe_.stop.load(std::memory_order_relaxed)) {
      if (inFlight_ == 0) probe_.drained.set(Nothing{});
      return;
    }
    call();
  }

  const Pid<Counter> counter_;
  const uint32_t window_;
  Probe& probe_;
  uint32_t inFlight_ = 0;
  uint64_t count_ = 0;
};

// In the bench process: learns the sink's UPID from its greeting.
class Greeter : public Actor {
 public:
  Greeter() : Actor("bench") {}
  Future<UPID> sink() const { return sink_.future(); }
  // Tells the sink process to exit.
  void dismiss(const UPID& sink) { sendRaw(sink, kQuit, ""); }

 protected:
  void initialize() override {
    onRaw(kHello, [this](const UPID& from, const std::string&) { sink_.set(from); });
  }

 private:
  Promise<UPID> sink_;
};

// Pins the calling thread, and so the threads it starts from now on, to
// `cpu`. Returns false (and pins nothing) when there is no such CPU.
bool pinTo(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

std::unique_ptr<Runtime> makeRuntime() {
  Runtime::Options options;
  options.workers = FLAGS_workers;
  // TLS as every program takes it: LIBPROCESS_SSL_* (docs/benchmarks.md).
  auto tls = process::TlsOptions::fromEnvironment();
  CHECK(tls.ok()) << tls.error().message;
  options.tls = std::move(tls).value();
  auto runtime = Runtime::create(options);
  CHECK(runtime.ok()) << "cannot start a runtime: " << runtime.error().message;
  return std::move(runtime).value();
}

SteadyClock::duration seconds(double s) {
  return std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(s));
}

// Lets the driver behind `probe` warm up, counts its work over --seconds,
// then stops it and waits until it has nothing in flight. Returns units of
// work per second.
double measure(Probe& probe) {
  std::this_thread::sleep_for(seconds(FLAGS_warmup));
  probe.measuring.store(true);
  uint64_t before = probe.done.load();
  SteadyClock::time_point start = SteadyClock::now();
  std::this_thread::sleep_for(seconds(FLAGS_seconds));
  uint64_t after = probe.done.load();
  SteadyClock::time_point end = SteadyClock::now();
  probe.measuring.store(false);
  probe.stop.store(true);
  CHECK(probe.drained.future().await(30s)) << "the measured actors did not wind down in 30 s";
  return static_cast<double>(after - before) / std::chrono::duration<double>(end - start).count();
}

void print(std::string_view name, double value, std::string_view unit) {
  if (value >= 100) {
    std::printf("%.*s: %.0f %.*s\n", static_cast<int>(name.size()), name.data(), value,
                static_cast<int>(unit.size()), unit.data());
  } else {
    std::printf("%.*s: %.1f %.*s\n", static_cast<int>(name.size()), name.data(), value,
                static_cast<int>(unit.size()), unit.data());
  }
  std::fflush(stdout);
}

constexpr std::string_view kMeasurements[] = {"local_oneway",  "local_pingpong", "dispatch",
                                              "remote_oneway", "remote_rtt",     "http_pieced",
                                              "http_flat",     "http_concurrent"};

// The comma-separated items of --only.
std::vector<std::string_view> onlyTokens() {
  std::vector<std::string_view> tokens;
  std::string_view only = FLAGS_only;
  while (!only.empty()) {
    size_t comma = only.find(',');
    if (comma != 0) tokens.push_back(only.substr(0, comma));
    if (comma == std::string_view::npos) break;
    only.remove_prefix(comma + 1);
  }
  return tokens;
}

// True when `token` names `measurement`: a prefix of its name ("remote"
// names both remote measurements) or one of its figures' names.
bool names(std::string_view token, std::string_view measurement) {
  return measurement.starts_with(token) || token.starts_with(measurement);
}

// True when --only is empty or names `measurement`.
bool selected(std::string_view measurement) {
  std::vector<std::string_view> tokens = onlyTokens();
  if (tokens.empty()) return true;
  return std::any_of(tokens.begin(), tokens.end(),
                     [&](std::string_view token) { return names(token, measurement); });
}

void localOneway() {
  auto runtime = makeRuntime();
  Probe probe;
  auto sink = runtime->spawn<Sink>(FLAGS_batch);
  auto source =
      runtime->spawn<Source>("source", sink.pid(), FLAGS_batch, FLAGS_window, probe);
  print("local_oneway_msgs_per_s", measure(probe), "msgs/s");
}

void localPingpong() {
  auto runtime = makeRuntime();
  Probe probe;
  auto sink = runtime->spawn<Sink>(FLAGS_batch);
  auto pinger = runtime->spawn<Pinger>("pinger", sink.pid(), probe, nullptr);
  print("local_pingpong_rtts_per_s", measure(probe), "rtts/s");
}

void dispatchCalls() {
  auto runtime = makeRuntime();
  Probe probe;
  auto counter = runtime->spawn<Counter>();
  auto caller = runtime->spawn<Caller>(counter.pid(), FLAGS_dispatch_window, probe);
  print("dispatch_calls_per_s", measure(probe), "calls/s");
}

// The sink process, started with --role=sink. Exits with the bench.
class SinkProcess {
 public:
  SinkProcess(const UPID& parent, int sinkCpu) {
    std::vector<std::string> args = {
        "process_bench",
        "--role=sink",
        "--parent=" + parent.toString(),
        "--batch=" + std::to_string(FLAGS_batch),
        "--workers=" + std::to_string(FLAGS_workers),
        "--cpu=" + std::to_string(sinkCpu),
    };
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    int error = posix_spawn(&pid_, "/proc/self/exe", nullptr, nullptr, argv.data(), environ);
    CHECK_EQ(error, 0) << "cannot start the sink process: " << std::strerror(error);
  }

  // Waits for the sink to exit (it has been told to); kills it after 10 s.
  ~SinkProcess() {
    int status = 0;
    SteadyClock::time_point deadline = SteadyClock::now() + 10s;
    pid_t waited;
    while ((waited = waitpid(pid_, &status, WNOHANG)) == 0 && SteadyClock::now() < deadline) {
      std::this_thread::sleep_for(10ms);
    }
    if (waited == 0) {
      LOG(WARNING) << "the sink process did not exit in 10 s; killing it";
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      LOG(WARNING) << "the sink process ended abnormally (wait status " << status << ")";
    }
  }

 private:
  pid_t pid_ = 0;
};

void remote(bool oneway, bool rtt) {
  // Restored on return, for the measurements that follow.
  cpu_set_t everywhere;
  CHECK_EQ(sched_getaffinity(0, sizeof(everywhere), &everywhere), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE && cpus.size() < 2; ++cpu) {
    if (CPU_ISSET(cpu, &everywhere)) cpus.push_back(cpu);
  }
  bool pinned = FLAGS_pin_remote && cpus.size() == 2 && pinTo(cpus[0]);
  auto runtime = makeRuntime();
  auto greeter = runtime->spawn<Greeter>();
  Future<UPID> sinkPid = greeter->sink();
  SinkProcess process(greeter.pid(), pinned ? cpus[1] : -1);
  CHECK(sinkPid.await(30s)) << "the sink process did not greet in 30 s";
  UPID sink = sinkPid.get();

  if (oneway) {
    Probe probe;
    auto source =
        runtime->spawn<Source>("remote_source", sink, FLAGS_batch, FLAGS_window, probe);
    print("remote_oneway_msgs_per_s", measure(probe), "msgs/s");
  }
  if (rtt) {
    Probe probe;
    std::vector<int64_t> rtts;
    rtts.reserve(1 << 20);
    auto pinger = runtime->spawn<Pinger>("remote_pinger", sink, probe, &rtts);
    measure(probe);
    CHECK(!rtts.empty()) << "no round trip completed while measuring";
    std::sort(rtts.begin(), rtts.end());
    auto percentile = [&](double p) {
      size_t rank = static_cast<size_t>(std::ceil(p / 100 * static_cast<double>(rtts.size())));
      return static_cast<double>(rtts[std::clamp<size_t>(rank, 1, rtts.size()) - 1]) / 1000;
    };
    print("remote_rtt_p50_us", percentile(50), "us");
    print("remote_rtt_p99_us", percentile(99), "us");
    print("remote_rtt_max_us", static_cast<double>(rtts.back()) / 1000, "us");
    print("remote_rtt_samples", static_cast<double>(rtts.size()), "rtts");
  }
  CHECK(process::dispatch(greeter.pid(), &Greeter::dismiss, sink).await(30s));
  if (pinned) sched_setaffinity(0, sizeof(everywhere), &everywhere);
}

// Serves /state as a body of shared pieces, the way the master serves its
// cached per-entity JSON fragments, and /flat as the same bytes in one
// string (what a body rendered whole costs).
class StateServer : public Actor {
 public:
  StateServer(size_t pieces, size_t pieceBytes) : Actor("state") {
    for (size_t i = 0; i < pieces; ++i) {
      std::string piece = "{\"id\":\"task-" + std::to_string(i) + "\",\"state\":\"TASK_RUNNING\"";
      piece.resize(std::max(pieceBytes, piece.size() + 2) - 2, ' ');
      piece += "},";
      flat_ += piece;
      pieces_.push_back(std::make_shared<const std::string>(std::move(piece)));
    }
  }

  size_t bodyBytes() const { return flat_.size(); }

 protected:
  void initialize() override {
    route("/state", [this](const process::http::Request&) -> Future<process::http::Response> {
      process::http::Response response = process::http::Response::ok("");
      response.pieces = pieces_;
      return response;
    });
    route("/flat", [this](const process::http::Request&) -> Future<process::http::Response> {
      return process::http::Response::ok(flat_);
    });
  }

 private:
  std::vector<std::shared_ptr<const std::string>> pieces_;
  std::string flat_;
};

// Resident memory of this process, in bytes (0 if unknown).
size_t residentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) return std::stoul(line.substr(6)) * 1024;
  }
  return 0;
}

// `clients` keep-alive connections, each asking for `path` again as soon as
// an answer is in, read by one thread with poll(). Counts the body bytes
// each client receives while measuring.
class HttpLoad {
 public:
  struct Result {
    double seconds = 0;
    std::vector<uint64_t> bytes;  // per client, while measuring
    uint64_t responses = 0;       // completed while measuring
    size_t peakResidentBytes = 0;
  };

  HttpLoad(const process::Address& to, std::string path, uint32_t clients)
      : request_("GET " + path + " HTTP/1.1\r\nHost: bench\r\n\r\n"), clients_(clients) {
    for (Client& client : clients_) {
      client.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      PCHECK(client.fd >= 0) << "socket";
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(to.port);
      address.sin_addr.s_addr = htonl(to.ip);
      PCHECK(::connect(client.fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0)
          << "connect to " << to;
      int one = 1;
      ::setsockopt(client.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
  }
  ~HttpLoad() {
    for (Client& client : clients_) ::close(client.fd);
  }

  // Warms up for --warmup, counts for --seconds, then lets every answer in
  // flight arrive (so that the runtime has nothing queued afterwards).
  Result run() {
    for (Client& client : clients_) send(client);
    SteadyClock::time_point start = SteadyClock::now() + seconds(FLAGS_warmup);
    SteadyClock::time_point end = start + seconds(FLAGS_seconds);
    SteadyClock::time_point nextSample = SteadyClock::now();
    Result result;
    result.bytes.assign(clients_.size(), 0);
    std::vector<char> scratch(1 << 20);
    std::vector<pollfd> fds(clients_.size());
    size_t inFlight = clients_.size();
    while (inFlight > 0) {
      SteadyClock::time_point now = SteadyClock::now();
      bool measuring = now >= start && now < end;
      bool stopping = now >= end;
      if (now >= nextSample) {
        result.peakResidentBytes = std::max(result.peakResidentBytes, residentBytes());
        nextSample = now + 100ms;
      }
      for (size_t i = 0; i < clients_.size(); ++i) fds[i] = {clients_[i].fd, POLLIN, 0};
      int ready = ::poll(fds.data(), fds.size(), 1000);
      PCHECK(ready >= 0) << "poll";
      for (size_t i = 0; i < clients_.size(); ++i) {
        if (fds[i].revents == 0) continue;
        Client& client = clients_[i];
        ssize_t n = ::recv(client.fd, scratch.data(), scratch.size(), 0);
        PCHECK(n > 0) << "the runtime closed a benchmark connection";
        size_t completed = take(client, scratch.data(), static_cast<size_t>(n),
                                measuring ? &result.bytes[i] : nullptr);
        for (size_t k = 0; k < completed; ++k) {
          if (measuring) ++result.responses;
          if (stopping) {
            --inFlight;
          } else {
            send(client);
          }
        }
      }
    }
    result.seconds = std::chrono::duration<double>(end - start).count();
    return result;
  }

 private:
  struct Client {
    int fd = -1;
    std::string head;      // of the answer being read, until its blank line
    bool inBody = false;
    size_t bodyLeft = 0;
  };

  void send(Client& client) {
    PCHECK(::send(client.fd, request_.data(), request_.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(request_.size()))
        << "send";
  }

  // Consumes `n` bytes of answers; returns how many answers they completed.
  static size_t take(Client& client, const char* data, size_t n, uint64_t* bodyBytes) {
    size_t completed = 0;
    while (n > 0) {
      if (!client.inBody) {
        size_t before = client.head.size();
        client.head.append(data, std::min<size_t>(n, 4096));
        size_t blank = client.head.find("\r\n\r\n");
        if (blank == std::string::npos) {
          size_t used = client.head.size() - before;
          data += used;
          n -= used;
          continue;
        }
        size_t used = blank + 4 - before;
        data += used;
        n -= used;
        size_t length = client.head.find("Content-Length: ");
        CHECK(length != std::string::npos) << "an answer without Content-Length";
        client.bodyLeft = std::stoul(client.head.substr(length + 16));
        client.head.clear();
        client.inBody = true;
      }
      size_t body = std::min(n, client.bodyLeft);
      client.bodyLeft -= body;
      data += body;
      n -= body;
      if (bodyBytes != nullptr) *bodyBytes += body;
      if (client.bodyLeft == 0) {
        client.inBody = false;
        ++completed;
      }
    }
    return completed;
  }

  const std::string request_;
  std::vector<Client> clients_;
};

void http(bool pieced, bool flat, bool concurrent) {
  auto runtime = makeRuntime();
  auto server = runtime->spawn<StateServer>(FLAGS_http_pieces, FLAGS_http_piece_bytes);
  double megabytes = 1e6;
  auto mbPerSecond = [&](const HttpLoad::Result& result) {
    uint64_t total = 0;
    for (uint64_t bytes : result.bytes) total += bytes;
    return static_cast<double>(total) / megabytes / result.seconds;
  };
  if (pieced) {
    HttpLoad load(runtime->address(), "/state/state", 1);
    print("http_pieced_mb_per_s", mbPerSecond(load.run()), "MB/s");
  }
  if (flat) {
    HttpLoad load(runtime->address(), "/state/flat", 1);
    print("http_flat_mb_per_s", mbPerSecond(load.run()), "MB/s");
  }
  if (concurrent) {
    size_t before = residentBytes();
    HttpLoad load(runtime->address(), "/state/state", FLAGS_http_clients);
    HttpLoad::Result result = load.run();
    auto [least, most] = std::minmax_element(result.bytes.begin(), result.bytes.end());
    uint64_t total = 0;
    for (uint64_t bytes : result.bytes) total += bytes;
    double mean = static_cast<double>(total) / static_cast<double>(result.bytes.size());
    print("http_concurrent_mb_per_s", mbPerSecond(result), "MB/s");
    print("http_concurrent_responses_per_s", static_cast<double>(result.responses) / result.seconds,
          "responses/s");
    print("http_concurrent_least_client_share", mean > 0 ? static_cast<double>(*least) / mean : 0,
          "of the mean");
    print("http_concurrent_most_client_share", mean > 0 ? static_cast<double>(*most) / mean : 0,
          "of the mean");
    print("http_concurrent_peak_queued_mb",
          static_cast<double>(runtime->httpStats().peakQueuedBytes) / megabytes, "MB");
    print("http_concurrent_rss_growth_mb",
          static_cast<double>(result.peakResidentBytes - std::min(before, result.peakResidentBytes)) /
              megabytes,
          "MB");
  }
}

int runSink() {
  // Die with the bench even if it is killed before it can say quit.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (FLAGS_cpu >= 0) pinTo(FLAGS_cpu);
  auto parent = UPID::parse(FLAGS_parent);
  if (!parent) {
    std::fprintf(stderr, "--parent: %s (the bench starts the sink with its own UPID)\n",
                 parent.error().message.c_str());
    return 2;
  }
  auto runtime = makeRuntime();
  auto actor = std::make_unique<Sink>(FLAGS_batch, *parent);
  Future<Nothing> quit = actor->quit();
  auto sink = runtime->spawn(std::move(actor));
  while (!quit.await(1h)) {
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage("Measures the actor runtime; prints `name: value unit` lines.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = google::GLOG_WARNING;
  google::InitGoogleLogging(argv[0]);

  if (FLAGS_role == "sink") return runSink();
  std::string tlsDir;
  if (FLAGS_tls) {
    char dir[] = "/tmp/process-bench-tls-XXXXXX";
    std::string error;
    if (::mkdtemp(dir) == nullptr || !bench::setUpTls(dir, &error)) {
      std::fprintf(stderr, "--tls: %s\n", error.empty() ? "cannot make a directory" : error.c_str());
      return 2;
    }
    tlsDir = dir;
  }
  if (FLAGS_cpu >= 0 && !pinTo(FLAGS_cpu)) {
    std::fprintf(stderr, "--cpu=%d: no such CPU here\n", FLAGS_cpu);
    return 2;
  }
  if (FLAGS_role != "bench") {
    std::fprintf(stderr, "--role must be bench or sink, not '%s'\n", FLAGS_role.c_str());
    return 2;
  }
  if (FLAGS_batch == 0 || FLAGS_window == 0 || FLAGS_dispatch_window == 0 ||
      !(FLAGS_seconds > 0) || FLAGS_warmup < 0) {
    std::fprintf(stderr,
                 "--batch, --window and --dispatch_window must be positive, --seconds "
                 "positive and --warmup not negative\n");
    return 2;
  }

  for (std::string_view token : onlyTokens()) {
    if (std::none_of(std::begin(kMeasurements), std::end(kMeasurements),
                     [&](std::string_view measurement) { return names(token, measurement); })) {
      std::fprintf(stderr,
                   "--only: '%.*s' names no measurement; use local_oneway, local_pingpong, "
                   "dispatch, remote_oneway, remote_rtt, http_pieced, http_flat or "
                   "http_concurrent (or a prefix such as 'remote' or 'http')\n",
                   static_cast<int>(token.size()), token.data());
      return 2;
    }
  }

  if (selected("local_oneway")) localOneway();
  if (selected("local_pingpong")) localPingpong();
  if (selected("dispatch")) dispatchCalls();
  bool oneway = selected("remote_oneway");
  bool rtt = selected("remote_rtt");
  if (oneway || rtt) remote(oneway, rtt);
  bool pieced = selected("http_pieced");
  bool flat = selected("http_flat");
  bool concurrent = selected("http_concurrent");
  if (pieced || flat || concurrent) http(pieced, flat, concurrent);
  if (!tlsDir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(tlsDir, ignored);
  }
  return 0;
}
