// The real mesos-executor binary as a child process, registered with a fake
// slave actor in a test runtime on 127.0.0.1 (real clock, real TCP): command
// tasks finish, fail, get killed (SIGTERM, then SIGKILL after the grace
// period) and shut down; the executor exits once its last update is
// acknowledged. Every wait has a generous real-time bound.
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
namespace {

using namespace std::chrono_literals;
using mesos::internal::ExecutorRegisteredMessage;
using mesos::internal::KillTaskMessage;
using mesos::internal::RegisterExecutorMessage;
using mesos::internal::RunTaskMessage;
using mesos::internal::ShutdownExecutorMessage;
using mesos::internal::StatusUpdateAcknowledgementMessage;
using mesos::internal::StatusUpdate;
using mesos::internal::StatusUpdateMessage;
using process::Actor;
using process::Future;
using process::Promise;
using process::Runtime;
using process::UPID;

constexpr auto kBound = 30s;  // real-time bound on any one wait

// Accepts the executor's registration, gives it one task, acknowledges its
// status updates (unless told not to) and lets tests await them.
class ScriptedSlave : public Actor {
 public:
  ScriptedSlave(TaskInfo task, bool acknowledge)
      : Actor("slave(1)"), task_(std::move(task)), acknowledge_(acknowledge) {}

  Future<UPID> executor() const { return executor_.future(); }

  // The first update for `taskId` in `state` (already received or to come).
  Future<TaskStatus> await(const std::string& taskId, TaskState state) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& status : statuses_) {
      if (status.task_id().value() == taskId && status.state() == state) return status;
    }
    auto promise = std::make_shared<Promise<TaskStatus>>();
    waiters_.push_back({taskId, state, promise});
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
    std::string taskId;
    TaskState state;
    std::shared_ptr<Promise<TaskStatus>> promise;
  };

  void registerExecutor(const UPID& from, const RegisterExecutorMessage& message) {
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

  void statusUpdate(const UPID& from, const StatusUpdateMessage& message) {
    const StatusUpdate& update = message.update();
    if (acknowledge_) {
      StatusUpdateAcknowledgementMessage ack;
      *ack.mutable_slave_id() = update.slave_id();
      *ack.mutable_framework_id() = update.framework_id();
      *ack.mutable_task_id() = update.status().task_id();
      ack.set_uuid(update.uuid());
      send(from, ack);
    }
    std::vector<std::shared_ptr<Promise<TaskStatus>>> ready;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      statuses_.push_back(update.status());
      std::erase_if(waiters_, [&](const Waiter& waiter) {
        if (waiter.taskId != update.status().task_id().value() ||
            waiter.state != update.status().state()) {
          return false;
        }
        ready.push_back(waiter.promise);
        return true;
      });
    }
    for (auto& promise : ready) promise->set(update.status());
  }

  const TaskInfo task_;
  const bool acknowledge_;
  Promise<UPID> executor_;
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
  Future<int> exited() const { return exit_->future(); }

 private:
  pid_t pid_ = -1;
  std::shared_ptr<Promise<int>> exit_ = std::make_shared<Promise<int>>();
  std::thread waiter_;
};

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

TaskInfo shellTask(const std::string& id, const std::string& command) {
  TaskInfo task;
  task.set_name("task " + id);
  task.mutable_task_id()->set_value(id);
  task.mutable_slave_id()->set_value("slave-1");
  task.mutable_command()->set_value(command);
  return task;
}

class CommandExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto created = Runtime::create({.ip = "127.0.0.1"});
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
    Future<TaskStatus> status = slave_->await(taskId, state);
    if (!status.await(kBound)) {
      ADD_FAILURE() << "no " << TaskState_Name(state) << " for " << taskId << " within "
                    << kBound.count() << "s";
      return TaskStatus();
    }
    return status.get();
  }

  // The executor's wait status, once it has exited.
  int awaitExit() {
    Future<int> exited = child_->exited();
    if (!exited.await(kBound)) {
      ADD_FAILURE() << "mesos-executor did not exit within " << kBound.count() << "s";
      return -1;
    }
    return exited.get();
  }

  void sendToExecutor(const google::protobuf::Message& message) {
    Future<UPID> executor = slave_->executor();
    ASSERT_TRUE(executor.await(kBound));
    runtime_->send(slave_.pid(), executor.get(), message);
  }

  KillTaskMessage killMessage(const std::string& taskId) {
    KillTaskMessage kill;
    kill.mutable_framework_id()->set_value("framework-1");
    kill.mutable_task_id()->set_value(taskId);
    return kill;
  }

  std::unique_ptr<Runtime> runtime_;
  process::Spawned<ScriptedSlave> slave_;
  std::unique_ptr<Child> child_;
  std::filesystem::path sandbox_;
};

TEST_F(CommandExecutorTest, CommandRunsInTheSandboxAndFinishes) {
  // A long acknowledgement timeout: a quick exit shows the executor left
  // because its last update was acknowledged.
  launch(shellTask("t1", "echo hello > out.txt"),
         {{"MESOS_EXECUTOR_ACKNOWLEDGEMENT_TIMEOUT", "10mins"}});

  TaskStatus running = awaitStatus("t1", TASK_RUNNING);
  TaskStatus finished = awaitStatus("t1", TASK_FINISHED);
  EXPECT_EQ("executor-1", finished.executor_id().value());
  EXPECT_EQ(TaskStatus::SOURCE_EXECUTOR, finished.source());
  EXPECT_TRUE(isValidUuid(finished.uuid()));
  EXPECT_EQ("Command exited with status 0", finished.message());
  EXPECT_EQ("hello\n", readFile(sandbox_ / "out.txt"));

  const int status = awaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto statuses = slave_->statuses("t1");
  ASSERT_EQ(2u, statuses.size());
  EXPECT_EQ(TASK_RUNNING, statuses[0].state());
  EXPECT_EQ(TASK_FINISHED, statuses[1].state());
}

TEST_F(CommandExecutorTest, NonZeroExitFailsWithTheStatusInTheMessage) {
  launch(shellTask("t1", "exit 3"));
  TaskStatus failed = awaitStatus("t1", TASK_FAILED);
  EXPECT_EQ("Command exited with status 3", failed.message());
  const int status = awaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST_F(CommandExecutorTest, KillEndsTheTaskWithSigtermWithinTheGracePeriod) {
  launch(shellTask("t1", "sleep 100"), {{"MESOS_EXECUTOR_KILL_GRACE_PERIOD", "2mins"}});
  awaitStatus("t1", TASK_RUNNING);
  const auto killedAt = std::chrono::steady_clock::now();
  sendToExecutor(killMessage("t1"));
  TaskStatus killed = awaitStatus("t1", TASK_KILLED);
  EXPECT_LT(std::chrono::steady_clock::now() - killedAt, 2min);
  EXPECT_EQ("Command terminated with signal " + std::string(strsignal(SIGTERM)), killed.message());
  const int status = awaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST_F(CommandExecutorTest, KillEscalatesToSigkillAfterTheGracePeriod) {
  // The task ignores SIGTERM (its children inherit that) and says so through
  // a FIFO once it does.
  const std::filesystem::path ready = sandbox_ / "ready";
  ASSERT_EQ(0, ::mkfifo(ready.c_str(), 0600));
  const int fifo = ::open(ready.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(fifo, 0);
  launch(shellTask("t1", "trap '' TERM; echo ready > ready; sleep 100"),
         {{"MESOS_EXECUTOR_KILL_GRACE_PERIOD", "1secs"}});
  awaitStatus("t1", TASK_RUNNING);
  pollfd readable{fifo, POLLIN, 0};
  ASSERT_EQ(1, ::poll(&readable, 1, static_cast<int>(kBound / 1ms)));
  ::close(fifo);

  sendToExecutor(killMessage("t1"));
  TaskStatus killed = awaitStatus("t1", TASK_KILLED);
  EXPECT_EQ("Command terminated with signal " + std::string(strsignal(SIGKILL)), killed.message());
  awaitExit();
}

TEST_F(CommandExecutorTest, ShutdownKillsTheTaskAndExits) {
  launch(shellTask("t1", "sleep 100"));
  awaitStatus("t1", TASK_RUNNING);
  sendToExecutor(ShutdownExecutorMessage());
  TaskStatus killed = awaitStatus("t1", TASK_KILLED);
  EXPECT_EQ("Command terminated with signal " + std::string(strsignal(SIGTERM)), killed.message());
  const int status = awaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST_F(CommandExecutorTest, NonShellCommandRunsTheExecutableWithItsArguments) {
  TaskInfo task = shellTask("t1", "touch");
  task.mutable_command()->set_shell(false);
  task.mutable_command()->add_arguments("touch");
  task.mutable_command()->add_arguments("made by execvp");
  launch(task);
  awaitStatus("t1", TASK_FINISHED);
  EXPECT_TRUE(std::filesystem::exists(sandbox_ / "made by execvp"));
  awaitExit();
}

TEST_F(CommandExecutorTest, MissingExecutableFailsTheTask) {
  TaskInfo task = shellTask("t1", "no-such-program-anywhere");
  task.mutable_command()->set_shell(false);
  launch(task);
  TaskStatus failed = awaitStatus("t1", TASK_FAILED);
  EXPECT_NE(std::string::npos, failed.message().find("no-such-program-anywhere"))
      << failed.message();
  awaitExit();
}

TEST_F(CommandExecutorTest, CommandSeesItsEnvironmentAndTheExecutors) {
  TaskInfo task = shellTask("t1", "printf '%s|%s|%s' \"$GREETING\" \"$MESOS_FRAMEWORK_ID\" "
                                  "\"$(pwd)\" > env.txt");
  auto* variable = task.mutable_command()->mutable_environment()->add_variables();
  variable->set_name("GREETING");
  variable->set_value("bonjour");
  launch(task);
  awaitStatus("t1", TASK_FINISHED);
  EXPECT_EQ("bonjour|framework-1|" + sandbox_.string(), readFile(sandbox_ / "env.txt"));
  awaitExit();
}

TEST_F(CommandExecutorTest, SecondTaskFailsAndTheFirstRunsOn) {
  launch(shellTask("t1", "sleep 100"));
  awaitStatus("t1", TASK_RUNNING);
  RunTaskMessage second;
  second.mutable_framework()->set_user("tester");
  second.mutable_framework()->set_name("command executor test");
  *second.mutable_task() = shellTask("t2", "true");
  sendToExecutor(second);
  TaskStatus failed = awaitStatus("t2", TASK_FAILED);
  EXPECT_NE(std::string::npos, failed.message().find("multiple tasks")) << failed.message();

  sendToExecutor(killMessage("t1"));
  awaitStatus("t1", TASK_KILLED);
  awaitExit();
}

TEST_F(CommandExecutorTest, TaskWithoutCommandFails) {
  TaskInfo task = shellTask("t1", "unused");
  task.clear_command();
  launch(task);
  TaskStatus failed = awaitStatus("t1", TASK_FAILED);
  EXPECT_NE(std::string::npos, failed.message().find("no command")) << failed.message();
  awaitExit();
}

TEST_F(CommandExecutorTest, ExitsAfterTheAcknowledgementTimeoutWhenNothingAcknowledges) {
  launch(shellTask("t1", "true"), {{"MESOS_EXECUTOR_ACKNOWLEDGEMENT_TIMEOUT", "1secs"}},
         /*acknowledge=*/false);
  awaitStatus("t1", TASK_FINISHED);
  const int status = awaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST_F(CommandExecutorTest, MissingEnvironmentExitsWithAClearError) {
  std::map<std::string, std::string> env = environment();
  env.erase("MESOS_SLAVE_PID");
  child_ = std::make_unique<Child>(MESOS_EXECUTOR_PATH, env, (sandbox_ / "stdout").string(),
                                   (sandbox_ / "stderr").string());
  const int status = awaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
  EXPECT_NE(std::string::npos, readFile(sandbox_ / "stderr").find("MESOS_SLAVE_PID"));
}

}  // namespace
}  // namespace mesos::test
