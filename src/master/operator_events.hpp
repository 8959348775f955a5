// The v1 operator API's event stream, the master's side
// (docs/operator-http-api.md): the hooks the master calls where a task, an
// agent or a framework changes, and the subscriptions.
//
// With no subscriber a hook costs one test of an empty map. With some, it
// builds the event once (O(the entity's size)) and hands the one shared,
// immutable event to each fan-out actor (OperatorStreams, a few at most):
// O(1) in the number of subscribers. Serialization, filtering and writing
// happen on the fan-out actors.
//
// Belongs to the master's actor: every method runs there.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "master/operator_stream.hpp"
#include "master/registry.hpp"
#include "process/runtime.hpp"
#include "v1/master.pb.h"

namespace mesos::internal::master {

// The master's records as the operator API shows them.
v1::Task v1Task(const TaskRecord& task);
v1::master::Response::GetAgents::Agent v1Agent(const Slave& slave);
// Without its offers (the caller adds them).
v1::master::Response::GetFrameworks::Framework v1Framework(const Framework& framework);
v1::TimeInfo v1Time(double seconds);

class OperatorEvents {
 public:
  struct Options {
    size_t maxSubscribers = 1000;  // --max_operator_event_stream_subscribers
    size_t queueLimit = 0;         // --operator_event_stream_queue_limit, bytes
    process::Duration heartbeat = std::chrono::seconds(15);
    process::Duration batchWindow{};  // --operator_event_stream_batch_window
  };

  OperatorEvents() = default;
  OperatorEvents(const OperatorEvents&) = delete;
  OperatorEvents& operator=(const OperatorEvents&) = delete;

  // Spawns the fan-out actors in `runtime`; `master` is the master's pid
  // (closures are reported there). Call from the master's initialize().
  void start(process::Runtime& runtime, const process::UPID& master, Options options);
  // Ends every stream (the master's finalize()).
  void stop();

  // Whether anyone listens: the hooks do nothing otherwise.
  bool active() const { return !open_.empty(); }
  size_t subscribers() const { return open_.size(); }

  // A new subscriber; `subscribed` is its first event. Past
  // maxSubscribers the oldest stream is closed.
  void subscribe(OperatorSubscriber subscriber, v1::master::Event subscribed);
  // A fan-out actor dropped the subscriber `id`.
  void closed(uint64_t id) { open_.erase(id); }

  // The hooks.
  void taskAdded(const TaskRecord& task) {
    if (active()) publishTaskAdded(task);
  }
  // `before`: its state before the status was recorded; only a change of
  // state is an event.
  void taskUpdated(const TaskRecord& task, TaskState before) {
    if (active() && task.task.state() != before) publishTaskUpdated(task);
  }
  void agentAdded(const Slave& slave) {
    if (active()) publishAgentAdded(slave);
  }
  void agentRemoved(const SlaveID& slaveId) {
    if (active()) publishAgentRemoved(slaveId);
  }
  void frameworkAdded(const Framework& framework) {
    if (active()) publishFramework(framework, v1::master::Event::FRAMEWORK_ADDED);
  }
  void frameworkUpdated(const Framework& framework) {
    if (active()) publishFramework(framework, v1::master::Event::FRAMEWORK_UPDATED);
  }
  void frameworkRemoved(const Framework& framework) {
    if (active()) publishFrameworkRemoved(framework);
  }

 private:
  void publishTaskAdded(const TaskRecord& task);
  void publishTaskUpdated(const TaskRecord& task);
  void publishAgentAdded(const Slave& slave);
  void publishAgentRemoved(const SlaveID& slaveId);
  void publishFramework(const Framework& framework, v1::master::Event::Type type);
  void publishFrameworkRemoved(const Framework& framework);
  void publish(std::shared_ptr<const OperatorEvent> event);

  Options options_;
  std::vector<process::Spawned<OperatorStreams>> shards_;
  uint64_t nextId_ = 0;
  // Open streams, oldest first: id -> its shard.
  std::map<uint64_t, size_t> open_;
};

}  // namespace mesos::internal::master
