// mesos-mapreduce-executor: the TaskTracker. One runs on every slave the
// JobTracker launches tasks on (executor id "tasktracker"); it runs each
// task attempt on a thread of its own (worker.hpp) and serves the map
// outputs it holds over HTTP:
//
//   GET /mapout/<job>/<attempt>/<partition>   "key<TAB>value" lines
//   GET /health                               "ok"
//
// The server listens on every address, on a port the kernel picks; the
// TaskTracker reports "<slave hostname>:<port>" in each finished task's
// status data (TaskOutcome), which is how reduces find map outputs. Map
// outputs live in the executor's sandbox (<sandbox>/mapout), so they go
// when the executor goes: the JobTracker then recomputes them.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

#include "mapreduce/worker.hpp"
#include "mesos/executor.hpp"

namespace mesos::frameworks::mapreduce {
namespace {

namespace fs = std::filesystem;

class TaskTracker : public mesos::Executor {
 public:
  TaskTracker() {
    char buffer[4096];
    std::string cwd = ::getcwd(buffer, sizeof(buffer)) != nullptr ? buffer : ".";
    outputRoot_ = cwd + "/mapout";
  }

  ~TaskTracker() override { stopEverything(); }

  void registered(ExecutorDriver* driver, const ExecutorInfo&, const FrameworkInfo&,
                  const SlaveInfo& slaveInfo) override {
    host_ = slaveInfo.hostname();
    startServer(driver);
  }

  void reregistered(ExecutorDriver*, const SlaveInfo&) override {}
  void disconnected(ExecutorDriver*) override {}

  void launchTask(ExecutorDriver* driver, const TaskInfo& task) override {
    auto spec = taskSpecFromJson(task.data());
    if (!spec) {
      sendStatus(driver, task.task_id(), TASK_FAILED, spec.error(), "");
      return;
    }
    if (port_ == 0) {
      sendStatus(driver, task.task_id(), TASK_FAILED,
                 "the TaskTracker on " + host_ + " could not start its HTTP server", "");
      return;
    }
    auto cancel = std::make_shared<Cancellation>();
    std::lock_guard<std::mutex> lock(mutex_);
    reapFinishedLocked();
    running_[task.task_id().value()] = cancel;
    auto finished = std::make_shared<std::atomic<bool>>(false);
    threads_.push_back(Worker{std::thread([this, driver, id = task.task_id(),
                                           spec = std::move(*spec), cancel, finished] {
                                run(driver, id, spec, *cancel);
                                *finished = true;
                              }),
                              finished});
  }

  void killTask(ExecutorDriver*, const TaskID& taskId) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = running_.find(taskId.value());
    if (it != running_.end()) it->second->cancel();
  }

  void frameworkMessage(ExecutorDriver*, const std::string& data) override {
    // "cleanup <job>": the job is over; drop its map outputs.
    if (data.rfind("cleanup ", 0) == 0) {
      std::string job = data.substr(8);
      if (safeComponent(job)) {
        std::error_code error;
        fs::remove_all(fs::path(outputRoot_) / job, error);
      }
    }
  }

  void shutdown(ExecutorDriver* driver) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& [id, cancel] : running_) cancel->cancel();
    }
    if (server_) server_->stop();
    driver->stop();
  }

  void error(ExecutorDriver*, const std::string& message) override {
    std::cerr << "mesos-mapreduce-executor: " << message << std::endl;
  }

  void stopEverything() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& [id, cancel] : running_) cancel->cancel();
    }
    if (server_) server_->stop();
    if (serverThread_.joinable()) serverThread_.join();
    std::vector<Worker> workers;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      workers.swap(threads_);
    }
    for (Worker& worker : workers) worker.thread.join();
  }

 private:
  // A task's thread; `finished` is set as its last step.
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };

  // Joins the threads of finished tasks (they have returned or are about to).
  void reapFinishedLocked() {
    for (auto it = threads_.begin(); it != threads_.end();) {
      if (*it->finished) {
        it->thread.join();
        it = threads_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void startServer(ExecutorDriver*) {
    server_ = std::make_unique<httplib::Server>();
    server_->Get("/health", [](const httplib::Request&, httplib::Response& response) {
      response.set_content("ok\n", "text/plain");
    });
    serveMapOutputs(*server_, outputRoot_);
    int port = server_->bind_to_any_port("0.0.0.0");
    if (port <= 0) {
      std::cerr << "mesos-mapreduce-executor: cannot listen on any port" << std::endl;
      return;
    }
    port_ = static_cast<uint16_t>(port);
    serverThread_ = std::thread([this] { server_->listen_after_bind(); });
    std::cerr << "TaskTracker on " << host_ << " serving map outputs on port " << port_
              << std::endl;
  }

  void run(ExecutorDriver* driver, const TaskID& id, const TaskSpec& spec, Cancellation& cancel) {
    sendStatus(driver, id, TASK_RUNNING, "", "");
    Result<TaskOutcome> outcome = Result<TaskOutcome>::failure("not run");
    try {
      outcome = spec.isMap ? runMap(spec, host_, outputRoot_, cancel)
                           : runReduce(spec, host_, cancel);
    } catch (const std::exception& e) {
      outcome = Result<TaskOutcome>::failure(std::string("unexpected error: ") + e.what());
    }
    if (cancel.requested) {
      sendStatus(driver, id, TASK_KILLED, "killed by the JobTracker", "");
    } else if (!outcome) {
      sendStatus(driver, id, TASK_FAILED, outcome.error(), "");
    } else {
      outcome->host = host_;
      outcome->port = port_;
      const bool fetchFailed = !outcome->fetchFailed.empty();
      sendStatus(driver, id, fetchFailed ? TASK_FAILED : TASK_FINISHED,
                 fetchFailed ? "could not fetch some map outputs" : "",
                 toJson(*outcome).dump());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    running_.erase(id.value());
  }

  void sendStatus(ExecutorDriver* driver, const TaskID& id, TaskState state,
                  const std::string& message, const std::string& data) {
    TaskStatus status;
    status.mutable_task_id()->CopyFrom(id);
    status.set_state(state);
    if (!message.empty()) status.set_message(message);
    if (!data.empty()) status.set_data(data);
    driver->sendStatusUpdate(status);
  }

  std::string host_ = "localhost";
  std::string outputRoot_;
  std::unique_ptr<httplib::Server> server_;
  std::thread serverThread_;
  uint16_t port_ = 0;

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Cancellation>> running_;  // by task id
  std::vector<Worker> threads_;
};

}  // namespace
}  // namespace mesos::frameworks::mapreduce

int main() {
  ::signal(SIGPIPE, SIG_IGN);
  mesos::frameworks::mapreduce::TaskTracker tracker;
  mesos::MesosExecutorDriver driver(&tracker);
  mesos::Status status = driver.run();
  tracker.stopEverything();
  return status == mesos::DRIVER_STOPPED ? 0 : 1;
}
