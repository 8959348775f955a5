// Messages that name someone else as their sender, against mesos-master and
// mesos-slave processes: the attacker posts from 127.0.0.2, standing for
// another host, and names the master (whose pid /state publishes).
#include <chrono>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "messages.pb.h"
#include "support/daemon.hpp"
#include "support/net.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

constexpr uint32_t kOtherHost = 0x7f000002;  // 127.0.0.2

class SpoofingTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    if (!loopbackAliasesWork()) GTEST_SKIP() << "cannot bind 127.0.0.2 here";
    master_ = startMaster();
    startSlave(master_, "slave", {"--resources=cpus:2;mem:512;disk:512"});
    ASSERT_TRUE(waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s))
        << "the slave did not register within 30 s";
    json::Value slave = getJson(master_, "/master/state")["slaves"].array()[0];
    slaveId_ = slave["id"].string();
    slavePid_ = slave["pid"].string();
  }

  // What the issue's attacker posted: a RunTaskMessage "from the master"
  // whose task runs `command` as root.
  std::string runTask(const std::string& taskId, const std::string& command) {
    internal::RunTaskMessage message;
    FrameworkInfo* framework = message.mutable_framework();
    framework->set_user("root");
    framework->set_name("forged");
    framework->mutable_id()->set_value("forged-framework");
    message.set_pid("scheduler@127.0.0.2:1");
    TaskInfo* task = message.mutable_task();
    task->set_name(taskId);
    task->mutable_task_id()->set_value(taskId);
    task->mutable_slave_id()->set_value(slaveId_);
    task->mutable_command()->set_value(command);
    for (auto [name, value] : {std::pair{"cpus", 0.1}, {"mem", 32.0}}) {
      Resource* resource = task->add_resources();
      resource->set_name(name);
      resource->set_type(Value::SCALAR);
      resource->mutable_scalar()->set_value(value);
    }
    std::string body = message.SerializeAsString();
    std::string slaveId = slavePid_.substr(0, slavePid_.find('@'));
    return "POST /" + slaveId + "/mesos.internal.RunTaskMessage HTTP/1.1\r\nHost: x\r\n" +
           "User-Agent: curl/7.88\r\nLibprocess-From: master@" + master_.toString() +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  process::Address slaveAddress() { return process::Address::parse(
      slavePid_.substr(slavePid_.find('@') + 1)).value(); }

  process::Address master_;
  std::string slaveId_;
  std::string slavePid_;
};

TEST_F(SpoofingTest, ARunTaskNamingTheMasterFromAnotherHostRunsNothing) {
  std::string forged = dir_ + "/forged-ran";
  TcpClient attacker(slaveAddress(), kOtherHost);
  ASSERT_TRUE(attacker.write(runTask("forged", "touch " + forged)));
  int status = 0;
  std::string answer;
  ASSERT_TRUE(attacker.readResponse(&status, &answer));
  EXPECT_EQ(403, status) << answer;
  EXPECT_TRUE(waitUntil([&] {
    return readFile(dir_ + "/slave.log")
               .find("Dropping message mesos.internal.RunTaskMessage from peer 127.0.0.2:") !=
           std::string::npos;
  }, 30s)) << readFile(dir_ + "/slave.log");

  // The same message from this host's own address is believed (one host's
  // processes share its address), so the refusal above is the address's
  // doing: its task runs.
  std::string believed = dir_ + "/believed-ran";
  TcpClient local(slaveAddress());
  ASSERT_TRUE(local.write(runTask("believed", "touch " + believed)));
  ASSERT_TRUE(local.readResponse(&status, &answer));
  EXPECT_EQ(202, status) << answer;
  EXPECT_TRUE(waitUntil([&] { return std::filesystem::exists(believed); }, 60s))
      << readFile(dir_ + "/slave.log");
  EXPECT_FALSE(std::filesystem::exists(forged));
}

}  // namespace
}  // namespace mesos::test
