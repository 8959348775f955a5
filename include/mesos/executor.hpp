// The classic C++ executor API: an executor implements mesos::Executor and
// runs it with a MesosExecutorDriver, which talks to the slave that launched
// the executor process (the slave passes its address and the executor's
// identity in MESOS_* environment variables).
//
//   class MyExecutor : public mesos::Executor { ... };
//   int main() {
//     MyExecutor executor;
//     mesos::MesosExecutorDriver driver(&executor);
//     return driver.run() == mesos::DRIVER_STOPPED ? 0 : 1;
//   }
//
// Threading: the driver calls the Executor's callbacks one at a time, never
// two at once, from a thread of its actor runtime; a callback may call any
// driver method except join() and run(), and should return quickly (long
// work belongs on another thread). Driver methods may be called from any
// thread; they never wait for the slave.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "mesos.pb.h"

namespace process {
class Runtime;
}

namespace mesos {

namespace internal {
class ExecutorProcess;
struct ExecutorActorHandle;
}  // namespace internal

class ExecutorDriver;

// What an executor does when the slave talks to it. Every callback gets the
// driver that called it, so the executor can answer (sendStatusUpdate...).
class Executor {
 public:
  virtual ~Executor() = default;

  // The slave accepted the executor's registration. Runs once, before any
  // launchTask(). `executorInfo` and `frameworkInfo` are as the framework
  // sent them; `slaveInfo` describes the slave.
  virtual void registered(ExecutorDriver* driver, const ExecutorInfo& executorInfo,
                          const FrameworkInfo& frameworkInfo, const SlaveInfo& slaveInfo) = 0;

  // A restarted slave (framework with checkpointing) reconnected to this
  // executor and accepted its re-registration.
  virtual void reregistered(ExecutorDriver* driver, const SlaveInfo& slaveInfo) = 0;

  // The slave went away and the framework checkpoints: the driver waits up
  // to MESOS_RECOVERY_TIMEOUT for a restarted slave to reconnect
  // (reregistered()), and otherwise calls shutdown(). Without checkpointing a
  // slave that goes away means shutdown() at once.
  virtual void disconnected(ExecutorDriver* driver) = 0;

  // Run `task`. The executor reports its progress with sendStatusUpdate()
  // (TASK_RUNNING, then a terminal state). The driver never passes the same
  // task id twice.
  virtual void launchTask(ExecutorDriver* driver, const TaskInfo& task) = 0;

  // Run the tasks of `group` together (a LAUNCH_GROUP: all of them on this
  // executor, none of them given to launchTask()). `executorInfo` is the
  // group's executor, as the framework gave it. By default the executor
  // does not run groups: each task of it gets TASK_FAILED saying so.
  virtual void launchTaskGroup(ExecutorDriver* driver, const ExecutorInfo& executorInfo,
                               const TaskGroupInfo& group);

  // Kill a task this executor runs; the executor answers with a terminal
  // status update (normally TASK_KILLED).
  virtual void killTask(ExecutorDriver* driver, const TaskID& taskId) = 0;

  // The same when the kill carries its own kill policy (a v1 KILL call's
  // kill_policy, or a draining slave's max_grace_period, docs/draining.md),
  // which overrides the task's TaskInfo.kill_policy: at most `grace` between
  // asking the task to end and ending it. By default the plain killTask().
  virtual void killTaskWithGrace(ExecutorDriver* driver, const TaskID& taskId,
                                 std::chrono::nanoseconds grace) {
    (void)grace;
    killTask(driver, taskId);
  }

  // Opaque data the framework's scheduler sent (sendFrameworkMessage). Not
  // reliable: a message may be lost.
  virtual void frameworkMessage(ExecutorDriver* driver, const std::string& data) = 0;

  // Terminate every task and exit. Called when the slave asks, when the slave
  // goes away (see disconnected()), or when a checkpointing framework's slave
  // did not come back in time. Afterwards the driver delivers nothing else
  // from the slave except status update acknowledgements; status updates
  // can still be sent. The driver stops itself (join() returns
  // DRIVER_STOPPED) after MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD (default 5
  // seconds) unless the executor calls stop() sooner.
  virtual void shutdown(ExecutorDriver* driver) = 0;

  // The driver cannot continue (a bad environment at start(), or an executor
  // that sent a TASK_STAGING update); `message` says why. The driver is
  // aborted by the time this runs (except for an invalid status update,
  // which is only reported).
  virtual void error(ExecutorDriver* driver, const std::string& message) = 0;
};

// The executor's handle on the slave. Every method returns the driver's
// status after the call: DRIVER_NOT_STARTED, DRIVER_RUNNING, DRIVER_ABORTED
// or DRIVER_STOPPED. Calls that need a running driver do nothing and return
// the status when it is not running.
class ExecutorDriver {
 public:
  virtual ~ExecutorDriver() = default;

  // Reads the environment, starts the driver's actor and registers with the
  // slave. Returns DRIVER_RUNNING; on a missing or malformed MESOS_*
  // variable calls Executor::error() (on the calling thread) with a message
  // naming the variable and returns DRIVER_ABORTED. A second call returns
  // the current status and does nothing.
  virtual Status start() = 0;

  // Stops the driver: nothing more is sent or delivered once the requests
  // made before stop() have gone out. Returns DRIVER_STOPPED, or
  // DRIVER_ABORTED when the driver had been aborted (it is stopped now).
  virtual Status stop() = 0;

  // Stops delivering callbacks at once (at most the one running finishes)
  // and wakes join(); requests made before abort() still go out. Returns
  // DRIVER_ABORTED. A later stop() releases the driver's actor.
  virtual Status abort() = 0;

  // Blocks until the driver is stopped or aborted and returns that status;
  // returns at once when the driver is not running. REQUIRES: not called
  // from a callback.
  virtual Status join() = 0;

  // start(), then join() if it started. REQUIRES: not called from a
  // callback.
  virtual Status run() = 0;

  // Sends a task's status to the slave, which forwards it reliably to the
  // scheduler. The driver stamps the update with a fresh 16-byte UUID, the
  // time, the slave id and (if unset) the executor id and source, and keeps
  // it until the slave acknowledges it (the driver does not re-send: the
  // slave keeps updates reliably; unacknowledged ones are handed back when a
  // restarted slave reconnects). An update in TASK_STAGING is not allowed:
  // the driver aborts and calls Executor::error(). An update without a
  // task_id or state is not sent and is reported through Executor::error().
  virtual Status sendStatusUpdate(const TaskStatus& status) = 0;

  // Sends `data` to the framework's scheduler (through the slave and the
  // master). Not reliable.
  virtual Status sendFrameworkMessage(const std::string& data) = 0;
};

class MesosExecutorDriver : public ExecutorDriver {
 public:
  // Uses this process's environment and the OS process's shared runtime
  // (process::Runtime::global(), on LIBPROCESS_IP / LIBPROCESS_PORT).
  // `executor` is borrowed and must outlive the driver.
  explicit MesosExecutorDriver(Executor* executor);

  // For tests and embedders: reads the MESOS_* variables from `environment`
  // instead of the process's environment, and runs on `runtime` (borrowed;
  // it must outlive the driver) when given.
  MesosExecutorDriver(Executor* executor, std::map<std::string, std::string> environment,
                      process::Runtime* runtime = nullptr);

  // Terminates the driver's actor and waits for it. REQUIRES: not called
  // from a callback; the executor has stopped calling the driver.
  ~MesosExecutorDriver() override;

  MesosExecutorDriver(const MesosExecutorDriver&) = delete;
  MesosExecutorDriver& operator=(const MesosExecutorDriver&) = delete;

  Status start() override;
  Status stop() override;
  Status abort() override;
  Status join() override;
  Status run() override;
  Status sendStatusUpdate(const TaskStatus& status) override;
  Status sendFrameworkMessage(const std::string& data) override;

  // Not in Apache's API: stops the driver once the slave has acknowledged
  // every status update sent so far (at once if it has), or after `timeout`
  // at the latest. An executor calls it after its last terminal update so
  // that it exits only when the update is safe with the slave.
  Status stopWhenAcknowledged(std::chrono::nanoseconds timeout);

 private:
  friend class internal::ExecutorProcess;

  // Called by the driver's actor when it has terminated or processed an
  // abort: wakes join().
  void actorDone();
  Status abortLocked();

  Executor* const executor_;
  const std::map<std::string, std::string> environment_;
  process::Runtime* const givenRuntime_;

  std::mutex mutex_;  // guards everything below
  std::condition_variable done_;
  Status status_ = DRIVER_NOT_STARTED;
  bool actorDone_ = false;
  process::Runtime* runtime_ = nullptr;  // the one the actor runs on
  std::unique_ptr<internal::ExecutorActorHandle> actor_;
};

}  // namespace mesos
