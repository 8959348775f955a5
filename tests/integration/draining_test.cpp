// Draining with real processes (docs/draining.md): mesos-master,
// mesos-slave and mesos-execute as separate processes; DRAIN_AGENT over
// HTTP. Real processes, so waits have generous real-time bounds.
#include <chrono>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"
#include "support/raw_peer.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

class DrainingDaemonsTest : public DaemonsFixture {
 protected:
  std::optional<std::string> taskState(const process::Address& master, const std::string& name) {
    json::Value state = getJson(master, "/state");
    if (!state.isObject()) return std::nullopt;
    for (const char* list : {"frameworks", "completed_frameworks"}) {
      for (const json::Value& framework : state[list].array()) {
        for (const char* tasks : {"tasks", "completed_tasks"}) {
          for (const json::Value& task : framework[tasks].array()) {
            if (task["name"].string() == name) return task["state"].string();
          }
        }
      }
    }
    return std::nullopt;
  }
};

// A task that traps SIGTERM, on a slave drained with max_grace_period 1 s:
// it gets SIGTERM, then SIGKILL, is TASK_KILLED, and the agent DRAINED.
TEST_F(DrainingDaemonsTest, ADrainedTaskGetsSigtermThenSigkill) {
  process::Address master = startMaster();
  startSlave(master, "a", {"--resources=cpus:1;mem:256"});
  ASSERT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 1; }, 30s));
  const std::string signals = dir_ + "/signals";
  pid_t run = start({MESOS_EXECUTE_PATH, "--master=" + master.toString(), "--name=stubborn",
                     "--command=trap 'echo term >> " + signals +
                         "' TERM; while :; do sleep 0.1; done",
                     "--resources=cpus:0.5;mem:32"});
  ASSERT_GT(run, 0);
  ASSERT_TRUE(waitUntil([&] { return taskState(master, "stubborn") == "TASK_RUNNING"; }, 60s))
      << "the task did not start";
  json::Value state = getJson(master, "/state");
  ASSERT_EQ(1u, state["slaves"].array().size());
  const std::string agent = state["slaves"].array()[0]["id"].string();

  const std::string body =
      R"({"type": "DRAIN_AGENT", "drain_agent": {"agent_id": {"value": ")" + agent +
      R"("}, "max_grace_period": {"nanoseconds": 1000000000}}})";
  RawPeer peer(master);
  ASSERT_TRUE(peer.write("POST /api/v1 HTTP/1.1\r\nHost: test\r\nContent-Type: "
                         "application/json\r\nAccept: application/json\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\n\r\n" + body));
  auto answer = peer.readResponse();
  ASSERT_TRUE(answer.has_value());
  ASSERT_EQ(200, answer->status) << answer->body;

  ASSERT_TRUE(waitUntil([&] { return taskState(master, "stubborn") == "TASK_KILLED"; }, 30s))
      << "the task was not killed";
  EXPECT_NE(std::string::npos, readFile(signals).find("term")) << "no SIGTERM first";
  ASSERT_TRUE(waitUntil(
      [&] {
        json::Value now = getJson(master, "/state");
        return now.isObject() && now["slaves"].array().size() == 1 &&
               now["slaves"].array()[0]["drain_info"]["state"] == json::Value("DRAINED");
      },
      30s))
      << "the agent is not DRAINED; the master's log:\n" << readFile(dir_ + "/master.log")
      << "\nthe slave's log:\n" << readFile(dir_ + "/a.log");
  json::Value drained = getJson(master, "/state")["slaves"].array()[0];
  EXPECT_TRUE(drained["deactivated"].boolean());
  EXPECT_FALSE(drained["active"].boolean());
  waitForExit(run, 30s);
  reaped(run);
}

}  // namespace
}  // namespace mesos::test
