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

StatusUpdateManager::StatusUpdateManager(Forward forward, Checkpointed checkpointed,
                                         process::Duration minRetry, process::Duration maxRetry)
    : Actor(process::generateId("status-update-manager")),
      forward_(std::move(forward)),
      checkpointed_(std::move(checkpointed)),
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
  if (!log.empty() && stream.log.empty()) {
    stream.log = log;
    logs_[log].released = false;
  }
  if (!stream.log.empty()) {
    StatusUpdateRecord record;
    record.set_type(StatusUpdateRecord::UPDATE);
    *record.mutable_update() = update;
    append(stream.log, std::move(record));
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
  if (!stream.log.empty()) {
    StatusUpdateRecord record;
    record.set_type(StatusUpdateRecord::ACK);
    record.set_uuid(uuid);
    append(stream.log, std::move(record));
  }
  stopTimer(stream);
  bool terminal = isTerminalState(stream.queue.front().status().state());
  stream.queue.pop_front();
  if (terminal) stream.terminated = true;

  if (stream.terminated && stream.queue.empty()) {
    release(stream.log);
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
  if (records.torn) {
    LOG(WARNING) << log << ": cutting off a partial last record after byte "
                 << records.validBytes << " (the slave stopped while writing it)";
  }
  stream.log = log;
  Log& entry = logs_[log];
  entry = Log{};
  entry.validBytes = records.validBytes;
  if (!write(log, entry) && !flushTimer_) flushTimer_ = delay(minRetry_, [this] { flush(); });
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
      release(it->second.log);
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

std::map<std::pair<std::string, std::string>, StatusUpdateManager::Head>
StatusUpdateManager::heads() const {
  std::map<std::pair<std::string, std::string>, Head> heads;
  for (const auto& [key, stream] : streams_) {
    if (stream.queue.empty()) continue;
    const StatusUpdate& front = stream.queue.front();
    heads[key] = Head{front.status().state(), front.uuid()};
  }
  return heads;
}

size_t StatusUpdateManager::unwritten() const {
  size_t count = 0;
  for (const auto& [path, log] : logs_) count += log.unwritten.size();
  return count;
}

void StatusUpdateManager::append(const std::string& path, StatusUpdateRecord record) {
  Log& log = logs_[path];
  log.unwritten.push_back(std::move(record));
  if (!write(path, log) && !flushTimer_) flushTimer_ = delay(minRetry_, [this] { flush(); });
}

bool StatusUpdateManager::write(const std::string& path, Log& log) {
  Result<void> written;
  if (!log.file) {
    auto opened = checkpoint::RecordLog::open(path, log.validBytes);
    if (opened) {
      log.file = std::move(opened).value();
    } else {
      written = opened.error();
    }
  }
  while (written && !log.unwritten.empty()) {
    written = log.file->append(log.unwritten.front());
    if (written) log.unwritten.pop_front();
  }
  if (checkpointed_) checkpointed_(written, unwritten());
  return written.ok();
}

void StatusUpdateManager::release(const std::string& path) {
  auto it = logs_.find(path);
  if (it == logs_.end()) return;
  if (it->second.unwritten.empty()) {
    logs_.erase(it);
  } else {
    it->second.released = true;  // flush() closes it once written
  }
}

void StatusUpdateManager::flush() {
  flushTimer_.reset();
  bool behind = false;
  for (auto it = logs_.begin(); it != logs_.end();) {
    Log& log = it->second;
    if ((!log.file || !log.unwritten.empty()) && !write(it->first, log)) behind = true;
    if (log.released && log.unwritten.empty()) {
      it = logs_.erase(it);
    } else {
      ++it;
    }
  }
  if (behind) flushTimer_ = delay(minRetry_, [this] { flush(); });
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
