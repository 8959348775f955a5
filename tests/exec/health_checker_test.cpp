// The health checker with real probes: COMMAND checks are real processes,
// HTTP and TCP checks talk to sockets this test opens on the loopback
// interface. The HealthChecker actor runs on a test runtime, with its clock
// paused where the test decides when delays and timeouts pass, on the real
// clock (small intervals, bounded waits) otherwise.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "exec/health_checker.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using internal::HealthChecker;
using internal::HealthCheckSpec;
using internal::ProbeContext;
using internal::ProbeOutcome;
using internal::ProbeRun;

constexpr auto kBound = 30s;  // real-time bound on any one wait

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// A fresh directory, removed at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "health-check-test-XXXXXX").string();
    CHECK(::mkdtemp(pattern.data()) != nullptr);
    path_ = std::filesystem::canonical(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A listening TCP socket on 127.0.0.1 (connections complete in its backlog).
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_GE(fd_, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK_EQ(0, ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)));
    CHECK_EQ(0, ::listen(fd_, 64));
    socklen_t length = sizeof(address);
    CHECK_EQ(0, ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length));
    port_ = ntohs(address.sin_port);
  }
  ~Listener() { close(); }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd() const { return fd_; }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// A port nothing listens on (one the kernel just gave and took back).
uint16_t closedPort() {
  Listener listener;
  return listener.port();
}

// A tiny HTTP server on its own thread: records each request line and
// answers with the status set, or, when silent, never answers.
class TinyHttpServer {
 public:
  TinyHttpServer() {
    stop_ = ::eventfd(0, EFD_CLOEXEC);
    CHECK_GE(stop_, 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~TinyHttpServer() {
    const uint64_t one = 1;
    CHECK_EQ(static_cast<ssize_t>(sizeof(one)), ::write(stop_, &one, sizeof(one)));
    thread_.join();
    for (int fd : held_) ::close(fd);
    ::close(stop_);
  }

  uint16_t port() const { return listener_.port(); }
  void setStatus(int status) { status_ = status; }
  void setSilent(bool silent) { silent_ = silent; }

  // Waits until `n` requests have come; returns their request lines.
  std::vector<std::string> awaitRequests(size_t n) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, kBound, [&] { return requests_.size() >= n; });
    return requests_;
  }

 private:
  // Polls `fd` and the stop descriptor; false once stopped.
  bool await(int fd) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {stop_, POLLIN, 0}};
    while (::poll(fds, 2, -1) < 0) {
    }
    return fds[1].revents == 0;
  }

  void serve() {
    while (await(listener_.fd())) {
      const int connection = ::accept4(listener_.fd(), nullptr, nullptr, SOCK_CLOEXEC);
      if (connection < 0) continue;
      std::string request;
      char buffer[1024];
      while (request.find("\r\n\r\n") == std::string::npos && await(connection)) {
        const ssize_t n = ::recv(connection, buffer, sizeof(buffer), 0);
        if (n <= 0) break;
        request.append(buffer, static_cast<size_t>(n));
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(request.substr(0, request.find("\r\n")));
      }
      changed_.notify_all();
      if (silent_) {
        held_.push_back(connection);
        continue;
      }
      const std::string response = "HTTP/1.1 " + std::to_string(status_.load()) +
                                   " Whatever\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
      CHECK_EQ(static_cast<ssize_t>(response.size()),
               ::send(connection, response.data(), response.size(), MSG_NOSIGNAL));
      ::close(connection);
    }
  }

  Listener listener_;
  int stop_ = -1;
  std::atomic<int> status_{200};
  std::atomic<bool> silent_{false};
  std::vector<int> held_;  // connections left unanswered (server thread only)
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

HealthCheckSpec commandSpec(const std::string& command) {
  HealthCheckSpec spec;
  spec.type = HealthCheck::COMMAND;
  spec.command.set_value(command);
  return spec;
}

HealthCheckSpec httpSpec(uint16_t port, const std::string& path = "/") {
  HealthCheckSpec spec;
  spec.type = HealthCheck::HTTP;
  spec.port = port;
  spec.path = path;
  return spec;
}

HealthCheckSpec tcpSpec(uint16_t port) {
  HealthCheckSpec spec;
  spec.type = HealthCheck::TCP;
  spec.port = port;
  return spec;
}

ProbeContext contextIn(const std::filesystem::path& directory) {
  ProbeContext context;
  context.directory = directory.string();
  if (const char* path = std::getenv("PATH")) context.environment["PATH"] = path;
  return context;
}

// Runs one probe to its end.
ProbeOutcome probe(const HealthCheckSpec& spec, const ProbeContext& context = contextIn("/")) {
  auto outcome = std::make_shared<process::Promise<ProbeOutcome>>();
  ProbeRun run(spec, context, [outcome](ProbeOutcome result) { outcome->set(std::move(result)); });
  if (!outcome->future().await(kBound)) {
    ADD_FAILURE() << "the probe did not end within " << kBound.count() << "s";
    return {false, "no outcome"};
  }
  return outcome->future().get();
}

// Waits (bounded) until process `pid`, not necessarily our child, has ended.
bool awaitGone(pid_t pid) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return errno == ESRCH;
  pollfd exited{pidfd, POLLIN, 0};
  const bool gone = ::poll(&exited, 1, static_cast<int>(kBound / 1ms)) == 1;
  ::close(pidfd);
  return gone;
}

// A FIFO in `dir` the test reads one line from once a command writes it.
class Fifo {
 public:
  explicit Fifo(const std::filesystem::path& path) : path_(path) {
    CHECK_EQ(0, ::mkfifo(path.c_str(), 0600));
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
    CHECK_GE(fd_, 0);
  }
  ~Fifo() { ::close(fd_); }
  // The first line written, or "" after the bound.
  std::string readLine() {
    std::string line;
    pollfd readable{fd_, POLLIN, 0};
    while (line.find('\n') == std::string::npos &&
           ::poll(&readable, 1, static_cast<int>(kBound / 1ms)) == 1) {
      char buffer[64];
      const ssize_t n = ::read(fd_, buffer, sizeof(buffer));
      if (n <= 0) break;
      line.append(buffer, static_cast<size_t>(n));
    }
    return line.substr(0, line.find('\n'));
  }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

TEST(ProbeTest, CommandRunsInTheDirectoryWithTheTasksAndItsOwnEnvironment) {
  TempDir dir;
  ProbeContext context = contextIn(dir.path());
  context.environment["FROM_TASK"] = "task";
  context.environment["OVERRIDDEN"] = "task";
  HealthCheckSpec spec = commandSpec("test \"$(pwd)\" = '" + dir.path().string() +
                                     "' && test \"$FROM_TASK\" = task && "
                                     "test \"$OVERRIDDEN\" = check");
  auto* variable = spec.command.mutable_environment()->add_variables();
  variable->set_name("OVERRIDDEN");
  variable->set_value("check");
  ProbeOutcome outcome = probe(spec, context);
  EXPECT_TRUE(outcome.healthy) << outcome.message;
}

TEST(ProbeTest, NonZeroExitIsUnhealthyWithTheStatus) {
  ProbeOutcome outcome = probe(commandSpec("exit 3"));
  EXPECT_FALSE(outcome.healthy);
  EXPECT_EQ("COMMAND health check: command exited with status 3", outcome.message);
}

TEST(ProbeTest, NonShellCommandRunsTheExecutable) {
  HealthCheckSpec spec = commandSpec("test");
  spec.command.set_shell(false);
  spec.command.add_arguments("test");
  spec.command.add_arguments("-d");
  spec.command.add_arguments("/");
  EXPECT_TRUE(probe(spec).healthy);
  spec.command.set_arguments(2, "/no/such/directory");
  EXPECT_FALSE(probe(spec).healthy);

  HealthCheckSpec missing = commandSpec("no-such-program-anywhere");
  missing.command.set_shell(false);
  ProbeOutcome outcome = probe(missing);
  EXPECT_FALSE(outcome.healthy);
  EXPECT_NE(std::string::npos, outcome.message.find("no-such-program-anywhere"))
      << outcome.message;
}

TEST(ProbeTest, AbortKillsTheChecksWholeProcessGroup) {
  TempDir dir;
  Fifo ready(dir.path() / "ready");
  auto outcome = std::make_shared<process::Promise<ProbeOutcome>>();
  ProbeRun run(commandSpec("sleep 100 & echo $! > ready; wait"), contextIn(dir.path()),
               [outcome](ProbeOutcome result) { outcome->set(std::move(result)); });
  const std::string child = ready.readLine();
  ASSERT_FALSE(child.empty()) << "the check did not start";

  run.abort();
  ASSERT_TRUE(outcome->future().await(kBound));
  EXPECT_FALSE(outcome->future().get().healthy);
  EXPECT_EQ("COMMAND health check: aborted", outcome->future().get().message);
  EXPECT_TRUE(awaitGone(std::stoi(child))) << "the check's child outlived the abort";
}

TEST(ProbeTest, HttpTwoAndThreeHundredsAreHealthy) {
  TinyHttpServer server;
  ProbeOutcome ok = probe(httpSpec(server.port(), "/health?full=1"));
  EXPECT_TRUE(ok.healthy) << ok.message;
  auto requests = server.awaitRequests(1);
  ASSERT_EQ(1u, requests.size());
  EXPECT_EQ("GET /health?full=1 HTTP/1.1", requests[0]);

  server.setStatus(302);
  EXPECT_TRUE(probe(httpSpec(server.port())).healthy);
  server.setStatus(399);
  EXPECT_TRUE(probe(httpSpec(server.port())).healthy);

  server.setStatus(503);
  ProbeOutcome unavailable = probe(httpSpec(server.port(), "/health"));
  EXPECT_FALSE(unavailable.healthy);
  EXPECT_EQ("HTTP health check: GET http://127.0.0.1:" + std::to_string(server.port()) +
                "/health: answered 503 (healthy: 200-399)",
            unavailable.message);
  server.setStatus(404);
  EXPECT_FALSE(probe(httpSpec(server.port())).healthy);
  server.setStatus(199);
  EXPECT_FALSE(probe(httpSpec(server.port())).healthy);
}

TEST(ProbeTest, LegacyHttpStatusesListTheHealthyOnes) {
  TinyHttpServer server;
  HealthCheckSpec spec = httpSpec(server.port());
  spec.statuses = {204, 418};
  server.setStatus(200);
  ProbeOutcome ok = probe(spec);
  EXPECT_FALSE(ok.healthy);
  EXPECT_NE(std::string::npos, ok.message.find("answered 200 (healthy: 204, 418)")) << ok.message;
  server.setStatus(418);
  EXPECT_TRUE(probe(spec).healthy);
}

TEST(ProbeTest, HttpToAClosedPortIsUnhealthy) {
  ProbeOutcome outcome = probe(httpSpec(closedPort()));
  EXPECT_FALSE(outcome.healthy);
  EXPECT_NE(std::string::npos, outcome.message.find("Connection refused")) << outcome.message;
}

TEST(ProbeTest, AbortEndsAnHttpCheckTheServerNeverAnswers) {
  TinyHttpServer server;
  server.setSilent(true);
  auto outcome = std::make_shared<process::Promise<ProbeOutcome>>();
  ProbeRun run(httpSpec(server.port()), contextIn("/"),
               [outcome](ProbeOutcome result) { outcome->set(std::move(result)); });
  ASSERT_EQ(1u, server.awaitRequests(1).size());
  EXPECT_TRUE(outcome->future().isPending()) << "no answer yet, so no outcome";
  run.abort();
  ASSERT_TRUE(outcome->future().await(kBound));
  EXPECT_FALSE(outcome->future().get().healthy);
  EXPECT_NE(std::string::npos, outcome->future().get().message.find("aborted"));
}

TEST(ProbeTest, TcpHealthyWhileSomethingListens) {
  Listener listener;
  const uint16_t port = listener.port();
  ProbeOutcome open = probe(tcpSpec(port));
  EXPECT_TRUE(open.healthy) << open.message;
  listener.close();
  ProbeOutcome closed = probe(tcpSpec(port));
  EXPECT_FALSE(closed.healthy);
  EXPECT_EQ("TCP health check: connect to 127.0.0.1:" + std::to_string(port) +
                ": Connection refused",
            closed.message);
}

// The checker's events, for a test to await.
class Events {
 public:
  HealthChecker::Callback callback() {
    return [this](const HealthChecker::Event& event) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        events_.push_back(event);
      }
      changed_.notify_all();
    };
  }

  // The next event not yet taken, within the bound.
  std::optional<HealthChecker::Event> next() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!changed_.wait_for(lock, kBound, [&] { return taken_ < events_.size(); })) {
      return std::nullopt;
    }
    return events_[taken_++];
  }

  size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<HealthChecker::Event> events_;
  size_t taken_ = 0;
};

// A check that passes while the count of its runs, kept in `count` in its
// directory, satisfies the shell test `condition` ("-le 2": the first two).
std::string countingCheck(const std::string& condition) {
  return "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n " + condition +
         " ]";
}

class HealthCheckerTest : public ::testing::Test {
 protected:
  void start(HealthCheckSpec spec, bool pauseClock = false) {
    process::Runtime::Options options;
    options.pauseClock = pauseClock;
    runtime_ = std::move(process::Runtime::create(options)).value();
    checker_ = runtime_->spawn<HealthChecker>(std::move(spec), contextIn(dir_.path()),
                                              events_.callback());
  }

  void TearDown() override {
    checker_.reset();
    runtime_.reset();
  }

  // Real-clock timing: quick checks, no grace.
  static HealthCheckSpec quick(HealthCheckSpec spec) {
    spec.delay = 0s;
    spec.interval = 50ms;
    spec.timeout = 10s;
    spec.gracePeriod = 0s;
    spec.consecutiveFailures = 1;
    return spec;
  }

  std::string count() const { return readFile(dir_.path() / "count"); }

  uint64_t checksDone() {
    auto done = process::dispatch(checker_.pid(), &HealthChecker::checksDone);
    EXPECT_TRUE(done.await(kBound));
    return done.isReady() ? done.get() : 0;
  }

  TempDir dir_;
  Events events_;
  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<HealthChecker> checker_;
};

TEST_F(HealthCheckerTest, ReportsChangesOnlyAndAsksForTheKillAfterFailuresInARow) {
  HealthCheckSpec spec = quick(commandSpec(countingCheck("-le 2")));
  spec.consecutiveFailures = 2;
  start(spec);

  auto healthy = events_.next();
  ASSERT_TRUE(healthy);
  EXPECT_TRUE(healthy->healthy);
  EXPECT_TRUE(healthy->changed);
  EXPECT_FALSE(healthy->kill);

  auto unhealthy = events_.next();
  ASSERT_TRUE(unhealthy);
  EXPECT_FALSE(unhealthy->healthy);
  EXPECT_TRUE(unhealthy->changed);
  EXPECT_FALSE(unhealthy->kill);
  EXPECT_EQ(1u, unhealthy->consecutiveFailures);
  EXPECT_EQ("COMMAND health check: command exited with status 1", unhealthy->message);

  auto kill = events_.next();
  ASSERT_TRUE(kill);
  EXPECT_FALSE(kill->healthy);
  EXPECT_FALSE(kill->changed) << "already reported unhealthy";
  EXPECT_TRUE(kill->kill);
  EXPECT_EQ(2u, kill->consecutiveFailures);
  // Two passes (one report), two failures, and nothing after the kill.
  runtime_->settle();
  EXPECT_EQ("4\n", count());
  EXPECT_EQ(4u, checksDone());
  EXPECT_EQ(3u, events_.size());
}

TEST_F(HealthCheckerTest, FailuresWithinTheGracePeriodAreNotReported) {
  HealthCheckSpec spec = quick(commandSpec(countingCheck("-ge 3")));
  spec.gracePeriod = 1h;
  start(spec);
  auto first = events_.next();
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->healthy) << "two failures within the grace period went unreported";
  EXPECT_EQ("3\n", count());
}

TEST_F(HealthCheckerTest, GracePeriodNoLongerAppliesOnceHealthy) {
  HealthCheckSpec spec = quick(commandSpec(countingCheck("-eq 1")));
  spec.gracePeriod = 1h;
  start(spec);
  auto healthy = events_.next();
  ASSERT_TRUE(healthy);
  EXPECT_TRUE(healthy->healthy);
  auto unhealthy = events_.next();
  ASSERT_TRUE(unhealthy);
  EXPECT_FALSE(unhealthy->healthy);
  EXPECT_TRUE(unhealthy->kill);
}

TEST_F(HealthCheckerTest, FailuresCountOnceTheGracePeriodIsOver) {
  HealthCheckSpec spec = quick(commandSpec("false"));
  spec.gracePeriod = 300ms;
  const auto started = std::chrono::steady_clock::now();
  start(spec);
  auto unhealthy = events_.next();
  ASSERT_TRUE(unhealthy);
  EXPECT_FALSE(unhealthy->healthy);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 300ms);
}

TEST_F(HealthCheckerTest, FirstCheckWaitsForTheDelay) {
  HealthCheckSpec spec = commandSpec(countingCheck("-ge 1"));
  spec.delay = 15s;
  spec.interval = 10s;
  spec.gracePeriod = 0s;
  start(spec, /*pauseClock=*/true);
  runtime_->settle();
  runtime_->clock().advance(14s);
  runtime_->settle();
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "count")) << "a check ran before the delay";

  runtime_->clock().advance(1s);
  auto healthy = events_.next();
  ASSERT_TRUE(healthy);
  EXPECT_TRUE(healthy->healthy);
  runtime_->settle();
  EXPECT_EQ("1\n", count());

  // The next one comes an interval after the first ended.
  runtime_->clock().advance(9s);
  runtime_->settle();
  EXPECT_EQ("1\n", count());
  EXPECT_EQ(1u, checksDone());
}

TEST_F(HealthCheckerTest, ACheckThatOutlivesItsTimeoutFailsAndIsKilled) {
  Fifo ready(dir_.path() / "ready");
  HealthCheckSpec spec = commandSpec("sleep 100 & echo $! > ready; wait");
  spec.delay = 0s;
  spec.interval = 10s;
  spec.timeout = 5s;
  spec.gracePeriod = 0s;
  spec.consecutiveFailures = 1;
  start(spec, /*pauseClock=*/true);
  const std::string child = ready.readLine();
  ASSERT_FALSE(child.empty()) << "the check did not start";
  runtime_->settle();  // its timeout is set

  runtime_->clock().advance(5s);
  auto timedOut = events_.next();
  ASSERT_TRUE(timedOut);
  EXPECT_FALSE(timedOut->healthy);
  EXPECT_TRUE(timedOut->kill);
  EXPECT_EQ("COMMAND health check: no answer within the timeout of 5s", timedOut->message);
  EXPECT_TRUE(awaitGone(std::stoi(child))) << "the timed-out check was not killed";
}

TEST_F(HealthCheckerTest, TcpCheckFollowsTheListener) {
  auto listener = std::make_unique<Listener>();
  HealthCheckSpec spec = quick(tcpSpec(listener->port()));
  start(spec);
  auto healthy = events_.next();
  ASSERT_TRUE(healthy);
  EXPECT_TRUE(healthy->healthy);
  listener.reset();
  auto unhealthy = events_.next();
  ASSERT_TRUE(unhealthy);
  EXPECT_FALSE(unhealthy->healthy);
  EXPECT_NE(std::string::npos, unhealthy->message.find("Connection refused"))
      << unhealthy->message;
}

TEST_F(HealthCheckerTest, StopAbortsTheCheckUnderWayAndEndsChecking) {
  Fifo ready(dir_.path() / "ready");
  HealthCheckSpec spec = quick(commandSpec("sleep 100 & echo $! > ready; wait"));
  spec.timeout.reset();
  start(spec);
  const std::string child = ready.readLine();
  ASSERT_FALSE(child.empty()) << "the check did not start";
  process::dispatch(checker_.pid(), &HealthChecker::stop).await(kBound);
  EXPECT_TRUE(awaitGone(std::stoi(child))) << "stop() left the check running";
  runtime_->settle();
  EXPECT_EQ(0u, events_.size());
  EXPECT_EQ(0u, checksDone());
}

}  // namespace
}  // namespace mesos::test
