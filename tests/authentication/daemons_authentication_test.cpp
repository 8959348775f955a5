// Authentication between the daemons as operators run them: mesos-master
// with --authenticate_agents / --authenticate_frameworks and a credentials
// file the test writes, mesos-slave with --credential, and mesos-execute
// with --principal and --secret. Real processes: waits have real-time
// bounds.
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/daemon.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

class DaemonsAuthenticationTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    write("credentials.json",
          R"({"credentials": [{"principal": "agent", "secret": "s3cret-agent"},)"
          R"( {"principal": "alice", "secret": "wonderland"}]})");
    write("agent.json", R"({"principal": "agent", "secret": "s3cret-agent"})");
    write("agent.txt", "agent s3cret-agent\n");
    write("wrong.txt", "agent not-the-secret\n");
  }

  void write(const std::string& name, const std::string& contents) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << contents;
    ::chmod(path.c_str(), 0600);
  }

  process::Address startAuthenticatingMaster(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> flags = {"--authenticate_agents",
                                      "--credentials=file://" + dir_ + "/credentials.json"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    return startMaster(flags);
  }

  bool logSays(const std::string& log, const std::string& text) {
    return readFile(dir_ + "/" + log + ".log").find(text) != std::string::npos;
  }

  // Runs mesos-execute to completion (output in <dir>/<name>.log): its
  // exit status.
  int execute(const process::Address& master, const std::string& name,
              const std::vector<std::string>& flags) {
    std::vector<std::string> args = {MESOS_EXECUTE_PATH, "--master=" + master.toString(),
                                     "--name=" + name, "--command=true",
                                     "--resources=cpus:0.1;mem:32", "--timeout=60secs"};
    args.insert(args.end(), flags.begin(), flags.end());
    pid_t pid = startDaemon(args, dir_ + "/" + name + ".log");
    return pid > 0 ? waitForExit(pid, 90s) : -1;
  }
};

TEST_F(DaemonsAuthenticationTest, SlaveWithTheRightCredentialRegisters) {
  process::Address master = startAuthenticatingMaster();
  startSlave(master, "slave-json", {"--credential=file://" + dir_ + "/agent.json"});
  startSlave(master, "slave-text", {"--credential=" + dir_ + "/agent.txt"});
  EXPECT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 2; }, 30s))
      << readFile(dir_ + "/master.log");
  EXPECT_TRUE(logSays("master", "Authenticated principal 'agent' at slave(1)@"));
}

// A slave started before its master keeps trying at the registration
// backoff (not in a loop: every failed connection used to start the next
// attempt at once, tens of thousands a second), and authenticates and
// registers once the master is up.
TEST_F(DaemonsAuthenticationTest, ASlaveStartedBeforeItsMasterWaitsForIt) {
  process::Address master{0x7f000001, freePort()};
  startSlave(master, "slave", {"--credential=" + dir_ + "/agent.txt"});
  ASSERT_TRUE(waitUntil([&] { return logSays("slave", "Authenticating with master"); }, 30s))
      << readFile(dir_ + "/slave.log");
  pid_t pid = start({MESOS_MASTER_PATH, "--ip=127.0.0.1", "--port=" + std::to_string(master.port),
                     "--authenticate_agents",
                     "--credentials=file://" + dir_ + "/credentials.json"},
                    "master");
  ASSERT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 1; }, 60s, pid))
      << readFile(dir_ + "/slave.log");
  std::string log = readFile(dir_ + "/slave.log");
  size_t attempts = 0;
  for (size_t at = log.find("Authenticating with master"); at != std::string::npos;
       at = log.find("Authenticating with master", at + 1)) {
    ++attempts;
  }
  EXPECT_LT(attempts, 30u) << "attempts while the master was not up";
}

TEST_F(DaemonsAuthenticationTest, SlaveWithAWrongSecretIsRefusedAndExits) {
  process::Address master = startAuthenticatingMaster();
  pid_t slave = startSlave(master, "slave", {"--credential=" + dir_ + "/wrong.txt"});
  EXPECT_EQ(1, waitForExit(slave, 30s)) << readFile(dir_ + "/slave.log");
  reaped(slave);
  EXPECT_TRUE(logSays("slave", "refused authentication as principal 'agent'"));
  EXPECT_EQ(0, metric(master, "master/slaves_active"));
}

TEST_F(DaemonsAuthenticationTest, SlaveWithoutACredentialIsNotRegistered) {
  process::Address master = startAuthenticatingMaster();
  startSlave(master, "slave");
  EXPECT_TRUE(waitUntil(
      [&] { return logSays("master", "because it is not authenticated (--authenticate_agents)"); },
      30s))
      << readFile(dir_ + "/master.log");
  EXPECT_EQ(0, metric(master, "master/slaves_active"));
}

TEST_F(DaemonsAuthenticationTest, MesosExecuteAuthenticatesWithPrincipalAndSecret) {
  process::Address master = startAuthenticatingMaster({"--authenticate_frameworks"});
  startSlave(master, "slave",
             {"--credential=" + dir_ + "/agent.txt", "--resources=cpus:1;mem:256;disk:256"});
  ASSERT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 1; }, 30s));

  EXPECT_EQ(0, execute(master, "right", {"--principal=alice", "--secret=wonderland"}))
      << readFile(dir_ + "/right.log");
  EXPECT_EQ(1, execute(master, "wrong", {"--principal=alice", "--secret=cheshire"}));
  EXPECT_TRUE(logSays("wrong", "mesos-execute: Master refused authentication"))
      << readFile(dir_ + "/wrong.log");
  EXPECT_EQ(1, execute(master, "missing", {"--principal=alice"}));
  EXPECT_TRUE(logSays("missing", "is not authenticated")) << readFile(dir_ + "/missing.log");

  json::Value state = getJson(master, "/state");
  ASSERT_EQ(1u, state["completed_frameworks"].array().size());
  EXPECT_EQ("alice", state["completed_frameworks"].array()[0]["principal"].string());
}

TEST_F(DaemonsAuthenticationTest, BadAuthenticationFlagsStopTheDaemonsWithOneLine) {
  write("broken.json", R"({"credentials": [{"secret": "x"}]})");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {MESOS_MASTER_PATH, "--authenticators=kerberos"},
           {MESOS_MASTER_PATH, "--credentials=" + dir_ + "/broken.json"},
           {MESOS_SLAVE_PATH, "--credential=" + dir_ + "/missing.txt", "--work_dir=" + dir_ + "/w"},
       }) {
    pid_t pid = startDaemon(args, dir_ + "/bad.log");
    ASSERT_GT(pid, 0);
    EXPECT_EQ(1, waitForExit(pid, 30s)) << args[1];
  }
  std::string log = readFile(dir_ + "/bad.log");
  EXPECT_NE(std::string::npos, log.find("unknown authenticator 'kerberos'")) << log;
  EXPECT_NE(std::string::npos, log.find("credentials[0] has no \"principal\" string")) << log;
  EXPECT_NE(std::string::npos, log.find("--credential: cannot read credential file")) << log;
}

}  // namespace
}  // namespace mesos::test
