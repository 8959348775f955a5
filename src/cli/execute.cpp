// mesos-execute: runs one shell command as a task on the cluster, prints its
// state changes, and exits with the command's exit status (0 when it
// finished; its exit status, or 1, when it failed; 1 when it was killed,
// lost or refused).
//
//   mesos-execute --master=HOST:PORT --name=NAME --command=CMD
//                 [--resources=cpus:1;mem:128]
#include <glog/logging.h>

#include <cstdlib>
#include <iostream>
#include <regex>
#include <string>

#include "common/flags.hpp"
#include "mesos/resources.hpp"
#include "mesos/scheduler.hpp"

namespace {

using namespace mesos;

struct ExecuteFlags : flags::FlagSet {
  ExecuteFlags() {
    add(&master, "master", "The master: host:port or master@ip:port");
    add(&name, "name", "Name of the task (and of the framework)");
    add(&command, "command", "Shell command to run");
    add(&resources, "resources", "Resources of the task", std::string("cpus:1;mem:128"));
  }
  Result<void> validate() const override {
    if (!master) return Error{"missing --master (e.g. --master=127.0.0.1:5050)"};
    if (!name) return Error{"missing --name"};
    if (!command) return Error{"missing --command"};
    auto parsed = Resources::parse(resources);
    if (!parsed) return Error{"bad --resources: " + parsed.error().message};
    return {};
  }
  std::optional<std::string> master;
  std::optional<std::string> name;
  std::optional<std::string> command;
  std::string resources;
};

class CommandScheduler : public Scheduler {
 public:
  explicit CommandScheduler(const ExecuteFlags& flags)
      : flags_(flags), resources_(Resources::parse(flags.resources).value()) {}

  int exitCode() const { return exitCode_; }

  void registered(SchedulerDriver*, const FrameworkID& id, const MasterInfo&) override {
    std::cout << "Framework registered with " << id.value() << std::endl;
  }
  void reregistered(SchedulerDriver*, const MasterInfo&) override {}
  void disconnected(SchedulerDriver*) override {}

  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override {
    for (const Offer& offer : offers) {
      if (launched_ || !Resources(offer.resources()).contains(resources_)) {
        driver->declineOffer(offer.id());
        continue;
      }
      TaskInfo task;
      task.set_name(*flags_.name);
      task.mutable_task_id()->set_value(*flags_.name);
      task.mutable_slave_id()->CopyFrom(offer.slave_id());
      task.mutable_command()->set_value(*flags_.command);
      *task.mutable_resources() = resources_.proto();
      driver->launchTasks(offer.id(), {task});
      launched_ = true;
      std::cout << "Submitted task '" << *flags_.name << "' to slave " << offer.slave_id().value()
                << std::endl;
    }
  }

  void offerRescinded(SchedulerDriver*, const OfferID&) override {}

  void statusUpdate(SchedulerDriver* driver, const TaskStatus& status) override {
    std::cout << "Received status update " << TaskState_Name(status.state()) << " for task "
              << status.task_id().value()
              << (status.message().empty() ? "" : ": " + status.message()) << std::endl;
    switch (status.state()) {
      case TASK_FINISHED:
        exitCode_ = 0;
        break;
      case TASK_FAILED: {
        exitCode_ = 1;
        std::smatch match;
        static const std::regex kStatus("exited with status (\\d+)");
        if (std::regex_search(status.message(), match, kStatus)) {
          exitCode_ = std::atoi(match[1].str().c_str());
          if (exitCode_ == 0) exitCode_ = 1;
        }
        break;
      }
      case TASK_KILLED:
      case TASK_LOST:
      case TASK_ERROR:
        exitCode_ = 1;
        break;
      default:
        return;
    }
    driver->stop();
  }

  void frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                        const std::string&) override {}
  void slaveLost(SchedulerDriver*, const SlaveID&) override {}
  void executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID&, int) override {}
  void error(SchedulerDriver* driver, const std::string& message) override {
    std::cerr << "mesos-execute: " << message << std::endl;
    exitCode_ = 1;
    driver->abort();
  }

 private:
  const ExecuteFlags& flags_;
  Resources resources_;
  bool launched_ = false;
  int exitCode_ = 1;
};

}  // namespace

int main(int argc, char** argv) {
  ExecuteFlags flags;
  auto extra = flags.load("MESOS_", argc, argv);
  if (!extra) {
    std::cerr << "mesos-execute: " << extra.error().message << " (see --help)" << std::endl;
    return 1;
  }
  if (flags.help()) {
    std::cout << flags.usage("mesos-execute");
    return 0;
  }
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = google::GLOG_WARNING;
  CommandScheduler scheduler(flags);
  FrameworkInfo framework;
  framework.set_name("mesos-execute: " + *flags.name);
  MesosSchedulerDriver driver(&scheduler, framework, *flags.master);
  driver.run();
  return scheduler.exitCode();
}
