// The frameworks of bench/failover_bench, in the bench's own process: real
// MesosSchedulerDrivers (include/mesos/scheduler.hpp) that find the leading
// master through ZooKeeper and follow it, as any framework does. Together
// they keep `tasks` long-running tasks: each framework launches its share
// (one task per slot of 1 cpu and 1024 MB, TaskInfo.data a day in
// milliseconds for the emulated slaves of bench/fig10/slaves.cpp, on an
// executor of the framework's own when `executors`), then suppresses its
// offers and declines what it is offered for an hour.
//
// The drivers re-register by themselves after a leader change (after a
// random wait within MESOS_REGISTRATION_BACKOFF_FACTOR, read when start()
// is called); this records when each got FrameworkReregisteredMessage and
// from which master. Every method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mesos/scheduler.hpp"
#include "process/runtime.hpp"

namespace failover {

class LongRunningScheduler;

class Frameworks {
 public:
  struct Options {
    std::string master;  // zk://... (or host:port)
    int count = 10;
    int64_t tasks = 20000;  // in all, spread evenly over the frameworks
    bool executors = true;
  };

  // `runtime` is borrowed and must outlive this: the drivers' actors run
  // on it.
  Frameworks(process::Runtime& runtime, Options options);
  ~Frameworks();
  Frameworks(const Frameworks&) = delete;
  Frameworks& operator=(const Frameworks&) = delete;

  // Starts every driver. False, with *error, when one does not start.
  bool start(std::string* error);

  struct Tally {
    int registered = 0;  // frameworks given an id
    int64_t launched = 0;
    int64_t running = 0;  // tasks whose TASK_RUNNING came and no later state
    int64_t ended = 0;    // tasks that reached another state (none should)
    int64_t errors = 0;   // driver errors
    int64_t disconnections = 0;
  };
  Tally tally() const;

  // How many frameworks re-registered with the master whose MasterInfo.pid
  // is `pid` at wall-clock time `since` (seconds since the epoch) or later,
  // and when the last of them did (0 when none did).
  struct Reregistered {
    int count = 0;
    double latest = 0;
  };
  Reregistered reregisteredWith(const std::string& pid, double since) const;

 private:
  friend class LongRunningScheduler;

  // What the schedulers write, under mutex_.
  struct Record {
    bool registered = false;
    std::string reregisteredWith;  // MasterInfo.pid of the last re-registration
    double reregisteredAt = 0;
  };

  process::Runtime& runtime_;
  const Options options_;
  mutable std::mutex mutex_;
  Tally tally_;
  std::vector<Record> records_;
  std::vector<std::unique_ptr<LongRunningScheduler>> schedulers_;
  // After the schedulers: a driver goes before the scheduler it calls.
  std::vector<std::unique_ptr<mesos::MesosSchedulerDriver>> drivers_;
};

}  // namespace failover
