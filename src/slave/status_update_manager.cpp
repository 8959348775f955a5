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

Result<void> StatusUpdateManager::update(StatusUpdate update, std::string log) {
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
  if (!log.empty() && !stream.log) {
    auto opened = checkpoint::RecordLog::open(log);
    if (!opened) return Error{"cannot checkpoint status update " + describe(update) + ": " +
                              opened.error().message};
    stream.log = std::move(opened).value();
  }
  if (stream.log) {
    StatusUpdateRecord record;
    record.set_type(StatusUpdateRecord::UPDATE);
    *record.mutable_update() = update;
    if (auto written = stream.log->append(record); !written) {
      return Error{"cannot checkpoint status update " + describe(update) + ": " +
                   written.error().message};
    }
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
  if (stream.log) {
    StatusUpdateRecord record;
    record.set_type(StatusUpdateRecord::ACK);
    record.set_uuid(uuid);
    if (auto written = stream.log->append(record); !written) {
      // Sent again after a restart: the master takes a duplicate in its stride.
      LOG(ERROR) << "Cannot checkpoint the acknowledgement of "
                 << describe(stream.queue.front()) << ": " << written.error().message;
    }
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

Result<StatusUpdateManager::Records> StatusUpdateManager::read(const std::string& log) {
  auto raw = checkpoint::readRecords(log);
  if (!raw) return raw.error();
  Records records;
  records.validBytes = raw->validBytes;
  records.torn = raw->torn;
  for (size_t i = 0; i < raw->records.size(); ++i) {
    StatusUpdateRecord record;
    bool valid = record.ParseFromString(raw->records[i]);
    if (valid && record.type() == StatusUpdateRecord::UPDATE && record.has_update()) {
      records.updates.push_back(record.update());
    } else if (valid && record.type() == StatusUpdateRecord::ACK && record.has_uuid()) {
      records.acknowledged.push_back(record.uuid());
    } else {
      return Error{log + ": record " + std::to_string(i + 1) +
                   " is not a status update or an acknowledgement"};
    }
  }
  return records;
}

Result<size_t> StatusUpdateManager::recover(std::string log, Records records) {
  if (records.updates.empty()) return size_t{0};
  const StatusUpdate& first = records.updates.front();
  StreamKey key{first.framework_id().value(), first.status().task_id().value()};
  Stream& stream = streams_[key];
  stopTimer(stream);
  stream = Stream{};
  std::set<std::string> acknowledged(records.acknowledged.begin(), records.acknowledged.end());
  for (StatusUpdate& update : records.updates) {
    if (!stream.seen.insert(update.uuid()).second) continue;
    if (acknowledged.count(update.uuid()) > 0) {
      if (isTerminalState(update.status().state())) stream.terminated = true;
      continue;
    }
    stream.queue.push_back(std::move(update));
  }
  size_t queued = stream.queue.size();
  if (stream.terminated && stream.queue.empty()) {
    streams_.erase(key);
    return queued;
  }
  auto opened = checkpoint::RecordLog::open(log, records.validBytes);
  if (!opened) return opened.error();
  stream.log = std::move(opened).value();
  if (records.torn) {
    LOG(WARNING) << log << ": left out a partial last record (the slave stopped while writing it)";
  }
  if (!paused_ && !stream.queue.empty()) {
    stream.backoff = minRetry_;
    send(key, stream);
  }
  return queued;
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
