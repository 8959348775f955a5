#include "process/clock.hpp"

#include <vector>

#include <glog/logging.h>

namespace process {

TimePoint Clock::nowLocked() const {
  return paused_ ? pausedAt_ : std::chrono::steady_clock::now() + offset_;
}

TimePoint Clock::now() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return nowLocked();
}

void Clock::pause() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (paused_) return;
  pausedAt_ = nowLocked();
  paused_ = true;
}

void Clock::resume() {
  TimePoint next;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!paused_) return;
    offset_ = pausedAt_ - std::chrono::steady_clock::now();
    paused_ = false;
    if (timers_.empty()) return;
    next = timers_.begin()->first - offset_;
    if (!armed_.empty() && *armed_.begin() <= next) return;
    armed_.insert(next);
  }
  arm_(next);
}

bool Clock::paused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return paused_;
}

void Clock::advance(Duration d) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    CHECK(paused_) << "Clock::advance() needs a paused clock";
    pausedAt_ += d;
  }
  fireDue();
}

TimerId Clock::schedule(TimePoint deadline, std::function<void()> fn) {
  TimerId id;
  bool earliest;
  TimePoint realDeadline;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = nextId_++;
    if (deadline <= nowLocked()) {
      earliest = false;
    } else {
      auto it = timers_.emplace(deadline, std::make_pair(id, std::move(fn)));
      byId_[id] = it;
      realDeadline = deadline - offset_;
      earliest = it == timers_.begin() && !paused_ &&
                 (armed_.empty() || realDeadline < *armed_.begin());
      if (earliest) armed_.insert(realDeadline);
    }
  }
  if (fn) {
    fn();  // already due
  } else if (earliest) {
    arm_(realDeadline);
  }
  return id;
}

bool Clock::cancel(TimerId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byId_.find(id);
  if (it == byId_.end()) return false;
  timers_.erase(it->second);
  byId_.erase(it);
  return true;
}

size_t Clock::armedCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return armed_.size();
}

void Clock::fireDue() {
  {
    // Whichever armed deadline woke us has passed.
    std::lock_guard<std::mutex> lock(mutex_);
    auto realNow = std::chrono::steady_clock::now();
    while (!armed_.empty() && *armed_.begin() <= realNow) armed_.erase(armed_.begin());
  }
  // Fire one at a time: a timer's callback may schedule or cancel others.
  for (;;) {
    std::function<void()> fn;
    TimePoint next;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (timers_.empty()) return;
      auto first = timers_.begin();
      if (first->first <= nowLocked()) {
        fn = std::move(first->second.second);
        byId_.erase(first->second.first);
        timers_.erase(first);
      } else if (paused_) {
        return;
      } else {
        next = first->first - offset_;
        if (!armed_.empty() && *armed_.begin() <= next) return;
        armed_.insert(next);
      }
    }
    if (!fn) {
      arm_(next);
      return;
    }
    fn();
  }
}

}  // namespace process
