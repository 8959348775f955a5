// HealthChecker: an actor that runs a task's health check (COMMAND, HTTP or
// TCP) on the runtime clock and tells its owner when the task's health
// changes or when the task must be killed. The command executor owns one per
// task.
//
// Timing (Apache Mesos's): the first check starts `delay` after the checker
// starts, each next one `interval` after the previous one ended or timed
// out. A check that has not ended after `timeout` is aborted (its process
// group killed, its socket closed) and counts as a failure. HealthPolicy
// decides what results mean.
//
// Nothing blocks the actor: each check runs on a thread of its own (a COMMAND
// check's process is reaped there, an HTTP or TCP check's socket is polled
// there) and hands its outcome back as an event. Timeouts are timers of the
// runtime clock, so a test with a paused clock decides when they fire.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "exec/health_check.hpp"
#include "process/actor.hpp"

namespace mesos::internal {

// How one check ended.
struct ProbeOutcome {
  bool healthy = false;
  std::string message;  // why it failed ("COMMAND health check: command exited with status 1")
};

// Where a COMMAND check runs.
struct ProbeContext {
  std::string directory;  // working directory (the sandbox)
  // The command's environment, before the check command's own variables.
  std::map<std::string, std::string> environment;
  // HTTP and TCP: a network namespace (/proc/PID/ns/net) the probe's
  // thread enters first, so that its loopback is the task's (a Docker
  // container of its own network). Empty: this process's.
  std::string networkNamespace;
};

class ProbeRun;

class HealthChecker : public process::Actor {
 public:
  // Sent when the health changed (the first counted result, then each
  // change), and when the task must be killed (which may change nothing).
  struct Event {
    bool healthy = false;
    bool changed = false;         // `healthy` differs from the last event's (or is the first)
    bool kill = false;            // the task must be killed (consecutive failures reached)
    uint32_t consecutiveFailures = 0;
    std::string message;          // the last failure, when unhealthy
  };
  // Runs on the checker's actor: it must be quick (dispatch to the owner).
  using Callback = std::function<void(const Event&)>;

  // Checks start `spec.delay` after the actor starts; the grace period
  // counts from then too. After an event with `kill` no more checks run.
  HealthChecker(HealthCheckSpec spec, ProbeContext context, Callback callback);
  ~HealthChecker() override;

  // Ends checking: aborts a check under way; no more events.
  void stop();

  // The number of checks that have ended (passed, failed or timed out),
  // counted or not. For tests and logs.
  uint64_t checksDone() const { return checksDone_; }

 protected:
  void initialize() override;
  // Aborts the check under way and waits for its thread (brief: aborting
  // kills its process or wakes its poll).
  void finalize() override;

 private:
  void schedule(process::Duration after);
  void runCheck();
  void checkEnded(uint64_t id, ProbeOutcome outcome);
  void checkTimedOut(uint64_t id);
  void judge(const ProbeOutcome& outcome);
  // Forgets run `id` and joins its thread once it has ended.
  void reap(uint64_t id);

  const HealthCheckSpec spec_;
  const ProbeContext context_;
  const Callback callback_;
  std::unique_ptr<HealthPolicy> policy_;
  bool stopped_ = false;
  uint64_t nextId_ = 1;
  uint64_t current_ = 0;             // the run being judged; 0: none
  process::TimerId timeout_ = 0;
  process::TimerId next_ = 0;
  uint64_t checksDone_ = 0;
  // Runs whose thread has not been joined: the current one, and ones
  // aborted by a timeout whose thread has not reported yet.
  std::map<uint64_t, std::unique_ptr<ProbeRun>> runs_;
};

// Runs one check of `spec` on a new thread and calls `done` there with its
// outcome, unless aborted first. Exposed for tests of the probes themselves.
class ProbeRun {
 public:
  ProbeRun(const HealthCheckSpec& spec, const ProbeContext& context,
           std::function<void(ProbeOutcome)> done);
  // Aborts and joins.
  ~ProbeRun();
  ProbeRun(const ProbeRun&) = delete;
  ProbeRun& operator=(const ProbeRun&) = delete;

  // Ends the check early: a COMMAND's process group gets SIGKILL, a socket
  // is closed; `done` is then called with a failed outcome saying so. Any
  // thread may call it, more than once.
  void abort();
  // Waits for the thread. Returns at once after `done` has returned.
  void join();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace mesos::internal
