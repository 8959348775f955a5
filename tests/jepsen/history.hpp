// What a Jepsen-style run (docs/high-availability.md, "Checking it under
// faults") saw, in one place: the tasks the frameworks launched and killed,
// every status update they received (in the order received), the task
// processes seen on the machine, and the faults the nemesis applied. Times
// are seconds since the run started (one steady clock: every process is on
// this machine). Thread-safe: the drivers' callbacks, the process monitor
// and the nemesis record concurrently.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "mesos.pb.h"

namespace mesos::jepsen {

struct Launch {
  double time = 0;
  std::string framework;
  std::string task;
  std::string slaveId;
  std::string command;
};

struct Update {
  uint64_t seq = 0;  // order of reception, over every framework
  double time = 0;
  std::string framework;
  std::string task;
  TaskState state = TASK_STAGING;
  TaskStatus::Reason reason = TaskStatus::REASON_COMMAND_EXECUTOR_FAILED;
  bool hasReason = false;
  TaskStatus::Source source = TaskStatus::SOURCE_MASTER;
  std::string message;
  std::string slaveId;
};

// A framework's request (kill, reconcile) about one task.
struct Request {
  double time = 0;
  std::string framework;
  std::string task;
  std::string what;  // "kill", "reconcile"
};

// A task's process (the shell of a command task) seen running: on which
// slave (the name of the slave whose work directory holds its sandbox).
struct Sighting {
  double time = 0;
  std::string task;
  std::string slave;
  pid_t pid = 0;
};

// A fault from `start` to `healed` (the nemesis undid it), and when the
// cluster was whole again (`recovered`, 0 when it was not).
struct Fault {
  std::string kind;
  std::string target;
  double start = 0;
  double healed = 0;
  double recovered = 0;
};

class History {
 public:
  History();

  // Seconds since this history was made.
  double now() const;

  void launched(Launch launch);
  void received(Update update);  // sets seq
  void requested(Request request);
  void sighted(std::vector<Sighting> sightings);
  void faulted(Fault fault);
  // A line for the report (daemon exits, phases of the run).
  void note(const std::string& line);

  // Copies, for the checker and the report.
  std::vector<Launch> launches() const;
  std::vector<Update> updates() const;
  std::vector<Request> requests() const;
  std::vector<Sighting> sightings() const;
  std::vector<Fault> faults() const;
  std::vector<std::string> notes() const;

  // One task's story, one line per event in time order (its launch,
  // updates, requests, the first and last sighting on each slave), and the
  // faults around it: for a violation report.
  std::string story(const std::string& task) const;

 private:
  const int64_t start_;  // steady clock, ns
  mutable std::mutex mutex_;
  uint64_t seq_ = 0;
  std::vector<Launch> launches_;
  std::vector<Update> updates_;
  std::vector<Request> requests_;
  std::vector<Sighting> sightings_;
  std::vector<Fault> faults_;
  std::vector<std::string> notes_;
};

}  // namespace mesos::jepsen
