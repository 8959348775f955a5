#include "slave/protobufs.hpp"

#include <chrono>

#include <glog/logging.h>

#include "common/uuid.hpp"

namespace mesos::internal::slave {

double wallTime() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

bool wellFormed(const process::UPID& from, const google::protobuf::Message& message) {
  if (message.IsInitialized()) return true;
  LOG(WARNING) << "Dropping " << message.GetTypeName() << " from " << from
               << ": required fields missing: " << message.InitializationErrorString();
  return false;
}

Task createTask(const TaskInfo& task, TaskState state, const FrameworkID& frameworkId) {
  Task out;
  out.set_name(task.name());
  *out.mutable_task_id() = task.task_id();
  *out.mutable_framework_id() = frameworkId;
  *out.mutable_slave_id() = task.slave_id();
  out.set_state(state);
  *out.mutable_resources() = task.resources();
  if (task.has_executor()) *out.mutable_executor_id() = task.executor().executor_id();
  if (task.has_labels()) *out.mutable_labels() = task.labels();
  if (task.has_discovery()) *out.mutable_discovery() = task.discovery();
  if (task.has_kill_policy()) *out.mutable_kill_policy() = task.kill_policy();
  if (task.has_container()) *out.mutable_container() = task.container();
  if (task.has_command() && task.command().has_user()) {
    out.set_user(task.command().user());
  } else if (task.has_executor() && task.executor().command().has_user()) {
    out.set_user(task.executor().command().user());
  }
  return out;
}

google::protobuf::RepeatedPtrField<SlaveInfo::Capability> agentCapabilities() {
  google::protobuf::RepeatedPtrField<SlaveInfo::Capability> capabilities;
  for (SlaveInfo::Capability::Type type :
       {SlaveInfo::Capability::MULTI_ROLE, SlaveInfo::Capability::HIERARCHICAL_ROLE,
        SlaveInfo::Capability::RESERVATION_REFINEMENT, SlaveInfo::Capability::AGENT_DRAINING}) {
    capabilities.Add()->set_type(type);
  }
  return capabilities;
}

// The deprecated field is still on the wire for older peers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
FrameworkID runTaskFrameworkId(const RunTaskMessage& message) {
  return message.framework().has_id() ? message.framework().id() : message.framework_id();
}

void setRunTaskFrameworkId(RunTaskMessage* message, const FrameworkID& frameworkId) {
  *message->mutable_framework_id() = frameworkId;
}
#pragma GCC diagnostic pop

StatusUpdate createStatusUpdate(const FrameworkID& frameworkId, const SlaveID& slaveId,
                                const TaskID& taskId, TaskState state,
                                std::optional<TaskStatus::Reason> reason,
                                const std::string& message, const ExecutorID* executorId) {
  StatusUpdate update;
  double now = wallTime();
  std::string uuid = randomUuid();
  *update.mutable_framework_id() = frameworkId;
  *update.mutable_slave_id() = slaveId;
  if (executorId != nullptr) *update.mutable_executor_id() = *executorId;
  update.set_timestamp(now);
  update.set_uuid(uuid);

  TaskStatus* status = update.mutable_status();
  *status->mutable_task_id() = taskId;
  status->set_state(state);
  status->set_message(message);
  *status->mutable_slave_id() = slaveId;
  if (executorId != nullptr) *status->mutable_executor_id() = *executorId;
  status->set_timestamp(now);
  status->set_source(TaskStatus::SOURCE_SLAVE);
  if (reason) status->set_reason(*reason);
  status->set_uuid(uuid);
  return update;
}

}  // namespace mesos::internal::slave
