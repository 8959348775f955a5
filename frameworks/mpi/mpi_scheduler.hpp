// The scheduler of mesos-mpirun: gathers a gang of offers for N ranks,
// starts mpiexec (Hydra, manual launcher) on the nodes it holds, runs each
// Hydra proxy as a task on its node, and tears the whole gang down when any
// part of it fails.
//
// Threads: the driver's actor calls the Scheduler callbacks; a reader
// thread per mpiexec reports its proxy list and its exit; the main thread
// runs waitUntilDone(), which drives the timers (gang timeout, back-off,
// teardown deadlines). All state is guarded by one mutex, held only for
// short state changes; driver methods never block, so they are called under
// it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gang.hpp"
#include "mesos/scheduler.hpp"
#include "mpiexec.hpp"

namespace mesos::frameworks::mpi {

struct MpiJob {
  int ranks = 1;
  RankShape shape;
  std::chrono::milliseconds gangTimeout{5000};
  std::chrono::milliseconds waitLimit{0};  // 0: wait for a gang for ever
  std::string mpiexec = "mpiexec";
  std::string proxyWrapper;  // mesos-mpi-proxy
  std::string launchHost;    // mpiexec -localhost, when not empty
  std::vector<std::string> program;  // program and its arguments
  bool verbose = false;
};

class MpiScheduler : public Scheduler {
 public:
  explicit MpiScheduler(MpiJob job);
  ~MpiScheduler() override;

  // The driver whose guarantee() is read at registration; borrowed.
  void setDriver(MesosSchedulerDriver* driver) { driver_ = driver; }

  // Runs the timers until the job is over (success or failure) and
  // everything it started has ended, then returns the exit status:
  // 0 when the MPI job succeeded, 1 otherwise (failure() says why).
  // Main thread only.
  int waitUntilDone();

  // Ends the job from outside (a signal): the gang is torn down. Any thread.
  void interrupt(const std::string& why);

  // Why the job failed ("" after a success).
  std::string failure() const;

  void registered(SchedulerDriver* driver, const FrameworkID& frameworkId,
                  const MasterInfo& masterInfo) override;
  void reregistered(SchedulerDriver* driver, const MasterInfo& masterInfo) override;
  void disconnected(SchedulerDriver* driver) override;
  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override;
  void offerRescinded(SchedulerDriver* driver, const OfferID& offerId) override;
  void statusUpdate(SchedulerDriver* driver, const TaskStatus& status) override;
  void frameworkMessage(SchedulerDriver* driver, const ExecutorID& executorId,
                        const SlaveID& slaveId, const std::string& data) override;
  void slaveLost(SchedulerDriver* driver, const SlaveID& slaveId) override;
  void executorLost(SchedulerDriver* driver, const ExecutorID& executorId,
                    const SlaveID& slaveId, int status) override;
  void error(SchedulerDriver* driver, const std::string& message) override;

 private:
  using Clock = std::chrono::steady_clock;

  enum class Phase {
    kRegistering,  // waiting for the master
    kGathering,    // holding offers until they fit the gang
    kBackingOff,   // released a partial gang; declining offers for a while
    kStarting,     // mpiexec started, waiting for its proxy list
    kRunning,      // proxies launched as tasks
    kTearingDown,  // killing tasks and mpiexec after a failure
    kDone,
  };

  struct Task {
    NodeShare share;
    TaskState state = TASK_STAGING;
    bool terminal = false;
  };

  // All REQUIRE mutex_ held.
  void holdOffer(const Offer& offer);
  void tryToStartGang();
  void startMpiexec(std::vector<NodeShare> placement);
  void spawnMpiexec();  // main thread only
  void launchProxies(int attempt, std::vector<std::vector<std::string>> proxies);
  void hydraReportedFailure(int attempt);
  void mpiexecExited(int attempt, int status);
  void releaseHeldOffers(double refuseSeconds);
  void checkTimers(Clock::time_point now);
  void fail(const std::string& reason);
  void finishIfQuiet();
  bool allTasksTerminal() const;
  int ranksHeld() const;  // over the offers held, node by node
  std::string describeTask(const Task& task) const;
  void log(const std::string& line) const;

  const MpiJob job_;
  MesosSchedulerDriver* driver_ = nullptr;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  Phase phase_ = Phase::kRegistering;
  SchedulerDriver* schedulerDriver_ = nullptr;  // from the first callback
  std::map<std::string, Offer> held_;           // offer id -> offer
  std::optional<Clock::time_point> holdingSince_;
  Clock::time_point backOffUntil_;
  int releases_ = 0;
  Clock::time_point started_ = Clock::now();  // then since registration

  int attempt_ = 0;  // which mpiexec is current
  std::vector<std::unique_ptr<Mpiexec>> mpiexecs_;  // every one started; joined at the end
  Mpiexec* current_ = nullptr;  // the current attempt's, while it runs
  int runningMpiexecs_ = 0;     // started and not yet exited
  Clock::time_point startingSince_;
  bool spawnPending_ = false;  // the main thread is to fork mpiexec
  std::optional<int> mpiexecStatus_;  // the current attempt's wait status
  HydraReport lastReport_;            // what it said about a failure
  bool hydraFirst_ = false;           // Hydra's report was the first failure
  std::vector<NodeShare> placement_;
  std::map<std::string, Task> tasks_;  // task id -> task
  std::optional<Clock::time_point> finishingSince_;  // mpiexec exited 0

  // A proxy's task that failed while mpiexec runs, and since when: Hydra
  // gets kHydraReportGrace to report the root cause (usually a rank that
  // died, which makes Hydra end the other proxies) before this is taken as
  // the job's failure.
  std::optional<std::string> taskFailure_;
  Clock::time_point taskFailureSince_;
  std::string failure_;           // the first failure, "" while none
  std::vector<std::string> notes_;  // what else went wrong during the teardown
  Clock::time_point tearDownSince_;
  bool mpiexecKilled_ = false;
  bool driverAborted_ = false;
  std::mt19937 random_{std::random_device{}()};
};

}  // namespace mesos::frameworks::mpi
