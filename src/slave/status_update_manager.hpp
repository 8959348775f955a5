// StatusUpdateManager: the slave's reliable outbox for task status updates.
//
// Every update is kept until the master acknowledges it (by uuid) and is sent
// again with backoff until then (10 s doubling to 10 min). Updates of one task
// form a stream that goes out in order: only the head of a stream is in
// flight, the next is sent once the head is acknowledged. While paused (the
// master is unreachable or the slave is not registered) nothing is sent and
// nothing is dropped; resume() sends every stream's head at once.
//
// The manager does not send messages itself: `forward` (given at
// construction, called on this actor) hands each update to the slave, which
// sends it to the current master so that the master sees the slave as the
// sender. All methods run as events of this actor: call them by dispatch().
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "common/task_states.hpp"
#include "messages.pb.h"
#include "process/actor.hpp"
#include "process/future.hpp"
#include "slave/constants.hpp"

namespace mesos::internal::slave {

class StatusUpdateManager : public process::Actor {
 public:
  using Forward = std::function<void(const StatusUpdate&)>;

  // Starts paused. `minRetry`/`maxRetry` bound the resend backoff.
  explicit StatusUpdateManager(Forward forward,
                               process::Duration minRetry = kStatusUpdateRetryIntervalMin,
                               process::Duration maxRetry = kStatusUpdateRetryIntervalMax);

  // Takes `update` (REQUIRES: a 16-byte uuid). A duplicate (a uuid this
  // stream already holds or had acknowledged) is accepted and ignored. Fails
  // when the task's stream already ended with an acknowledged terminal update.
  Result<void> update(StatusUpdate update);

  // The master acknowledged `uuid` for the task. Returns true when this
  // acknowledged the stream's terminal update (the stream is then closed and
  // forgotten). Fails when there is no such stream or `uuid` is not the
  // update in flight (a duplicate acknowledgement also fails, harmlessly).
  Result<bool> acknowledge(FrameworkID frameworkId, TaskID taskId, std::string uuid);

  // Stops sending (updates keep queueing).
  void pause();
  // Sends every stream's head now and resumes retrying.
  void resume();

  // Forgets every stream of the framework (it was shut down).
  void cleanup(FrameworkID frameworkId);

  // Updates not yet acknowledged, over all streams.
  size_t pending() const;
  bool paused() const { return paused_; }

 private:
  struct Stream {
    std::deque<StatusUpdate> queue;  // front = in flight
    std::set<std::string> seen;      // uuids received (for duplicate detection)
    bool terminated = false;         // terminal update acknowledged
    process::Duration backoff{};
    std::optional<process::TimerId> timer;
  };
  using StreamKey = std::pair<std::string, std::string>;  // framework id, task id

  void send(const StreamKey& key, Stream& stream);
  void retry(const StreamKey& key, const std::string& uuid);
  void stopTimer(Stream& stream);

  Forward forward_;
  process::Duration minRetry_;
  process::Duration maxRetry_;
  bool paused_ = true;
  std::map<StreamKey, Stream> streams_;
};

using mesos::isTerminalState;

}  // namespace mesos::internal::slave
