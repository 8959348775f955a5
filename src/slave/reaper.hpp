// Reaper: one thread per OS process that waits for watched child processes
// to exit and reports each exit once. Actors never block in waitpid(); they
// ask the reaper to watch a pid and get the exit as an event (the callback
// should only dispatch to an actor).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <mutex>
#include <thread>
#include <vector>

namespace mesos::internal::slave {

class Reaper {
 public:
  // Called once, on the reaper's thread, with the wait status of the exited
  // child (as waitpid() gives it), or -1 if it could not be reaped (it was
  // not our child, or someone else reaped it).
  using Callback = std::function<void(int status)>;

  // The OS process's reaper, started on first use and never destroyed.
  static Reaper& instance();

  // Starts watching `pid`, a child of this process. Thread-safe. The callback
  // must be quick (hand the exit to an actor).
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

  std::mutex mutex_;
  std::vector<Watch> added_;  // handed from watch() to the thread
  int wakeFd_ = -1;           // eventfd that interrupts the thread's poll()
  std::thread thread_;
};

// "exited with status 3", "killed by signal 9 (Killed)", for messages.
std::string describeWaitStatus(int status);

}  // namespace mesos::internal::slave
