// Reaper: one thread per OS process that waits for watched child processes
// to exit and reports each exit once. Actors never block in waitpid(); they
// ask the reaper to watch a pid and get the exit as an event (the callback
// should only dispatch to an actor).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mesos::internal::slave {

class Reaper {
 public:
  // Called once, on the reaper's thread, with the wait status of the exited
  // child (as waitpid() gives it), or -1 when the status is unknown: the
  // process was not our child (an executor a restarted slave took over) or
  // someone else reaped it.
  using Callback = std::function<void(int status)>;

  // The OS process's reaper, started on first use and never destroyed.
  static Reaper& instance();

  // Starts watching `pid`: a child of this process, or any process (one that
  // is not a child is watched until it exits: through a pidfd, so that a
  // reused pid is not mistaken for it; else by polling /proc). Thread-safe.
  // The callback must be quick (hand the exit to an actor).
  void watch(pid_t pid, Callback callback);

  Reaper(const Reaper&) = delete;
  Reaper& operator=(const Reaper&) = delete;

 private:
  struct Watch {
    pid_t pid;
    int pidfd;  // -1 when pidfd_open is unavailable: polled instead
    Callback callback;
  };

  Reaper();
  void loop();
  // Whether the watched process ended; if so, reports it (once).
  static bool check(Watch& watch);
  // Whether a process that is not our child still runs.
  static bool running(const Watch& watch);

  std::mutex mutex_;
  std::vector<Watch> added_;  // handed from watch() to the thread
  int wakeFd_ = -1;           // eventfd that wakes the thread
  // The thread waits on the pidfds in here (key: the watch's number in
  // the thread's own map) and on wakeFd_ (key 0): an exit costs one
  // waitpid(), however many processes are watched.
  int epollFd_ = -1;
  std::thread thread_;
};

// Blocks the calling thread until every process of `pids` has exited
// (whoever reaps it), or `bound` has passed: on their pidfds, or, where the
// kernel has none, by looking every 100 ms. Whether they all exited. For a
// slave that is stopping, which has nothing else to do meanwhile.
bool awaitExits(const std::vector<pid_t>& pids, std::chrono::milliseconds bound);

// "exited with status 3", "killed by signal 9 (Killed)", for messages.
std::string describeWaitStatus(int status);

}  // namespace mesos::internal::slave
