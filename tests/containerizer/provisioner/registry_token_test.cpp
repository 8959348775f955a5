// Registry token authentication, end to end: the mesos-provisioner helper
// against a small registry on loopback that serves the test image's OCI
// layout only to holders of a Bearer token, which its token endpoint hands
// out (to holders of Basic credentials, when the test asks for them). It
// counts requests, so a cached pull is seen to make none.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "common/base64.hpp"
#include "common/json.hpp"
#include "slave/containerizer/provisioner/docker/digest.hpp"
#include "slave/containerizer/provisioner/docker/manifest.hpp"
#include "containerizer/provisioner/image_helpers.hpp"

namespace mesos::internal::slave::provisioner {
namespace {

using testing::Ran;
using testing::readText;
using testing::ScratchDir;

constexpr char kToken[] = "t0k3n";

class TokenRegistry {
 public:
  // Serves `layout`'s tag latest as test/busybox:latest. `basic` is the
  // Authorization the token endpoint wants ("" for none).
  TokenRegistry(std::string layout, std::string basic)
      : layout_(std::move(layout)), basic_(std::move(basic)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    EXPECT_EQ(0, ::bind(listener_, reinterpret_cast<sockaddr*>(&address), length));
    EXPECT_EQ(0, ::listen(listener_, 16));
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }

  ~TokenRegistry() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
  }

  std::string hostPort() const { return "127.0.0.1:" + std::to_string(port_); }

  int requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    int total = 0;
    for (const auto& [path, count] : requests_) total += count;
    return total;
  }
  int requests(const std::string& prefix) {
    std::lock_guard<std::mutex> lock(mutex_);
    int total = 0;
    for (const auto& [path, count] : requests_) total += path.rfind(prefix, 0) == 0 ? count : 0;
    return total;
  }

 private:
  struct Answer {
    int status = 200;
    std::string type = "application/json";
    std::string body;
    std::string challenge;
  };

  void serve() {
    while (!stopping_) {
      int connection = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (connection < 0) continue;
      std::string request;
      char buffer[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = ::read(connection, buffer, sizeof(buffer));
        if (n <= 0) break;
        request.append(buffer, static_cast<size_t>(n));
      }
      Answer answer = handle(request);
      std::string reason = answer.status == 200   ? "OK"
                           : answer.status == 401 ? "Unauthorized"
                                                  : "Not Found";
      std::string head = "HTTP/1.1 " + std::to_string(answer.status) + " " + reason +
                         "\r\nContent-Type: " + answer.type +
                         "\r\nContent-Length: " + std::to_string(answer.body.size()) +
                         "\r\nConnection: close\r\n";
      if (!answer.challenge.empty()) head += "WWW-Authenticate: " + answer.challenge + "\r\n";
      std::string response = head + "\r\n" + answer.body;
      for (size_t done = 0; done < response.size();) {
        ssize_t n = ::write(connection, response.data() + done, response.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      ::close(connection);
    }
  }

  Answer handle(const std::string& request) {
    size_t space = request.find(' ');
    std::string target = request.substr(space + 1, request.find(' ', space + 1) - space - 1);
    std::string authorization;
    if (size_t at = request.find("\r\nAuthorization: "); at != std::string::npos) {
      size_t start = at + 17;
      authorization = request.substr(start, request.find("\r\n", start) - start);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++requests_[target];
    }
    auto error = [](int status, const std::string& code) {
      Answer answer;
      answer.status = status;
      answer.body = "{\"errors\":[{\"code\":\"" + code + "\",\"message\":\"" + code + "\"}]}";
      return answer;
    };
    if (target.rfind("/token?", 0) == 0) {
      if (!basic_.empty() && authorization != basic_) return error(401, "UNAUTHORIZED");
      if (target.find("service=test-service") == std::string::npos ||
          target.find("scope=repository%3Atest%2Fbusybox%3Apull") == std::string::npos) {
        return error(404, "BAD_TOKEN_REQUEST");
      }
      Answer answer;
      answer.body = std::string("{\"token\":\"") + kToken + "\"}";
      return answer;
    }
    if (authorization != std::string("Bearer ") + kToken) {
      Answer answer = error(401, "UNAUTHORIZED");
      answer.challenge = "Bearer realm=\"http://" + hostPort() +
                         "/token\",service=\"test-service\",scope=\"repository:test/busybox:pull\"";
      return answer;
    }
    const std::string prefix = "/v2/test/busybox/";
    if (target == prefix + "manifests/latest") {
      auto index = json::parse(readText(layout_ + "/index.json"));
      for (const json::Value& entry : (*index)["manifests"].array()) {
        if (entry["annotations"]["org.opencontainers.image.ref.name"] == json::Value("latest")) {
          Answer answer;
          answer.type = entry["mediaType"].string();
          answer.body = readText(layout_ + "/blobs/sha256/" + entry["digest"].string().substr(7));
          return answer;
        }
      }
      return error(404, "MANIFEST_UNKNOWN");
    }
    if (target == prefix + "manifests/multi") {
      Answer answer;
      answer.type = "application/vnd.oci.image.index.v1+json";
      answer.body = multiIndex();
      return answer;
    }
    bool manifest = target.rfind(prefix + "manifests/sha256:", 0) == 0;
    if (manifest || target.rfind(prefix + "blobs/sha256:", 0) == 0) {
      std::string hex = target.substr(target.find("sha256:") + 7);
      if (::access((layout_ + "/blobs/sha256/" + hex).c_str(), F_OK) != 0) {
        return error(404, manifest ? "MANIFEST_UNKNOWN" : "BLOB_UNKNOWN");
      }
      if (hex.find('/') != std::string::npos || hex.find('.') != std::string::npos) {
        return error(404, "BLOB_UNKNOWN");
      }
      Answer answer;
      answer.type =
          manifest ? "application/vnd.oci.image.manifest.v1+json" : "application/octet-stream";
      answer.body = readText(layout_ + "/blobs/sha256/" + hex);
      return answer;
    }
    return error(404, "NAME_UNKNOWN");
  }

  // An index of the tag latest for this machine and another architecture.
  std::string multiIndex() const {
    auto index = json::parse(readText(layout_ + "/index.json"));
    json::Object mine;
    for (const json::Value& entry : (*index)["manifests"].array()) {
      if (entry["annotations"]["org.opencontainers.image.ref.name"] == json::Value("latest")) {
        mine = entry.object();
      }
    }
    mine.erase("annotations");
    mine["platform"] =
        json::Object{{"os", "linux"}, {"architecture", docker::machineArchitecture()}};
    json::Object other = mine;
    other["digest"] = "sha256:" + std::string(64, '0');
    other["platform"] = json::Object{{"os", "linux"}, {"architecture", "other-arch"}};
    json::Object document;
    document["schemaVersion"] = 2;
    document["mediaType"] = "application/vnd.oci.image.index.v1+json";
    document["manifests"] = json::Array{other, mine};
    return json::stringify(document);
  }

 public:
  std::string multiDigest() const { return docker::sha256Of(multiIndex()); }

 private:
  std::string layout_;
  std::string basic_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::map<std::string, int> requests_;
};

class RegistryTokenTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* tool : {"umoci", "/bin/busybox"}) {
      if (!testing::haveProgram(tool)) missing_ = tool;
    }
    if (!missing_.empty()) return;
    images_ = std::make_unique<ScratchDir>();
    buildFailure_ = testing::buildTestImages(images_->path());
  }
  static void TearDownTestSuite() { images_.reset(); }

  void SetUp() override {
    if (!missing_.empty())
      GTEST_SKIP() << "the image tests need " << missing_ << " (install-deps.sh)";
    ASSERT_EQ("", buildFailure_);
  }

  Ran pull(const TokenRegistry& registry, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {MESOS_PROVISIONER_PATH, "pull",
                                     "--image=" + registry.hostPort() + "/test/busybox",
                                     "--docker_store_dir=" + scratch_.path() + "/store"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::run(argv, scratch_.path());
  }

  std::string layout() const { return images_->path() + "/oci"; }

  static inline std::string missing_;
  static inline std::string buildFailure_;
  static inline std::unique_ptr<ScratchDir> images_;
  ScratchDir scratch_;
};

TEST_F(RegistryTokenTest, ABearerChallengeIsAnsweredWithAToken) {
  TokenRegistry registry(layout(), "");
  Ran ran = pull(registry);
  ASSERT_EQ(0, ran.status) << ran.err;
  auto answer = json::parse(ran.out);
  ASSERT_TRUE(answer.ok()) << ran.out;
  EXPECT_EQ(2u, (*answer)["layers"].array().size());
  EXPECT_EQ(1, registry.requests("/token?"));

  // The second pull is served by the store: not one request.
  int before = registry.requests();
  Ran again = pull(registry);
  ASSERT_EQ(0, again.status) << again.err;
  EXPECT_EQ(before, registry.requests());
  EXPECT_TRUE((*json::parse(again.out))["cached"].boolean());
}

TEST_F(RegistryTokenTest, AnIndexGivesTheManifestOfThisMachinesArchitecture) {
  TokenRegistry registry(layout(), "");
  Ran ran = testing::run(
      {MESOS_PROVISIONER_PATH, "pull", "--image=" + registry.hostPort() + "/test/busybox:multi",
       "--docker_store_dir=" + scratch_.path() + "/store"},
      scratch_.path());
  ASSERT_EQ(0, ran.status) << ran.err;
  auto answer = json::parse(ran.out);
  ASSERT_TRUE(answer.ok()) << ran.out;
  EXPECT_EQ(2u, (*answer)["layers"].array().size());
  EXPECT_EQ(registry.multiDigest(), (*answer)["manifest_digest"].string());
  EXPECT_EQ(0, registry.requests("/v2/test/busybox/manifests/sha256:" + std::string(64, '0')));

  // The image by the index's digest is served by the store.
  int before = registry.requests();
  Ran byDigest =
      testing::run({MESOS_PROVISIONER_PATH, "pull",
                    "--image=" + registry.hostPort() + "/test/busybox@" + registry.multiDigest(),
                    "--docker_store_dir=" + scratch_.path() + "/store"},
                   scratch_.path());
  ASSERT_EQ(0, byDigest.status) << byDigest.err;
  EXPECT_EQ(before, registry.requests());
}

TEST(ImageIndexTest, AnIndexWithoutThisPlatformSaysWhatItOffers) {
  docker::Index index;
  index.manifests.push_back({"", "sha256:" + std::string(64, '1'), 10, "linux", "arm64"});
  index.manifests.push_back({"", "sha256:" + std::string(64, '2'), 10, "windows", "amd64"});
  auto chosen = docker::selectPlatform(index, "s390x");
  ASSERT_FALSE(chosen.ok());
  EXPECT_NE(std::string::npos, chosen.error().message.find("linux/s390x"));
  EXPECT_NE(std::string::npos, chosen.error().message.find("linux/arm64, windows/amd64"));
  auto arm = docker::selectPlatform(index, "arm64");
  ASSERT_TRUE(arm.ok());
  EXPECT_EQ("sha256:" + std::string(64, '1'), arm->digest);
}

TEST(ImageIndexTest, SchemaOneManifestsAreRefused) {
  auto parsed = docker::parseManifest("{\"schemaVersion\": 1, \"fsLayers\": []}", "");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(std::string::npos, parsed.error().message.find("schema 1"));
}

TEST_F(RegistryTokenTest, TheTokenServerGetsTheDockerConfigsCredentials) {
  std::string auth = base64::encode("alice:secret");
  TokenRegistry registry(layout(), "Basic " + auth);

  Ran refused = pull(registry);
  EXPECT_EQ(1, refused.status);
  EXPECT_NE(std::string::npos, refused.err.find("token server answered 401")) << refused.err;

  std::string config = scratch_.path() + "/config.json";
  testing::writeText(config, "{\"auths\": {\"http://" + registry.hostPort() + "\": {\"auth\": \"" +
                                 auth + "\"}}}");
  Ran ran = pull(registry, {"--docker_config=" + config});
  ASSERT_EQ(0, ran.status) << ran.err;
  EXPECT_EQ(2u, (*json::parse(ran.out))["layers"].array().size());
}

}  // namespace
}  // namespace mesos::internal::slave::provisioner
