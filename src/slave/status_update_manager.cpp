#include "slave/status_update_manager.hpp"

#include <glog/logging.h>

#include "common/uuid.hpp"

namespace mesos::internal::slave {

namespace {

std::string describe(const StatusUpdate& update) {
  return TaskState_Name(update.status().state()) + " (uuid " + uuidToString(update.uuid()) +
         ") for task " + update.status().task_id().value() + " of framework " +
         update.framework_id().value();
}

}  // namespace

StatusUpdateManager::StatusUpdateManager(Forward forward, process::Duration minRetry,
                                         process::Duration maxRetry)
    : Actor(process::generateId("status-update-manager")),
      forward_(std::move(forward)),
      minRetry_(minRetry),
      maxRetry_(maxRetry) {}

Result<void> StatusUpdateManager::update(StatusUpdate update) {
  StreamKey key{update.framework_id().value(), update.status().task_id().value()};
  Stream& stream = streams_[key];
  if (stream.seen.count(update.uuid()) > 0) {
    LOG(WARNING) << "Ignoring duplicate status update " << describe(update);
    return {};
  }
  if (stream.terminated) {
    return Error{"status update " + describe(update) +
                 " arrived after the task's terminal update was acknowledged"};
  }
  stream.seen.insert(update.uuid());
  stream.queue.push_back(std::move(update));
  if (stream.queue.size() == 1 && !paused_) {
    stream.backoff = minRetry_;
    send(key, stream);
  }
  return {};
}

Result<bool> StatusUpdateManager::acknowledge(FrameworkID frameworkId, TaskID taskId,
                                              std::string uuid) {
  StreamKey key{frameworkId.value(), taskId.value()};
  auto it = streams_.find(key);
  if (it == streams_.end()) {
    return Error{"no status update stream for task " + taskId.value() + " of framework " +
                 frameworkId.value() + " (acknowledgement " + uuidToString(uuid) + ")"};
  }
  Stream& stream = it->second;
  if (stream.queue.empty() || stream.queue.front().uuid() != uuid) {
    bool old = stream.seen.count(uuid) > 0;
    return Error{std::string(old ? "duplicate" : "unexpected") + " acknowledgement " +
                 uuidToString(uuid) + " for task " + taskId.value() + " of framework " +
                 frameworkId.value()};
  }
  stopTimer(stream);
  bool terminal = isTerminalState(stream.queue.front().status().state());
  stream.queue.pop_front();
  if (terminal) stream.terminated = true;

  if (stream.terminated && stream.queue.empty()) {
    streams_.erase(it);
    return true;
  }
  if (!stream.queue.empty() && !paused_) {
    stream.backoff = minRetry_;
    send(key, stream);
  }
  return terminal;
}

void StatusUpdateManager::pause() {
  if (paused_) return;
  paused_ = true;
  for (auto& [key, stream] : streams_) stopTimer(stream);
}

void StatusUpdateManager::resume() {
  paused_ = false;
  for (auto& [key, stream] : streams_) {
    if (stream.queue.empty()) continue;
    stopTimer(stream);
    stream.backoff = minRetry_;
    send(key, stream);
  }
}

void StatusUpdateManager::cleanup(FrameworkID frameworkId) {
  for (auto it = streams_.begin(); it != streams_.end();) {
    if (it->first.first == frameworkId.value()) {
      stopTimer(it->second);
      it = streams_.erase(it);
    } else {
      ++it;
    }
  }
}

size_t StatusUpdateManager::pending() const {
  size_t count = 0;
  for (const auto& [key, stream] : streams_) count += stream.queue.size();
  return count;
}

void StatusUpdateManager::send(const StreamKey& key, Stream& stream) {
  StatusUpdate update = stream.queue.front();
  // The master learns the task's latest known state even while earlier
  // updates are still in flight.
  update.set_latest_state(stream.queue.back().status().state());
  forward_(update);
  std::string uuid = update.uuid();
  stream.timer = delay(stream.backoff, [this, key, uuid] { retry(key, uuid); });
}

void StatusUpdateManager::retry(const StreamKey& key, const std::string& uuid) {
  auto it = streams_.find(key);
  if (it == streams_.end()) return;
  Stream& stream = it->second;
  stream.timer.reset();
  if (paused_ || stream.queue.empty() || stream.queue.front().uuid() != uuid) return;
  VLOG(1) << "Resending unacknowledged status update " << describe(stream.queue.front());
  stream.backoff = std::min(stream.backoff * 2, maxRetry_);
  send(key, stream);
}

void StatusUpdateManager::stopTimer(Stream& stream) {
  if (stream.timer) {
    cancel(*stream.timer);
    stream.timer.reset();
  }
}

}  // namespace mesos::internal::slave
