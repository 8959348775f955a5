// The frameworks of a Jepsen-style run: a v0 scheduler driver
// (MesosSchedulerDriver, src/sched/) that keeps launching short and long
// `sleep` command tasks on checkpointing executors, records every status
// update in the History, kills a task now and then when asked, and
// reconciles its unfinished tasks explicitly after every re-registration
// (as a careful framework does). One is declared PARTITION_AWARE or not.
// The driver's callbacks run on its actor; the other methods may be called
// from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "jepsen/history.hpp"
#include "mesos/scheduler.hpp"

namespace process {
class Runtime;
}

namespace mesos::jepsen {

struct FrameworkOptions {
  std::string name;  // also the prefix of its task ids: "<name>-<n>"
  bool partitionAware = false;
  uint64_t seed = 1;
  size_t maxUnfinished = 4;  // tasks launched and not terminal, at most
  double longShare = 0.3;    // share of long tasks
  double shortMaxS = 3;      // short tasks sleep 0.2 s to this
  double longMaxS = 30;      // long tasks sleep a third of this to this
};

class JepsenFramework : public Scheduler {
 public:
  // `history` and `runtime` are borrowed and must outlive this.
  JepsenFramework(FrameworkOptions options, History* history, const std::string& master,
                  process::Runtime* runtime);
  ~JepsenFramework() override;

  bool start();
  // Unregisters (its remaining tasks are killed by the cluster) and joins.
  void stop();

  void stopLaunching();
  // Kills one long task that runs, if any (chosen by the seeded generator).
  void killOne();
  // Explicit reconciliation of every unfinished task; the time it was asked.
  double reconcile();
  // Asks to kill every unfinished task.
  void killAll();

  // Tasks launched whose latest state is not terminal for this framework.
  std::vector<std::string> unfinished() const;
  // Whether every unfinished task got an update at or after `since`.
  bool answeredSince(double since) const;
  size_t launched() const;
  std::string frameworkId() const;
  const FrameworkOptions& options() const { return options_; }

  void registered(SchedulerDriver*, const FrameworkID& id, const MasterInfo&) override;
  void reregistered(SchedulerDriver*, const MasterInfo&) override;
  void disconnected(SchedulerDriver*) override;
  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override;
  void offerRescinded(SchedulerDriver*, const OfferID&) override {}
  void statusUpdate(SchedulerDriver*, const TaskStatus& status) override;
  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string&) override {}
  void slaveLost(SchedulerDriver*, const SlaveID& slaveId) override;
  void executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID&, int) override {}
  void error(SchedulerDriver*, const std::string& message) override;

 private:
  struct Task {
    std::string slaveId;
    bool longRunning = false;
    TaskState state = TASK_STAGING;
    double lastUpdate = 0;
  };
  bool finished(const Task& task) const;
  // Requires mutex_.
  size_t unfinishedLocked() const;
  std::vector<TaskStatus> unfinishedStatusesLocked() const;

  const FrameworkOptions options_;
  History* history_;
  mutable std::mutex mutex_;
  std::mt19937_64 random_;
  bool launching_ = true;
  size_t next_ = 0;
  std::map<std::string, Task> tasks_;
  std::string frameworkId_;
  std::unique_ptr<MesosSchedulerDriver> driver_;
};

}  // namespace mesos::jepsen
