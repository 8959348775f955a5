// Executor tokens (docs/security.md, "Executors"): processes on one host
// share its address, so a task could name another executor's pid; the token
// the slave hands each executor at launch tells them apart.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "common/uuid.hpp"
#include "process/http.hpp"
#include "slave/executor_token.hpp"
#include "slave/slave_fixture.hpp"
#include "support/raw_peer.hpp"

namespace mesos::internal::slave::test {
namespace {

using namespace std::chrono_literals;

TEST(ExecutorTokenTest, IsAnHs256JsonWebTokenNamingTheExecutor) {
  // Computed independently (Python's hmac, hashlib and base64).
  EXPECT_EQ(executorToken("secret", "F1", "e1", "c1"),
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
            "eyJjaWQiOiJjMSIsImVpZCI6ImUxIiwiZmlkIjoiRjEifQ."
            "6h1E1DPww2tjoiQOVElFb-PXw2I9h1dLf6ERw2lP1cc");
  EXPECT_NE(executorToken("secret", "F1", "e2", "c1"), executorToken("secret", "F1", "e1", "c1"));
  EXPECT_NE(executorToken("other", "F1", "e1", "c1"), executorToken("secret", "F1", "e1", "c1"));
}

TEST(ExecutorTokenTest, OnlyTheWholeBearerTokenIsAccepted) {
  EXPECT_TRUE(carriesToken("Bearer abc.def.ghi", "abc.def.ghi"));
  EXPECT_FALSE(carriesToken("abc.def.ghi", "abc.def.ghi"));
  EXPECT_FALSE(carriesToken("Bearer abc.def.gh", "abc.def.ghi"));
  EXPECT_FALSE(carriesToken("Bearer abc.def.ghij", "abc.def.ghi"));
  EXPECT_FALSE(carriesToken("Basic abc.def.ghi", "abc.def.ghi"));
  EXPECT_FALSE(carriesToken("Bearer ", ""));
}

TEST(ExecutorTokenTest, AKeyIsMadeOnceAndKeptPrivate) {
  char pattern[] = "/tmp/mesos-token-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  std::string dir = pattern;
  // The work directory need not exist yet (the slave makes it later).
  dir += "/work";
  auto first = loadExecutorSecretKey("", dir);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(32u, first->size());
  struct stat info {};
  ASSERT_EQ(0, ::stat((dir + "/meta/executor_secret_key").c_str(), &info));
  EXPECT_EQ(0600u, info.st_mode & 0777);
  auto again = loadExecutorSecretKey("", dir);
  ASSERT_TRUE(again);
  EXPECT_EQ(*first, *again);

  // A given key file is used as it is; an empty or missing one is refused.
  std::ofstream(dir + "/key") << "the operator's key";
  EXPECT_EQ("the operator's key", loadExecutorSecretKey("file://" + dir + "/key", dir).value());
  std::ofstream(dir + "/empty");
  auto empty = loadExecutorSecretKey(dir + "/empty", dir);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("is empty"), std::string::npos);
  EXPECT_FALSE(loadExecutorSecretKey(dir + "/missing", dir));
  std::filesystem::remove_all(pattern);
}

class ExecutorAuthenticationTest : public SlaveTestBase {
 protected:
  Flags tokenFlags(bool required) {
    Flags flags = this->flags();
    std::ofstream(workDir_ + "/executor.key") << "executor key";
    flags.executor_secret_key = workDir_ + "/executor.key";
    flags.authenticate_http_executors = required;
    return flags;
  }

  // The token the slave gave executor `executorId` of F1.
  std::string tokenOf(const std::string& executorId) {
    json::Value s = state();
    for (const json::Value& framework : s["frameworks"].array()) {
      for (const json::Value& executor : framework["executors"].array()) {
        if (executor["id"].string() == executorId) {
          return executorToken("executor key", "F1", executorId, executor["container"].string());
        }
      }
    }
    ADD_FAILURE() << "no executor " << executorId;
    return "";
  }

  // Whether `executor` is registered when it registers as `executorId`.
  bool registers(mesos::test::Peer* executor, const std::string& executorId) {
    RegisterExecutorMessage message;
    message.mutable_framework_id()->set_value("F1");
    message.mutable_executor_id()->set_value(executorId);
    executor->post(slave_.pid(), message);
    runtime_->settle();
    return executor->count<ExecutorRegisteredMessage>() > 0;
  }

  // Posts `message` over a connection of this host in the name of `from`,
  // with `authorization` if not empty; the runtime's answer (202 once it is
  // in the slave's mailbox).
  int forge(const process::UPID& from, const google::protobuf::Message& message,
            const std::string& authorization) {
    mesos::test::RawPeer peer(runtime_->listenAddress());
    EXPECT_TRUE(peer.connected());
    std::string bytes;
    process::http::encodeMessage(from.toString(), slave_.pid().id,
                                 runtime_->address().toString(),
                                 message.GetDescriptor()->full_name(),
                                 message.SerializeAsString(), &bytes, authorization);
    // As a tool, not a libprocess peer, so that the runtime answers.
    size_t agent = bytes.find("User-Agent: ");
    bytes.replace(agent, bytes.find("\r\n", agent) - agent, "User-Agent: curl/7.88");
    EXPECT_TRUE(peer.write(bytes));
    auto response = peer.readResponse();
    runtime_->settle();
    return response ? response->status : 0;
  }
};

// An executor that registered with its token is the only one that speaks in
// its name: a process of this host naming its pid, without the token or with
// another executor's, is not heard.
TEST_F(ExecutorAuthenticationTest, AnExecutorThatPresentedItsTokenCannotBeImpersonated) {
  startRegisteredSlave(tokenFlags(false));
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  fromMaster(runTask(customTask("t2", "e2", "sleep 60")));
  runtime_->settle();
  auto* e1 = startExecutor("executor(e1)");
  e1->presentAuthorization(slave_.pid(), "Bearer " + tokenOf("e1"));
  ASSERT_TRUE(registers(e1, "e1"));
  // Framework messages go up through the master when the scheduler's pid
  // is not known (here it is not: the framework's is cleared).
  UpdateFrameworkMessage noPid;
  noPid.mutable_framework_id()->set_value("F1");
  fromMaster(noPid);

  EXPECT_EQ(202, forge(e1->self(), executorUpdate(e1->self(), "e1", "t1", TASK_FINISHED), ""));
  EXPECT_EQ(202, forge(e1->self(), executorUpdate(e1->self(), "e1", "t1", TASK_FAILED),
                       "Bearer " + tokenOf("e2")));
  ExecutorToFrameworkMessage data;
  data.mutable_slave_id()->set_value("S1");
  data.mutable_framework_id()->set_value("F1");
  data.mutable_executor_id()->set_value("e1");
  data.set_data("forged");
  EXPECT_EQ(202, forge(e1->self(), data, ""));
  EXPECT_TRUE(master_->updates().empty());
  EXPECT_TRUE(master_->frameworkMessages().empty());

  // The executor itself is heard.
  e1->post(slave_.pid(), executorUpdate(e1->self(), "e1", "t1", TASK_RUNNING));
  e1->post(slave_.pid(), data);
  runtime_->settle();
  ASSERT_EQ(1u, master_->updates().size());
  EXPECT_EQ(TASK_RUNNING, master_->updates()[0].status().state());
  EXPECT_EQ(1u, master_->frameworkMessages().size());
}

// With --authenticate_http_executors nothing registers without the token
// the slave gave that executor.
TEST_F(ExecutorAuthenticationTest, RequiredTokensLetOnlyTheLaunchedExecutorRegister) {
  startRegisteredSlave(tokenFlags(true));
  fromMaster(runTask(customTask("t1", "e1", "sleep 60")));
  fromMaster(runTask(customTask("t2", "e2", "sleep 60")));
  runtime_->settle();

  auto* bare = startExecutor("executor(bare)");
  EXPECT_FALSE(registers(bare, "e1"));
  auto* wrong = startExecutor("executor(wrong)");
  wrong->presentAuthorization(slave_.pid(), "Bearer " + tokenOf("e2"));
  EXPECT_FALSE(registers(wrong, "e1"));
  EXPECT_EQ(0u, bare->count<ShutdownExecutorMessage>() + wrong->count<ShutdownExecutorMessage>());

  auto* e1 = startExecutor("executor(e1)");
  e1->presentAuthorization(slave_.pid(), "Bearer " + tokenOf("e1"));
  EXPECT_TRUE(registers(e1, "e1"));
  e1->post(slave_.pid(), executorUpdate(e1->self(), "e1", "t1", TASK_RUNNING));
  runtime_->settle();
  ASSERT_EQ(1u, master_->updates().size());
}

// The real command executor presents its token (so it registers although
// tokens are required) and its task does not inherit it.
TEST_F(ExecutorAuthenticationTest, TheCommandExecutorPresentsItsTokenAndKeepsItFromItsTask) {
  if (::access(MESOS_EXECUTOR_PATH, X_OK) != 0) GTEST_SKIP() << "no " << MESOS_EXECUTOR_PATH;
  startRegisteredSlave(tokenFlags(true));
  fromMaster(runTask(commandTask("t1", "test -z \"$MESOS_EXECUTOR_AUTHENTICATION_TOKEN\"")));
  runtime_->settle();
  awaitTerminalUpdate();
  auto updates = master_->updates();
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(TASK_FINISHED, updates.back().status().state()) << updates.back().status().message();
}

}  // namespace
}  // namespace mesos::internal::slave::test
