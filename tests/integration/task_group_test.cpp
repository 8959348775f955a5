// Task groups over real processes: mesos-execute --task_group launches a
// group (LAUNCH_GROUP) through a mesos-master onto a mesos-slave, which
// runs it on mesos-default-executor. Each task's updates are read from
// what mesos-execute prints. Real processes, so waits have generous
// real-time bounds.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/cluster.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

// One task of a group in Apache's JSON (no agent_id: mesos-execute sets it).
std::string taskJson(const std::string& id, const std::string& command,
                     const std::string& extra = "") {
  return "{\"name\":\"" + id + "\",\"task_id\":{\"value\":\"" + id +
         "\"},\"resources\":[{\"name\":\"cpus\",\"type\":\"SCALAR\",\"scalar\":{\"value\":0.1}},"
         "{\"name\":\"mem\",\"type\":\"SCALAR\",\"scalar\":{\"value\":32}}],"
         "\"command\":{\"value\":\"" + command + "\"}" + extra + "}";
}

// The states mesos-execute printed for `task`, in order.
std::vector<std::string> statesOf(const std::string& output, const std::string& task) {
  std::vector<std::string> states;
  std::regex line("Received status update (TASK_[A-Z_]+) for task " + task + "(:|\\n)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line);
       it != std::sregex_iterator(); ++it) {
    states.push_back((*it)[1].str());
  }
  return states;
}

// The message of the last update of `task` in `state`, or "".
std::string messageOf(const std::string& output, const std::string& task,
                      const std::string& state) {
  std::regex line("Received status update " + state + " for task " + task + ": ([^\\n]*)");
  std::string last;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line);
       it != std::sregex_iterator(); ++it) {
    last = (*it)[1].str();
  }
  return last;
}

class TaskGroupTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    master_ = startMaster({"--allocation_interval=100ms"});
    startSlave(master_, "slave", {"--resources=cpus:2;mem:512;disk:512"});
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  // Runs mesos-execute with the group of `tasks` written to a file.
  ChildResult executeGroup(const std::vector<std::string>& tasks,
                           const std::vector<std::string>& flags = {}) {
    std::string json = "{\"tasks\":[";
    for (size_t i = 0; i < tasks.size(); i++) json += (i > 0 ? "," : "") + tasks[i];
    json += "]}";
    const std::string path = dir_ + "/group" + std::to_string(groups_++) + ".json";
    std::ofstream(path) << json;
    std::vector<std::string> args = {MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                                     "--task_group=file://" + path};
    args.insert(args.end(), flags.begin(), flags.end());
    return runChild(args, 120s);
  }

  process::Address master_;
  int groups_ = 0;
};

TEST_F(TaskGroupTest, BothTasksOfAGroupFinish) {
  ChildResult run = executeGroup({taskJson("first", "echo one > first.txt"),
                                  taskJson("second", "echo two > second.txt")});
  ASSERT_TRUE(run.exitedWith(0)) << run.describe();
  for (const char* task : {"first", "second"}) {
    EXPECT_EQ((std::vector<std::string>{"TASK_STARTING", "TASK_RUNNING", "TASK_FINISHED"}),
              statesOf(run.out, task))
        << run.describe();
  }
  // One executor, one sandbox: both tasks wrote into it.
  int sandboxes = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/slave")) {
    if (entry.path().filename() != "first.txt") continue;
    sandboxes++;
    EXPECT_TRUE(std::filesystem::exists(entry.path().parent_path() / "second.txt"));
    EXPECT_NE(std::string::npos, entry.path().string().find("/executors/default-executor/"))
        << entry.path();
  }
  EXPECT_EQ(1, sandboxes);
}

TEST_F(TaskGroupTest, AFailedTaskKillsTheRestOfItsGroup) {
  auto started = std::chrono::steady_clock::now();
  ChildResult run = executeGroup(
      {taskJson("failing", "sleep 1; exit 3"),
       taskJson("sleeper", "sleep 1000", ",\"kill_policy\":{\"grace_period\":{\"nanoseconds\":"
                                         "1000000000}}")});
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 60s);
  std::vector<std::string> failing = statesOf(run.out, "failing");
  std::vector<std::string> sleeper = statesOf(run.out, "sleeper");
  ASSERT_FALSE(failing.empty()) << run.describe();
  ASSERT_FALSE(sleeper.empty()) << run.describe();
  EXPECT_EQ("TASK_FAILED", failing.back()) << run.describe();
  EXPECT_EQ("TASK_KILLED", sleeper.back()) << run.describe();
  EXPECT_NE(std::string::npos, messageOf(run.out, "failing", "TASK_FAILED").find("status 3"))
      << run.describe();
  EXPECT_NE(std::string::npos,
            messageOf(run.out, "sleeper", "TASK_KILLED").find("task 'failing' of its group"))
      << run.describe();
}

TEST_F(TaskGroupTest, HealthChecksRunPerTask) {
  // "watched" is healthy while its file exists; it removes it after a
  // while and is killed for failing its check, which kills "partner".
  const std::string check =
      ",\"health_check\":{\"type\":\"COMMAND\",\"command\":{\"value\":\"test -e alive\"},"
      "\"delay_seconds\":0,\"interval_seconds\":0.2,\"grace_period_seconds\":0,"
      "\"consecutive_failures\":2}";
  ChildResult run = executeGroup({taskJson("watched", "touch alive; sleep 2; rm alive; sleep 1000",
                                           check),
                                  taskJson("partner", "sleep 1000")});
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  std::vector<std::string> watched = statesOf(run.out, "watched");
  ASSERT_FALSE(watched.empty()) << run.describe();
  EXPECT_EQ("TASK_KILLED", watched.back()) << run.describe();
  EXPECT_NE(std::string::npos,
            messageOf(run.out, "watched", "TASK_KILLED").find("failed health check"))
      << run.describe();
  // Its health went out as TASK_RUNNING updates with the health reason.
  EXPECT_GE(std::count(watched.begin(), watched.end(), "TASK_RUNNING"), 2) << run.describe();
  EXPECT_NE(std::string::npos, run.out.find("REASON_TASK_HEALTH_CHECK_STATUS_UPDATED"))
      << run.describe();
  std::vector<std::string> partner = statesOf(run.out, "partner");
  ASSERT_FALSE(partner.empty()) << run.describe();
  EXPECT_EQ("TASK_KILLED", partner.back()) << run.describe();
}

TEST_F(TaskGroupTest, ABadTaskGroupFileIsOneClearLine) {
  const std::string path = dir_ + "/bad.json";
  std::ofstream(path) << "{\"tasks\":[{\"name\":\"x\",\"task_id\":{\"value\":\"x\"}}]}";
  ChildResult run = runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                              "--task_group=file://" + path},
                             30s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(std::string::npos, run.err.find("--task_group: task 'x' has no command"))
      << run.describe();
  ChildResult both = runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                               "--task_group=file://" + path, "--command=true"},
                              30s);
  EXPECT_TRUE(both.exitedWith(1)) << both.describe();
  EXPECT_NE(std::string::npos, both.err.find("not with --task_group")) << both.describe();
}

// Through the C++ scheduler driver: two groups on one default executor; a
// kill of one task ends its group (TASK_KILLING first, for a framework
// that takes it), and leaves the other group running.
TEST(TaskGroupClusterTest, AKillEndsItsGroupAndASecondGroupSharesTheExecutor) {
  TestCluster cluster;
  cluster.startSlave();
  RecordingScheduler scheduler;
  auto groups = std::make_shared<std::atomic<int>>(0);
  auto launchGroup = [](SchedulerDriver* driver, const Offer& offer,
                        const std::vector<std::string>& ids) {
    Offer::Operation operation;
    operation.set_type(Offer::Operation::LAUNCH_GROUP);
    ExecutorInfo* executor = operation.mutable_launch_group()->mutable_executor();
    executor->set_type(ExecutorInfo::DEFAULT);
    executor->mutable_executor_id()->set_value("pod");
    *executor->mutable_resources() = Resources::parse("cpus:0.1;mem:32").value().proto();
    for (const std::string& id : ids) {
      *operation.mutable_launch_group()->mutable_task_group()->add_tasks() =
          commandTask(offer, id, "sleep 1000");
    }
    driver->acceptOffers({offer.id()}, {operation}, Filters());
  };
  scheduler.onOffers = [&, groups](SchedulerDriver* driver, const std::vector<Offer>& offers) {
    for (const Offer& offer : offers) {
      int next = groups->fetch_add(1);
      if (next == 0) {
        launchGroup(driver, offer, {"a", "b"});
      } else if (next == 1) {
        launchGroup(driver, offer, {"c"});
      } else {
        driver->declineOffer(offer.id());
      }
    }
  };
  FrameworkInfo info;
  info.set_user("");
  info.set_name("task groups");
  info.add_capabilities()->set_type(FrameworkInfo::Capability::TASK_KILLING_STATE);
  MesosSchedulerDriver driver(&scheduler, info, cluster.masterAddress(), true,
                              &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());

  for (const char* id : {"a", "b", "c"}) {
    auto running = scheduler.awaitStatus(id, TASK_RUNNING, 60s);
    ASSERT_TRUE(running) << "task " << id << " never ran";
    EXPECT_EQ("pod", running->status.executor_id().value());
  }
  TaskID a;
  a.set_value("a");
  driver.killTask(a);
  EXPECT_TRUE(scheduler.awaitStatus("a", TASK_KILLING));
  auto killedA = scheduler.awaitStatus("a", TASK_KILLED);
  ASSERT_TRUE(killedA);
  auto killedB = scheduler.awaitStatus("b", TASK_KILLED);
  ASSERT_TRUE(killedB);
  EXPECT_NE(std::string::npos, killedB->status.message().find("task 'a' of its group"))
      << killedB->status.message();
  // "c" of the other group still runs: its kill is what ends it.
  EXPECT_FALSE(scheduler.awaitStatus("c", TASK_KILLED, 0s));
  TaskID c;
  c.set_value("c");
  driver.killTask(c);
  auto killedC = scheduler.awaitStatus("c", TASK_KILLED);
  ASSERT_TRUE(killedC);
  EXPECT_EQ("Command terminated with signal Terminated", killedC->status.message());
  driver.stop();
  driver.join();
}

}  // namespace
}  // namespace mesos::test
