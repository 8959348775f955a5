// Image references read as Docker reads them (docker/reference.hpp).
#include <gtest/gtest.h>

#include "slave/containerizer/provisioner/docker/reference.hpp"

namespace mesos::internal::slave::provisioner::docker {
namespace {

Reference parsed(const std::string& text) {
  auto reference = parseReference(text);
  EXPECT_TRUE(reference.ok()) << text << ": " << reference.error().message;
  return reference.ok() ? reference.value() : Reference{};
}

std::string failure(const std::string& text) {
  auto reference = parseReference(text);
  EXPECT_FALSE(reference.ok()) << text << " was taken as " << reference->canonical();
  return reference.ok() ? "" : reference.error().message;
}

const std::string kDigest = "sha256:" + std::string(64, 'a');

TEST(ImageReferenceTest, OneNameIsAnOfficialImageOnDockerHubTaggedLatest) {
  Reference reference = parsed("busybox");
  EXPECT_EQ(kDefaultRegistry, reference.registry);
  EXPECT_FALSE(reference.registryGiven);
  EXPECT_EQ("library/busybox", reference.repository);
  EXPECT_EQ("latest", reference.tag);
  EXPECT_EQ("", reference.digest);
  EXPECT_EQ("registry-1.docker.io/library/busybox:latest", reference.canonical());
}

TEST(ImageReferenceTest, TwoComponentsStayOnDockerHubWithoutLibrary) {
  Reference reference = parsed("mesosphere/marathon:1.4");
  EXPECT_EQ(kDefaultRegistry, reference.registry);
  EXPECT_EQ("mesosphere/marathon", reference.repository);
  EXPECT_EQ("1.4", reference.tag);
}

TEST(ImageReferenceTest, AFirstComponentWithADotColonOrLocalhostIsTheRegistry) {
  Reference port = parsed("127.0.0.1:5000/test/busybox:v1");
  EXPECT_TRUE(port.registryGiven);
  EXPECT_EQ("127.0.0.1:5000", port.registry);
  EXPECT_EQ("test/busybox", port.repository);
  EXPECT_EQ("v1", port.tag);

  Reference dotted = parsed("quay.io/coreos/etcd");
  EXPECT_EQ("quay.io", dotted.registry);
  EXPECT_EQ("coreos/etcd", dotted.repository);
  EXPECT_EQ("latest", dotted.tag);

  Reference local = parsed("localhost/busybox");
  EXPECT_EQ("localhost", local.registry);
  EXPECT_EQ("busybox", local.repository);  // no library/ off Docker Hub

  Reference ipv6 = parsed("[::1]:5000/busybox");
  EXPECT_EQ("[::1]:5000", ipv6.registry);
}

TEST(ImageReferenceTest, DockerHubsOtherNamesAreTheDefaultRegistry) {
  EXPECT_EQ(kDefaultRegistry, parsed("docker.io/busybox").registry);
  EXPECT_EQ("library/busybox", parsed("docker.io/busybox").repository);
  EXPECT_EQ(kDefaultRegistry, parsed("index.docker.io/library/busybox").registry);
}

TEST(ImageReferenceTest, DigestsWithOrWithoutATag) {
  Reference digest = parsed("busybox@" + kDigest);
  EXPECT_EQ("", digest.tag);
  EXPECT_EQ(kDigest, digest.digest);
  EXPECT_EQ(kDigest, digest.manifestReference());
  EXPECT_EQ("registry-1.docker.io/library/busybox@" + kDigest, digest.canonical());

  Reference both = parsed("registry.example:443/a/b:1.0@" + kDigest);
  EXPECT_EQ("registry.example:443", both.registry);
  EXPECT_EQ("1.0", both.tag);
  EXPECT_EQ(kDigest, both.manifestReference());
}

TEST(ImageReferenceTest, ComponentsMayJoinWithDotsUnderscoresAndDashes) {
  EXPECT_EQ("a/b.c_d__e---f", parsed("a/b.c_d__e---f").repository);
}

TEST(ImageReferenceTest, BadReferencesSayWhatIsWrong) {
  EXPECT_NE(std::string::npos, failure("").find("empty"));
  EXPECT_NE(std::string::npos, failure("Busybox").find("lower case"));
  EXPECT_NE(std::string::npos, failure("busybox:").find("tag"));
  EXPECT_NE(std::string::npos, failure("busybox:-x").find("tag"));
  EXPECT_NE(std::string::npos, failure("busybox@md5:abc").find("sha256"));
  EXPECT_NE(std::string::npos, failure("busybox@sha256:abc").find("64"));
  EXPECT_NE(std::string::npos, failure("busybox@abc").find("algorithm:hex"));
  EXPECT_NE(std::string::npos, failure("host:99999/busybox").find("port"));
  EXPECT_NE(std::string::npos, failure("a//b").find("empty component"));
  EXPECT_NE(std::string::npos, failure("a/-b").find("component"));
  EXPECT_NE(std::string::npos, failure("busy box").find("white space"));
  EXPECT_NE(std::string::npos, failure(":latest").find("no repository"));
  EXPECT_NE(std::string::npos, failure("a/" + std::string(260, 'b')).find("255"));
}

TEST(ImageReferenceTest, Sha256DigestsAreLowerCaseHex) {
  EXPECT_TRUE(isSha256Digest(kDigest));
  EXPECT_FALSE(isSha256Digest("sha256:" + std::string(64, 'A')));
  EXPECT_FALSE(isSha256Digest("sha256:" + std::string(63, 'a')));
  EXPECT_FALSE(isSha256Digest("sha512:" + std::string(64, 'a')));
}

}  // namespace
}  // namespace mesos::internal::slave::provisioner::docker
