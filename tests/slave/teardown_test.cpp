// No executor or task process outlives its slave: stopping a slave actor (or
// destroying the whole in-process cluster) kills every executor it launched
// and everything those executors started, whatever process group or session
// they moved to; and an executor that exits takes what it left running along.
//
// Real master, slave and executor processes (TestCluster). Tasks report their
// pids through a FIFO the test reads, so nothing polls the sandbox; a
// process's end is awaited through its pidfd (or kill(pid, 0) where pidfds
// are unavailable) with generous real-time bounds.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <glog/logging.h>

#include "mesos/resources.hpp"
#include "messages.pb.h"
#include "support/cluster.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

constexpr std::chrono::milliseconds kBound = 30s;

// A FIFO in a scratch directory that a task writes one line of pids to.
class PidChannel {
 public:
  PidChannel() {
    char pattern[] = "/tmp/mesos-teardown-test-XXXXXX";
    CHECK(::mkdtemp(pattern) != nullptr);
    dir_ = pattern;
    path_ = dir_ + "/pids";
    CHECK_EQ(::mkfifo(path_.c_str(), 0600), 0);
    // Held open from the start, so the task's write never blocks for long.
    reader_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    CHECK_GE(reader_, 0);
  }
  ~PidChannel() {
    ::close(reader_);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  PidChannel(const PidChannel&) = delete;
  PidChannel& operator=(const PidChannel&) = delete;

  const std::string& path() const { return path_; }

  // The numbers of the first line written, or nothing after `timeout`.
  std::vector<pid_t> read(std::chrono::milliseconds timeout = kBound) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string line;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left <= 0ms) return {};
      pollfd ready{reader_, POLLIN, 0};
      if (::poll(&ready, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[256];
      ssize_t n = ::read(reader_, buffer, sizeof(buffer));
      if (n <= 0) continue;  // the writer closed (POLLHUP) or nothing yet
      line.append(buffer, static_cast<size_t>(n));
      if (line.find('\n') != std::string::npos) break;
    }
    std::vector<pid_t> pids;
    std::istringstream in(line);
    for (long pid; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
    return pids;
  }

 private:
  std::string dir_;
  std::string path_;
  int reader_ = -1;
};

// Watches one process from the moment it is made: a pidfd names exactly that
// process, so a reused pid cannot pass for it.
class ProcessWatch {
 public:
  explicit ProcessWatch(pid_t pid) : pid_(pid) {
#ifdef SYS_pidfd_open
    pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#endif
  }
  ~ProcessWatch() {
    if (pidfd_ >= 0) ::close(pidfd_);
  }
  ProcessWatch(const ProcessWatch&) = delete;
  ProcessWatch& operator=(const ProcessWatch&) = delete;

  pid_t pid() const { return pid_; }

  // Whether the process still runs (a zombie does not).
  bool running() const {
    if (pidfd_ >= 0) {
      pollfd ready{pidfd_, POLLIN, 0};
      return ::poll(&ready, 1, 0) == 0;
    }
    return ::kill(pid_, 0) == 0 && !zombie();
  }

  // Waits for the process to end: true when it did within `timeout`, and
  // then, once its new parent (init) reaps it, kill(pid, 0) fails with ESRCH.
  bool awaitEnd(std::chrono::milliseconds timeout = kBound) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    if (pidfd_ >= 0) {
      pollfd ready{pidfd_, POLLIN, 0};
      if (::poll(&ready, 1, static_cast<int>(timeout.count())) != 1) return false;
    }
    // Until it is reaped (or left a zombie by an init that does not reap).
    while (::kill(pid_, 0) == 0 && !zombie()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(10ms);
    }
    return true;
  }

  // Whether kill(pid, 0) fails with ESRCH within `timeout` (a zombie left
  // for a non-reaping init counts as gone).
  bool awaitGone(std::chrono::milliseconds timeout = kBound) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (::kill(pid_, 0) != 0 && errno == ESRCH) return true;
      if (zombie() && std::chrono::steady_clock::now() >= deadline) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(10ms);
    }
  }

 private:
  bool zombie() const {
    // Through getline, which turns a failed read into a failed stream: the
    // process may be reaped between the open and the read, which then fails
    // with ESRCH (an istreambuf_iterator lets libstdc++'s exception out).
    std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return false;
    size_t close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
  }

  pid_t pid_;
  int pidfd_ = -1;
};

FrameworkInfo frameworkInfo() {
  FrameworkInfo info;
  info.set_user("");
  info.set_name("teardown");
  return info;
}

// Launches `tasks` (built from the first offer) once, declines the rest.
void launchOnce(RecordingScheduler& scheduler,
                std::function<std::vector<TaskInfo>(const Offer&)> tasks) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  scheduler.onOffers = [done, tasks](SchedulerDriver* driver, const std::vector<Offer>& offers) {
    for (const Offer& offer : offers) {
      if (!done->exchange(true)) {
        driver->launchTasks(offer.id(), tasks(offer));
      } else {
        driver->declineOffer(offer.id());
      }
    }
  };
}

// A task run by the custom executor `command` (a shell command).
TaskInfo customExecutorTask(const Offer& offer, const std::string& id,
                            const std::string& command) {
  TaskInfo task;
  task.set_name(id);
  task.mutable_task_id()->set_value(id);
  task.mutable_slave_id()->CopyFrom(offer.slave_id());
  *task.mutable_resources() = Resources::parse("cpus:0.1;mem:32").value().proto();
  ExecutorInfo* executor = task.mutable_executor();
  executor->mutable_executor_id()->set_value(id + "-executor");
  executor->mutable_command()->set_value(command);
  return task;
}

// The text of `file` in the newest run of executor `executorId`.
std::string sandboxFile(const std::string& workDir, const std::string& executorId,
                        const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code error;
  for (const auto& entry : fs::recursive_directory_iterator(workDir, error)) {
    const fs::path& path = entry.path();
    if (path.filename() == "latest" && path.parent_path().filename() == "runs" &&
        path.parent_path().parent_path().filename() == executorId) {
      std::ifstream in(path / file);
      return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
  }
  return "";
}

// The command task's shell and its background child, written to the FIFO.
std::string reportingSleeper(const PidChannel& channel) {
  return "sleep 1000 & echo $$ $! > " + channel.path() + "; wait";
}

TEST(TeardownTest, StoppedSlaveKillsItsCommandTaskAndTheTaskChildren) {
  TestCluster cluster;
  size_t slave = cluster.startSlave();
  PidChannel channel;
  RecordingScheduler scheduler;
  launchOnce(scheduler, [&](const Offer& offer) {
    return std::vector<TaskInfo>{commandTask(offer, "sleeper", reportingSleeper(channel))};
  });
  MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster.masterAddress(), true,
                              &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  ASSERT_TRUE(scheduler.awaitStatus("sleeper", TASK_RUNNING));
  std::vector<pid_t> pids = channel.read();
  ASSERT_EQ(pids.size(), 2u);
  ProcessWatch shell(pids[0]);
  ProcessWatch child(pids[1]);
  ASSERT_TRUE(shell.running());
  ASSERT_TRUE(child.running());

  cluster.stopSlave(slave);

  EXPECT_TRUE(shell.awaitEnd()) << "the task's shell " << shell.pid() << " survived its slave";
  EXPECT_TRUE(child.awaitEnd()) << "the task's child " << child.pid() << " survived its slave";
  EXPECT_TRUE(shell.awaitGone());
  EXPECT_TRUE(child.awaitGone());
  // The command executor took the slave's SIGTERM as an order to kill its
  // task and exit, rather than dying on it.
  EXPECT_NE(sandboxFile(cluster.workDir(), "sleeper", "stderr").find("killing the task and exiting"),
            std::string::npos);
  driver.stop();
  driver.join();
}

TEST(TeardownTest, DestroyedClusterLeavesNoTaskProcessBehind) {
  auto cluster = std::make_unique<TestCluster>();
  cluster->startSlave();
  // The framework's end must not shut the executor down first: what is
  // tested is the cluster's destruction with the task still running.
  cluster->runtime().hooks().drop<internal::ShutdownFrameworkMessage>();
  PidChannel channel;
  RecordingScheduler scheduler;
  launchOnce(scheduler, [&](const Offer& offer) {
    return std::vector<TaskInfo>{commandTask(offer, "sleeper", reportingSleeper(channel))};
  });
  std::vector<pid_t> pids;
  {
    MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster->masterAddress(), true,
                                &cluster->runtime());
    ASSERT_EQ(DRIVER_RUNNING, driver.start());
    ASSERT_TRUE(scheduler.awaitStatus("sleeper", TASK_RUNNING));
    pids = channel.read();
    driver.stop();
    driver.join();
  }
  ASSERT_EQ(pids.size(), 2u);
  ProcessWatch shell(pids[0]);
  ProcessWatch child(pids[1]);
  ASSERT_TRUE(shell.running());
  ASSERT_TRUE(child.running());

  cluster.reset();

  EXPECT_TRUE(shell.awaitEnd()) << "the task's shell " << shell.pid() << " survived the cluster";
  EXPECT_TRUE(child.awaitEnd()) << "the task's child " << child.pid() << " survived the cluster";
  EXPECT_TRUE(shell.awaitGone());
  EXPECT_TRUE(child.awaitGone());
}

TEST(TeardownTest, ProcessesIgnoringSigtermInTheirOwnSessionGetSigkill) {
  TestCluster cluster;
  size_t slave = cluster.startSlave("cpus:2;mem:1024;disk:1024;ports:[31000-31100]",
                                    {"--executor_shutdown_grace_period=200ms"});
  PidChannel channel;
  RecordingScheduler scheduler;
  // An executor that never registers, ignores SIGTERM, and starts a child in
  // a session of its own (which ignores SIGTERM too).
  launchOnce(scheduler, [&](const Offer& offer) {
    return std::vector<TaskInfo>{customExecutorTask(
        offer, "stubborn",
        "trap '' TERM; setsid sleep 1000 & echo $$ $! > " + channel.path() + "; wait")};
  });
  MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster.masterAddress(), true,
                              &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  std::vector<pid_t> pids = channel.read();
  ASSERT_EQ(pids.size(), 2u);
  ProcessWatch executor(pids[0]);
  ProcessWatch escaped(pids[1]);
  ASSERT_TRUE(executor.running());
  ASSERT_TRUE(escaped.running());
  // The child made its own session before the slave is stopped.
  auto sessionOf = [](pid_t pid) { return ::getsid(pid); };
  const auto deadline = std::chrono::steady_clock::now() + kBound;
  while (sessionOf(escaped.pid()) != escaped.pid() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(sessionOf(escaped.pid()), escaped.pid());

  cluster.stopSlave(slave);

  EXPECT_TRUE(executor.awaitEnd()) << "the executor " << executor.pid() << " survived";
  EXPECT_TRUE(escaped.awaitEnd()) << "the executor's child " << escaped.pid() << " survived";
  EXPECT_TRUE(escaped.awaitGone());
  driver.stop();
  driver.join();
}

TEST(TeardownTest, ExitedExecutorTakesWhatItLeftRunningAlong) {
  TestCluster cluster;
  cluster.startSlave();
  PidChannel channel;
  RecordingScheduler scheduler;
  // The executor starts a process and exits at once, without registering.
  launchOnce(scheduler, [&](const Offer& offer) {
    return std::vector<TaskInfo>{customExecutorTask(
        offer, "leaver", "sleep 1000 & echo $! > " + channel.path() + "; exit 0")};
  });
  MesosSchedulerDriver driver(&scheduler, frameworkInfo(), cluster.masterAddress(), true,
                              &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  std::vector<pid_t> pids = channel.read();
  ASSERT_EQ(pids.size(), 1u);
  ProcessWatch leftover(pids[0]);

  // The slave reports the task once the executor is gone; by then it has
  // killed what the executor left.
  ASSERT_TRUE(scheduler.await([](const RecordingScheduler::Event& event) {
    return event.kind == "status" && event.status.task_id().value() == "leaver" &&
           (event.status.state() == TASK_LOST || event.status.state() == TASK_FAILED);
  }));
  EXPECT_TRUE(leftover.awaitEnd()) << "process " << leftover.pid() << " outlived its executor";
  EXPECT_TRUE(leftover.awaitGone());
  driver.stop();
  driver.join();
}

}  // namespace
}  // namespace mesos::test
