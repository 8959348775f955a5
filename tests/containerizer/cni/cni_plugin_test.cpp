// Running CNI plugins as the specification asks, against small shell
// plugins the test writes: each records its environment and its stdin, and
// answers a result, a CNI error, a crash, or nothing at all.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "slave/containerizer/isolators/network/cni/plugin.hpp"

namespace mesos::internal::cni {
namespace {

namespace fs = std::filesystem;

// One script serves every fake plugin; what it does follows its name.
constexpr char kFakePlugin[] = R"(#!/bin/sh
me=$(basename "$0")
log=$(dirname "$0")/../log
n=$(ls "$log" | grep -c "\.in$")
env | grep '^CNI_' | sort > "$log/$n-$me-$CNI_COMMAND.env"
cat > "$log/$n-$me-$CNI_COMMAND.in"
[ "$CNI_COMMAND" = ADD ] || exit 0
case $me in
first) echo '{"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":"'"$CNI_NETNS"'"}],
  "ips":[{"address":"10.0.0.5/24","gateway":"10.0.0.1","interface":0}],
  "dns":{"nameservers":["10.0.0.53"],"search":["example.test"]}}' ;;
second) echo '{"cniVersion":"1.0.0","ips":[{"address":"10.0.0.6/24"},{"address":"fd00::6/64"}]}' ;;
fail) echo '{"cniVersion":"1.0.0","code":11,"msg":"pool exhausted","details":"no address left"}'
  exit 1 ;;
crash) echo "panic: something broke" >&2; exit 2 ;;
hang) sleep 1000 & echo $! > "$log/../hang.pid"; sleep 1000 ;;
esac
)";

class CniPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cni-plugin-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    fs::create_directories(dir_ + "/plugins");
    fs::create_directories(dir_ + "/log");
    for (const char* name : {"first", "second", "fail", "crash", "hang"}) {
      const std::string path = dir_ + "/plugins/" + name;
      std::ofstream(path) << kFakePlugin;
      ::chmod(path.c_str(), 0755);
    }
    options_.directories = {dir_ + "/empty", dir_ + "/plugins"};
    invocation_.containerId = "c1";
    invocation_.netns = "/run/netns/fake";
    invocation_.ifname = "eth0";
    invocation_.args = "IgnoreUnknown=1;K=V";
  }
  void TearDown() override { fs::remove_all(dir_); }

  static NetworkConfig list(const std::string& version, std::vector<std::string> types) {
    NetworkConfig config;
    config.name = "chain";
    config.cniVersion = version;
    config.isList = true;
    for (const std::string& type : types) config.plugins.push_back(json::Object{{"type", type}});
    return config;
  }

  // What the test's plugins recorded, by "<n>-<plugin>-<command>" in order.
  std::vector<std::string> calls() const {
    std::vector<std::pair<int, std::string>> found;
    for (const auto& entry : fs::directory_iterator(dir_ + "/log")) {
      const std::string name = entry.path().filename().string();
      if (name.size() < 3 || name.substr(name.size() - 3) != ".in") continue;
      found.emplace_back(std::stoi(name), name.substr(0, name.size() - 3));
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> names;
    for (const auto& [n, name] : found) names.push_back(name);
    return names;
  }

  std::string read(const std::string& file) const {
    std::ifstream in(dir_ + "/log/" + file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  json::Value input(const std::string& call) const {
    auto parsed = json::parse(read(call + ".in"));
    EXPECT_TRUE(parsed.ok()) << call << ": " << read(call + ".in");
    return parsed ? parsed.value() : json::Value();
  }

  std::string dir_;
  PluginOptions options_;
  Invocation invocation_;
};

TEST_F(CniPluginTest, AddRunsAListInOrderEachGivenThePreviousResult) {
  RuntimeConfig runtime;
  runtime.args["org.apache.mesos"] =
      json::Object{{"network_info", json::Object{{"name", "chain"}}}};
  auto added = addNetwork(options_, list("1.0.0", {"first", "second"}), invocation_, runtime);
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_EQ(added.value()["ips"].array().at(0)["address"].string(), "10.0.0.6/24");
  ASSERT_EQ(calls(), (std::vector<std::string>{"0-first-ADD", "1-second-ADD"}));

  EXPECT_EQ(read("0-first-ADD.env"),
            "CNI_ARGS=IgnoreUnknown=1;K=V\nCNI_COMMAND=ADD\nCNI_CONTAINERID=c1\nCNI_IFNAME=eth0\n"
            "CNI_NETNS=/run/netns/fake\nCNI_PATH=" +
                dir_ + "/empty:" + dir_ + "/plugins\n");
  const json::Value first = input("0-first-ADD");
  EXPECT_EQ(first["name"].string(), "chain");
  EXPECT_EQ(first["cniVersion"].string(), "1.0.0");
  EXPECT_EQ(first["type"].string(), "first");
  EXPECT_TRUE(first["prevResult"].isNull());
  EXPECT_EQ(first["args"]["org.apache.mesos"]["network_info"]["name"].string(), "chain");

  const json::Value second = input("1-second-ADD");
  EXPECT_EQ(second["prevResult"]["ips"].array().at(0)["address"].string(), "10.0.0.5/24");
  EXPECT_EQ(second["prevResult"]["interfaces"].array().at(0)["sandbox"].string(),
            "/run/netns/fake");

  auto result = parseResult(added.value());
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->ips.size(), 2u);
  EXPECT_FALSE(result->ips[0].ipv6);
  EXPECT_TRUE(result->ips[1].ipv6);
}

TEST_F(CniPluginTest, DelRunsTheListBackwardsWithTheAddResult) {
  const json::Value added =
      json::Object{{"ips", json::Array{json::Object{{"address", "10.0.0.9/24"}}}}};
  auto deleted = delNetwork(options_, list("0.4.0", {"first", "second"}), invocation_, {}, added);
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  ASSERT_EQ(calls(), (std::vector<std::string>{"0-second-DEL", "1-first-DEL"}));
  EXPECT_EQ(input("0-second-DEL")["prevResult"], added);
  EXPECT_EQ(input("1-first-DEL")["prevResult"], added);
  EXPECT_NE(read("1-first-DEL.env").find("CNI_COMMAND=DEL"), std::string::npos);

  // Before CNI 0.4.0 DEL is given no prevResult.
  fs::remove_all(dir_ + "/log");
  fs::create_directories(dir_ + "/log");
  deleted = delNetwork(options_, list("0.3.1", {"first"}), invocation_, {}, added);
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_TRUE(input("0-first-DEL")["prevResult"].isNull());
}

TEST_F(CniPluginTest, CheckRunsInOrderWithTheAddResultFromVersionFourOn) {
  const json::Value added = json::Object{{"ips", json::Array{}}};
  auto checked = checkNetwork(options_, list("1.0.0", {"first", "second"}), invocation_, {}, added);
  ASSERT_TRUE(checked.ok()) << checked.error().message;
  ASSERT_EQ(calls(), (std::vector<std::string>{"0-first-CHECK", "1-second-CHECK"}));
  EXPECT_EQ(input("1-second-CHECK")["prevResult"], added);

  auto old = checkNetwork(options_, list("0.3.1", {"first"}), invocation_, {}, added);
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.error().message.find("0.4.0"), std::string::npos) << old.error().message;
}

TEST_F(CniPluginTest, PortMappingsGoOnlyToPluginsWithTheCapability) {
  NetworkConfig network = list("1.0.0", {"first", "second"});
  network.plugins.at(1) =
      json::Object{{"type", "second"}, {"capabilities", json::Object{{"portMappings", true}}}};
  RuntimeConfig runtime;
  runtime.portMappings.push_back({8080, 80, "tcp"});
  runtime.portMappings.push_back({5353, 53, "udp"});
  auto added = addNetwork(options_, network, invocation_, runtime);
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_TRUE(input("0-first-ADD")["runtimeConfig"].isNull());
  const json::Value mappings = input("1-second-ADD")["runtimeConfig"]["portMappings"];
  ASSERT_TRUE(mappings.isArray());
  ASSERT_EQ(mappings.array().size(), 2u);
  EXPECT_EQ(mappings.array().at(0)["hostPort"].integer(), 8080);
  EXPECT_EQ(mappings.array().at(0)["containerPort"].integer(), 80);
  EXPECT_EQ(mappings.array().at(0)["protocol"].string(), "tcp");
  EXPECT_EQ(mappings.array().at(1)["protocol"].string(), "udp");
}

TEST_F(CniPluginTest, APluginsCniErrorIsTheMessage) {
  auto added = addNetwork(options_, list("1.0.0", {"first", "fail", "second"}), invocation_, {});
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.error().message.find("CNI plugin 'fail' (ADD)"), std::string::npos)
      << added.error().message;
  EXPECT_NE(added.error().message.find("code 11: pool exhausted (no address left)"),
            std::string::npos)
      << added.error().message;
  // The list stops at the failure.
  EXPECT_EQ(calls(), (std::vector<std::string>{"0-first-ADD", "1-fail-ADD"}));
}

TEST_F(CniPluginTest, APluginThatCrashesGivesItsStatusAndStderr) {
  auto added = addNetwork(options_, list("1.0.0", {"crash"}), invocation_, {});
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.error().message.find("exited with status 2"), std::string::npos)
      << added.error().message;
  EXPECT_NE(added.error().message.find("panic: something broke"), std::string::npos)
      << added.error().message;
}

TEST_F(CniPluginTest, AHungPluginIsKilledWithWhatItStarted) {
  options_.timeout = std::chrono::milliseconds(500);
  const auto start = std::chrono::steady_clock::now();
  auto added = addNetwork(options_, list("1.0.0", {"hang"}), invocation_, {});
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.error().message.find("killed after 500 ms"), std::string::npos)
      << added.error().message;
  EXPECT_LT(took, std::chrono::seconds(10));

  std::ifstream pidFile(dir_ + "/hang.pid");
  pid_t background = 0;
  ASSERT_TRUE(pidFile >> background);
  // Killed with the plugin's process group: gone, or a zombie until its new
  // parent reaps it (the kill may take a moment to land).
  auto dead = [&] {
    std::ifstream stat("/proc/" + std::to_string(background) + "/stat");
    std::string line;
    return !std::getline(stat, line) || line.find(") Z") != std::string::npos;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!dead() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(dead()) << "the plugin's own child " << background << " outlived it";
}

TEST_F(CniPluginTest, AMissingPluginIsNamedWithTheDirectories) {
  auto added = addNetwork(options_, list("1.0.0", {"nosuch"}), invocation_, {});
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.error().message.find("'nosuch' not found in --network_cni_plugins_dir '" + dir_ +
                                       "/empty:" + dir_ + "/plugins'"),
            std::string::npos)
      << added.error().message;
}

TEST_F(CniPluginTest, ResultsOfEveryVersionAreRead) {
  auto legacy = parseResult(json::parse(R"({"cniVersion": "0.2.0",
      "ip4": {"ip": "10.2.0.7/16", "gateway": "10.2.0.1"},
      "dns": {"nameservers": ["8.8.8.8"], "domain": "d.test"}})")
                                .value());
  ASSERT_TRUE(legacy.ok()) << legacy.error().message;
  ASSERT_EQ(legacy->ips.size(), 1u);
  EXPECT_EQ(legacy->ips[0].address, "10.2.0.7/16");
  EXPECT_EQ(legacy->ips[0].gateway, "10.2.0.1");
  EXPECT_EQ(legacy->dns.nameservers, std::vector<std::string>{"8.8.8.8"});
  EXPECT_EQ(legacy->dns.domain, "d.test");

  auto bad = parseResult(json::parse(R"({"ips": [{"gateway": "10.0.0.1"}]})").value());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("\"address\""), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace mesos::internal::cni
