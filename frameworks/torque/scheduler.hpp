// The server's scheduler: a mesos::Scheduler that holds the Queue (queue.hpp)
// and turns its decisions into Mesos calls. It launches one long-running
// node task (executor mesos-torque-mom) per slave it needs, sends jobs to
// those nodes as framework messages, kills node tasks it no longer needs,
// and keeps the offers it gets in line with what it wants: declines with a
// long filter (and a standing min_free filter of one node's size) when it
// wants no node on that slave, suppresses offers when it wants no node at
// all, and revives them when it does again.
//
// Threading: the driver's callbacks, the HTTP handlers (http_api.hpp) and
// the server's ticker call in from different threads; every public method
// takes mutex_, does no blocking work under it except wait() (which waits
// on a condition variable, releasing it), and only calls driver methods
// that return at once.
#pragma once

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "mesos/scheduler.hpp"
#include "torque/queue.hpp"

namespace mesos::frameworks::torque {

struct ServerConfig {
  QueueConfig queue;
  std::string role = "*";
  std::string executorPath;     // mesos-torque-mom
  double declineSeconds = 300;  // the filter on offers it does not want
};

// An answer to an HTTP request: status code and JSON body.
struct Reply {
  int status = 200;
  nlohmann::json body;
};

class TorqueScheduler : public Scheduler {
 public:
  explicit TorqueScheduler(ServerConfig config);

  // The driver to call. REQUIRES: set before the driver starts; borrowed.
  void setDriver(MesosSchedulerDriver* driver) { driver_ = driver; }

  // Blocks until registered() ran or `timeout` passed; whether registered.
  bool awaitRegistration(std::chrono::seconds timeout);
  // Set by error(): the driver aborted with this message ("" while fine).
  std::string fatalError();

  // POST /jobs: queues the job a mesos-qsub request describes. 201 with
  // {"id"}, or 400 {"error"} naming what is wrong (nothing is queued), or
  // 503 before the framework has registered.
  Reply submit(const nlohmann::json& request);
  // GET /jobs: every job, in submission order.
  Reply jobs();
  // GET /jobs/ID: the job, or 404.
  Reply job(int64_t id);
  // GET /jobs/ID/wait: the job once completed, or as it is after
  // `timeout` (the caller asks again); 404 for an unknown job.
  Reply wait(int64_t id, std::chrono::seconds timeout);
  // DELETE /jobs/ID: qdel. 200 with the job (completed, or Exiting while its
  // node kills it), 404 unknown, 409 already completed.
  Reply remove(int64_t id);
  // GET /status: the nodes held, the counts of jobs, the offer state.
  Reply status();

  // Wakes every wait() and makes later ones return at once (the server is
  // stopping; its HTTP server waits for its handlers).
  void stopWaiting();

  // The periodic work (every few hundred ms): scheduling, giving back idle
  // nodes, re-sending unanswered messages, suppress/revive.
  void tick();

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
  // REQUIRES (all below): mutex_ held.
  // Carries out what the queue decided.
  void apply(const Effects& effects);
  void sendRun(const Job& job);
  void sendToNode(const std::string& nodeId, const nlohmann::json& message);
  // Schedules, applies, and suppresses or revives offers to match.
  void reschedule();
  void matchOfferInterest();
  // The node's resources out of `offer` (this role's reservation first,
  // then unreserved), or empty when the offer is too small.
  google::protobuf::RepeatedPtrField<Resource> nodeResources(const Offer& offer) const;
  Filters declineFilters() const;
  TaskInfo nodeTask(const Offer& offer, const std::string& nodeId,
                    const google::protobuf::RepeatedPtrField<Resource>& resources) const;
  nlohmann::json jobJson(const Job& job, TimePoint now) const;

  const ServerConfig config_;
  MesosSchedulerDriver* driver_ = nullptr;

  std::mutex mutex_;
  std::condition_variable changed_;  // registration, job completion
  Queue queue_;
  bool registered_ = false;
  bool suppressed_ = false;
  bool stopping_ = false;
  std::string frameworkId_;
  std::string fatalError_;
  std::string guarantee_;  // as text, for /status
};

}  // namespace mesos::frameworks::torque
