// Health checks in the real mesos-executor (command_executor_fixture.hpp):
// TASK_RUNNING updates with `healthy` when the health changes, and the kill
// after consecutive failures. Checks are real processes and real sockets
// (the task runs `python3 -m http.server`, or the test listens itself), with
// 0.05-0.1 s delays and intervals and bounded waits.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "exec/command_executor_fixture.hpp"

namespace mesos::test {
namespace {

class CommandExecutorHealthTest : public CommandExecutorFixture {
 protected:
  // A check with quick timing: first at 0.1 s, then every 0.1 s, no grace
  // period, killed at the first counted failure.
  static HealthCheck quickCheck(HealthCheck::Type type) {
    HealthCheck check;
    check.set_type(type);
    check.set_delay_seconds(0.1);
    check.set_interval_seconds(0.1);
    check.set_timeout_seconds(10);
    check.set_grace_period_seconds(0);
    check.set_consecutive_failures(1);
    return check;
  }

  static HealthCheck commandCheck(const std::string& command) {
    HealthCheck check = quickCheck(HealthCheck::COMMAND);
    check.mutable_command()->set_value(command);
    return check;
  }

  static TaskInfo checkedTask(const std::string& command, const HealthCheck& check) {
    TaskInfo task = shellTask("t1", command);
    *task.mutable_health_check() = check;
    return task;
  }

  // The first TASK_RUNNING update of t1 with `healthy` set to `healthy`.
  TaskStatus awaitHealth(bool healthy) {
    return awaitStatus(
        [healthy](const TaskStatus& status) {
          return status.task_id().value() == "t1" && status.state() == TASK_RUNNING &&
                 status.has_healthy() && status.healthy() == healthy;
        },
        std::string("no TASK_RUNNING with healthy=") + (healthy ? "true" : "false"));
  }

  // A port nothing listens on now.
  static uint16_t freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK_EQ(0, ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)));
    socklen_t length = sizeof(address);
    CHECK_EQ(0, ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length));
    ::close(fd);
    return ntohs(address.sin_port);
  }
};

// A check that passes while the count of its runs, kept in the sandbox,
// satisfies the shell test `condition`.
std::string countingCheck(const std::string& condition) {
  return "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n " + condition +
         " ]";
}

TEST_F(CommandExecutorHealthTest, HealthyCommandCheckIsReportedOnce) {
  // Healthy for three checks, then unhealthy: one healthy update, one
  // unhealthy, and the kill.
  launch(checkedTask("sleep 100", commandCheck(countingCheck("-le 3"))));
  TaskStatus healthy = awaitHealth(true);
  EXPECT_EQ(TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED, healthy.reason());
  EXPECT_EQ(TaskStatus::SOURCE_EXECUTOR, healthy.source());
  awaitStatus("t1", TASK_KILLED);
  awaitExit();

  auto statuses = slave_->statuses("t1");
  ASSERT_EQ(4u, statuses.size());
  EXPECT_EQ(TASK_RUNNING, statuses[0].state());
  EXPECT_FALSE(statuses[0].has_healthy()) << "the first TASK_RUNNING says nothing of health";
  EXPECT_TRUE(statuses[1].healthy());
  EXPECT_EQ(TASK_RUNNING, statuses[2].state());
  EXPECT_FALSE(statuses[2].healthy());
  EXPECT_EQ(TASK_KILLED, statuses[3].state());
  EXPECT_EQ("4\n", readFile(sandbox_ / "count")) << "no check runs after the kill";
}

TEST_F(CommandExecutorHealthTest, FailingCheckKillsTheTaskAfterConsecutiveFailures) {
  HealthCheck check = commandCheck(countingCheck("-le 1"));
  check.set_consecutive_failures(3);
  launch(checkedTask("sleep 100", check));
  awaitHealth(true);
  TaskStatus unhealthy = awaitHealth(false);
  EXPECT_EQ(TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED, unhealthy.reason());
  EXPECT_EQ("COMMAND health check: command exited with status 1", unhealthy.message());

  TaskStatus killed = awaitStatus("t1", TASK_KILLED);
  ASSERT_TRUE(killed.has_healthy());
  EXPECT_FALSE(killed.healthy());
  EXPECT_EQ(TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED, killed.reason());
  EXPECT_EQ("Task killed after 3 failed health check(s) in a row (COMMAND health check: command "
            "exited with status 1): Command terminated with signal " +
                std::string(strsignal(SIGTERM)),
            killed.message());
  const int status = awaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ("4\n", readFile(sandbox_ / "count")) << "one pass, three failures, then none";
  EXPECT_EQ(4u, slave_->statuses("t1").size()) << "failures 2 and 3 changed nothing to report";
}

TEST_F(CommandExecutorHealthTest, CheckRunsInTheSandboxWithTheTasksEnvironment) {
  TaskInfo task = checkedTask("sleep 100", commandCheck("test \"$GREETING\" = bonjour && "
                                                        "test -e marker"));
  task.mutable_command()->set_value("touch marker; sleep 100");
  auto* variable = task.mutable_command()->mutable_environment()->add_variables();
  variable->set_name("GREETING");
  variable->set_value("bonjour");
  task.mutable_health_check()->set_grace_period_seconds(60);  // until `marker` exists
  launch(task);
  awaitHealth(true);
  sendToExecutor(killMessage("t1"));
  TaskStatus killed = awaitStatus("t1", TASK_KILLED);
  EXPECT_FALSE(killed.has_healthy()) << "a kill asked for says nothing of health";
  EXPECT_FALSE(killed.has_reason());
  awaitExit();
}

TEST_F(CommandExecutorHealthTest, LegacyCheckWithoutTypeRunsItsCommand) {
  HealthCheck check = commandCheck("true");
  check.clear_type();
  launch(checkedTask("sleep 100", check));
  awaitHealth(true);
  sendToExecutor(killMessage("t1"));
  awaitStatus("t1", TASK_KILLED);
  awaitExit();
}

TEST_F(CommandExecutorHealthTest, HttpCheckAgainstTheTasksServer) {
  const uint16_t port = freePort();
  HealthCheck check = quickCheck(HealthCheck::HTTP);
  check.mutable_http()->set_port(port);
  check.mutable_http()->set_path("/healthy");
  check.set_grace_period_seconds(60);  // while python starts
  launch(checkedTask("touch healthy; exec python3 -m http.server --bind 127.0.0.1 " +
                         std::to_string(port),
                     check));
  awaitHealth(true);

  // The file goes: the server answers 404.
  std::filesystem::remove(sandbox_ / "healthy");
  TaskStatus unhealthy = awaitHealth(false);
  EXPECT_NE(std::string::npos, unhealthy.message().find("answered 404")) << unhealthy.message();
  TaskStatus killed = awaitStatus("t1", TASK_KILLED);
  EXPECT_FALSE(killed.healthy());
  awaitExit();
}

TEST_F(CommandExecutorHealthTest, TcpCheckAgainstASocketTheTestOpens) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(0, ::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)));
  ASSERT_EQ(0, ::listen(listener, 64));
  socklen_t length = sizeof(address);
  ASSERT_EQ(0, ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length));

  HealthCheck check = quickCheck(HealthCheck::TCP);
  check.mutable_tcp()->set_port(ntohs(address.sin_port));
  launch(checkedTask("sleep 100", check));
  awaitHealth(true);
  ::close(listener);
  TaskStatus unhealthy = awaitHealth(false);
  EXPECT_NE(std::string::npos, unhealthy.message().find("Connection refused"))
      << unhealthy.message();
  awaitStatus("t1", TASK_KILLED);
  awaitExit();
}

TEST_F(CommandExecutorHealthTest, CheckThatTimesOutCountsAsAFailure) {
  HealthCheck check = commandCheck("sleep 100");
  check.set_timeout_seconds(0.2);
  const auto launched = std::chrono::steady_clock::now();
  launch(checkedTask("sleep 100", check));
  TaskStatus unhealthy = awaitHealth(false);
  EXPECT_EQ("COMMAND health check: no answer within the timeout of 0.2s", unhealthy.message());
  awaitStatus("t1", TASK_KILLED);
  awaitExit();
  EXPECT_LT(std::chrono::steady_clock::now() - launched, 60s);
}

TEST_F(CommandExecutorHealthTest, GracePeriodHidesFailuresUntilTheFirstPass) {
  HealthCheck check = commandCheck(countingCheck("-ge 3"));
  check.set_grace_period_seconds(60);
  launch(checkedTask("sleep 100", check));
  awaitHealth(true);
  sendToExecutor(killMessage("t1"));
  awaitStatus("t1", TASK_KILLED);
  awaitExit();
  for (const TaskStatus& status : slave_->statuses("t1")) {
    EXPECT_FALSE(status.has_healthy() && !status.healthy())
        << "a failure within the grace period was reported";
  }
}

TEST_F(CommandExecutorHealthTest, InvalidCheckFailsTheTaskBeforeItRuns) {
  HealthCheck check = quickCheck(HealthCheck::COMMAND);  // no command
  launch(checkedTask("touch ran", check));
  TaskStatus failed = awaitStatus("t1", TASK_FAILED);
  EXPECT_NE(std::string::npos, failed.message().find("HealthCheck.command is not set"))
      << failed.message();
  awaitExit();
  EXPECT_FALSE(std::filesystem::exists(sandbox_ / "ran"));
}

}  // namespace
}  // namespace mesos::test
