// mesos-spark-executor: the long-lived executor of mesos-spark-lr. One runs
// per node the job uses; each partition task the driver launches on it names
// a block of the input file (PartitionTask in the task's data). The
// executor reads that block from the block store as its node (a local read
// when the node holds a copy), parses it once on the first request and
// keeps the points in memory; every "compute" message then costs one pass
// over memory. With cache off it reads and parses again for each request.
//
// Threads: the driver's callbacks only record requests and answer at once
// (acks, resent results); one worker thread of ours loads, parses and
// computes, one partition at a time, and sends the results.
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "dfs/dfs.hpp"
#include "mesos/executor.hpp"
#include "spark/dataset.hpp"
#include "spark/protocol.hpp"

namespace mesos::frameworks::spark {
namespace {

double millisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

class SparkExecutor : public Executor {
 public:
  SparkExecutor() : worker_([this] { work(); }) {}

  ~SparkExecutor() override { stopWorker(); }

  // Stops the worker and waits for it (a computation in progress finishes,
  // unsent). Call it before the driver goes away: the worker uses it.
  void stopWorker() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  void registered(ExecutorDriver* driver, const ExecutorInfo& executor, const FrameworkInfo&,
                  const SlaveInfo& slave) override {
    std::lock_guard lock(mutex_);
    driver_ = driver;
    host_ = slave.hostname();
    std::cerr << "mesos-spark-executor " << executor.executor_id().value() << " on " << host_
              << std::endl;
  }

  void reregistered(ExecutorDriver*, const SlaveInfo&) override {}
  void disconnected(ExecutorDriver*) override {}

  void launchTask(ExecutorDriver* driver, const TaskInfo& task) override {
    TaskStatus status;
    status.mutable_task_id()->CopyFrom(task.task_id());
    std::optional<PartitionTask> partition = decodePartitionTask(task.data());
    if (!partition) {
      status.set_state(TASK_FAILED);
      status.set_message("mesos-spark-executor: the task's data is not a partition description");
      driver->sendStatusUpdate(status);
      return;
    }
    {
      std::lock_guard lock(mutex_);
      tasks_[partition->partition] = Assigned{task.task_id(), *partition};
    }
    status.set_state(TASK_RUNNING);
    driver->sendStatusUpdate(status);
  }

  void killTask(ExecutorDriver* driver, const TaskID& taskId) override {
    {
      std::lock_guard lock(mutex_);
      for (auto it = tasks_.begin(); it != tasks_.end(); ++it) {
        if (it->second.taskId.value() == taskId.value()) {
          pending_.erase(it->first);
          answers_.erase(it->first);
          tasks_.erase(it);
          break;
        }
      }
    }
    TaskStatus status;
    status.mutable_task_id()->CopyFrom(taskId);
    status.set_state(TASK_KILLED);
    driver->sendStatusUpdate(status);
  }

  void frameworkMessage(ExecutorDriver* driver, const std::string& data) override {
    std::optional<ComputeRequest> request = decodeComputeRequest(data);
    if (!request) {
      std::cerr << "mesos-spark-executor: ignored a message that is not a compute request"
                << std::endl;
      return;
    }
    Ack ack;
    ack.iteration = request->iteration;
    std::vector<std::string> resend;
    {
      std::lock_guard lock(mutex_);
      auto shared = std::make_shared<const ComputeRequest>(*request);
      for (uint32_t partition : request->partitions) {
        if (!tasks_.contains(partition)) continue;  // not (or no longer) ours
        ack.partitions.push_back(partition);
        auto answer = answers_.find(partition);
        if (answer != answers_.end() && answer->second.iteration == request->iteration) {
          resend.push_back(answer->second.encoded);  // the result was lost on the way
          continue;
        }
        auto queued = pending_.find(partition);
        if (queued != pending_.end() && queued->second->iteration >= request->iteration) continue;
        if (working_ && working_->first == partition && working_->second >= request->iteration) {
          continue;
        }
        pending_[partition] = shared;
      }
    }
    changed_.notify_all();
    driver->sendFrameworkMessage(encode(ack));
    for (const std::string& message : resend) driver->sendFrameworkMessage(message);
  }

  void shutdown(ExecutorDriver* driver) override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    driver->stop();
  }

  void error(ExecutorDriver*, const std::string& message) override {
    std::cerr << "mesos-spark-executor: " << message << std::endl;
  }

 private:
  struct Assigned {
    TaskID taskId;
    PartitionTask task;
  };
  struct Answer {
    uint64_t iteration = 0;
    std::string encoded;
  };

  // The worker: takes the lowest pending partition, computes, answers.
  void work() {
    std::unique_lock lock(mutex_);
    while (true) {
      changed_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (stopping_) return;
      auto next = pending_.begin();
      uint32_t partition = next->first;
      std::shared_ptr<const ComputeRequest> request = next->second;
      pending_.erase(next);
      auto assigned = tasks_.find(partition);
      if (assigned == tasks_.end()) continue;
      PartitionTask task = assigned->second.task;
      ExecutorDriver* driver = driver_;
      std::string host = host_;
      working_ = {partition, request->iteration};
      // Forget the data of partitions that are no longer ours.
      std::erase_if(cache_, [this](const auto& entry) { return !tasks_.contains(entry.first); });
      lock.unlock();

      std::string message = compute(task, host, *request);

      lock.lock();
      working_.reset();
      if (stopping_) return;
      if (tasks_.contains(partition)) {
        answers_[partition] = Answer{request->iteration, message};
      }
      // Sent with the lock held: stopWorker() cannot return (and the driver
      // go away) in the middle.
      bool drop = task.dropEvery > 0 && ++results_ % task.dropEvery == 0;
      if (driver != nullptr && !drop) driver->sendFrameworkMessage(message);
    }
  }

  // One partition's answer to `request` (a result or a failure), encoded.
  // Runs on the worker without the lock; cache_ belongs to the worker.
  std::string compute(const PartitionTask& task, const std::string& host,
                      const ComputeRequest& request) {
    PartitionResult result;
    result.iteration = request.iteration;
    result.partition = task.partition;
    auto cached = cache_.find(task.partition);
    if (cached == cache_.end()) {
      auto start = std::chrono::steady_clock::now();
      dfs::Store store(task.root);
      auto block = store.readBlock(task.file, task.partition, host);
      if (!block) {
        return encode(PartitionFailure{request.iteration, task.partition,
                                       "reading block " + std::to_string(task.partition) + " of " +
                                           task.file + " on " + host + ": " + block.error()});
      }
      std::string error;
      std::optional<Partition> parsed = parsePartition(block->data, task.dims, &error);
      if (!parsed) {
        return encode(PartitionFailure{request.iteration, task.partition,
                                       "block " + std::to_string(task.partition) + " of " +
                                           task.file + ", " + error});
      }
      result.loaded = true;
      result.remote = block->remote;
      result.loadMs = millisSince(start);
      cached = cache_.emplace(task.partition, std::move(*parsed)).first;
    }
    if (request.weights.size() != task.dims ||
        (!request.reference.empty() && request.reference.size() != task.dims)) {
      return encode(PartitionFailure{request.iteration, task.partition,
                                     "the weights do not have " + std::to_string(task.dims) +
                                         " dimensions"});
    }
    auto start = std::chrono::steady_clock::now();
    result.partial = computePartial(cached->second, request.weights, request.reference);
    result.computeMs = millisSince(start);
    if (!task.cache) cache_.erase(cached);
    return encode(result);
  }

  std::mutex mutex_;  // guards everything below but cache_
  std::condition_variable changed_;
  ExecutorDriver* driver_ = nullptr;
  std::string host_;
  bool stopping_ = false;
  std::map<uint32_t, Assigned> tasks_;  // partition -> its task on this executor
  std::map<uint32_t, std::shared_ptr<const ComputeRequest>> pending_;
  std::optional<std::pair<uint32_t, uint64_t>> working_;  // partition, iteration
  std::map<uint32_t, Answer> answers_;  // the latest answer per partition
  std::map<uint32_t, Partition> cache_;  // the worker's only
  uint64_t results_ = 0;  // computed so far
  std::thread worker_;  // last: starts after the members it uses
};

}  // namespace
}  // namespace mesos::frameworks::spark

int main() {
  mesos::frameworks::spark::SparkExecutor executor;
  mesos::MesosExecutorDriver driver(&executor);
  mesos::Status status = driver.run();
  executor.stopWorker();
  return status == mesos::DRIVER_STOPPED ? 0 : 1;
}
