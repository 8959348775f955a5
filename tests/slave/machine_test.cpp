// The slave's pieces that need no actor: resources and attributes of the
// machine, flags, the master address, paths, and launching and reaping
// processes.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "process/future.hpp"
#include "slave/flags.hpp"
#include "slave/containerizer/launcher.hpp"
#include "common/state_json.hpp"
#include "slave/machine.hpp"
#include "slave/paths.hpp"
#include "slave/reaper.hpp"
#include "common/processes.hpp"

namespace mesos::internal::slave {
namespace {

TEST(MachineTest, DetectsWhatTheResourcesFlagLeavesOut) {
  MachineFacts facts{8, 16384, 200000};
  auto all = slaveResources(std::nullopt, facts);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->scalar("cpus"), 8);
  EXPECT_EQ(all->scalar("mem"), 16384 - 1024);   // a reserve for the system
  EXPECT_EQ(all->scalar("disk"), 200000 - 5120);
  ASSERT_EQ(all->ranges("ports").range_size(), 1);
  EXPECT_EQ(all->ranges("ports").range(0).begin(), 31000u);
  EXPECT_EQ(all->ranges("ports").range(0).end(), 32000u);

  auto some = slaveResources(std::string("cpus:2;ports:[5000-5010]"), facts);
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(some->scalar("cpus"), 2);
  EXPECT_EQ(some->scalar("mem"), 16384 - 1024);
  EXPECT_EQ(json::formatRanges(some->ranges("ports")), "[5000-5010]");

  // Small machines keep half.
  auto small = slaveResources(std::nullopt, MachineFacts{1, 1000, 8000});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->scalar("mem"), 500);
  EXPECT_EQ(small->scalar("disk"), 4000);

  EXPECT_FALSE(slaveResources(std::string("cpus:lots"), facts).ok());
}

TEST(MachineTest, ResourcesKeepTheirRolesAndTheDefaultRoleTakesTheRest) {
  MachineFacts facts{8, 16384, 200000};
  auto given = slaveResources(std::string("cpus:2;cpus(prod):1;mem:1024"), facts);
  ASSERT_TRUE(given.ok()) << given.error().message;
  EXPECT_EQ(2, given->role("*").scalar("cpus"));
  EXPECT_EQ(1, given->role("prod").scalar("cpus"));
  EXPECT_EQ(1024, given->role("*").scalar("mem"));
  // cpus are named (under a role): not detected on top.
  EXPECT_EQ(3, given->scalar("cpus"));

  // --default_role: resources without a role, and detected ones, are
  // reserved for it; those with a role keep theirs.
  auto reserved = slaveResources(std::string("cpus:2;mem(*):512"), facts, "prod");
  ASSERT_TRUE(reserved.ok()) << reserved.error().message;
  EXPECT_EQ(2, reserved->role("prod").scalar("cpus"));
  EXPECT_EQ(512, reserved->role("*").scalar("mem"));
  EXPECT_EQ(0, reserved->role("prod").scalar("mem"));
  EXPECT_EQ(200000 - 5120, reserved->role("prod").scalar("disk"));
  EXPECT_EQ(1, reserved->role("prod").ranges("ports").range_size());

  // Invalid roles name the flag.
  for (const char* role : {"", ".", "-x", "a b", "a/b", "a(b"}) {
    auto bad = slaveResources(std::nullopt, facts, role);
    ASSERT_FALSE(bad.ok()) << "'" << role << "'";
    EXPECT_EQ(0u, bad.error().message.find("--default_role: ")) << bad.error().message;
  }
  auto badGiven = slaveResources(std::string("cpus(..):1"), facts);
  ASSERT_FALSE(badGiven.ok());
  EXPECT_EQ(0u, badGiven.error().message.find("--resources: ")) << badGiven.error().message;
}

TEST(MachineTest, MeasuresThisMachine) {
  MachineFacts facts = measureMachine("/tmp/does/not/exist/yet");
  EXPECT_GE(facts.cpus, 1);
  EXPECT_GT(facts.memMB, 0);
  EXPECT_GT(facts.diskMB, 0);
}

TEST(MachineTest, ParsesAttributes) {
  auto attributes = parseAttributes("rack:r1; cores:16;ports:[1-5,8-9];tags:{a,b}");
  ASSERT_TRUE(attributes.ok()) << attributes.error().message;
  ASSERT_EQ(attributes->size(), 4);
  EXPECT_EQ((*attributes)[0].type(), Value::TEXT);
  EXPECT_EQ((*attributes)[0].text().value(), "r1");
  EXPECT_EQ((*attributes)[1].type(), Value::SCALAR);
  EXPECT_EQ((*attributes)[1].scalar().value(), 16);
  EXPECT_EQ((*attributes)[2].type(), Value::RANGES);
  EXPECT_EQ(json::formatRanges((*attributes)[2].ranges()), "[1-5, 8-9]");
  EXPECT_EQ((*attributes)[3].type(), Value::SET);
  EXPECT_EQ((*attributes)[3].set().item_size(), 2);

  EXPECT_FALSE(parseAttributes("rack").ok());
  EXPECT_FALSE(parseAttributes("rack:").ok());
  EXPECT_FALSE(parseAttributes("r:[5-1]").ok());
}

TEST(SlaveFlagsTest, DefaultsAndErrors) {
  Flags flags;
  EXPECT_EQ(flags.port, 5051);
  EXPECT_EQ(flags.work_dir, "/tmp/mesos");
  EXPECT_EQ(flags.isolation, "posix/cpu,posix/mem");
  EXPECT_EQ(flags.executor_shutdown_grace_period, std::chrono::seconds(5));
  EXPECT_EQ(flags.executor_registration_timeout, std::chrono::minutes(1));
  EXPECT_EQ(flags.registration_backoff_factor, std::chrono::seconds(1));

  const char* good[] = {"mesos-slave", "--master=127.0.0.1:5050", "--port=5099",
                        "--executor_shutdown_grace_period=3secs", "--attributes=rack:a"};
  ASSERT_TRUE(flags.load("MESOS_TEST_UNSET_", 5, good).ok());
  EXPECT_EQ(flags.port, 5099);
  EXPECT_EQ(flags.executor_shutdown_grace_period, std::chrono::seconds(3));
  EXPECT_EQ(*flags.attributes, "rack:a");

  Flags bad;
  const char* isolation[] = {"mesos-slave", "--isolation=posix/cpu,nosuch/thing"};
  auto result = bad.load("MESOS_TEST_UNSET_", 2, isolation);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("--isolation"), std::string::npos);

  Flags fromEnv;
  ::setenv("MESOS_TEST_SLAVE_WORK_DIR", "/var/tmp/x", 1);
  const char* none[] = {"mesos-slave"};
  ASSERT_TRUE(fromEnv.load("MESOS_TEST_SLAVE_", 1, none).ok());
  ::unsetenv("MESOS_TEST_SLAVE_WORK_DIR");
  EXPECT_EQ(fromEnv.work_dir, "/var/tmp/x");
}

TEST(SlaveFlagsTest, ContainerizersAndTheDockerFlags) {
  Flags defaults;
  EXPECT_EQ(defaults.containerizers, "mesos");
  EXPECT_EQ(defaults.docker, "docker");
  EXPECT_EQ(defaults.docker_socket, "/var/run/docker.sock");
  EXPECT_EQ(defaults.docker_stop_timeout, std::chrono::nanoseconds(0));
  EXPECT_EQ(defaults.docker_remove_delay, std::chrono::hours(6));
  EXPECT_TRUE(defaults.docker_kill_orphans);

  Flags both;
  const char* good[] = {"mesos-slave", "--containerizers=docker,mesos",
                        "--docker_socket=/run/other.sock", "--docker_stop_timeout=10secs",
                        "--docker_remove_delay=1mins", "--no-docker_kill_orphans"};
  auto loaded = both.load("MESOS_TEST_UNSET_", 6, good);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ((std::vector<std::string>{"docker", "mesos"}), both.containerizerList());
  EXPECT_EQ(both.docker_stop_timeout, std::chrono::seconds(10));
  EXPECT_EQ(both.docker_remove_delay, std::chrono::minutes(1));
  EXPECT_FALSE(both.docker_kill_orphans);

  for (const char* bad : {"--containerizers=lxc", "--containerizers=mesos,mesos",
                          "--containerizers=", "--docker_socket=relative.sock",
                          "--docker_stop_timeout=-1secs"}) {
    Flags flags;
    const char* argv[] = {"mesos-slave", bad};
    auto result = flags.load("MESOS_TEST_UNSET_", 2, argv);
    ASSERT_FALSE(result.ok()) << bad;
    const std::string name = std::string(bad).substr(0, std::string(bad).find('='));
    EXPECT_NE(result.error().message.find(name), std::string::npos) << result.error().message;
  }
}

TEST(SlaveFlagsTest, ParsesTheMasterAddress) {
  auto plain = parseMaster("127.0.0.1:5050");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->toString(), "master@127.0.0.1:5050");
  auto full = parseMaster("master@10.1.2.3:6000");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->toString(), "master@10.1.2.3:6000");
  auto named = parseMaster("localhost:5050");
  ASSERT_TRUE(named.ok()) << named.error().message;
  EXPECT_EQ(named->address.port, 5050);
  EXPECT_FALSE(parseMaster("zk://127.0.0.1:2181/mesos").ok());
  EXPECT_FALSE(parseMaster("no-port").ok());
  EXPECT_FALSE(parseMaster("127.0.0.1:99999").ok());
}

TEST(PathsTest, SandboxesNestUnderTheWorkDirectory) {
  char pattern[] = "/tmp/mesos-paths-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  std::string workDir = pattern;
  SlaveID slave;
  slave.set_value("S1");
  FrameworkID framework;
  framework.set_value("F1");
  ExecutorID executor;
  executor.set_value("e1");
  ContainerID container;
  container.set_value("c1");
  auto created = createSandbox(workDir, slave, framework, executor, container);
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(*created, workDir + "/slaves/S1/frameworks/F1/executors/e1/runs/c1");
  EXPECT_TRUE(std::filesystem::is_directory(*created));
  EXPECT_EQ(std::filesystem::read_symlink(workDir + "/slaves/S1/frameworks/F1/executors/e1/runs/latest"),
            *created);

  executor.set_value("../../escape");
  EXPECT_FALSE(createSandbox(workDir, slave, framework, executor, container).ok());
  executor.set_value("..");
  EXPECT_FALSE(createSandbox(workDir, slave, framework, executor, container).ok());
  std::filesystem::remove_all(workDir);
}

TEST(LauncherTest, LaunchesInANewSessionAndReapsTheExit) {
  char pattern[] = "/tmp/mesos-launcher-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  std::string dir = pattern;

  PosixLauncher launcher;
  LaunchSpec spec;
  spec.command.set_value("echo $GREETING; pwd; ps -o sid= -p $$ | tr -d ' ' >&2; exit 4");
  spec.directory = dir;
  spec.environment = {{"GREETING", "hi"}, {"PATH", "/usr/bin:/bin"}};
  spec.stdoutPath = dir + "/stdout";
  spec.stderrPath = dir + "/stderr";
  auto pid = launcher.launch(spec);
  ASSERT_TRUE(pid.ok()) << pid.error().message;

  auto promise = std::make_shared<process::Promise<int>>();
  Reaper::instance().watch(*pid, [promise](int status) { promise->set(status); });
  auto status = promise->future();
  ASSERT_TRUE(status.await(std::chrono::seconds(30)));
  EXPECT_TRUE(WIFEXITED(status.get()));
  EXPECT_EQ(WEXITSTATUS(status.get()), 4);
  EXPECT_EQ(describeWaitStatus(status.get()), "exited with status 4");

  std::ifstream out(dir + "/stdout");
  std::stringstream text;
  text << out.rdbuf();
  EXPECT_EQ(text.str(), "hi\n" + dir + "\n");
  std::ifstream err(dir + "/stderr");
  std::string sid;
  err >> sid;
  EXPECT_EQ(sid, std::to_string(*pid));  // it leads its own session
  std::filesystem::remove_all(dir);
}

TEST(LauncherTest, KillsTheWholeProcessGroup) {
  char pattern[] = "/tmp/mesos-launcher-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  std::string dir = pattern;
  // The child reports its background grandchild's pid through a FIFO.
  std::string fifo = dir + "/out";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);

  PosixLauncher launcher;
  LaunchSpec spec;
  spec.command.set_value("sleep 100 & echo $!; wait");
  spec.directory = dir;
  spec.environment = {{"PATH", "/usr/bin:/bin"}};
  spec.stdoutPath = fifo;
  spec.stderrPath = "/dev/null";
  auto pid = launcher.launch(spec);
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  auto promise = std::make_shared<process::Promise<int>>();
  Reaper::instance().watch(*pid, [promise](int status) { promise->set(status); });

  ::fcntl(reader, F_SETFL, 0);  // blocking: wait for the line
  std::string line;
  char c;
  while (::read(reader, &c, 1) == 1 && c != '\n') line += c;
  ::close(reader);
  pid_t grandchild = std::stoi(line);

  launcher.kill(*pid, SIGKILL);
  auto status = promise->future();
  ASSERT_TRUE(status.await(std::chrono::seconds(30)));
  EXPECT_TRUE(WIFSIGNALED(status.get()));
  EXPECT_EQ(WTERMSIG(status.get()), SIGKILL);
  // The grandchild got the signal too: it terminates (its pidfd turns readable).
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, grandchild, 0));
  if (pidfd >= 0) {
    pollfd watch{pidfd, POLLIN, 0};
    EXPECT_EQ(::poll(&watch, 1, 30000), 1) << "process " << grandchild << " survived";
    ::close(pidfd);
  }
  std::filesystem::remove_all(dir);
}

TEST(LauncherTest, FailsClearlyWhenTheProgramIsMissing) {
  PosixLauncher launcher;
  LaunchSpec spec;
  spec.command.set_shell(false);
  spec.command.set_value("/no/such/program");
  spec.directory = "/tmp";
  spec.stdoutPath = "/dev/null";
  spec.stderrPath = "/dev/null";
  auto pid = launcher.launch(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_NE(pid.error().message.find("/no/such/program"), std::string::npos);
}

TEST(ReaperTest, WatchesAProcessThatIsNotItsChildUntilItEnds) {
  // A grandchild, as a restarted slave's executors are: not ours to reap.
  int fds[2];
  ASSERT_EQ(0, ::pipe(fds));
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pid_t grandchild = ::fork();
    if (grandchild == 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      ::execl("/bin/sleep", "sleep", "60", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    (void)!::write(fds[1], &grandchild, sizeof(grandchild));
    ::_exit(0);
  }
  ::close(fds[1]);
  pid_t grandchild = -1;
  ASSERT_EQ(static_cast<ssize_t>(sizeof(grandchild)), ::read(fds[0], &grandchild, sizeof(grandchild)));
  ::close(fds[0]);
  ASSERT_EQ(child, ::waitpid(child, nullptr, 0));

  auto promise = std::make_shared<process::Promise<int>>();
  Reaper::instance().watch(grandchild, [promise](int status) { promise->set(status); });
  auto status = promise->future();
  EXPECT_FALSE(status.await(std::chrono::milliseconds(300))) << "reported while it still runs";
  ASSERT_EQ(0, ::kill(grandchild, SIGKILL));
  ASSERT_TRUE(status.await(std::chrono::seconds(30))) << "its end was not reported";
  EXPECT_EQ(-1, status.get());  // not ours: the status is unknown
  EXPECT_EQ("exited with an unknown status", describeWaitStatus(status.get()));
}

TEST(ProcessesTest, AProcessStartTimeNamesItAcrossReads) {
  auto self = readProcess(::getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_GT(self->startTicks, 0u);
  EXPECT_EQ(self->startTicks, readProcess(::getpid())->startTicks);
  auto parent = readProcess(::getppid());
  ASSERT_TRUE(parent.has_value());
  EXPECT_LE(parent->startTicks, self->startTicks);
}

}  // namespace
}  // namespace mesos::internal::slave
