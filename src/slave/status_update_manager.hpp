// StatusUpdateManager: the slave's reliable outbox for task status updates.
//
// Every update is kept until the master acknowledges it (by uuid) and is sent
// again with backoff until then (10 s doubling to 10 min). Updates of one task
// form a stream that goes out in order: only the head of a stream is in
// flight, the next is sent once the head is acknowledged. While paused (the
// master is unreachable or the slave is not registered) nothing is sent and
// nothing is dropped; resume() sends every stream's head at once.
//
// A framework that checkpoints has each task's stream written to a log
// (checkpoint.hpp) before the update is sent or the acknowledgement
// applied, so that a restarted slave sends on exactly what the master had
// not acknowledged, in order (recover()). A record the log cannot take (a
// full disk) changes nothing of the delivery: the update is kept in memory,
// sent and resent like any other, and the record waits, with those after it
// in the same log, to be written in order at the log's next record or by a
// retry every `minRetry` until the disk takes it.
//
// The manager does not send messages itself: `forward` (given at
// construction, called on this actor) hands each update to the slave, which
// sends it to the current master so that the master sees the slave as the
// sender; `checkpointed` (also on this actor) is told what came of every
// attempt to write a log. All methods run as events of this actor: call
// them by dispatch().
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/task_states.hpp"
#include "messages.pb.h"
#include "process/actor.hpp"
#include "process/future.hpp"
#include "slave/checkpoint.hpp"
#include "slave/constants.hpp"

namespace mesos::internal::slave {

class StatusUpdateManager : public process::Actor {
 public:
  using Forward = std::function<void(const StatusUpdate&)>;
  // `written` is what came of writing to a log (an error names the file and
  // the cause); `unwritten` is how many records then wait (unwritten()).
  using Checkpointed = std::function<void(const Result<void>& written, size_t unwritten)>;

  // Starts paused. `minRetry`/`maxRetry` bound the resend backoff; `minRetry`
  // is also how often writing a log that failed is tried again.
  explicit StatusUpdateManager(Forward forward, Checkpointed checkpointed = {},
                               process::Duration minRetry = kStatusUpdateRetryIntervalMin,
                               process::Duration maxRetry = kStatusUpdateRetryIntervalMax);

  // Takes `update` (REQUIRES: a 16-byte uuid). A duplicate (a uuid this
  // stream already holds or had acknowledged) is accepted and ignored. Fails
  // when the task's stream already ended with an acknowledged terminal update.
  // With `log` (the task's checkpointed stream), the update is appended to
  // it first; when it cannot be, the update is taken all the same and its
  // record written later (see above).
  Result<void> update(StatusUpdate update, std::string log = "");

  // A task's checkpointed stream as its log holds it.
  struct Records {
    std::vector<StatusUpdate> updates;     // every update, in order
    std::vector<std::string> acknowledged; // uuids, in order
    uint64_t validBytes = 0;               // where appending goes on
    bool torn = false;                     // a partial last record was left out
  };
  // Reads a log update() and acknowledge() wrote. Fails naming the file when
  // it is missing, corrupt, or holds a record that is not a stream's.
  static Result<Records> read(const std::string& log);

  // After a restart: rebuilds the task's stream from `records` (read from
  // `log`): the updates the master had not acknowledged are queued again, in
  // order, and go out once resumed; a stream whose terminal update was
  // acknowledged is closed. Appends go on in `log`, after its whole records
  // (a torn last record is cut off). Returns the number of updates queued.
  Result<size_t> recover(std::string log, Records records);

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
  // Each stream's oldest update not yet acknowledged (the one its framework
  // gets next), by framework id and task id: what a re-registering slave
  // tells the master, so that the master's answer to a reconciliation never
  // runs ahead of the updates still on their way.
  struct Head {
    TaskState state = TASK_STAGING;
    std::string uuid;
  };
  std::map<std::pair<std::string, std::string>, Head> heads() const;
  // Records taken but not yet written to their logs, over all logs.
  size_t unwritten() const;
  bool paused() const { return paused_; }

 private:
  struct Stream {
    std::deque<StatusUpdate> queue;  // front = in flight
    std::set<std::string> seen;      // uuids received (for duplicate detection)
    bool terminated = false;         // terminal update acknowledged
    process::Duration backoff{};
    std::optional<process::TimerId> timer;
    std::string log;  // its key in logs_; "" when the framework does not checkpoint
  };
  using StreamKey = std::pair<std::string, std::string>;  // framework id, task id

  // A stream's log. It outlives its stream while records wait for the disk.
  struct Log {
    std::optional<checkpoint::RecordLog> file;  // once it could be opened
    uint64_t validBytes = 0;                    // where appending starts, until then
    std::deque<StatusUpdateRecord> unwritten;   // taken, not yet written, oldest first
    bool released = false;                      // its stream is gone
  };

  void send(const StreamKey& key, Stream& stream);
  void retry(const StreamKey& key, const std::string& uuid);
  void stopTimer(Stream& stream);
  // Appends `record` to the log at `path` after what waits there; what
  // cannot be written waits for flush().
  void append(const std::string& path, StatusUpdateRecord record);
  // Writes what waits in `log`, in order, reporting to checkpointed_.
  // Whether all of it is written.
  bool write(const std::string& path, Log& log);
  // The stream of the log at `path` is gone: the log closes once written.
  void release(const std::string& path);
  // Tries every log with records waiting again; again after minRetry_
  // while any fails.
  void flush();

  Forward forward_;
  Checkpointed checkpointed_;
  process::Duration minRetry_;
  process::Duration maxRetry_;
  bool paused_ = true;
  std::map<StreamKey, Stream> streams_;
  std::map<std::string, Log> logs_;  // by path
  std::optional<process::TimerId> flushTimer_;
};

using mesos::isTerminalState;

}  // namespace mesos::internal::slave
