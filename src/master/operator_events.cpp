#include "master/operator_events.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "common/v1.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using Event = v1::master::Event;
using Scope = OperatorEvent::Scope;
using V1Agent = v1::master::Response::GetAgents::Agent;
using V1Framework = v1::master::Response::GetFrameworks::Framework;

namespace {

template <typename Out>
void addResources(const Resources& resources, Out* out) {
  for (const Resource& resource : resources.proto()) *out->Add() = evolve<v1::Resource>(resource);
}

}  // namespace

v1::TimeInfo v1Time(double seconds) {
  v1::TimeInfo time;
  time.set_nanoseconds(static_cast<int64_t>(std::llround(seconds * 1e9)));
  return time;
}

v1::Task v1Task(const TaskRecord& task) { return evolve<v1::Task>(task.task); }

V1Agent v1Agent(const Slave& slave) {
  V1Agent agent;
  *agent.mutable_agent_info() = evolve<v1::AgentInfo>(slave.info);
  *agent.mutable_agent_info()->mutable_id() = evolve<v1::AgentID>(slave.id);
  agent.set_active(slave.active && !slave.deactivated);
  agent.set_deactivated(slave.deactivated);
  if (slave.drain) {
    *agent.mutable_drain_info() = evolve<v1::DrainInfo>(*slave.drain);
    if (slave.drainStart > 0) {
      *agent.mutable_estimated_drain_start_time() = v1Time(slave.drainStart);
    }
  }
  agent.set_version(slave.version);
  agent.set_pid(slave.pid.toString());
  *agent.mutable_registered_time() = v1Time(slave.registeredTime);
  addResources(slave.total, agent.mutable_total_resources());
  addResources(slave.used, agent.mutable_allocated_resources());
  addResources(slave.offered, agent.mutable_offered_resources());
  for (const SlaveInfo::Capability& capability : slave.capabilities) {
    *agent.add_capabilities() = evolve<v1::AgentInfo::Capability>(capability);
  }
  return agent;
}

V1Framework v1Framework(const Framework& framework) {
  V1Framework out;
  *out.mutable_framework_info() = evolve<v1::FrameworkInfo>(framework.info);
  *out.mutable_framework_info()->mutable_id() = evolve<v1::FrameworkID>(framework.id);
  out.set_active(framework.active);
  out.set_connected(framework.active);
  out.set_recovered(!framework.registered);
  if (framework.registeredTime > 0) {
    *out.mutable_registered_time() = v1Time(framework.registeredTime);
  }
  if (framework.reregisteredTime > 0) {
    *out.mutable_reregistered_time() = v1Time(framework.reregisteredTime);
  }
  if (framework.unregisteredTime > 0) {
    *out.mutable_unregistered_time() = v1Time(framework.unregisteredTime);
  }
  addResources(framework.used, out.mutable_allocated_resources());
  addResources(framework.offered, out.mutable_offered_resources());
  return out;
}

void OperatorEvents::start(process::Runtime& runtime, const process::UPID& master,
                           Options options) {
  options_ = options;
  // A few, so that writing to thousands of subscribers uses more than one
  // core; each event reaches each of them once.
  size_t shards = std::clamp<size_t>(std::thread::hardware_concurrency() / 2, 1, 4);
  for (size_t i = 0; i < shards; ++i) {
    shards_.push_back(runtime.spawn<OperatorStreams>(
        master.id + "-operator-events-" + std::to_string(i), master, this, options.heartbeat,
        options.queueLimit, options.batchWindow));
  }
}

void OperatorEvents::stop() {
  open_.clear();
  shards_.clear();
}

void OperatorEvents::subscribe(OperatorSubscriber subscriber, Event subscribed) {
  while (!open_.empty() && open_.size() >= std::max<size_t>(options_.maxSubscribers, 1)) {
    auto oldest = open_.begin();
    process::dispatch(shards_[oldest->second].pid(), &OperatorStreams::close, oldest->first);
    open_.erase(oldest);
  }
  uint64_t id = nextId_++;
  size_t shard = id % shards_.size();
  open_.emplace(id, shard);
  process::dispatch(shards_[shard].pid(), &OperatorStreams::add, id, std::move(subscriber),
                    std::make_shared<const OperatorEvent>(std::move(subscribed)));
}

void OperatorEvents::publish(std::shared_ptr<const OperatorEvent> event) {
  for (const auto& shard : shards_) process::dispatch(shard.pid(), &OperatorStreams::publish, event);
}

void OperatorEvents::publishTaskAdded(const TaskRecord& task) {
  Event event;
  event.set_type(Event::TASK_ADDED);
  *event.mutable_task_added()->mutable_task() = v1Task(task);
  publish(std::make_shared<const OperatorEvent>(std::move(event), Scope::kTask,
                                                task.framework->info.user(), task.task.user()));
}

void OperatorEvents::publishTaskUpdated(const TaskRecord& task) {
  Event event;
  event.set_type(Event::TASK_UPDATED);
  Event::TaskUpdated* updated = event.mutable_task_updated();
  *updated->mutable_framework_id() = evolve<v1::FrameworkID>(task.task.framework_id());
  *updated->mutable_status() = evolve<v1::TaskStatus>(task.latest);
  updated->set_state(static_cast<v1::TaskState>(task.task.state()));
  publish(std::make_shared<const OperatorEvent>(std::move(event), Scope::kTask,
                                                task.framework->info.user(), task.task.user()));
}

void OperatorEvents::publishAgentAdded(const Slave& slave) {
  Event event;
  event.set_type(Event::AGENT_ADDED);
  *event.mutable_agent_added()->mutable_agent() = v1Agent(slave);
  publish(std::make_shared<const OperatorEvent>(std::move(event)));
}

void OperatorEvents::publishAgentRemoved(const SlaveID& slaveId) {
  Event event;
  event.set_type(Event::AGENT_REMOVED);
  *event.mutable_agent_removed()->mutable_agent_id() = evolve<v1::AgentID>(slaveId);
  publish(std::make_shared<const OperatorEvent>(std::move(event)));
}

void OperatorEvents::publishFramework(const Framework& framework, Event::Type type) {
  Event event;
  event.set_type(type);
  V1Framework* out = type == Event::FRAMEWORK_ADDED
                         ? event.mutable_framework_added()->mutable_framework()
                         : event.mutable_framework_updated()->mutable_framework();
  *out = v1Framework(framework);
  publish(std::make_shared<const OperatorEvent>(std::move(event), Scope::kFramework,
                                                framework.info.user()));
}

void OperatorEvents::publishFrameworkRemoved(const Framework& framework) {
  Event event;
  event.set_type(Event::FRAMEWORK_REMOVED);
  v1::FrameworkInfo* info = event.mutable_framework_removed()->mutable_framework_info();
  *info = evolve<v1::FrameworkInfo>(framework.info);
  *info->mutable_id() = evolve<v1::FrameworkID>(framework.id);
  publish(std::make_shared<const OperatorEvent>(std::move(event), Scope::kFramework,
                                                framework.info.user()));
}

}  // namespace mesos::internal::master
