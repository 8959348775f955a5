// test-executor: test-framework's executor. For each task it reports
// TASK_RUNNING, works (sleeps) for the number of seconds in the task's data
// on a thread of its own, and reports TASK_FINISHED.
#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include "mesos/executor.hpp"

namespace {

using namespace mesos;

class TestExecutor : public Executor {
 public:
  ~TestExecutor() override {
    for (auto& worker : workers_) worker.join();
  }

  void registered(ExecutorDriver*, const ExecutorInfo& executor, const FrameworkInfo&,
                  const SlaveInfo& slave) override {
    std::cout << "Registered executor " << executor.executor_id().value() << " on "
              << slave.hostname() << std::endl;
  }
  void reregistered(ExecutorDriver*, const SlaveInfo&) override {}
  void disconnected(ExecutorDriver*) override {}

  void launchTask(ExecutorDriver* driver, const TaskInfo& task) override {
    TaskStatus status;
    status.mutable_task_id()->CopyFrom(task.task_id());
    status.set_state(TASK_RUNNING);
    driver->sendStatusUpdate(status);
    double seconds = 0;
    try {
      seconds = std::stod(task.data());
    } catch (...) {
    }
    workers_.emplace_back([driver, status, seconds]() mutable {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
      status.set_state(TASK_FINISHED);
      driver->sendStatusUpdate(status);
    });
  }

  void killTask(ExecutorDriver* driver, const TaskID& taskId) override {
    TaskStatus status;
    status.mutable_task_id()->CopyFrom(taskId);
    status.set_state(TASK_KILLED);
    driver->sendStatusUpdate(status);
  }
  void frameworkMessage(ExecutorDriver*, const std::string&) override {}
  void shutdown(ExecutorDriver* driver) override { driver->stop(); }
  void error(ExecutorDriver*, const std::string& message) override {
    std::cerr << "Error: " << message << std::endl;
  }

 private:
  std::vector<std::thread> workers_;
};

}  // namespace

int main() {
  TestExecutor executor;
  MesosExecutorDriver driver(&executor);
  return driver.run() == DRIVER_STOPPED ? 0 : 1;
}
