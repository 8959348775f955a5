// MesosExecutorDriver against a fake slave actor in a test runtime with the
// clock paused: registration from the environment, callbacks, status updates
// and their acknowledgements, reconnection, shutdown, slave loss, abort/stop.
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/uuid.hpp"
#include "exec/executor_process.hpp"
#include "mesos/executor.hpp"
#include "messages.pb.h"
#include "process/runtime.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using mesos::internal::ExecutorRegisteredMessage;
using mesos::internal::ExecutorReregisteredMessage;
using mesos::internal::ExecutorToFrameworkMessage;
using mesos::internal::FrameworkToExecutorMessage;
using mesos::internal::KillTaskMessage;
using mesos::internal::ReconnectExecutorMessage;
using mesos::internal::RegisterExecutorMessage;
using mesos::internal::ReregisterExecutorMessage;
using mesos::internal::RunTaskMessage;
using mesos::internal::ShutdownExecutorMessage;
using mesos::internal::StatusUpdateAcknowledgementMessage;
using mesos::internal::StatusUpdate;
using mesos::internal::StatusUpdateMessage;
using process::Actor;
using process::Runtime;
using process::UPID;

// Records what an executor sends to its slave. Read it only after settle().
class FakeSlave : public Actor {
 public:
  explicit FakeSlave(std::string id = "slave(1)") : Actor(std::move(id)) {}

  std::vector<std::pair<UPID, RegisterExecutorMessage>> registrations;
  std::vector<ReregisterExecutorMessage> reregistrations;
  std::vector<StatusUpdateMessage> updates;
  std::vector<ExecutorToFrameworkMessage> frameworkMessages;

 protected:
  void initialize() override {
    on(&FakeSlave::registerExecutor);
    on(&FakeSlave::reregisterExecutor);
    on(&FakeSlave::statusUpdate);
    on(&FakeSlave::executorMessage);
  }

 private:
  void registerExecutor(const UPID& from, const RegisterExecutorMessage& m) {
    registrations.emplace_back(from, m);
  }
  void reregisterExecutor(const UPID&, const ReregisterExecutorMessage& m) {
    reregistrations.push_back(m);
  }
  void statusUpdate(const UPID&, const StatusUpdateMessage& m) { updates.push_back(m); }
  void executorMessage(const UPID&, const ExecutorToFrameworkMessage& m) {
    frameworkMessages.push_back(m);
  }
};

// Records every callback; flags two callbacks running at once.
class RecordingExecutor : public Executor {
 public:
  std::vector<std::string> events() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_;
  }
  size_t count(const std::string& prefix) const {
    size_t n = 0;
    for (const auto& event : events()) n += event.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  }
  bool overlapped() const { return overlapped_.load(); }
  ExecutorInfo executorInfo() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return executorInfo_;
  }
  FrameworkInfo frameworkInfo() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return frameworkInfo_;
  }
  SlaveInfo slaveInfo() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return slaveInfo_;
  }
  std::string lastError() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return lastError_;
  }

  // Optional reactions, run inside the callback; set before starting.
  std::function<void(ExecutorDriver*, const TaskInfo&)> onLaunch;
  std::function<void(ExecutorDriver*)> onShutdown;

  void registered(ExecutorDriver*, const ExecutorInfo& executorInfo,
                  const FrameworkInfo& frameworkInfo, const SlaveInfo& slaveInfo) override {
    Enter enter(this);
    std::lock_guard<std::mutex> lock(mutex_);
    executorInfo_ = executorInfo;
    frameworkInfo_ = frameworkInfo;
    slaveInfo_ = slaveInfo;
    events_.push_back("registered");
  }
  void reregistered(ExecutorDriver*, const SlaveInfo& slaveInfo) override {
    Enter enter(this);
    record("reregistered:" + slaveInfo.hostname());
  }
  void disconnected(ExecutorDriver*) override {
    Enter enter(this);
    record("disconnected");
  }
  void launchTask(ExecutorDriver* driver, const TaskInfo& task) override {
    Enter enter(this);
    record("launchTask:" + task.task_id().value());
    if (onLaunch) onLaunch(driver, task);
  }
  void killTask(ExecutorDriver*, const TaskID& taskId) override {
    Enter enter(this);
    record("killTask:" + taskId.value());
  }
  void frameworkMessage(ExecutorDriver*, const std::string& data) override {
    Enter enter(this);
    record("frameworkMessage:" + data);
  }
  void shutdown(ExecutorDriver* driver) override {
    Enter enter(this);
    record("shutdown");
    if (onShutdown) onShutdown(driver);
  }
  void error(ExecutorDriver*, const std::string& message) override {
    Enter enter(this);
    std::lock_guard<std::mutex> lock(mutex_);
    lastError_ = message;
    events_.push_back("error");
  }

 private:
  struct Enter {
    explicit Enter(RecordingExecutor* e) : executor(e) {
      if (executor->active_.fetch_add(1) != 0) executor->overlapped_ = true;
      // Give an overlapping callback a chance to show up.
      std::this_thread::yield();
    }
    ~Enter() { executor->active_.fetch_sub(1); }
    RecordingExecutor* executor;
  };
  void record(std::string event) {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(event));
  }

  mutable std::mutex mutex_;
  std::vector<std::string> events_;
  ExecutorInfo executorInfo_;
  FrameworkInfo frameworkInfo_;
  SlaveInfo slaveInfo_;
  std::string lastError_;
  std::atomic<int> active_{0};
  std::atomic<bool> overlapped_{false};
};

TaskInfo task(const std::string& id) {
  TaskInfo t;
  t.set_name("task " + id);
  t.mutable_task_id()->set_value(id);
  t.mutable_slave_id()->set_value("slave-1");
  t.mutable_command()->set_value("true");
  return t;
}

TaskStatus status(const std::string& taskId, TaskState state) {
  TaskStatus s;
  s.mutable_task_id()->set_value(taskId);
  s.set_state(state);
  return s;
}

class ExecutorDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Runtime::Options options;
    options.pauseClock = true;
    auto created = Runtime::create(options);
    ASSERT_TRUE(created.ok()) << created.error().message;
    runtime_ = std::move(created).value();
    slave_ = runtime_->spawn<FakeSlave>();
    environment_ = {
        {"MESOS_SLAVE_PID", slave_.pid().toString()},
        {"MESOS_SLAVE_ID", "slave-1"},
        {"MESOS_FRAMEWORK_ID", "framework-1"},
        {"MESOS_EXECUTOR_ID", "executor-1"},
        {"MESOS_DIRECTORY", "/tmp/sandbox"},
    };
  }

  void TearDown() override {
    driver_.reset();
    slave_.reset();
  }

  // Starts a driver and waits for its registration; returns its actor's pid.
  UPID start() {
    driver_ = std::make_unique<MesosExecutorDriver>(&executor_, environment_, runtime_.get());
    EXPECT_EQ(DRIVER_RUNNING, driver_->start());
    runtime_->settle();
    EXPECT_EQ(1u, slave_->registrations.size());
    return slave_->registrations.empty() ? UPID() : slave_->registrations.back().first;
  }

  // The slave accepts the registration of `executor`.
  void acceptRegistration(const UPID& executor) {
    ExecutorRegisteredMessage registered;
    registered.mutable_executor_info()->mutable_executor_id()->set_value("executor-1");
    registered.mutable_executor_info()->mutable_command()->set_value("./my-executor");
    registered.mutable_framework_id()->set_value("framework-1");
    registered.mutable_framework_info()->set_user("alice");
    registered.mutable_framework_info()->set_name("my framework");
    registered.mutable_slave_id()->set_value("slave-1");
    registered.mutable_slave_info()->set_hostname("host-1");
    fromSlave(executor, registered);
  }

  UPID startRegistered() {
    UPID executor = start();
    acceptRegistration(executor);
    return executor;
  }

  void fromSlave(const UPID& executor, const google::protobuf::Message& message) {
    runtime_->send(slave_.pid(), executor, message);
    runtime_->settle();
  }

  void runTask(const UPID& executor, const TaskInfo& t) {
    RunTaskMessage message;
    message.mutable_framework()->set_user("alice");
    message.mutable_framework()->set_name("my framework");
    *message.mutable_task() = t;
    fromSlave(executor, message);
  }

  void acknowledge(const UPID& executor, const StatusUpdate& update) {
    StatusUpdateAcknowledgementMessage ack;
    ack.mutable_slave_id()->set_value("slave-1");
    *ack.mutable_framework_id() = update.framework_id();
    *ack.mutable_task_id() = update.status().task_id();
    ack.set_uuid(update.uuid());
    fromSlave(executor, ack);
  }

  std::unique_ptr<Runtime> runtime_;
  process::Spawned<FakeSlave> slave_;
  std::map<std::string, std::string> environment_;
  RecordingExecutor executor_;
  std::unique_ptr<MesosExecutorDriver> driver_;
};

TEST_F(ExecutorDriverTest, RegistersWithTheSlaveNamedInTheEnvironment) {
  UPID executor = start();
  ASSERT_EQ(1u, slave_->registrations.size());
  const RegisterExecutorMessage& message = slave_->registrations[0].second;
  EXPECT_EQ("framework-1", message.framework_id().value());
  EXPECT_EQ("executor-1", message.executor_id().value());
  EXPECT_EQ(0u, executor.id.rfind("executor(", 0)) << executor.id;
  EXPECT_EQ(runtime_->address(), executor.address);
  EXPECT_TRUE(executor_.events().empty());
  EXPECT_EQ(DRIVER_RUNNING, driver_->start()) << "a second start() changes nothing";
  runtime_->settle();
  EXPECT_EQ(1u, slave_->registrations.size());
}

TEST_F(ExecutorDriverTest, RegisteredCallbackCarriesTheSlavesAnswer) {
  startRegistered();
  EXPECT_EQ(std::vector<std::string>{"registered"}, executor_.events());
  EXPECT_EQ("executor-1", executor_.executorInfo().executor_id().value());
  EXPECT_EQ("my framework", executor_.frameworkInfo().name());
  EXPECT_EQ("host-1", executor_.slaveInfo().hostname());
}

TEST_F(ExecutorDriverTest, MissingOrBadEnvironmentIsAnErrorNamingTheVariable) {
  struct Case {
    std::string variable;
    std::optional<std::string> value;  // nullopt: remove it
    std::string expected;              // in the error message
  };
  const std::vector<Case> cases = {
      {"MESOS_SLAVE_PID", std::nullopt, "MESOS_SLAVE_PID"},
      {"MESOS_SLAVE_PID", "nonsense", "MESOS_SLAVE_PID"},
      {"MESOS_SLAVE_ID", std::nullopt, "MESOS_SLAVE_ID"},
      {"MESOS_FRAMEWORK_ID", std::nullopt, "MESOS_FRAMEWORK_ID"},
      {"MESOS_EXECUTOR_ID", "", "MESOS_EXECUTOR_ID"},
      {"MESOS_DIRECTORY", std::nullopt, "MESOS_DIRECTORY"},
      {"MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD", "soon", "MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.variable + "=" + c.value.value_or("(unset)"));
    std::map<std::string, std::string> environment = environment_;
    if (c.value) {
      environment[c.variable] = *c.value;
    } else {
      environment.erase(c.variable);
    }
    RecordingExecutor executor;
    MesosExecutorDriver driver(&executor, environment, runtime_.get());
    EXPECT_EQ(DRIVER_ABORTED, driver.start());
    EXPECT_EQ(std::vector<std::string>{"error"}, executor.events());
    EXPECT_NE(std::string::npos, executor.lastError().find(c.expected)) << executor.lastError();
    EXPECT_EQ(DRIVER_ABORTED, driver.join()) << "join() returns at once";
    EXPECT_EQ(DRIVER_ABORTED, driver.sendFrameworkMessage("x"));
  }
  runtime_->settle();
  EXPECT_TRUE(slave_->registrations.empty());
}

TEST_F(ExecutorDriverTest, RecoveryTimeoutIsParsedOnlyWithCheckpointing) {
  environment_["MESOS_RECOVERY_TIMEOUT"] = "whenever";
  auto parsed = internal::parseExecutorEnvironment(environment_);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_FALSE(parsed->checkpoint);

  environment_["MESOS_CHECKPOINT"] = "1";
  parsed = internal::parseExecutorEnvironment(environment_);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(std::string::npos, parsed.error().message.find("MESOS_RECOVERY_TIMEOUT"));

  environment_["MESOS_RECOVERY_TIMEOUT"] = "2mins";
  environment_["MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD"] = "10secs";
  parsed = internal::parseExecutorEnvironment(environment_);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_TRUE(parsed->checkpoint);
  EXPECT_EQ(process::Duration(2min), parsed->recoveryTimeout);
  EXPECT_EQ(process::Duration(10s), parsed->shutdownGracePeriod);
  EXPECT_EQ("slave-1", parsed->slaveId.value());
  EXPECT_EQ(slave_.pid(), parsed->slave);
  EXPECT_EQ("/tmp/sandbox", parsed->directory);
}

TEST_F(ExecutorDriverTest, DeliversTasksKillsAndFrameworkMessages) {
  UPID executor = startRegistered();
  runTask(executor, task("t1"));

  KillTaskMessage kill;
  kill.mutable_framework_id()->set_value("framework-1");
  kill.mutable_task_id()->set_value("t1");
  fromSlave(executor, kill);

  FrameworkToExecutorMessage data;
  data.mutable_slave_id()->set_value("slave-1");
  data.mutable_framework_id()->set_value("framework-1");
  data.mutable_executor_id()->set_value("executor-1");
  data.set_data("hello executor");
  fromSlave(executor, data);

  EXPECT_EQ((std::vector<std::string>{"registered", "launchTask:t1", "killTask:t1",
                                      "frameworkMessage:hello executor"}),
            executor_.events());

  EXPECT_EQ(DRIVER_RUNNING, driver_->sendFrameworkMessage("hello scheduler"));
  runtime_->settle();
  ASSERT_EQ(1u, slave_->frameworkMessages.size());
  EXPECT_EQ("hello scheduler", slave_->frameworkMessages[0].data());
  EXPECT_EQ("slave-1", slave_->frameworkMessages[0].slave_id().value());
  EXPECT_EQ("framework-1", slave_->frameworkMessages[0].framework_id().value());
  EXPECT_EQ("executor-1", slave_->frameworkMessages[0].executor_id().value());
}

// Only its slave gives the executor orders: tasks, kills, messages,
// acknowledgements, shutdowns and reconnects from anyone else are ignored.
TEST_F(ExecutorDriverTest, OrdersFromAnyoneButItsSlaveAreIgnored) {
  UPID executor = startRegistered();
  auto stranger = runtime_->spawn<FakeSlave>("slave(2)");
  auto fromStranger = [&](const google::protobuf::Message& message) {
    runtime_->send(stranger.pid(), executor, message);
    runtime_->settle();
  };
  RunTaskMessage run;
  run.mutable_framework()->set_user("alice");
  run.mutable_framework()->set_name("my framework");
  *run.mutable_task() = task("forged");
  fromStranger(run);
  KillTaskMessage kill;
  kill.mutable_framework_id()->set_value("framework-1");
  kill.mutable_task_id()->set_value("t1");
  fromStranger(kill);
  FrameworkToExecutorMessage data;
  data.mutable_slave_id()->set_value("slave-1");
  data.mutable_framework_id()->set_value("framework-1");
  data.mutable_executor_id()->set_value("executor-1");
  data.set_data("forged");
  fromStranger(data);
  ReconnectExecutorMessage reconnect;
  reconnect.mutable_slave_id()->set_value("slave-1");
  fromStranger(reconnect);
  fromStranger(ShutdownExecutorMessage());
  EXPECT_EQ(std::vector<std::string>{"registered"}, executor_.events());
  EXPECT_TRUE(stranger->reregistrations.empty());
  EXPECT_TRUE(slave_->reregistrations.empty());

  // Its slave still gives them.
  runTask(executor, task("t1"));
  EXPECT_EQ((std::vector<std::string>{"registered", "launchTask:t1"}), executor_.events());
}

TEST_F(ExecutorDriverTest, TasksBeforeRegistrationAndMalformedRegistrationsAreDropped) {
  UPID executor = start();
  runTask(executor, task("early"));
  EXPECT_EQ(0u, executor_.count("launchTask"));

  ExecutorRegisteredMessage registered;  // lacks every required field
  fromSlave(executor, registered);
  EXPECT_EQ(0u, executor_.count("registered"));

  acceptRegistration(executor);
  runTask(executor, task("t1"));
  EXPECT_EQ((std::vector<std::string>{"registered", "launchTask:t1"}), executor_.events());
}

TEST_F(ExecutorDriverTest, DuplicateAndMalformedTasksAreDropped) {
  UPID executor = startRegistered();
  runTask(executor, task("t1"));
  runTask(executor, task("t1"));
  EXPECT_EQ(1u, executor_.count("launchTask:t1"));

  RunTaskMessage broken;  // no framework, task without a name
  broken.mutable_task()->mutable_task_id()->set_value("t2");
  fromSlave(executor, broken);
  EXPECT_EQ(0u, executor_.count("launchTask:t2"));

  runTask(executor, task("t3"));
  EXPECT_EQ(1u, executor_.count("launchTask:t3")) << "the driver keeps working";
}

TEST_F(ExecutorDriverTest, StatusUpdateIsStampedAndNotResentByTheDriver) {
  UPID executor = startRegistered();
  TaskStatus running = status("t1", TASK_RUNNING);
  running.set_message("started");
  EXPECT_EQ(DRIVER_RUNNING, driver_->sendStatusUpdate(running));
  runtime_->settle();

  ASSERT_EQ(1u, slave_->updates.size());
  const StatusUpdateMessage& message = slave_->updates[0];
  const StatusUpdate& update = message.update();
  EXPECT_TRUE(message.IsInitialized()) << message.InitializationErrorString();
  EXPECT_EQ(executor.toString(), message.pid());
  EXPECT_EQ("framework-1", update.framework_id().value());
  EXPECT_EQ("executor-1", update.executor_id().value());
  EXPECT_EQ("slave-1", update.slave_id().value());
  EXPECT_EQ("t1", update.status().task_id().value());
  EXPECT_EQ(TASK_RUNNING, update.status().state());
  EXPECT_EQ("started", update.status().message());
  EXPECT_TRUE(isValidUuid(update.uuid()));
  EXPECT_EQ(update.uuid(), update.status().uuid());
  EXPECT_EQ("slave-1", update.status().slave_id().value());
  EXPECT_EQ("executor-1", update.status().executor_id().value());
  EXPECT_EQ(TaskStatus::SOURCE_EXECUTOR, update.status().source());
  EXPECT_GT(update.timestamp(), 1.5e9);
  EXPECT_EQ(update.timestamp(), update.status().timestamp());

  // Reliability is the slave's job: the driver never re-sends.
  runtime_->clock().advance(10min);
  runtime_->settle();
  EXPECT_EQ(1u, slave_->updates.size());

  EXPECT_EQ(DRIVER_RUNNING, driver_->sendStatusUpdate(status("t1", TASK_FINISHED)));
  runtime_->settle();
  ASSERT_EQ(2u, slave_->updates.size());
  EXPECT_NE(slave_->updates[0].update().uuid(), slave_->updates[1].update().uuid());
}

TEST_F(ExecutorDriverTest, StatusUpdateWithoutTaskIdIsReportedNotSent) {
  startRegistered();
  TaskStatus incomplete;
  incomplete.set_state(TASK_RUNNING);
  EXPECT_EQ(DRIVER_RUNNING, driver_->sendStatusUpdate(incomplete));
  runtime_->settle();
  EXPECT_TRUE(slave_->updates.empty());
  EXPECT_NE(std::string::npos, executor_.lastError().find("task_id")) << executor_.lastError();
}

TEST_F(ExecutorDriverTest, ReconnectHandsBackUnacknowledgedUpdatesAndTasks) {
  UPID executor = startRegistered();
  runTask(executor, task("t1"));
  runTask(executor, task("t2"));
  driver_->sendStatusUpdate(status("t1", TASK_RUNNING));
  driver_->sendStatusUpdate(status("t2", TASK_RUNNING));
  runtime_->settle();
  ASSERT_EQ(2u, slave_->updates.size());
  acknowledge(executor, slave_->updates[0].update());

  // An acknowledgement of an update the driver never sent changes nothing.
  StatusUpdate unknown = slave_->updates[1].update();
  unknown.set_uuid(randomUuid());
  acknowledge(executor, unknown);

  ReconnectExecutorMessage reconnect;
  reconnect.mutable_slave_id()->set_value("slave-1");
  fromSlave(executor, reconnect);

  ASSERT_EQ(1u, slave_->reregistrations.size());
  const ReregisterExecutorMessage& reregister = slave_->reregistrations[0];
  EXPECT_EQ("executor-1", reregister.executor_id().value());
  EXPECT_EQ("framework-1", reregister.framework_id().value());
  ASSERT_EQ(1, reregister.updates_size());
  EXPECT_EQ(slave_->updates[1].update().uuid(), reregister.updates(0).uuid());
  ASSERT_EQ(1, reregister.tasks_size());
  EXPECT_EQ("t2", reregister.tasks(0).task_id().value());

  ExecutorReregisteredMessage reregistered;
  reregistered.mutable_slave_id()->set_value("slave-1");
  reregistered.mutable_slave_info()->set_hostname("host-1");
  fromSlave(executor, reregistered);
  EXPECT_EQ(1u, executor_.count("reregistered:host-1"));
}

TEST_F(ExecutorDriverTest, StagingUpdateAbortsTheDriver) {
  UPID executor = startRegistered();
  EXPECT_EQ(DRIVER_ABORTED, driver_->sendStatusUpdate(status("t1", TASK_STAGING)));
  EXPECT_EQ(DRIVER_ABORTED, driver_->join());
  runtime_->settle();
  EXPECT_TRUE(slave_->updates.empty());
  EXPECT_NE(std::string::npos, executor_.lastError().find("TASK_STAGING"));

  runTask(executor, task("t1"));
  EXPECT_EQ(0u, executor_.count("launchTask")) << "an aborted driver delivers nothing";
  EXPECT_EQ(DRIVER_ABORTED, driver_->stop());
  EXPECT_EQ(DRIVER_STOPPED, driver_->sendFrameworkMessage("x"));
}

TEST_F(ExecutorDriverTest, ShutdownRunsTheCallbackThenStopsAfterTheGracePeriod) {
  environment_["MESOS_EXECUTOR_SHUTDOWN_GRACE_PERIOD"] = "10secs";
  UPID executor = startRegistered();
  auto joined = std::async(std::launch::async, [this] { return driver_->join(); });

  fromSlave(executor, ShutdownExecutorMessage());
  EXPECT_EQ(1u, executor_.count("shutdown"));

  // Still running: the executor can report its tasks' ends.
  EXPECT_EQ(DRIVER_RUNNING, driver_->sendStatusUpdate(status("t1", TASK_KILLED)));
  runtime_->settle();
  EXPECT_EQ(1u, slave_->updates.size());
  // But the slave's messages are no longer delivered.
  runTask(executor, task("t2"));
  fromSlave(executor, ShutdownExecutorMessage());
  EXPECT_EQ(0u, executor_.count("launchTask"));
  EXPECT_EQ(1u, executor_.count("shutdown"));

  runtime_->clock().advance(9s);
  runtime_->settle();
  EXPECT_EQ(DRIVER_RUNNING, driver_->sendFrameworkMessage("still here"));

  runtime_->clock().advance(1s);
  runtime_->settle();
  ASSERT_EQ(std::future_status::ready, joined.wait_for(15s));
  EXPECT_EQ(DRIVER_STOPPED, joined.get());
}

TEST_F(ExecutorDriverTest, ExecutorMayStopTheDriverFromShutdown) {
  executor_.onShutdown = [](ExecutorDriver* driver) {
    EXPECT_EQ(DRIVER_STOPPED, driver->stop());
  };
  UPID executor = startRegistered();
  fromSlave(executor, ShutdownExecutorMessage());
  EXPECT_EQ(DRIVER_STOPPED, driver_->join());
}

TEST_F(ExecutorDriverTest, SlaveExitWithoutCheckpointingMeansShutdown) {
  startRegistered();
  slave_.reset();
  runtime_->settle();
  EXPECT_EQ((std::vector<std::string>{"registered", "shutdown"}), executor_.events());
  runtime_->clock().advance(5s);
  runtime_->settle();
  EXPECT_EQ(DRIVER_STOPPED, driver_->join());
}

TEST_F(ExecutorDriverTest, CheckpointingExecutorWaitsForTheSlaveToReconnect) {
  environment_["MESOS_CHECKPOINT"] = "1";
  environment_["MESOS_RECOVERY_TIMEOUT"] = "1mins";
  UPID executor = startRegistered();
  driver_->sendStatusUpdate(status("t1", TASK_RUNNING));
  runtime_->settle();

  slave_.reset();
  runtime_->settle();
  EXPECT_EQ((std::vector<std::string>{"registered", "disconnected"}), executor_.events());

  // The slave comes back (same id and address) and reconnects.
  runtime_->clock().advance(30s);
  slave_ = runtime_->spawn<FakeSlave>();
  ReconnectExecutorMessage reconnect;
  reconnect.mutable_slave_id()->set_value("slave-1");
  fromSlave(executor, reconnect);
  ASSERT_EQ(1u, slave_->reregistrations.size());
  EXPECT_EQ(1, slave_->reregistrations[0].updates_size()) << "the update was never acknowledged";

  ExecutorReregisteredMessage reregistered;
  reregistered.mutable_slave_id()->set_value("slave-1");
  reregistered.mutable_slave_info()->set_hostname("host-1");
  fromSlave(executor, reregistered);
  EXPECT_EQ(1u, executor_.count("reregistered"));

  // The old recovery timer finds the executor connected again.
  runtime_->clock().advance(2min);
  runtime_->settle();
  EXPECT_EQ(0u, executor_.count("shutdown"));
  EXPECT_EQ(DRIVER_RUNNING, driver_->sendFrameworkMessage("alive"));
}

// A slave restarted, asked the executor to reconnect, and died again before
// acknowledging the re-registration (a slave killed twice in a row): the
// executor goes on waiting for the next one, within the recovery timeout of
// its first disconnection.
TEST_F(ExecutorDriverTest, ASlaveLostBeforeAcknowledgingTheReregistrationIsWaitedFor) {
  environment_["MESOS_CHECKPOINT"] = "1";
  environment_["MESOS_RECOVERY_TIMEOUT"] = "1mins";
  UPID executor = startRegistered();
  slave_.reset();
  runtime_->settle();

  ReconnectExecutorMessage reconnect;
  reconnect.mutable_slave_id()->set_value("slave-1");
  for (int restart = 1; restart <= 2; ++restart) {
    runtime_->clock().advance(20s);
    slave_ = runtime_->spawn<FakeSlave>();
    fromSlave(executor, reconnect);
    ASSERT_EQ(1u, slave_->reregistrations.size()) << "restart " << restart;
    slave_.reset();  // gone before it acknowledged
    runtime_->settle();
    EXPECT_EQ(0u, executor_.count("shutdown")) << "restart " << restart;
  }
  EXPECT_EQ(1u, executor_.count("disconnected"));

  // The third slave acknowledges: the executor is back.
  slave_ = runtime_->spawn<FakeSlave>();
  fromSlave(executor, reconnect);
  ASSERT_EQ(1u, slave_->reregistrations.size());
  ExecutorReregisteredMessage reregistered;
  reregistered.mutable_slave_id()->set_value("slave-1");
  reregistered.mutable_slave_info()->set_hostname("host-1");
  fromSlave(executor, reregistered);
  EXPECT_EQ(1u, executor_.count("reregistered"));
  runtime_->clock().advance(2min);
  runtime_->settle();
  EXPECT_EQ(0u, executor_.count("shutdown"));
}

TEST_F(ExecutorDriverTest, ASlaveLostWhileReconnectingLeavesTheFirstRecoveryTimeout) {
  environment_["MESOS_CHECKPOINT"] = "1";
  environment_["MESOS_RECOVERY_TIMEOUT"] = "1mins";
  UPID executor = startRegistered();
  slave_.reset();
  runtime_->settle();

  runtime_->clock().advance(40s);
  slave_ = runtime_->spawn<FakeSlave>();
  ReconnectExecutorMessage reconnect;
  reconnect.mutable_slave_id()->set_value("slave-1");
  fromSlave(executor, reconnect);
  slave_.reset();
  runtime_->settle();
  EXPECT_EQ(0u, executor_.count("shutdown"));

  // A minute after the first disconnection, not after the second.
  runtime_->clock().advance(20s);
  runtime_->settle();
  EXPECT_EQ(1u, executor_.count("shutdown"));
}

TEST_F(ExecutorDriverTest, CheckpointingExecutorShutsDownAfterTheRecoveryTimeout) {
  environment_["MESOS_CHECKPOINT"] = "1";
  environment_["MESOS_RECOVERY_TIMEOUT"] = "1mins";
  startRegistered();
  slave_.reset();
  runtime_->settle();
  EXPECT_EQ(1u, executor_.count("disconnected"));

  runtime_->clock().advance(59s);
  runtime_->settle();
  EXPECT_EQ(0u, executor_.count("shutdown"));
  runtime_->clock().advance(1s);
  runtime_->settle();
  EXPECT_EQ(1u, executor_.count("shutdown"));
}

TEST_F(ExecutorDriverTest, StopWhenAcknowledgedWaitsForTheSlavesAcknowledgement) {
  UPID executor = startRegistered();
  driver_->sendStatusUpdate(status("t1", TASK_FINISHED));
  EXPECT_EQ(DRIVER_RUNNING, driver_->stopWhenAcknowledged(30s));
  runtime_->settle();
  ASSERT_EQ(1u, slave_->updates.size());
  EXPECT_EQ(DRIVER_RUNNING, driver_->sendFrameworkMessage("waiting"));

  acknowledge(executor, slave_->updates[0].update());
  EXPECT_EQ(DRIVER_STOPPED, driver_->join());
}

TEST_F(ExecutorDriverTest, StopWhenAcknowledgedGivesUpAfterTheTimeout) {
  startRegistered();
  driver_->sendStatusUpdate(status("t1", TASK_FINISHED));
  driver_->stopWhenAcknowledged(30s);
  runtime_->settle();  // the timer starts when the actor takes the request
  runtime_->clock().advance(29s);
  runtime_->settle();
  EXPECT_EQ(DRIVER_RUNNING, driver_->sendFrameworkMessage("waiting"));
  runtime_->clock().advance(1s);
  runtime_->settle();
  EXPECT_EQ(DRIVER_STOPPED, driver_->join());
}

TEST_F(ExecutorDriverTest, AbortWakesJoinAndSilencesCallbacks) {
  UPID executor = startRegistered();
  auto joined = std::async(std::launch::async, [this] { return driver_->join(); });
  EXPECT_EQ(DRIVER_ABORTED, driver_->abort());
  ASSERT_EQ(std::future_status::ready, joined.wait_for(15s));
  EXPECT_EQ(DRIVER_ABORTED, joined.get());

  runTask(executor, task("t1"));
  EXPECT_EQ(0u, executor_.count("launchTask"));
  EXPECT_EQ(DRIVER_ABORTED, driver_->sendStatusUpdate(status("t1", TASK_RUNNING)));
  EXPECT_EQ(DRIVER_ABORTED, driver_->abort());
  EXPECT_EQ(DRIVER_ABORTED, driver_->stop()) << "stop() after abort() says it was aborted";
  EXPECT_EQ(DRIVER_STOPPED, driver_->stop());
  EXPECT_EQ(DRIVER_STOPPED, driver_->join());
}

TEST_F(ExecutorDriverTest, AbortDuringShutdownKeepsTheDriverAborted) {
  UPID executor = startRegistered();
  fromSlave(executor, ShutdownExecutorMessage());
  EXPECT_EQ(DRIVER_ABORTED, driver_->abort());
  runtime_->clock().advance(1min);  // past the shutdown grace period
  runtime_->settle();
  EXPECT_EQ(DRIVER_ABORTED, driver_->join());
}

TEST_F(ExecutorDriverTest, StopFromAnotherThreadEndsRun) {
  driver_ = std::make_unique<MesosExecutorDriver>(&executor_, environment_, runtime_.get());
  auto registration = runtime_->hooks().await<RegisterExecutorMessage>();
  auto ran = std::async(std::launch::async, [this] { return driver_->run(); });
  // Stop once the driver has registered (run() started it).
  ASSERT_TRUE(registration.await(15s));
  EXPECT_EQ(DRIVER_STOPPED, driver_->stop());
  ASSERT_EQ(std::future_status::ready, ran.wait_for(15s));
  EXPECT_EQ(DRIVER_STOPPED, ran.get());
}

TEST_F(ExecutorDriverTest, CallbacksMayCallTheDriver) {
  executor_.onLaunch = [](ExecutorDriver* driver, const TaskInfo& t) {
    TaskStatus running;
    *running.mutable_task_id() = t.task_id();
    running.set_state(TASK_RUNNING);
    EXPECT_EQ(DRIVER_RUNNING, driver->sendStatusUpdate(running));
  };
  UPID executor = startRegistered();
  runTask(executor, task("t1"));
  ASSERT_EQ(1u, slave_->updates.size());
  EXPECT_EQ("t1", slave_->updates[0].update().status().task_id().value());
}

TEST_F(ExecutorDriverTest, ManyThreadsSendUpdatesWhileCallbacksRunOneAtATime) {
  UPID executor = startRegistered();
  constexpr int kThreads = 4;
  constexpr int kUpdates = 50;
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t) {
    senders.emplace_back([this, t] {
      for (int i = 0; i < kUpdates; ++i) {
        driver_->sendStatusUpdate(status("t" + std::to_string(t), TASK_RUNNING));
      }
    });
  }
  // Meanwhile the slave keeps the callbacks busy.
  for (int i = 0; i < 50; ++i) {
    FrameworkToExecutorMessage data;
    data.mutable_slave_id()->set_value("slave-1");
    data.mutable_framework_id()->set_value("framework-1");
    data.mutable_executor_id()->set_value("executor-1");
    data.set_data(std::to_string(i));
    runtime_->send(slave_.pid(), executor, data);
  }
  for (auto& sender : senders) sender.join();
  runtime_->settle();

  ASSERT_EQ(size_t{kThreads * kUpdates}, slave_->updates.size());
  std::set<std::string> uuids;
  for (const auto& message : slave_->updates) uuids.insert(message.update().uuid());
  EXPECT_EQ(size_t{kThreads * kUpdates}, uuids.size());
  EXPECT_EQ(50u, executor_.count("frameworkMessage"));
  EXPECT_FALSE(executor_.overlapped());
}

}  // namespace
}  // namespace mesos::test
