// The Executor an executor program gives its driver when its work lives in
// an actor: every callback is handed to the actor `P` (its launch(task),
// kill(taskId, grace) and shutdown()), and the rest is logged. Used by the
// command executor and mesos-docker-executor, which run one task each.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <glog/logging.h>

#include "mesos/executor.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal {

template <typename P>
class ForwardingExecutor : public Executor {
 public:
  // `kind` names the executor in its log ("command", "docker").
  explicit ForwardingExecutor(std::string kind) : kind_(std::move(kind)) {}

  // REQUIRES: called before the driver starts.
  void attach(process::Pid<P> process) { process_ = std::move(process); }

  void registered(ExecutorDriver*, const ExecutorInfo& executorInfo, const FrameworkInfo&,
                  const SlaveInfo& slaveInfo) override {
    LOG(INFO) << "Registered " << kind_ << " executor " << executorInfo.executor_id().value()
              << " on " << slaveInfo.hostname();
  }
  void reregistered(ExecutorDriver*, const SlaveInfo& slaveInfo) override {
    LOG(INFO) << "Re-registered on " << slaveInfo.hostname();
  }
  void disconnected(ExecutorDriver*) override { LOG(INFO) << "Disconnected from the slave"; }
  void launchTask(ExecutorDriver*, const TaskInfo& task) override {
    process::dispatch(process_, &P::launch, task);
  }
  void killTask(ExecutorDriver*, const TaskID& taskId) override {
    process::dispatch(process_, &P::kill, taskId, std::optional<std::chrono::nanoseconds>());
  }
  void killTaskWithGrace(ExecutorDriver*, const TaskID& taskId,
                         std::chrono::nanoseconds grace) override {
    process::dispatch(process_, &P::kill, taskId, std::optional<std::chrono::nanoseconds>(grace));
  }
  void frameworkMessage(ExecutorDriver*, const std::string&) override {
    VLOG(1) << "Ignoring a framework message: the " << kind_ << " executor takes none";
  }
  void shutdown(ExecutorDriver*) override { process::dispatch(process_, &P::shutdown); }
  void error(ExecutorDriver*, const std::string& message) override {
    LOG(ERROR) << "Executor driver error: " << message;
  }

 private:
  const std::string kind_;
  process::Pid<P> process_;
};

}  // namespace mesos::internal
