// CNI network configurations as --network_cni_config_dir holds them: single
// plugins and lists, and the files refused, each with an error naming it.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "slave/containerizer/isolators/network/cni/config.hpp"

namespace mesos::internal::cni {
namespace {

namespace fs = std::filesystem;

class CniConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cni-config-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  static bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }

  std::string dir_;
};

TEST_F(CniConfigTest, LoadsConfigurationsAndListsByName) {
  write("10-bridge.conf",
        R"({"cniVersion": "0.4.0", "name": "br-net", "type": "bridge",
            "ipam": {"type": "host-local", "subnet": "10.1.0.0/24"}})");
  write("20-chain.conflist",
        R"({"cniVersion": "1.0.0", "name": "chain",
            "plugins": [{"type": "bridge"}, {"type": "portmap",
                         "capabilities": {"portMappings": true}}]})");
  write("30-other.json", R"({"name": "json-net", "type": "macvlan"})");
  write("README", "not a configuration");
  fs::create_directory(dir_ + "/skipped.conf");

  auto configs = loadNetworkConfigs(dir_);
  ASSERT_TRUE(configs.ok()) << configs.error().message;
  ASSERT_EQ(configs->size(), 3u);

  const NetworkConfig& bridge = configs->at("br-net");
  EXPECT_FALSE(bridge.isList);
  EXPECT_EQ(bridge.cniVersion, "0.4.0");
  EXPECT_EQ(bridge.file, dir_ + "/10-bridge.conf");
  ASSERT_EQ(bridge.plugins.size(), 1u);
  EXPECT_EQ(bridge.plugins.at(0)["ipam"]["subnet"].string(), "10.1.0.0/24");

  const NetworkConfig& chain = configs->at("chain");
  EXPECT_TRUE(chain.isList);
  ASSERT_EQ(chain.plugins.size(), 2u);
  EXPECT_EQ(chain.plugins.at(0)["type"].string(), "bridge");
  EXPECT_EQ(chain.plugins.at(1)["type"].string(), "portmap");

  EXPECT_EQ(configs->at("json-net").cniVersion, "");
}

TEST_F(CniConfigTest, AFileWithoutNameOrTypeIsRefusedByName) {
  const std::string noName = write("a.conf", R"({"type": "bridge"})");
  auto configs = loadNetworkConfigs(dir_);
  ASSERT_FALSE(configs.ok());
  EXPECT_TRUE(contains(configs.error().message, noName)) << configs.error().message;
  EXPECT_TRUE(contains(configs.error().message, "\"name\"")) << configs.error().message;

  fs::remove(noName);
  const std::string noType = write("b.conf", R"({"name": "n"})");
  configs = loadNetworkConfigs(dir_);
  ASSERT_FALSE(configs.ok());
  EXPECT_TRUE(contains(configs.error().message, noType)) << configs.error().message;
  EXPECT_TRUE(contains(configs.error().message, "\"type\"")) << configs.error().message;
}

TEST_F(CniConfigTest, AListNeedsPluginsEachWithAType) {
  const std::string list = write("l.conflist", R"({"name": "l", "type": "bridge"})");
  auto configs = loadNetworkConfigs(dir_);
  ASSERT_FALSE(configs.ok());
  EXPECT_TRUE(contains(configs.error().message, list)) << configs.error().message;
  EXPECT_TRUE(contains(configs.error().message, "\"plugins\"")) << configs.error().message;

  write("l.conflist", R"({"name": "l", "plugins": [{"type": "bridge"}, {"ipam": {}}]})");
  configs = loadNetworkConfigs(dir_);
  ASSERT_FALSE(configs.ok());
  EXPECT_TRUE(contains(configs.error().message, "plugin 1 has no \"type\""))
      << configs.error().message;
}

TEST_F(CniConfigTest, BadJsonAndBadNamesAreRefusedByFile) {
  const std::string broken = write("broken.json", R"({"name": "x", "type": )");
  auto configs = loadNetworkConfigs(dir_);
  ASSERT_FALSE(configs.ok());
  EXPECT_TRUE(contains(configs.error().message, broken)) << configs.error().message;
  EXPECT_TRUE(contains(configs.error().message, "not JSON")) << configs.error().message;

  write("broken.json", R"({"name": "-bad name", "type": "bridge"})");
  configs = loadNetworkConfigs(dir_);
  ASSERT_FALSE(configs.ok());
  EXPECT_TRUE(contains(configs.error().message, "'-bad name'")) << configs.error().message;

  write("broken.json", R"({"name": "x", "type": "../../bin/sh"})");
  configs = loadNetworkConfigs(dir_);
  ASSERT_FALSE(configs.ok());
  EXPECT_TRUE(contains(configs.error().message, "'/'")) << configs.error().message;
}

TEST_F(CniConfigTest, TwoFilesOfOneNetworkAreRefusedNamingBoth) {
  const std::string first = write("1.conf", R"({"name": "same", "type": "bridge"})");
  const std::string second = write("2.conflist", R"({"name": "same", "plugins": [{"type": "x"}]})");
  auto configs = loadNetworkConfigs(dir_);
  ASSERT_FALSE(configs.ok());
  EXPECT_TRUE(contains(configs.error().message, first)) << configs.error().message;
  EXPECT_TRUE(contains(configs.error().message, second)) << configs.error().message;
  EXPECT_TRUE(contains(configs.error().message, "'same'")) << configs.error().message;
}

TEST_F(CniConfigTest, AMissingDirectoryIsAnError) {
  auto configs = loadNetworkConfigs(dir_ + "/nosuch");
  ASSERT_FALSE(configs.ok());
  EXPECT_TRUE(contains(configs.error().message, "--network_cni_config_dir"))
      << configs.error().message;
}

}  // namespace
}  // namespace mesos::internal::cni
