#include "support/cluster.hpp"

#include <stdlib.h>

#include <filesystem>

#include <glog/logging.h>

#include "mesos/resources.hpp"
#include "support/root_tasks.hpp"

namespace mesos::test {

TestCluster::TestCluster(internal::master::MasterFlags masterFlags) {
  char dir[] = "/tmp/mesos-cluster-XXXXXX";
  CHECK(mkdtemp(dir) != nullptr);
  workDir_ = dir;
  if (!masterFlags.security.acls) masterFlags.security.acls = kRootTasksAcls;
  auto cluster = internal::local::LocalCluster::start(process::Runtime::Options(), masterFlags);
  CHECK(cluster.ok()) << cluster.error().message;
  cluster_ = std::move(cluster).value();
}

TestCluster::~TestCluster() {
  cluster_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(workDir_, ignored);
}

size_t TestCluster::startSlave(const std::string& resources,
                               const std::vector<std::string>& extraFlags) {
  std::string launcherDir = std::filesystem::path(MESOS_EXECUTOR_PATH).parent_path().string();
  std::vector<std::string> flags = {"--work_dir=" + workDir_, "--resources=" + resources,
                                    "--launcher_dir=" + launcherDir};
  flags.insert(flags.end(), extraFlags.begin(), extraFlags.end());
  auto index = cluster_->addSlave(flags);
  CHECK(index.ok()) << index.error().message;
  return *index;
}

void RecordingScheduler::add(Event event) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(event));
  }
  changed_.notify_all();
}

std::optional<RecordingScheduler::Event> RecordingScheduler::await(
    const std::function<bool(const Event&)>& match, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  size_t checked = 0;
  std::optional<Event> found;
  changed_.wait_for(lock, timeout, [&] {
    for (; checked < events_.size(); ++checked) {
      if (match(events_[checked])) {
        found = events_[checked];
        return true;
      }
    }
    return false;
  });
  return found;
}

std::optional<RecordingScheduler::Event> RecordingScheduler::awaitStatus(
    const std::string& taskId, TaskState state, std::chrono::milliseconds timeout) {
  return await(
      [&](const Event& e) {
        return e.kind == "status" && e.status.task_id().value() == taskId &&
               e.status.state() == state;
      },
      timeout);
}

std::optional<RecordingScheduler::Event> RecordingScheduler::awaitKind(
    const std::string& kind, std::chrono::milliseconds timeout) {
  return await([&](const Event& e) { return e.kind == kind; }, timeout);
}

FrameworkID RecordingScheduler::frameworkId() {
  std::lock_guard<std::mutex> lock(mutex_);
  return frameworkId_;
}

void RecordingScheduler::registered(SchedulerDriver*, const FrameworkID& id, const MasterInfo&) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    frameworkId_ = id;
  }
  add({"registered", {}, {}, id.value(), 0});
}

void RecordingScheduler::reregistered(SchedulerDriver*, const MasterInfo&) {
  add({"reregistered", {}, {}, "", 0});
}

void RecordingScheduler::disconnected(SchedulerDriver*) { add({"disconnected", {}, {}, "", 0}); }

void RecordingScheduler::resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) {
  add({"offers", offers, {}, "", 0});
  if (onOffers) {
    onOffers(driver, offers);
  } else {
    for (const Offer& offer : offers) driver->declineOffer(offer.id());
  }
}

void RecordingScheduler::offerRescinded(SchedulerDriver*, const OfferID& id) {
  add({"rescinded", {}, {}, id.value(), 0});
}

void RecordingScheduler::statusUpdate(SchedulerDriver* driver, const TaskStatus& status) {
  add({"status", {}, status, "", 0});
  if (onStatus) onStatus(driver, status);
}

void RecordingScheduler::frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                                          const std::string& data) {
  add({"message", {}, {}, data, 0});
}

void RecordingScheduler::slaveLost(SchedulerDriver*, const SlaveID& slaveId) {
  add({"slaveLost", {}, {}, slaveId.value(), 0});
}

void RecordingScheduler::executorLost(SchedulerDriver*, const ExecutorID& executorId,
                                      const SlaveID&, int status) {
  add({"executorLost", {}, {}, executorId.value(), status});
}

void RecordingScheduler::error(SchedulerDriver*, const std::string& message) {
  add({"error", {}, {}, message, 0});
}

TaskInfo commandTask(const Offer& offer, const std::string& id, const std::string& command,
                     const std::string& resources) {
  TaskInfo task;
  task.set_name(id);
  task.mutable_task_id()->set_value(id);
  task.mutable_slave_id()->CopyFrom(offer.slave_id());
  task.mutable_command()->set_value(command);
  *task.mutable_resources() = Resources::parse(resources).value().proto();
  return task;
}

}  // namespace mesos::test
