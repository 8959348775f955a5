// mesos-torque-mom: the executor of the server's node tasks, our pbs_mom.
// The slave starts it for a node task; the task then runs for as long as
// the server holds the node, and the jobs the server sends (framework
// messages, protocol.hpp) run inside it, each on a thread of its own
// (job_runner.hpp). Killing the node task kills its jobs and ends the mom.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "mesos/executor.hpp"
#include "torque/job_runner.hpp"
#include "torque/protocol.hpp"

namespace {

using nlohmann::json;
using namespace mesos::frameworks::torque;

// One job this node was asked to run.
struct JobRecord {
  std::atomic<bool> killRequested{false};
  std::optional<json> done;   // the "done" message, once it ended
  bool acknowledged = false;  // the server has seen "done"
  std::thread thread;
};

class Mom : public mesos::Executor {
 public:
  explicit Mom(mesos::MesosExecutorDriver** driver) : driver_(driver) {
    const char* sandbox = std::getenv("MESOS_DIRECTORY");
    sandbox_ = sandbox != nullptr ? sandbox : ".";
  }

  // Ends the jobs and the mom's threads. REQUIRES: the driver has stopped
  // delivering callbacks and is still alive.
  void close() {
    stopResender();
    killAll();
    for (auto& [id, job] : jobs_) {
      if (job->thread.joinable()) job->thread.join();
    }
  }

  void registered(mesos::ExecutorDriver*, const mesos::ExecutorInfo&, const mesos::FrameworkInfo&,
                  const mesos::SlaveInfo& slave) override {
    std::cerr << "mesos-torque-mom on " << slave.hostname() << std::endl;
    resender_ = std::thread([this] { resendLoop(); });
  }

  void reregistered(mesos::ExecutorDriver*, const mesos::SlaveInfo&) override {}
  void disconnected(mesos::ExecutorDriver*) override {}

  // The node task: it runs until killed (the server gives the node back).
  void launchTask(mesos::ExecutorDriver* driver, const mesos::TaskInfo& task) override {
    sendState(driver, task.task_id(), mesos::TASK_RUNNING, "");
  }

  void killTask(mesos::ExecutorDriver* driver, const mesos::TaskID& taskId) override {
    killAll();
    sendState(driver, taskId, mesos::TASK_KILLED, "the node was given back");
    // Exits once the slave has the update; the jobs' threads end on their
    // own (their process groups are being killed).
    (*driver_)->stopWhenAcknowledged(std::chrono::seconds(10));
  }

  void frameworkMessage(mesos::ExecutorDriver* driver, const std::string& data) override {
    json message = json::parse(data, nullptr, false);
    if (!message.is_object() || !message.contains("job") || !message["job"].is_number_integer()) {
      std::cerr << "ignoring a malformed message from the server" << std::endl;
      return;
    }
    int64_t id = message["job"].get<int64_t>();
    try {
      std::string type = message.value("type", "");
      if (type == "run") {
        run(driver, id, message);
      } else if (type == "kill") {
        kill(driver, id);
      } else if (type == "ack") {
        std::lock_guard lock(mutex_);
        auto it = jobs_.find(id);
        if (it != jobs_.end()) it->second->acknowledged = true;
      }
    } catch (const json::exception& e) {
      // Nothing escapes a callback: a bad field drops the message.
      std::cerr << "ignoring a malformed message from the server: " << e.what() << std::endl;
    }
  }

  void shutdown(mesos::ExecutorDriver* driver) override {
    killAll();
    driver->stop();
  }

  void error(mesos::ExecutorDriver*, const std::string& message) override {
    std::cerr << "mesos-torque-mom: " << message << std::endl;
  }

 private:
  static void sendState(mesos::ExecutorDriver* driver, const mesos::TaskID& taskId,
                        mesos::TaskState state, const std::string& message) {
    mesos::TaskStatus status;
    status.mutable_task_id()->CopyFrom(taskId);
    status.set_state(state);
    if (!message.empty()) status.set_message(message);
    driver->sendStatusUpdate(status);
  }

  void run(mesos::ExecutorDriver* driver, int64_t id, const json& message) {
    std::lock_guard lock(mutex_);
    auto it = jobs_.find(id);
    if (it != jobs_.end()) {
      // A repeated "run": answer it again, run nothing twice.
      const JobRecord& job = *it->second;
      driver->sendFrameworkMessage(job.done ? jsonText(*job.done)
                                            : jsonText(json{{"type", "started"}, {"job", id}}));
      return;
    }
    RunRequest request;
    request.id = id;
    request.name = message.value("name", "job");
    request.user = message.value("user", "");
    request.submitHost = message.value("submit_host", "");
    request.script = message.value("script", "");
    request.workdir = message.value("workdir", "/");
    request.outPath = message.value("out", "");
    request.errPath = message.value("err", "");
    request.hosts = message.value("hosts", std::vector<std::string>{});
    request.ppn = message.value("ppn", 1);
    request.walltimeSeconds = message.value("walltime", int64_t{3600});
    request.environment = message.value("environment", std::map<std::string, std::string>{});

    auto job = std::make_unique<JobRecord>();
    JobRecord* record = job.get();
    std::string jobDir = sandbox_ + "/jobs/" + std::to_string(id);
    driver->sendFrameworkMessage(jsonText(json{{"type", "started"}, {"job", id}}));
    record->thread = std::thread([this, driver, record, request, jobDir] {
      RunOutcome outcome = runJob(request, jobDir, &record->killRequested);
      finished(driver, request.id, record, outcome);
    });
    jobs_[id] = std::move(job);
  }

  void kill(mesos::ExecutorDriver* driver, int64_t id) {
    std::lock_guard lock(mutex_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) {
      // Never started here (its "run" was lost): it ends now, and a late
      // "run" for it is answered with this.
      auto job = std::make_unique<JobRecord>();
      job->done = json{{"type", "done"},
                       {"job", id},
                       {"exit_status", kDeletedExitStatus},
                       {"comment", "killed before it started"}};
      driver->sendFrameworkMessage(jsonText(*job->done));
      jobs_[id] = std::move(job);
      return;
    }
    it->second->killRequested = true;
    if (it->second->done) driver->sendFrameworkMessage(jsonText(*it->second->done));
  }

  void finished(mesos::ExecutorDriver* driver, int64_t id, JobRecord* record,
                const RunOutcome& outcome) {
    json done{{"type", "done"},
              {"job", id},
              {"exit_status", outcome.exitStatus},
              {"comment", outcome.comment}};
    {
      std::lock_guard lock(mutex_);
      record->done = done;
    }
    driver->sendFrameworkMessage(jsonText(done));
  }

  void killAll() {
    std::lock_guard lock(mutex_);
    for (auto& [id, job] : jobs_) job->killRequested = true;
  }

  // Repeats every unacknowledged "done" each second (messages may be lost).
  void resendLoop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      wake_.wait_for(lock, std::chrono::seconds(1));
      if (stopping_) break;
      for (auto& [id, job] : jobs_) {
        if (job->done && !job->acknowledged) (*driver_)->sendFrameworkMessage(jsonText(*job->done));
      }
    }
  }

  void stopResender() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (resender_.joinable()) resender_.join();
  }

  mesos::MesosExecutorDriver** const driver_;
  std::string sandbox_;

  std::mutex mutex_;  // guards everything below
  std::condition_variable wake_;
  bool stopping_ = false;
  std::map<int64_t, std::unique_ptr<JobRecord>> jobs_;
  std::thread resender_;
};

}  // namespace

int main() {
  mesos::MesosExecutorDriver* driver = nullptr;
  Mom mom(&driver);
  mesos::MesosExecutorDriver executorDriver(&mom);
  driver = &executorDriver;
  mesos::Status status = executorDriver.run();
  mom.close();
  return status == mesos::DRIVER_STOPPED ? 0 : 1;
}
