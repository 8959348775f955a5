// Interoperability with mesos-go's drivers: a framework on the (real,
// upstream) mesos-go v0 scheduler driver runs against our master and slave,
// and one of its tasks runs on a custom executor built on mesos-go v0's
// executor driver, launched by our slave.
//
// The Go programs are tests/interop/go/src/mesosinterop/go_scheduler and
// go_executor (built by tests/interop/CMakeLists.txt); go_scheduler's header
// comment describes the run. Here a master and one slave run in this process
// on one runtime bound to 127.0.0.1 (as mesos-local runs them), and
// go_scheduler runs as a child process: it launches two command tasks (one
// finishes, one it kills), then a task on go_executor, and exchanges
// framework messages with that executor. The test checks what the scheduler
// saw (its stdout and exit status), what the executor saw (its sandbox
// stdout, its exit status as the slave reported it), which v0 messages the
// scheduler driver sent (counted through the runtime's hooks), and what the
// master recorded (/master/state).
//
// mesos-go quirks this relies on or works around (details in the Go files):
// its standalone master detector finds the master's UPID in the "leader" of
// GET /state (the runtime's delegate makes that /master/state); its driver
// refuses to send LaunchTasksMessage without filters (required in its
// proto), so every launch passes some; its executor driver runs each
// callback on a goroutine of its own, so the executor's "registered" and
// "launch" lines come in either order.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "interop/go_probes.hpp"
#include "allocator/hierarchical.hpp"
#include "common/json.hpp"
#include "master/flags.hpp"
#include "master/master.hpp"
#include "messages.pb.h"
#include "process/runtime.hpp"
#include "support/subprocess.hpp"
#include "slave/files.hpp"
#include "slave/flags.hpp"
#include "slave/slave.hpp"
#include "support/net.hpp"
#include "support/root_tasks.hpp"

extern char** environ;

namespace {

using namespace std::chrono_literals;
using mesos::internal::ExitedExecutorMessage;
using mesos::internal::FrameworkToExecutorMessage;
using mesos::internal::KillTaskMessage;
using mesos::internal::LaunchTasksMessage;
using mesos::internal::RegisterFrameworkMessage;
using mesos::internal::ReviveOffersMessage;
using mesos::internal::SlaveRegisteredMessage;
using mesos::internal::StatusUpdateAcknowledgementMessage;
using mesos::internal::UnregisterFrameworkMessage;
using process::Runtime;
using process::Spawned;
using process::UPID;
namespace json = mesos::json;

// Real-time bound on the scheduler's run (it is killed after this), and what
// it is told to allow itself (less, so that a stuck run shows up as its own
// "error: timed out ..." with what it saw, rather than as a kill).
constexpr auto kSchedulerLimit = 60s;
constexpr const char* kSchedulerTimeout = "--timeout=45s";
// Bound on waiting for anything else (registration, the executor's exit).
constexpr auto kEventLimit = 20s;

// ---------------------------------------------------------------------------
// The child process.

using Child = mesos::test::ChildResult;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

// Index of `line` in `all`, or -1.
long indexOf(const std::vector<std::string>& all, const std::string& line) {
  auto it = std::find(all.begin(), all.end(), line);
  return it == all.end() ? -1 : static_cast<long>(it - all.begin());
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A JSON object's member, or null.
const json::Value& member(const json::Value& object, const std::string& name) {
  static const json::Value null;
  if (!object.isObject()) return null;
  auto it = object.object().find(name);
  return it == object.object().end() ? null : it->second;
}

std::string text(const json::Value& value) { return value.isString() ? value.string() : ""; }

// The object in `array` whose "id" is `id`, or null.
const json::Value& withId(const json::Value& array, const std::string& id) {
  static const json::Value null;
  if (!array.isArray()) return null;
  for (const json::Value& item : array.array()) {
    if (text(member(item, "id")) == id) return item;
  }
  return null;
}

// ---------------------------------------------------------------------------

class MesosGoDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string missing = MESOS_INTEROP_GO_MISSING;
    if (!missing.empty()) GTEST_SKIP() << "mesos-go interop probes not built: " << missing;
    scheduler_ = std::string(MESOS_INTEROP_GO_BIN) + "/go_scheduler";
    executor_ = std::string(MESOS_INTEROP_GO_BIN) + "/go_executor";
    for (const std::string& program : {scheduler_, executor_}) {
      if (access(program.c_str(), X_OK) != 0) {
        GTEST_SKIP() << program << " is missing (" << std::strerror(errno)
                     << "); the mesos-interop-go target builds it with tests/interop/go/build.sh, "
                        "which needs golang-go and golang-github-mesos-mesos-go-dev";
      }
    }

    char pattern[] = "/tmp/mesos-go-driver-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr) << std::strerror(errno);
    workDir_ = pattern;

    Runtime::Options options;
    options.ip = "127.0.0.1";
    options.port = 0;
    options.workers = 2;
    auto created = Runtime::create(options);
    ASSERT_TRUE(created.ok()) << created.error().message;
    runtime_ = std::move(created).value();

    // A short allocation interval: offers come soon after resources free up.
    mesos::internal::master::MasterFlags masterFlags;
    masterFlags.allocation_interval = mesos::flags::Duration(100ms);
    masterFlags.ip = "127.0.0.1";
    masterFlags.port = runtime_->address().port;
    masterFlags.security.acls = mesos::test::kRootTasksAcls;  // mesos-go runs tasks as root
    master_ = runtime_->spawn<mesos::internal::master::Master>(
        masterFlags, std::make_unique<mesos::allocator::HierarchicalAllocator>());
    // mesos-go's standalone detector reads GET /state (not /master/state).
    runtime_->setDelegate("master");
    files_ = runtime_->spawn<mesos::internal::slave::Files>();

    mesos::internal::slave::Flags slaveFlags;
    slaveFlags.work_dir = workDir_;
    slaveFlags.resources = "cpus:2;mem:1024;disk:1024;ports:[31000-31099]";
    const std::string executorPath = MESOS_EXECUTOR_PATH;
    slaveFlags.launcher_dir = executorPath.substr(0, executorPath.rfind('/'));
    mesos::internal::slave::SlaveOptions slaveOptions;
    slaveOptions.master = master_.pid();
    slaveOptions.files = files_.pid();
    slaveOptions.machine = mesos::internal::slave::MachineFacts{2, 4096, 100000};
    auto slave = mesos::internal::slave::Slave::create(slaveFlags, std::move(slaveOptions));
    ASSERT_TRUE(slave.ok()) << slave.error().message;

    auto registered = runtime_->hooks().await<SlaveRegisteredMessage>(master_.pid());
    slave_ = runtime_->spawn(std::move(slave).value());
    ASSERT_TRUE(registered.await(kEventLimit)) << "the slave did not register";
    slaveId_ = registered.get().slave_id().value();
  }

  void TearDown() override {
    slave_.reset();  // kills any executor still running
    files_.reset();
    master_.reset();
    runtime_.reset();
    if (!workDir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(workDir_, ignored);
    }
  }

  // A message counter for messages named M sent to the master.
  template <typename M>
  std::shared_ptr<std::atomic<uint64_t>> countToMaster() {
    return runtime_->hooks().count<M>(std::nullopt, master_.pid());
  }

  json::Value masterState() {
    std::string body;
    int status = mesos::test::httpGet(runtime_->address(), "/master/state", &body);
    EXPECT_EQ(status, 200);
    auto parsed = json::parse(body);
    EXPECT_TRUE(parsed.ok()) << body;
    return parsed.ok() ? std::move(parsed).value() : json::Value();
  }

  // The stdout of go-executor's (one) run, found under the slave's work
  // directory: .../frameworks/<id>/executors/go-executor/runs/<run>/stdout.
  std::string executorStdout(std::string* where) {
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(workDir_, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      const std::filesystem::path& path = it->path();
      if (path.filename() == "stdout" && path.string().find("/executors/go-executor/runs/") !=
                                             std::string::npos) {
        *where = path.string();
        return readFile(path);
      }
    }
    *where = "(no go-executor sandbox under " + workDir_ + ")";
    return "";
  }

  std::string scheduler_;
  std::string executor_;
  std::string workDir_;
  std::string slaveId_;
  // Declared first: the actors go before their runtime.
  std::unique_ptr<Runtime> runtime_;
  Spawned<mesos::internal::master::Master> master_;
  Spawned<mesos::internal::slave::Files> files_;
  Spawned<mesos::internal::slave::Slave> slave_;
};

TEST_F(MesosGoDriverTest, CommandTasksKillAndCustomExecutor) {
  // What the Go drivers send our master, counted as it is delivered.
  auto registers = countToMaster<RegisterFrameworkMessage>();
  auto launches = countToMaster<LaunchTasksMessage>();  // declines included
  auto kills = countToMaster<KillTaskMessage>();
  auto acks = countToMaster<StatusUpdateAcknowledgementMessage>();
  auto revives = countToMaster<ReviveOffersMessage>();
  auto unregisters = countToMaster<UnregisterFrameworkMessage>();
  // mesos-go sends framework messages straight to the slave it learnt from
  // the offer (ResourceOffersMessage.pids), not through the master.
  auto toSlave = runtime_->hooks().count<FrameworkToExecutorMessage>(std::nullopt, slave_.pid());
  auto viaMaster = countToMaster<FrameworkToExecutorMessage>();
  // The slave tells the master when go_executor (a framework-named executor)
  // exits: after the framework unregisters and the slave shuts it down.
  auto executorExited = runtime_->hooks().await<ExitedExecutorMessage>(slave_.pid(), master_.pid());

  const std::string master = "127.0.0.1:" + std::to_string(runtime_->address().port);
  Child child = mesos::test::runChild({scheduler_, "--master=" + master, "--executor=" + executor_, kSchedulerTimeout},
                    kSchedulerLimit);
  ASSERT_TRUE(child.exitedWith(0)) << child.describe();

  // What the scheduler saw.
  std::vector<std::string> out = lines(child.out);
  ASSERT_FALSE(out.empty()) << child.describe();
  ASSERT_TRUE(out.front().starts_with("registered ")) << child.describe();
  const std::string frameworkId = out.front().substr(std::string("registered ").size());
  EXPECT_FALSE(frameworkId.empty());
  EXPECT_EQ(out.back(), "done") << child.describe();
  EXPECT_NE(indexOf(out, "launched echo-task sleep-task on " + slaveId_), -1) << child.describe();
  EXPECT_NE(indexOf(out, "launched custom-task on " + slaveId_), -1) << child.describe();
  const std::map<std::string, std::string> ends = {
      {"echo-task", "TASK_FINISHED"}, {"sleep-task", "TASK_KILLED"}, {"custom-task", "TASK_FINISHED"}};
  for (const auto& [task, end] : ends) {
    SCOPED_TRACE(task);
    long running = indexOf(out, "status " + task + " TASK_RUNNING");
    long terminal = indexOf(out, "status " + task + " " + end);
    EXPECT_NE(running, -1) << child.describe();
    EXPECT_NE(terminal, -1) << child.describe();
    EXPECT_LT(running, terminal) << child.describe();
  }
  long killing = indexOf(out, "killing sleep-task");
  EXPECT_LT(indexOf(out, "status sleep-task TASK_RUNNING"), killing);
  EXPECT_LT(killing, indexOf(out, "status sleep-task TASK_KILLED"));
  // The custom executor's task was launched only after the first two ended.
  EXPECT_LT(indexOf(out, "status echo-task TASK_FINISHED"),
            indexOf(out, "launched custom-task on " + slaveId_));
  EXPECT_LT(indexOf(out, "status sleep-task TASK_KILLED"),
            indexOf(out, "launched custom-task on " + slaveId_));
  // Framework messages, both ways (go_executor answers "bye" with "reply:bye").
  EXPECT_NE(indexOf(out, "message go-executor " + slaveId_ + " running custom-task"), -1)
      << child.describe();
  EXPECT_NE(indexOf(out, "message go-executor " + slaveId_ + " reply:bye"), -1) << child.describe();
  size_t updates = std::count_if(out.begin(), out.end(),
                                 [](const std::string& line) { return line.starts_with("status "); });
  EXPECT_GE(updates, 6u) << child.describe();

  // go_executor was shut down by the slave once the framework unregistered,
  // and exited by itself (status 0), not killed after the grace period.
  ASSERT_TRUE(executorExited.await(kEventLimit)) << "no ExitedExecutorMessage for go-executor";
  const ExitedExecutorMessage& exited = executorExited.get();
  EXPECT_EQ(exited.executor_id().value(), "go-executor");
  EXPECT_EQ(exited.framework_id().value(), frameworkId);
  EXPECT_EQ(exited.slave_id().value(), slaveId_);
  EXPECT_TRUE(WIFEXITED(exited.status()) && WEXITSTATUS(exited.status()) == 0)
      << "wait status " << exited.status();

  // What the executor saw, from its sandbox. (mesos-go runs each executor
  // callback on a goroutine of its own, so "registered" and "launch" may be
  // printed in either order; see go_executor.)
  std::string where;
  std::vector<std::string> executorOut = lines(executorStdout(&where));
  EXPECT_NE(indexOf(executorOut, "registered go-executor " + frameworkId + " " + slaveId_), -1)
      << where;
  EXPECT_NE(indexOf(executorOut, "launch custom-task"), -1) << where;
  EXPECT_NE(indexOf(executorOut, "message bye"), -1) << where;
  EXPECT_NE(indexOf(executorOut, "shutdown"), -1) << where;
  EXPECT_EQ(executorOut.empty() ? "" : executorOut.back(), "exit DRIVER_STOPPED") << where;

  // The v0 messages the scheduler driver sent. Both drivers send each
  // message after the previous one was accepted (one keep-alive connection),
  // and the executor exited only after the unregistration, so all are
  // counted by now.
  EXPECT_EQ(registers->load(), 1u);
  EXPECT_GE(launches->load(), 2u);  // two launches, and any declines
  EXPECT_EQ(kills->load(), 1u);
  EXPECT_EQ(acks->load(), updates) << "every status update it saw should have been acknowledged";
  EXPECT_EQ(revives->load(), 1u);
  EXPECT_EQ(unregisters->load(), 1u);
  EXPECT_EQ(toSlave->load(), 1u);
  EXPECT_EQ(viaMaster->load(), 0u);

  // What the master recorded.
  json::Value state = masterState();
  EXPECT_EQ(text(member(state, "leader")), master_.pid().toString());
  EXPECT_TRUE(withId(member(state, "frameworks"), frameworkId).isNull())
      << "the framework unregistered";
  const json::Value& framework = withId(member(state, "completed_frameworks"), frameworkId);
  ASSERT_TRUE(framework.isObject()) << json::stringify(state);
  EXPECT_EQ(text(member(framework, "name")), "mesos-go interop probe");
  const json::Value& tasks = member(framework, "completed_tasks");
  for (const auto& [task, end] : ends) {
    SCOPED_TRACE(task);
    const json::Value& record = withId(tasks, task);
    ASSERT_TRUE(record.isObject()) << json::stringify(framework);
    EXPECT_EQ(text(member(record, "state")), end);
    EXPECT_EQ(text(member(record, "slave_id")), slaveId_);
    std::vector<std::string> states;
    const json::Value& statuses = member(record, "statuses");
    if (statuses.isArray()) {
      for (const json::Value& status : statuses.array()) states.push_back(text(member(status, "state")));
    }
    EXPECT_NE(indexOf(states, "TASK_RUNNING"), -1) << json::stringify(record);
    EXPECT_EQ(states.empty() ? "" : states.back(), end) << json::stringify(record);
  }
  EXPECT_EQ(text(member(withId(tasks, "custom-task"), "executor_id")), "go-executor");
}

}  // namespace
