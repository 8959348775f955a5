// short_tasks: how much of a cluster short command tasks keep busy. Runs
// --frameworks schedulers in this process against a running master; between
// them they run --tasks command tasks (`sleep --task_seconds`, one cpu each,
// no executor of their own: each task is a command executor process), taking
// every offer they can use, and prints once all finished:
//   makespan_s              from the drivers' start to the last TASK_FINISHED
//   utilization_percent     tasks x task_seconds / (slots x makespan)
//   tasks_per_s             tasks / makespan
//   overhead_per_task_ms    slot time not spent in the tasks' work, per task
//   launch_latency_p50_ms   launchTasks() to TASK_RUNNING (and p99)
//   first_start_ms          the drivers' start to the first TASK_RUNNING
// --slots is the cluster's cpus (utilization's denominator). A benchmark, not
// a test: it prints figures and fails only if a task does.
//
//   short_tasks --master=127.0.0.1:5050 --slots=8 --tasks=160 --task_seconds=1
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "mesos/resources.hpp"
#include "mesos/scheduler.hpp"

DEFINE_string(master, "", "the master (host:port)");
DEFINE_int32(frameworks, 1, "schedulers sharing the tasks (registered as separate frameworks)");
DEFINE_int32(tasks, 160, "command tasks to run in all");
DEFINE_double(task_seconds, 1.0, "how long each task sleeps");
DEFINE_double(task_cpus, 1.0, "cpus per task");
DEFINE_double(task_mem, 16.0, "memory per task, in MB");
DEFINE_double(slots, 8.0, "the cluster's cpus, for utilization");
DEFINE_int32(timeout_s, 600, "give up after this long");

namespace {

using namespace mesos;
using Clock = std::chrono::steady_clock;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// What every scheduler reports to: counts and times, under one lock.
struct Tally {
  std::mutex mutex;
  std::condition_variable changed;
  int finished = 0;
  int failed = 0;
  std::vector<double> latenciesMs;
  Clock::time_point firstRunning, lastFinished;
};

class ShortTaskScheduler : public Scheduler {
 public:
  ShortTaskScheduler(int index, int tasks, Tally& tally)
      : index_(index), total_(tasks), tally_(tally) {
    perTask_ = Resources::parse("cpus:" + std::to_string(FLAGS_task_cpus) +
                                ";mem:" + std::to_string(FLAGS_task_mem))
                   .value();
    command_.set_shell(false);
    command_.set_value("/bin/sleep");
    command_.add_arguments("sleep");
    command_.add_arguments(std::to_string(FLAGS_task_seconds));
  }

  void registered(SchedulerDriver*, const FrameworkID&, const MasterInfo&) override {}
  void reregistered(SchedulerDriver*, const MasterInfo&) override {}
  void disconnected(SchedulerDriver*) override {}
  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override {
    for (const Offer& offer : offers) {
      Resources left(offer.resources());
      std::vector<TaskInfo> tasks;
      while (launched_ < total_ && left.contains(perTask_)) {
        TaskInfo task;
        task.set_name("short task");
        task.mutable_task_id()->set_value(std::to_string(index_) + "." +
                                          std::to_string(launched_++));
        task.mutable_slave_id()->CopyFrom(offer.slave_id());
        *task.mutable_command() = command_;
        *task.mutable_resources() = perTask_.proto();
        left -= perTask_;
        tasks.push_back(std::move(task));
      }
      auto now = Clock::now();
      for (const TaskInfo& task : tasks) launchedAt_[task.task_id().value()] = now;
      if (tasks.empty()) {
        // Nothing left to launch: no more offers until its tasks are done.
        Filters filters;
        filters.set_refuse_seconds(FLAGS_timeout_s);
        driver->declineOffer(offer.id(), filters);
      } else {
        driver->launchTasks(offer.id(), tasks);
      }
    }
  }
  void offerRescinded(SchedulerDriver*, const OfferID&) override {}
  void statusUpdate(SchedulerDriver*, const TaskStatus& status) override {
    auto now = Clock::now();
    std::lock_guard<std::mutex> lock(tally_.mutex);
    switch (status.state()) {
      case TASK_STARTING:
        return;
      case TASK_RUNNING: {
        auto it = launchedAt_.find(status.task_id().value());
        if (it != launchedAt_.end()) tally_.latenciesMs.push_back(ms(now - it->second));
        if (tally_.firstRunning == Clock::time_point()) tally_.firstRunning = now;
        return;
      }
      case TASK_FINISHED:
        tally_.finished++;
        tally_.lastFinished = now;
        break;
      default:
        tally_.failed++;
        std::cerr << "short_tasks: task " << status.task_id().value() << " "
                  << TaskState_Name(status.state()) << ": " << status.message() << std::endl;
    }
    tally_.changed.notify_all();
  }
  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string&) override {}
  void slaveLost(SchedulerDriver*, const SlaveID&) override {}
  void executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID&, int) override {}
  void error(SchedulerDriver*, const std::string& message) override {
    std::lock_guard<std::mutex> lock(tally_.mutex);
    std::cerr << "short_tasks: framework " << index_ << ": " << message << std::endl;
    tally_.failed = FLAGS_tasks;
    tally_.changed.notify_all();
  }

 private:
  int index_;
  int total_;
  int launched_ = 0;  // Offers come on the driver's one thread: no lock.
  Tally& tally_;
  Resources perTask_;
  CommandInfo command_;
  std::map<std::string, Clock::time_point> launchedAt_;
};

}  // namespace

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = google::GLOG_WARNING;
  if (FLAGS_master.empty() || FLAGS_frameworks < 1 || FLAGS_tasks < FLAGS_frameworks ||
      FLAGS_task_seconds < 0 || FLAGS_slots <= 0) {
    std::cerr << "short_tasks: needs --master, --frameworks >= 1, --tasks >= --frameworks, "
                 "--task_seconds >= 0 and --slots > 0"
              << std::endl;
    return 2;
  }

  Tally tally;
  std::vector<std::unique_ptr<ShortTaskScheduler>> schedulers;
  std::vector<std::unique_ptr<MesosSchedulerDriver>> drivers;
  for (int i = 0; i < FLAGS_frameworks; ++i) {
    // The tasks split as evenly as they go: the first ones take the rest.
    int tasks = FLAGS_tasks / FLAGS_frameworks + (i < FLAGS_tasks % FLAGS_frameworks ? 1 : 0);
    schedulers.push_back(std::make_unique<ShortTaskScheduler>(i, tasks, tally));
    FrameworkInfo framework;
    framework.set_name("short_tasks " + std::to_string(i));
    drivers.push_back(
        std::make_unique<MesosSchedulerDriver>(schedulers.back().get(), framework, FLAGS_master));
  }
  Clock::time_point start = Clock::now();
  for (auto& driver : drivers) driver->start();

  bool done;
  {
    std::unique_lock<std::mutex> lock(tally.mutex);
    done = tally.changed.wait_for(lock, std::chrono::seconds(FLAGS_timeout_s),
                                  [&] { return tally.finished + tally.failed >= FLAGS_tasks; });
  }
  for (auto& driver : drivers) driver->stop();
  for (auto& driver : drivers) driver->join();

  std::lock_guard<std::mutex> lock(tally.mutex);
  if (!done || tally.failed > 0) {
    std::cerr << "short_tasks: " << tally.finished << " of " << FLAGS_tasks << " tasks finished"
              << (done ? "" : " before the timeout") << std::endl;
    return 1;
  }
  double makespan = ms(tally.lastFinished - start) / 1000;
  double work = FLAGS_tasks * FLAGS_task_seconds * FLAGS_task_cpus;
  auto& latencies = tally.latenciesMs;
  std::sort(latencies.begin(), latencies.end());
  auto percentile = [&](size_t p) {
    return latencies.empty()
               ? 0.0
               : latencies[std::min(latencies.size() - 1, latencies.size() * p / 100)];
  };
  std::printf("frameworks: %d frameworks\n", FLAGS_frameworks);
  std::printf("tasks: %d tasks\n", FLAGS_tasks);
  std::printf("task_seconds: %g s\n", FLAGS_task_seconds);
  std::printf("makespan_s: %.3f s\n", makespan);
  std::printf("utilization_percent: %.1f %%\n", 100 * work / (FLAGS_slots * makespan));
  std::printf("tasks_per_s: %.2f tasks/s\n", FLAGS_tasks / makespan);
  std::printf("overhead_per_task_ms: %.1f ms\n",
              1000 * (FLAGS_slots * makespan - work) / FLAGS_tasks / FLAGS_task_cpus);
  std::printf("launch_latency_p50_ms: %.1f ms\n", percentile(50));
  std::printf("launch_latency_p99_ms: %.1f ms\n", percentile(99));
  std::printf("first_start_ms: %.1f ms\n", ms(tally.firstRunning - start));
  return 0;
}
