// TestCluster: a real master and real slaves on one runtime (real clock,
// real sockets, real executor processes), for integration and fault tests.
// Schedulers connect with MesosSchedulerDriver exactly as frameworks do.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "local/cluster.hpp"
#include "mesos/scheduler.hpp"

namespace mesos::test {

class TestCluster {
 public:
  // Starts the master with `masterFlags` on a runtime bound to 127.0.0.1.
  explicit TestCluster(internal::master::MasterFlags masterFlags = {});
  ~TestCluster();

  // Starts a slave with `resources`, its sandboxes under workDir(), and the
  // built mesos-executor; extra slave flags as "--name=value". Returns its
  // index. CHECK-fails if the slave cannot be created.
  size_t startSlave(const std::string& resources = "cpus:2;mem:1024;disk:1024;ports:[31000-31100]",
                    const std::vector<std::string>& extraFlags = {});
  // Terminates slave `index` without telling the master (as if it died).
  void stopSlave(size_t index) { cluster_->stopSlave(index); }
  process::UPID slavePid(size_t index) const { return cluster_->slavePid(index); }

  process::Runtime& runtime() { return cluster_->runtime(); }
  process::UPID master() const { return cluster_->master(); }
  std::string masterAddress() { return runtime().address().toString(); }
  const std::string& workDir() const { return workDir_; }

 private:
  std::string workDir_;
  std::unique_ptr<internal::local::LocalCluster> cluster_;
};

// A Scheduler that records every callback, for tests to wait on. Callbacks
// may also run test-provided actions (`onOffers`, `onStatus`).
class RecordingScheduler : public Scheduler {
 public:
  struct Event {
    std::string kind;  // "registered", "offers", "status", "slaveLost", ...
    std::vector<Offer> offers;
    TaskStatus status;
    std::string text;  // error message, ids...
    int executorStatus = 0;
  };

  std::function<void(SchedulerDriver*, const std::vector<Offer>&)> onOffers;
  std::function<void(SchedulerDriver*, const TaskStatus&)> onStatus;

  // Waits (real time) for an event satisfying `match`, among all events so
  // far and those to come; returns it, or nothing after `timeout`.
  std::optional<Event> await(const std::function<bool(const Event&)>& match,
                             std::chrono::milliseconds timeout = std::chrono::seconds(30));
  std::optional<Event> awaitStatus(const std::string& taskId, TaskState state,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(30));
  std::optional<Event> awaitKind(const std::string& kind,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(30));
  FrameworkID frameworkId();

  void registered(SchedulerDriver*, const FrameworkID& id, const MasterInfo&) override;
  void reregistered(SchedulerDriver*, const MasterInfo&) override;
  void disconnected(SchedulerDriver*) override;
  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override;
  void offerRescinded(SchedulerDriver*, const OfferID&) override;
  void statusUpdate(SchedulerDriver* driver, const TaskStatus& status) override;
  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string& data) override;
  void slaveLost(SchedulerDriver*, const SlaveID& slaveId) override;
  void executorLost(SchedulerDriver*, const ExecutorID& executorId, const SlaveID&,
                    int status) override;
  void error(SchedulerDriver*, const std::string& message) override;

 private:
  void add(Event event);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Event> events_;
  FrameworkID frameworkId_;
};

// A command task using `resources` of `offer`.
TaskInfo commandTask(const Offer& offer, const std::string& id, const std::string& command,
                     const std::string& resources = "cpus:0.1;mem:32");

}  // namespace mesos::test
