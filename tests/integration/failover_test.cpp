// Hot-standby masters as operators run them: a real ZooKeeper, masters and
// slaves as separate processes, a framework on the scheduler driver, and
// the faults that matter: kill -9 of the leader (twenty times in a row), a
// leader stopped past its session timeout that wakes up (split brain), a
// ZooKeeper ensemble losing its leader, a slave and a standby whose
// sessions expire, and a master started while ZooKeeper is down.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/processes.hpp"

#include "messages.pb.h"
#include "process/runtime.hpp"
#include "support/cluster.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"
#include "support/peer.hpp"
#include "support/zookeeper_server.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using namespace mesos::internal;

// The pid of the process whose command line contains `marker`, or 0.
pid_t findProcess(const std::string& marker) {
  // The outermost match: a task's shell may have a subshell (same command
  // line) for a while, and a scan may see either first.
  std::map<pid_t, pid_t> matches;  // pid -> parent
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream file(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(marker) == std::string::npos || cmdline.find("sh") != 0) continue;
    pid_t pid = static_cast<pid_t>(std::stol(name));
    auto process = mesos::internal::readProcess(pid);
    if (process) matches[pid] = process->ppid;
  }
  for (const auto& [pid, parent] : matches) {
    if (matches.count(parent) == 0) return pid;
  }
  return 0;
}

// Whether every thread of `pid` is stopped (state T in /proc).
bool stopped(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code error;
  size_t threads = 0;
  for (const auto& entry : std::filesystem::directory_iterator(tasks, error)) {
    std::ifstream file(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] != 'T') {
      return false;
    }
    threads++;
  }
  return !error && threads > 0;
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    count++;
  }
  return count;
}

class FailoverTest : public DaemonsFixture {
 protected:
  struct MasterProcess {
    pid_t pid = -1;
    process::Address address;
    std::string log;
  };

  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    if (std::string why = ZooKeeperServers::unavailable(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_TRUE(zk_.start()) << zk_.error();
    url_ = "zk://" + zk_.connectString() + "/mesos";
  }

  // Starts a master contending through ZooKeeper; waits until it listens.
  MasterProcess startMaster(const std::vector<std::string>& extra = {},
                            const std::string& sessionTimeout = "1secs") {
    MasterProcess m;
    m.address = process::Address{0x7f000001, freePort()};
    m.log = "master" + std::to_string(++masters_);
    std::vector<std::string> args = {MESOS_MASTER_PATH,
                                     "--ip=127.0.0.1",
                                     "--port=" + std::to_string(m.address.port),
                                     "--zk=" + url_,
                                     "--zk_session_timeout=" + sessionTimeout,
                                     "--allocation_settle_delay=200ms",
                                     "--allocation_interval=200ms"};
    args.insert(args.end(), extra.begin(), extra.end());
    m.pid = start(args, m.log);
    EXPECT_TRUE(waitUntil([&] { return connectable(m.address); }, 30s, m.pid))
        << "master did not listen within 30 s:\n" << log(m);
    return m;
  }

  std::string log(const MasterProcess& m) { return readFile(dir_ + "/" + m.log + ".log"); }

  pid_t startZkSlave(const std::string& name, const std::vector<std::string>& extra = {}) {
    std::string launcherDir = std::filesystem::path(MESOS_EXECUTOR_PATH).parent_path().string();
    std::vector<std::string> args = {MESOS_SLAVE_PATH,
                                     "--master=" + url_,
                                     "--ip=127.0.0.1",
                                     "--port=" + std::to_string(freePort()),
                                     "--work_dir=" + dir_ + "/" + name,
                                     "--launcher_dir=" + launcherDir,
                                     "--registration_backoff_factor=100ms",
                                     "--resources=cpus:4;mem:2048;disk:1024"};
    args.insert(args.end(), extra.begin(), extra.end());
    return start(args, name);
  }

  // The id of the ZooKeeper session a daemon's log says it last connected
  // ("0x..."), or "".
  static std::string sessionOf(const std::string& log) {
    const std::string prefix = "ZooKeeper session ";
    size_t at = log.rfind(prefix);
    while (at != std::string::npos) {
      size_t end = log.find(' ', at + prefix.size());
      if (end != std::string::npos && log.compare(end, 10, " connected") == 0) {
        return log.substr(at + prefix.size(), end - at - prefix.size());
      }
      if (at == 0) break;
      at = log.rfind(prefix, at - 1);
    }
    return "";
  }

  // Waits until the ZooKeeper server no longer has a connection of the
  // session `id` (it expired it).
  bool awaitSessionGone(ZooKeeperServers& servers, const std::string& id) {
    return waitUntil(
        [&] { return servers.command(0, "cons").find("sid=" + id) == std::string::npos; }, 30s);
  }

  static bool leads(const MasterProcess& m) { return metric(m.address, "master/elected") == 1; }

  // Waits until `m` leads.
  bool awaitLeader(const MasterProcess& m, std::chrono::seconds bound = 30s) {
    return waitUntil([&] { return leads(m); }, bound, m.pid);
  }

  // Kills `m` with SIGKILL and reaps it.
  void kill9(MasterProcess& m) {
    ::kill(m.pid, SIGKILL);
    EXPECT_EQ(128 + SIGKILL, waitForExit(m.pid, 30s));
    reaped(m.pid);
  }

  ZooKeeperServers zk_{1};
  std::string url_;
  int masters_ = 0;
};

// kill -9 of the leader, twenty times: the standby takes over each time,
// the slaves and the framework come back to it, every task keeps running
// in the same process, the update of a task that finished while no master
// led arrives, and nothing is lost.
TEST_F(FailoverTest, LeaderKilledTwentyTimesLosesNothing) {
  constexpr int kKills = 20;
  constexpr int kTasks = kKills + 2;
  std::vector<MasterProcess> masters = {startMaster(), startMaster()};
  int leader = -1;
  ASSERT_TRUE(waitUntil(
      [&] {
        for (int i = 0; i < 2; ++i) {
          if (leads(masters[i])) leader = i;
        }
        return leader >= 0;
      },
      30s))
      << "no master was elected within 30 s";
  startZkSlave("slave1");
  startZkSlave("slave2");
  ASSERT_TRUE(waitUntil(
      [&] { return metric(masters[leader].address, "master/slaves_active") == 2; }, 30s))
      << "the slaves did not register within 30 s";

  // Each task waits for a line on its own FIFO, so the test decides when
  // it finishes.
  for (int i = 0; i < kTasks; ++i) {
    ASSERT_EQ(0, ::mkfifo((dir_ + "/fifo-" + std::to_string(i)).c_str(), 0600));
  }
  ::setenv("MESOS_REGISTRATION_BACKOFF_FACTOR", "200ms", 1);
  auto runtime = std::move(process::Runtime::create({})).value();
  RecordingScheduler scheduler;
  auto launched = std::make_shared<int>(0);
  const std::string dir = dir_;
  scheduler.onOffers = [launched, dir](SchedulerDriver* driver, const std::vector<Offer>& offers) {
    for (const Offer& offer : offers) {
      std::vector<TaskInfo> tasks;
      Resources left(offer.resources());
      Resources each = Resources::parse("cpus:0.1;mem:32").value();
      while (*launched < kTasks && left.contains(each)) {
        std::string id = std::to_string((*launched)++);
        tasks.push_back(commandTask(offer, id, "read line < " + dir + "/fifo-" + id));
        left -= each;
      }
      if (tasks.empty()) {
        driver->declineOffer(offer.id());
      } else {
        driver->launchTasks(offer.id(), tasks);
      }
    }
  };
  FrameworkInfo framework;
  framework.set_user("");
  framework.set_name("failover");
  framework.set_failover_timeout(3600);
  MesosSchedulerDriver driver(&scheduler, framework, url_, true, runtime.get());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  ASSERT_TRUE(scheduler.awaitKind("registered"));
  const std::string frameworkId = scheduler.frameworkId().value();
  std::map<int, pid_t> pids;  // task -> its shell
  for (int i = 0; i < kTasks; ++i) {
    ASSERT_TRUE(scheduler.awaitStatus(std::to_string(i), TASK_RUNNING)) << "task " << i;
    ASSERT_TRUE(waitUntil([&] { return (pids[i] = findProcess("/fifo-" + std::to_string(i))) > 0; },
                          30s))
        << "no process for task " << i;
  }

  for (int k = 0; k < kKills; ++k) {
    SCOPED_TRACE("kill " + std::to_string(k + 1));
    int standby = 1 - leader;
    kill9(masters[leader]);
    // Task k finishes while no master leads: its update must still come.
    int fifo = ::open((dir_ + "/fifo-" + std::to_string(k)).c_str(), O_WRONLY | O_NONBLOCK);
    ASSERT_GE(fifo, 0) << "task " << k << " is not reading its FIFO";
    ASSERT_EQ(1, ::write(fifo, "\n", 1));
    ::close(fifo);
    ASSERT_TRUE(awaitLeader(masters[standby])) << "the standby did not take over:\n"
                                               << log(masters[standby]);
    masters[leader] = startMaster();  // a supervisor restarts the killed one
    leader = standby;
    ASSERT_TRUE(scheduler.awaitStatus(std::to_string(k), TASK_FINISHED))
        << "the update sent during the gap did not arrive";
    ASSERT_TRUE(waitUntil(
        [&] {
          return metric(masters[leader].address, "master/slaves_active") == 2 &&
                 metric(masters[leader].address, "master/frameworks_active") == 1 &&
                 metric(masters[leader].address, "master/tasks_running") == kTasks - k - 1;
        },
        30s))
        << "the new leader did not get every slave, the framework and its tasks back";
    for (int i = k + 1; i < kTasks; ++i) {
      ASSERT_EQ(pids[i], findProcess("/fifo-" + std::to_string(i)))
          << "task " << i << " does not run in the same process any more";
    }
  }

  // The framework kept its id, re-registered after every failover, and no
  // task ended other than the ones the test finished.
  EXPECT_EQ(frameworkId, scheduler.frameworkId().value());
  auto reregistered = scheduler.await(
      [&](const RecordingScheduler::Event& e) { return e.kind == "reregistered"; }, 1s);
  EXPECT_TRUE(reregistered.has_value());
  auto bad = scheduler.await(
      [](const RecordingScheduler::Event& e) {
        return e.kind == "status" && e.status.state() != TASK_RUNNING &&
               e.status.state() != TASK_FINISHED && e.status.state() != TASK_STARTING;
      },
      100ms);
  EXPECT_FALSE(bad.has_value()) << "task " << bad->status.task_id().value() << " became "
                                << TaskState_Name(bad->status.state()) << ": "
                                << bad->status.message();
  for (int i = kKills; i < kTasks; ++i) {
    int fifo = ::open((dir_ + "/fifo-" + std::to_string(i)).c_str(), O_WRONLY | O_NONBLOCK);
    if (fifo >= 0) {
      (void)!::write(fifo, "\n", 1);
      ::close(fifo);
    }
    EXPECT_TRUE(scheduler.awaitStatus(std::to_string(i), TASK_FINISHED));
  }
  driver.stop();
  driver.join();
  ::unsetenv("MESOS_REGISTRATION_BACKOFF_FACTOR");
}

// The peers of a split-brain check: a slave and a framework that register
// with the leader by hand and record every message they get.
struct Spy {
  std::unique_ptr<process::Runtime> runtime = std::move(process::Runtime::create({})).value();
  process::Spawned<Peer> slave;
  process::Spawned<Peer> framework;

  Spy() {
    auto s = std::make_unique<Peer>("slave(1)");
    s->accept<SlaveRegisteredMessage, SlaveReregisteredMessage, RunTaskMessage, KillTaskMessage,
              PingSlaveMessage, ShutdownMessage, ShutdownFrameworkMessage,
              StatusUpdateAcknowledgementMessage, UpdateFrameworkMessage>();
    slave = runtime->spawn(std::move(s));
    auto f = std::make_unique<Peer>("scheduler(1)");
    f->accept<FrameworkRegisteredMessage, FrameworkReregisteredMessage, ResourceOffersMessage,
              RescindResourceOfferMessage, StatusUpdateMessage, LostSlaveMessage,
              FrameworkErrorMessage, ExitedExecutorMessage>();
    framework = runtime->spawn(std::move(f));
  }

  size_t received() {
    return slave->count<SlaveRegisteredMessage>() + slave->count<SlaveReregisteredMessage>() +
           slave->count<RunTaskMessage>() + slave->count<KillTaskMessage>() +
           slave->count<PingSlaveMessage>() + slave->count<ShutdownMessage>() +
           slave->count<ShutdownFrameworkMessage>() +
           slave->count<StatusUpdateAcknowledgementMessage>() +
           slave->count<UpdateFrameworkMessage>() + framework->count<FrameworkRegisteredMessage>() +
           framework->count<FrameworkReregisteredMessage>() +
           framework->count<ResourceOffersMessage>() +
           framework->count<RescindResourceOfferMessage>() +
           framework->count<StatusUpdateMessage>() + framework->count<LostSlaveMessage>() +
           framework->count<FrameworkErrorMessage>() + framework->count<ExitedExecutorMessage>();
  }
};

// The leader is stopped (SIGSTOP) past its session timeout; the standby
// takes over; the framework meanwhile asked the stopped one to launch a
// task on an offer it held. When the old leader wakes up it must not send
// one message (no launch, no offer, no answer), and it exits with status 1.
TEST_F(FailoverTest, AStoppedLeaderThatWakesUpNeverActsAgain) {
  MasterProcess a = startMaster();
  ASSERT_TRUE(awaitLeader(a)) << log(a);
  MasterProcess b = startMaster();
  process::UPID leader("master", a.address);

  Spy spy;
  RegisterSlaveMessage registerSlave;
  registerSlave.mutable_slave()->set_hostname("spy");
  *registerSlave.mutable_slave()->mutable_resources() =
      Resources::parse("cpus:1;mem:128").value().proto();
  registerSlave.set_version("1.0.0");
  spy.slave->post(leader, registerSlave);
  ASSERT_TRUE(waitUntil([&] { return spy.slave->count<SlaveRegisteredMessage>() == 1; }, 30s));
  RegisterFrameworkMessage registerFramework;
  registerFramework.mutable_framework()->set_user("spy");
  registerFramework.mutable_framework()->set_name("spy");
  spy.framework->post(leader, registerFramework);
  ASSERT_TRUE(waitUntil([&] { return spy.framework->count<ResourceOffersMessage>() == 1; }, 30s))
      << "no offer from the leader";
  ResourceOffersMessage offers = spy.framework->received<ResourceOffersMessage>().front();
  ASSERT_EQ(1, offers.offers_size());
  const Offer& offer = offers.offers(0);

  ASSERT_EQ(0, ::kill(a.pid, SIGSTOP));
  // kill() returns before every thread has stopped; a busy machine leaves
  // the leader running a moment longer.
  ASSERT_TRUE(waitUntil([&] { return stopped(a.pid); }, 30s)) << "the leader did not stop";
  // What the framework asks of the stopped leader waits in its socket.
  LaunchTasksMessage launch;
  *launch.mutable_framework_id() = offer.framework_id();
  *launch.add_offer_ids() = offer.id();
  TaskInfo* task = launch.add_tasks();
  task->set_name("ghost");
  task->mutable_task_id()->set_value("ghost");
  *task->mutable_slave_id() = offer.slave_id();
  task->mutable_command()->set_value("true");
  *task->mutable_resources() = Resources::parse("cpus:0.5;mem:64").value().proto();
  spy.framework->post(leader, launch);
  ReviveOffersMessage revive;
  *revive.mutable_framework_id() = offer.framework_id();
  spy.framework->post(leader, revive);

  ASSERT_TRUE(awaitLeader(b)) << "the standby did not take over:\n" << log(b);
  spy.runtime->settle();
  const size_t before = spy.received();
  ASSERT_EQ(0, ::kill(a.pid, SIGCONT));
  EXPECT_EQ(1, waitForExit(a.pid, 30s)) << "the old leader did not exit with status 1";
  reaped(a.pid);
  // Whatever it wrote before exiting has arrived once its port is closed.
  ASSERT_TRUE(waitUntil([&] { return !connectable(a.address); }, 30s));
  spy.runtime->settle();
  EXPECT_EQ(before, spy.received()) << "the old leader sent messages after it woke up";
  EXPECT_EQ(0u, spy.slave->count<RunTaskMessage>()) << "the ghost task was launched";
  EXPECT_NE(std::string::npos, log(a).find("is no longer the leading master")) << log(a);
  EXPECT_TRUE(leads(b));
}

// A standby stopped past its session timeout comes back: it joins the
// group again behind the leader, and the leader carries on undisturbed.
TEST_F(FailoverTest, APartitionedStandbyComesBackWithoutDisturbingTheLeader) {
  MasterProcess a = startMaster();
  ASSERT_TRUE(awaitLeader(a));
  MasterProcess b = startMaster();
  pid_t slave = startZkSlave("slave");
  ASSERT_GT(slave, 0);
  ASSERT_TRUE(waitUntil([&] { return metric(a.address, "master/slaves_active") == 1; }, 30s));
  json::Value state = getJson(a.address, "/master/state");
  double elected = state["elected_time"].number();

  std::string session = sessionOf(log(b));
  ASSERT_FALSE(session.empty());
  ASSERT_EQ(0, ::kill(b.pid, SIGSTOP));
  ASSERT_TRUE(waitUntil([&] { return stopped(b.pid); }, 30s)) << "the standby did not stop";
  // Its session ends at the server after 1 s without a word.
  ASSERT_TRUE(awaitSessionGone(zk_, session)) << zk_.command(0, "cons");
  ASSERT_EQ(0, ::kill(b.pid, SIGCONT));
  ASSERT_TRUE(waitUntil([&] { return log(b).find("joining the masters' group again") !=
                                     std::string::npos; },
                        30s))
      << log(b);
  ASSERT_TRUE(waitUntil([&] { return getJson(b.address, "/master/state")["leader"].isString(); },
                        30s));
  EXPECT_EQ("master@127.0.0.1:" + std::to_string(a.address.port),
            getJson(b.address, "/master/state")["leader"].string());
  EXPECT_FALSE(leads(b));
  EXPECT_TRUE(leads(a));
  EXPECT_EQ(elected, getJson(a.address, "/master/state")["elected_time"].number());
  EXPECT_EQ(1, metric(a.address, "master/slaves_active"));
}

// A slave stopped past its ZooKeeper session timeout: its session expires,
// it finds the leader again and re-registers; its task keeps running.
TEST_F(FailoverTest, ASlaveWhoseSessionExpiresReregistersAndKeepsItsTasks) {
  MasterProcess a = startMaster();
  ASSERT_TRUE(awaitLeader(a));
  pid_t slave = startZkSlave("slave", {"--zk_session_timeout=1secs"});
  ASSERT_TRUE(waitUntil([&] { return metric(a.address, "master/slaves_active") == 1; }, 30s));
  const std::string marker = dir_ + "/running-task";
  pid_t execute = start({MESOS_EXECUTE_PATH, "--master=" + url_, "--name=survivor",
                         "--command=sleep 600 # " + marker, "--resources=cpus:0.1;mem:32"},
                        "execute");
  pid_t task = 0;
  ASSERT_TRUE(waitUntil([&] { return (task = findProcess(marker)) > 0; }, 30s, execute));
  ASSERT_TRUE(waitUntil([&] { return metric(a.address, "master/tasks_running") == 1; }, 30s));

  std::string session = sessionOf(readFile(dir_ + "/slave.log"));
  ASSERT_FALSE(session.empty());
  ASSERT_NE(std::string::npos, zk_.command(0, "cons").find("sid=" + session));
  ASSERT_EQ(0, ::kill(slave, SIGSTOP));
  // The server drops the session after 1 s without a word from the slave.
  ASSERT_TRUE(awaitSessionGone(zk_, session)) << zk_.command(0, "cons");
  ASSERT_EQ(0, ::kill(slave, SIGCONT));
  ASSERT_TRUE(waitUntil(
      [&] { return occurrences(readFile(dir_ + "/slave.log"), "Re-registered with master") >= 1; },
      30s))
      << readFile(dir_ + "/slave.log");
  EXPECT_NE(std::string::npos, readFile(dir_ + "/slave.log").find("expired"));
  EXPECT_EQ(task, findProcess(marker)) << "the task does not run in the same process any more";
  EXPECT_EQ(1, metric(a.address, "master/tasks_running"));
  EXPECT_EQ(0, metric(a.address, "master/tasks_lost"));
  ::kill(execute, SIGTERM);
  waitForExit(execute, 30s);
  reaped(execute);
}

// A ZooKeeper ensemble loses its leader: the masters carry on (the same
// one leads, the slave stays registered with it), and at no moment do two
// masters lead.
TEST_F(FailoverTest, AnEnsembleLosingItsLeaderKeepsOneLeadingMaster) {
  ZooKeeperServers ensemble(3);
  ASSERT_TRUE(ensemble.start()) << ensemble.error();
  url_ = "zk://" + ensemble.connectString() + "/mesos";
  // A session timeout longer than the ensemble takes to elect its leader.
  MasterProcess a = startMaster({}, "5secs");
  ASSERT_TRUE(awaitLeader(a));
  MasterProcess b = startMaster({}, "5secs");
  ASSERT_GT(startZkSlave("slave"), 0);
  ASSERT_TRUE(waitUntil([&] { return metric(a.address, "master/slaves_active") == 1; }, 30s));

  int zkLeader = ensemble.leader();
  ASSERT_GE(zkLeader, 0);
  ensemble.kill(zkLeader);
  // Sample both masters while the ensemble elects a new leader: a round
  // in which both claim to lead, both elected before the round began,
  // would be two masters acting at once.
  auto end = std::chrono::steady_clock::now() + 6s;
  int rounds = 0;
  while (std::chrono::steady_clock::now() < end) {
    double began = std::chrono::duration<double>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
    json::Value sa = getJson(a.address, "/master/state");
    json::Value sb = getJson(b.address, "/master/state");
    bool both = sa["elected_time"].isNumber() && sb["elected_time"].isNumber() &&
                sa["elected_time"].number() < began && sb["elected_time"].number() < began;
    ASSERT_FALSE(both) << "both masters led at once";
    rounds++;
  }
  EXPECT_GT(rounds, 10);
  // The leader carried on, with its slave; the standby still stands by.
  EXPECT_TRUE(leads(a)) << log(a);
  EXPECT_FALSE(leads(b));
  EXPECT_TRUE(waitUntil([&] { return metric(a.address, "master/slaves_active") == 1; }, 30s));
  EXPECT_EQ(std::string::npos, log(a).find("no longer the leading master")) << log(a);
}

// ZooKeeper down when the master starts: no crash, no leader, /state and
// /master/redirect say so; once ZooKeeper is back the master is elected.
TEST_F(FailoverTest, AMasterStartedWithoutZooKeeperWaitsForIt) {
  zk_.kill(0);
  MasterProcess a = startMaster();
  EXPECT_FALSE(getJson(a.address, "/master/state")["leader"].isString());
  std::string body;
  EXPECT_EQ(503, httpGet(a.address, "/master/redirect", &body)) << body;
  EXPECT_FALSE(leads(a));
  ASSERT_TRUE(zk_.restart(0));
  ASSERT_TRUE(awaitLeader(a)) << log(a);
  EXPECT_EQ("master@127.0.0.1:" + std::to_string(a.address.port),
            getJson(a.address, "/master/state")["leader"].string());
}

TEST_F(FailoverTest, AMalformedZooKeeperUrlIsOneLineAndStatusOne) {
  for (const char* url : {"zk://", "zk://127.0.0.1:notaport/mesos", "file:///no/such/file"}) {
    pid_t pid = startDaemon({MESOS_MASTER_PATH, "--zk=" + std::string(url)},
                            dir_ + "/bad.log");
    ASSERT_GT(pid, 0);
    EXPECT_EQ(1, waitForExit(pid, 30s)) << url;
    std::string said = readFile(dir_ + "/bad.log");
    EXPECT_NE(std::string::npos, said.find("--zk")) << said;
    ::unlink((dir_ + "/bad.log").c_str());
  }
  pid_t slave = startDaemon({MESOS_SLAVE_PATH, "--master=zk://", "--work_dir=" + dir_ + "/s"},
                            dir_ + "/bad.log");
  EXPECT_EQ(1, waitForExit(slave, 30s));
  EXPECT_NE(std::string::npos, readFile(dir_ + "/bad.log").find("--master")) << readFile(dir_ + "/bad.log");
}

}  // namespace
}  // namespace mesos::test
