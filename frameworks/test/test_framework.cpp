// test-framework: an example framework with its own executor. It runs
// --num_tasks tasks, each on test-executor (which reports the task running,
// works for --task_seconds, and reports it finished), prints every status
// update, and exits 0 once all tasks finished (1 if one failed or was lost).
//
//   test-framework --master=127.0.0.1:5050 [--num_tasks=5] [--task_seconds=1]
#include <unistd.h>

#include <glog/logging.h>

#include <climits>
#include <iostream>
#include <mutex>
#include <string>

#include "common/driver.hpp"
#include "common/flags.hpp"
#include "mesos/resources.hpp"
#include "mesos/scheduler.hpp"

namespace {

using namespace mesos;

struct FrameworkFlags : flags::FlagSet {
  FrameworkFlags() {
    add(&master, "master",
        "The master: host:port or master@ip:port, or zk://host:port[,...]/path (the leader of "
        "the masters' group in ZooKeeper)");
    add(&num_tasks, "num_tasks", "How many tasks to run", uint32_t{5});
    add(&task_seconds, "task_seconds", "How long each task works", 1.0);
    add(&task_cpus, "task_cpus", "Cpus per task", 0.1);
    add(&task_mem, "task_mem", "Memory per task, in MB", 32.0);
    add(&executor, "executor",
        "Path of test-executor (default: next to this binary, or in ../libexec/mesos)");
    add(&failover_timeout, "failover_timeout",
        "Seconds the master keeps the framework's tasks while its scheduler is away", 0.0);
    add(&checkpoint, "checkpoint",
        "Register as a checkpointing framework: its tasks survive a restart of their slave "
        "(docs/recovery.md)",
        false);
  }
  std::optional<std::string> master;
  uint32_t num_tasks;
  double task_seconds;
  double task_cpus;
  double task_mem;
  std::optional<std::string> executor;
  double failover_timeout;
  bool checkpoint;
};

// `name` beside this program (a build tree), or in ../libexec/mesos when
// this program runs from an installed prefix's bin/.
std::string besideMe(const std::string& name) {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return name;
  std::string self(path, static_cast<size_t>(n));
  std::string dir = self.substr(0, self.rfind('/') + 1);
  if (access((dir + name).c_str(), X_OK) != 0 &&
      access((dir + "../libexec/mesos/" + name).c_str(), X_OK) == 0) {
    return dir + "../libexec/mesos/" + name;
  }
  return dir + name;
}

class TestScheduler : public Scheduler {
 public:
  explicit TestScheduler(const FrameworkFlags& flags) : flags_(flags) {
    executor_.mutable_executor_id()->set_value("test-executor");
    executor_.set_name("test executor");
    executor_.mutable_command()->set_value(flags.executor.value_or(besideMe("test-executor")));
    executor_.mutable_command()->set_shell(false);
    executor_.mutable_command()->add_arguments("test-executor");
  }

  int exitCode() const { return failed_ > 0 ? 1 : 0; }

  void registered(SchedulerDriver*, const FrameworkID& id, const MasterInfo& master) override {
    std::cout << "Registered as framework " << id.value() << " with master " << master.pid()
              << std::endl;
  }
  void reregistered(SchedulerDriver*, const MasterInfo&) override {
    std::cout << "Re-registered" << std::endl;
  }
  void disconnected(SchedulerDriver*) override { std::cout << "Disconnected" << std::endl; }

  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override {
    Resources perTask = Resources::parse("cpus:" + std::to_string(flags_.task_cpus) +
                                         ";mem:" + std::to_string(flags_.task_mem))
                            .value();
    for (const Offer& offer : offers) {
      Resources left(offer.resources());
      std::vector<TaskInfo> tasks;
      while (launched_ < flags_.num_tasks && left.contains(perTask)) {
        TaskInfo task;
        task.set_name("task " + std::to_string(launched_));
        task.mutable_task_id()->set_value(std::to_string(launched_));
        task.mutable_slave_id()->CopyFrom(offer.slave_id());
        task.mutable_executor()->CopyFrom(executor_);
        *task.mutable_resources() = perTask.proto();
        task.set_data(std::to_string(flags_.task_seconds));
        left -= perTask;
        tasks.push_back(task);
        launched_++;
        std::cout << "Launching task " << task.task_id().value() << " on "
                  << offer.hostname() << std::endl;
      }
      if (tasks.empty()) {
        driver->declineOffer(offer.id());
      } else {
        driver->launchTasks(offer.id(), tasks);
      }
    }
  }

  void offerRescinded(SchedulerDriver*, const OfferID&) override {}

  void statusUpdate(SchedulerDriver* driver, const TaskStatus& status) override {
    std::cout << "Task " << status.task_id().value() << " is " << TaskState_Name(status.state())
              << (status.message().empty() ? "" : ": " + status.message()) << std::endl;
    switch (status.state()) {
      case TASK_FINISHED:
        finished_++;
        break;
      case TASK_FAILED:
      case TASK_KILLED:
      case TASK_LOST:
      case TASK_ERROR:
        failed_++;
        break;
      default:
        return;
    }
    if (finished_ + failed_ == flags_.num_tasks) {
      std::cout << finished_ << " of " << flags_.num_tasks << " tasks finished" << std::endl;
      driver->stop();
    }
  }

  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string& data) override {
    std::cout << "Message from an executor: " << data << std::endl;
  }
  void slaveLost(SchedulerDriver*, const SlaveID& id) override {
    std::cout << "Slave " << id.value() << " lost" << std::endl;
  }
  void executorLost(SchedulerDriver*, const ExecutorID& id, const SlaveID&, int status) override {
    std::cout << "Executor " << id.value() << " exited with status " << status << std::endl;
  }
  void error(SchedulerDriver*, const std::string& message) override {
    std::cerr << "Error: " << message << std::endl;
    failed_ = flags_.num_tasks;
  }

 private:
  const FrameworkFlags& flags_;
  ExecutorInfo executor_;
  uint32_t launched_ = 0;
  uint32_t finished_ = 0;
  uint32_t failed_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  FrameworkFlags flags;
  auto extra = flags.load("MESOS_", argc, argv);
  if (!extra || flags.help() || !flags.master) {
    if (!extra) std::cerr << "test-framework: " << extra.error().message << std::endl;
    if (extra && !flags.help() && !flags.master) std::cerr << "test-framework: missing --master" << std::endl;
    std::cerr << flags.usage("test-framework");
    return flags.help() ? 0 : 1;
  }
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = google::GLOG_WARNING;
  TestScheduler scheduler(flags);
  FrameworkInfo framework;
  framework.set_name("Test Framework (C++)");
  framework.set_failover_timeout(flags.failover_timeout);
  framework.set_checkpoint(flags.checkpoint);
  auto holder =
      mesos::frameworks::schedulerDriver(&scheduler, framework, *flags.master, "test-framework");
  MesosSchedulerDriver& driver = *holder;
  Status status = driver.run();
  return status == DRIVER_STOPPED ? scheduler.exitCode() : 1;
}
