#include "probe.hpp"

#include <cmath>
#include <vector>

#include "mesos/scheduler.hpp"

namespace fig10 {

using namespace mesos;
using SteadyClock = std::chrono::steady_clock;

// Runs on the driver's actor; the coordinator's thread reads the outcome
// under the mutex.
class ProbeScheduler : public Scheduler {
 public:
  explicit ProbeScheduler(double taskSeconds) : taskSeconds_(taskSeconds) {
    decline_.set_refuse_seconds(3600);  // a probe never needs a second offer
  }

  void started() {
    std::lock_guard<std::mutex> lock(mutex_);
    start_ = SteadyClock::now();
  }

  bool wait(std::chrono::milliseconds wait) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, wait, [this] { return ended_; });
  }

  std::optional<double> endToEnd() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return endToEnd_;
  }
  std::string failure() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
  }

  void registered(SchedulerDriver*, const FrameworkID&, const MasterInfo&) override {}
  void reregistered(SchedulerDriver*, const MasterInfo&) override {}
  void disconnected(SchedulerDriver*) override {}

  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override {
    for (const Offer& offer : offers) {
      double cpus = 0, mem = 0;
      for (const Resource& resource : offer.resources()) {
        if (resource.name() == "cpus") cpus += resource.scalar().value();
        if (resource.name() == "mem") mem += resource.scalar().value();
      }
      if (launched_ || cpus < 1 || mem < 1024) {
        driver->declineOffer(offer.id(), decline_);
        continue;
      }
      TaskInfo task;
      task.set_name("fig10-probe");
      task.mutable_task_id()->set_value("probe");
      *task.mutable_slave_id() = offer.slave_id();
      Resource* resource = task.add_resources();
      resource->set_name("cpus");
      resource->set_type(Value::SCALAR);
      resource->mutable_scalar()->set_value(1);
      resource = task.add_resources();
      resource->set_name("mem");
      resource->set_type(Value::SCALAR);
      resource->mutable_scalar()->set_value(1024);
      task.mutable_command()->set_value("sleep " + std::to_string(taskSeconds_));
      task.set_data(std::to_string(std::llround(taskSeconds_ * 1000)));
      driver->launchTasks(offer.id(), {task}, decline_);
      launched_ = true;
    }
  }

  void offerRescinded(SchedulerDriver*, const OfferID&) override {}

  void statusUpdate(SchedulerDriver*, const TaskStatus& status) override {
    if (status.state() == TASK_RUNNING || status.state() == TASK_STAGING ||
        status.state() == TASK_STARTING) {
      return;
    }
    auto now = SteadyClock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (ended_) return;
    ended_ = true;
    if (status.state() == TASK_FINISHED) {
      endToEnd_ = std::chrono::duration<double>(now - start_).count();
    } else {
      failure_ = "the probe task ended " + TaskState_Name(status.state()) + ": " + status.message();
    }
    changed_.notify_all();
  }

  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string&) override {}
  void slaveLost(SchedulerDriver*, const SlaveID&) override {}
  void executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID&, int) override {}

  void error(SchedulerDriver*, const std::string& message) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ended_) return;
    ended_ = true;
    failure_ = "driver error: " + message;
    changed_.notify_all();
  }

 private:
  const double taskSeconds_;
  Filters decline_;
  bool launched_ = false;  // on the driver's actor only

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  SteadyClock::time_point start_;
  bool ended_ = false;
  std::optional<double> endToEnd_;
  std::string failure_;
};

Probe::Probe(process::Runtime* runtime, const std::string& master, const std::string& name,
             double taskSeconds)
    : scheduler_(std::make_unique<ProbeScheduler>(taskSeconds)) {
  FrameworkInfo framework;
  framework.set_name(name);
  framework.set_user("fig10");
  framework.set_hostname("localhost");
  driver_ = std::make_unique<MesosSchedulerDriver>(scheduler_.get(), framework, master, true,
                                                   runtime);
  scheduler_->started();
  driver_->start();
}

Probe::~Probe() {
  driver_->stop();
  driver_->join();
  driver_.reset();
}

bool Probe::wait(std::chrono::milliseconds wait) { return scheduler_->wait(wait); }

std::optional<double> Probe::endToEndSeconds() const { return scheduler_->endToEnd(); }

std::string Probe::failure() const { return scheduler_->failure(); }

}  // namespace fig10
