// An epoll set its waiter can be woken from: a new eventfd is in it under
// key 0 (the keys of the other entries start at 1). For the threads that
// wait on many descriptors (the slave's reaper, the cgroups isolator's OOM
// watcher). Aborts when the kernel refuses either descriptor: that only
// happens when the process is out of them, at start-up.
#pragma once

#include <sys/epoll.h>
#include <sys/eventfd.h>

#include <glog/logging.h>

namespace mesos::internal {

struct WakeableEpoll {
  int epoll = -1;
  int wake = -1;  // eventfd: write 1 to wake the waiter, which reads it back
};

inline WakeableEpoll makeWakeableEpoll() {
  WakeableEpoll result;
  result.wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  PCHECK(result.wake >= 0) << "eventfd";
  result.epoll = ::epoll_create1(EPOLL_CLOEXEC);
  PCHECK(result.epoll >= 0) << "epoll_create1";
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = 0;
  PCHECK(::epoll_ctl(result.epoll, EPOLL_CTL_ADD, result.wake, &event) == 0) << "epoll_ctl";
  return result;
}

}  // namespace mesos::internal
