// Draining and kill policies with real processes (docs/draining.md):
// mesos-master, mesos-slave, mesos-executor and mesos-execute as separate
// processes, or a scheduler driver in the test; DRAIN_AGENT over HTTP. Real
// processes, so waits have generous real-time bounds.
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "process/runtime.hpp"
#include "support/cluster.hpp"
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

  // POSTs DRAIN_AGENT of the only agent with `maxGraceNanos`; its HTTP status.
  int drainTheAgent(const process::Address& master, int64_t maxGraceNanos) {
    json::Value state = getJson(master, "/state");
    if (!state.isObject() || state["slaves"].array().size() != 1) return 0;
    const std::string body =
        R"({"type": "DRAIN_AGENT", "drain_agent": {"agent_id": {"value": ")" +
        state["slaves"].array()[0]["id"].string() +
        R"("}, "max_grace_period": {"nanoseconds": )" + std::to_string(maxGraceNanos) + "}}}";
    RawPeer peer(master);
    if (!peer.write("POST /api/v1 HTTP/1.1\r\nHost: test\r\nContent-Type: "
                    "application/json\r\nAccept: application/json\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body)) {
      return 0;
    }
    auto answer = peer.readResponse();
    return answer ? answer->status : 0;
  }
};

// Wall-clock nanoseconds since the epoch, as `date +%s%N` prints them.
int64_t wallNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A framework (a scheduler driver in this process) that launches one command
// task, `name`, with TaskInfo.kill_policy.grace_period `graceNanos`. The task
// traps SIGTERM, creates `termFile` + ".ready" once the trap is set, writes the
// time it got SIGTERM to `termFile`, and runs on.
struct KillPolicyFramework {
  RecordingScheduler scheduler;
  std::unique_ptr<process::Runtime> runtime;
  std::unique_ptr<MesosSchedulerDriver> driver;

  KillPolicyFramework(const process::Address& master, const std::string& name,
                      int64_t graceNanos, const std::string& termFile)
      : runtime(std::move(process::Runtime::create({})).value()) {
    scheduler.onOffers = [=, launched = std::make_shared<bool>(false)](
                             SchedulerDriver* d, const std::vector<Offer>& offers) {
      for (const Offer& offer : offers) {
        if (*launched) {
          d->declineOffer(offer.id());
          continue;
        }
        *launched = true;
        TaskInfo task = commandTask(
            offer, name,
            "trap 'date +%s%N > " + termFile + "' TERM; touch " + termFile +
                ".ready; while :; do sleep 0.05; done");
        task.mutable_kill_policy()->mutable_grace_period()->set_nanoseconds(graceNanos);
        d->launchTasks(offer.id(), {task});
      }
    };
    FrameworkInfo info;
    info.set_user("");
    info.set_name("kill policy");
    driver = std::make_unique<MesosSchedulerDriver>(&scheduler, info, master.toString(), true,
                                                    runtime.get());
  }

  ~KillPolicyFramework() {
    driver->stop();
    driver->join();
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

// A task whose kill_policy gives it 1 s: killed by its framework, it gets
// SIGTERM, and SIGKILL about a second later (not after mesos-executor's
// default 3 s).
TEST_F(DrainingDaemonsTest, AKilledTaskGetsItsKillPolicysGrace) {
  process::Address master = startMaster();
  startSlave(master, "a", {"--resources=cpus:1;mem:256"});
  ASSERT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 1; }, 30s));
  const std::string term = dir_ + "/term";
  KillPolicyFramework framework(master, "graceful", 1000000000, term);
  ASSERT_EQ(DRIVER_RUNNING, framework.driver->start());
  ASSERT_TRUE(framework.scheduler.awaitStatus("graceful", TASK_RUNNING, 60s))
      << "the task did not start";
  ASSERT_TRUE(waitUntil([&] { return std::filesystem::exists(term + ".ready"); }, 30s))
      << "the task never set its SIGTERM trap";

  const int64_t asked = wallNanos();
  TaskID id;
  id.set_value("graceful");
  framework.driver->killTask(id);
  auto killed = framework.scheduler.awaitStatus("graceful", TASK_KILLED, 30s);
  const int64_t ended = wallNanos();
  ASSERT_TRUE(killed) << "the task was not killed";
  const std::string text = readFile(term);
  ASSERT_FALSE(text.empty()) << "no SIGTERM first";
  const int64_t termed = std::stoll(text);
  EXPECT_GE(termed, asked - 100000000);
  // SIGTERM came after `asked`, SIGKILL a second after SIGTERM. The trap's
  // `date` may run late on a loaded machine, so the lower bound is from `asked`;
  // the upper one, from the trap's time, still tells 1 s from the default 3 s.
  EXPECT_GE(ended - asked, 1000000000) << "SIGKILL came before the task's grace was over";
  EXPECT_LT(ended - termed, 2800000000) << "the task's kill policy was not used";
}

// Draining with max_grace_period 0 beats a task's kill_policy of 5 s (the
// shorter wins, as in Apache Mesos): the task is killed at once.
TEST_F(DrainingDaemonsTest, ADrainsShorterGraceBeatsTheTasksKillPolicy) {
  process::Address master = startMaster();
  startSlave(master, "a", {"--resources=cpus:1;mem:256"});
  ASSERT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 1; }, 30s));
  KillPolicyFramework framework(master, "patient", 5000000000, dir_ + "/term");
  ASSERT_EQ(DRIVER_RUNNING, framework.driver->start());
  ASSERT_TRUE(framework.scheduler.awaitStatus("patient", TASK_RUNNING, 60s))
      << "the task did not start";

  const int64_t asked = wallNanos();
  ASSERT_EQ(200, drainTheAgent(master, 0));
  auto killed = framework.scheduler.awaitStatus("patient", TASK_KILLED, 30s);
  const int64_t ended = wallNanos();
  ASSERT_TRUE(killed) << "the task was not killed";
  EXPECT_EQ(TaskStatus::REASON_SLAVE_DRAINING, killed->status.reason());
  EXPECT_LT(ended - asked, 2500000000) << "the task got its own 5 s, not the drain's 0";
}

// And the other way round: a task whose kill_policy says 1 s, drained with
// max_grace_period 30 s, gets its own 1 s.
TEST_F(DrainingDaemonsTest, ATasksShorterKillPolicyBeatsTheDrainsGrace) {
  process::Address master = startMaster();
  startSlave(master, "a", {"--resources=cpus:1;mem:256"});
  ASSERT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 1; }, 30s));
  const std::string term = dir_ + "/term";
  KillPolicyFramework framework(master, "brief", 1000000000, term);
  ASSERT_EQ(DRIVER_RUNNING, framework.driver->start());
  ASSERT_TRUE(framework.scheduler.awaitStatus("brief", TASK_RUNNING, 60s))
      << "the task did not start";
  ASSERT_TRUE(waitUntil([&] { return std::filesystem::exists(term + ".ready"); }, 30s))
      << "the task never set its SIGTERM trap";

  const int64_t asked = wallNanos();
  ASSERT_EQ(200, drainTheAgent(master, 30000000000));
  auto killed = framework.scheduler.awaitStatus("brief", TASK_KILLED, 30s);
  const int64_t ended = wallNanos();
  ASSERT_TRUE(killed) << "the task was not killed within 30 s";
  const std::string text = readFile(term);
  ASSERT_FALSE(text.empty()) << "no SIGTERM first";
  EXPECT_GE(ended - asked, 1000000000) << "SIGKILL came before the task's grace was over";
  EXPECT_LT(ended - std::stoll(text), 2800000000) << "the task's own 1 s was not used";
}

}  // namespace
}  // namespace mesos::test
