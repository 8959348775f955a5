// launch_bench: how fast the offer path launches tasks. Runs a master and
// --slaves slaves in this process (as mesos-local does) and a framework that
// launches --tasks tasks on test-executor (one executor per slave, reused, so
// the figures measure Mesos's overhead rather than process start-up), and
// prints:
//   tasks_per_s            tasks launched and RUNNING per second
//   launch_latency_mean_ms from launchTasks() to the TASK_RUNNING callback
//   launch_latency_p99_ms
// A benchmark, not a test: it prints figures and fails only if tasks do.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "mesos/resources.hpp"
#include "local/cluster.hpp"
#include "mesos/scheduler.hpp"

DEFINE_int32(slaves, 10, "slaves in the cluster");
DEFINE_int32(tasks, 2000, "tasks to launch");
DEFINE_int32(timeout_s, 120, "give up after this long");

namespace {

using namespace mesos;
using Clock = std::chrono::steady_clock;

std::string binaryDir() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  CHECK_GT(n, 0);
  return std::filesystem::path(std::string(path, static_cast<size_t>(n))).parent_path().string();
}

class LaunchScheduler : public Scheduler {
 public:
  LaunchScheduler(int tasks, std::string executorPath) : total_(tasks) {
    executor_.mutable_executor_id()->set_value("bench-executor");
    executor_.mutable_command()->set_value(executorPath);
    executor_.mutable_command()->set_shell(false);
    executor_.mutable_command()->add_arguments("test-executor");
    perTask_ = Resources::parse("cpus:0.01;mem:1").value();
  }

  bool wait(std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return done_.wait_for(lock, timeout, [this] { return running_ + failed_ >= total_; });
  }

  std::vector<double> latenciesMs;
  Clock::time_point first, last;
  int failed() const { return failed_; }

  void registered(SchedulerDriver*, const FrameworkID&, const MasterInfo&) override {}
  void reregistered(SchedulerDriver*, const MasterInfo&) override {}
  void disconnected(SchedulerDriver*) override {}
  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override {
    for (const Offer& offer : offers) {
      Resources left(offer.resources());
      std::vector<TaskInfo> tasks;
      while (launched_ < total_ && left.contains(perTask_)) {
        TaskInfo task;
        task.set_name("bench");
        task.mutable_task_id()->set_value(std::to_string(launched_++));
        task.mutable_slave_id()->CopyFrom(offer.slave_id());
        task.mutable_executor()->CopyFrom(executor_);
        *task.mutable_resources() = perTask_.proto();
        task.set_data("0");
        left -= perTask_;
        tasks.push_back(std::move(task));
      }
      auto now = Clock::now();
      std::lock_guard<std::mutex> lock(mutex_);
      if (first == Clock::time_point()) first = now;
      for (const TaskInfo& task : tasks) launchedAt_[task.task_id().value()] = now;
      if (tasks.empty()) {
        driver->declineOffer(offer.id());
      } else {
        driver->launchTasks(offer.id(), tasks);
      }
    }
  }
  void offerRescinded(SchedulerDriver*, const OfferID&) override {}
  void statusUpdate(SchedulerDriver*, const TaskStatus& status) override {
    auto now = Clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (status.state() == TASK_RUNNING) {
      auto it = launchedAt_.find(status.task_id().value());
      if (it != launchedAt_.end()) {
        latenciesMs.push_back(std::chrono::duration<double, std::milli>(now - it->second).count());
        running_++;
        last = now;
      }
    } else if (status.state() != TASK_FINISHED && status.state() != TASK_STARTING) {
      failed_++;
      std::cerr << "task " << status.task_id().value() << " " << TaskState_Name(status.state())
                << ": " << status.message() << std::endl;
    }
    if (running_ + failed_ >= total_) done_.notify_all();
  }
  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string&) override {}
  void slaveLost(SchedulerDriver*, const SlaveID&) override {}
  void executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID&, int) override {}
  void error(SchedulerDriver*, const std::string& message) override {
    std::cerr << "error: " << message << std::endl;
  }

 private:
  int total_;
  int launched_ = 0;
  int running_ = 0;
  int failed_ = 0;
  ExecutorInfo executor_;
  Resources perTask_;
  std::mutex mutex_;
  std::condition_variable done_;
  std::map<std::string, Clock::time_point> launchedAt_;
};

}  // namespace

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = google::GLOG_WARNING;

  std::string dir = binaryDir();
  std::string executor = dir + "/../frameworks/test/test-executor";
  std::string launcherDir = dir + "/../src/exec";
  char work[] = "/tmp/launch-bench-XXXXXX";
  CHECK(mkdtemp(work) != nullptr);

  process::Runtime::Options options;
  // Its tasks run as this process's user, root too: a rule must name root.
  mesos::internal::master::MasterFlags masterFlags;
  masterFlags.security.acls =
      R"({"run_tasks": [{"principals": {"type": "ANY"}, "users": {"values": ["root"]}}]})";
  auto cluster = mesos::internal::local::LocalCluster::start(options, masterFlags);
  CHECK(cluster.ok()) << cluster.error().message;
  for (int i = 0; i < FLAGS_slaves; ++i) {
    auto slave = (*cluster)->addSlave({std::string("--work_dir=") + work,
                                       "--resources=cpus:8;mem:8192;disk:1024",
                                       "--launcher_dir=" + launcherDir});
    CHECK(slave.ok()) << slave.error().message;
  }

  LaunchScheduler scheduler(FLAGS_tasks, executor);
  FrameworkInfo framework;
  framework.set_name("launch_bench");
  int status = 0;
  {
    MesosSchedulerDriver driver(&scheduler, framework,
                                (*cluster)->runtime().address().toString(), true,
                                &(*cluster)->runtime());
    driver.start();
    if (!scheduler.wait(std::chrono::seconds(FLAGS_timeout_s)) || scheduler.failed() > 0) {
      std::cerr << "launch_bench: not every task reached TASK_RUNNING" << std::endl;
      status = 1;
    }
    driver.stop();
    driver.join();
  }
  auto& latencies = scheduler.latenciesMs;
  if (!latencies.empty()) {
    std::sort(latencies.begin(), latencies.end());
    double sum = 0;
    for (double l : latencies) sum += l;
    double seconds = std::chrono::duration<double>(scheduler.last - scheduler.first).count();
    std::printf("slaves: %d\n", FLAGS_slaves);
    std::printf("tasks: %zu tasks\n", latencies.size());
    std::printf("tasks_per_s: %.0f tasks/s\n", seconds > 0 ? latencies.size() / seconds : 0.0);
    std::printf("launch_latency_mean_ms: %.2f ms\n", sum / latencies.size());
    std::printf("launch_latency_p99_ms: %.2f ms\n",
                latencies[std::min(latencies.size() - 1, latencies.size() * 99 / 100)]);
  }
  cluster.value().reset();
  std::filesystem::remove_all(work);
  return status;
}
