#include "slave/reaper.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <glog/logging.h>

#include "common/epoll.hpp"
#include "common/processes.hpp"

namespace mesos::internal::slave {

namespace {

// How often children without a pidfd are polled.
constexpr int kPollIntervalMs = 100;

int openPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) return fd;
#endif
  (void)pid;
  return -1;
}

}  // namespace

bool Reaper::running(const Watch& watch) {
  if (watch.pidfd >= 0) {
    // Readable once the process has exited, whoever reaps it.
    pollfd ready{watch.pidfd, POLLIN, 0};
    return ::poll(&ready, 1, 0) == 0;
  }
  auto process = readProcess(watch.pid);
  return process && !process->zombie;
}

bool awaitExits(const std::vector<pid_t>& pids, std::chrono::milliseconds bound) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + bound;
  std::vector<pollfd> waiting;
  std::vector<pid_t> unwatchable;
  for (pid_t pid : pids) {
    int fd = openPidfd(pid);
    if (fd >= 0) {
      waiting.push_back(pollfd{fd, POLLIN, 0});
    } else if (auto process = readProcess(pid); process && !process->zombie) {
      unwatchable.push_back(pid);
    }
  }
  bool all = true;
  while (!waiting.empty() || !unwatchable.empty()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      all = false;
      break;
    }
    int timeout = unwatchable.empty() ? static_cast<int>(left.count())
                                      : std::min<int>(kPollIntervalMs, left.count());
    if (::poll(waiting.data(), waiting.size(), timeout) < 0 && errno != EINTR) {
      PLOG(ERROR) << "Cannot wait for processes to exit";
      all = false;
      break;
    }
    std::erase_if(waiting, [](const pollfd& entry) {
      if (entry.revents == 0) return false;
      ::close(entry.fd);
      return true;
    });
    std::erase_if(unwatchable, [](pid_t pid) {
      auto process = readProcess(pid);
      return !process || process->zombie;
    });
  }
  for (const pollfd& entry : waiting) ::close(entry.fd);
  return all;
}

Reaper& Reaper::instance() {
  // Never destroyed: exits may be reported while the process shuts down.
  static Reaper* reaper = new Reaper();
  return *reaper;
}

Reaper::Reaper() {
  WakeableEpoll epoll = makeWakeableEpoll();
  epollFd_ = epoll.epoll;
  wakeFd_ = epoll.wake;
  thread_ = std::thread([this] { loop(); });
  thread_.detach();
}

void Reaper::watch(pid_t pid, Callback callback) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    added_.push_back(Watch{pid, openPidfd(pid), std::move(callback)});
  }
  uint64_t one = 1;
  ssize_t n = ::write(wakeFd_, &one, sizeof(one));
  (void)n;
}

bool Reaper::check(Watch& watch) {
  int status = 0;
  pid_t result;
  do {
    result = ::waitpid(watch.pid, &status, WNOHANG);
  } while (result < 0 && errno == EINTR);
  if (result == 0) return false;
  if (result < 0) {
    if (errno == ECHILD && running(watch)) return false;  // not ours to reap: watched until it ends
    if (errno != ECHILD) {
      LOG(WARNING) << "Reaper: cannot reap process " << watch.pid << ": " << std::strerror(errno);
    }
    status = -1;
  }
  if (watch.pidfd >= 0) ::close(watch.pidfd);  // which takes it out of the epoll set
  watch.pidfd = -1;
  watch.callback(status);
  return true;
}

void Reaper::loop() {
  std::map<uint64_t, Watch> watches;  // with a pidfd, by key
  std::vector<Watch> polled;          // without one: looked at every interval
  uint64_t nextKey = 1;
  constexpr int kBatch = 64;
  epoll_event events[kBatch];
  for (;;) {
    std::vector<Watch> added;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      added.swap(added_);
    }
    for (Watch& watch : added) {
      // Looked at once at once: it may have ended before its pidfd opened.
      if (check(watch)) continue;
      if (watch.pidfd < 0) {
        polled.push_back(std::move(watch));
        continue;
      }
      uint64_t key = nextKey++;
      epoll_event event{};
      event.events = EPOLLIN;
      event.data.u64 = key;
      if (::epoll_ctl(epollFd_, EPOLL_CTL_ADD, watch.pidfd, &event) != 0) {
        PLOG(WARNING) << "Reaper: cannot wait on process " << watch.pid << "; polling it";
        ::close(watch.pidfd);
        watch.pidfd = -1;
        polled.push_back(std::move(watch));
        continue;
      }
      watches.emplace(key, std::move(watch));
    }

    int ready = ::epoll_wait(epollFd_, events, kBatch, polled.empty() ? -1 : kPollIntervalMs);
    if (ready < 0) {
      if (errno != EINTR) {
        PLOG(ERROR) << "Reaper: epoll_wait failed";
        ::usleep(kPollIntervalMs * 1000);
      }
      ready = 0;
    }
    for (int i = 0; i < ready; ++i) {
      uint64_t key = events[i].data.u64;
      if (key == 0) {
        uint64_t count = 0;
        (void)!::read(wakeFd_, &count, sizeof(count));
        continue;
      }
      // A readable pidfd: the process has exited (for a child, waitpid()
      // then reaps it without waiting).
      auto it = watches.find(key);
      if (it != watches.end() && check(it->second)) watches.erase(it);
    }
    for (size_t i = 0; i < polled.size();) {
      if (check(polled[i])) {
        polled.erase(polled.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }
}

std::string describeWaitStatus(int status) {
  if (status == -1) return "exited with an unknown status";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int signal = WTERMSIG(status);
    const char* name = ::strsignal(signal);
    return "killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

}  // namespace mesos::internal::slave
