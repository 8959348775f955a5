#include "jepsen/framework.hpp"

#include <cstdio>

#include "jepsen/checker.hpp"
#include "mesos/resources.hpp"

namespace mesos::jepsen {

JepsenFramework::JepsenFramework(FrameworkOptions options, History* history,
                                 const std::string& master, process::Runtime* runtime)
    : options_(std::move(options)), history_(history), random_(options_.seed) {
  FrameworkInfo info;
  info.set_user("");
  info.set_name(options_.name);
  info.set_failover_timeout(3600);
  info.set_checkpoint(true);
  if (options_.partitionAware) {
    info.add_capabilities()->set_type(FrameworkInfo::Capability::PARTITION_AWARE);
  }
  driver_ = std::make_unique<MesosSchedulerDriver>(this, info, master, true, runtime);
}

JepsenFramework::~JepsenFramework() = default;

bool JepsenFramework::start() { return driver_->start() == DRIVER_RUNNING; }

void JepsenFramework::stop() {
  driver_->stop();
  driver_->join();
}

bool JepsenFramework::finished(const Task& task) const {
  return terminal(task.state, options_.partitionAware) ||
         // A partition-aware framework's task whose launch never reached a
         // master (reconciliation or a kill answers TASK_UNKNOWN).
         (options_.partitionAware && task.state == TASK_UNKNOWN);
}

size_t JepsenFramework::unfinishedLocked() const {
  size_t count = 0;
  for (const auto& [id, task] : tasks_) count += finished(task) ? 0 : 1;
  return count;
}

std::vector<TaskStatus> JepsenFramework::unfinishedStatusesLocked() const {
  std::vector<TaskStatus> statuses;
  for (const auto& [id, task] : tasks_) {
    if (finished(task)) continue;
    TaskStatus status;
    status.mutable_task_id()->set_value(id);
    status.mutable_slave_id()->set_value(task.slaveId);
    status.set_state(task.state);
    statuses.push_back(std::move(status));
  }
  return statuses;
}

void JepsenFramework::stopLaunching() {
  std::lock_guard lock(mutex_);
  launching_ = false;
}

void JepsenFramework::killOne() {
  TaskID taskId;
  {
    std::lock_guard lock(mutex_);
    std::vector<std::string> running;
    for (const auto& [id, task] : tasks_) {
      if (task.longRunning && task.state == TASK_RUNNING) running.push_back(id);
    }
    if (running.empty()) return;
    taskId.set_value(running[random_() % running.size()]);
  }
  history_->requested({history_->now(), options_.name, taskId.value(), "kill"});
  driver_->killTask(taskId);
}

double JepsenFramework::reconcile() {
  std::vector<TaskStatus> statuses;
  {
    std::lock_guard lock(mutex_);
    statuses = unfinishedStatusesLocked();
  }
  double now = history_->now();
  for (const TaskStatus& status : statuses) {
    history_->requested({now, options_.name, status.task_id().value(), "reconcile"});
  }
  if (!statuses.empty()) driver_->reconcileTasks(statuses);
  return now;
}

void JepsenFramework::killAll() {
  for (const std::string& id : unfinished()) {
    history_->requested({history_->now(), options_.name, id, "kill"});
    TaskID taskId;
    taskId.set_value(id);
    driver_->killTask(taskId);
  }
}

std::vector<std::string> JepsenFramework::unfinished() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> ids;
  for (const auto& [id, task] : tasks_) {
    if (!finished(task)) ids.push_back(id);
  }
  return ids;
}

bool JepsenFramework::answeredSince(double since) const {
  std::lock_guard lock(mutex_);
  for (const auto& [id, task] : tasks_) {
    if (!finished(task) && task.lastUpdate < since) return false;
  }
  return true;
}

size_t JepsenFramework::launched() const {
  std::lock_guard lock(mutex_);
  return tasks_.size();
}

std::string JepsenFramework::frameworkId() const {
  std::lock_guard lock(mutex_);
  return frameworkId_;
}

void JepsenFramework::registered(SchedulerDriver*, const FrameworkID& id, const MasterInfo&) {
  {
    std::lock_guard lock(mutex_);
    frameworkId_ = id.value();
  }
  history_->note(options_.name + " registered as " + id.value());
}

void JepsenFramework::reregistered(SchedulerDriver*, const MasterInfo& master) {
  history_->note(options_.name + " re-registered with " + master.id());
  reconcile();
}

void JepsenFramework::disconnected(SchedulerDriver*) {
  history_->note(options_.name + " disconnected");
}

void JepsenFramework::slaveLost(SchedulerDriver*, const SlaveID& slaveId) {
  history_->note(options_.name + " told slave " + slaveId.value() + " is lost");
}

void JepsenFramework::error(SchedulerDriver*, const std::string& message) {
  history_->note(options_.name + " error: " + message);
}

void JepsenFramework::resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) {
  const Resources each = Resources::parse("cpus:0.1;mem:16").value();
  Filters filters;
  filters.set_refuse_seconds(0.5);
  for (const Offer& offer : offers) {
    std::vector<TaskInfo> tasks;
    std::vector<Launch> launches;
    {
      std::lock_guard lock(mutex_);
      Resources left(offer.resources());
      while (launching_ && unfinishedLocked() < options_.maxUnfinished && left.contains(each)) {
        std::uniform_real_distribution<double> share(0, 1);
        bool longRunning = share(random_) < options_.longShare;
        double seconds =
            longRunning ? options_.longMaxS / 3 + share(random_) * options_.longMaxS * 2 / 3
                        : 0.2 + share(random_) * (options_.shortMaxS - 0.2);
        std::string id = options_.name + "-" + std::to_string(++next_);
        char command[128];
        std::snprintf(command, sizeof(command), "sleep %.2f; true jepsen-task=%s", seconds,
                      id.c_str());
        TaskInfo task;
        task.set_name(id);
        task.mutable_task_id()->set_value(id);
        task.mutable_slave_id()->CopyFrom(offer.slave_id());
        task.mutable_command()->set_value(command);
        *task.mutable_resources() = each.proto();
        tasks.push_back(task);
        tasks_[id] = Task{offer.slave_id().value(), longRunning, TASK_STAGING, history_->now()};
        launches.push_back(
            {history_->now(), options_.name, id, offer.slave_id().value(), command});
        left -= each;
      }
    }
    for (Launch& launch : launches) history_->launched(std::move(launch));
    if (tasks.empty()) {
      driver->declineOffer(offer.id(), filters);
    } else {
      driver->launchTasks(offer.id(), tasks, filters);
    }
  }
}

void JepsenFramework::statusUpdate(SchedulerDriver*, const TaskStatus& status) {
  Update update;
  update.time = history_->now();
  update.framework = options_.name;
  update.task = status.task_id().value();
  update.state = status.state();
  update.hasReason = status.has_reason();
  update.reason = status.reason();
  update.source = status.source();
  update.message = status.message();
  update.slaveId = status.slave_id().value();
  {
    std::lock_guard lock(mutex_);
    auto task = tasks_.find(update.task);
    if (task != tasks_.end()) {
      task->second.state = update.state;
      task->second.lastUpdate = update.time;
    }
  }
  if (update.state == TASK_ERROR) {
    // The master refused the launch: the run's own fault, worth a line.
    history_->note(options_.name + " task " + update.task + " refused: " + update.message);
  }
  history_->received(std::move(update));
}

}  // namespace mesos::jepsen
