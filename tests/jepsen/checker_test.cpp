// The checks of the Jepsen-style run (tests/jepsen/checker.hpp) over
// histories written by hand: each rule catches what it is meant to, and
// lets pass what docs/partition-awareness.md allows.
#include <gtest/gtest.h>

#include "jepsen/checker.hpp"

namespace mesos::jepsen {
namespace {

class CheckerTest : public ::testing::Test {
 protected:
  void launch(const std::string& framework, const std::string& task) {
    history_.launched({0, framework, task, "S1", "sleep 1"});
  }
  void update(const std::string& framework, const std::string& task, TaskState state,
              double time = 0) {
    Update u;
    u.time = time;
    u.framework = framework;
    u.task = task;
    u.state = state;
    history_.received(u);
  }
  std::vector<Violation> check(double end = 100) {
    return checkHistory(history_, {{"plain", false}, {"aware", true}}, end, 10);
  }

  History history_;
};

TEST_F(CheckerTest, AnOrderlyHistoryPasses) {
  launch("plain", "p1");
  update("plain", "p1", TASK_STARTING);
  update("plain", "p1", TASK_RUNNING);
  update("plain", "p1", TASK_RUNNING);  // a retried update
  update("plain", "p1", TASK_FINISHED);
  update("plain", "p1", TASK_FINISHED);  // and a reconciliation answer
  history_.sighted({{1, "p1", "slave1", 10}});
  EXPECT_TRUE(check().empty()) << report(history_, check());
}

TEST_F(CheckerTest, RunningAfterLostIsCaughtForAFrameworkThatIsNotPartitionAware) {
  launch("plain", "p1");
  update("plain", "p1", TASK_RUNNING);
  update("plain", "p1", TASK_LOST);
  update("plain", "p1", TASK_RUNNING);
  update("plain", "p1", TASK_KILLED);
  auto found = check();
  ASSERT_EQ(1u, found.size());
  EXPECT_EQ("p1", found[0].task);
  EXPECT_NE(std::string::npos, found[0].what.find("TASK_RUNNING (#3) after the terminal TASK_LOST"))
      << found[0].what;
  EXPECT_NE(std::string::npos, report(history_, found).find("TASK_LOST"));
}

TEST_F(CheckerTest, APartitionAwareTaskMayComeBackFromUnreachable) {
  launch("aware", "a1");
  update("aware", "a1", TASK_RUNNING);
  update("aware", "a1", TASK_UNREACHABLE);
  update("aware", "a1", TASK_RUNNING);
  update("aware", "a1", TASK_KILLED);
  EXPECT_TRUE(check().empty());
}

TEST_F(CheckerTest, AStateOnlyForPartitionAwareFrameworksIsCaught) {
  launch("plain", "p1");
  update("plain", "p1", TASK_RUNNING);
  update("plain", "p1", TASK_UNREACHABLE);
  update("plain", "p1", TASK_LOST);
  auto found = check();
  ASSERT_EQ(1u, found.size());
  EXPECT_NE(std::string::npos, found[0].what.find("not partition-aware"));
}

TEST_F(CheckerTest, ATaskWithoutATerminalStateIsCaught) {
  launch("plain", "p1");
  update("plain", "p1", TASK_RUNNING);
  launch("aware", "a1");
  update("aware", "a1", TASK_RUNNING);
  update("aware", "a1", TASK_UNREACHABLE);
  launch("aware", "a2");  // never launched: TASK_UNKNOWN ends it
  update("aware", "a2", TASK_UNKNOWN);
  auto found = check();
  ASSERT_EQ(2u, found.size()) << report(history_, found);
  EXPECT_EQ("a1", found[0].task);
  EXPECT_NE(std::string::npos, found[0].what.find("no terminal state"));
  EXPECT_EQ("p1", found[1].task);
}

TEST_F(CheckerTest, UpdatesOutOfOrderAreCaught) {
  launch("plain", "p1");
  update("plain", "p1", TASK_RUNNING);
  update("plain", "p1", TASK_STARTING);
  update("plain", "p1", TASK_FINISHED);
  auto found = check();
  ASSERT_EQ(1u, found.size());
  EXPECT_NE(std::string::npos, found[0].what.find("out of order"));
}

TEST_F(CheckerTest, AProcessOutlivingItsTerminalStateOnAnUndisturbedSlaveIsCaught) {
  launch("plain", "p1");
  update("plain", "p1", TASK_RUNNING, 1);
  update("plain", "p1", TASK_LOST, 2);
  launch("plain", "p2");
  update("plain", "p2", TASK_RUNNING, 1);
  update("plain", "p2", TASK_LOST, 2);
  // p1's slave was paused until 30 s: its process may run until it is back
  // (and the grace after). p2's slave was never touched.
  history_.faulted({"pause-slave", "slave1", 1.5, 29, 30});
  history_.sighted({{35, "p1", "slave1", 10}, {35, "p2", "slave2", 11}});
  auto found = check();
  ASSERT_EQ(1u, found.size()) << report(history_, found);
  EXPECT_EQ("p2", found[0].task);
  EXPECT_NE(std::string::npos, found[0].what.find("after its framework had its terminal state"));
}

TEST_F(CheckerTest, AProcessOnTwoSlavesOrAtTheEndIsCaught) {
  launch("aware", "a1");
  update("aware", "a1", TASK_RUNNING);
  update("aware", "a1", TASK_KILLED);
  launch("aware", "a2");
  update("aware", "a2", TASK_RUNNING);
  update("aware", "a2", TASK_KILLED);
  history_.sighted({{1, "a1", "slave1", 10}, {2, "a1", "slave2", 11}, {100, "a2", "slave1", 12}});
  auto found = check(100);
  ASSERT_EQ(2u, found.size()) << report(history_, found);
  EXPECT_NE(std::string::npos, found[0].what.find("two slaves"));
  EXPECT_NE(std::string::npos, found[1].what.find("at the end"));
}

TEST_F(CheckerTest, TheMasterMustAgreeWithTheFramework) {
  MasterView master;
  master.active = {{"p1", TASK_RUNNING}, {"p2", TASK_RUNNING}, {"p9", TASK_RUNNING}};
  master.completed = {{"p4", TASK_FINISHED}};
  std::map<std::string, TaskState> latest = {{"p1", TASK_RUNNING},
                                             {"p2", TASK_STARTING},
                                             {"p3", TASK_RUNNING},
                                             {"p4", TASK_KILLED}};
  auto found = compareWithMaster("plain", latest, master, false);
  ASSERT_EQ(4u, found.size());
  EXPECT_EQ("p2", found[0].task);  // states differ
  EXPECT_EQ("p9", found[1].task);  // unknown to the framework
  EXPECT_EQ("p3", found[2].task);  // unknown to the master
  EXPECT_EQ("p4", found[3].task);  // ended differently
  EXPECT_TRUE(compareWithMaster("plain", {{"p1", TASK_RUNNING}}, {{{"p1", TASK_RUNNING}}, {}},
                                false)
                  .empty());
}

}  // namespace
}  // namespace mesos::jepsen
