// Registry authentication: challenges and Docker config credentials
// (docker/registry_auth.hpp), and where a reference is pulled from.
#include <gtest/gtest.h>

#include "common/base64.hpp"
#include "slave/containerizer/provisioner/docker/registry_auth.hpp"
#include "slave/containerizer/provisioner/docker/registry_puller.hpp"

namespace mesos::internal::slave::provisioner::docker {
namespace {

TEST(RegistryAuthTest, BearerChallengesGiveRealmServiceAndScope) {
  auto challenge = parseChallenge(
      "Bearer realm=\"https://auth.docker.io/token\",service=\"registry.docker.io\","
      "scope=\"repository:library/busybox:pull\"");
  ASSERT_TRUE(challenge.ok()) << challenge.error().message;
  EXPECT_EQ("bearer", challenge->scheme);
  EXPECT_EQ("https://auth.docker.io/token", challenge->params.at("realm"));
  EXPECT_EQ("registry.docker.io", challenge->params.at("service"));
  EXPECT_EQ("repository:library/busybox:pull", challenge->params.at("scope"));

  auto basic = parseChallenge("Basic realm=\"Registry Realm\"");
  ASSERT_TRUE(basic.ok());
  EXPECT_EQ("basic", basic->scheme);
  EXPECT_EQ("Registry Realm", basic->params.at("realm"));

  EXPECT_FALSE(parseChallenge("Bearer realm=\"open").ok());
  EXPECT_FALSE(parseChallenge("").ok());
}

TEST(RegistryAuthTest, CredentialsComeFromTheDockerConfigForTheRegistrysHost) {
  std::string alice = base64::encode("alice:secret");
  std::string bob = base64::encode("bob:hunter2");
  std::string config = "{\"auths\": {\"https://index.docker.io/v1/\": {\"auth\": \"" + alice +
                       "\"}, \"127.0.0.1:5000\": {\"auth\": \"" + bob + "\"}}}";
  auto hub = credentialsFor(config, "registry-1.docker.io");
  ASSERT_TRUE(hub.ok());
  EXPECT_EQ(alice, hub->value_or(""));
  auto local = credentialsFor(config, "127.0.0.1:5000");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(bob, local->value_or(""));
  auto none = credentialsFor(config, "127.0.0.1:5001");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());

  // The older layout (~/.dockercfg) has the hosts at the top.
  auto legacy = credentialsFor("{\"quay.io\": {\"auth\": \"" + bob + "\"}}", "quay.io");
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(bob, legacy->value_or(""));

  EXPECT_FALSE(credentialsFor("not json", "quay.io").ok());
  EXPECT_FALSE(credentialsFor("{\"auths\": {\"quay.io\": {\"auth\": \"!!\"}}}", "quay.io").ok());
  EXPECT_EQ("  {}", loadDockerConfig("  {}").value());
  EXPECT_FALSE(loadDockerConfig("/nonexistent/config.json").ok());
}

TEST(RegistryAuthTest, ReferencesWithoutARegistryUseTheFlag) {
  auto hub = parseReference("busybox");
  ASSERT_TRUE(hub.ok());
  EXPECT_EQ("https://registry-1.docker.io", registryUrl(*hub, "https://registry-1.docker.io/"));
  EXPECT_EQ("http://mirror:5000", registryUrl(*hub, "http://mirror:5000"));
  EXPECT_EQ("https://mirror", registryUrl(*hub, "mirror"));

  auto own = parseReference("quay.io/coreos/etcd");
  ASSERT_TRUE(own.ok());
  EXPECT_EQ("https://quay.io", registryUrl(*own, "http://mirror:5000"));
  auto loopback = parseReference("127.0.0.1:5000/a");
  ASSERT_TRUE(loopback.ok());
  EXPECT_EQ("http://127.0.0.1:5000", registryUrl(*loopback, "https://registry-1.docker.io"));
  auto named = parseReference("registry.local:5000/a");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ("http://registry.local:5000", registryUrl(*named, "http://registry.local:5000"));
}

}  // namespace
}  // namespace mesos::internal::slave::provisioner::docker
