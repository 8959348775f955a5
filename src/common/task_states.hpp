// Facts about task states shared by the master, the slave and the drivers.
#pragma once

#include "mesos.pb.h"

namespace mesos {

// A state a task never leaves: finished, failed, killed, lost or in error.
inline bool isTerminalState(TaskState state) {
  return state == TASK_FINISHED || state == TASK_FAILED || state == TASK_KILLED ||
         state == TASK_LOST || state == TASK_ERROR;
}

}  // namespace mesos
