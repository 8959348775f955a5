#include "frameworks.hpp"

#include <glog/logging.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <unordered_set>

#include "../fig10/basics.hpp"

namespace failover {

using namespace mesos;

namespace {

using fig10::scalar;
using fig10::scalarOf;
using fig10::wallTime;

// A task runs this long on an emulated slave: longer than any run.
constexpr int64_t kTaskMs = 24LL * 3600 * 1000;
// What a framework that needs nothing more refuses an offer for.
constexpr double kRefuseSeconds = 3600;

}  // namespace

// One framework: launches `quota` tasks, then only keeps them. Its
// callbacks run on its driver's actor, one at a time; what the bench reads
// goes to the shared Frameworks under its mutex.
class LongRunningScheduler : public Scheduler {
 public:
  LongRunningScheduler(Frameworks& owner, int index, int64_t quota, bool executors)
      : owner_(owner), index_(index), quota_(quota) {
    slot_.push_back(scalar("cpus", 1));
    slot_.push_back(scalar("mem", 1024));
    refuse_.set_refuse_seconds(kRefuseSeconds);
    if (executors) {
      ExecutorInfo executor;
      executor.mutable_executor_id()->set_value("failover-executor-" + std::to_string(index));
      executor.set_name("failover bench executor");
      executor.mutable_command()->set_value("true");  // never run: the slaves are emulated
      executor_ = executor;
    }
  }

  void registered(SchedulerDriver*, const FrameworkID&, const MasterInfo&) override {
    std::lock_guard<std::mutex> lock(owner_.mutex_);
    if (!owner_.records_[index_].registered) owner_.tally_.registered++;
    owner_.records_[index_].registered = true;
  }

  void reregistered(SchedulerDriver*, const MasterInfo& master) override {
    double at = wallTime();
    std::lock_guard<std::mutex> lock(owner_.mutex_);
    owner_.records_[index_].reregisteredWith = master.pid();
    owner_.records_[index_].reregisteredAt = at;
  }

  void disconnected(SchedulerDriver*) override {
    std::lock_guard<std::mutex> lock(owner_.mutex_);
    owner_.tally_.disconnections++;
  }

  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override {
    for (const Offer& offer : offers) {
      int64_t slots = static_cast<int64_t>(std::min(std::floor(scalarOf(offer, "cpus")),
                                                    std::floor(scalarOf(offer, "mem") / 1024)));
      int64_t count = std::min(slots, quota_ - launched_);
      if (count <= 0) {
        driver->declineOffer(offer.id(), refuse_);
        continue;
      }
      std::vector<TaskInfo> tasks;
      for (int64_t i = 0; i < count; ++i) {
        TaskInfo task;
        task.set_name("failover");
        task.mutable_task_id()->set_value(std::to_string(index_) + "-" +
                                          std::to_string(launched_ + i));
        *task.mutable_slave_id() = offer.slave_id();
        for (const Resource& resource : slot_) *task.add_resources() = resource;
        if (executor_) {
          *task.mutable_executor() = *executor_;
        } else {
          task.mutable_command()->set_value("sleep 86400");
        }
        task.set_data(std::to_string(kTaskMs));
        tasks.push_back(std::move(task));
      }
      launched_ += count;
      driver->launchTasks(offer.id(), tasks, refuse_);
      {
        std::lock_guard<std::mutex> lock(owner_.mutex_);
        owner_.tally_.launched += count;
      }
      if (launched_ >= quota_ && !suppressed_) {
        suppressed_ = true;
        driver->suppressOffers();
      }
    }
  }

  void offerRescinded(SchedulerDriver*, const OfferID&) override {}

  void statusUpdate(SchedulerDriver*, const TaskStatus& status) override {
    const std::string& id = status.task_id().value();
    std::lock_guard<std::mutex> lock(owner_.mutex_);
    if (status.state() == TASK_RUNNING) {
      if (running_.insert(id).second) owner_.tally_.running++;
      return;
    }
    if (status.state() == TASK_STAGING || status.state() == TASK_STARTING) return;
    if (running_.erase(id) > 0) owner_.tally_.running--;
    if (owner_.tally_.ended++ < 10) {
      LOG(WARNING) << "failover-" << index_ << ": task " << id << " "
                   << TaskState_Name(status.state()) << ": " << status.message();
    }
  }

  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string&) override {}
  void slaveLost(SchedulerDriver*, const SlaveID&) override {}
  void executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID&, int) override {}

  void error(SchedulerDriver*, const std::string& message) override {
    LOG(ERROR) << "failover-" << index_ << ": " << message;
    std::lock_guard<std::mutex> lock(owner_.mutex_);
    owner_.tally_.errors++;
  }

 private:
  Frameworks& owner_;
  const int index_;
  const int64_t quota_;
  std::vector<Resource> slot_;
  std::optional<ExecutorInfo> executor_;
  Filters refuse_;
  int64_t launched_ = 0;
  bool suppressed_ = false;
  std::unordered_set<std::string> running_;  // under owner_.mutex_
};

Frameworks::Frameworks(process::Runtime& runtime, Options options)
    : runtime_(runtime), options_(std::move(options)) {}

Frameworks::~Frameworks() = default;

bool Frameworks::start(std::string* error) {
  records_.resize(static_cast<size_t>(options_.count));
  const int64_t share = options_.tasks / options_.count;
  const int64_t rest = options_.tasks % options_.count;
  for (int i = 0; i < options_.count; ++i) {
    FrameworkInfo framework;
    framework.set_name("failover-" + std::to_string(i));
    framework.set_user("bench");
    framework.set_hostname("localhost");
    // Kept by a new master until it re-registers, however long that takes.
    framework.set_failover_timeout(3600);
    schedulers_.push_back(std::make_unique<LongRunningScheduler>(
        *this, i, share + (i < rest ? 1 : 0), options_.executors));
    drivers_.push_back(std::make_unique<MesosSchedulerDriver>(
        schedulers_.back().get(), framework, options_.master, true, &runtime_));
    if (drivers_.back()->start() != DRIVER_RUNNING) {
      *error = "framework " + std::to_string(i) + "'s driver did not start";
      return false;
    }
  }
  return true;
}

Frameworks::Tally Frameworks::tally() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tally_;
}

Frameworks::Reregistered Frameworks::reregisteredWith(const std::string& pid,
                                                      double since) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Reregistered result;
  for (const Record& record : records_) {
    if (record.reregisteredWith != pid || record.reregisteredAt < since) continue;
    result.count++;
    result.latest = std::max(result.latest, record.reregisteredAt);
  }
  return result;
}

}  // namespace failover
