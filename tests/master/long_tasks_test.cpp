// Long-task slots (the paper's section 4.3) on the master: tasks labelled
// long=true may hold at most --long_task_share of each slave's scalars, and
// tasks that are not long are revoked --short_task_max_duration after their
// launch. Real master and allocator; stand-in scheduler and slave (Peer
// actors); paused clock.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using namespace mesos::internal;
using master::Master;
using master::MasterFlags;
using process::Spawned;
using process::UPID;

// A stand-in slave that also answers the master's pings, so that it stays
// registered however far the clock moves.
class Agent : public Peer {
 public:
  Agent() : Peer("slave(1)") {
    on<PingSlaveMessage>(std::function<void(const UPID&, const PingSlaveMessage&)>(
        [this](const UPID& from, const PingSlaveMessage&) { send(from, PongSlaveMessage()); }));
  }
};

class MasterLongTasksTest : public MasterFixture {
 protected:
  // Starts the master with flags_, one 4-cpu slave and one framework.
  void start() {
    MasterFixture::start();
    std::unique_ptr<Peer> slave = std::make_unique<Agent>();
    slave->accept<SlaveRegisteredMessage, RunTaskMessage, KillTaskMessage,
                  ShutdownExecutorMessage, StatusUpdateAcknowledgementMessage>();
    peers_.push_back(runtime_->spawn(std::move(slave)));
    agent_ = peers_.back().get();
    scheduler_ = &scheduler("scheduler(1)");
    slaveId_ = registerSlave(*agent_);
    frameworkId_ = registerFramework(*scheduler_, frameworkInfo("framework"));
  }

  TaskInfo task(const std::string& id, bool isLong) const {
    TaskInfo task = commandTask(id, slaveId_, "cpus:1;mem:512", "sleep 1000");
    Label* other = task.mutable_labels()->add_labels();
    other->set_key("team");
    other->set_value("search");
    if (isLong) {
      Label* label = task.mutable_labels()->add_labels();
      label->set_key(master::kLongTaskLabel);
      label->set_value("true");
    }
    return task;
  }

  // Launches `tasks` on the latest offer; what is left comes back at once.
  void launch(const std::vector<TaskInfo>& tasks) {
    auto offers = scheduler_->received<ResourceOffersMessage>();
    ASSERT_FALSE(offers.empty()) << "no offers";
    MasterFixture::launch(*scheduler_, frameworkId_, {offers.back().offers(0).id()}, tasks, 0);
  }

  // The slave reports `state` (with a uuid); the scheduler acknowledges it.
  void report(const std::string& taskId, TaskState state) {
    StatusUpdateMessage message = update(frameworkId_, slaveId_, taskId, state, *agent_);
    agent_->post(master(), message);
    runtime_->settle();

    StatusUpdateAcknowledgementMessage ack;
    ack.mutable_slave_id()->CopyFrom(slaveId_);
    ack.mutable_framework_id()->CopyFrom(frameworkId_);
    ack.mutable_task_id()->set_value(taskId);
    ack.set_uuid(message.update().uuid());
    scheduler_->post(master(), ack);
    runtime_->settle();
  }

  // The scheduler's latest update for `taskId`.
  std::optional<TaskStatus> latest(const std::string& taskId) {
    std::optional<TaskStatus> status;
    for (const auto& update : scheduler_->received<StatusUpdateMessage>()) {
      if (update.update().status().task_id().value() == taskId) status = update.update().status();
    }
    return status;
  }

  std::vector<std::string> launched() {
    std::vector<std::string> ids;
    for (const auto& run : agent_->received<RunTaskMessage>()) {
      ids.push_back(run.task().task_id().value());
    }
    return ids;
  }

  std::vector<std::string> killed() {
    std::vector<std::string> ids;
    for (const auto& kill : agent_->received<KillTaskMessage>()) {
      ids.push_back(kill.task_id().value());
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  json::Value metrics() {
    runtime_->clock().resume();
    std::string body;
    EXPECT_EQ(200, httpGet(runtime_->address(), "/metrics/snapshot", &body));
    auto parsed = json::parse(body);
    EXPECT_TRUE(parsed.ok()) << body;
    return parsed.ok() ? *parsed : json::Value();
  }

  Peer* agent_ = nullptr;
  Peer* scheduler_ = nullptr;
  SlaveID slaveId_;
  FrameworkID frameworkId_;
};

TEST_F(MasterLongTasksTest, LongTasksHoldAtMostTheirShareOfEachSlave) {
  flags_.long_task_share = 0.5;
  start();

  // Two long tasks fill half the cpus; the third, in the same message, would
  // pass the cap.
  launch({task("long1", true), task("long2", true), task("long3", true)});
  EXPECT_EQ((std::vector<std::string>{"long1", "long2"}), launched());
  auto refused = latest("long3");
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(TASK_ERROR, refused->state());
  EXPECT_EQ(TaskStatus::REASON_TASK_INVALID, refused->reason());
  EXPECT_EQ("long tasks may hold at most 50% of slave " + slaveId_.value() +
                "'s cpus; this task would bring them to 75%",
            refused->message());

  // A short task is not capped.
  launch({task("short1", false)});
  EXPECT_EQ((std::vector<std::string>{"long1", "long2", "short1"}), launched());

  // Nor does a long task fit in another message.
  launch({task("long4", true)});
  ASSERT_TRUE(latest("long4").has_value());
  EXPECT_EQ(TASK_ERROR, latest("long4")->state());
  EXPECT_EQ(3u, agent_->count<RunTaskMessage>());

  // Once a long task ends, its share is free for another.
  report("long1", TASK_RUNNING);
  report("long1", TASK_FINISHED);
  launch({task("long5", true)});
  EXPECT_EQ((std::vector<std::string>{"long1", "long2", "short1", "long5"}), launched());
  EXPECT_FALSE(latest("long5").has_value()) << "no TASK_ERROR";

  EXPECT_EQ(2, metrics()["master/invalid_tasks"].integer());
}

TEST_F(MasterLongTasksTest, TheDefaultShareDoesNotCapLongTasks) {
  start();
  launch({task("long1", true), task("long2", true), task("long3", true), task("long4", true)});
  EXPECT_EQ(4u, agent_->count<RunTaskMessage>());
}

TEST_F(MasterLongTasksTest, ShortTasksAreRevokedAfterTheMaximumDuration) {
  flags_.short_task_max_duration = 60s;
  start();
  launch({task("short1", false), task("short2", false), task("short3", false),
          task("long1", true)});
  ASSERT_EQ(4u, agent_->count<RunTaskMessage>());
  for (const char* id : {"short1", "short2", "short3", "long1"}) report(id, TASK_RUNNING);

  // short3 ends on its own before the limit: it is never killed.
  for (int i = 0; i < 30; ++i) advance(1s);
  report("short3", TASK_FINISHED);
  for (int i = 0; i < 29; ++i) advance(1s);
  EXPECT_EQ(0u, agent_->count<KillTaskMessage>()) << "59 s after the launch";

  advance(1s);
  EXPECT_EQ((std::vector<std::string>{"short1", "short2"}), killed());

  // short1 obeys the kill; its framework learns it was preempted.
  report("short1", TASK_KILLED);
  auto status = latest("short1");
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(TASK_KILLED, status->state());
  EXPECT_EQ(TaskStatus::REASON_CONTAINER_PREEMPTED, status->reason());

  // short2 ignores it: after the grace period its executor is shut down.
  advance(4s);
  EXPECT_EQ(0u, agent_->count<ShutdownExecutorMessage>());
  advance(1s);
  auto shutdowns = agent_->received<ShutdownExecutorMessage>();
  ASSERT_EQ(1u, shutdowns.size());
  EXPECT_EQ("short2", shutdowns[0].executor_id().value());

  // The long task is never revoked, however long it runs.
  for (int i = 0; i < 10; ++i) advance(60s);
  EXPECT_EQ((std::vector<std::string>{"short1", "short2"}), killed());
  EXPECT_EQ(TASK_RUNNING, latest("long1")->state()) << "the slave is still there";

  json::Value snapshot = metrics();
  EXPECT_EQ(2, snapshot["master/short_tasks_expired"].integer());
  EXPECT_EQ(2, snapshot["master/tasks_revoked"].integer());
}

TEST_F(MasterLongTasksTest, WithoutTheLimitShortTasksRunOn) {
  start();
  launch({task("short1", false)});
  report("short1", TASK_RUNNING);
  for (int i = 0; i < 10; ++i) advance(3600s);
  EXPECT_EQ(0u, agent_->count<KillTaskMessage>());
  EXPECT_EQ(TASK_RUNNING, latest("short1")->state()) << "the slave is still there";
  EXPECT_EQ(0, metrics()["master/short_tasks_expired"].integer());
}

// A framework within its guarantee never loses tasks, short or not.
TEST_F(MasterLongTasksTest, ShortTasksWithinTheGuaranteeAreNotRevoked) {
  flags_.short_task_max_duration = 60s;
  flags_.guarantees = "*:cpus:4";
  start();
  launch({task("short1", false), task("short2", false)});
  for (const char* id : {"short1", "short2"}) report(id, TASK_RUNNING);
  for (int i = 0; i < 120; ++i) advance(1s);
  EXPECT_EQ(0u, agent_->count<KillTaskMessage>());
  EXPECT_EQ(0, metrics()["master/short_tasks_expired"].integer());
}

TEST(MasterLongTasksFlagsTest, BadValuesAreRefusedWithOneLine) {
  for (const char* arg : {"--long_task_share=0", "--long_task_share=1.5",
                          "--long_task_share=-0.5", "--short_task_max_duration=0secs"}) {
    MasterFlags flags;
    const char* argv[] = {"mesos-master", arg};
    auto loaded = flags.load("MESOS_TEST_UNSET_", 2, argv);
    ASSERT_FALSE(loaded.ok()) << arg;
    const std::string& message = loaded.error().message;
    EXPECT_EQ(std::string::npos, message.find('\n')) << message;
    std::string name = std::string(arg).substr(0, std::string(arg).find('='));
    EXPECT_NE(std::string::npos, message.find(name)) << message;
  }

  MasterFlags flags;
  const char* good[] = {"mesos-master", "--long_task_share=0.5", "--short_task_max_duration=2mins"};
  ASSERT_TRUE(flags.load("MESOS_TEST_UNSET_", 3, good).ok());
  EXPECT_EQ(0.5, flags.long_task_share);
  EXPECT_EQ(std::chrono::minutes(2), *flags.short_task_max_duration);

  MasterFlags defaults;
  EXPECT_EQ(1.0, defaults.long_task_share);
  EXPECT_FALSE(defaults.short_task_max_duration.has_value());
}

}  // namespace
}  // namespace mesos::test
