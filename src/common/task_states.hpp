// Facts about task states shared by the master, the slave and the drivers.
#pragma once

#include "mesos.pb.h"

namespace mesos {

// A state a task never leaves: finished, failed, killed, lost, in error,
// dropped, gone or gone by operator (TASK_UNREACHABLE and TASK_UNKNOWN are
// not: an unreachable task may come back).
inline bool isTerminalState(TaskState state) {
  switch (state) {
    case TASK_FINISHED:
    case TASK_FAILED:
    case TASK_KILLED:
    case TASK_LOST:
    case TASK_ERROR:
    case TASK_DROPPED:
    case TASK_GONE:
    case TASK_GONE_BY_OPERATOR:
      return true;
    default:
      return false;
  }
}

}  // namespace mesos
