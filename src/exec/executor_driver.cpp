// MesosExecutorDriver: the thread-safe front of the driver. Each method
// checks the driver's status under a mutex and hands the work to the
// driver's actor (ExecutorProcess) by dispatch; nothing here waits for the
// actor except join() and the destructor.
#include <cstdio>
#include <cstdlib>

#include <glog/logging.h>

#include "exec/executor_process.hpp"
#include "mesos/executor.hpp"
#include "process/dispatch.hpp"

namespace mesos {

void Executor::launchTaskGroup(ExecutorDriver* driver, const ExecutorInfo& executorInfo,
                               const TaskGroupInfo& group) {
  for (const TaskInfo& task : group.tasks()) {
    TaskStatus status;
    *status.mutable_task_id() = task.task_id();
    *status.mutable_executor_id() = executorInfo.executor_id();
    status.set_state(TASK_FAILED);
    status.set_source(TaskStatus::SOURCE_EXECUTOR);
    status.set_message("Executor " + executorInfo.executor_id().value() +
                       " does not run task groups (it does not implement launchTaskGroup)");
    driver->sendStatusUpdate(status);
  }
}

MesosExecutorDriver::MesosExecutorDriver(Executor* executor)
    : MesosExecutorDriver(executor, internal::currentEnvironment(), nullptr) {}

MesosExecutorDriver::MesosExecutorDriver(Executor* executor,
                                         std::map<std::string, std::string> environment,
                                         process::Runtime* runtime)
    : executor_(executor), environment_(std::move(environment)), givenRuntime_(runtime) {
  CHECK(executor_ != nullptr) << "MesosExecutorDriver needs an Executor";
}

MesosExecutorDriver::~MesosExecutorDriver() {
  // Not under mutex_: the actor's finalize() takes it.
  actor_.reset();
}

Status MesosExecutorDriver::start() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (status_ != DRIVER_NOT_STARTED) return status_;

  auto environment = internal::parseExecutorEnvironment(environment_);
  if (!environment) {
    status_ = DRIVER_ABORTED;
    actorDone_ = true;
    lock.unlock();
    LOG(ERROR) << environment.error().message;
    executor_->error(this, environment.error().message);
    return DRIVER_ABORTED;
  }

  // The token is this executor's alone: processes it starts from now on
  // (a command executor's task) do not inherit it.
  ::unsetenv("MESOS_EXECUTOR_AUTHENTICATION_TOKEN");

  // Flush the executor's output by line, so that logs of a process whose
  // output goes to a sandbox file stay readable while it runs.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::setvbuf(stderr, nullptr, _IOLBF, 0);

  runtime_ = givenRuntime_ != nullptr ? givenRuntime_ : &process::Runtime::global();
  actor_ = std::make_unique<internal::ExecutorActorHandle>();
  actor_->actor = runtime_->spawn<internal::ExecutorProcess>(this, executor_,
                                                           std::move(environment).value());
  status_ = DRIVER_RUNNING;
  return status_;
}

Status MesosExecutorDriver::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_ != DRIVER_RUNNING && status_ != DRIVER_ABORTED) return status_;
  const bool aborted = status_ == DRIVER_ABORTED;
  status_ = DRIVER_STOPPED;
  // The actor terminates after the requests already queued for it.
  runtime_->terminate(actor_->actor.pid());
  return aborted ? DRIVER_ABORTED : DRIVER_STOPPED;
}

Status MesosExecutorDriver::abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  return abortLocked();
}

Status MesosExecutorDriver::abortLocked() {
  if (status_ != DRIVER_RUNNING) return status_;
  actor_->actor->markAborted();
  process::dispatch(actor_->actor.pid(), &internal::ExecutorProcess::abort);
  status_ = DRIVER_ABORTED;
  return status_;
}

Status MesosExecutorDriver::join() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (status_ != DRIVER_RUNNING) return status_;
  done_.wait(lock, [this] { return actorDone_; });
  return status_;
}

Status MesosExecutorDriver::run() {
  Status status = start();
  return status != DRIVER_RUNNING ? status : join();
}

Status MesosExecutorDriver::sendStatusUpdate(const TaskStatus& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_ != DRIVER_RUNNING) return status_;
  const auto& pid = actor_->actor.pid();
  if (!status.has_task_id() || !status.has_state()) {
    process::dispatch(pid, &internal::ExecutorProcess::reportError,
                      std::string("Invalid status update (not sent): it needs a task_id and "
                                  "a state"));
    return status_;
  }
  if (status.state() == TASK_STAGING) {
    abortLocked();
    process::dispatch(pid, &internal::ExecutorProcess::reportError,
                      std::string("Attempted to send TASK_STAGING status update for task " +
                                  status.task_id().value() +
                                  "; executors may not send TASK_STAGING, the driver is "
                                  "aborted"));
    return status_;
  }
  process::dispatch(pid, &internal::ExecutorProcess::sendStatusUpdate, status);
  return status_;
}

Status MesosExecutorDriver::sendFrameworkMessage(const std::string& data) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_ != DRIVER_RUNNING) return status_;
  process::dispatch(actor_->actor.pid(), &internal::ExecutorProcess::sendFrameworkMessage, data);
  return status_;
}

Status MesosExecutorDriver::stopWhenAcknowledged(std::chrono::nanoseconds timeout) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_ != DRIVER_RUNNING) return status_;
  process::dispatch(actor_->actor.pid(), &internal::ExecutorProcess::stopWhenAcknowledged,
                    std::chrono::duration_cast<process::Duration>(timeout));
  return status_;
}

void MesosExecutorDriver::actorDone() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    actorDone_ = true;
  }
  done_.notify_all();
}

}  // namespace mesos
