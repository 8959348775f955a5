#include "exec/health_checker.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sched.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>

#include <glog/logging.h>

#include "common/fd.hpp"
#include "exec/spawn.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"

namespace mesos::internal {

namespace {

std::string formatSeconds(process::Duration d) {
  std::ostringstream out;
  out << std::chrono::duration<double>(d).count() << "s";
  return out.str();
}

ProbeOutcome failure(const HealthCheckSpec& spec, const std::string& why) {
  return {false, HealthCheck::Type_Name(spec.type) + " health check: " + why};
}

std::string errnoText(int error) { return std::strerror(error); }

enum class Wait { kReady, kAborted, kError };

// Until `fd` has one of `events` or the check is aborted (`abortFd`
// readable). kError leaves errno set.
Wait awaitFd(int fd, short events, int abortFd) {
  pollfd fds[2] = {{fd, events, 0}, {abortFd, POLLIN, 0}};
  while (true) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return Wait::kError;
    }
    if (fds[1].revents != 0) return Wait::kAborted;
    if (fds[0].revents != 0) return Wait::kReady;
  }
}

// Until the child `pid` has exited (kReady, left unreaped) or the check is
// aborted.
Wait awaitExit(pid_t pid, int abortFd) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    Fd watched(pidfd);
    const Wait wait = awaitFd(pidfd, POLLIN, abortFd);
    if (wait != Wait::kError) return wait;
  }
  // No pidfd (kernels before 5.3): look every 10 ms.
  while (true) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid) {
      return Wait::kReady;
    }
    pollfd abort{abortFd, POLLIN, 0};
    if (::poll(&abort, 1, 10) > 0) return Wait::kAborted;
  }
}

std::string describeExit(int status) {
  if (WIFEXITED(status)) return "command exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = strsignal(WTERMSIG(status));
    return "command terminated with signal " +
           (name != nullptr ? std::string(name) : std::to_string(WTERMSIG(status)));
  }
  return "command ended with wait status " + std::to_string(status);
}

ProbeOutcome runCommand(const HealthCheckSpec& spec, const ProbeContext& context, int abortFd) {
  SpawnOptions options{context.directory, withEnvironmentOf(context.environment, spec.command),
                       /*quietStdio=*/true, /*joinFiles=*/{}};
  auto pid = spawnCommand(spec.command, options);
  if (!pid) return failure(spec, "cannot start the command: " + pid.error().message);

  const Wait wait = awaitExit(*pid, abortFd);
  // Whatever the check left running goes with it (and the command itself when
  // aborted). The leader is not reaped yet, so the group id is still its own.
  ::killpg(*pid, SIGKILL);
  int status = 0;
  pid_t reaped;
  do {
    reaped = ::waitpid(*pid, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  if (wait == Wait::kAborted) return failure(spec, "aborted");
  if (reaped != *pid) return failure(spec, "cannot reap the command: " + errnoText(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {true, ""};
  return failure(spec, describeExit(status));
}

std::string hostPort(const HealthCheckSpec& spec) {
  return (spec.ipv6 ? "[::1]:" : "127.0.0.1:") + std::to_string(spec.port);
}

// Connects to the loopback address on spec.port. Returns the connected
// socket, or -1 with `why` set (the reason alone: "Connection refused").
int connectLoopback(const HealthCheckSpec& spec, int abortFd, std::string* why) {
  sockaddr_storage address{};
  socklen_t length;
  if (spec.ipv6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&address);
    in6->sin6_family = AF_INET6;
    in6->sin6_addr = in6addr_loopback;
    in6->sin6_port = htons(spec.port);
    length = sizeof(sockaddr_in6);
  } else {
    auto* in = reinterpret_cast<sockaddr_in*>(&address);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    in->sin_port = htons(spec.port);
    length = sizeof(sockaddr_in);
  }
  const int fd = ::socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *why = "socket: " + errnoText(errno);
    return -1;
  }
  auto fail = [&](const std::string& text) {
    ::close(fd);
    *why = text;
    return -1;
  };
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), length) == 0) return fd;
  if (errno != EINPROGRESS) return fail(errnoText(errno));
  switch (awaitFd(fd, POLLOUT, abortFd)) {
    case Wait::kAborted: return fail("aborted");
    case Wait::kError: return fail(errnoText(errno));
    case Wait::kReady: break;
  }
  int error = 0;
  socklen_t size = sizeof(error);
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0) return fail(errnoText(errno));
  if (error != 0) return fail(errnoText(error));
  return fd;
}

ProbeOutcome runTcp(const HealthCheckSpec& spec, int abortFd) {
  std::string why;
  const int fd = connectLoopback(spec, abortFd, &why);
  if (fd < 0) return failure(spec, "connect to " + hostPort(spec) + ": " + why);
  ::close(fd);
  return {true, ""};
}

ProbeOutcome runHttp(const HealthCheckSpec& spec, int abortFd) {
  const std::string url = "http://" + hostPort(spec) + spec.path;
  std::string why;
  const int socket = connectLoopback(spec, abortFd, &why);
  if (socket < 0) return failure(spec, "GET " + url + ": " + why);
  Fd fd(socket);
  auto failed = [&](const std::string& text) { return failure(spec, "GET " + url + ": " + text); };

  const std::string request = "GET " + spec.path + " HTTP/1.1\r\nHost: " + hostPort(spec) +
                              "\r\nUser-Agent: mesos-executor health check\r\nAccept: */*\r\n"
                              "Connection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n >= 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return failed("send: " + errnoText(errno));
    if (Wait wait = awaitFd(fd.get(), POLLOUT, abortFd); wait != Wait::kReady) {
      return failed(wait == Wait::kAborted ? "aborted" : errnoText(errno));
    }
  }

  // The status line, then the rest of a modest answer, so that the server
  // sees an orderly close rather than a reset.
  constexpr size_t kMaxStatusLine = 8 * 1024;
  constexpr size_t kMaxDrain = 64 * 1024;
  std::string received;
  size_t drained = 0;
  bool eof = false;
  char buffer[4096];
  while (!eof && drained < kMaxDrain) {
    const ssize_t n = ::recv(fd.get(), buffer, sizeof(buffer), 0);
    if (n > 0) {
      if (received.find("\r\n") == std::string::npos) {
        received.append(buffer, static_cast<size_t>(n));
        if (received.find("\r\n") == std::string::npos && received.size() > kMaxStatusLine) {
          return failed("the answer's status line is longer than 8 KiB");
        }
      } else {
        drained += static_cast<size_t>(n);
      }
      continue;
    }
    if (n == 0) {
      eof = true;
      break;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      if (received.find("\r\n") != std::string::npos) break;  // answered, then reset
      return failed("recv: " + errnoText(errno));
    }
    if (Wait wait = awaitFd(fd.get(), POLLIN, abortFd); wait != Wait::kReady) {
      return failed(wait == Wait::kAborted ? "aborted" : errnoText(errno));
    }
  }
  if (received.empty()) return failed("the connection closed without an answer");

  const std::string line = received.substr(0, received.find("\r\n"));
  const size_t space = line.find(' ');
  int code = -1;
  if (line.rfind("HTTP/", 0) == 0 && space != std::string::npos && line.size() >= space + 4 &&
      std::all_of(line.begin() + static_cast<long>(space) + 1,
                  line.begin() + static_cast<long>(space) + 4,
                  [](char c) { return c >= '0' && c <= '9'; })) {
    code = std::stoi(line.substr(space + 1, 3));
  }
  if (code < 0) return failed("the answer is not HTTP: '" + line.substr(0, 80) + "'");

  const bool healthy =
      spec.statuses.empty()
          ? code >= 200 && code < 400
          : std::find(spec.statuses.begin(), spec.statuses.end(), static_cast<uint32_t>(code)) !=
                spec.statuses.end();
  if (healthy) return {true, ""};
  std::string expected = "200-399";
  if (!spec.statuses.empty()) {
    expected.clear();
    for (uint32_t status : spec.statuses) {
      expected += (expected.empty() ? "" : ", ") + std::to_string(status);
    }
  }
  return failed("answered " + std::to_string(code) + " (healthy: " + expected + ")");
}

ProbeOutcome probe(const HealthCheckSpec& spec, const ProbeContext& context, int abortFd) {
  switch (spec.type) {
    case HealthCheck::COMMAND: return runCommand(spec, context, abortFd);
    case HealthCheck::HTTP:
    case HealthCheck::TCP:
      if (!context.networkNamespace.empty()) {
        // This thread only (it ends with the check), before its socket.
        const int ns = ::open(context.networkNamespace.c_str(), O_RDONLY | O_CLOEXEC);
        if (ns < 0 || ::setns(ns, CLONE_NEWNET) != 0) {
          const int error = errno;
          if (ns >= 0) ::close(ns);
          return failure(spec, "cannot enter the task's network namespace " +
                                   context.networkNamespace + ": " + errnoText(error));
        }
        ::close(ns);
      }
      return spec.type == HealthCheck::HTTP ? runHttp(spec, abortFd) : runTcp(spec, abortFd);
    default: return failure(spec, "not a health check type");
  }
}

}  // namespace

struct ProbeRun::State {
  int abortFd = -1;
  std::thread thread;
};

ProbeRun::ProbeRun(const HealthCheckSpec& spec, const ProbeContext& context,
                   std::function<void(ProbeOutcome)> done)
    : state_(std::make_unique<State>()) {
  state_->abortFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  PCHECK(state_->abortFd >= 0) << "eventfd";
  state_->thread = std::thread(
      [spec, context, done = std::move(done), abortFd = state_->abortFd] {
        done(probe(spec, context, abortFd));
      });
}

ProbeRun::~ProbeRun() {
  abort();
  join();
  ::close(state_->abortFd);
}

void ProbeRun::abort() {
  const uint64_t one = 1;
  // The counter only grows; a failed write means it is already huge.
  [[maybe_unused]] ssize_t written = ::write(state_->abortFd, &one, sizeof(one));
}

void ProbeRun::join() {
  if (state_->thread.joinable()) state_->thread.join();
}

HealthChecker::HealthChecker(HealthCheckSpec spec, ProbeContext context, Callback callback)
    : Actor(process::generateId("health-checker")),
      spec_(std::move(spec)),
      context_(std::move(context)),
      callback_(std::move(callback)) {}

HealthChecker::~HealthChecker() = default;

void HealthChecker::initialize() {
  policy_ = std::make_unique<HealthPolicy>(spec_, runtime().clock().now());
  LOG(INFO) << HealthCheck::Type_Name(spec_.type) << " health check starts in "
            << formatSeconds(spec_.delay) << ", then runs every " << formatSeconds(spec_.interval)
            << (spec_.legacy ? " (a check without 'type': inferred from its fields)" : "");
  schedule(spec_.delay);
}

void HealthChecker::finalize() {
  for (auto& [id, run] : runs_) run->abort();
  runs_.clear();
}

void HealthChecker::stop() {
  if (stopped_) return;
  stopped_ = true;
  cancel(next_);
  cancel(timeout_);
  current_ = 0;
  for (auto& [id, run] : runs_) run->abort();
}

void HealthChecker::schedule(process::Duration after) {
  next_ = delay(after, [this] { runCheck(); });
}

void HealthChecker::runCheck() {
  if (stopped_) return;
  const uint64_t id = nextId_++;
  current_ = id;
  const process::Pid<HealthChecker> self(this->self());
  runs_[id] = std::make_unique<ProbeRun>(spec_, context_, [self, id](ProbeOutcome outcome) {
    process::dispatch(self, &HealthChecker::checkEnded, id, std::move(outcome));
  });
  if (spec_.timeout) timeout_ = delay(*spec_.timeout, [this, id] { checkTimedOut(id); });
}

void HealthChecker::checkEnded(uint64_t id, ProbeOutcome outcome) {
  reap(id);
  if (stopped_ || id != current_) return;  // aborted: already judged, or stopped
  current_ = 0;
  cancel(timeout_);
  judge(outcome);
}

void HealthChecker::checkTimedOut(uint64_t id) {
  if (stopped_ || id != current_) return;
  current_ = 0;
  if (auto it = runs_.find(id); it != runs_.end()) it->second->abort();
  judge(failure(spec_, "no answer within the timeout of " + formatSeconds(*spec_.timeout)));
}

void HealthChecker::judge(const ProbeOutcome& outcome) {
  checksDone_++;
  const HealthPolicy::Verdict verdict =
      outcome.healthy ? policy_->succeeded() : policy_->failed(runtime().clock().now());
  if (verdict.ignored) {
    LOG(INFO) << "Ignoring a failed health check within the grace period: " << outcome.message;
  } else if (!outcome.healthy) {
    LOG(WARNING) << "Health check failed " << policy_->consecutiveFailures()
                 << " time(s) in a row: " << outcome.message;
  } else {
    VLOG(1) << "Health check passed";
  }
  if (verdict.report || verdict.kill) {
    callback_(Event{outcome.healthy, verdict.report.has_value(), verdict.kill,
                    policy_->consecutiveFailures(), outcome.message});
  }
  if (verdict.kill) {
    stop();
    return;
  }
  schedule(spec_.interval);
}

void HealthChecker::reap(uint64_t id) {
  auto it = runs_.find(id);
  if (it == runs_.end()) return;
  it->second->join();
  runs_.erase(it);
}

}  // namespace mesos::internal
