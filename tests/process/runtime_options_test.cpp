// Runtime::Options' addresses: listening on one address (the wildcard
// 0.0.0.0 included) while advertising another in every UPID, what
// isLocal() and the in-process registry use, and the LIBPROCESS_*
// variables the drivers' runtime reads.
#include <stdlib.h>

#include <map>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "messages.pb.h"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"

namespace mesos::test {
namespace {

using mesos::internal::FrameworkToExecutorMessage;
using process::Address;
using process::Runtime;
using process::UPID;

std::unique_ptr<Runtime> create(Runtime::Options options) {
  options.pauseClock = true;
  auto runtime = Runtime::create(options);
  CHECK(runtime.ok()) << runtime.error().message;
  return std::move(runtime).value();
}

Runtime::Options listening(const std::string& ip) {
  Runtime::Options options;
  options.ip = ip;
  return options;
}

FrameworkToExecutorMessage note(const std::string& data) {
  FrameworkToExecutorMessage m;
  m.mutable_slave_id()->set_value("s");
  m.mutable_framework_id()->set_value("f");
  m.mutable_executor_id()->set_value("e");
  m.set_data(data);
  return m;
}

// Keeps what it is sent; sends notes on request.
class Inbox : public process::Actor {
 public:
  explicit Inbox(std::string id) : Actor(std::move(id)) {}
  std::vector<std::string> received;
  std::vector<UPID> senders;
  void sendTo(const UPID& to, const std::string& data) { send(to, note(data)); }
  size_t count() const { return received.size(); }

 protected:
  void initialize() override { on(&Inbox::onNote); }

 private:
  void onNote(const UPID& from, const FrameworkToExecutorMessage& message) {
    received.push_back(message.data());
    senders.push_back(from);
  }
};

const std::string kNote = FrameworkToExecutorMessage::descriptor()->full_name();

TEST(RuntimeOptionsTest, ListensOnEveryInterfaceAndAdvertisesTheGivenIp) {
  Runtime::Options options = listening("0.0.0.0");
  options.advertiseIp = "127.0.0.1";
  auto runtime = create(options);
  EXPECT_EQ(0u, runtime->listenAddress().ip);
  EXPECT_NE(0, runtime->listenAddress().port);
  EXPECT_EQ((Address{0x7f000001, runtime->listenAddress().port}), runtime->address());

  auto inbox = runtime->spawn<Inbox>("inbox");
  EXPECT_EQ(runtime->address(), inbox.pid().address);
  EXPECT_EQ(runtime.get(), Runtime::at(runtime->address()));
  EXPECT_EQ(nullptr, Runtime::at(runtime->listenAddress()));
  EXPECT_EQ(200, httpGet(runtime->address(), "/health"));
}

TEST(RuntimeOptionsTest, PeersReachTheAdvertisedAddressOverTcpAndInProcess) {
  Runtime::Options options = listening("0.0.0.0");
  options.advertiseIp = "127.0.0.1";
  auto advertising = create(options);
  auto plain = create(listening("127.0.0.1"));
  auto there = advertising->spawn<Inbox>("there");
  auto here = plain->spawn<Inbox>("here");

  // From another runtime: over TCP to the advertised address, and the reply
  // comes back to the plain runtime's UPID.
  auto arrived = advertising->hooks().await(process::MessageMatch{kNote, here.pid(), there.pid()});
  process::dispatch(here.pid(), &Inbox::sendTo, UPID(there.pid()), std::string("over tcp"));
  ASSERT_TRUE(arrived.await());
  EXPECT_FALSE(arrived.get().peer.empty()) << "expected it to cross TCP";
  auto back = plain->hooks().await(process::MessageMatch{kNote, there.pid(), here.pid()});
  process::dispatch(there.pid(), &Inbox::sendTo, UPID(here.pid()), std::string("reply"));
  ASSERT_TRUE(back.await());

  // In this OS process a bare UPID (no cached reference) with the
  // advertised address finds the actor through the registry.
  process::Pid<Inbox> bare(UPID(there.pid().id, there.pid().address));
  auto count = process::dispatch(bare, &Inbox::count);
  ASSERT_TRUE(count.await());
  EXPECT_EQ(1u, count.get());
}

TEST(RuntimeOptionsTest, AnAdvertisedPortIsLocalAndTheBoundOneStillServes) {
  uint16_t advertisedPort = freePort();
  Runtime::Options options = listening("127.0.0.1");
  options.advertisePort = advertisedPort;
  auto runtime = create(options);
  auto other = create(listening("127.0.0.1"));
  ASSERT_NE(advertisedPort, runtime->listenAddress().port);
  EXPECT_EQ((Address{0x7f000001, advertisedPort}), runtime->address());

  auto a = runtime->spawn<Inbox>("a");
  auto b = runtime->spawn<Inbox>("b");
  EXPECT_TRUE(runtime->isLocal(b.pid()));
  EXPECT_FALSE(runtime->isLocal(UPID("b", runtime->listenAddress())));

  // Within the runtime: delivered in memory (no peer), not sent to the
  // advertised port, where nothing listens.
  auto local = runtime->hooks().await(process::MessageMatch{kNote, a.pid(), b.pid()});
  process::dispatch(a.pid(), &Inbox::sendTo, UPID("b", runtime->address()), std::string("local"));
  ASSERT_TRUE(local.await());
  EXPECT_TRUE(local.get().peer.empty());

  // A peer that reaches the bound port (as a port forward would) gets its
  // message delivered: the receiver is named by id.
  auto c = other->spawn<Inbox>("c");
  auto forwarded =
      runtime->hooks().await(process::MessageMatch{kNote, UPID(c.pid()), std::nullopt});
  process::dispatch(c.pid(), &Inbox::sendTo, UPID("b", runtime->listenAddress()),
                    std::string("forwarded"));
  ASSERT_TRUE(forwarded.await());
  EXPECT_EQ(UPID("b", runtime->address()), forwarded.get().to);
}

TEST(RuntimeOptionsTest, WildcardWithoutAdvertiseIpAdvertisesThisHost) {
  auto runtime = create(listening("0.0.0.0"));
  Runtime::HostAddress host = Runtime::hostAddress();
  EXPECT_FALSE(host.source.empty());
  EXPECT_EQ(Address::parseIp(host.ip).value(), runtime->address().ip);
  EXPECT_NE(0u, runtime->address().ip);
  EXPECT_EQ(runtime->listenAddress().port, runtime->address().port);
  EXPECT_EQ(200, httpGet(runtime->address(), "/health"));
}

TEST(RuntimeOptionsTest, AnEmptyIpListensOnThisHost) {
  auto runtime = create(listening(""));
  EXPECT_EQ(Address::parseIp(Runtime::hostAddress().ip).value(), runtime->listenAddress().ip);
  EXPECT_EQ(runtime->listenAddress(), runtime->address());
}

TEST(RuntimeOptionsTest, BadAddressesAreRefusedWithTheReason) {
  auto fails = [](Runtime::Options options) -> std::string {
    auto runtime = Runtime::create(options);
    return runtime.ok() ? "" : runtime.error().message;
  };
  Runtime::Options wildcard = listening("127.0.0.1");
  wildcard.advertiseIp = "0.0.0.0";
  EXPECT_NE(std::string::npos, fails(wildcard).find("wildcard"));
  Runtime::Options name = listening("127.0.0.1");
  name.advertiseIp = "localhost";
  EXPECT_NE(std::string::npos, fails(name).find("'localhost' is not a dotted IPv4 address"));
  Runtime::Options zeroPort = listening("127.0.0.1");
  zeroPort.advertisePort = 0;
  EXPECT_NE(std::string::npos, fails(zeroPort).find("advertise port"));
  EXPECT_NE(std::string::npos, fails(listening("300.1.1.1")).find("'300.1.1.1'"));
}

TEST(RuntimeOptionsTest, TwoRuntimesMayNotAdvertiseOneAddress) {
  Runtime::Options options = listening("127.0.0.1");
  options.advertisePort = freePort();
  auto first = create(options);
  auto second = Runtime::create(options);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(std::string::npos,
            second.error().message.find("advertises " + first->address().toString()));
  // The refused one leaves the first one registered.
  EXPECT_EQ(first.get(), Runtime::at(first->address()));
}

// Sets variables for one test and puts the old values back.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::map<std::string, std::string>& variables) {
    for (const auto& [name, value] : variables) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~ScopedEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

TEST(RuntimeOptionsTest, WithEnvironmentReadsTheLibprocessVariables) {
  {
    ScopedEnvironment env({{"LIBPROCESS_IP", "0.0.0.0"},
                           {"LIBPROCESS_PORT", "5053"},
                           {"LIBPROCESS_ADVERTISE_IP", "10.1.2.3"},
                           {"LIBPROCESS_ADVERTISE_PORT", "31000"},
                           {"LIBPROCESS_NUM_WORKER_THREADS", "3"}});
    auto options = Runtime::withEnvironment(Runtime::Options());
    ASSERT_TRUE(options.ok()) << options.error().message;
    EXPECT_EQ(3u, options->workers);
    EXPECT_EQ("0.0.0.0", options->ip);
    EXPECT_EQ(5053, options->port);
    EXPECT_EQ(std::optional<std::string>("10.1.2.3"), options->advertiseIp);
    EXPECT_EQ(std::optional<uint16_t>(31000), options->advertisePort);
  }
  {
    // Empty variables change nothing.
    ScopedEnvironment env({{"LIBPROCESS_IP", ""}, {"LIBPROCESS_ADVERTISE_IP", ""}});
    auto options = Runtime::withEnvironment(listening("127.0.0.1"));
    ASSERT_TRUE(options.ok()) << options.error().message;
    EXPECT_EQ("127.0.0.1", options->ip);
    EXPECT_FALSE(options->advertiseIp);
  }
  for (const auto& [variable, value] : std::map<std::string, std::string>{
           {"LIBPROCESS_IP", "example.com"},
           {"LIBPROCESS_PORT", "65536"},
           {"LIBPROCESS_ADVERTISE_IP", "0.0.0.0"},
           {"LIBPROCESS_ADVERTISE_PORT", "0"},
           {"LIBPROCESS_NUM_WORKER_THREADS", "0"}}) {
    ScopedEnvironment env(std::map<std::string, std::string>{{variable, value}});
    auto options = Runtime::withEnvironment(Runtime::Options());
    ASSERT_FALSE(options.ok()) << variable << "=" << value;
    EXPECT_EQ(0u, options.error().message.find(variable + ": ")) << options.error().message;
  }
}

}  // namespace
}  // namespace mesos::test
