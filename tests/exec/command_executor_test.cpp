// The real mesos-executor binary as a child process, registered with a fake
// slave actor (command_executor_fixture.hpp): command tasks finish, fail,
// get killed (SIGTERM, then SIGKILL after the grace period) and shut down;
// the executor exits once its last update is acknowledged. Every wait has a
// generous real-time bound.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/uuid.hpp"
#include "exec/command_executor_fixture.hpp"

namespace mesos::test {
namespace {

constexpr auto kBound = kExecutorBound;

class CommandExecutorTest : public CommandExecutorFixture {};

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
