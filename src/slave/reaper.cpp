#include "slave/reaper.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <glog/logging.h>

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

Reaper& Reaper::instance() {
  // Never destroyed: exits may be reported while the process shuts down.
  static Reaper* reaper = new Reaper();
  return *reaper;
}

Reaper::Reaper() {
  wakeFd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  PCHECK(wakeFd_ >= 0) << "eventfd";
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

void Reaper::loop() {
  std::vector<Watch> watches;
  std::vector<pollfd> fds;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (Watch& watch : added_) watches.push_back(std::move(watch));
      added_.clear();
    }

    fds.clear();
    fds.push_back(pollfd{wakeFd_, POLLIN, 0});
    bool polling = false;
    for (const Watch& watch : watches) {
      if (watch.pidfd >= 0) {
        fds.push_back(pollfd{watch.pidfd, POLLIN, 0});
      } else {
        polling = true;
      }
    }
    int ready = ::poll(fds.data(), fds.size(), polling ? kPollIntervalMs : -1);
    if (ready < 0 && errno != EINTR) {
      PLOG(ERROR) << "Reaper: poll failed";
      ::usleep(kPollIntervalMs * 1000);
    }
    if (fds[0].revents & POLLIN) {
      uint64_t count = 0;
      ssize_t n = ::read(wakeFd_, &count, sizeof(count));
      (void)n;
    }

    // Check every watched child without blocking: a pidfd being readable is
    // only a hint, and children without one are polled.
    for (size_t i = 0; i < watches.size();) {
      int status = 0;
      pid_t result = ::waitpid(watches[i].pid, &status, WNOHANG);
      if (result == 0) {
        ++i;
        continue;
      }
      if (result < 0) {
        if (errno == EINTR) continue;
        if (errno == ECHILD && running(watches[i])) {
          ++i;  // not ours to reap: watched until it ends
          continue;
        }
        if (errno != ECHILD) {
          LOG(WARNING) << "Reaper: cannot reap process " << watches[i].pid << ": "
                       << std::strerror(errno);
        }
        status = -1;
      }
      Watch done = std::move(watches[i]);
      watches.erase(watches.begin() + static_cast<std::ptrdiff_t>(i));
      if (done.pidfd >= 0) ::close(done.pidfd);
      done.callback(status);
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
