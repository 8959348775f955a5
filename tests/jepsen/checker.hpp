// The checks of a Jepsen-style run over its History (history.hpp), as
// docs/high-availability.md ("Checking it under faults") states them:
//
//  (a) every launched task ends in exactly one terminal state at its
//      framework: nothing but a repeat of that state comes after it (for a
//      partition-aware framework TASK_LOST, TASK_UNREACHABLE and
//      TASK_UNKNOWN are not terminal: the task may come back RUNNING,
//      docs/partition-awareness.md);
//  (b) the updates of a task come in order (STAGING, STARTING, RUNNING,
//      KILLING, terminal; never back), and a framework that is not
//      partition-aware never gets a state only partition-aware ones get;
//  (c) no task runs twice: its process is never seen on two slaves, never
//      seen once the framework had its terminal state for longer than
//      `grace` while its slave was undisturbed by the nemesis, and never
//      seen at the end;
//  (d) the leading master's /master/state agrees with what each framework
//      believes of its tasks.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "jepsen/history.hpp"

namespace mesos::jepsen {

struct Violation {
  std::string task;  // "" for the cluster as a whole
  std::string what;
};

// Whether `state` ends a task for a framework (partition-aware or not).
bool terminal(TaskState state, bool partitionAware);

// What the master says of one framework's tasks.
struct MasterView {
  std::map<std::string, TaskState> active;     // "tasks"
  std::map<std::string, TaskState> completed;  // "completed_tasks"
};

// The latest state each task of `framework` got, by task id.
std::map<std::string, TaskState> latestStates(const std::vector<Update>& updates,
                                              const std::string& framework);

// Checks (a), (b) and (c) over the whole history. `aware` names the
// partition-aware frameworks; `end` is when every task had to be gone
// (sightings at or after it are violations); `grace` bounds how long a task's
// process may outlive the terminal state its framework got while its slave
// is undisturbed.
std::vector<Violation> checkHistory(const History& history,
                                    const std::map<std::string, bool>& aware, double end,
                                    double grace);

// Check (d) for one framework: its tasks' latest states (latestStates())
// against the master's view.
std::vector<Violation> compareWithMaster(const std::string& framework,
                                         const std::map<std::string, TaskState>& latest,
                                         const MasterView& master, bool partitionAware);

// The report: each violation with its task's story, then the faults and
// notes of the run.
std::string report(const History& history, const std::vector<Violation>& violations);

}  // namespace mesos::jepsen
