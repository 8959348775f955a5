// A full disk loses nothing (docs/recovery.md, "A full disk"): mesos-master
// and a --strict mesos-slave whose checkpoint directory (<work_dir>/meta) is
// a small file system of the test's own, filled up by the test, and
// mesos-execute --checkpoint running tasks that each wait for a file:
//   - the updates of a task run while the disk is full, which cannot be
//     checkpointed, still reach the framework, in order, and their
//     acknowledgements reach the slave;
//   - the slave says so once in its log, counts the failed writes and
//     answers 503 at /health; once space is free it writes what it kept,
//     and /health answers 200 again;
//   - killed and started again over an update log with a torn tail, the
//     --strict slave starts, under its id, with its running task.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "messages.pb.h"
#include "slave/checkpoint.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"
#include "support/small_disk.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class FullDiskTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    disk_.emplace(dir_ + "/slave/meta", 512 << 10);
    if (!disk_->missing().empty()) GTEST_SKIP() << disk_->missing();
    master_ = startMaster({"--allocation_interval=100ms"});
    port_ = freePort();
    slave_ = process::Address{0x7f000001, port_};
    ASSERT_NO_FATAL_FAILURE(startTheSlave());
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  void TearDown() override {
    // Executors of checkpointing frameworks outlive their slave by design.
    for (pid_t pid : executors_) ::kill(-pid, SIGKILL);
    for (pid_t pid : runs_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    disk_.reset();  // unmounted before the fixture removes dir_, even on failure
    DaemonsFixture::TearDown();
  }

  void startTheSlave() {
    slavePid_ = startSlave(master_, "slave", {"--resources=cpus:2;mem:512;disk:512", "--strict"},
                           port_);
    ASSERT_GT(slavePid_, 0);
  }

  // The slave's metric `name` (-1 when unreadable).
  int64_t slaveMetric(const std::string& name) {
    json::Value value = getJson(slave_, "/metrics/snapshot")[name];
    return value.isNumber() ? value.integer() : -1;
  }

  // The state of the slave's task `name`: in `list` ("tasks": running
  // here; "completed_tasks": its terminal update acknowledged), or "".
  std::string taskState(const std::string& name, const char* list) {
    json::Value state = getJson(slave_, "/state");
    for (const char* frameworks : {"frameworks", "completed_frameworks"}) {
      if (!state[frameworks].isArray()) continue;
      for (const json::Value& framework : state[frameworks].array()) {
        for (const char* executors : {"executors", "completed_executors"}) {
          if (!framework[executors].isArray()) continue;
          for (const json::Value& executor : framework[executors].array()) {
            if (!executor[list].isArray()) continue;
            for (const json::Value& task : executor[list].array()) {
              if (task["name"].isString() && task["name"].string() == name) {
                return task["state"].string();
              }
            }
          }
        }
      }
    }
    return "";
  }

  // The checkpoint file `name` (e.g. task.updates) of the task `task` (a
  // command task: its executor has its name) under <work_dir>/meta: its
  // path, or "".
  std::string checkpointed(const std::string& name, const std::string& task) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir_ + "/slave/meta", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() == name &&
          it->path().string().find("/" + task + "/") != std::string::npos) {
        return it->path().string();
      }
    }
    return "";
  }

  // Runs mesos-execute --checkpoint in the background: a task `name` that
  // waits for the file go(name). Its pid (also in runs_).
  pid_t execute(const std::string& name) {
    pid_t pid = startDaemon({MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                             "--name=" + name,
                             "--command=echo started; while [ ! -e " + go(name) +
                                 " ]; do sleep 0.05; done; echo done",
                             "--resources=cpus:0.1;mem:32", "--checkpoint"},
                            output(name));
    if (pid > 0) runs_.push_back(pid);
    return pid;
  }
  std::string go(const std::string& name) const { return dir_ + "/go-" + name; }
  std::string output(const std::string& name) const { return dir_ + "/" + name + ".log"; }

  // Lets the task `name` finish; expects mesos-execute (`run`) to exit 0
  // having seen TASK_RUNNING once, then TASK_FINISHED once.
  void finish(const std::string& name, pid_t run) {
    std::ofstream(go(name)).put('\n');
    EXPECT_EQ(waitForExit(run, 60s), 0) << readFile(output(name));
    std::erase(runs_, run);
    std::string said = readFile(output(name));
    size_t running = said.find("TASK_RUNNING");
    size_t finished = said.find("TASK_FINISHED");
    ASSERT_NE(finished, std::string::npos) << said;
    EXPECT_LT(running, finished) << said;
    EXPECT_EQ(count(said, "TASK_RUNNING"), 1u) << said;
    EXPECT_EQ(count(said, "TASK_FINISHED"), 1u) << said;
  }

  // The types of the records of a task's update log, in order
  // ("UPDATE ACK ..."), or the error reading it.
  static std::string recordTypes(const std::string& log) {
    auto raw = mesos::internal::slave::checkpoint::readRecords(log);
    if (!raw) return raw.error().message;
    std::string types;
    for (const std::string& bytes : raw->records) {
      mesos::internal::StatusUpdateRecord record;
      if (!record.ParseFromString(bytes)) return "unparsable";
      types += (types.empty() ? "" : " ") +
               mesos::internal::StatusUpdateRecord::Type_Name(record.type());
    }
    return types;
  }

  // Whether /health answers `status`; its body into *body.
  bool health(int status, std::string* body) {
    int answered = httpGet(slave_, "/health", body);
    if (answered != status) *body = "answered " + std::to_string(answered) + ": " + *body;
    return answered == status;
  }

  std::string slaveLog() { return readFile(dir_ + "/slave.log"); }

  std::optional<SmallDisk> disk_;
  process::Address master_;
  process::Address slave_;
  uint16_t port_ = 0;
  pid_t slavePid_ = -1;
  std::vector<pid_t> runs_;  // mesos-execute
  std::vector<pid_t> executors_;
};

TEST_F(FullDiskTest, UpdatesThatCannotBeCheckpointedArriveAndAStrictSlaveStartsAgain) {
  std::string body;
  ASSERT_TRUE(health(200, &body)) << body;
  EXPECT_EQ(slaveMetric("slave/checkpoints_failing"), 0);
  std::string slaveId = getJson(slave_, "/state")["id"].string();
  ASSERT_FALSE(slaveId.empty());

  ASSERT_TRUE(disk_->fill()) << dir_ << "/slave/meta did not fill up";
  pid_t first = execute("first");
  ASSERT_GT(first, 0);
  ASSERT_TRUE(waitUntil([&] { return count(readFile(output("first")), "TASK_RUNNING") >= 1; }, 60s,
                        first))
      << readFile(output("first")) << slaveLog();
  ASSERT_TRUE(waitUntil([&] { return taskState("first", "tasks") == "TASK_RUNNING"; }, 30s));

  // Nothing of the task could be written, yet it runs; the slave says why.
  std::string updates = checkpointed("task.updates", "first");
  if (!updates.empty()) {
    EXPECT_EQ(fs::file_size(updates), 0u);
  }
  EXPECT_EQ(checkpointed("task.info", "first"), "");
  EXPECT_EQ(slaveMetric("slave/checkpoints_failing"), 1);
  EXPECT_GE(slaveMetric("slave/checkpoint_failures"), 3);  // infos, the update, its ack
  ASSERT_TRUE(health(503, &body)) << body;
  EXPECT_NE(body.find("No space left on device"), std::string::npos) << body;
  EXPECT_NE(body.find(dir_ + "/slave/meta/"), std::string::npos) << body;
  EXPECT_EQ(body.find('\n'), body.size() - 1) << "not one line: " << body;

  // Its last update reaches the framework after the first.
  ASSERT_NO_FATAL_FAILURE(finish("first", first));
  EXPECT_TRUE(health(503, &body)) << body;
  EXPECT_EQ(count(slaveLog(), "No space left on device"), 1u) << slaveLog();

  // Space again: what was kept is written (tried again every 10 s), in order.
  disk_->free();
  EXPECT_TRUE(waitUntil([&] { return health(200, &body); }, 60s, slavePid_)) << body;
  EXPECT_EQ(body, "");
  EXPECT_EQ(slaveMetric("slave/checkpoints_failing"), 0);
  EXPECT_NE(slaveLog().find("Checkpoints are written again"), std::string::npos);
  updates = checkpointed("task.updates", "first");
  ASSERT_FALSE(updates.empty());
  // The acknowledgement of TASK_RUNNING reached the slave between the two
  // updates (that of TASK_FINISHED may not: mesos-execute exits at once).
  EXPECT_EQ(recordTypes(updates).rfind("UPDATE ACK UPDATE", 0), 0u) << recordTypes(updates);
  EXPECT_NE(checkpointed("task.info", "first"), "");

  // A second task, checkpointed as usual; then the slave crashes in the
  // middle of an append to its log: a record's first bytes at the end.
  pid_t second = execute("second");
  ASSERT_GT(second, 0);
  bool written = waitUntil(
      [&] {
        updates = checkpointed("task.updates", "second");
        return !updates.empty() && recordTypes(updates) == "UPDATE ACK" &&  // TASK_RUNNING
               !checkpointed("libprocess.pid", "second").empty() &&
               !checkpointed("forked.pid", "second").empty();
      },
      60s, slavePid_);
  ASSERT_TRUE(written) << readFile(output("second")) << slaveLog();
  std::string forked = readFile(checkpointed("forked.pid", "second"));
  ASSERT_FALSE(forked.empty());
  executors_.push_back(static_cast<pid_t>(std::stol(forked)));
  ASSERT_EQ(::kill(slavePid_, SIGKILL), 0);
  ASSERT_EQ(waitForExit(slavePid_, 30s), 128 + SIGKILL);
  reaped(slavePid_);
  std::string bytes = readFile(updates);
  ASSERT_GT(bytes.size(), 20u);
  std::ofstream(updates, std::ios::app) << bytes.substr(0, 20);

  ASSERT_NO_FATAL_FAILURE(startTheSlave());
  bool back = waitUntil(
      [&] {
        return getJson(slave_, "/state")["id"].isString() &&
               getJson(slave_, "/state")["id"].string() == slaveId &&
               count(slaveLog(), "re-registered from") >= 1 &&
               taskState("second", "tasks") == "TASK_RUNNING";
      },
      60s, slavePid_);
  ASSERT_TRUE(back) << "the --strict slave did not start again with the task:\n" << slaveLog();
  EXPECT_NE(slaveLog().find("partly written last record"), std::string::npos);
  EXPECT_TRUE(health(200, &body)) << body;
  ASSERT_NO_FATAL_FAILURE(finish("second", second));
  EXPECT_EQ(count(slaveLog(), "No space left on device"), 1u) << slaveLog();
}

}  // namespace
}  // namespace mesos::test
