// Validation of the tasks a framework launches, against its offers.
#pragma once

#include <optional>
#include <string>
#include <unordered_set>

#include "mesos/resources.hpp"
#include "master/master.hpp"

namespace mesos::internal::master {

struct TaskContext {
  const Framework& framework;
  const Slave& slave;
  const Resources& available;                        // what the offers still hold
  const std::unordered_set<std::string>& launched;   // task ids earlier in the message
  const std::unordered_set<std::string>& newExecutors;  // executors started earlier in it
  size_t executorsOnSlave;
  std::optional<uint32_t> maxExecutorsPerSlave;
};

// On success, the resources the task takes from the offers (its own plus
// its executor's when that executor is not running yet). On failure, a
// message naming the problem, for TASK_ERROR: among others, a ContainerInfo
// anywhere in the task (unsupported) and a HealthCheck that
// parseHealthCheck() refuses (docs/master.md lists the checks).
Result<Resources> validateTask(const TaskInfo& task, const TaskContext& context);

}  // namespace mesos::internal::master
