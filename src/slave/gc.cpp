#include "slave/gc.hpp"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include <glog/logging.h>

#include "common/flags.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"

namespace mesos::internal::slave {

namespace {

// A delay or an age for the log, to the second (an age the disk allows is
// a fraction of --gc_delay: its nanoseconds say nothing).
std::string formatAge(process::Duration d) {
  if (d >= std::chrono::seconds(1)) d = std::chrono::duration_cast<std::chrono::seconds>(d);
  return mesos::flags::formatDuration(d);
}

// Removes the tree at `path`. Returns the error message, empty on success
// (a path already gone is a success).
std::string removeTree(const std::string& path) {
  std::error_code error;
  std::uintmax_t count = std::filesystem::remove_all(path, error);
  if (error) {
    std::string message = "cannot remove " + path + ": " + error.message();
    LOG(WARNING) << "Garbage collector: " << message;
    return message;
  }
  if (count == 0) {
    LOG(INFO) << "Garbage collector: " << path << " was already gone";
  } else {
    LOG(INFO) << "Garbage collector: removed " << path;
  }
  return "";
}

}  // namespace

process::Duration maxAllowedAge(process::Duration gcDelay, double headroom, double diskUsage) {
  double fraction = std::clamp(1.0 - headroom - diskUsage, 0.0, 1.0);
  return std::chrono::duration_cast<process::Duration>(
      std::chrono::duration<double, process::Duration::period>(
          static_cast<double>(gcDelay.count()) * fraction));
}

Result<double> diskUsage(const std::string& path) {
  struct statvfs stats {};
  if (::statvfs(path.c_str(), &stats) != 0) {
    int code = errno;
    return Error{"cannot measure the disk usage of " + path + ": " + std::strerror(code), code};
  }
  if (stats.f_blocks == 0) {
    return Error{"cannot measure the disk usage of " + path + ": its filesystem has no blocks"};
  }
  double available = static_cast<double>(stats.f_bfree) / static_cast<double>(stats.f_blocks);
  return std::clamp(1.0 - available, 0.0, 1.0);
}

GarbageCollector::GarbageCollector() : Actor(process::generateId("gc")) {}

GarbageCollector::~GarbageCollector() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    jobs_.clear();
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

process::Future<process::Nothing> GarbageCollector::schedule(process::Duration delay,
                                                             std::string path) {
  if (auto it = paths_.find(path); it != paths_.end()) {
    cancel(it->second.timer);
    it->second.promise->fail("rescheduled");
    paths_.erase(it);
  }
  process::TimePoint now = runtime().clock().now();
  Scheduled entry;
  entry.scheduledAt = now;
  entry.generation = nextId_++;
  entry.promise = std::make_shared<process::Promise<process::Nothing>>();
  entry.timer = this->delay(delay, [this, path, generation = entry.generation] {
    due(path, generation);
  });
  process::Future<process::Nothing> future = entry.promise->future();
  paths_.emplace(path, std::move(entry));
  LOG(INFO) << "Scheduling " << path << " for removal in " << formatAge(delay);
  return future;
}

bool GarbageCollector::unschedule(std::string path) {
  auto it = paths_.find(path);
  if (it == paths_.end()) return false;
  cancel(it->second.timer);
  it->second.promise->fail("unscheduled");
  paths_.erase(it);
  LOG(INFO) << "Unscheduled " << path << " from removal";
  return true;
}

size_t GarbageCollector::prune(process::Duration maxAge) {
  size_t pruned = removeScheduledBefore(maxAge);
  if (pruned > 0) {
    LOG(INFO) << "Pruning " << pruned << " path(s) scheduled for removal at least "
              << formatAge(maxAge) << " ago";
  }
  return pruned;
}

size_t GarbageCollector::removeScheduledBefore(process::Duration maxAge) {
  process::TimePoint now = runtime().clock().now();
  std::vector<std::pair<process::TimePoint, std::string>> old;
  for (const auto& [path, entry] : paths_) {
    if (now - entry.scheduledAt >= maxAge) old.emplace_back(entry.scheduledAt, path);
  }
  // Oldest first (the worker removes in queue order); equal times by path,
  // so the order is the same from run to run.
  std::sort(old.begin(), old.end());
  for (const auto& each : old) {
    auto it = paths_.find(each.second);
    cancel(it->second.timer);
    startRemoval(it);
  }
  return old.size();
}

void GarbageCollector::watchDisk(std::string path, process::Duration interval,
                                 process::Duration gcDelay, double headroom) {
  CHECK(interval > process::Duration::zero()) << "disk watch interval must be positive";
  if (watch_) cancel(watch_->timer);
  watch_ = Watch{std::move(path), interval, gcDelay, headroom, 0, nextId_++};
  armDiskCheck();
}

void GarbageCollector::armDiskCheck() {
  watch_->timer =
      delay(watch_->interval, [this, generation = watch_->generation] { checkDisk(generation); });
}

void GarbageCollector::checkDisk(uint64_t generation) {
  if (!watch_ || watch_->generation != generation) return;  // a replaced watch's timer
  Result<double> usage = diskUsage(watch_->path);
  if (!usage) {
    LOG(WARNING) << "Garbage collector: " << usage.error().message;
  } else {
    process::Duration maxAge = maxAllowedAge(watch_->gcDelay, watch_->headroom, *usage);
    size_t pruned = removeScheduledBefore(maxAge);
    LOG(INFO) << "Disk usage of " << watch_->path << " is " << *usage * 100.0
              << "%: sandboxes may be kept " << formatAge(maxAge) << "; pruned " << pruned
              << " path(s) scheduled at least that long ago";
  }
  armDiskCheck();
}

void GarbageCollector::due(const std::string& path, uint64_t generation) {
  auto it = paths_.find(path);
  // Unscheduled, pruned or rescheduled after the timer fired.
  if (it == paths_.end() || it->second.generation != generation) return;
  startRemoval(it);
}

void GarbageCollector::startRemoval(std::map<std::string, Scheduled>::iterator it) {
  std::string path = it->first;
  uint64_t id = nextId_++;
  std::shared_ptr<process::Promise<process::Nothing>> promise = it->second.promise;
  removing_.emplace(id, promise);
  paths_.erase(it);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(Job{id, path, std::move(promise)});
    if (!worker_.joinable()) worker_ = std::thread([this] { workerLoop(); });
  }
  wake_.notify_one();
}

void GarbageCollector::removed(uint64_t id, std::string error) {
  auto it = removing_.find(id);
  if (it == removing_.end()) return;
  if (error.empty()) {
    it->second->set(process::Nothing{});
  } else {
    it->second->fail(std::move(error));
  }
  removing_.erase(it);
}

void GarbageCollector::finalize() {
  for (auto& [path, entry] : paths_) entry.promise->fail("garbage collector terminated");
  paths_.clear();
  for (auto& [id, promise] : removing_) promise->fail("garbage collector terminated");
  removing_.clear();
  if (watch_) cancel(watch_->timer);
  watch_.reset();
  std::lock_guard<std::mutex> lock(mutex_);
  jobs_.clear();
}

void GarbageCollector::workerLoop() {
  const process::Pid<GarbageCollector> pid(self());
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    std::string error = removeTree(job.path);
    // The outcome goes back through the actor, so that it has forgotten
    // the removal by the time anyone sees the future complete. With the
    // actor gone, the promise is completed here (finalize() may have
    // failed it already: then this is a no-op).
    auto posted = process::dispatch(pid, &GarbageCollector::removed, job.id, error);
    if (posted.isFailed()) {
      if (error.empty()) {
        job.promise->set(process::Nothing{});
      } else {
        job.promise->fail(error);
      }
    }
  }
}

}  // namespace mesos::internal::slave
