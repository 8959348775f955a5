// The real mesos-executor binary as a child process, registered with a fake
// slave actor (ScriptedSlave) in a test runtime on 127.0.0.1 (real clock,
// real TCP). Shared by the command executor's tests.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/uuid.hpp"
#include "messages.pb.h"
#include "process/runtime.hpp"

#ifndef MESOS_EXECUTOR_PATH
#error "MESOS_EXECUTOR_PATH must name the built mesos-executor binary"
#endif

namespace mesos::test {

using namespace std::chrono_literals;
using mesos::internal::ExecutorRegisteredMessage;
using mesos::internal::KillTaskMessage;
using mesos::internal::RegisterExecutorMessage;
using mesos::internal::RunTaskMessage;
using mesos::internal::ShutdownExecutorMessage;
using mesos::internal::StatusUpdateAcknowledgementMessage;
using mesos::internal::StatusUpdate;
using mesos::internal::StatusUpdateMessage;

inline constexpr auto kExecutorBound = std::chrono::seconds(30);  // real-time bound on any one wait

// Accepts the executor's registration, gives it one task, acknowledges its
// status updates (unless told not to) and lets tests await them.
class ScriptedSlave : public process::Actor {
 public:
  using Match = std::function<bool(const TaskStatus&)>;

  ScriptedSlave(TaskInfo task, bool acknowledge)
      : Actor("slave(1)"), task_(std::move(task)), acknowledge_(acknowledge) {}

  process::Future<process::UPID> executor() const { return executor_.future(); }

  // The first update for `taskId` in `state` (already received or to come).
  process::Future<TaskStatus> await(const std::string& taskId, TaskState state) {
    return await([taskId, state](const TaskStatus& status) {
      return status.task_id().value() == taskId && status.state() == state;
    });
  }

  // The first update `match` accepts (already received or to come).
  process::Future<TaskStatus> await(Match match) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& status : statuses_) {
      if (match(status)) return status;
    }
    auto promise = std::make_shared<process::Promise<TaskStatus>>();
    waiters_.push_back({std::move(match), promise});
    return promise->future();
  }

  std::vector<TaskStatus> statuses(const std::string& taskId) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<TaskStatus> result;
    for (const auto& status : statuses_) {
      if (status.task_id().value() == taskId) result.push_back(status);
    }
    return result;
  }

 protected:
  void initialize() override {
    on(&ScriptedSlave::registerExecutor);
    on(&ScriptedSlave::statusUpdate);
  }

 private:
  struct Waiter {
    Match match;
    std::shared_ptr<process::Promise<TaskStatus>> promise;
  };

  void registerExecutor(const process::UPID& from, const RegisterExecutorMessage& message) {
    ExecutorRegisteredMessage registered;
    registered.mutable_executor_info()->mutable_executor_id()->CopyFrom(message.executor_id());
    registered.mutable_executor_info()->mutable_command()->set_value("mesos-executor");
    registered.mutable_framework_id()->CopyFrom(message.framework_id());
    registered.mutable_framework_info()->set_user("tester");
    registered.mutable_framework_info()->set_name("command executor test");
    registered.mutable_slave_id()->set_value("slave-1");
    registered.mutable_slave_info()->set_hostname("localhost");
    send(from, registered);

    RunTaskMessage run;
    run.mutable_framework()->set_user("tester");
    run.mutable_framework()->set_name("command executor test");
    *run.mutable_task() = task_;
    send(from, run);
    executor_.set(from);
  }

  void statusUpdate(const process::UPID& from, const StatusUpdateMessage& message) {
    const StatusUpdate& update = message.update();
    if (acknowledge_) {
      StatusUpdateAcknowledgementMessage ack;
      *ack.mutable_slave_id() = update.slave_id();
      *ack.mutable_framework_id() = update.framework_id();
      *ack.mutable_task_id() = update.status().task_id();
      ack.set_uuid(update.uuid());
      send(from, ack);
    }
    std::vector<std::shared_ptr<process::Promise<TaskStatus>>> ready;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      statuses_.push_back(update.status());
      std::erase_if(waiters_, [&](const Waiter& waiter) {
        if (!waiter.match(update.status())) return false;
        ready.push_back(waiter.promise);
        return true;
      });
    }
    for (auto& promise : ready) promise->set(update.status());
  }

  const TaskInfo task_;
  const bool acknowledge_;
  process::Promise<process::UPID> executor_;
  mutable std::mutex mutex_;
  std::vector<TaskStatus> statuses_;
  std::vector<Waiter> waiters_;
};

// A child process and a thread that waits for it.
class Child {
 public:
  // Runs `path` with exactly `environment`; stdout and stderr go to files.
  Child(const std::string& path, const std::map<std::string, std::string>& environment,
        const std::string& stdoutPath, const std::string& stderrPath) {
    std::vector<std::string> entries;
    for (const auto& [name, value] : environment) entries.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (auto& entry : entries) envp.push_back(entry.data());
    envp.push_back(nullptr);
    std::string program = path;
    char* argv[] = {program.data(), nullptr};

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int result = posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    CHECK_EQ(0, result) << "cannot run " << path << ": " << std::strerror(result);

    waiter_ = std::thread([this, promise = exit_] {
      int status = 0;
      pid_t result;
      do {
        result = waitpid(pid_, &status, 0);
      } while (result < 0 && errno == EINTR);
      promise->set(status);
    });
  }

  ~Child() {
    if (exit_->future().isPending()) ::kill(pid_, SIGKILL);
    waiter_.join();
  }

  // The wait status once the child has exited.
  process::Future<int> exited() const { return exit_->future(); }

 private:
  pid_t pid_ = -1;
  std::shared_ptr<process::Promise<int>> exit_ = std::make_shared<process::Promise<int>>();
  std::thread waiter_;
};

inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

inline TaskInfo shellTask(const std::string& id, const std::string& command) {
  TaskInfo task;
  task.set_name("task " + id);
  task.mutable_task_id()->set_value(id);
  task.mutable_slave_id()->set_value("slave-1");
  task.mutable_command()->set_value(command);
  return task;
}

// Starts the real mesos-executor against a ScriptedSlave in a test runtime
// (real clock, real TCP on 127.0.0.1) with a fresh sandbox.
class CommandExecutorFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto created = process::Runtime::create({.ip = "127.0.0.1"});
    ASSERT_TRUE(created.ok()) << created.error().message;
    runtime_ = std::move(created).value();
    std::string pattern =
        (std::filesystem::temp_directory_path() / "mesos-executor-test-XXXXXX").string();
    ASSERT_NE(nullptr, ::mkdtemp(pattern.data()));
    sandbox_ = std::filesystem::canonical(pattern);
  }

  void TearDown() override {
    if (HasFailure() && std::filesystem::exists(sandbox_ / "stderr")) {
      std::cerr << "--- executor stderr ---\n" << readFile(sandbox_ / "stderr") << std::endl;
    }
    child_.reset();
    slave_.reset();
    runtime_.reset();
    std::filesystem::remove_all(sandbox_);
  }

  std::map<std::string, std::string> environment() const {
    std::map<std::string, std::string> env = {
        {"MESOS_SLAVE_PID", slave_ ? slave_.pid().toString() : "slave(1)@127.0.0.1:1"},
        {"MESOS_SLAVE_ID", "slave-1"},
        {"MESOS_FRAMEWORK_ID", "framework-1"},
        {"MESOS_EXECUTOR_ID", "executor-1"},
        {"MESOS_DIRECTORY", sandbox_.string()},
        {"LIBPROCESS_IP", "127.0.0.1"},
    };
    if (const char* path = std::getenv("PATH")) env["PATH"] = path;
    return env;
  }

  // Starts the fake slave with `task` and the executor with `extra` added to
  // its environment.
  void launch(const TaskInfo& task, const std::map<std::string, std::string>& extra = {},
              bool acknowledge = true) {
    slave_ = runtime_->spawn<ScriptedSlave>(task, acknowledge);
    std::map<std::string, std::string> env = environment();
    for (const auto& [name, value] : extra) env[name] = value;
    child_ = std::make_unique<Child>(MESOS_EXECUTOR_PATH, env, (sandbox_ / "stdout").string(),
                                     (sandbox_ / "stderr").string());
  }

  TaskStatus awaitStatus(const std::string& taskId, TaskState state) {
    return awaitStatus(slave_->await(taskId, state),
                       "no " + TaskState_Name(state) + " for " + taskId);
  }

  // The first update `match` accepts; `what` describes it for a failure.
  TaskStatus awaitStatus(ScriptedSlave::Match match, const std::string& what) {
    return awaitStatus(slave_->await(std::move(match)), what);
  }

  TaskStatus awaitStatus(process::Future<TaskStatus> status, const std::string& what) {
    if (!status.await(kExecutorBound)) {
      ADD_FAILURE() << what << " within " << kExecutorBound.count() << "s";
      return TaskStatus();
    }
    return status.get();
  }

  // The executor's wait status, once it has exited.
  int awaitExit() {
    process::Future<int> exited = child_->exited();
    if (!exited.await(kExecutorBound)) {
      ADD_FAILURE() << "mesos-executor did not exit within " << kExecutorBound.count() << "s";
      return -1;
    }
    return exited.get();
  }

  void sendToExecutor(const google::protobuf::Message& message) {
    process::Future<process::UPID> executor = slave_->executor();
    ASSERT_TRUE(executor.await(kExecutorBound));
    runtime_->send(slave_.pid(), executor.get(), message);
  }

  KillTaskMessage killMessage(const std::string& taskId) {
    KillTaskMessage kill;
    kill.mutable_framework_id()->set_value("framework-1");
    kill.mutable_task_id()->set_value(taskId);
    return kill;
  }

  std::unique_ptr<process::Runtime> runtime_;
  process::Spawned<ScriptedSlave> slave_;
  std::unique_ptr<Child> child_;
  std::filesystem::path sandbox_;
};

}  // namespace mesos::test
