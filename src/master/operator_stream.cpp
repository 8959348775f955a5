#include "master/operator_stream.hpp"

#include <optional>
#include <vector>

#include <glog/logging.h>

#include "common/protobuf_json.hpp"
#include "master/operator_events.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"

namespace mesos::internal::master {

using authorizer::Action;
using process::UPID;
using Event = v1::master::Event;

const char* mediaType(OperatorEncoding encoding) {
  return encoding == OperatorEncoding::kJson ? "application/json" : "application/x-protobuf";
}

OperatorViewer::OperatorViewer(std::shared_ptr<const authentication::EndpointGuard> guard,
                               std::optional<std::string> principal)
    : guard_(std::move(guard)), principal_(std::move(principal)) {
  if (guard_ != nullptr) {
    allFrameworks_ = guard_->authorizedForAll(Action::kViewFramework, principal_);
    allTasks_ = guard_->authorizedForAll(Action::kViewTask, principal_);
    allExecutors_ = guard_->authorizedForAll(Action::kViewExecutor, principal_);
  }
}

bool OperatorViewer::seesFramework(const std::string& frameworkUser) const {
  return allFrameworks_ || guard_->authorized(Action::kViewFramework, principal_, frameworkUser);
}

bool OperatorViewer::seesTask(const std::string& frameworkUser,
                              const std::string& taskUser) const {
  if (!seesFramework(frameworkUser)) return false;
  return allTasks_ ||
         guard_->authorized(Action::kViewTask, principal_,
                            taskUser.empty() ? frameworkUser : taskUser);
}

bool OperatorViewer::seesExecutor(const std::string& frameworkUser,
                                  const std::string& executorUser) const {
  if (!seesFramework(frameworkUser)) return false;
  return allExecutors_ ||
         guard_->authorized(Action::kViewExecutor, principal_,
                            executorUser.empty() ? frameworkUser : executorUser);
}

bool OperatorViewer::seesFlags() const {
  return guard_ == nullptr || guard_->authorized(Action::kViewFlags, principal_, std::nullopt);
}

OperatorEvent::OperatorEvent(Event event, Scope scope, std::string frameworkUser,
                             std::string taskUser)
    : event_(std::move(event)),
      scope_(scope),
      frameworkUser_(std::move(frameworkUser)),
      taskUser_(std::move(taskUser)) {}

bool OperatorEvent::visibleTo(const OperatorViewer& viewer) const {
  switch (scope_) {
    case Scope::kAll: return true;
    case Scope::kFramework: return viewer.seesFramework(frameworkUser_);
    case Scope::kTask: return viewer.seesTask(frameworkUser_, taskUser_);
  }
  return false;
}

const std::string& OperatorEvent::record(OperatorEncoding encoding) const {
  auto frame = [](std::string bytes) { return std::to_string(bytes.size()) + "\n" + bytes; };
  if (encoding == OperatorEncoding::kJson) {
    std::call_once(jsonOnce_, [&] { json_ = frame(toJson(event_)); });
    return json_;
  }
  std::call_once(protobufOnce_, [&] { protobuf_ = frame(event_.SerializeAsString()); });
  return protobuf_;
}

OperatorStreams::OperatorStreams(std::string id, UPID master, OperatorEvents* owner,
                                 process::Duration heartbeat, size_t queueLimit,
                                 process::Duration window)
    : Actor(std::move(id)),
      master_(std::move(master)),
      owner_(owner),
      heartbeat_(heartbeat),
      queueLimit_(queueLimit),
      window_(window) {
  Event event;
  event.set_type(Event::HEARTBEAT);
  heartbeatEvent_ = std::make_shared<const OperatorEvent>(std::move(event));
}

void OperatorStreams::initialize() { delay(heartbeat_, [this] { heartbeat(); }); }

void OperatorStreams::finalize() {
  for (auto& [id, subscriber] : subscribers_) subscriber.pipe->close();
  subscribers_.clear();
}

void OperatorStreams::add(uint64_t id, OperatorSubscriber subscriber,
                          std::shared_ptr<const OperatorEvent> subscribed) {
  // What was published before it subscribed is in its SUBSCRIBED already.
  flush();
  const std::string& first = subscribed->record(subscriber.encoding);
  // The state may be big: the bound counts what waits beyond it.
  subscriber.pipe->limitQueue(first.size() + queueLimit_);
  if (!subscriber.pipe->write(first)) {
    process::dispatch(master_, [owner = owner_, id] { owner->closed(id); });
    return;
  }
  process::Pid<OperatorStreams> self(this->self());
  subscriber.pipe->onReaderGone([self, id] { process::dispatch(self, &OperatorStreams::gone, id); });
  subscribers_.emplace(id, std::move(subscriber));
}

void OperatorStreams::publish(std::shared_ptr<const OperatorEvent> event) {
  if (subscribers_.empty()) return;
  pending_.push_back(std::move(event));
  if (flushQueued_) return;
  flushQueued_ = true;
  process::TimePoint now = runtime().clock().now();
  if (!lastFlush_ || now - *lastFlush_ >= window_) {
    // Behind the events already in the mailbox: they go out with this one.
    process::dispatch(self(), [this] { flush(); });
  } else {
    delay(*lastFlush_ + window_ - now, [this] { flush(); });
  }
}

void OperatorStreams::flush() {
  flushQueued_ = false;
  if (pending_.empty()) return;
  lastFlush_ = runtime().clock().now();
  std::vector<std::shared_ptr<const OperatorEvent>> events = std::move(pending_);
  pending_.clear();
  // The records of every event, in each encoding asked for, for the
  // subscribers that see everything; the others get theirs alone.
  std::shared_ptr<const std::string> all[2];
  auto records = [&](OperatorEncoding encoding, const OperatorViewer* viewer) {
    std::string out;
    for (const auto& event : events) {
      if (viewer == nullptr || event->visibleTo(*viewer)) out += event->record(encoding);
    }
    return out;
  };
  std::vector<std::map<uint64_t, OperatorSubscriber>::iterator> failed;
  for (auto it = subscribers_.begin(); it != subscribers_.end(); ++it) {
    const OperatorSubscriber& subscriber = it->second;
    bool written;
    if (subscriber.viewer->seesAll()) {
      auto& batch = all[subscriber.encoding == OperatorEncoding::kJson];
      if (!batch) batch = std::make_shared<const std::string>(records(subscriber.encoding, nullptr));
      written = subscriber.pipe->write(batch);
    } else {
      written = subscriber.pipe->write(records(subscriber.encoding, subscriber.viewer.get()));
    }
    if (!written) failed.push_back(it);
  }
  for (auto it : failed) drop(it);
}

void OperatorStreams::heartbeat() {
  publish(heartbeatEvent_);
  delay(heartbeat_, [this] { heartbeat(); });
}

void OperatorStreams::close(uint64_t id) {
  auto it = subscribers_.find(id);
  if (it == subscribers_.end()) return;
  LOG(INFO) << "Closing the operator event stream of " << it->second.peer
            << ": more subscribers than --max_operator_event_stream_subscribers";
  it->second.pipe->close();
  subscribers_.erase(it);
}

void OperatorStreams::gone(uint64_t id) {
  auto it = subscribers_.find(id);
  if (it != subscribers_.end()) drop(it);
}

void OperatorStreams::drop(std::map<uint64_t, OperatorSubscriber>::iterator it) {
  VLOG(1) << "Operator event stream of " << it->second.peer << " ended";
  uint64_t id = it->first;
  it->second.pipe->close();
  subscribers_.erase(it);
  process::dispatch(master_, [owner = owner_, id] { owner->closed(id); });
}

}  // namespace mesos::internal::master
