// GarbageCollector: removes the sandboxes of terminated executors and
// frameworks some time after they end (--gc_delay), and sooner when the
// disk fills up (--gc_disk_headroom), as Apache Mesos's slave does.
//
// A path is scheduled for removal after a delay; it can be unscheduled (a
// framework launches into it again) or rescheduled (the latest schedule
// wins). On disk pressure, prune(maxAge) removes at once every path that
// was scheduled at least `maxAge` ago, oldest first; watchDisk() does that
// every interval with the age maxAllowedAge() allows.
//
// Removing a tree blocks on the disk for as long as the tree is big: it
// runs on this collector's own thread, one tree at a time in the order they
// fell due, never on an actor. Timers use the runtime's clock.
//
// All methods run as events of this actor: call them by dispatch().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "mesos/result.hpp"
#include "process/actor.hpp"
#include "process/future.hpp"

namespace mesos::internal::slave {

// How long a sandbox may be kept given how full its disk is:
// gcDelay * max(0, 1 - headroom - diskUsage), never more than gcDelay.
// `headroom` and `diskUsage` are fractions of the disk (0.0 to 1.0); a
// disk fuller than 1 - headroom allows no age at all (zero).
process::Duration maxAllowedAge(process::Duration gcDelay, double headroom, double diskUsage);

// The used fraction (0.0 to 1.0) of the filesystem holding `path`: 1 -
// free blocks / all blocks (as Apache's slave measures it; blocks reserved
// for root count as free: the slave runs as root). Blocks on statvfs():
// cheap, but it is a system call on a possibly remote filesystem. Fails
// naming the path and the cause (errno text) when it cannot be measured,
// or when the filesystem reports no blocks at all (/proc).
Result<double> diskUsage(const std::string& path);

class GarbageCollector : public process::Actor {
 public:
  GarbageCollector();
  // Waits for the removal in progress, if any, to finish (its thread is
  // joined); removals queued behind it are not made. REQUIRES: not called
  // on an actor of this runtime's (Spawned::reset() from the owner does it
  // after this actor terminated).
  ~GarbageCollector() override;

  // Removes the directory tree `path` (or file) `delay` from now. The
  // future is ready once it was removed, or was already gone; it fails
  // with "cannot remove <path>: <errno text>" (also logged) when removal
  // fails, with "unscheduled" when unschedule() took it back, with
  // "rescheduled" when a later schedule() of the same path replaced this
  // one, and with "garbage collector terminated" when this actor ended
  // first. A path being removed right now is not affected by a new
  // schedule(): that one removes it again later (a no-op if it stays gone).
  process::Future<process::Nothing> schedule(process::Duration delay, std::string path);

  // Takes `path` off the schedule, keeping it on disk. Returns whether it
  // was scheduled and not yet being removed (false: not scheduled, or too
  // late); its future then fails with "unscheduled".
  bool unschedule(std::string path);

  // Starts removing, now, every scheduled path that was scheduled at least
  // `maxAge` ago (schedule()'s call, not its delay, counts), oldest first.
  // Returns how many it started to remove; their futures complete as
  // schedule() says.
  size_t prune(process::Duration maxAge);

  // Every `interval` from now: measures diskUsage(path) and prunes with
  // maxAllowedAge(gcDelay, headroom, usage), logging one INFO line (the
  // usage, the age allowed, how many paths were pruned). A measurement
  // that fails is logged as a warning and the watch goes on. A second call
  // replaces the first watch. REQUIRES: interval > 0.
  void watchDisk(std::string path, process::Duration interval, process::Duration gcDelay,
                 double headroom);

  // How many paths are scheduled and not yet being removed (for tests and
  // metrics).
  size_t scheduled() const { return paths_.size(); }

 protected:
  void finalize() override;

 private:
  struct Scheduled {
    process::TimePoint scheduledAt;  // when schedule() was called
    process::TimerId timer = 0;
    // Tells this schedule's timer from a replaced one's that fired before
    // it could be cancelled.
    uint64_t generation = 0;
    std::shared_ptr<process::Promise<process::Nothing>> promise;
  };

  // A removal handed to the worker thread. The worker completes `promise`
  // itself only when it cannot hand the outcome back to this actor (gone).
  struct Job {
    uint64_t id;
    std::string path;
    std::shared_ptr<process::Promise<process::Nothing>> promise;
  };

  struct Watch {
    std::string path;
    process::Duration interval{};
    process::Duration gcDelay{};
    double headroom = 0.0;
    process::TimerId timer = 0;
    uint64_t generation = 0;
  };

  // prune() without its log line (the disk watch logs its own).
  size_t removeScheduledBefore(process::Duration maxAge);
  // The timer of `path`'s schedule `generation` fired.
  void due(const std::string& path, uint64_t generation);
  // Takes the scheduled `path` off the schedule and queues its removal.
  void startRemoval(std::map<std::string, Scheduled>::iterator it);
  // The worker thread finished removal `id`: `error` is empty on success.
  void removed(uint64_t id, std::string error);
  void checkDisk(uint64_t generation);
  void armDiskCheck();

  void workerLoop();

  std::map<std::string, Scheduled> paths_;
  // Removals queued or in progress, by job id: their promises, completed
  // by removed() (or by finalize() if this actor ends first).
  std::map<uint64_t, std::shared_ptr<process::Promise<process::Nothing>>> removing_;
  uint64_t nextId_ = 1;  // numbers generations and jobs
  std::optional<Watch> watch_;

  // Shared with the worker thread (started by the first removal).
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace mesos::internal::slave
