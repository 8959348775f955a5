// Advertised addresses with the daemons as separate processes: a master or
// slave listening on every interface (--ip=0.0.0.0) puts a reachable
// address in its pid (--advertise_ip, or this host's address), and a
// scheduler driver does the same under LIBPROCESS_IP /
// LIBPROCESS_ADVERTISE_IP. Real processes, so waits have generous real-time
// bounds.
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "process/runtime.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

const process::Address kLoopback{0x7f000001, 0};

process::Address loopback(uint16_t port) { return {kLoopback.ip, port}; }

class AdvertiseTest : public DaemonsFixture {
 protected:
  // Starts mesos-master on a free port with `flags`, its output in
  // <dir>/master.log, and waits until /master/state answers on loopback.
  uint16_t startMaster(const std::vector<std::string>& flags) {
    uint16_t port = freePort();
    std::vector<std::string> args = {MESOS_MASTER_PATH, "--port=" + std::to_string(port)};
    args.insert(args.end(), flags.begin(), flags.end());
    pid_t pid = start(args, "master");
    bool up = waitUntil([&] { return state(port).isObject(); }, 30s, pid);
    EXPECT_TRUE(up) << "the master did not answer /master/state within 30 s:\n" << log("master");
    return port;
  }

  // Starts mesos-slave on a free port registering with the master at
  // `masterIp`:`masterPort`, its output in <dir>/<name>.log. Besides cpus,
  // mem and disk it has one `<name>` (so that a task can ask for it).
  uint16_t startSlave(const std::string& name, uint16_t masterPort,
                      const std::vector<std::string>& flags,
                      const std::string& masterIp = "127.0.0.1") {
    uint16_t port = freePort();
    std::string launcherDir = std::filesystem::path(MESOS_EXECUTOR_PATH).parent_path().string();
    std::vector<std::string> args = {
        MESOS_SLAVE_PATH, "--master=" + masterIp + ":" + std::to_string(masterPort),
        "--port=" + std::to_string(port), "--work_dir=" + dir_ + "/" + name,
        "--resources=cpus:2;mem:512;disk:512;" + name + ":1", "--launcher_dir=" + launcherDir};
    args.insert(args.end(), flags.begin(), flags.end());
    start(args, name);
    return port;
  }

  json::Value state(uint16_t masterPort) { return getJson(loopback(masterPort), "/master/state"); }

  // Waits until the master counts `count` registered slaves.
  bool slavesRegister(uint16_t masterPort, size_t count) {
    return waitUntil(
        [&] {
          json::Value slaves = state(masterPort)["slaves"];
          return slaves.isArray() && slaves.array().size() == count;
        },
        30s);
  }

  std::string log(const std::string& name) { return readFile(dir_ + "/" + name + ".log"); }
};

std::string pidOf(const json::Value& object) {
  return object["pid"].isString() ? object["pid"].string() : "";
}

TEST_F(AdvertiseTest, MasterOnEveryInterfaceAdvertisesTheGivenAddress) {
  uint16_t port = startMaster({"--ip=0.0.0.0", "--advertise_ip=127.0.0.1"});
  json::Value master = state(port);
  std::string expected = "master@127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(expected, pidOf(master));
  EXPECT_EQ(expected, master["leader"].isString() ? master["leader"].string() : "");

  startSlave("slave", port, {"--ip=127.0.0.1"});
  ASSERT_TRUE(slavesRegister(port, 1)) << "the slave did not register within 30 s:\n"
                                       << log("slave");
  EXPECT_EQ(0u, pidOf(state(port)["slaves"].array()[0]).find("slave(1)@127.0.0.1:"));
}

TEST_F(AdvertiseTest, AdvertisedPortIsTheOneInThePid) {
  uint16_t advertised = freePort();
  uint16_t port = startMaster({"--ip=127.0.0.1", "--advertise_port=" + std::to_string(advertised)});
  EXPECT_EQ("master@127.0.0.1:" + std::to_string(advertised), pidOf(state(port)));
  std::string advertising = "advertising 127.0.0.1:" + std::to_string(advertised);
  EXPECT_NE(std::string::npos, log("master").find(advertising))
      << log("master");
}

TEST_F(AdvertiseTest, MasterOnEveryInterfaceWithoutAdvertiseIpAdvertisesThisHost) {
  uint16_t port = startMaster({"--ip=0.0.0.0"});
  process::Runtime::HostAddress host = process::Runtime::hostAddress();
  std::string address = host.ip + ":" + std::to_string(port);
  EXPECT_EQ("master@" + address, pidOf(state(port)));
  EXPECT_NE(std::string::npos, log("master").find("Listening on 0.0.0.0:" + std::to_string(port) +
                                                  " (every interface) and advertising " +
                                                  address + ", " + host.source))
      << log("master");

  // Peers reach it at the address it advertises.
  startSlave("slave", port, {"--ip=127.0.0.1"}, host.ip);
  EXPECT_TRUE(slavesRegister(port, 1)) << "the slave did not register within 30 s:\n"
                                       << log("slave");
}

TEST_F(AdvertiseTest, SlaveOnEveryInterfaceAdvertisesAReachableAddressAndRunsTasks) {
  uint16_t masterPort = startMaster({"--ip=127.0.0.1"});
  uint16_t chosen = startSlave("chosen", masterPort, {"--ip=0.0.0.0"});
  uint16_t given = startSlave("given", masterPort, {"--ip=0.0.0.0", "--advertise_ip=127.0.0.1"});
  ASSERT_TRUE(slavesRegister(masterPort, 2))
      << "the slaves did not register within 30 s:\n" << log("chosen") << log("given");

  process::Runtime::HostAddress host = process::Runtime::hostAddress();
  std::vector<std::string> pids;
  json::Value slaves = state(masterPort)["slaves"];
  for (const json::Value& slave : slaves.array()) pids.push_back(pidOf(slave));
  std::sort(pids.begin(), pids.end());
  std::vector<std::string> expected = {"slave(1)@127.0.0.1:" + std::to_string(given),
                                       "slave(1)@" + host.ip + ":" + std::to_string(chosen)};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(expected, pids);
  EXPECT_NE(std::string::npos, log("chosen").find("and advertising " + host.ip + ":" +
                                                  std::to_string(chosen) + ", " + host.source))
      << log("chosen");

  // Executors of a slave on every interface listen there too, advertise
  // what the slave does, register and run the task: one task on each slave
  // (each asks for what only that one has).
  for (const auto& [name, ip] : {std::pair<std::string, std::string>{"chosen", host.ip},
                                 {"given", "127.0.0.1"}}) {
    ChildResult run = runChild({MESOS_EXECUTE_PATH,
                                "--master=127.0.0.1:" + std::to_string(masterPort),
                                "--name=on-" + name, "--command=env",
                                "--resources=cpus:0.1;mem:32;" + name + ":1"},
                               90s);
    EXPECT_TRUE(run.exitedWith(0)) << run.describe() << log(name);
    std::string printed;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ + "/" + name)) {
      if (entry.path().filename() == "stdout") printed += readFile(entry.path().string());
    }
    EXPECT_NE(std::string::npos, printed.find("LIBPROCESS_IP=0.0.0.0\n")) << printed;
    EXPECT_NE(std::string::npos, printed.find("LIBPROCESS_ADVERTISE_IP=" + ip + "\n")) << printed;
  }
}

TEST_F(AdvertiseTest, SchedulerDriverAdvertisesLibprocessAdvertiseIp) {
  uint16_t port = startMaster({"--ip=127.0.0.1"});
  startSlave("slave", port, {"--ip=127.0.0.1"});
  ASSERT_TRUE(slavesRegister(port, 1)) << log("slave");

  auto execute = [&](const std::vector<std::string>& environment) {
    std::vector<std::string> args = {"/usr/bin/env"};
    args.insert(args.end(), environment.begin(), environment.end());
    args.insert(args.end(), {MESOS_EXECUTE_PATH, "--master=127.0.0.1:" + std::to_string(port),
                             "--name=env", "--command=true", "--resources=cpus:0.1;mem:32"});
    return runChild(args, 90s);
  };
  ChildResult advertised = execute({"LIBPROCESS_IP=0.0.0.0", "LIBPROCESS_ADVERTISE_IP=127.0.0.1"});
  ASSERT_TRUE(advertised.exitedWith(0)) << advertised.describe();
  ChildResult chosen = execute({"LIBPROCESS_IP=0.0.0.0"});
  ASSERT_TRUE(chosen.exitedWith(0)) << chosen.describe();

  // The frameworks are done: the master keeps them as completed, with the
  // pids they registered from, oldest first.
  json::Value completed = state(port)["completed_frameworks"];
  ASSERT_TRUE(completed.isArray());
  ASSERT_EQ(2u, completed.array().size());
  std::string first = pidOf(completed.array()[0]);
  std::string second = pidOf(completed.array()[1]);
  if (first.find("@127.0.0.1:") == std::string::npos) std::swap(first, second);
  EXPECT_NE(std::string::npos, first.find("@127.0.0.1:")) << first;
  EXPECT_NE(std::string::npos, second.find("@" + process::Runtime::hostAddress().ip + ":"))
      << second;
  EXPECT_EQ(std::string::npos, second.find("0.0.0.0")) << second;
}

// One line on stderr naming the flag or variable, and status 1.
void expectOneLineNaming(const std::vector<std::string>& args, const std::string& name) {
  ChildResult run = runChild(args, 30s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  std::string err = run.err;
  while (!err.empty() && err.back() == '\n') err.pop_back();
  EXPECT_EQ(std::string::npos, err.find('\n')) << run.describe();
  EXPECT_NE(std::string::npos, err.find(name)) << run.describe();
}

TEST(AdvertiseFlagsTest, BadAddressesGetOneLineAndStatusOne) {
  for (const char* binary : {MESOS_MASTER_PATH, MESOS_SLAVE_PATH, MESOS_EXECUTE_PATH}) {
    if (!std::filesystem::exists(binary)) GTEST_SKIP() << binary << " is not built";
  }
  const std::string master = "--master=127.0.0.1:" + std::to_string(freePort());
  const std::string port = "--port=" + std::to_string(freePort());
  for (const auto& daemon : std::vector<std::vector<std::string>>{
           {MESOS_MASTER_PATH, port}, {MESOS_SLAVE_PATH, master, port}}) {
    auto with = [&](const std::string& flag) {
      std::vector<std::string> args = daemon;
      args.push_back(flag);
      return args;
    };
    expectOneLineNaming(with("--advertise_ip=0.0.0.0"), "--advertise_ip");
    expectOneLineNaming(with("--advertise_ip=localhost"), "--advertise_ip");
    expectOneLineNaming(with("--ip=10.0.0"), "--ip");
    expectOneLineNaming(with("--advertise_port=0"), "--advertise_port");
    expectOneLineNaming(with("--advertise_port=70000"), "--advertise_port");
    std::vector<std::string> env = {"/usr/bin/env", "LIBPROCESS_ADVERTISE_IP=1.2.3.4.5"};
    env.insert(env.end(), daemon.begin(), daemon.end());
    expectOneLineNaming(env, "LIBPROCESS_ADVERTISE_IP");
  }
  const std::vector<std::string> execute = {MESOS_EXECUTE_PATH, master, "--name=x",
                                            "--command=true"};
  for (const auto& [variable, value] : std::vector<std::pair<std::string, std::string>>{
           {"LIBPROCESS_IP", "nowhere"},
           {"LIBPROCESS_PORT", "http"},
           {"LIBPROCESS_ADVERTISE_IP", "0.0.0.0"},
           {"LIBPROCESS_ADVERTISE_PORT", "0"}}) {
    std::vector<std::string> args = {"/usr/bin/env", variable + "=" + value};
    args.insert(args.end(), execute.begin(), execute.end());
    expectOneLineNaming(args, variable);
  }
}

}  // namespace
}  // namespace mesos::test
