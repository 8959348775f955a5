// Slave recovery end to end (docs/recovery.md): mesos-master and mesos-slave
// processes, mesos-execute --checkpoint running a task that waits for a
// file. The slave is killed with -9 and started again on the same port and
// work directory:
//   - the task's executor keeps its pid, the slave keeps its id, and an
//     update the executor sent while the slave was away reaches the
//     framework (TASK_FINISHED), after the updates before it, in order;
//   - twenty restarts in a row change nothing of that;
//   - an executor that died meanwhile fails its task, with the reason; one
//     that does not re-register in time is killed;
//   - a damaged checkpoint stops a --strict slave with one line naming the
//     file; without --strict the slave starts and kills what it cannot
//     recover;
//   - --recover=cleanup kills the executor and registers a new slave;
//   - a framework that does not checkpoint loses its task (TASK_LOST), and
//     its executor is killed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/processes.hpp"

#include "common/json.hpp"
#include "slave/status_update_manager.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Whether `pid` is gone (or a zombie its parent has not reaped yet).
bool dead(pid_t pid) {
  auto process = mesos::internal::readProcess(pid);
  return !process || process->zombie;
}

class RecoveryTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    master_ = startMaster({"--allocation_interval=100ms"});
    port_ = freePort();
    restartSlave();
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
    slaveId_ = slaveIds().at(0);
    // The master counts the slave before the slave has written its id down;
    // a slave killed in between comes back as a new one.
    bool noted =
        waitUntil([&] { return readFile(dir_ + "/slave/meta/slaves/latest") == slaveId_ + "\n"; },
                  30s, slavePid_);
    ASSERT_TRUE(noted) << "the slave did not checkpoint its id " << slaveId_;
  }

  void TearDown() override {
    // Executors of checkpointing frameworks outlive their slave by design.
    for (pid_t pid : executors_) ::kill(-pid, SIGKILL);
    for (pid_t pid : executes_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    DaemonsFixture::TearDown();
  }

  void restartSlave(std::vector<std::string> extra = {}) {
    std::vector<std::string> flags = {"--resources=cpus:2;mem:512;disk:512"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    slavePid_ = startSlave(master_, "slave", flags, port_);
    ASSERT_GT(slavePid_, 0);
  }

  void killSlave() {
    ASSERT_EQ(::kill(slavePid_, SIGKILL), 0);
    ASSERT_EQ(waitForExit(slavePid_, 30s), 128 + SIGKILL);
    reaped(slavePid_);
  }

  // Runs mesos-execute in the background: a task that prints, waits for
  // the file <dir>/go, prints again and exits 0.
  pid_t execute(const std::string& name, bool checkpoint = true,
                const std::string& resources = "cpus:0.1;mem:32") {
    std::vector<std::string> args = {MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                                     "--name=" + name,
                                     "--command=echo started; while [ ! -e " + go() +
                                         " ]; do sleep 0.05; done; echo done",
                                     "--resources=" + resources};
    if (checkpoint) args.push_back("--checkpoint");
    log_ = dir_ + "/" + name + ".log";
    pid_t pid = startDaemon(args, log_);
    if (pid > 0) executes_.push_back(pid);
    return pid;
  }

  std::string go() const { return dir_ + "/go"; }

  // The ids of the slaves the master has.
  std::vector<std::string> slaveIds() {
    std::vector<std::string> ids;
    json::Value slaves = getJson(master_, "/master/state")["slaves"];
    if (!slaves.isArray()) return ids;
    for (const json::Value& slave : slaves.array()) ids.push_back(slave["id"].string());
    return ids;
  }

  // The task's state as the master has it ("" when it has none).
  std::string taskState(const std::string& name) {
    json::Value state = getJson(master_, "/master/state");
    std::vector<json::Value> frameworks;
    for (const char* list : {"frameworks", "completed_frameworks"}) {
      if (!state[list].isArray()) continue;
      for (const json::Value& framework : state[list].array()) frameworks.push_back(framework);
    }
    for (const json::Value& framework : frameworks) {
      for (const char* list : {"tasks", "completed_tasks"}) {
        if (!framework[list].isArray()) continue;
        for (const json::Value& task : framework[list].array()) {
          if (task["name"].isString() && task["name"].string() == name) {
            return task["state"].string();
          }
        }
      }
    }
    return "";
  }

  // The forked.pid the slave checkpointed for the (only) executor; -1.
  pid_t executorPid() {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir_ + "/slave/meta", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() != "forked.pid") continue;
      if (fs::exists(it->path().parent_path().parent_path() / "completed")) continue;
      std::string text = readFile(it->path().string());
      if (!text.empty()) return static_cast<pid_t>(std::stol(text));
    }
    return -1;
  }

  // Starts a checkpointing task (execute()) and waits until it runs:
  // mesos-execute's pid and the executor's.
  void launch(const std::string& name, pid_t* run, pid_t* executor,
              const std::string& resources = "cpus:0.1;mem:32") {
    *run = execute(name, true, resources);
    ASSERT_GT(*run, 0);
    *executor = awaitRunning(name, *run);
    ASSERT_GT(*executor, 0);
  }

  // Waits until the task runs and the executor's pid is checkpointed.
  pid_t awaitRunning(const std::string& name, pid_t execute) {
    pid_t pid = -1;
    bool running = waitUntil(
        [&] {
          pid = executorPid();
          return pid > 0 && count(readFile(log_), "TASK_RUNNING") >= 1 &&
                 fs::exists(dir_ + "/slave/meta") && libprocessPidWritten() &&
                 acknowledgementWritten();
        },
        60s, execute);
    if (pid > 0) executors_.push_back(pid);
    EXPECT_TRUE(running) << name << " did not start:\n" << readFile(log_);
    return running ? pid : -1;
  }

  // The executors' stderr (their logs), for failure messages.
  std::string executorLogs() {
    std::string logs;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir_ + "/slave/slaves", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() != "stderr" || it->is_symlink()) continue;
      logs += "--- " + it->path().string() + ":\n" + readFile(it->path().string());
    }
    return logs;
  }

  // Whether the slave wrote down the framework's acknowledgement of an
  // update (TASK_RUNNING): a slave killed before that sends the update
  // again after its restart, as it should, and the framework sees it twice.
  bool acknowledgementWritten() {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir_ + "/slave/meta", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() != "task.updates") continue;
      auto records = mesos::internal::slave::StatusUpdateManager::read(it->path().string());
      if (records.ok() && !records.value().acknowledged.empty()) return true;
    }
    return false;
  }

  bool libprocessPidWritten() {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir_ + "/slave/meta", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() == "libprocess.pid") return true;
    }
    return false;
  }

  bool reregistered() {
    return waitUntil(
        [&] {
          std::vector<std::string> ids = slaveIds();
          return metric(master_, "master/slaves_active") == 1 && ids.size() == 1 &&
                 ids[0] == slaveId_;
        },
        60s, slavePid_);
  }

  process::Address master_;
  uint16_t port_ = 0;
  pid_t slavePid_ = -1;
  std::string slaveId_;
  std::string log_;
  std::vector<pid_t> executes_;
  std::vector<pid_t> executors_;
};

// What the fixtures' TearDown relies on to leave nothing running: a process
// (in a session of its own, as a task is) whose command line names a test's
// directory is killed; one that does not is left alone.
TEST(TestCleanupTest, ProcessesNamingATestsDirectoryAreKilled) {
  char dir[] = "/tmp/mesos-cleanup-XXXXXX";
  ASSERT_NE(nullptr, mkdtemp(dir));
  const std::string loop = std::string("while [ ! -e ") + dir + "/go ]; do sleep 0.05; done";
  pid_t named = startDaemon({"/usr/bin/setsid", "-w", "/bin/sh", "-c", loop});
  pid_t other = startDaemon({"/bin/sh", "-c", "sleep 30"});
  ASSERT_GT(named, 0);
  ASSERT_GT(other, 0);
  ASSERT_TRUE(waitUntil(
      [&] {
        return readFile("/proc/" + std::to_string(named) + "/cmdline")
                   .find(std::string(dir) + "/go") != std::string::npos;
      },
      10s));
  EXPECT_GE(killProcessesUnder(dir), 1);
  EXPECT_EQ(128 + SIGKILL, waitForExit(named, 10s));
  EXPECT_EQ(0, ::kill(other, 0)) << "a process not naming the directory was killed";
  ::kill(other, SIGKILL);
  waitForExit(other, 10s);
  std::filesystem::remove_all(dir);
}

TEST_F(RecoveryTest, ATaskOutlivesItsSlaveAndItsLastUpdateArrives) {
  pid_t run = -1, executor = -1;
  ASSERT_NO_FATAL_FAILURE(launch("survivor", &run, &executor));

  killSlave();
  // The task finishes while no slave runs: its executor keeps the update.
  std::ofstream(go()).put('\n');
  bool done = waitUntil(
      [&] {
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(dir_ + "/slave/slaves", ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
          if (it->path().filename() == "stdout" &&
              readFile(it->path().string()).find("done") != std::string::npos) {
            return true;
          }
        }
        return false;
      },
      30s);
  ASSERT_TRUE(done) << "the task did not finish";
  EXPECT_FALSE(dead(executor)) << "the executor did not wait for its slave";

  restartSlave();
  ASSERT_TRUE(reregistered()) << "the slave did not come back as " << slaveId_;
  int status = waitForExit(run, 60s);
  executes_.clear();
  std::string output = readFile(log_);
  EXPECT_EQ(status, 0) << output;
  // Every update, in order, once: launch() waited until the slave wrote
  // down TASK_RUNNING's acknowledgement, so it is not sent again.
  size_t running = output.rfind("TASK_RUNNING");
  size_t finished = output.find("TASK_FINISHED");
  ASSERT_NE(running, std::string::npos) << output;
  ASSERT_NE(finished, std::string::npos) << output;
  EXPECT_LT(running, finished) << output;
  EXPECT_EQ(count(output, "TASK_RUNNING"), 1u) << output;
  EXPECT_EQ(count(output, "TASK_FINISHED"), 1u) << output;
  EXPECT_EQ(taskState("survivor"), "TASK_FINISHED");
  // The executor ends once its update is acknowledged.
  EXPECT_TRUE(waitUntil([&] { return dead(executor); }, 60s)) << "the executor outlived its task";
}

TEST_F(RecoveryTest, TwentyRestartsChangeNothing) {
  pid_t run = -1, executor = -1;
  ASSERT_NO_FATAL_FAILURE(launch("steady", &run, &executor));
  for (int restart = 1; restart <= 20; ++restart) {
    SCOPED_TRACE("restart " + std::to_string(restart));
    killSlave();
    restartSlave();
    ASSERT_TRUE(reregistered()) << readFile(dir_ + "/slave.log");
    // The slave took the executor back: same process, re-registered.
    bool back = waitUntil(
        [&] {
          return count(readFile(dir_ + "/slave.log"), "re-registered from") >=
                 static_cast<size_t>(restart);
        },
        30s, slavePid_);
    ASSERT_TRUE(back) << "the executor did not re-register; the slave's log:\n"
                      << readFile(dir_ + "/slave.log") << "\nThe executor's log:\n"
                      << executorLogs();
    ASSERT_FALSE(dead(executor));
    ASSERT_EQ(executorPid(), executor);
    ASSERT_EQ(taskState("steady"), "TASK_RUNNING");
  }
  std::ofstream(go()).put('\n');
  EXPECT_EQ(waitForExit(run, 60s), 0) << readFile(log_);
  executes_.clear();
  std::string output = readFile(log_);
  EXPECT_EQ(count(output, "TASK_RUNNING"), 1u) << output;
  EXPECT_EQ(count(output, "TASK_FINISHED"), 1u) << output;
}

TEST_F(RecoveryTest, AnExecutorThatDiedMeanwhileFailsItsTask) {
  pid_t run = -1, executor = -1;
  ASSERT_NO_FATAL_FAILURE(launch("casualty", &run, &executor));
  killSlave();
  ASSERT_EQ(::kill(-executor, SIGKILL), 0);  // the executor's whole group
  ASSERT_TRUE(waitUntil([&] { return dead(executor); }, 30s));

  restartSlave();
  ASSERT_TRUE(reregistered());
  int status = waitForExit(run, 60s);
  executes_.clear();
  std::string output = readFile(log_);
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find("TASK_FAILED"), std::string::npos) << output;
  EXPECT_NE(output.find("Executor exited while the slave was down"), std::string::npos) << output;
  EXPECT_EQ(taskState("casualty"), "TASK_FAILED");
}

TEST_F(RecoveryTest, AnExecutorThatDoesNotReregisterInTimeIsKilled) {
  pid_t run = -1, executor = -1;
  ASSERT_NO_FATAL_FAILURE(launch("silent", &run, &executor));
  killSlave();
  ASSERT_EQ(::kill(executor, SIGSTOP), 0);  // alive, but deaf to the slave
  restartSlave({"--executor_reregistration_timeout=1secs"});
  ASSERT_TRUE(reregistered());
  EXPECT_TRUE(waitUntil([&] { return dead(executor); }, 30s)) << "the silent executor lives on";
  int status = waitForExit(run, 60s);
  executes_.clear();
  std::string output = readFile(log_);
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find("TASK_FAILED"), std::string::npos) << output;
  EXPECT_NE(output.find("REASON_EXECUTOR_REREGISTRATION_TIMEOUT"), std::string::npos) << output;
}

TEST_F(RecoveryTest, ADamagedCheckpointStopsAStrictSlaveNamingTheFile) {
  pid_t run = -1, executor = -1;
  ASSERT_NO_FATAL_FAILURE(launch("damaged", &run, &executor));
  killSlave();

  std::string info;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_ + "/slave/meta", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == "executor.info") info = it->path().string();
  }
  ASSERT_FALSE(info.empty());
  std::ofstream(info, std::ios::trunc) << "\xff\xfe garbage";

  ChildResult strict = runChild(
      {MESOS_SLAVE_PATH, "--master=" + master_.toString(), "--ip=127.0.0.1",
       "--port=" + std::to_string(port_), "--work_dir=" + dir_ + "/slave",
       "--resources=cpus:2;mem:512;disk:512",
       "--launcher_dir=" + fs::path(MESOS_EXECUTOR_PATH).parent_path().string()},
      60s);
  EXPECT_TRUE(strict.exitedWith(1)) << strict.describe();
  EXPECT_NE(strict.err.find(info), std::string::npos) << strict.describe();
  EXPECT_FALSE(dead(executor)) << "a refused recovery must not kill anything";

  // Without --strict: what can be read is recovered, the executor whose
  // info is gone is killed, and its task is lost.
  restartSlave({"--strict=false"});
  ASSERT_TRUE(reregistered());
  EXPECT_TRUE(waitUntil([&] { return dead(executor); }, 30s)) << "the unrecoverable executor runs";
  EXPECT_TRUE(waitUntil([&] { return taskState("damaged") == "TASK_LOST"; }, 60s))
      << taskState("damaged");
  EXPECT_NE(readFile(dir_ + "/slave.log").find(info), std::string::npos)
      << "the slave did not say what it skipped";
}

TEST_F(RecoveryTest, CleanupKillsTheExecutorsAndStartsANewSlave) {
  pid_t run = -1, executor = -1;
  ASSERT_NO_FATAL_FAILURE(launch("cleaned", &run, &executor));
  killSlave();
  restartSlave({"--recover=cleanup"});
  EXPECT_TRUE(waitUntil([&] { return dead(executor); }, 30s)) << "--recover=cleanup left it";
  bool fresh = waitUntil(
      [&] {
        for (const std::string& id : slaveIds()) {
          if (id != slaveId_) return true;
        }
        return false;
      },
      60s, slavePid_);
  EXPECT_TRUE(fresh) << "no new slave registered";
}

TEST_F(RecoveryTest, AFrameworkWithoutCheckpointingLosesItsTask) {
  pid_t run = execute("fleeting", /*checkpoint=*/false);
  ASSERT_GT(run, 0);
  bool running = waitUntil([&] { return count(readFile(log_), "TASK_RUNNING") >= 1; }, 60s, run);
  ASSERT_TRUE(running) << readFile(log_);
  EXPECT_EQ(executorPid(), -1) << "nothing of it is checkpointed";
  // Only its process is noted, for the next slave to kill.
  std::string record;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_ + "/slave/meta", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().parent_path().filename() == "containers") record = it->path().string();
  }
  ASSERT_FALSE(record.empty()) << "the executor's process is not noted";
  pid_t executor = static_cast<pid_t>(std::stol(readFile(record)));
  executors_.push_back(executor);
  killSlave();
  // Stopped, it cannot end itself when its slave goes: the next slave must.
  ASSERT_EQ(::kill(executor, SIGSTOP), 0);
  restartSlave();
  ASSERT_TRUE(reregistered());
  EXPECT_TRUE(waitUntil([&] { return dead(executor); }, 30s))
      << "the executor of a framework that does not checkpoint outlived the restart";
  EXPECT_FALSE(fs::exists(record));
  int status = waitForExit(run, 60s);
  executes_.clear();
  std::string output = readFile(log_);
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find("TASK_LOST"), std::string::npos) << output;
}

}  // namespace
}  // namespace mesos::test

namespace mesos::test {
namespace {

TEST_F(RecoveryTest, AnEndedRunsSandboxAndCheckpointsAreCollected) {
  killSlave();
  restartSlave({"--gc_delay=1secs", "--disk_watch_interval=1secs"});
  ASSERT_TRUE(reregistered());
  std::ofstream(go()).put('\n');  // the task ends at once
  pid_t run = execute("brief");
  ASSERT_GT(run, 0);
  ASSERT_EQ(waitForExit(run, 60s), 0) << readFile(log_);
  executes_.clear();

  // Its sandbox and its run's checkpoints go after --gc_delay; then the
  // slave stops listing the run.
  std::string sandbox;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_ + "/slave/slaves", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == "stdout") sandbox = it->path().parent_path().string();
  }
  ASSERT_FALSE(sandbox.empty()) << "no sandbox was made";
  std::string slave = "127.0.0.1:" + std::to_string(port_);
  auto listed = [&] {
    json::Value state = getJson(process::Address{0x7f000001, port_}, "/state");
    return json::stringify(state).find(fs::path(sandbox).filename().string()) != std::string::npos;
  };
  bool collected = waitUntil(
      [&] {
        return !fs::exists(sandbox) && !listed();
      },
      60s, slavePid_);
  EXPECT_TRUE(collected) << sandbox << " is still there or still listed in " << slave
                         << "/state";
  std::string runs;
  for (auto it = fs::recursive_directory_iterator(dir_ + "/slave/meta", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == "forked.pid") runs += it->path().string() + "\n";
  }
  EXPECT_EQ(runs, "") << "checkpoints of the ended run were not collected";
}

// A restarted slave hands the containers it keeps to its isolators with
// their sandboxes and resources: disk/du watches a kept one again, its disk
// included.
TEST_F(RecoveryTest, DiskDuWatchesAKeptContainerWithItsDiskAfterARestart) {
  pid_t run = -1, executor = -1;
  ASSERT_NO_FATAL_FAILURE(launch("kept", &run, &executor, "cpus:0.1;mem:32;disk:4"));
  ASSERT_NO_FATAL_FAILURE(killSlave());
  ASSERT_NO_FATAL_FAILURE(restartSlave({"--isolation=posix/cpu,posix/mem,disk/du"}));
  const process::Address slave{0x7f000001, port_};
  json::Value statistics;
  bool watched = waitUntil(
      [&] {
        json::Value all = getJson(slave, "/monitor/statistics");
        if (!all.isArray() || all.array().size() != 1) return false;
        statistics = all.array()[0]["statistics"];
        return statistics["disk_limit_bytes"].isNumber() &&
               statistics["disk_used_bytes"].isNumber();
      },
      60s);
  ASSERT_TRUE(watched) << "the kept container is not measured: "
                       << json::stringify(getJson(slave, "/monitor/statistics"));
  EXPECT_EQ(4 << 20, statistics["disk_limit_bytes"].integer());
  EXPECT_GT(statistics["disk_used_bytes"].integer(), 0);
  EXPECT_FALSE(dead(executor)) << "the executor did not survive the restart";
}

// A task group of a checkpointing framework outlives its slave: the
// restarted slave takes the default executor back, and both tasks finish.
TEST_F(RecoveryTest, ATaskGroupOutlivesItsSlave) {
  const std::string wait = "while [ ! -e " + go() + " ]; do sleep 0.05; done";
  auto task = [&](const std::string& id) {
    return "{\"name\":\"" + id + "\",\"task_id\":{\"value\":\"" + id +
           "\"},\"resources\":[{\"name\":\"cpus\",\"type\":\"SCALAR\",\"scalar\":"
           "{\"value\":0.1}},{\"name\":\"mem\",\"type\":\"SCALAR\",\"scalar\":"
           "{\"value\":32}}],\"command\":{\"value\":\"" + wait + "\"}}";
  };
  const std::string group = dir_ + "/group.json";
  std::ofstream(group) << "{\"tasks\":[" << task("left") << "," << task("right") << "]}";
  log_ = dir_ + "/group.log";
  pid_t run = startDaemon({MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                           "--task_group=file://" + group, "--checkpoint"},
                          log_);
  ASSERT_GT(run, 0);
  executes_.push_back(run);
  pid_t executor = -1;
  bool running = waitUntil(
      [&] {
        executor = executorPid();
        return executor > 0 && count(readFile(log_), "TASK_RUNNING") >= 2 &&
               libprocessPidWritten();
      },
      60s, run);
  ASSERT_TRUE(running) << readFile(log_);
  executors_.push_back(executor);

  ASSERT_NO_FATAL_FAILURE(killSlave());
  EXPECT_FALSE(dead(executor)) << "the default executor did not wait for its slave";
  ASSERT_NO_FATAL_FAILURE(restartSlave());
  ASSERT_TRUE(reregistered()) << "the slave did not come back as " << slaveId_;
  std::ofstream(go()).put('\n');
  int status = waitForExit(run, 60s);
  executes_.clear();
  std::string output = readFile(log_);
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(1u, count(output, "TASK_FINISHED for task left")) << output;
  EXPECT_EQ(1u, count(output, "TASK_FINISHED for task right")) << output;
  EXPECT_EQ(taskState("left"), "TASK_FINISHED");
  EXPECT_EQ(taskState("right"), "TASK_FINISHED");
  EXPECT_TRUE(waitUntil([&] { return dead(executor); }, 60s))
      << "the default executor outlived its tasks";
}

}  // namespace
}  // namespace mesos::test
