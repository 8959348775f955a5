// The master's history is capped: each framework keeps its newest
// --max_completed_tasks_per_framework completed tasks, and the master its
// newest --max_completed_frameworks completed frameworks. What falls off the
// end is gone from every document, while the counters still count it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

class HistoryCapsTest : public MasterFixture {
 protected:
  // Registers a framework on scheduler `name`, runs `count` tasks named
  // <prefix>0.. on slave_ and finishes them one after the other.
  FrameworkID runTasks(const std::string& name, const std::string& prefix, int count) {
    Peer& s = scheduler(name);
    FrameworkID id = registerFramework(s, frameworkInfo(name));
    for (int i = 0; i < count; ++i) {
      auto offers = s.received<ResourceOffersMessage>();
      CHECK(!offers.empty());
      std::string taskId = prefix + std::to_string(i);
      launch(s, id, {offers.back().offers(0).id()}, {commandTask(taskId, slaveId_)}, 0);
      // Without a uuid the terminal update needs no acknowledgement: the
      // task completes at once.
      StatusUpdateMessage finished = update(id, slaveId_, taskId, TASK_FINISHED, *slave_);
      finished.mutable_update()->clear_uuid();
      finished.mutable_update()->mutable_status()->clear_uuid();
      runtime_->send(slave_->self(), master(), finished);
      runtime_->settle();
      // The freed resources come back in a new offer.
      ReviveOffersMessage revive;
      revive.mutable_framework_id()->CopyFrom(id);
      s.post(master(), revive);
      runtime_->settle();
    }
    schedulers_[id.value()] = &s;
    return id;
  }

  void unregister(const FrameworkID& id) {
    UnregisterFrameworkMessage message;
    message.mutable_framework_id()->CopyFrom(id);
    schedulers_.at(id.value())->post(master(), message);
    runtime_->settle();
  }

  void startWithSlave() {
    start();
    slave_ = &slave("slave(1)");
    slaveId_ = registerSlave(*slave_, "cpus:4;mem:4096");
  }

  static std::vector<std::string> ids(const json::Value& list) {
    std::vector<std::string> out;
    for (const json::Value& entry : list.array()) out.push_back(entry["id"].string());
    return out;
  }

  static std::set<std::string> idSet(const json::Value& list) {
    std::vector<std::string> all = ids(list);
    return {all.begin(), all.end()};
  }

  Peer* slave_ = nullptr;
  SlaveID slaveId_;
  std::map<std::string, Peer*> schedulers_;
};

TEST_F(HistoryCapsTest, EachFrameworkKeepsItsNewestCompletedTasks) {
  flags_.max_completed_tasks_per_framework = 3;
  startWithSlave();
  runTasks("scheduler(1)", "t", 10);

  json::Value state = get("/master/state");
  ASSERT_EQ(state["frameworks"].array().size(), 1u);
  const json::Value& framework = state["frameworks"].array()[0];
  EXPECT_TRUE(framework["tasks"].array().empty());
  EXPECT_EQ(idSet(framework["completed_tasks"]), (std::set<std::string>{"t7", "t8", "t9"}));
  json::Value tasks = get("/master/tasks?limit=100");
  EXPECT_EQ(idSet(tasks["tasks"]), (std::set<std::string>{"t7", "t8", "t9"}));
  // The counters count every task, kept or not.
  json::Value metrics = get("/metrics/snapshot");
  EXPECT_EQ(metrics["master/tasks_finished"].integer(), 10);
  EXPECT_EQ(metrics["master/tasks_running"].integer(), 0);
}

TEST_F(HistoryCapsTest, ZeroKeepsNoCompletedTasks) {
  flags_.max_completed_tasks_per_framework = 0;
  startWithSlave();
  runTasks("scheduler(1)", "t", 3);
  json::Value state = get("/master/state");
  ASSERT_EQ(state["frameworks"].array().size(), 1u);
  EXPECT_TRUE(state["frameworks"].array()[0]["completed_tasks"].array().empty());
  EXPECT_TRUE(get("/master/tasks")["tasks"].array().empty());
  EXPECT_EQ(get("/metrics/snapshot")["master/tasks_finished"].integer(), 3);
}

TEST_F(HistoryCapsTest, TheNewestCompletedFrameworksAreKeptWithTheirCappedHistory) {
  flags_.max_completed_frameworks = 2;
  flags_.max_completed_tasks_per_framework = 2;
  startWithSlave();
  std::vector<FrameworkID> frameworks;
  for (int i = 0; i < 5; ++i) {
    std::string name = "scheduler(" + std::to_string(i + 1) + ")";
    frameworks.push_back(runTasks(name, "f" + std::to_string(i) + "-", 4));
    unregister(frameworks.back());
  }

  json::Value state = get("/master/state");
  EXPECT_TRUE(state["frameworks"].array().empty());
  const json::Value& completed = state["completed_frameworks"];
  EXPECT_EQ(idSet(completed),
            (std::set<std::string>{frameworks[3].value(), frameworks[4].value()}));
  for (const json::Value& framework : completed.array()) {
    std::string prefix = framework["id"].string() == frameworks[3].value() ? "f3-" : "f4-";
    EXPECT_EQ(idSet(framework["completed_tasks"]),
              (std::set<std::string>{prefix + "2", prefix + "3"}));
  }
  json::Value listed = get("/master/frameworks");
  EXPECT_EQ(idSet(listed["completed_frameworks"]), idSet(completed));
  // /tasks lists only what is kept.
  std::vector<std::string> tasks = ids(get("/master/tasks?limit=100")["tasks"]);
  EXPECT_EQ(std::set<std::string>(tasks.begin(), tasks.end()),
            (std::set<std::string>{"f3-2", "f3-3", "f4-2", "f4-3"}));
  EXPECT_EQ(get("/metrics/snapshot")["master/tasks_finished"].integer(), 20);
}

}  // namespace
}  // namespace mesos::test
