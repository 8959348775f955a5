// The slave's counters, rendered at /metrics/snapshot (http.cpp) with Apache
// Mesos's metric names; the gauges there (tasks and executors by state,
// resources) are computed from the slave's state when asked.
#pragma once

#include <cstdint>

namespace mesos::internal::slave {

struct Metrics {
  // Status updates from executors: accepted, or dropped (malformed, or for a
  // framework not here).
  uint64_t validStatusUpdates = 0;
  uint64_t invalidStatusUpdates = 0;
  // Messages between schedulers and executors: relayed, or dropped.
  uint64_t validFrameworkMessages = 0;
  uint64_t invalidFrameworkMessages = 0;
  // Tasks that reached each terminal state here, and executors that ended.
  uint64_t tasksFinished = 0;
  uint64_t tasksFailed = 0;
  uint64_t tasksKilled = 0;
  uint64_t tasksLost = 0;
  uint64_t tasksError = 0;
  uint64_t executorsTerminated = 0;
  // Checkpoint writes that failed (a full disk...), of any file or log.
  uint64_t checkpointFailures = 0;
};

}  // namespace mesos::internal::slave
