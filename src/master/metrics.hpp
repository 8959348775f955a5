// The master's counters, rendered at /metrics/snapshot with Apache Mesos's
// metric names where it has one.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace mesos::internal::master {

struct Metrics {
  std::map<std::string, uint64_t> messages;  // received, by message name
  uint64_t frameworksRegistered = 0;         // registrations accepted
  uint64_t frameworksRemoved = 0;
  uint64_t slavesRegistered = 0;
  uint64_t slavesRemoved = 0;
  uint64_t slaveShutdownsScheduled = 0;  // removed for missed pings
  // Partition awareness (partitions.cpp).
  uint64_t slaveUnreachableScheduled = 0;  // failed health checks
  uint64_t slaveUnreachableCompleted = 0;  // marked unreachable (stored)
  uint64_t slaveUnreachableCanceled = 0;   // answered before the rate limit let it happen
  uint64_t slaveRemovalsUnhealthy = 0;
  uint64_t slaveRemovalsUnregistered = 0;
  uint64_t recoverySlaveRemovals = 0;      // not back within the window after a failover
  uint64_t slaveReregistrationsRefused = 0;  // gone or removed agents
  uint64_t offersSent = 0;
  uint64_t offersDeclined = 0;
  uint64_t offersRescinded = 0;
  uint64_t tasksLaunched = 0;
  uint64_t tasksInvalid = 0;
  uint64_t operationsFinished = 0;  // RESERVE, UNRESERVE, CREATE, DESTROY applied
  uint64_t operationsError = 0;     // ... refused (their call applied nothing)
  uint64_t statusUpdates = 0;
  uint64_t invalidStatusUpdates = 0;
  uint64_t invalidFrameworkMessages = 0;
  uint64_t tasksRevoked = 0;                 // killed to free resources for a guarantee
  uint64_t revocationExecutorShutdowns = 0;  // revoked tasks not ended by the grace period
  uint64_t shortTasksExpired = 0;  // revoked at --short_task_max_duration (long_tasks.cpp)
};

}  // namespace mesos::internal::master
