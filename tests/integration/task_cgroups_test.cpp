// Each task of a group in a cgroup of its own: a mesos-master and a
// mesos-slave with --isolation=cgroups/cpu,cgroups/mem, and a framework (the
// scheduler driver, in this process) launching groups on the default
// executor. The tasks read their own /proc/self/cgroup; a task's setsid
// daemon dies with the task. Real processes, so waits have real-time bounds.
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/processes.hpp"
#include "slave/containerizer/isolators/cgroups/cgroups.hpp"
#include "process/runtime.hpp"
#include "support/cluster.hpp"
#include "support/cgroups_layout.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace cgroups = mesos::internal::cgroups;

// Whether `pid` is gone (or a zombie its parent has not reaped yet).
bool dead(pid_t pid) {
  auto process = mesos::internal::readProcess(pid);
  return !process || process->zombie;
}

class TaskGroupCgroupsTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    std::string why;
    layout_ = cgroupsForTests({"cpu", "memory"}, &why);
    if (!layout_) GTEST_SKIP() << why;
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    root_ = "mesos_tg_" + std::to_string(::getpid());
    master_ = startMaster({"--allocation_interval=100ms"});
    startSlave(master_, "slave",
               {"--resources=cpus:2;mem:512;disk:512", "--isolation=cgroups/cpu,cgroups/mem",
                "--cgroups_root=" + root_});
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  // Registers the framework, whose tasks run as `user` ("": this process's).
  void startFramework(const std::string& user = "") {
    runtime_ = std::move(process::Runtime::create({})).value();
    scheduler_.onOffers = [](SchedulerDriver*, const std::vector<Offer>&) {};  // the test's
    FrameworkInfo info;
    info.set_user(user);
    info.set_name("task cgroups");
    driver_ = std::make_unique<MesosSchedulerDriver>(&scheduler_, info, master_.toString(), true,
                                                     runtime_.get());
    ASSERT_EQ(DRIVER_RUNNING, driver_->start());
  }

  void TearDown() override {
    if (HasFailure() && !dir_.empty()) {
      std::string updates;
      scheduler_.await(
          [&](const RecordingScheduler::Event& e) {
            if (e.kind == "status") {
              updates += e.status.task_id().value() + " " + TaskState_Name(e.status.state()) +
                         ": " + e.status.message() + "\n";
            }
            return false;
          },
          0ms);
      ADD_FAILURE() << "updates:\n" << updates << "slave log:\n" << readFile(dir_ + "/slave.log");
    }
    if (driver_) {
      driver_->stop();
      driver_->join();
    }
    DaemonsFixture::TearDown();
    if (!layout_ || root_.empty()) return;
    for (const char* controller : {"cpu", "cpuacct", "memory", "freezer"}) {
      if (!layout_->has(controller)) continue;
      if (auto root = layout_->cgroup(root_, {controller})) (void)cgroups::destroy(*root, 10s);
    }
  }

  // Launches `tasks` (id, command) as one group on a default executor.
  void launchGroup(const std::vector<std::pair<std::string, std::string>>& tasks) {
    auto offers = scheduler_.awaitKind("offers", 60s);
    ASSERT_TRUE(offers && !offers->offers.empty()) << "no offer within 60 s";
    const Offer& offer = offers->offers.front();
    Offer::Operation operation;
    operation.set_type(Offer::Operation::LAUNCH_GROUP);
    ExecutorInfo* executor = operation.mutable_launch_group()->mutable_executor();
    executor->set_type(ExecutorInfo::DEFAULT);
    executor->mutable_executor_id()->set_value("pod");
    *executor->mutable_resources() = Resources::parse("cpus:0.1;mem:32").value().proto();
    for (const auto& [id, command] : tasks) {
      *operation.mutable_launch_group()->mutable_task_group()->add_tasks() =
          commandTask(offer, id, command);
    }
    driver_->acceptOffers({offer.id()}, {operation}, Filters());
  }

  // The file `name` in the executor's sandbox, once one exists (bounded).
  std::optional<std::filesystem::path> sandboxFile(const std::string& name) {
    std::optional<std::filesystem::path> found;
    waitUntil(
        [&] {
          std::error_code error;
          for (auto it = std::filesystem::recursive_directory_iterator(dir_ + "/slave", error);
               !error && it != std::filesystem::recursive_directory_iterator();
               it.increment(error)) {
            if (it->path().filename() == name) {
              found = it->path();
              return true;
            }
          }
          return false;
        },
        30s);
    return found;
  }

  // The path of the cgroup in `controller`'s hierarchy that /proc/self/cgroup
  // text `text` gives ("" when none).
  static std::string cgroupIn(const std::string& text, const std::string& controller) {
    auto memberships = cgroups::parseProcCgroup(text);
    if (!memberships) return "";
    for (const cgroups::Membership& membership : *memberships) {
      const auto& controllers = membership.controllers;
      if (std::find(controllers.begin(), controllers.end(), controller) != controllers.end()) {
        return membership.path;
      }
    }
    return "";
  }

  // Runs a group of two tasks that write their /proc/self/cgroup and checks
  // that each ran in a cgroup of its own below their container's (and, with
  // `uid`, as that user: the files are its).
  void expectACgroupPerTask(std::optional<uid_t> uid = std::nullopt);

  std::unique_ptr<cgroups::Layout> layout_;
  std::string root_;
  process::Address master_;
  RecordingScheduler scheduler_;
  std::unique_ptr<process::Runtime> runtime_;
  std::unique_ptr<MesosSchedulerDriver> driver_;
};

void TaskGroupCgroupsTest::expectACgroupPerTask(std::optional<uid_t> uid) {
  launchGroup({{"first", "cat /proc/self/cgroup > first.cgroup"},
               {"second", "cat /proc/self/cgroup > second.cgroup"}});
  for (const std::string id : {"first", "second"}) {
    auto ended = scheduler_.await(
        [&](const RecordingScheduler::Event& e) {
          return e.kind == "status" && e.status.task_id().value() == id &&
                 e.status.state() != TASK_STARTING && e.status.state() != TASK_RUNNING;
        },
        60s);
    ASSERT_TRUE(ended) << "task " << id << " did not end within 60 s";
    ASSERT_EQ(TASK_FINISHED, ended->status.state()) << ended->status.message();
  }
  // The slave's containers go below its own cgroup (this process's) and
  // --cgroups_root; a task's below its container's.
  for (const char* controller : {"memory", "cpu"}) {
    const std::string self = *layout_->self(controller);
    const std::string root = (self == "/" ? "" : self) + "/" + root_ + "/";
    std::string containers[2];
    for (int i = 0; i < 2; i++) {
      const std::string id = i == 0 ? "first" : "second";
      auto file = sandboxFile(id + ".cgroup");
      ASSERT_TRUE(file) << "task " << id << " wrote no " << id << ".cgroup";
      struct stat st {};
      ASSERT_EQ(0, ::stat(file->c_str(), &st));
      if (uid) {
        EXPECT_EQ(*uid, st.st_uid) << "task " << id << " did not run as its user";
      }
      const std::string path = cgroupIn(readFile(*file), controller);
      std::smatch match;
      ASSERT_TRUE(std::regex_match(path, match, std::regex("(.*)/task/" + id)))
          << "task " << id << " ran in " << controller << " cgroup '" << path << "'";
      containers[i] = match[1].str();
      EXPECT_EQ(0u, containers[i].rfind(root, 0)) << containers[i];
      EXPECT_EQ(std::string::npos, containers[i].find('/', root.size())) << containers[i];
      // Destroyed as the task ended, before its terminal update.
      EXPECT_FALSE(std::filesystem::exists(layout_->root(controller) + path)) << path;
    }
    EXPECT_EQ(containers[0], containers[1]) << "one container for the group";
  }
}

TEST_F(TaskGroupCgroupsTest, EachTaskRunsInItsOwnCgroupBelowTheContainers) {
  if (layout_->version() != cgroups::Version::kV1) GTEST_SKIP() << "reads v1 memberships";
  startFramework();
  expectACgroupPerTask();
}

// The executor runs as the framework's user: the slave gives it the
// container's cgroup, to make its tasks' below.
TEST_F(TaskGroupCgroupsTest, AnExecutorRunningAsAUserGivesItsTasksTheirCgroups) {
  if (layout_->version() != cgroups::Version::kV1) GTEST_SKIP() << "reads v1 memberships";
  const std::string user = "mesos-test-user";
  if (::getpwnam(user.c_str()) == nullptr) {
    ChildResult added = runChild({"/usr/sbin/useradd", "--system", "--no-create-home", user}, 30s);
    ASSERT_TRUE(added.exitedWith(0)) << added.describe();
  }
  // The user reaches its sandbox through the test's directory (made 0700).
  std::filesystem::permissions(dir_, std::filesystem::perms(0755));
  startFramework(user);
  expectACgroupPerTask(::getpwnam(user.c_str())->pw_uid);
}

TEST_F(TaskGroupCgroupsTest, ATaskKilledTakesItsSetsidDaemonWithIt) {
  startFramework();
  launchGroup({{"daemon", "setsid sh -c 'echo $$ > daemon.pid; exec sleep 1000' & sleep 1000"},
               {"partner", "sleep 1000"}});
  for (const char* id : {"daemon", "partner"}) {
    ASSERT_TRUE(scheduler_.awaitStatus(id, TASK_RUNNING, 60s)) << "task " << id;
  }
  auto file = sandboxFile("daemon.pid");
  ASSERT_TRUE(file) << "the daemon wrote no pid";
  pid_t daemon = 0;
  ASSERT_TRUE(waitUntil(
      [&] {
        const std::string text = readFile(*file);
        if (text.empty() || text.back() != '\n') return false;
        daemon = static_cast<pid_t>(std::stol(text));
        return true;
      },
      30s));
  ASSERT_GT(daemon, 1);
  // It left the task's process group and session: a killpg misses it.
  auto process = mesos::internal::readProcess(daemon);
  ASSERT_TRUE(process && !process->zombie) << "pid " << daemon;
  EXPECT_EQ(daemon, process->sid);
  EXPECT_EQ(daemon, process->pgid);

  TaskID id;
  id.set_value("daemon");
  driver_->killTask(id);
  auto killed = scheduler_.awaitStatus("daemon", TASK_KILLED, 60s);
  ASSERT_TRUE(killed);
  // The task's cgroup was destroyed before its terminal update went out.
  const bool gone = dead(daemon);
  EXPECT_TRUE(gone) << "the daemon (pid " << daemon << ") outlived its task's TASK_KILLED";
  auto partner = scheduler_.awaitStatus("partner", TASK_KILLED, 60s);
  ASSERT_TRUE(partner);
  EXPECT_NE(std::string::npos, partner->status.message().find("task 'daemon' of its group"))
      << partner->status.message();
  if (!gone) ::kill(daemon, SIGKILL);
}

}  // namespace
}  // namespace mesos::test
