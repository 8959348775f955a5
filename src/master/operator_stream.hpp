// The v1 operator API's event stream, off the master's actor
// (docs/operator-http-api.md): the events as the master publishes them, who
// may see which, and the fan-out actors that write them to the subscribers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "authentication/http/endpoint_guard.hpp"
#include "process/actor.hpp"
#include "process/http.hpp"
#include "v1/master.pb.h"

namespace mesos::internal::master {

class OperatorEvents;

enum class OperatorEncoding { kProtobuf, kJson };

// "application/x-protobuf" or "application/json".
const char* mediaType(OperatorEncoding encoding);

// What a principal may see of the cluster under the view_* ACLs, as /state
// shows it (authorization.cpp): frameworks by their user (view_framework),
// tasks by their own user, else their framework's (view_task, and their
// framework must be visible), executors likewise (view_executor). Immutable;
// usable on any actor (the guard's authorizer is immutable).
class OperatorViewer {
 public:
  OperatorViewer(std::shared_ptr<const authentication::EndpointGuard> guard,
                 std::optional<std::string> principal);

  bool seesFramework(const std::string& frameworkUser) const;
  bool seesTask(const std::string& frameworkUser, const std::string& taskUser) const;
  bool seesExecutor(const std::string& frameworkUser, const std::string& executorUser) const;
  // May see flags (view_flags).
  bool seesFlags() const;
  // Sees every framework, task and executor (no check per object needed).
  bool seesAll() const { return allFrameworks_ && allTasks_ && allExecutors_; }
  const std::optional<std::string>& principal() const { return principal_; }

 private:
  std::shared_ptr<const authentication::EndpointGuard> guard_;
  std::optional<std::string> principal_;
  bool allFrameworks_ = true;
  bool allTasks_ = true;
  bool allExecutors_ = true;
};

// One event as every subscriber gets it: built once on the master's actor,
// then shared, never changed, by the fan-out actors; each encoding is
// serialized at most once, by the first fan-out actor that needs it.
class OperatorEvent {
 public:
  enum class Scope {
    kAll,        // agents, heartbeats: every subscriber
    kFramework,  // view_framework on frameworkUser
    kTask,       // view_framework on frameworkUser and view_task on taskUser
  };

  OperatorEvent(v1::master::Event event, Scope scope = Scope::kAll, std::string frameworkUser = "",
                std::string taskUser = "");

  const v1::master::Event& event() const { return event_; }
  bool visibleTo(const OperatorViewer& viewer) const;
  // The RecordIO record ("<length>\n<bytes>") in `encoding`. Thread-safe.
  const std::string& record(OperatorEncoding encoding) const;

 private:
  const v1::master::Event event_;
  const Scope scope_;
  const std::string frameworkUser_;
  const std::string taskUser_;
  mutable std::once_flag jsonOnce_;
  mutable std::once_flag protobufOnce_;
  mutable std::string json_;
  mutable std::string protobuf_;
};

// A subscriber's connection: where its records go, in which encoding, and
// what it may see.
struct OperatorSubscriber {
  std::shared_ptr<process::http::Pipe> pipe;
  OperatorEncoding encoding = OperatorEncoding::kJson;
  std::shared_ptr<const OperatorViewer> viewer;
  std::string peer;  // for the log
};

// A fan-out actor: writes each published event to its subscribers that may
// see it, and a HEARTBEAT to each every `heartbeat`. Events go out in
// batches, one chunk per subscriber per batch: an event published when
// nothing went out for `window` goes out at once, with whatever else waits
// in the mailbox behind it; later ones wait until `window` after that
// batch. The subscribers that see everything share one buffer per encoding
// (the transport writes it from where it is); each of the others gets a
// copy of what it may see. A subscriber whose
// connection goes away, or that leaves more than `queueLimit` bytes unread
// beyond its SUBSCRIBED record (the transport then closes its connection,
// with one log line), is dropped, and the master told (OperatorEvents::
// closed(), dispatched to the master's actor). Cost per event: one
// authorization check per subscriber when its principal may not see
// everything, one write per subscriber that sees it; nothing on the master.
class OperatorStreams : public process::Actor {
 public:
  OperatorStreams(std::string id, process::UPID master, OperatorEvents* owner,
                  process::Duration heartbeat, size_t queueLimit, process::Duration window);

  // Adds a subscriber; `subscribed` (its SUBSCRIBED event) is its first
  // record.
  void add(uint64_t id, OperatorSubscriber subscriber,
           std::shared_ptr<const OperatorEvent> subscribed);
  void publish(std::shared_ptr<const OperatorEvent> event);
  // Ends the subscriber's stream (the master had too many subscribers).
  void close(uint64_t id);
  size_t size() const { return subscribers_.size(); }

 protected:
  void initialize() override;
  void finalize() override;

 private:
  void gone(uint64_t id);
  void heartbeat();
  // Writes what was published since the last flush.
  void flush();
  // Forgets the subscriber and tells the master.
  void drop(std::map<uint64_t, OperatorSubscriber>::iterator it);

  const process::UPID master_;
  OperatorEvents* const owner_;  // touched only on the master's actor
  const process::Duration heartbeat_;
  const size_t queueLimit_;
  const process::Duration window_;
  std::shared_ptr<const OperatorEvent> heartbeatEvent_;
  std::map<uint64_t, OperatorSubscriber> subscribers_;
  std::vector<std::shared_ptr<const OperatorEvent>> pending_;  // published, not yet written
  bool flushQueued_ = false;
  std::optional<process::TimePoint> lastFlush_;  // when the last batch went out
};

}  // namespace mesos::internal::master
