// TLS between runtimes and with outside clients: certificates made by the
// openssl tool for each test (support/certs.hpp), real sockets on loopback.
#include <stdlib.h>

#include <functional>
#include <memory>

#include <gtest/gtest.h>

#include "messages.pb.h"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "process/tls.hpp"
#include "support/certs.hpp"
#include "support/net.hpp"

namespace mesos::test {
namespace {

using mesos::internal::ExecutorToFrameworkMessage;
using mesos::internal::FrameworkToExecutorMessage;
using process::Actor;
using process::Runtime;
using process::TlsOptions;
using process::UPID;

FrameworkToExecutorMessage note(const std::string& data) {
  FrameworkToExecutorMessage m;
  m.mutable_slave_id()->set_value("s");
  m.mutable_framework_id()->set_value("f");
  m.mutable_executor_id()->set_value("e");
  m.set_data(data);
  return m;
}

// Records the notes it receives and who sent them; answers each; records
// the pids it watched that went away.
class Peer : public Actor {
 public:
  explicit Peer(std::string id) : Actor(std::move(id)) {}
  std::vector<std::string> received;
  std::vector<std::string> senders;
  std::vector<UPID> exits;
  std::function<void(const UPID&)> onExited;  // set before spawning
  void sendTo(const UPID& to, const std::string& data) { send(to, note(data)); }
  void watch(const UPID& pid) { link(pid); }

 protected:
  void initialize() override {
    on(&Peer::onNote);
    on(&Peer::onReply);
  }
  void exited(const UPID& pid) override {
    exits.push_back(pid);
    if (onExited) onExited(pid);
  }

 private:
  void onNote(const UPID& from, const FrameworkToExecutorMessage& message) {
    received.push_back(message.data());
    senders.push_back(from.toString());
    ExecutorToFrameworkMessage reply;
    reply.mutable_slave_id()->CopyFrom(message.slave_id());
    reply.mutable_framework_id()->CopyFrom(message.framework_id());
    reply.mutable_executor_id()->CopyFrom(message.executor_id());
    reply.set_data("echo:" + message.data());
    send(from, std::move(reply));
  }
  void onReply(const UPID& from, const ExecutorToFrameworkMessage& message) {
    received.push_back(message.data());
    senders.push_back(from.toString());
  }
};

std::unique_ptr<Runtime> tlsRuntime(const TlsOptions& tls, const std::string& ip = "127.0.0.1") {
  Runtime::Options options;
  options.ip = ip;
  options.tls = tls;
  auto runtime = Runtime::create(options);
  CHECK(runtime.ok()) << runtime.error().message;
  return std::move(runtime).value();
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!certs_.ok()) GTEST_SKIP() << certs_.error();
    ASSERT_TRUE(certs_.make("server", "IP:127.0.0.1,DNS:localhost")) << certs_.error();
    ASSERT_TRUE(certs_.make("client", "IP:127.0.0.1,DNS:localhost")) << certs_.error();
  }

  // `sender` (of `from`) sends a note to `to` and waits for the answer.
  static bool roundTrip(Runtime& from, const process::Pid<Peer>& sender, const UPID& to) {
    auto reply = from.hooks().await<ExecutorToFrameworkMessage>();
    process::dispatch(sender, &Peer::sendTo, to, std::string("hello"));
    return reply.await();
  }

  TestCertificates certs_;
};

TEST_F(TlsTest, TwoRuntimesTalkOverTlsWithVerifiedCertificates) {
  auto server = tlsRuntime(certs_.options("server"));
  auto client = tlsRuntime(certs_.options("client"));
  auto a = client->spawn<Peer>("a");
  auto b = server->spawn<Peer>("b");
  ASSERT_TRUE(roundTrip(*client, a.pid(), b.pid()));
  server->settle();
  client->settle();
  EXPECT_EQ(std::vector<std::string>{"hello"}, b->received);
  EXPECT_EQ(std::vector<std::string>{a.pid().toString()}, b->senders);
  EXPECT_EQ(std::vector<std::string>{"echo:hello"}, a->received);
}

TEST_F(TlsTest, HttpIsServedOverTlsOnTheSamePort) {
  auto server = tlsRuntime(certs_.options("server"));
  std::string body, error;
  EXPECT_EQ(200, httpsGet(server->address(), "/health", certs_.caFile(), certs_.cert("client"),
                          certs_.key("client"), &body, &error))
      << error;
}

TEST_F(TlsTest, AClientWithoutACertificateIsRefusedWhenOneIsRequired) {
  auto server = tlsRuntime(certs_.options("server"));
  std::string error;
  EXPECT_EQ(0, httpsGet(server->address(), "/health", certs_.caFile(), "", "", nullptr, &error));
  // Without LIBPROCESS_SSL_REQUIRE_CERT, the same client is served.
  TlsOptions relaxed = certs_.options("server");
  relaxed.requireClientCert = false;
  auto open = tlsRuntime(relaxed);
  EXPECT_EQ(200, httpsGet(open->address(), "/health", certs_.caFile(), "", "", nullptr, &error))
      << error;
}

TEST_F(TlsTest, PlainPeersAreServedOnlyWithDowngrade) {
  TlsOptions strict = certs_.options("server");
  auto server = tlsRuntime(strict);
  // Without downgrade: a plain request gets no answer, the connection closes.
  {
    TcpClient plain(server->address());
    ASSERT_TRUE(plain.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"));
    EXPECT_TRUE(plain.awaitClose());
  }
  TlsOptions downgrade = strict;
  downgrade.supportDowngrade = true;
  auto mixed = tlsRuntime(downgrade);
  EXPECT_EQ(200, httpGet(mixed->address(), "/health"));
  std::string error;
  EXPECT_EQ(200, httpsGet(mixed->address(), "/health", certs_.caFile(), certs_.cert("client"),
                          certs_.key("client"), nullptr, &error))
      << error;
  // And a plain runtime's messages reach an actor there.
  Runtime::Options plainOptions;
  plainOptions.ip = "127.0.0.1";
  auto plainRuntime = std::move(Runtime::create(plainOptions)).value();
  auto a = plainRuntime->spawn<Peer>("a");
  auto b = mixed->spawn<Peer>("b");
  auto arrived = mixed->hooks().await<FrameworkToExecutorMessage>();
  process::dispatch(a.pid(), &Peer::sendTo, UPID(b.pid()), std::string("plain"));
  ASSERT_TRUE(arrived.await());
}

// `client` links to an actor of `server` and sends it a note: with a
// certificate `client` refuses, the link breaks and nothing is delivered.
void expectRefused(Runtime& client, Runtime& server) {
  auto a = std::make_unique<Peer>("a");
  auto gone = std::make_shared<process::Promise<UPID>>();
  a->onExited = [gone](const UPID& pid) { gone->set(pid); };
  auto spawned = client.spawn(std::move(a));
  auto b = server.spawn<Peer>("b");
  process::dispatch(spawned.pid(), &Peer::watch, UPID(b.pid()));
  process::dispatch(spawned.pid(), &Peer::sendTo, UPID(b.pid()), std::string("refused"));
  ASSERT_TRUE(gone->future().await());
  EXPECT_EQ(UPID(b.pid()), gone->future().get());
  server.settle();
  EXPECT_TRUE(b->received.empty());
}

TEST_F(TlsTest, AnExpiredCertificateIsRefused) {
  ASSERT_TRUE(certs_.make("expired", "IP:127.0.0.1,DNS:localhost", true)) << certs_.error();
  auto server = tlsRuntime(certs_.options("expired"));
  auto client = tlsRuntime(certs_.options("client"));
  expectRefused(*client, *server);
}

TEST_F(TlsTest, ACertificateFromAnotherAuthorityIsRefused) {
  ASSERT_TRUE(certs_.make("stranger", "IP:127.0.0.1,DNS:localhost", false, true))
      << certs_.error();
  auto server = tlsRuntime(certs_.options("stranger"));
  auto client = tlsRuntime(certs_.options("client"));
  expectRefused(*client, *server);
}

TEST_F(TlsTest, AServerCertificateNamingAnotherHostIsRefused) {
  ASSERT_TRUE(certs_.make("elsewhere", "IP:10.1.2.3")) << certs_.error();
  auto server = tlsRuntime(certs_.options("elsewhere"));
  auto client = tlsRuntime(certs_.options("client"));
  expectRefused(*client, *server);
}

TEST_F(TlsTest, ACertificateForAnotherAddressCannotSpeakForThisOne) {
  ASSERT_TRUE(certs_.make("two", "IP:127.0.0.2")) << certs_.error();
  auto server = tlsRuntime(certs_.options("server"));
  auto b = server->spawn<Peer>("b");
  const std::string master = "master@" + server->address().toString();
  const std::string path = "/b/mesos.internal.FrameworkToExecutorMessage";
  auto post = [&](const std::string& from, const std::string& data, const std::string& cert,
                  std::string* answer) {
    return httpsPost(server->address(), path, {{"Libprocess-From", from}},
                     note(data).SerializeAsString(), certs_.caFile(), certs_.cert(cert),
                     certs_.key(cert), answer);
  };
  // From 127.0.0.1, so the address check passes; the certificate names
  // 127.0.0.2 only: neither the master's pid nor any other at 127.0.0.1.
  std::string answer;
  EXPECT_EQ(403, post(master, "forged", "two", &answer));
  EXPECT_NE(std::string::npos, answer.find("its certificate does not name it")) << answer;
  EXPECT_EQ(403, post("peer@127.0.0.1:1", "forged too", "two", &answer));
  // A certificate naming 127.0.0.1 speaks for it.
  auto honest = server->hooks().await<FrameworkToExecutorMessage>();
  EXPECT_EQ(202, post("peer@127.0.0.1:1", "honest", "client", &answer)) << answer;
  ASSERT_TRUE(honest.await());
  server->settle();
  EXPECT_EQ(std::vector<std::string>{"honest"}, b->received);
  EXPECT_EQ(std::vector<std::string>{"peer@127.0.0.1:1"}, b->senders);
}

TEST_F(TlsTest, RuntimesOnTwoAddressesTalkWithCertificatesNamingThem) {
  if (!loopbackAliasesWork()) GTEST_SKIP() << "cannot bind 127.0.0.2 here";
  ASSERT_TRUE(certs_.make("two", "IP:127.0.0.2")) << certs_.error();
  auto here = tlsRuntime(certs_.options("server"), "127.0.0.1");
  auto there = tlsRuntime(certs_.options("two"), "127.0.0.2");
  auto a = there->spawn<Peer>("a");
  auto b = here->spawn<Peer>("b");
  ASSERT_TRUE(roundTrip(*there, a.pid(), b.pid()));
  here->settle();
  EXPECT_EQ(std::vector<std::string>{a.pid().toString()}, b->senders);
}

TEST_F(TlsTest, ABadConfigurationIsOneLineNamingTheVariable) {
  TlsOptions missing = certs_.options("server");
  missing.certFile = certs_.dir() + "/nothing.crt";
  auto created = process::TlsContext::create(missing);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(0u, created.error().message.find("LIBPROCESS_SSL_CERT_FILE: cannot load"))
      << created.error().message;
  EXPECT_EQ(std::string::npos, created.error().message.find('\n'));

  TlsOptions mismatched = certs_.options("server");
  mismatched.keyFile = certs_.key("client");
  created = process::TlsContext::create(mismatched);
  ASSERT_FALSE(created.ok());
  EXPECT_NE(std::string::npos, created.error().message.find("does not match the certificate"))
      << created.error().message;

  TlsOptions noKey = certs_.options("server");
  noKey.keyFile.clear();
  Runtime::Options options;
  options.ip = "127.0.0.1";
  options.tls = noKey;
  auto runtime = Runtime::create(options);
  ASSERT_FALSE(runtime.ok());
  EXPECT_NE(std::string::npos, runtime.error().message.find("LIBPROCESS_SSL_KEY_FILE"));
}

TEST(TlsOptionsTest, ReadsApachesVariables) {
  setenv("LIBPROCESS_SSL_ENABLED", "true", 1);
  setenv("LIBPROCESS_SSL_REQUIRE_CERT", "1", 1);
  setenv("SSL_VERIFY_IPADD", "true", 1);
  setenv("LIBPROCESS_SSL_ENABLE_TLS_V1_3", "true", 1);
  auto options = TlsOptions::fromEnvironment();
  ASSERT_TRUE(options.ok()) << options.error().message;
  EXPECT_TRUE(options->enabled);
  EXPECT_TRUE(options->requireClientCert);
  EXPECT_TRUE(options->verifyServerCert);  // implied, as Apache's
  EXPECT_TRUE(options->verifyIpAdd);       // the older SSL_ prefix
  EXPECT_TRUE(options->enableTlsV1_3);
  EXPECT_TRUE(options->enableTlsV1_2);
  EXPECT_FALSE(options->supportDowngrade);

  setenv("LIBPROCESS_SSL_SUPPORT_DOWNGRADE", "maybe", 1);
  options = TlsOptions::fromEnvironment();
  ASSERT_FALSE(options.ok());
  EXPECT_EQ("LIBPROCESS_SSL_SUPPORT_DOWNGRADE: 'maybe' is not a boolean (write true or false)",
            options.error().message);
  unsetenv("LIBPROCESS_SSL_SUPPORT_DOWNGRADE");

  setenv("LIBPROCESS_SSL_REQUIRE_CERTS", "true", 1);
  options = TlsOptions::fromEnvironment();
  ASSERT_FALSE(options.ok());
  EXPECT_NE(std::string::npos, options.error().message.find("LIBPROCESS_SSL_REQUIRE_CERTS"));

  for (const char* name : {"LIBPROCESS_SSL_ENABLED", "LIBPROCESS_SSL_REQUIRE_CERT",
                           "SSL_VERIFY_IPADD", "LIBPROCESS_SSL_ENABLE_TLS_V1_3",
                           "LIBPROCESS_SSL_REQUIRE_CERTS"}) {
    unsetenv(name);
  }
}

}  // namespace
}  // namespace mesos::test
