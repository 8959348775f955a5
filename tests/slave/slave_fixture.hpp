// Test harness for the slave: a fake master actor (id "master") that records
// what the slave sends and answers registrations and status updates, a fake
// executor built on test::Peer, and a fixture with a paused-clock runtime and
// a scratch work directory.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "common/task_states.hpp"
#include "common/uuid.hpp"
#include "messages.pb.h"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "slave/files.hpp"
#include "slave/flags.hpp"
#include "slave/slave.hpp"
#include "support/peer.hpp"

namespace mesos::internal::slave::test {

class FakeMaster : public process::Actor {
 public:
  FakeMaster() : Actor("master") {}

  std::atomic<bool> autoRegister{true};
  std::atomic<bool> autoAcknowledge{true};

  std::vector<StatusUpdate> updates() {
    std::lock_guard<std::mutex> lock(mutex_);
    return updates_;
  }
  std::vector<ExitedExecutorMessage> exited() {
    std::lock_guard<std::mutex> lock(mutex_);
    return exited_;
  }
  std::vector<ExecutorToFrameworkMessage> frameworkMessages() {
    std::lock_guard<std::mutex> lock(mutex_);
    return frameworkMessages_;
  }

 protected:
  void initialize() override {
    on<RegisterSlaveMessage>([this](const process::UPID& from, const RegisterSlaveMessage&) {
      if (!autoRegister) return;
      SlaveRegisteredMessage reply;
      reply.mutable_slave_id()->set_value("S1");
      send(from, std::move(reply));
    });
    on<ReregisterSlaveMessage>([this](const process::UPID& from, const ReregisterSlaveMessage& m) {
      if (!autoRegister) return;
      SlaveReregisteredMessage reply;
      *reply.mutable_slave_id() = m.slave().id();
      send(from, std::move(reply));
    });
    on<StatusUpdateMessage>([this](const process::UPID&, const StatusUpdateMessage& m) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        updates_.push_back(m.update());
      }
      if (!autoAcknowledge) return;
      StatusUpdateAcknowledgementMessage ack;
      *ack.mutable_slave_id() = m.update().slave_id();
      *ack.mutable_framework_id() = m.update().framework_id();
      *ack.mutable_task_id() = m.update().status().task_id();
      ack.set_uuid(m.update().uuid());
      send(process::UPID::parse(m.pid()).value(), std::move(ack));
    });
    on<ExitedExecutorMessage>([this](const process::UPID&, const ExitedExecutorMessage& m) {
      std::lock_guard<std::mutex> lock(mutex_);
      exited_.push_back(m);
    });
    on<ExecutorToFrameworkMessage>(
        [this](const process::UPID&, const ExecutorToFrameworkMessage& m) {
          std::lock_guard<std::mutex> lock(mutex_);
          frameworkMessages_.push_back(m);
        });
    on<PongSlaveMessage>([](const process::UPID&, const PongSlaveMessage&) {});
  }

 private:
  std::mutex mutex_;
  std::vector<StatusUpdate> updates_;
  std::vector<ExitedExecutorMessage> exited_;
  std::vector<ExecutorToFrameworkMessage> frameworkMessages_;
};

class SlaveTestBase : public ::testing::Test {
 protected:
  void SetUp() override {
    process::Runtime::Options options;
    options.pauseClock = true;
    runtime_ = process::Runtime::create(options).value();
    char pattern[] = "/tmp/mesos-slave-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    workDir_ = pattern;
    master_ = runtime_->spawn<FakeMaster>();
    files_ = runtime_->spawn<Files>();
  }

  void TearDown() override {
    slave_.reset();
    for (auto& executor : executors_) executor.reset();
    files_.reset();
    master_.reset();
    runtime_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(workDir_, ignored);
  }

  Flags flags() const {
    Flags flags;
    flags.work_dir = workDir_;
    flags.resources = "cpus:2;mem:1024;disk:4096;ports:[31000-31099]";
    flags.attributes = "rack:r1;zone:z2";
    std::string executor = MESOS_EXECUTOR_PATH;
    flags.launcher_dir = executor.substr(0, executor.rfind('/'));
    return flags;
  }

  void startSlave(const Flags& flags) {
    SlaveOptions options;
    options.master = master_.pid();
    options.files = files_.pid();
    options.machine = MachineFacts{4, 8192, 100000};
    auto slave = Slave::create(flags, std::move(options));
    ASSERT_TRUE(slave.ok()) << slave.error().message;
    slave_ = runtime_->spawn(std::move(slave).value());
  }

  // Starts the slave and lets it register as S1.
  void startRegisteredSlave(const Flags& flags) {
    auto registered = runtime_->hooks().await<SlaveRegisteredMessage>();
    startSlave(flags);
    runtime_->settle();
    ASSERT_TRUE(registered.isReady());
    runtime_->settle();
  }
  void startRegisteredSlave() { startRegisteredSlave(flags()); }

  SlaveInfo slaveInfo() {
    auto info = process::dispatch(slave_.pid(), &Slave::info);
    EXPECT_TRUE(info.await());
    return info.get();
  }

  json::Value state() {
    auto state = process::dispatch(slave_.pid(), &Slave::state);
    EXPECT_TRUE(state.await());
    return state.get();
  }

  void advance(process::Duration d) {
    runtime_->clock().advance(d);
    runtime_->settle();
  }

  // A status update for task `taskId` of F1 on S1, as executor `executorId`
  // at `from` sends it.
  static StatusUpdateMessage executorUpdate(const process::UPID& from,
                                            const std::string& executorId,
                                            const std::string& taskId, TaskState state) {
    StatusUpdateMessage message;
    StatusUpdate* update = message.mutable_update();
    update->mutable_framework_id()->set_value("F1");
    update->mutable_executor_id()->set_value(executorId);
    update->mutable_slave_id()->set_value("S1");
    update->mutable_status()->mutable_task_id()->set_value(taskId);
    update->mutable_status()->set_state(state);
    update->set_timestamp(1);
    update->set_uuid(randomUuid());
    message.set_pid(from.toString());
    return message;
  }

  // Waits (real time: a real executor runs) until the fake master holds a
  // terminal status update; fails the test after 30 s without an update.
  void awaitTerminalUpdate() {
    for (int i = 0; i < 300; ++i) {
      auto updates = master_->updates();
      if (!updates.empty() && isTerminalState(updates.back().status().state())) return;
      auto next = runtime_->hooks().await<StatusUpdateMessage>(slave_.pid(), master_.pid());
      updates = master_->updates();
      if (!updates.empty() && isTerminalState(updates.back().status().state())) return;
      ASSERT_TRUE(next.await(std::chrono::seconds(30))) << "no status update in 30 s";
      runtime_->settle();
    }
  }

  // Sends `message` to the slave as the master would.
  void fromMaster(const google::protobuf::Message& message) {
    runtime_->send(master_.pid(), slave_.pid(), message);
  }

  mesos::test::Peer* startExecutor(const std::string& id) {
    auto peer = std::make_unique<mesos::test::Peer>(id);
    peer->accept<ExecutorRegisteredMessage, RunTaskMessage, KillTaskMessage,
                 StatusUpdateAcknowledgementMessage, ShutdownExecutorMessage,
                 FrameworkToExecutorMessage, ExecutorReregisteredMessage>();
    executors_.push_back(runtime_->spawn(std::move(peer)));
    return executors_.back().get();
  }

  static FrameworkInfo frameworkInfo() {
    FrameworkInfo info;
    info.set_user("root");
    info.set_name("test framework");
    info.mutable_id()->set_value("F1");
    return info;
  }

  // A task for this slave run by a custom executor whose process runs
  // `command` (the test plays the executor itself when it registers).
  static TaskInfo customTask(const std::string& taskId, const std::string& executorId,
                             const std::string& command) {
    TaskInfo task;
    task.set_name("task " + taskId);
    task.mutable_task_id()->set_value(taskId);
    task.mutable_slave_id()->set_value("S1");
    ExecutorInfo* executor = task.mutable_executor();
    executor->mutable_executor_id()->set_value(executorId);
    executor->mutable_framework_id()->set_value("F1");
    executor->mutable_command()->set_value(command);
    return task;
  }

  static TaskInfo commandTask(const std::string& taskId, const std::string& command) {
    TaskInfo task;
    task.set_name("task " + taskId);
    task.mutable_task_id()->set_value(taskId);
    task.mutable_slave_id()->set_value("S1");
    task.mutable_command()->set_value(command);
    auto* cpus = task.add_resources();
    cpus->set_name("cpus");
    cpus->set_type(Value::SCALAR);
    cpus->mutable_scalar()->set_value(0.5);
    return task;
  }

  static RunTaskMessage runTask(const TaskInfo& task) {
    RunTaskMessage message;
    *message.mutable_framework() = frameworkInfo();
    message.set_pid("scheduler(1)@127.0.0.1:1");
    *message.mutable_task() = task;
    return message;
  }

  static std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream out;
    out << in.rdbuf();
    return out.str();
  }

  std::unique_ptr<process::Runtime> runtime_;
  std::string workDir_;
  process::Spawned<FakeMaster> master_;
  process::Spawned<Files> files_;
  process::Spawned<Slave> slave_;
  std::vector<process::Spawned<mesos::test::Peer>> executors_;
};

}  // namespace mesos::internal::slave::test
