// The batch queue's state and policy, without any I/O: the jobs (queued,
// running, completed), the nodes the framework holds (one long-running
// "node" task per slave, like the paper's pbs_mom tasks), FIFO scheduling
// with EASY backfill onto the held nodes, how many more nodes the queue
// wants, and which idle nodes to give back. The server (scheduler.hpp) owns
// one Queue under its mutex, feeds it events and carries out the Effects it
// returns (messages to the nodes' executors, killing node tasks).
//
// Time is a parameter (`now`) of every call that depends on it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "torque/request.hpp"

namespace mesos::frameworks::torque {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

enum class JobState { Queued, Running, Exiting, Completed };

// qstat's letter: Q, R, E, C.
char stateLetter(JobState state);

// A job as submitted (mesos-qsub), already checked.
struct JobSpec {
  std::string name;
  std::string user;
  std::string submitHost;
  std::string script;   // the script's text
  std::string workdir;  // where it runs (the submitter's cwd, or -d)
  // Where stdout/stderr go: a directory (the file is <name>.o<id> there) or
  // a file path; `join` sends stderr to the stdout file (-j oe).
  std::string outDir, outPath, errDir, errPath;
  bool join = false;
  std::map<std::string, std::string> environment;  // -v / -V
  std::vector<std::string> resourceLists;          // -l, as given
  ResourceRequest request;
};

struct Job {
  int64_t id = 0;
  JobSpec spec;
  JobState state = JobState::Queued;
  int64_t submittedUnix = 0;  // wall-clock seconds, for display
  TimePoint started, ended;
  std::vector<std::string> nodes;  // node ids; the first runs the script
  std::vector<std::string> hosts;  // their hostnames, same order
  bool runAcknowledged = false;    // the node said it started the script
  TimePoint lastSent;              // the last run or kill message
  std::optional<int> exitStatus;   // set when completed
  std::string comment;             // why it ended, if not by itself

  std::string outputPath() const;  // the resolved stdout file
  std::string errorPath() const;   // the resolved stderr file
  // Seconds used so far (running) or in all (completed); 0 when queued.
  int64_t secondsUsed(TimePoint now) const;
};

enum class NodeState { Launching, Up, Releasing };

struct Node {
  std::string id;  // its task id, also its executor id
  std::string slaveId;
  std::string hostname;
  NodeState state = NodeState::Launching;
  double cpus = 0;
  int64_t memMb = 0;
  double usedCpus = 0;
  int64_t usedMemMb = 0;
  std::set<int64_t> jobs;
  TimePoint idleSince;
};

struct QueueConfig {
  double nodeCpus = 1;
  int64_t nodeMemMb = 256;
  int maxNodes = 16;
  std::chrono::seconds idleTimeout{30};
  int64_t defaultWalltimeSeconds = 3600;
  // How long a run or kill message may go unanswered before it is sent
  // again (framework messages are best effort).
  std::chrono::seconds resendAfter{3};
};

// What the server must do after a call.
struct Effects {
  std::vector<int64_t> run;          // send the job's script to its first node
  std::vector<int64_t> kill;         // ask the job's first node to kill it
  std::vector<std::string> release;  // kill these node tasks (give them back)
  std::vector<int64_t> completed;    // jobs that just completed (wake waiters)

  void merge(const Effects& other);
};

class Queue {
 public:
  explicit Queue(QueueConfig config);

  const QueueConfig& config() const { return config_; }

  // The most nodes the framework may hold: --max_nodes, lowered to what the
  // role's guarantee holds (`why` says which limit it is, for errors).
  void limitNodes(int maxNodes, std::string why);
  int maxNodes() const { return maxNodes_; }

  // Queues `spec` as a new job: its id, or an error naming why the request
  // can never run here (more nodes, cpus or memory than a node or the
  // server may hold). Nothing is queued on error.
  Parsed<int64_t> submit(JobSpec spec, int64_t nowUnix);

  enum class Removal { Deleted, Killing, Unknown, AlreadyCompleted };
  // qdel: a queued job is completed at once ("deleted"); a running one is
  // marked Exiting and its node asked to kill it (it completes when the
  // node reports the end).
  Removal remove(int64_t id, TimePoint now, Effects* effects);

  // New node tasks the queue wants now: enough for every queued job to
  // start at once, up to maxNodes() counting those held or launching.
  int nodesWanted() const;
  // Whether a node could be placed on the slave `slaveId` (one node per
  // slave: on a real cluster a multi-node job spans as many machines).
  bool slaveFree(const std::string& slaveId) const;

  // A node task was launched; `id` is its task id.
  void nodeLaunched(const std::string& id, const std::string& slaveId, const std::string& hostname,
                    double cpus, int64_t memMb, TimePoint now);
  // Its executor runs (TASK_RUNNING).
  void nodeUp(const std::string& id, TimePoint now);
  // The node task ended (released, failed, slave lost): its running jobs
  // complete with `reason` (exit status -1) and their other nodes are freed.
  void nodeGone(const std::string& id, const std::string& reason, TimePoint now, Effects* effects);

  // The node running job `id` started its script.
  void jobAcknowledged(int64_t id);
  // The job's script ended with `exitStatus` (128+signal when killed);
  // `comment` says why when it was killed or could not start. Ignored for
  // a job that is not running (a repeated report).
  void jobEnded(int64_t id, int exitStatus, const std::string& comment, TimePoint now,
                Effects* effects);

  // FIFO with EASY backfill: starts the queued jobs that fit on the held
  // nodes in order; the first that does not fit gets a reservation (the
  // earliest time the running jobs' walltimes free enough nodes for it),
  // and later jobs start only if they end before it or stay off its nodes.
  // Gives back nodes idle for idleTimeout when nothing is queued.
  Effects schedule(TimePoint now);

  // Messages to send again: runs not acknowledged and kills not answered
  // within resendAfter.
  Effects resends(TimePoint now);

  const std::map<int64_t, Job>& jobs() const { return jobs_; }
  const std::map<std::string, Node>& nodes() const { return nodes_; }
  const Job* job(int64_t id) const;
  size_t count(JobState state) const;
  // The node id for a fresh node task.
  std::string nextNodeId() { return "node-" + std::to_string(++lastNodeId_); }

 private:
  struct Share {
    double cpus;
    int64_t memMb;
  };
  using FreeMap = std::map<std::string, Share>;

  Share shareOf(const Job& job) const;
  int64_t walltimeOf(const Job& job) const;
  // `job.spec.request.nodes` nodes of `free` that fit its share, the
  // fullest first (so that other nodes stay idle and can be given back),
  // none in `avoid`; nullopt when there are not enough.
  std::optional<std::vector<std::string>> pick(const Job& job, const FreeMap& free,
                                               const std::set<std::string>& avoid = {}) const;
  FreeMap freeOnUpNodes() const;
  void start(Job* job, const std::vector<std::string>& nodes, TimePoint now, Effects* effects);
  void finish(Job* job, int exitStatus, const std::string& comment, TimePoint now,
              Effects* effects);

  QueueConfig config_;
  int maxNodes_;
  std::string maxNodesWhy_;
  std::map<int64_t, Job> jobs_;  // by id: the FIFO order
  std::map<std::string, Node> nodes_;
  int64_t lastJobId_ = 0;
  int lastNodeId_ = 0;
};

}  // namespace mesos::frameworks::torque
