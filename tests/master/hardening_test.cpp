// The master's part of the slave's hardening (docs/security.md). Ids that
// would name paths outside the slave's work directory (common/ids.hpp) are
// refused: a task or executor id as TASK_ERROR naming the rule, while the
// valid tasks of the same launch go to the slave; a framework id when a
// framework re-registers with one. And /state shows executors' environment
// variables named like secrets masked.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

class IdValidationTest : public MasterFixture {
 protected:
  void SetUp() override {
    start();
    scheduler_ = &scheduler("scheduler(1)");
    slave_ = &slave("slave(1)");
    frameworkId_ = registerFramework(*scheduler_);
    slaveId_ = registerSlave(*slave_, "cpus:8;mem:8192");
  }

  TaskInfo task(const std::string& id) { return commandTask(id, slaveId_, "cpus:0.5;mem:64"); }

  // The statuses the scheduler got, by task id.
  std::vector<TaskStatus> statusesOf(const std::string& id) {
    std::vector<TaskStatus> got;
    for (const auto& m : scheduler_->received<StatusUpdateMessage>()) {
      if (m.update().status().task_id().value() == id) got.push_back(m.update().status());
    }
    return got;
  }

  std::vector<std::string> launched() {
    std::vector<std::string> ids;
    for (const auto& run : slave_->received<RunTaskMessage>()) {
      ids.push_back(run.task().task_id().value());
    }
    return ids;
  }

  Peer* scheduler_ = nullptr;
  Peer* slave_ = nullptr;
  FrameworkID frameworkId_;
  SlaveID slaveId_;
};

TEST_F(IdValidationTest, TaskAndExecutorIdsThatNamePathsAreRefused) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"../../../etc", "'/'"},
      {"..", "'.' or '..'"},
      {std::string("nul\0byte", 8), "control character"},
      {"new\nline", "control character"},
      {"back\\slash", "'\\'"},
      {std::string(256, 'x'), "more than 255"},
  };
  std::vector<TaskInfo> tasks;
  for (const auto& [id, words] : bad) tasks.push_back(task(id));
  TaskInfo executorTask = task("custom");
  executorTask.clear_command();
  executorTask.mutable_executor()->mutable_executor_id()->set_value("../escape");
  executorTask.mutable_executor()->mutable_command()->set_value("true");
  tasks.push_back(executorTask);
  tasks.push_back(task("fine-id.1"));
  auto offers = scheduler_->received<ResourceOffersMessage>();
  ASSERT_FALSE(offers.empty());
  launch(*scheduler_, frameworkId_, {offers.back().offers(0).id()}, tasks);

  for (const auto& [id, words] : bad) {
    auto got = statusesOf(id);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].state(), TASK_ERROR);
    EXPECT_EQ(got[0].reason(), TaskStatus::REASON_TASK_INVALID);
    EXPECT_NE(got[0].message().find("task id"), std::string::npos) << got[0].message();
    EXPECT_NE(got[0].message().find(words), std::string::npos) << got[0].message();
    // One line, whatever the id held.
    EXPECT_EQ(got[0].message().find('\n'), std::string::npos) << got[0].message();
  }
  auto custom = statusesOf("custom");
  ASSERT_EQ(custom.size(), 1u);
  EXPECT_EQ(custom[0].state(), TASK_ERROR);
  EXPECT_NE(custom[0].message().find("executor id '../escape'"), std::string::npos)
      << custom[0].message();
  EXPECT_EQ(launched(), std::vector<std::string>{"fine-id.1"});
}

TEST_F(IdValidationTest, AFrameworkCannotReregisterWithAnIdThatNamesAPath) {
  Peer& other = scheduler("scheduler(2)");
  ReregisterFrameworkMessage message;
  *message.mutable_framework() = frameworkInfo("intruder");
  message.mutable_framework()->mutable_id()->set_value("../../slaves");
  message.set_failover(true);
  other.post(master(), message);
  runtime_->settle();
  auto errors = other.received<FrameworkErrorMessage>();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message().find("framework id '../../slaves' is not valid"),
            std::string::npos)
      << errors[0].message();
  EXPECT_TRUE(other.received<FrameworkReregisteredMessage>().empty());
  EXPECT_EQ(get("/state")["frameworks"].array().size(), 1u);
}

TEST_F(IdValidationTest, StateMasksTheValuesOfSecretLookingVariables) {
  TaskInfo custom = task("custom");
  custom.clear_command();
  ExecutorInfo* executor = custom.mutable_executor();
  executor->mutable_executor_id()->set_value("e1");
  executor->mutable_command()->set_value("./run");
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"DB_PASSWORD", "hunter2"}, {"aws_secret_access_key", "abc123"},
           {"GITHUB_TOKEN", "ghp_x"}, {"COLOR", "blue"}}) {
    auto* variable = executor->mutable_command()->mutable_environment()->add_variables();
    variable->set_name(name);
    variable->set_value(value);
  }
  auto offers = scheduler_->received<ResourceOffersMessage>();
  ASSERT_FALSE(offers.empty());
  launch(*scheduler_, frameworkId_, {offers.back().offers(0).id()}, {custom});
  ASSERT_EQ(launched(), std::vector<std::string>{"custom"});

  json::Value state = get("/state");
  std::string text = json::stringify(state);
  for (const char* secret : {"hunter2", "abc123", "ghp_x"}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " shows in /state";
  }
  const json::Value& executors = state["frameworks"].array().at(0)["executors"];
  ASSERT_EQ(executors.array().size(), 1u);
  std::map<std::string, std::string> shown;
  for (const json::Value& variable :
       executors.array()[0]["command"]["environment"]["variables"].array()) {
    shown[variable["name"].string()] = variable["value"].string();
  }
  EXPECT_EQ(shown["DB_PASSWORD"], "********");
  EXPECT_EQ(shown["aws_secret_access_key"], "********");
  EXPECT_EQ(shown["GITHUB_TOKEN"], "********");
  EXPECT_EQ(shown["COLOR"], "blue");
}

}  // namespace
}  // namespace mesos::test
