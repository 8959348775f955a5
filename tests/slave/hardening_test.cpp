// The slave's own defences (docs/security.md, "The slave's own hardening"),
// each tried as an attack first: a framework's loader variables aimed at
// the root launch helper, a fetch of a file the task's user cannot read,
// ids that would name paths outside the work directory. The executors and
// the fetcher are real processes; the test plays the master.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "slave/slave_fixture.hpp"
#include "support/subprocess.hpp"

namespace mesos::internal::slave::test {
namespace {

using namespace std::chrono_literals;

class HardeningTest : public SlaveTestBase {
 protected:
  void TearDown() override {
    SlaveTestBase::TearDown();
    std::error_code ignored;
    if (!scratch_.empty()) std::filesystem::remove_all(scratch_, ignored);
  }

  // A directory every user may write (for marker files), made once.
  std::string scratch() {
    if (scratch_.empty()) {
      char pattern[] = "/tmp/mesos-hardening-test-XXXXXX";
      EXPECT_NE(::mkdtemp(pattern), nullptr);
      scratch_ = pattern;
      ::chmod(scratch_.c_str(), 0777);
    }
    return scratch_;
  }

  // The names of the files in `directory`.
  static std::set<std::string> filesIn(const std::string& directory) {
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
      names.insert(entry.path().filename().string());
    }
    return names;
  }

  static bool haveNobody() { return ::getpwnam("nobody") != nullptr; }

  // Waits (real time: the executor and fetcher are processes) for a
  // terminal update of `taskId` to reach the master; its status.
  std::optional<TaskStatus> terminalStatus(const std::string& taskId) {
    auto find = [&]() -> std::optional<TaskStatus> {
      for (const StatusUpdate& update : master_->updates()) {
        if (update.status().task_id().value() == taskId && isTerminalState(update.status().state())) {
          return update.status();
        }
      }
      return std::nullopt;
    };
    for (int i = 0; i < 100; ++i) {
      if (auto found = find()) return found;
      auto next = runtime_->hooks().await<StatusUpdateMessage>(slave_.pid(), master_.pid());
      if (auto found = find()) return found;
      if (!next.await(std::chrono::seconds(30))) return std::nullopt;
      runtime_->settle();
    }
    return find();
  }

  // A command task of user `user` fetching `uri` (cached when `cache`).
  static TaskInfo fetchingTask(const std::string& taskId, const std::string& user,
                               const std::string& uri, bool cache, const std::string& command) {
    TaskInfo task = commandTask(taskId, command);
    task.mutable_command()->set_user(user);
    auto* fetched = task.mutable_command()->add_uris();
    fetched->set_value(uri);
    fetched->set_cache(cache);
    return task;
  }

  // Flags for fetching as another user: a work directory others may
  // traverse (as /tmp/mesos is) and a cache of the test's own.
  Flags fetchFlags() {
    ::chmod(workDir_.c_str(), 0711);
    Flags flags = this->flags();
    flags.fetcher_cache_dir = workDir_ + "/fetch";
    return flags;
  }

  std::string scratch_;
};

// Without switching users there is no privileged step: the environment is
// the executor's own from its first instruction.
// The programs the slave starts in a sandbox (the launch helper as root,
// the executors, the fetcher) never look for their shared libraries in
// the directory they start in: a framework's fetched files are there. (A
// build RUNPATH padded with ':' for CMake's in-place edit at install had
// empty entries, which the loader takes for the current directory.)
TEST(HardeningProgramsTest, NoProgramTheSlaveRunsLoadsALibraryFromTheSandbox) {
  char pattern[] = "/tmp/mesos-hardening-libs-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string sandbox = pattern;
  for (const char* library : {"libc.so.6", "libstdc++.so.6", "libm.so.6", "libgcc_s.so.1"}) {
    std::ofstream(sandbox + "/" + library) << "not a library\n";
  }
  const std::string bin = MESOS_BINARY_DIR;
  for (const std::string& program :
       {bin + "/src/slave/mesos-containerizer", bin + "/src/slave/mesos-fetcher",
        bin + "/src/slave/mesos-provisioner", bin + "/src/slave/mesos-docker-executor",
        bin + "/src/exec/mesos-executor", bin + "/src/exec/mesos-default-executor",
        bin + "/frameworks/mapreduce/mesos-mapreduce-executor",
        bin + "/frameworks/spark/mesos-spark-executor"}) {
    if (::access(program.c_str(), X_OK) != 0) continue;  // not built in this tree
    mesos::test::ChildResult ran = mesos::test::runChild(
        {"/bin/sh", "-c", "cd " + sandbox + " && exec " + program + " --help"},
        std::chrono::seconds(30));
    EXPECT_EQ(ran.err.find("error while loading shared libraries"), std::string::npos)
        << program << " loaded a library from its working directory:\n"
        << ran.describe();
  }
  std::filesystem::remove_all(sandbox);
}

TEST_F(HardeningTest, TheExecutorEnvironmentIsTheAllowListThenMesosThenTheFrameworks) {
  ::setenv("MESOS_HARDENING_TEST_SLAVE_ONLY", "leaks", 1);
  ::setenv("GCONV_PATH", "/slave/only", 1);
  ::setenv("LC_MESSAGES", "C", 1);
  Flags flags = this->flags();
  flags.switch_user = false;
  startRegisteredSlave(flags);
  ::unsetenv("MESOS_HARDENING_TEST_SLAVE_ONLY");
  ::unsetenv("GCONV_PATH");
  ::unsetenv("LC_MESSAGES");

  auto exited = runtime_->hooks().await<ExitedExecutorMessage>();
  TaskInfo task = customTask("t1", "e1", "env > env.txt");
  auto* variables = task.mutable_executor()->mutable_command()->mutable_environment();
  auto* mine = variables->add_variables();
  mine->set_name("FRAMEWORK_SAYS");
  mine->set_value("hello");
  auto* path = variables->add_variables();
  path->set_name("MESOS_SANDBOX");
  path->set_value("the framework's");
  auto* bad = variables->add_variables();
  bad->set_name("BROKEN=NAME");
  bad->set_value("x");
  fromMaster(runTask(task));
  runtime_->settle();
  ASSERT_TRUE(exited.await(30s));
  std::string directory;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(workDir_)) {
    if (entry.path().filename() == "env.txt") directory = entry.path().parent_path().string();
  }
  ASSERT_FALSE(directory.empty());
  std::string env = readFile(directory + "/env.txt");
  EXPECT_NE(env.find("PATH="), std::string::npos) << env;
  EXPECT_NE(env.find("LC_MESSAGES=C\n"), std::string::npos) << env;
  EXPECT_EQ(env.find("MESOS_HARDENING_TEST_SLAVE_ONLY"), std::string::npos) << env;
  EXPECT_EQ(env.find("/slave/only"), std::string::npos) << env;
  EXPECT_NE(env.find("MESOS_SLAVE_ID=S1\n"), std::string::npos) << env;
  EXPECT_NE(env.find("FRAMEWORK_SAYS=hello\n"), std::string::npos) << env;
  // The framework's variables come last and win, as in Apache Mesos.
  EXPECT_NE(env.find("MESOS_SANDBOX=the framework's\n"), std::string::npos) << env;
  EXPECT_EQ(env.find("BROKEN"), std::string::npos) << env;
}

TEST_F(HardeningTest, ExecutorEnvironmentVariablesReplaceWhatTheSlaveInherits) {
  Flags flags = this->flags();
  flags.switch_user = false;
  flags.executor_environment_variables = R"({"PATH":"/bin:/usr/bin","OPERATOR_SAYS":"hi"})";
  startRegisteredSlave(flags);
  auto exited = runtime_->hooks().await<ExitedExecutorMessage>();
  fromMaster(runTask(customTask("t1", "e1", "env > env.txt")));
  runtime_->settle();
  ASSERT_TRUE(exited.await(30s));
  std::string env;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(workDir_)) {
    if (entry.path().filename() == "env.txt") env = readFile(entry.path().string());
  }
  EXPECT_NE(env.find("PATH=/bin:/usr/bin\n"), std::string::npos) << env;
  EXPECT_NE(env.find("OPERATOR_SAYS=hi\n"), std::string::npos) << env;
  EXPECT_NE(env.find("MESOS_EXECUTOR_ID=e1\n"), std::string::npos) << env;

  Flags wrong = this->flags();
  wrong.executor_environment_variables = R"({"PATH":3})";
  auto refused = wrong.validate();
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--executor_environment_variables"), std::string::npos);
  EXPECT_NE(refused.error().message.find("'PATH'"), std::string::npos);
}

// The attack: a framework whose executor runs as nobody asks for a library
// to be preloaded. Before the launch helper read the environment only after
// it dropped root, the helper loaded it as root. Now the executor (nobody)
// loads it, and no process as root does.
TEST_F(HardeningTest, AFrameworksLdPreloadIsNeverLoadedAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "switching users needs root";
  if (!haveNobody()) GTEST_SKIP() << "no user 'nobody' on this machine";
  std::string markers = scratch() + "/markers";
  ASSERT_EQ(::mkdir(markers.c_str(), 0777), 0);
  ::chmod(markers.c_str(), 0777);
  std::string library = scratch() + "/preload_marker.so";
  std::filesystem::copy_file(MESOS_PRELOAD_MARKER_PATH, library);
  ::chmod(library.c_str(), 0755);

  startRegisteredSlave();  // --switch_user is on by default
  auto exited = runtime_->hooks().await<ExitedExecutorMessage>();
  TaskInfo task = customTask("t1", "e1", "exit 0");
  task.mutable_executor()->mutable_command()->set_user("nobody");
  auto* variables = task.mutable_executor()->mutable_command()->mutable_environment();
  auto* preload = variables->add_variables();
  preload->set_name("LD_PRELOAD");
  preload->set_value(library);
  auto* dir = variables->add_variables();
  dir->set_name("MESOS_TEST_MARKER_DIR");
  dir->set_value(markers);
  fromMaster(runTask(task));
  runtime_->settle();
  ASSERT_TRUE(exited.await(30s));
  runtime_->settle();
  EXPECT_TRUE(WIFEXITED(exited.get().status()) && WEXITSTATUS(exited.get().status()) == 0)
      << "status " << exited.get().status();

  uid_t nobody = ::getpwnam("nobody")->pw_uid;
  bool loadedByTheExecutor = false;
  for (const std::string& name : filesIn(markers)) {
    EXPECT_NE(name.rfind("uid-0-", 0), 0u)
        << "a process as root loaded the framework's library: "
        << readFile(markers + "/" + name);
    if (name.rfind("uid-" + std::to_string(nobody) + "-", 0) == 0) loadedByTheExecutor = true;
  }
  EXPECT_TRUE(loadedByTheExecutor) << "the executor did not get LD_PRELOAD (the test proves nothing)";
}

// The attack: a task of user nobody asks for a file only root may read.
// Before, the fetcher copied it as root into the sandbox (TASK_FINISHED,
// and /files served it). Now it is refused, with and without the cache.
TEST_F(HardeningTest, AFileTheTaskUserCannotReadIsNotFetched) {
  if (::geteuid() != 0) GTEST_SKIP() << "fetching as another user needs root";
  if (!haveNobody()) GTEST_SKIP() << "no user 'nobody' on this machine";
  if (::access(MESOS_EXECUTOR_PATH, X_OK) != 0) GTEST_SKIP() << "no " << MESOS_EXECUTOR_PATH;
  std::string secret = scratch() + "/secret.txt";
  {
    std::ofstream out(secret);
    out << "root's secret\n";
  }
  ASSERT_EQ(::chmod(secret.c_str(), 0600), 0);
  startRegisteredSlave(fetchFlags());

  for (bool cache : {false, true}) {
    std::string taskId = cache ? "cached" : "direct";
    fromMaster(runTask(fetchingTask(taskId, "nobody", "file://" + secret, cache, "cat secret.txt")));
    runtime_->settle();
    auto status = terminalStatus(taskId);
    ASSERT_TRUE(status.has_value()) << "no terminal update for " << taskId;
    EXPECT_EQ(status->state(), TASK_FAILED) << taskId;
    EXPECT_NE(status->message().find("Failed to fetch 'file://" + secret + "'"), std::string::npos)
        << status->message();
    EXPECT_NE(status->message().find("Permission denied"), std::string::npos) << status->message();
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(workDir_)) {
    EXPECT_NE(entry.path().filename(), "secret.txt") << "fetched: " << entry.path();
    if (entry.is_regular_file()) {
      EXPECT_EQ(readFile(entry.path().string()).find("root's secret"), std::string::npos)
          << entry.path();
    }
  }
}

// What the user may read is fetched, through the cache too, and is the
// user's in the sandbox; the cache stays the slave's.
TEST_F(HardeningTest, FilesFetchedForAUserAreTheUsersAndTheCacheTheSlaves) {
  if (::geteuid() != 0) GTEST_SKIP() << "fetching as another user needs root";
  if (!haveNobody()) GTEST_SKIP() << "no user 'nobody' on this machine";
  if (::access(MESOS_EXECUTOR_PATH, X_OK) != 0) GTEST_SKIP() << "no " << MESOS_EXECUTOR_PATH;
  std::string shared = scratch() + "/shared.txt";
  {
    std::ofstream out(shared);
    out << "for everyone\n";
  }
  ASSERT_EQ(::chmod(shared.c_str(), 0644), 0);
  startRegisteredSlave(fetchFlags());
  for (bool cache : {false, true}) {
    std::string taskId = cache ? "cached" : "direct";
    // Runs as nobody: the file must be nobody's and hold the bytes.
    fromMaster(runTask(fetchingTask(taskId, "nobody", "file://" + shared, cache,
                                    "test \"$(id -un)\" = nobody && test -O shared.txt && "
                                    "grep -q 'for everyone' shared.txt")));
    runtime_->settle();
    auto status = terminalStatus(taskId);
    ASSERT_TRUE(status.has_value()) << "no terminal update for " << taskId;
    EXPECT_EQ(status->state(), TASK_FINISHED) << taskId << ": " << status->message();
  }
  bool cached = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(workDir_ + "/fetch")) {
    if (entry.path().extension() != ".data") continue;
    cached = true;
    struct stat s {};
    ASSERT_EQ(::stat(entry.path().c_str(), &s), 0);
    EXPECT_EQ(s.st_uid, 0u) << entry.path();
  }
  EXPECT_TRUE(cached) << "nothing in the cache";
}

// The master checks ids; the slave does again before they name paths.
TEST_F(HardeningTest, TheSlaveRefusesIdsThatNamePaths) {
  startRegisteredSlave();
  struct Case {
    std::string frameworkId, taskId, executorId, words;
  };
  const std::vector<Case> cases = {
      {"F1", "../../../../escaped", "", "task id '../../../../escaped'"},
      {"../../escaped", "t2", "", "framework id '../../escaped'"},
      {"F1", "t3", "..", "executor id '..'"},
      {"F1", std::string("t\0x", 3), "", "control character"},
  };
  for (const Case& c : cases) {
    TaskInfo task = c.executorId.empty() ? commandTask(c.taskId, "true")
                                         : customTask(c.taskId, c.executorId, "true");
    if (!c.executorId.empty()) task.mutable_executor()->clear_framework_id();
    RunTaskMessage message = runTask(task);
    message.mutable_framework()->mutable_id()->set_value(c.frameworkId);
    auto update = runtime_->hooks().await<StatusUpdateMessage>(slave_.pid(), master_.pid());
    fromMaster(message);
    runtime_->settle();
    ASSERT_TRUE(update.isReady()) << c.words;
    const TaskStatus& status = update.get().update().status();
    EXPECT_EQ(status.state(), TASK_ERROR) << c.words;
    EXPECT_EQ(status.reason(), TaskStatus::REASON_TASK_INVALID) << c.words;
    EXPECT_NE(status.message().find(c.words), std::string::npos) << status.message();
  }
  // Nothing was made for them, in the work directory or beside it.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(workDir_)) {
    EXPECT_EQ(entry.path().string().find("escaped"), std::string::npos) << entry.path();
    EXPECT_EQ(entry.path().string().find("/executors/"), std::string::npos) << entry.path();
  }
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(workDir_).parent_path() / "escaped"));
  EXPECT_TRUE(state()["frameworks"].array().empty());
}

}  // namespace
}  // namespace mesos::internal::slave::test
