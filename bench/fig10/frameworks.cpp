// fig10-frameworks: --count frameworks in one process, for the Figure 10
// harness (bench/fig10/main.cpp starts it). Each is a MesosSchedulerDriver
// (include/mesos/scheduler.hpp) of its own; they share one runtime. A
// framework keeps the cluster busy as in the paper's section 6.5: from every
// offer it launches as many tasks as fit, one per slot of 1 cpu and 1024 MB,
// each with a duration drawn from N(--task_mean_s, --task_stddev_s) and
// raised to at least --task_min_s, written into TaskInfo.data in
// milliseconds for the emulated slave (fig10-slaves) to run as a timer. What
// it cannot use it declines, refused for --refuse_s. Status updates are
// acknowledged by the driver (implicit acknowledgements).
//
// Like a mesos-go v0 framework, each also GETs the master's /state every
// --state_poll_s (0: never) on a thread of its own, starting at a random
// point of the first period, and reports each poll as a "state" line.
// Reports go to stdout (bench/fig10/lines.hpp); logs to stderr. SIGTERM or
// SIGINT end the process at once.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "basics.hpp"
#include "http_get.hpp"
#include "lines.hpp"
#include "mesos/scheduler.hpp"
#include "process/runtime.hpp"
#include "process/signals.hpp"
#include "process/upid.hpp"

DEFINE_string(master, "", "The master's UPID, master@ip:port.");
DEFINE_int32(count, 10, "Frameworks to run in this process.");
DEFINE_int32(first, 0, "Index of the first framework (names fig10-<index>).");
DEFINE_double(task_mean_s, 30, "Mean task duration, seconds (already time-scaled).");
DEFINE_double(task_stddev_s, 10, "Standard deviation of task durations, seconds.");
DEFINE_double(task_min_s, 1, "Shortest task duration, seconds.");
DEFINE_double(refuse_s, 1, "refuse_seconds of the filter on what a framework declines.");
DEFINE_double(state_poll_s, 30, "Seconds between one framework's GETs of /state; 0: none.");
DEFINE_double(state_timeout_s, 120, "A GET of /state that takes longer is given up.");
DEFINE_uint64(seed, 1, "Seed of the task durations (each framework adds its index).");
DEFINE_double(report_interval_s, 0.5, "Seconds between 'frameworks' report lines.");
DEFINE_string(ip, "127.0.0.1", "Address this process listens on.");
DEFINE_uint32(workers, 0, "Worker threads of the runtime (0: one per core).");

namespace {

using namespace mesos;
using fig10::scalar;
using fig10::scalarOf;

struct Counters {
  std::atomic<int64_t> registered{0};
  std::atomic<int64_t> launched{0};
  std::atomic<int64_t> finished{0};
  std::atomic<int64_t> failed{0};
  std::atomic<int64_t> errors{0};
  std::atomic<int64_t> busy{0};  // frameworks with a task launched and not yet ended
};
Counters counters;

class BusyScheduler : public Scheduler {
 public:
  explicit BusyScheduler(int index)
      : index_(index),
        random_(FLAGS_seed + static_cast<uint64_t>(index)),
        duration_(FLAGS_task_mean_s, std::max(0.0, FLAGS_task_stddev_s)) {
    slot_.push_back(scalar("cpus", 1));
    slot_.push_back(scalar("mem", 1024));
    filters_.set_refuse_seconds(FLAGS_refuse_s);
  }

  void registered(SchedulerDriver*, const FrameworkID&, const MasterInfo&) override {
    if (!registered_) counters.registered++;
    registered_ = true;
  }
  void reregistered(SchedulerDriver*, const MasterInfo&) override {}
  void disconnected(SchedulerDriver*) override {
    LOG(WARNING) << "fig10-" << index_ << ": disconnected from the master";
  }

  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override {
    for (const Offer& offer : offers) {
      int slots = static_cast<int>(std::min(std::floor(scalarOf(offer, "cpus")),
                                            std::floor(scalarOf(offer, "mem") / 1024)));
      std::vector<TaskInfo> tasks;
      for (int i = 0; i < slots; ++i) {
        TaskInfo task;
        task.set_name("fig10");
        task.mutable_task_id()->set_value(std::to_string(index_) + "-" + std::to_string(next_++));
        *task.mutable_slave_id() = offer.slave_id();
        for (const Resource& resource : slot_) *task.add_resources() = resource;
        double seconds = std::max(FLAGS_task_min_s, duration_(random_));
        long long ms = std::llround(seconds * 1000);
        task.mutable_command()->set_value("sleep " + std::to_string(seconds));
        task.set_data(std::to_string(ms));
        tasks.push_back(std::move(task));
      }
      if (tasks.empty()) {
        driver->declineOffer(offer.id(), filters_);
      } else {
        counters.launched += static_cast<int64_t>(tasks.size());
        if (running_ == 0) counters.busy++;
        running_ += static_cast<int64_t>(tasks.size());
        driver->launchTasks(offer.id(), tasks, filters_);
      }
    }
  }

  void offerRescinded(SchedulerDriver*, const OfferID&) override {}

  void statusUpdate(SchedulerDriver*, const TaskStatus& status) override {
    switch (status.state()) {
      case TASK_STAGING:
      case TASK_STARTING:
      case TASK_RUNNING:
        return;
      case TASK_FINISHED:
        counters.finished++;
        break;
      default:
        if (counters.failed++ < 10) {
          LOG(WARNING) << "fig10-" << index_ << ": task " << status.task_id().value() << " "
                       << TaskState_Name(status.state()) << ": " << status.message();
        }
    }
    if (running_ > 0 && --running_ == 0) counters.busy--;
  }

  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string&) override {}
  void slaveLost(SchedulerDriver*, const SlaveID&) override {}
  void executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID&, int) override {}
  void error(SchedulerDriver*, const std::string& message) override {
    counters.errors++;
    LOG(ERROR) << "fig10-" << index_ << ": " << message;
    fig10::emitLine("note framework fig10-" + std::to_string(index_) + " error: " + message);
  }

 private:
  const int index_;
  std::mt19937_64 random_;
  std::normal_distribution<double> duration_;
  std::vector<Resource> slot_;
  Filters filters_;
  uint64_t next_ = 0;
  int64_t running_ = 0;  // tasks launched and not yet ended
  bool registered_ = false;
};

// One framework's /state poller, as mesos-go v0's master detector: a GET
// every period; a period that passes while a GET is in flight is skipped.
void pollState(std::string ip, uint16_t port, int index) {
  using SteadyClock = std::chrono::steady_clock;
  auto period = std::chrono::duration_cast<SteadyClock::duration>(
      std::chrono::duration<double>(FLAGS_state_poll_s));
  std::mt19937_64 random(FLAGS_seed * 7919 + static_cast<uint64_t>(index));
  std::uniform_int_distribution<int64_t> phase(0, period.count());
  auto due = SteadyClock::now() + SteadyClock::duration(phase(random));
  auto timeout = std::chrono::milliseconds(std::llround(FLAGS_state_timeout_s * 1000));
  for (;;) {
    std::this_thread::sleep_until(due);
    fig10::HttpGetResult result = fig10::httpGet(ip, port, "/master/state", timeout, false);
    char line[160];
    std::snprintf(line, sizeof(line), "state %d %d %.3f %zu", result.complete ? 1 : 0,
                  result.status, result.seconds * 1000, result.bodyBytes);
    fig10::emitLine(line);
    due += period;
    auto now = SteadyClock::now();
    while (due < now) due += period;
  }
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage("Busy frameworks for bench/fig10 (started by fig10).");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  if (FLAGS_minloglevel < google::GLOG_WARNING) FLAGS_minloglevel = google::GLOG_WARNING;

  auto master = process::UPID::parse(FLAGS_master);
  if (!master) {
    std::cerr << "fig10-frameworks: --master: " << master.error().message << std::endl;
    return 1;
  }
  if (FLAGS_count <= 0) {
    std::cerr << "fig10-frameworks: --count must be positive" << std::endl;
    return 1;
  }
  process::blockStopSignals();

  process::Runtime::Options options;
  options.ip = FLAGS_ip;
  options.workers = FLAGS_workers;
  // TLS as every program takes it: LIBPROCESS_SSL_* (docs/benchmarks.md).
  auto tls = process::TlsOptions::fromEnvironment();
  CHECK(tls.ok()) << tls.error().message;
  options.tls = std::move(tls).value();
  auto runtime = process::Runtime::create(options);
  if (!runtime) {
    std::cerr << "fig10-frameworks: " << runtime.error().message << std::endl;
    return 1;
  }

  std::vector<std::unique_ptr<BusyScheduler>> schedulers;
  std::vector<std::unique_ptr<MesosSchedulerDriver>> drivers;
  for (int i = 0; i < FLAGS_count; ++i) {
    int index = FLAGS_first + i;
    FrameworkInfo framework;
    framework.set_name("fig10-" + std::to_string(index));
    framework.set_user("fig10");
    framework.set_hostname("localhost");
    schedulers.push_back(std::make_unique<BusyScheduler>(index));
    drivers.push_back(std::make_unique<MesosSchedulerDriver>(
        schedulers.back().get(), framework, master->toString(), true, runtime->get()));
    if (drivers.back()->start() != DRIVER_RUNNING) {
      std::cerr << "fig10-frameworks: framework " << index << " did not start" << std::endl;
      return 1;
    }
  }

  if (FLAGS_state_poll_s > 0) {
    std::string ip = master->address.ipString();
    uint16_t port = master->address.port;
    for (int i = 0; i < FLAGS_count; ++i) {
      std::thread(pollState, ip, port, FLAGS_first + i).detach();
    }
  }

  std::thread([] {
    auto interval = std::chrono::duration<double>(FLAGS_report_interval_s);
    for (;;) {
      std::this_thread::sleep_for(interval);
      fig10::emitLine("frameworks " + std::to_string(counters.registered.load()) + " " +
                      std::to_string(counters.launched.load()) + " " +
                      std::to_string(counters.finished.load()) + " " +
                      std::to_string(counters.failed.load()) + " " +
                      std::to_string(counters.errors.load()) + " " +
                      std::to_string(counters.busy.load()));
    }
  }).detach();

  process::awaitStopSignal();
  std::_Exit(0);
}
