// A probe framework (the paper's section 6.5): it registers, launches one
// task of a known duration on the first offer with a free slot, declines
// everything else, and measures its end-to-end time, from starting to
// register to the task's TASK_FINISHED. Overhead = that time minus the
// task's duration.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace process {
class Runtime;
}
namespace mesos {
class MesosSchedulerDriver;
}

namespace fig10 {

class ProbeScheduler;

class Probe {
 public:
  // Starts a probe framework named `name` on `runtime` (borrowed; must
  // outlive the probe) against `master` ("master@ip:port"); its task runs
  // `taskSeconds`.
  Probe(process::Runtime* runtime, const std::string& master, const std::string& name,
        double taskSeconds);
  // Stops the framework (unregistering it, so the master kills whatever it
  // still runs) and waits, at most a few seconds, for that to be sent.
  ~Probe();

  // Waits at most `wait` for the probe to end; true once it has (finished or
  // failed).
  bool wait(std::chrono::milliseconds wait);
  // Once ended: the end-to-end seconds when the task finished, nullopt when
  // it failed (then `failure()` says why).
  std::optional<double> endToEndSeconds() const;
  std::string failure() const;

 private:
  std::unique_ptr<ProbeScheduler> scheduler_;
  std::unique_ptr<mesos::MesosSchedulerDriver> driver_;
};

}  // namespace fig10
