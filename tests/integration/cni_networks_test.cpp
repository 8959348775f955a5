// CNI networks end to end: mesos-master and mesos-slave processes, the
// slave with --isolation=network/cni,posix/cpu and Debian's bridge and
// host-local plugins, and mesos-execute --networks running command tasks
// on one bridge network (as root).
//
// Nothing touches the machine's network: the test's thread moves into a
// network namespace of its own before it starts anything, so the daemons,
// the bridge the plugin makes, the host ends of the veth pairs and the
// containers' traffic all live in namespaces the test made, and go with
// them. The slave listens on an address of that namespace's loopback
// interface, which the containers reach through the bridge's gateway. The slave keeps its
// CNI state under its work directory (--network_cni_root_dir_persist) and
// host-local its leases in the test's directory.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr char kPlugins[] = "/usr/lib/cni";
constexpr char kBridge[] = "mcnitest0";
constexpr char kSlaveIp[] = "10.231.255.1";
constexpr char kSubnetPrefix[] = "10.231.0.";  // of 10.231.0.0/24

bool runs(const std::vector<std::string>& args) { return runChild(args, 30s).exitedWith(0); }

std::string tool(const std::string& name) {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/sbin", "/bin"}) {
    if (::access((std::string(dir) + "/" + name).c_str(), X_OK) == 0) {
      return std::string(dir) + "/" + name;
    }
  }
  return "";
}

// The inode of the namespace file `path` (0: none).
ino_t inodeOf(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 ? status.st_ino : 0;
}

// The processes whose network namespace has inode `ns`.
std::vector<pid_t> processesIn(ino_t ns) {
  std::vector<pid_t> pids;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (inodeOf(entry.path().string() + "/ns/net") == ns) pids.push_back(std::stoi(name));
  }
  return pids;
}

class CniNetworksTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "network namespaces and CNI plugins need root";
    for (const char* plugin : {"bridge", "host-local"}) {
      if (::access((std::string(kPlugins) + "/" + plugin).c_str(), X_OK) != 0) {
        GTEST_SKIP() << "no CNI plugin " << kPlugins << "/" << plugin
                     << " (apt-get install containernetworking-plugins)";
      }
    }
    ip_ = tool("ip");
    if (ip_.empty() || tool("ping").empty()) GTEST_SKIP() << "needs ip (iproute2) and ping";
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    // This thread (and every process it starts) into a new network
    // namespace; TearDown() comes back.
    hostNetns_ = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(hostNetns_, 0);
    ASSERT_EQ(::unshare(CLONE_NEWNET), 0) << std::strerror(errno);
    ASSERT_TRUE(runs({ip_, "link", "set", "lo", "up"}));
    ASSERT_TRUE(runs({ip_, "addr", "add", std::string(kSlaveIp) + "/32", "dev", "lo"}));

    fs::create_directories(dir_ + "/cni");
    ipam_ = dir_ + "/ipam";
    std::ofstream(dir_ + "/cni/testnet.conf")
        << R"({"cniVersion": "0.4.0", "name": "testnet", "type": "bridge", "bridge": ")" << kBridge
        << R"(", "isGateway": true, "ipMasq": false, "ipam": {"type": "host-local", )"
        << R"("subnet": "10.231.0.0/24", "dataDir": ")" << ipam_
        << R"(", "routes": [{"dst": "0.0.0.0/0"}]}})";
    shared_ = dir_ + "/shared";
    fs::create_directories(shared_);
    // The slave's plugins: Debian's, and "waiting", which holds an ADD
    // until the test creates <shared>/release, then hands over to bridge.
    plugins_ = dir_ + "/plugins";
    fs::create_directories(plugins_);
    for (const char* plugin : {"bridge", "host-local"}) {
      fs::create_symlink(std::string(kPlugins) + "/" + plugin, plugins_ + "/" + plugin);
    }
    std::ofstream(plugins_ + "/waiting")
        << "#!/bin/sh\nif [ \"$CNI_COMMAND\" = ADD ]; then\n  touch " << shared_
        << "/adding\n  until [ -e " << shared_ << "/release ]; do sleep 0.05; done\nfi\nexec "
        << kPlugins << "/bridge \"$@\"\n";
    fs::permissions(plugins_ + "/waiting", fs::perms::owner_all);
    std::ofstream(dir_ + "/cni/waitnet.conf")
        << R"({"cniVersion": "0.4.0", "name": "waitnet", "type": "waiting", "bridge": "mcnitest1",)"
        << R"( "isGateway": true, "ipMasq": false, "ipam": {"type": "host-local", )"
        << R"("subnet": "10.231.1.0/24", "dataDir": ")" << ipam_ << R"("}})";
    master_ = startMaster({"--allocation_interval=100ms"});
    slavePort_ = freePort(kSlaveIp);
    ASSERT_GT(slavePort_, 0);
    ASSERT_NO_FATAL_FAILURE(startTheSlave());
  }

  void TearDown() override {
    if (hostNetns_ >= 0) {
      std::ofstream(shared_ + "/done").close();  // tasks still waiting end
      // Containers a failed test left: killed, their namespaces unmounted.
      const std::string root = dir_ + "/slave/isolators/network/cni";
      std::error_code error;
      for (const auto& entry : fs::directory_iterator(root, error)) {
        const std::string ns = entry.path().string() + "/ns";
        if (ino_t inode = inodeOf(ns)) {
          for (pid_t pid : processesIn(inode)) ::kill(pid, SIGKILL);
        }
        ::umount2(ns.c_str(), MNT_DETACH);
      }
    }
    DaemonsFixture::TearDown();
    if (hostNetns_ >= 0) {
      EXPECT_EQ(::setns(hostNetns_, CLONE_NEWNET), 0) << std::strerror(errno);
      ::close(hostNetns_);
    }
  }

  void startTheSlave() {
    slave_ = startSlave(master_, "slave",
                        {"--ip=" + std::string(kSlaveIp), "--resources=cpus:2;mem:512;disk:512",
                         "--isolation=" + isolation_, "--network_cni_config_dir=" + dir_ + "/cni",
                         "--network_cni_plugins_dir=" + plugins_, "--network_cni_root_dir_persist"},
                        slavePort_);
    ASSERT_GT(slave_, 0);
    ASSERT_TRUE(
        waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s, slave_))
        << "the slave did not register within 30 s:\n"
        << readFile(dir_ + "/slave.log");
  }

  // Starts mesos-execute in the background: task `name` on testnet.
  pid_t execute(const std::string& name, const std::string& command,
                const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {MESOS_EXECUTE_PATH,   "--master=" + master_.toString(),
                                     "--name=" + name,     "--resources=cpus:0.1;mem:32",
                                     "--networks=testnet", "--command=" + command};
    args.insert(args.end(), more.begin(), more.end());
    return start(args, "execute-" + name);
  }

  // The first address the master's /state reports for running task `name`
  // on testnet (from its latest status), waiting at most 60 s.
  std::string addressOf(const std::string& name, pid_t execute) {
    std::string address;
    waitUntil(
        [&] {
          json::Value state = getJson(master_, "/state");
          if (!state["frameworks"].isArray()) return false;
          for (const json::Value& framework : state["frameworks"].array()) {
            if (!framework["tasks"].isArray()) continue;
            for (const json::Value& task : framework["tasks"].array()) {
              if (!task["name"].isString() || task["name"].string() != name) continue;
              if (!task["state"].isString() || task["state"].string() != "TASK_RUNNING") continue;
              if (!task["statuses"].isArray()) continue;
              for (const json::Value& status : task["statuses"].array()) {
                const json::Value& networks = status["container_status"]["network_infos"];
                if (!networks.isArray() || networks.array().empty()) continue;
                const json::Value& network = networks.array().at(0);
                if (!network["name"].isString() || network["name"].string() != "testnet") continue;
                const json::Value& ips = network["ip_addresses"];
                if (!ips.isArray() || ips.array().empty()) continue;
                const json::Value& ip = ips.array().at(0)["ip_address"];
                if (ip.isString()) address = ip.string();
              }
            }
          }
          return !address.empty();
        },
        60s, execute);
    if (address.empty()) {
      ADD_FAILURE() << "/state: " << json::stringify(getJson(master_, "/state")["frameworks"]);
      for (const auto& entry : fs::recursive_directory_iterator(dir_ + "/slave/slaves")) {
        const std::string file = entry.path().filename();
        if (file == "stderr" || file == "stdout") {
          ADD_FAILURE() << entry.path() << ":\n" << readFile(entry.path());
        }
      }
    }
    return address;
  }

  // The containers the slave has CNI state for.
  std::set<std::string> containers() {
    std::set<std::string> ids;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir_ + "/slave/isolators/network/cni", error)) {
      ids.insert(entry.path().filename().string());
    }
    return ids;
  }

  bool leased(const std::string& address) { return fs::exists(ipam_ + "/testnet/" + address); }

  bool vethsLeft() {
    ChildResult links = runChild({ip_, "-o", "link", "show", "type", "veth"}, 30s);
    return !links.exitedWith(0) || !links.out.empty();
  }

  void finished(pid_t pid, int expected) {
    int status = waitForExit(pid, 60s);
    reaped(pid);
    EXPECT_EQ(status, expected);
  }

  std::string isolation_ = "network/cni,posix/cpu";
  std::string ip_;
  std::string ipam_;
  std::string shared_;
  std::string plugins_;
  int hostNetns_ = -1;
  process::Address master_;
  uint16_t slavePort_ = 0;
  pid_t slave_ = -1;
};

TEST_F(CniNetworksTest, TwoTasksOnABridgeReachEachOtherAtTheirReportedAddresses) {
  const std::string& s = shared_;
  // a pings the address the test gives it (b's, from /state); b pings a's
  // and says what its hostname and /etc/hosts are. Each fails when its
  // ping did.
  pid_t a = execute("a", "until [ -s " + s +
                             "/peer-of-a ]; do sleep 0.1; done; ping -c 1 -W 5 "
                             "\"$(cat " +
                             s + "/peer-of-a)\" > " + s + "/a.ping 2>&1; ok=$?; touch " + s +
                             "/a-pinged; until [ -e " + s +
                             "/done ]; do sleep 0.1; done; "
                             "exit $ok");
  ASSERT_GT(a, 0);
  const std::string addressA = addressOf("a", a);
  ASSERT_FALSE(addressA.empty()) << "no address for task a in /state within 60 s:\n"
                                 << readFile(dir_ + "/slave.log");
  EXPECT_EQ(addressA.rfind(kSubnetPrefix, 0), 0u) << addressA;
  EXPECT_TRUE(leased(addressA));

  pid_t b = execute("b", "ping -c 1 -W 5 " + addressA + " > " + s +
                             "/b.ping 2>&1; ok=$?; "
                             "cat /proc/sys/kernel/hostname > " +
                             s + "/b.hostname; cat /etc/hosts > " + s +
                             "/b.hosts; "
                             "touch " +
                             s + "/b-pinged; until [ -e " + s +
                             "/done ]; do sleep 0.1; "
                             "done; exit $ok");
  ASSERT_GT(b, 0);
  const std::string addressB = addressOf("b", b);
  ASSERT_FALSE(addressB.empty()) << "no address for task b in /state within 60 s";
  EXPECT_EQ(addressB.rfind(kSubnetPrefix, 0), 0u) << addressB;
  EXPECT_NE(addressA, addressB);
  std::ofstream(s + "/peer-of-a") << addressB;

  ASSERT_TRUE(
      waitUntil([&] { return fs::exists(s + "/a-pinged") && fs::exists(s + "/b-pinged"); }, 60s))
      << "the tasks did not get to their pings";
  EXPECT_NE(readFile(s + "/a.ping").find("1 received"), std::string::npos)
      << readFile(s + "/a.ping");
  EXPECT_NE(readFile(s + "/b.ping").find("1 received"), std::string::npos)
      << readFile(s + "/b.ping");
  // b's hostname is its container id, in its /etc/hosts at its address.
  std::string hostname = readFile(s + "/b.hostname");
  while (!hostname.empty() && hostname.back() == '\n') hostname.pop_back();
  EXPECT_EQ(containers().count(hostname), 1u) << "'" << hostname << "'";
  EXPECT_NE(readFile(s + "/b.hosts").find(addressB + " " + hostname), std::string::npos)
      << readFile(s + "/b.hosts");

  std::ofstream(s + "/done").close();
  finished(a, 0);
  finished(b, 0);
  // Both containers ended: DEL released the leases and took the veths.
  EXPECT_TRUE(waitUntil([&] { return containers().empty(); }, 30s))
      << "CNI state left for " << containers().size() << " containers";
  EXPECT_FALSE(leased(addressA));
  EXPECT_FALSE(leased(addressB));
  EXPECT_FALSE(vethsLeft());
}

// A container's launch waits on the containerizer's actor, not the slave's:
// while a plugin holds the ADD, the slave answers, and the status updates
// of another container flow (each asks the containerizer for the
// container's status, which the CNI isolator's ADD does not hold up). The
// framework goes meanwhile; once the launch returns, its container is
// killed and its network torn down.
TEST_F(CniNetworksTest, TheSlaveAnswersWhileAnAddWaitsAndAShutdownMeanwhileEndsTheContainer) {
  pid_t early = start({MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--name=early",
                       "--resources=cpus:0.1;mem:32",
                       "--command=touch " + shared_ + "/early-running; until [ -e " + shared_ +
                           "/early-done ]; do sleep 0.1; done"},
                      "execute-early");
  ASSERT_GT(early, 0);
  ASSERT_TRUE(waitUntil([&] { return fs::exists(shared_ + "/early-running"); }, 60s, slave_))
      << readFile(dir_ + "/slave.log");
  pid_t run = start({MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--name=held",
                     "--resources=cpus:0.1;mem:32", "--networks=waitnet", "--command=sleep 1000"},
                    "execute-held");
  ASSERT_GT(run, 0);
  ASSERT_TRUE(waitUntil([&] { return fs::exists(shared_ + "/adding"); }, 60s, slave_))
      << readFile(dir_ + "/slave.log");
  const process::Address slave{process::Address::parseIp(kSlaveIp).value(), slavePort_};
  json::Value state = getJson(slave, "/state");
  ASSERT_TRUE(state["id"].isString()) << "the slave did not answer while the ADD waited";
  EXPECT_FALSE(fs::exists(shared_ + "/release"));
  ASSERT_EQ(1u, containers().size());
  // The other task ends, and its framework hears so, while the ADD waits.
  std::ofstream(shared_ + "/early-done").close();
  finished(early, 0);
  EXPECT_FALSE(fs::exists(shared_ + "/release"));
  EXPECT_TRUE(fs::exists(shared_ + "/adding"));

  // The framework goes (mesos-execute killed): the master shuts it down on
  // the slave while the executor's container is still being launched.
  ::kill(run, SIGKILL);
  finished(run, 128 + SIGKILL);
  ASSERT_TRUE(waitUntil(
      [&] {
        return readFile(dir_ + "/slave.log").find("Shutting down framework") != std::string::npos;
      },
      60s, slave_))
      << readFile(dir_ + "/slave.log");
  std::ofstream(shared_ + "/release").close();
  EXPECT_TRUE(waitUntil(
      [&] {
        json::Value now = getJson(slave, "/state");
        return now["frameworks"].isArray() && now["frameworks"].array().empty() &&
               containers().empty() && !vethsLeft();
      },
      60s, slave_))
      << readFile(dir_ + "/slave.log");
  // host-local keeps a lease as a file named after the address (beside its
  // lock and last_reserved_ip files).
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(ipam_ + "/waitnet", error)) {
    EXPECT_NE(entry.path().filename().string().rfind("10.231.1.", 0), 0u)
        << "a lease was left: " << entry.path();
  }
  EXPECT_NE(readFile(dir_ + "/slave.log").find("Launched"), std::string::npos);
}

TEST_F(CniNetworksTest, TheNetworksOfAContainerThatDiedWhileTheSlaveWasDownAreLeftAtItsRestart) {
  pid_t a = execute("a", "until [ -e " + shared_ + "/done ]; do sleep 0.1; done", {"--checkpoint"});
  ASSERT_GT(a, 0);
  const std::string address = addressOf("a", a);
  ASSERT_FALSE(address.empty()) << "no address for task a in /state within 60 s";
  ASSERT_EQ(containers().size(), 1u);
  const std::string id = *containers().begin();
  const ino_t ns = inodeOf(dir_ + "/slave/isolators/network/cni/" + id + "/ns");
  ASSERT_NE(ns, 0u);

  ASSERT_EQ(::kill(slave_, SIGKILL), 0);
  waitForExit(slave_, 30s);
  reaped(slave_);
  // The executor and its task die while the slave is down.
  for (pid_t pid : processesIn(ns)) ::kill(pid, SIGKILL);
  ASSERT_TRUE(waitUntil([&] { return processesIn(ns).empty(); }, 30s));
  EXPECT_TRUE(leased(address)) << "the lease went before the slave came back";

  ASSERT_NO_FATAL_FAILURE(startTheSlave());
  EXPECT_TRUE(waitUntil([&] { return containers().empty(); }, 60s))
      << "the restarted slave left the CNI state of container " << id;
  EXPECT_FALSE(leased(address));
  EXPECT_FALSE(vethsLeft());
  // The framework hears that its task is gone.
  int status = waitForExit(a, 60s);
  reaped(a);
  EXPECT_NE(status, 0);
}

// With namespaces/pid too: the helper forks into the new pid namespace
// after it entered the network namespace, which is still found at the pid
// the slave knows.
class CniNetworksPidTest : public CniNetworksTest {
 protected:
  void SetUp() override {
    isolation_ = "network/cni,namespaces/pid,posix/cpu";
    CniNetworksTest::SetUp();
  }
};

TEST_F(CniNetworksPidTest, ATaskInItsOwnPidNamespaceJoinsTheNetworkToo) {
  ChildResult run = runChild(
      {MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--name=pid",
       "--resources=cpus:0.1;mem:32", "--networks=testnet",
       "--command=grep -q mesos-executor /proc/1/cmdline && ping -c 1 -W 5 10.231.0.1 && "
       "[ \"$(cat /proc/sys/kernel/hostname)\" = \"$(cat /etc/hostname)\" ] && "
       "grep -q \" $(cat /etc/hostname)$\" /etc/hosts && ip -4 -o addr show eth0 | grep -q "
       "10.231.0."},
      90s);
  EXPECT_TRUE(run.exitedWith(0)) << run.describe();
  EXPECT_NE(run.out.find("TASK_FINISHED"), std::string::npos) << run.describe();
  EXPECT_TRUE(waitUntil([&] { return containers().empty(); }, 30s));
  EXPECT_FALSE(vethsLeft());
}

}  // namespace
}  // namespace mesos::test
