// Who sent a message (docs/runtime.md, "Who sent it"): the sender a message
// names counts only when the connection it came over is from that sender's
// address. Another host is stood for by another loopback address
// (127.0.0.2), which is not one of this machine's interface addresses.
#include <gtest/gtest.h>

#include "messages.pb.h"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "support/net.hpp"

namespace mesos::test {
namespace {

using mesos::internal::ExecutorToFrameworkMessage;
using mesos::internal::FrameworkToExecutorMessage;
using process::Actor;
using process::Runtime;
using process::UPID;

constexpr uint32_t kOtherHost = 0x7f000002;  // 127.0.0.2

std::unique_ptr<Runtime> runtimeOn(const std::string& ip) {
  Runtime::Options options;
  options.ip = ip;
  options.pauseClock = true;
  auto runtime = Runtime::create(options);
  CHECK(runtime.ok()) << runtime.error().message;
  return std::move(runtime).value();
}

FrameworkToExecutorMessage note(const std::string& data) {
  FrameworkToExecutorMessage m;
  m.mutable_slave_id()->set_value("s");
  m.mutable_framework_id()->set_value("f");
  m.mutable_executor_id()->set_value("e");
  m.set_data(data);
  return m;
}

// Keeps what it receives, with who sent it; answers every note.
class Recorder : public Actor {
 public:
  explicit Recorder(std::string id) : Actor(std::move(id)) {}
  std::vector<std::pair<std::string, std::string>> received;  // {from, data}
  void sendTo(const UPID& to, const std::string& data) { send(to, note(data)); }

 protected:
  void initialize() override {
    on<FrameworkToExecutorMessage>([this](const UPID& from, const FrameworkToExecutorMessage& m) {
      received.emplace_back(from.toString(), m.data());
      ExecutorToFrameworkMessage reply;
      reply.mutable_slave_id()->set_value("s");
      reply.mutable_framework_id()->set_value("f");
      reply.mutable_executor_id()->set_value("e");
      reply.set_data("echo:" + m.data());
      send(from, std::move(reply));
    });
    on<ExecutorToFrameworkMessage>([this](const UPID& from, const ExecutorToFrameworkMessage& m) {
      received.emplace_back(from.toString(), m.data());
    });
  }
};

// A message as an HTTP client (not libprocess) posts it: it gets an answer.
std::string posted(const std::string& from, const std::string& data) {
  std::string body = note(data).SerializeAsString();
  return "POST /recorder/mesos.internal.FrameworkToExecutorMessage HTTP/1.1\r\nHost: x\r\n"
         "User-Agent: curl/7.88\r\nLibprocess-From: " +
         from + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(SenderIdentityTest, AMessageNamingASenderElsewhereIsRefusedAndNotDelivered) {
  if (!loopbackAliasesWork()) GTEST_SKIP() << "cannot bind 127.0.0.2 here";
  auto runtime = runtimeOn("127.0.0.1");
  auto recorder = runtime->spawn<Recorder>("recorder");
  std::string master = "master@127.0.0.1:" + std::to_string(runtime->address().port);

  TcpClient attacker(runtime->address(), kOtherHost);
  ASSERT_TRUE(attacker.write(posted(master, "forged")));
  int status = 0;
  std::string answer;
  ASSERT_TRUE(attacker.readResponse(&status, &answer));
  EXPECT_EQ(403, status);
  EXPECT_NE(std::string::npos, answer.find("the sender " + master + " is not at the address"))
      << answer;

  // As a libprocess peer (no answer): dropped too. Then the same connection
  // naming its own address is believed; it arrives after nothing else.
  auto honest = runtime->hooks().await<FrameworkToExecutorMessage>();
  ASSERT_TRUE(attacker.write(libprocessMessage(master, "recorder",
                                               "mesos.internal.FrameworkToExecutorMessage",
                                               note("forged quietly").SerializeAsString())));
  ASSERT_TRUE(attacker.write(posted("peer@127.0.0.2:1", "honest")));
  ASSERT_TRUE(attacker.readResponse(&status, &answer));
  EXPECT_EQ(202, status);
  ASSERT_TRUE(honest.await());
  runtime->settle();
  using Entry = std::pair<std::string, std::string>;
  EXPECT_EQ((std::vector<Entry>{{"peer@127.0.0.2:1", "honest"}}), recorder->received);
}

TEST(SenderIdentityTest, RuntimesOnOtherLoopbackAddressesSendFromThem) {
  if (!loopbackAliasesWork()) GTEST_SKIP() << "cannot bind 127.0.0.2 here";
  // Without binding its connections to 127.0.0.2, `there` would reach
  // 127.0.0.1 from 127.0.0.1, and its messages would be refused.
  auto here = runtimeOn("127.0.0.1");
  auto there = runtimeOn("127.0.0.2");
  auto a = there->spawn<Recorder>("recorder");
  auto b = here->spawn<Recorder>("recorder");
  auto reply = there->hooks().await<ExecutorToFrameworkMessage>();
  process::dispatch(a.pid(), &Recorder::sendTo, UPID(b.pid()), std::string("hello"));
  ASSERT_TRUE(reply.await());
  here->settle();
  there->settle();
  ASSERT_EQ(1u, b->received.size());
  EXPECT_EQ(a.pid().toString(), b->received[0].first);
  ASSERT_EQ(1u, a->received.size());
  EXPECT_EQ("echo:hello", a->received[0].second);
}

TEST(SenderIdentityTest, ThisMachinesAddressesSpeakForEachOther) {
  // A peer listening on every interface names this host's address but
  // reaches a loopback listener from 127.0.0.1: the same machine.
  auto runtime = runtimeOn("127.0.0.1");
  auto recorder = runtime->spawn<Recorder>("recorder");
  std::vector<uint32_t> local = Runtime::localAddresses();
  ASSERT_FALSE(local.empty());
  auto arrived = runtime->hooks().await<FrameworkToExecutorMessage>();
  TcpClient client(runtime->address());
  std::string claimed = "peer@" + process::Address{local.back(), 1}.toString();
  ASSERT_TRUE(client.write(posted(claimed, "local")));
  int status = 0;
  ASSERT_TRUE(client.readResponse(&status, nullptr));
  EXPECT_EQ(202, status);
  ASSERT_TRUE(arrived.await());
}

}  // namespace
}  // namespace mesos::test
