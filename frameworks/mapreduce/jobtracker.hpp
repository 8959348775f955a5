// The JobTracker: the MapReduce framework's scheduler. It holds the jobs,
// turns them into map and reduce task attempts, and places the attempts on
// the offers Mesos makes it (docs/frameworks/mapreduce.md):
//
// - Fair sharing among jobs: an offer's slots go first to the running job
//   with the fewest running attempts (then the oldest).
// - Delay scheduling (Zaharia et al., EuroSys 2010): a job whose next map
//   cannot run node-local on the offered node is skipped, and keeps being
//   skipped for up to `localityWait` since its last launch; then it may
//   launch rack-local, and after another `localityWait` anywhere. A
//   node-local launch brings it back to node-local only. A zero wait
//   disables this (the best task available on the node is launched).
// - Offers that fit no task are declined with a short filter
//   (`declineSeconds`), so they come back soon, when the wait may be over.
// - Failed attempts are retried; a task whose attempts fail `maxAttempts`
//   times fails its job (attempts killed by the JobTracker, and reduces
//   that could not fetch map outputs, do not count). Map outputs that become unreachable (their slave or
//   TaskTracker was lost, or a reduce could not fetch them) are recomputed.
// - Speculative execution: when a job has nothing left to launch, an
//   attempt running longer than max(speculationFloor, speculationFactor x
//   the median time of its finished peers) gets a second attempt on another
//   node; the first attempt to finish wins, the other is killed.
//
// Threads: the Scheduler callbacks run on the driver's actor; submit(),
// report(), reports() and wait() may be called from any thread (the HTTP
// API, the `run` command). One mutex guards the jobs; callbacks hold it
// only for bookkeeping, never while waiting.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapreduce/job.hpp"
#include "mesos/scheduler.hpp"

namespace mesos::frameworks::mapreduce {

struct TrackerOptions {
  std::string dfsRoot;
  uint16_t dfsPeerPort = 0;  // passed to the tasks (dfs::Store::setPeerPort())
  std::string executorPath;  // mesos-mapreduce-executor
  double localityWaitSeconds = 5;
  double taskCpus = 0.5;
  double taskMem = 64;
  double executorCpus = 0.1;
  double executorMem = 32;
  double declineSeconds = 1;
  uint32_t maxAttempts = 4;
  bool speculation = true;
  double speculationFactor = 2.0;
  double speculationFloorSeconds = 5;
  // A static partition: only offers of these hosts are used (the others
  // are declined for an hour); empty: every host.
  std::set<std::string> hosts;
};

class JobTracker : public mesos::Scheduler {
 public:
  using Clock = std::chrono::steady_clock;

  explicit JobTracker(TrackerOptions options);
  ~JobTracker() override;

  // The driver the tracker uses outside callbacks (to revive offers on a
  // submit, to kill attempts). REQUIRES: set before the driver starts.
  void setDriver(mesos::SchedulerDriver* driver) { driver_ = driver; }

  // Adds a job. Fails, with a message naming the problem and the fix, on an
  // invalid spec or an input missing from the store; nothing is started
  // then. On success returns the job's id ("job-1", ...).
  Result<std::string> submit(const JobSpec& spec);

  // The report of a job (see docs): state, task counts, locality, time,
  // output location. std::nullopt for an unknown id.
  std::optional<nlohmann::json> report(const std::string& id) const;
  // Every job's report, oldest first.
  nlohmann::json reports() const;
  // Blocks until the job is over (succeeded or failed) or `timeout` passes;
  // returns its report (std::nullopt for an unknown id).
  std::optional<nlohmann::json> wait(const std::string& id, std::chrono::milliseconds timeout);

  // The framework was refused or the driver failed: the message, else "".
  std::string fatalError() const;
  // Whether the master has registered the framework (at least once).
  bool registeredOnce() const;

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

  enum class Locality { kNode = 0, kRack = 1, kAny = 2 };

 private:
  struct Attempt {
    std::string id;  // the Mesos task id
    std::string slaveId;
    std::string host;
    Clock::time_point started;
    bool speculative = false;
  };
  struct Task {
    bool isMap = true;
    uint32_t index = 0;
    bool done = false;
    uint32_t launches = 0;       // attempts started (names the next attempt)
    uint32_t failures = 0;       // attempts that failed (at most maxAttempts)
    uint32_t fetchFailures = 0;  // a map's output lost, or a reduce that could not fetch
    uint64_t records = 0;        // the finished attempt's input or output records
    std::vector<Attempt> running;
    // The finished attempt: where its output is (maps), how long it took.
    Attempt winner;
    uint16_t port = 0;
    double seconds = 0;
    std::string lastError;
  };
  struct Job {
    std::string id;
    JobSpec spec;
    dfs::FileInfo input;
    std::vector<std::string> splits;  // sort: the range partitioner's keys
    std::vector<Task> maps, reduces;
    enum class State { kRunning, kSucceeded, kFailed } state = State::kRunning;
    std::string error;
    Clock::time_point submitted, finished;
    std::string submittedUtc;
    uint64_t sequence = 0;
    // Delay scheduling: the level the job may launch at and when it last
    // launched (or began waiting).
    Locality level = Locality::kNode;
    std::optional<Clock::time_point> lastLaunch;
    // Counts of launched map attempts by locality, and other counters.
    uint64_t nodeLocal = 0, rackLocal = 0, remote = 0;
    uint64_t failedAttempts = 0, speculativeAttempts = 0, killedAttempts = 0;
    uint64_t recomputedMaps = 0, remoteReads = 0;
    uint64_t mapInputRecords = 0, reduceOutputRecords = 0;

    size_t runningAttempts() const;
    bool mapsDone() const;
  };
  // Where an attempt belongs.
  struct AttemptRef {
    std::string job;
    bool isMap = true;
    uint32_t index = 0;
  };
  // One offer's free capacity while tasks are being placed on it.
  struct Slots {
    std::string host, rack, slaveId;
    double cpus = 0, mem = 0;
  };

  bool fits(const Slots& slots) const;
  // Picks the next attempt for `slots` among the jobs (fair share, delay
  // scheduling, speculation) and returns its TaskInfo, or nothing.
  std::optional<TaskInfo> nextTask(const Slots& slots, Clock::time_point now);
  std::optional<TaskInfo> nextMap(Job& job, const Slots& slots, Clock::time_point now);
  std::optional<TaskInfo> speculate(Job& job, std::vector<Task>& tasks, const Slots& slots,
                                    Clock::time_point now);
  TaskInfo launch(Job& job, Task& task, const Slots& slots, bool speculative,
                  Clock::time_point now);
  Locality localityOf(const Job& job, const Task& task, const std::string& host,
                      const std::string& rack) const;

  void attemptFinished(Job& job, Task& task, const std::string& attemptId,
                       const TaskStatus& status);
  void attemptFailed(Job& job, Task& task, const std::string& attemptId,
                     const TaskStatus& status);
  // Map outputs on `slaveId` are gone: their maps run again.
  void outputsLost(const std::string& slaveId, const std::string& why);
  void mapOutputLost(Job& job, Task& map, const std::string& why);
  void maybeFinish(Job& job);
  void failJob(Job& job, const std::string& message);
  void killOthers(Task& task, const std::string& keep);
  nlohmann::json reportLocked(const Job& job) const;

  const TrackerOptions options_;
  mesos::SchedulerDriver* driver_ = nullptr;
  ExecutorInfo executor_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::unique_ptr<Job>> jobs_;
  std::vector<std::string> order_;            // job ids, oldest first
  std::map<std::string, AttemptRef> attempts_;  // running attempts by task id
  std::set<std::string> killed_;              // attempts we killed ourselves
  std::map<std::string, std::string> slaveHosts_;  // slave id -> hostname
  std::set<std::string> executorSlaves_;           // slaves running our executor
  uint64_t nextJob_ = 1;
  std::string fatal_;
  bool registered_ = false;
};

}  // namespace mesos::frameworks::mapreduce
