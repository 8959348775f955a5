// network/cni with Debian's real CNI plugins (bridge, host-local, portmap).
// Nothing touches this machine's own network: the plugins run inside a
// "host" network namespace the test makes (so the bridge, the host ends of
// the veths and the iptables rules live there), the containers are child
// processes in network namespaces of their own, and every packet stays
// between those namespaces. Each test removes all it made.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "slave/containerizer/isolators/isolators.hpp"
#include "slave/containerizer/isolators/network/cni/cni_isolator.hpp"

namespace mesos::internal::isolation {
namespace {

namespace fs = std::filesystem;
using mesos::isolation::ContainerConfig;

constexpr char kPluginsDir[] = "/usr/lib/cni";

struct Shell {
  int status = -1;
  std::string output;  // stdout and stderr
  bool ok() const { return status == 0; }
};

// Runs `command` with sh, its output captured.
Shell sh(const std::string& command) {
  Shell result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = ::fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, n);
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

bool onPath(const std::string& program) { return sh("command -v " + program).ok(); }

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What is missing on this machine for these tests, "" when nothing.
std::string missing() {
  if (::geteuid() != 0) return "not root (network namespaces and mounts need it)";
  for (const char* plugin : {"bridge", "host-local", "portmap"}) {
    if (::access((std::string(kPluginsDir) + "/" + plugin).c_str(), X_OK) != 0) {
      return std::string("no CNI plugin ") + kPluginsDir + "/" + plugin +
             " (Debian's containernetworking-plugins)";
    }
  }
  for (const char* tool : {"ip", "nsenter", "ping"}) {
    if (!onPath(tool)) return std::string("no '") + tool + "' on the PATH";
  }
  return "";
}

class CniIsolatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = missing(); !why.empty()) GTEST_SKIP() << why;
    char pattern[] = "/tmp/cni-isolator-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    hostNs_ = "mesos-cni-test-" + std::to_string(::getpid());
    if (Shell added = sh("ip netns add " + hostNs_); !added.ok()) {
      GTEST_SKIP() << "cannot make a network namespace: " << added.output;
    }
    madeNs_ = true;
    ASSERT_TRUE(sh("ip -n " + hostNs_ + " link set lo up").ok());
    fs::create_directories(dir_ + "/config");
    writeConfig("bridge.conf", bridgeConfig("testnet", "10.250.1.0/24"));
  }

  void TearDown() override {
    isolator_.reset();
    for (pid_t pid : containers_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    if (madeNs_) sh("ip netns del " + hostNs_);
    if (!dir_.empty()) {
      // Whatever a failed test left mounted under the test's directory.
      for (const std::string& target : mountsUnder(dir_)) ::umount2(target.c_str(), MNT_DETACH);
      fs::remove_all(dir_);
    }
  }

  std::string bridgeConfig(const std::string& name, const std::string& subnet,
                           const std::string& range = "") const {
    const std::string ranges = range.empty() ? R"("subnet": ")" + subnet + R"(")"
                                             : R"("ranges": [[{"subnet": ")" + subnet +
                                                   R"(", "rangeStart": ")" + range +
                                                   R"(", "rangeEnd": ")" + range + R"("}]])";
    return R"({"cniVersion": "1.0.0", "name": ")" + name +
           R"(", "type": "bridge", "bridge": "mcni0", "isGateway": true,
               "ipam": {"type": "host-local", )" +
           ranges + R"(, "dataDir": ")" + dir_ + R"(/ipam"}})";
  }

  void writeConfig(const std::string& file, const std::string& text) {
    std::ofstream(dir_ + "/config/" + file) << text;
  }

  CniOptions options() const {
    CniOptions options;
    options.configDir = dir_ + "/config";
    options.pluginsDir = dir_ + "/no-plugins-here:" + kPluginsDir;
    options.rootDir = dir_ + "/run";
    options.pluginNetns = "/run/netns/" + hostNs_;
    options.pluginTimeout = std::chrono::seconds(30);
    return options;
  }

  // A new isolator, as a slave (re)starting makes it.
  CniIsolator& start() {
    auto made = CniIsolator::create(options());
    EXPECT_TRUE(made.ok()) << made.error().message;
    isolator_ = made ? std::move(made).value() : nullptr;
    return *isolator_;
  }

  // A "container": a child process in a network namespace of its own.
  pid_t startContainer() {
    int ready[2];
    if (::pipe2(ready, O_CLOEXEC) != 0) return -1;
    const pid_t pid = ::fork();
    if (pid == 0) {
      const char answer = ::unshare(CLONE_NEWNET) == 0 ? 'y' : 'n';
      (void)::write(ready[1], &answer, 1);
      while (true) ::pause();
    }
    ::close(ready[1]);
    char answer = 'n';
    (void)::read(ready[0], &answer, 1);
    ::close(ready[0]);
    if (pid > 0) containers_.push_back(pid);
    EXPECT_EQ(answer, 'y') << "the container process cannot make a network namespace";
    return pid;
  }

  static ContainerConfig config(const std::string& id, const std::vector<std::string>& networks,
                                const std::string& hostname = "") {
    ContainerConfig config;
    config.containerId.set_value(id);
    ContainerInfo* container = config.executor.mutable_container();
    container->set_type(ContainerInfo::MESOS);
    if (!hostname.empty()) container->set_hostname(hostname);
    for (const std::string& network : networks) {
      container->add_network_infos()->set_name(network);
    }
    return config;
  }

  // Prepares and isolates container `id` (a new process) on `networks`.
  Result<pid_t> launch(CniIsolator& isolator, const std::string& id,
                       const std::vector<std::string>& networks) {
    auto prepared = isolator.prepare(config(id, networks));
    if (!prepared) return prepared.error();
    const pid_t pid = startContainer();
    ContainerID containerId;
    containerId.set_value(id);
    if (auto isolated = isolator.isolate(containerId, pid); !isolated) return isolated.error();
    return pid;
  }

  static ContainerID idOf(const std::string& id) {
    ContainerID containerId;
    containerId.set_value(id);
    return containerId;
  }

  // The address the container got on its first network ("" when none).
  std::string addressOf(const std::string& id) const {
    auto infos = isolator_->networkInfos(idOf(id));
    if (infos.empty() || infos[0].ip_addresses_size() == 0) return "";
    return infos[0].ip_addresses(0).ip_address();
  }

  static std::vector<std::string> mountsUnder(const std::string& path) {
    std::vector<std::string> found;
    std::ifstream mounts("/proc/self/mountinfo");
    std::string line;
    while (std::getline(mounts, line)) {
      std::istringstream fields(line);
      std::string id, parent, device, root, target;
      fields >> id >> parent >> device >> root >> target;
      if (target.rfind(path, 0) == 0) found.push_back(target);
    }
    return found;
  }

  // The host ends of the containers' veths in the test's host namespace.
  int hostVeths() const {
    Shell links = sh("ip -n " + hostNs_ + " -o link show type veth");
    int count = 0;
    for (char c : links.output) count += c == '\n';
    return count;
  }

  // The addresses host-local holds leases for in `network`.
  std::vector<std::string> leases(const std::string& network) const {
    std::vector<std::string> held;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir_ + "/ipam/" + network, error)) {
      const std::string name = entry.path().filename().string();
      if (name != "lock" && name.rfind("last_reserved_ip", 0) != 0) held.push_back(name);
    }
    return held;
  }

  bool pings(pid_t from, const std::string& address) const {
    return sh("nsenter --net=/proc/" + std::to_string(from) + "/ns/net ping -c1 -W2 " + address)
        .ok();
  }

  std::string dir_;
  std::string hostNs_;
  bool madeNs_ = false;
  std::vector<pid_t> containers_;
  std::unique_ptr<CniIsolator> isolator_;
};

TEST_F(CniIsolatorTest, TwoContainersOnOneBridgeGetAddressesAndReachEachOther) {
  CniIsolator& isolator = start();
  auto first = launch(isolator, "c1", {"testnet"});
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto second = launch(isolator, "c2", {"testnet"});
  ASSERT_TRUE(second.ok()) << second.error().message;

  const std::string a = addressOf("c1"), b = addressOf("c2");
  EXPECT_EQ(a.rfind("10.250.1.", 0), 0u) << a;
  EXPECT_EQ(b.rfind("10.250.1.", 0), 0u) << b;
  EXPECT_NE(a, b);
  auto infos = isolator.networkInfos(idOf("c1"));
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].name(), "testnet");
  EXPECT_EQ(infos[0].ip_addresses(0).protocol(), NetworkInfo::IPv4);

  EXPECT_TRUE(pings(first.value(), b)) << "c1 cannot reach c2 at " << b;
  EXPECT_TRUE(pings(second.value(), a)) << "c2 cannot reach c1 at " << a;
  // The bridge is in the test's host namespace, not the machine's.
  EXPECT_TRUE(sh("ip -n " + hostNs_ + " link show mcni0").ok());
  EXPECT_FALSE(sh("ip link show mcni0").ok());
  EXPECT_EQ(hostVeths(), 2);

  // The files the container's /etc is given.
  auto files = isolator.filesDirectory(idOf("c1"));
  ASSERT_TRUE(files.has_value());
  EXPECT_EQ(readFile(*files + "/hostname"), "c1\n");
  EXPECT_TRUE(contains(readFile(*files + "/hosts"), a + " c1\n")) << readFile(*files + "/hosts");
  EXPECT_TRUE(contains(readFile(*files + "/hosts"), "127.0.0.1 localhost"));
  // host-local gives no DNS: the host's resolv.conf.
  EXPECT_EQ(readFile(*files + "/resolv.conf"), readFile("/etc/resolv.conf"));
  EXPECT_TRUE(isolator.networkInfos(idOf("nosuch")).empty());

  ASSERT_TRUE(isolator.cleanup(idOf("c1")).ok());
  ASSERT_TRUE(isolator.cleanup(idOf("c2")).ok());
  EXPECT_EQ(hostVeths(), 0);
  EXPECT_TRUE(leases("testnet").empty());
}

TEST_F(CniIsolatorTest, CleanupRunsDelReleasingTheVethTheLeaseAndTheMount) {
  CniIsolator& isolator = start();
  auto pid = launch(isolator, "c1", {"testnet"});
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  const std::string address = addressOf("c1");
  const std::string netns = "--net=/proc/" + std::to_string(pid.value()) + "/ns/net";
  EXPECT_EQ(leases("testnet"), std::vector<std::string>{address});
  EXPECT_EQ(hostVeths(), 1);
  EXPECT_TRUE(sh("nsenter " + netns + " ip link show eth0").ok());
  EXPECT_EQ(mountsUnder(dir_ + "/run"), std::vector<std::string>{dir_ + "/run/c1/ns"});

  // What was checkpointed is what the plugins set up: their CHECK agrees.
  auto checkpointed = cni::recoverNetworks(dir_ + "/run", "c1");
  ASSERT_TRUE(checkpointed.ok()) << checkpointed.error().message;
  ASSERT_EQ(checkpointed->attachments.size(), 1u);
  const cni::Attachment& attachment = checkpointed->attachments[0];
  EXPECT_EQ(attachment.ifname, "eth0");
  EXPECT_EQ(attachment.config.name, "testnet");
  cni::PluginOptions plugins;
  plugins.directories = {kPluginsDir};
  plugins.hostNetns = "/run/netns/" + hostNs_;
  const cni::Invocation invocation{"c1", dir_ + "/run/c1/ns", "eth0", ""};
  auto checked = cni::checkNetwork(plugins, attachment.config, invocation,
                                   cni::runtimeConfigFor(attachment.info), attachment.result);
  EXPECT_TRUE(checked.ok()) << checked.error().message;

  ASSERT_TRUE(isolator.cleanup(idOf("c1")).ok());
  EXPECT_TRUE(leases("testnet").empty());
  EXPECT_EQ(hostVeths(), 0);
  EXPECT_FALSE(sh("nsenter " + netns + " ip link show eth0").ok());
  EXPECT_TRUE(mountsUnder(dir_ + "/run").empty());
  EXPECT_FALSE(fs::exists(dir_ + "/run/c1"));
  EXPECT_TRUE(isolator.networkInfos(idOf("c1")).empty());
}

TEST_F(CniIsolatorTest, AfterARestartRecoveryKeepsKnownContainersAndTakesDownTheRest) {
  {
    CniIsolator& before = start();
    ASSERT_TRUE(launch(before, "kept", {"testnet"}).ok());
    ASSERT_TRUE(launch(before, "orphan", {"testnet"}).ok());
  }
  const std::string keptAddress = addressOf("kept");
  const std::string orphanAddress = addressOf("orphan");
  ASSERT_EQ(leases("testnet").size(), 2u);

  // The slave restarts: a new isolator on the same directories, told of
  // the one container the slave kept.
  CniIsolator& after = start();
  ASSERT_TRUE(after.recover({{"kept", containers_.at(0)}}).ok());
  EXPECT_EQ(leases("testnet"), std::vector<std::string>{keptAddress});
  EXPECT_EQ(hostVeths(), 1);
  EXPECT_FALSE(fs::exists(dir_ + "/run/orphan"));
  EXPECT_EQ(mountsUnder(dir_ + "/run"), std::vector<std::string>{dir_ + "/run/kept/ns"});
  EXPECT_EQ(addressOf("kept"), keptAddress);
  EXPECT_NE(keptAddress, orphanAddress);

  ASSERT_TRUE(after.cleanup(idOf("kept")).ok());
  EXPECT_TRUE(leases("testnet").empty());
  EXPECT_EQ(hostVeths(), 0);
  EXPECT_TRUE(mountsUnder(dir_ + "/run").empty());
  EXPECT_FALSE(fs::exists(dir_ + "/run/kept"));
}

TEST_F(CniIsolatorTest, TheNetworksDnsMakesResolvConfAndTheHostnameIsTheContainers) {
  writeConfig("dns.conf", R"({"cniVersion": "1.0.0", "name": "dns", "type": "bridge",
      "bridge": "mcni2", "dns": {"nameservers": ["10.250.4.53"], "search": ["cni.test"],
                                 "options": ["ndots:2"]},
      "ipam": {"type": "host-local", "subnet": "10.250.4.0/24", "dataDir": ")" +
                              dir_ + R"(/ipam"}})");
  CniIsolator& isolator = start();
  auto prepared = isolator.prepare(config("c1", {"dns"}, "web-1"));
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  // The launch: new net and uts namespaces, the files over /etc, and the
  // executor listening in its own namespace.
  EXPECT_EQ(prepared->namespaces, (std::vector<std::string>{"net", "uts"}));
  ASSERT_EQ(prepared->mounts.size(), 3u);
  EXPECT_EQ(prepared->mounts[0].source, dir_ + "/run/c1/hosts");
  EXPECT_EQ(prepared->mounts[0].target, "/etc/hosts");
  EXPECT_EQ(prepared->mounts[1].target, "/etc/hostname");
  EXPECT_EQ(prepared->mounts[2].source, dir_ + "/run/c1/resolv.conf");
  EXPECT_EQ(prepared->mounts[2].target, "/etc/resolv.conf");
  EXPECT_EQ(prepared->environment.at("LIBPROCESS_IP"), "0.0.0.0");
  EXPECT_FALSE(isolator.status(idOf("c1")).has_value());
  ASSERT_TRUE(isolator.isolate(idOf("c1"), startContainer()).ok());
  auto status = isolator.status(idOf("c1"));
  ASSERT_TRUE(status.has_value());
  ASSERT_EQ(status->network_infos_size(), 1);
  EXPECT_EQ(status->network_infos(0).name(), "dns");
  ASSERT_EQ(status->network_infos(0).ip_addresses_size(), 1);
  EXPECT_EQ(status->network_infos(0).ip_addresses(0).ip_address(), addressOf("c1"));
  auto files = isolator.filesDirectory(idOf("c1"));
  ASSERT_TRUE(files.has_value());
  EXPECT_EQ(readFile(*files + "/resolv.conf"),
            "search cni.test\nnameserver 10.250.4.53\noptions ndots:2\n");
  EXPECT_EQ(readFile(*files + "/hostname"), "web-1\n");
  EXPECT_TRUE(contains(readFile(*files + "/hosts"), addressOf("c1") + " web-1\n"));
  EXPECT_TRUE(isolator.cleanup(idOf("c1")).ok());
}

TEST_F(CniIsolatorTest, AFailingPluginGivesItsErrorAndLeavesNothing) {
  // One address in the range: the second container gets host-local's error.
  writeConfig("small.conf", bridgeConfig("small", "10.250.2.0/24", "10.250.2.10"));
  CniIsolator& isolator = start();
  ASSERT_TRUE(launch(isolator, "c1", {"small"}).ok());
  EXPECT_EQ(addressOf("c1"), "10.250.2.10");

  auto failed = launch(isolator, "c2", {"small"});
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(contains(failed.error().message, "CNI network 'small'")) << failed.error().message;
  EXPECT_TRUE(contains(failed.error().message, "CNI plugin 'bridge' (ADD)"))
      << failed.error().message;
  EXPECT_TRUE(contains(failed.error().message, "no IP addresses available"))
      << failed.error().message;
  // Nothing of c2 is left; c1 keeps its address.
  EXPECT_FALSE(fs::exists(dir_ + "/run/c2"));
  EXPECT_EQ(mountsUnder(dir_ + "/run"), std::vector<std::string>{dir_ + "/run/c1/ns"});
  EXPECT_EQ(hostVeths(), 1);
  EXPECT_EQ(leases("small"), std::vector<std::string>{"10.250.2.10"});
  EXPECT_TRUE(isolator.cleanup(idOf("c2")).ok());
  EXPECT_TRUE(isolator.cleanup(idOf("c1")).ok());
}

TEST_F(CniIsolatorTest, AnUnknownNetworkIsAPrepareErrorNamingTheKnownOnes) {
  CniIsolator& isolator = start();
  auto prepared = isolator.prepare(config("c1", {"nosuch"}));
  ASSERT_FALSE(prepared.ok());
  EXPECT_TRUE(contains(prepared.error().message, "'nosuch' is not configured"))
      << prepared.error().message;
  EXPECT_TRUE(contains(prepared.error().message, "configured: testnet"))
      << prepared.error().message;

  // A network configured after the start is found.
  writeConfig("later.conflist", R"({"cniVersion": "1.0.0", "name": "later",
                                    "plugins": [{"type": "loopback"}]})");
  EXPECT_TRUE(isolator.prepare(config("c1", {"later"})).ok());
  EXPECT_TRUE(isolator.cleanup(idOf("c1")).ok());

  // A container naming no network stays on the host's: nothing is done.
  ASSERT_TRUE(isolator.prepare(config("host", {})).ok());
  EXPECT_TRUE(isolator.isolate(idOf("host"), ::getpid()).ok());
  EXPECT_TRUE(isolator.networkInfos(idOf("host")).empty());
  EXPECT_FALSE(isolator.filesDirectory(idOf("host")).has_value());
  EXPECT_TRUE(isolator.cleanup(idOf("host")).ok());
}

TEST_F(CniIsolatorTest, AContainerInTheSlavesNamespaceIsRefused) {
  CniIsolator& isolator = start();
  ASSERT_TRUE(isolator.prepare(config("c1", {"testnet"})).ok());
  auto isolated = isolator.isolate(idOf("c1"), ::getpid());
  ASSERT_FALSE(isolated.ok());
  EXPECT_TRUE(contains(isolated.error().message, "slave's network namespace"))
      << isolated.error().message;
  EXPECT_EQ(hostVeths(), 0);
}

TEST_F(CniIsolatorTest, ABadConfigurationFileIsAClearErrorNamingIt) {
  writeConfig("broken.conf", R"({"name": "broken"})");
  auto made = CniIsolator::create(options());
  ASSERT_FALSE(made.ok());
  EXPECT_TRUE(contains(made.error().message, dir_ + "/config/broken.conf")) << made.error().message;

  // The same through --isolation, as the slave builds it.
  IsolationOptions isolation;
  isolation.isolation = "network/cni";
  isolation.networkCniConfigDir = dir_ + "/config";
  isolation.networkCniPluginsDir = kPluginsDir;
  auto isolators = createIsolators(isolation);
  ASSERT_FALSE(isolators.ok());
  EXPECT_TRUE(contains(isolators.error().message, "--isolation: network/cni: "))
      << isolators.error().message;
  EXPECT_TRUE(contains(isolators.error().message, "broken.conf")) << isolators.error().message;

  isolation.networkCniConfigDir = "";
  isolators = createIsolators(isolation);
  ASSERT_FALSE(isolators.ok());
  EXPECT_TRUE(contains(isolators.error().message, "--network_cni_config_dir"))
      << isolators.error().message;
}

TEST_F(CniIsolatorTest, APortMappingIsForwardedByPortmap) {
  if (Shell nat = sh("ip netns exec " + hostNs_ + " iptables -t nat -L -n"); !nat.ok()) {
    GTEST_SKIP() << "iptables cannot be used in a network namespace here: " << nat.output;
  }
  if (!onPath("busybox")) GTEST_SKIP() << "no busybox (for nc) on the PATH";
  writeConfig("mapped.conflist", R"({"cniVersion": "1.0.0", "name": "mapped", "plugins": [
      {"type": "bridge", "bridge": "mcni1", "isGateway": true,
       "ipam": {"type": "host-local", "subnet": "10.250.3.0/24", "dataDir": ")" +
                                     dir_ + R"(/ipam"}},
      {"type": "portmap", "capabilities": {"portMappings": true}}]})");
  CniIsolator& isolator = start();
  ContainerConfig mapped = config("c1", {});
  NetworkInfo* info = mapped.executor.mutable_container()->add_network_infos();
  info->set_name("mapped");
  NetworkInfo::PortMapping* port = info->add_port_mappings();
  port->set_host_port(18080);
  port->set_container_port(80);
  ASSERT_TRUE(isolator.prepare(mapped).ok());
  const pid_t pid = startContainer();
  auto isolated = isolator.isolate(idOf("c1"), pid);
  ASSERT_TRUE(isolated.ok()) << isolated.error().message;
  const std::string address = addressOf("c1");

  const std::string rules = sh("ip netns exec " + hostNs_ + " iptables -t nat -S").output;
  EXPECT_TRUE(contains(rules, "--dport 18080")) << rules;
  EXPECT_TRUE(contains(rules, address + ":80")) << rules;

  // A connection from the host namespace to its address on the bridge, port
  // 18080, reaches the container's port 80.
  const std::string server = "nsenter --net=/proc/" + std::to_string(pid) +
                             "/ns/net busybox nc -l -p 80 -e echo served-by-container";
  std::thread serving([&] { sh("timeout 20 " + server); });
  bool reached = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!reached && std::chrono::steady_clock::now() < deadline) {
    Shell client =
        sh("ip netns exec " + hostNs_ + " timeout 3 busybox nc 10.250.3.1 18080 </dev/null");
    reached = contains(client.output, "served-by-container");
    if (!reached) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!reached)
    sh("nsenter --net=/proc/" + std::to_string(pid) + "/ns/net busybox nc 127.0.0.1 80");
  serving.join();
  EXPECT_TRUE(reached) << "nothing came back through port 18080";

  ASSERT_TRUE(isolator.cleanup(idOf("c1")).ok());
  const std::string after = sh("ip netns exec " + hostNs_ + " iptables -t nat -S").output;
  EXPECT_FALSE(contains(after, "--dport 18080")) << after;
  EXPECT_TRUE(leases("mapped").empty());
}

}  // namespace
}  // namespace mesos::internal::isolation
