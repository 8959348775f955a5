// The runtime's clock and timers. Every timer in the system goes through it,
// so that tests can pause time, advance it, and see exactly the timers that
// fall due fire.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

namespace process {

using Duration = std::chrono::steady_clock::duration;
using TimePoint = std::chrono::steady_clock::time_point;
using TimerId = uint64_t;

class Clock {
 public:
  // `arm(deadline)` asks the owner to call fireDue() at or after `deadline`
  // of real time; it may be called from any thread.
  explicit Clock(std::function<void(TimePoint)> arm) : arm_(std::move(arm)) {}

  // The current time: real monotonic time, or the frozen time while paused.
  TimePoint now() const;

  // Freezes time. Timers fire only when advance() moves past their deadline.
  void pause();
  // Lets time run again from where it stands (it does not jump to real time).
  void resume();
  bool paused() const;
  // REQUIRES: paused(). Moves time forward by `d` and fires every timer whose
  // deadline has come, in deadline order, on the calling thread.
  void advance(Duration d);

  // Calls `fn` once, on an unspecified thread, when now() reaches
  // `deadline` (at once, on the calling thread, if it has). `fn` must be
  // quick: it should only hand work to an actor or an I/O loop.
  TimerId schedule(TimePoint deadline, std::function<void()> fn);
  // Returns true when the timer had not fired yet (it now never will).
  bool cancel(TimerId id);

  // Fires due timers; the owner calls it when an armed deadline passes.
  void fireDue();

  // Real-time deadlines for which arm_() was called and has not fired yet
  // (for tests of the clock).
  size_t armedCount() const;

 private:
  TimePoint nowLocked() const;

  std::function<void(TimePoint)> arm_;
  mutable std::mutex mutex_;
  bool paused_ = false;
  TimePoint pausedAt_{};
  Duration offset_{};  // added to real time while running (time spent paused)
  uint64_t nextId_ = 1;
  std::multimap<TimePoint, std::pair<TimerId, std::function<void()>>> timers_;
  std::unordered_map<TimerId, decltype(timers_)::iterator> byId_;
  // Real deadlines asked of arm_() and not yet reached: a new timer needs an
  // arm_() only when it is due before all of them (so a stream of later or
  // cancelled timers costs no real timer each).
  std::multiset<TimePoint> armed_;
};

}  // namespace process
