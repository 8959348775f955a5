// The driver of mesos-spark-lr: a Mesos scheduler that places one task per
// partition (= block of the input file) on long-lived executors, by data
// locality, then runs logistic regression by gradient descent: each
// iteration it sends the current weights to every executor holding
// partitions (a framework message), collects one partial gradient per
// partition, sums them in partition order and takes a step.
//
// Offers (the framework's half of two-level scheduling): each partition
// has a preferred node, one of the holders of its block chosen so that the
// nodes get equal shares (the first iteration, which reads and parses, then
// runs in parallel). A pending partition is launched on an offer from its
// preferred node at once; after --locality_wait it takes any node holding
// its block, or a node of the same rack; after twice that any node. Offers
// it cannot use are declined for a second while partitions wait, and offers
// are suppressed once every partition is placed (revived when one is lost).
//
// Faults: framework messages are best effort. A partition whose result is
// missing is asked again every --resend_timeout; an executor that has not
// answered anything (not even the ack it sends on receipt) for
// --resend_timeout * --max_resends is taken for lost. A lost executor, a
// lost slave, or a partition task that ends: its partitions go back to
// pending and are launched again elsewhere (the new executor reads its
// copy of the block). A partition that fails --max_failures times fails
// the job. Results are bit-identical whichever executor computes them
// (dataset.hpp), and the driver sums them in partition order, so a job that
// lost executors ends with exactly the weights of one that did not.
//
// Threads: the callbacks run on the scheduler driver's actor; tick() runs on
// a timer thread of the caller's. Both take the job's mutex; neither blocks
// on anything else.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "dfs/dfs.hpp"
#include "mesos/resources.hpp"
#include "mesos/scheduler.hpp"
#include "spark/dataset.hpp"

namespace mesos::frameworks::spark {

struct JobOptions {
  std::string root;  // the block store
  dfs::FileInfo file;
  uint32_t dims = 0;
  std::vector<double> truth;  // the true weights when known, else empty
  uint32_t iterations = 30;
  double step = 10;  // w -= step * gradient / points
  bool cache = true;
  std::chrono::milliseconds localityWait{3000};
  std::chrono::milliseconds resendTimeout{2000};
  uint32_t maxResends = 5;
  uint32_t maxFailures = 4;
  uint32_t dropEvery = 0;  // PartitionTask::dropEvery, for tests
  Resources taskResources;
  Resources executorResources;
  std::string executorPath;
};

// What the job did, for the report.
struct JobReport {
  bool succeeded = false;
  std::string error;               // why it failed
  std::vector<double> iterationMs; // per iteration, in order
  std::vector<double> weights;     // final
  uint64_t points = 0;
  double loss = 0;                 // mean logistic loss at the final weights
  double accuracy = 0;             // at the final weights
  std::optional<double> referenceAccuracy;  // of the true weights
  uint32_t nodeLocal = 0, rackLocal = 0, remote = 0;  // partition launches
  uint32_t relaunched = 0;         // partitions launched again after a loss
  uint32_t remoteReads = 0;        // block reads executors made from another node
  uint32_t resent = 0;             // requests sent again for want of a result
};

class LogisticRegressionJob : public Scheduler {
 public:
  // Prints progress lines ("iteration 3: 12.1 ms ...") to `out`.
  LogisticRegressionJob(JobOptions options, std::ostream& out);

  // Must be called before the driver starts; borrowed.
  void setDriver(SchedulerDriver* driver);

  // Resends what is overdue and notices silent executors. Call it about
  // every 100 ms from a thread of the caller's.
  void tick();

  // Ends the job as failed with `why` (a timeout of the caller's), unless
  // it has ended already.
  void abandon(const std::string& why);

  // Whether the job has ended (successfully or not); then the driver has
  // been asked to stop.
  bool finished() const;
  JobReport report() const;

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
  void executorLost(SchedulerDriver* driver, const ExecutorID& executorId, const SlaveID& slaveId,
                    int status) override;
  void error(SchedulerDriver* driver, const std::string& message) override;

 private:
  using Clock = std::chrono::steady_clock;
  enum class Locality { kNode, kRack, kAny };

  struct PartitionState {
    uint32_t index = 0;
    std::vector<std::string> hosts;  // holders of the block
    std::set<std::string> racks;     // their racks
    std::optional<std::string> preferred;  // a holder, for balance; none if all are avoided
    bool running = false;            // its task reported TASK_RUNNING
    std::optional<std::string> executor;  // the executor it is launched on
    std::string taskId;
    Clock::time_point pendingSince;  // when it last became unplaced
    uint32_t launches = 0;
    uint32_t failures = 0;
    std::string lastFailure;
    // The current iteration's request.
    Clock::time_point firstSent;
    Clock::time_point lastSent;
    uint32_t sends = 0;
  };

  struct ExecutorState {
    std::string id;
    SlaveID slaveId;
    std::string host;
    bool alive = true;
    Clock::time_point lastHeard;
    std::set<uint32_t> partitions;
  };

  // Launches what it can on `offer`; declines the rest.
  void placeOn(const Offer& offer);
  // A new executor on the offer's slave (launched with its first task).
  ExecutorState& newExecutor(const Offer& offer);
  // Assigns `partition` to `executor` and returns its task.
  TaskInfo launch(PartitionState& partition, ExecutorState& executor, Locality locality);
  Locality localityOf(const PartitionState& partition, const std::string& host,
                      const std::string& rack) const;
  bool allowed(const PartitionState& partition, const std::string& host, Locality locality,
               Clock::time_point now) const;
  // Picks the holder of the block, not avoided, that is preferred by the
  // fewest other partitions.
  void choosePreferred(PartitionState& partition);
  ExecutorInfo executorInfo(const std::string& id, const std::string& host) const;
  // The executor of this framework on `slaveId` that is alive, if any.
  ExecutorState* liveExecutorOn(const SlaveID& slaveId);

  // Partition `index` is no longer placed: its task is gone (or given up).
  void unplace(uint32_t index, const std::string& why);
  // Every partition of the executor goes back to pending; kills their tasks
  // when `kill`.
  void loseExecutor(ExecutorState& executor, const std::string& why, bool kill);
  bool allPlaced() const;

  void startIteration();
  // Sends the current request for the partitions of `indexes` (grouped per
  // executor).
  void sendRequests(const std::vector<uint32_t>& indexes);
  void finishIteration();
  void fail(const std::string& message);
  void finish();
  bool evaluating() const { return iteration_ > options_.iterations; }

  const JobOptions options_;
  std::ostream& out_;

  mutable std::mutex mutex_;  // guards everything below
  SchedulerDriver* driver_ = nullptr;
  std::vector<PartitionState> partitions_;
  std::map<std::string, ExecutorState> executors_;  // by executor id
  std::map<std::string, uint32_t> generations_;     // host -> executors started there
  std::set<std::string> lostHosts_;  // slaves the master reported lost: never used again
  std::set<std::string> avoided_;    // hosts that lost an executor: not preferred
  bool suppressed_ = false;
  bool ended_ = false;
  uint64_t iteration_ = 0;  // 0 before the first; iterations + 1 is the final scoring
  std::vector<double> weights_;
  Clock::time_point iterationStart_;
  std::map<uint32_t, PartialResult> results_;  // of the current iteration
  uint32_t loadedThisIteration_ = 0;
  JobReport report_;
};

}  // namespace mesos::frameworks::spark
