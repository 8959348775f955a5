// The actor runtime: UPIDs, messages, dispatch, futures, timers on the
// paused clock, links, test hooks, HTTP routes, TCP between runtimes, and
// who a message over TCP counts as from.
#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "messages.pb.h"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "process/transport.hpp"
#include "support/net.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using mesos::internal::ExecutorToFrameworkMessage;
using mesos::internal::FrameworkToExecutorMessage;
using process::Actor;
using process::Future;
using process::Nothing;
using process::Pid;
using process::Promise;
using process::Runtime;
using process::UPID;

// A runtime on `ip` ("": this host's address).
std::unique_ptr<Runtime> makeRuntime(bool paused = true, const std::string& ip = "") {
  Runtime::Options options;
  options.pauseClock = paused;
  options.ip = ip;
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

// Records what it receives; replies to every note with an echo.
class Echo : public Actor {
 public:
  explicit Echo(std::string id = "echo") : Actor(std::move(id)) {}

  std::vector<std::string> received;
  std::vector<std::string> senders;  // who sent each of `received`
  std::vector<std::string> authorizations;  // what each of `received` came with
  std::vector<UPID> exits;
  // Optional observers, run on this actor; set them before spawning.
  std::function<void(const std::string&)> onReceived;
  std::function<void(const UPID&)> onExited;
  int value = 0;
  bool finalized = false;

  int add(int n) { return value += n; }
  void set(int n) { value = n; }
  Future<int> later(int n) { return n * 2; }
  void watch(const UPID& pid) { link(pid); }
  void sendTo(const UPID& to, const std::string& data) { send(to, note(data)); }
  void authorize(const UPID& to, const std::string& authorization) {
    setAuthorization(to.address, authorization);
  }

 protected:
  void initialize() override {
    on(&Echo::onNote);
    on(&Echo::onReply);
    route("/hello", [](const process::http::Request& request) -> Future<process::http::Response> {
      return process::http::Response::ok("{\"hello\":\"" + request.queryParameters()["name"] + "\"}");
    });
  }
  void finalize() override { finalized = true; }
  void exited(const UPID& pid) override {
    exits.push_back(pid);
    if (onExited) onExited(pid);
  }

 private:
  void onNote(const UPID& from, const FrameworkToExecutorMessage& message) {
    received.push_back(message.data());
    senders.push_back(from.toString());
    authorizations.push_back(messageAuthorization());
    if (onReceived) onReceived(message.data());
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
    authorizations.push_back(messageAuthorization());
  }
};

TEST(UpidTest, ParsesAndPrints) {
  auto pid = UPID::parse("slave(1)@10.0.0.2:5051");
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  EXPECT_EQ("slave(1)", pid->id);
  EXPECT_EQ("10.0.0.2", pid->address.ipString());
  EXPECT_EQ(5051, pid->address.port);
  EXPECT_EQ("slave(1)@10.0.0.2:5051", pid->toString());
}

TEST(UpidTest, RejectsBadStringsWithTheReason) {
  for (const char* bad : {"", "master", "@1.2.3.4:5", "m@1.2.3:5", "m@1.2.3.4", "m@1.2.3.4:",
                          "m@1.2.3.4:70000", "m@256.0.0.1:5", "a/b@1.2.3.4:5", "m@1.2.3.4:5x"}) {
    auto pid = UPID::parse(bad);
    EXPECT_FALSE(pid.ok()) << bad;
    if (!pid.ok()) {
      EXPECT_NE(std::string::npos, pid.error().message.find('\'')) << bad;
    }
  }
}

TEST(UpidTest, GeneratedIdsCount) {
  std::string a = process::generateId("unittest");
  std::string b = process::generateId("unittest");
  EXPECT_NE(a, b);
  EXPECT_EQ(0u, a.find("unittest("));
}

TEST(RuntimeTest, LocalMessagesCarryTheObjectAndReachTheHandler) {
  auto runtime = makeRuntime();
  auto a = runtime->spawn<Echo>("a");
  auto b = runtime->spawn<Echo>("b");
  auto seen = runtime->hooks().await(process::MessageMatch{
      FrameworkToExecutorMessage::descriptor()->full_name(), a.pid(), b.pid()});
  process::dispatch(a.pid(), &Echo::sendTo, UPID(b.pid()), std::string("hi"));
  runtime->settle();
  ASSERT_TRUE(seen.isReady());
  EXPECT_NE(nullptr, seen.get().message) << "a local message was serialized";
  EXPECT_TRUE(seen.get().body.empty());
  EXPECT_EQ(std::vector<std::string>{"hi"}, b->received);
  EXPECT_EQ(std::vector<std::string>{"echo:hi"}, a->received);
}

// Keeps the notes it is handed (onOwned): it moves the data out.
class Keeper : public Actor {
 public:
  explicit Keeper(std::string id) : Actor(std::move(id)) {}
  std::vector<std::string> kept;

 protected:
  void initialize() override {
    onOwned<FrameworkToExecutorMessage>(
        [this](const UPID&, FrameworkToExecutorMessage&& message) {
          kept.push_back(std::move(*message.mutable_data()));
        });
  }
};

TEST(RuntimeTest, OwnedHandlersGetACopyOfALocalMessageAndTheParsedRemoteOne) {
  auto one = makeRuntime();
  auto two = makeRuntime();
  auto sender = one->spawn<Echo>("sender");
  auto local = one->spawn<Keeper>("local");
  auto remote = two->spawn<Keeper>("remote");
  // The local message is shared with whoever else sees it (here the hook):
  // the handler moving from its message must not empty that one.
  auto seen = one->hooks().await(process::MessageMatch{
      FrameworkToExecutorMessage::descriptor()->full_name(), sender.pid(), local.pid()});
  auto arrived = two->hooks().await<FrameworkToExecutorMessage>(sender.pid(), remote.pid());
  process::dispatch(sender.pid(), &Echo::sendTo, UPID(local.pid()), std::string("near"));
  process::dispatch(sender.pid(), &Echo::sendTo, UPID(remote.pid()), std::string("far"));
  ASSERT_TRUE(seen.await());
  ASSERT_TRUE(arrived.await());
  one->settle();
  two->settle();
  EXPECT_EQ(std::vector<std::string>{"near"}, local->kept);
  EXPECT_EQ(std::vector<std::string>{"far"}, remote->kept);
  ASSERT_NE(nullptr, seen.get().message);
  EXPECT_EQ("near", static_cast<const FrameworkToExecutorMessage&>(*seen.get().message).data());
}

// A credential an actor sets for an address goes with its messages to that
// address, over the wire (the Authorization header) and within its own
// runtime alike, and with nothing else: not to other addresses, not on the
// replies.
TEST(RuntimeTest, AnActorsCredentialGoesOnlyToTheAddressItIsFor) {
  auto one = makeRuntime();
  auto two = makeRuntime();
  auto sender = one->spawn<Echo>("sender");
  auto local = one->spawn<Echo>("local");
  auto remote = two->spawn<Echo>("remote");
  process::dispatch(sender.pid(), &Echo::authorize, UPID(remote.pid()), std::string("Bearer far"));
  auto replied = one->hooks().await<ExecutorToFrameworkMessage>(remote.pid(), sender.pid());
  process::dispatch(sender.pid(), &Echo::sendTo, UPID(remote.pid()), std::string("1"));
  process::dispatch(sender.pid(), &Echo::sendTo, UPID(local.pid()), std::string("2"));
  ASSERT_TRUE(replied.await());
  one->settle();
  two->settle();
  EXPECT_EQ(std::vector<std::string>{"Bearer far"}, remote->authorizations);
  EXPECT_EQ(std::vector<std::string>{""}, local->authorizations);
  EXPECT_EQ((std::vector<std::string>{"", ""}), sender->authorizations);  // the two replies

  process::dispatch(sender.pid(), &Echo::authorize, UPID(local.pid()), std::string("Bearer near"));
  process::dispatch(sender.pid(), &Echo::sendTo, UPID(local.pid()), std::string("3"));
  one->settle();
  EXPECT_EQ((std::vector<std::string>{"", "Bearer near"}), local->authorizations);
}

TEST(RuntimeTest, DispatchReturnsValuesVoidAndFutures) {
  auto runtime = makeRuntime();
  auto echo = runtime->spawn<Echo>();
  Future<int> sum = process::dispatch(echo.pid(), &Echo::add, 5);
  Future<Nothing> set = process::dispatch(echo.pid(), &Echo::set, 7);
  Future<int> doubled = process::dispatch(echo.pid(), &Echo::later, 21);
  ASSERT_TRUE(sum.await());
  ASSERT_TRUE(set.await());
  ASSERT_TRUE(doubled.await());
  EXPECT_EQ(5, sum.get());
  EXPECT_EQ(42, doubled.get());
  runtime->settle();
  EXPECT_EQ(7, echo->value);
}

TEST(RuntimeTest, AnOldUpidReachesTheActorNowUnderItsId) {
  auto runtime = makeRuntime();
  auto sender = runtime->spawn<Echo>("sender");
  UPID old;
  {
    auto first = runtime->spawn<Echo>("target");
    old = first.pid();  // carries a cached reference to the first actor
  }
  auto second = runtime->spawn<Echo>("target");
  process::dispatch(sender.pid(), &Echo::sendTo, old, std::string("to whoever is target"));
  runtime->settle();
  EXPECT_EQ(std::vector<std::string>{"to whoever is target"}, second->received);
  Future<int> sum = process::dispatch(Pid<Echo>(old), &Echo::add, 2);
  ASSERT_TRUE(sum.await());
  EXPECT_EQ(2, sum.get());
}

TEST(RuntimeTest, DispatchToAGoneActorFails) {
  auto runtime = makeRuntime();
  auto echo = runtime->spawn<Echo>();
  Pid<Echo> pid = echo.pid();
  echo.reset();
  Future<int> sum = process::dispatch(pid, &Echo::add, 1);
  ASSERT_TRUE(sum.isFailed());
  EXPECT_NE(std::string::npos, sum.failure().find("gone"));
}

TEST(RuntimeTest, ThenRunsOnTheNamedActor) {
  auto runtime = makeRuntime();
  auto a = runtime->spawn<Echo>("a");
  auto b = runtime->spawn<Echo>("b");
  Promise<int> promise;
  Actor* ranOn = nullptr;
  Future<std::string> out = promise.future().then(b.pid(), [&](int n) {
    ranOn = process::currentActor();
    return std::to_string(n);
  });
  std::thread completer([&] { promise.set(3); });
  completer.join();
  ASSERT_TRUE(out.await());
  EXPECT_EQ("3", out.get());
  EXPECT_EQ(b.get(), ranOn);
}

TEST(RuntimeTest, ThenPropagatesFailureWithoutRunning) {
  auto runtime = makeRuntime();
  auto a = runtime->spawn<Echo>();
  bool ran = false;
  Future<int> out = Future<int>::failed("boom").then(a.pid(), [&](int n) {
    ran = true;
    return n;
  });
  runtime->settle();
  ASSERT_TRUE(out.isFailed());
  EXPECT_EQ("boom", out.failure());
  EXPECT_FALSE(ran);
}

TEST(RuntimeTest, ThenAheadRunsBeforeWhatTheMailboxHolds) {
  auto runtime = makeRuntime();
  auto a = runtime->spawn<Echo>("a");
  // `a` is held in one event while three dispatches and two continuations
  // queue up behind it.
  std::mutex gate;
  std::unique_lock<std::mutex> closed(gate);
  std::atomic<bool> holding{false};
  std::vector<std::string> order;  // written only on `a`
  auto held = process::dispatch(a.pid(), [&] {
    holding = true;
    std::lock_guard<std::mutex> wait(gate);
  });
  while (!holding) std::this_thread::yield();
  std::vector<Future<Nothing>> queued;
  for (int i = 0; i < 3; ++i) {
    queued.push_back(process::dispatch(a.pid(), [&, i] { order.push_back(std::to_string(i)); }));
  }
  Promise<int> promise;
  Future<Nothing> behind = promise.future().then(a.pid(), [&] { order.push_back("then"); });
  Future<Nothing> ahead =
      promise.future().thenAhead(a.pid(), [&] { order.push_back("ahead"); });
  promise.set(1);
  closed.unlock();
  ASSERT_TRUE(held.await());
  ASSERT_TRUE(ahead.await());
  ASSERT_TRUE(behind.await());
  for (auto& f : queued) ASSERT_TRUE(f.await());
  EXPECT_EQ((std::vector<std::string>{"ahead", "0", "1", "2", "then"}), order);
}

TEST(RuntimeTest, HandlersOfOneActorNeverOverlap) {
  struct Counter : Actor {
    Counter() : Actor("counter") {}
    std::atomic<int> inside{0};
    bool overlapped = false;
    int count = 0;
    void bump() {
      if (inside.fetch_add(1) != 0) overlapped = true;
      ++count;
      inside.fetch_sub(1);
    }
  };
  Runtime::Options options;
  options.workers = 4;
  auto runtime = Runtime::create(options);
  ASSERT_TRUE(runtime.ok());
  auto counter = (*runtime)->spawn<Counter>();
  std::vector<std::thread> threads;
  std::vector<Future<Nothing>> last(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5000; ++i) last[t] = process::dispatch(counter.pid(), &Counter::bump);
    });
  }
  for (auto& thread : threads) thread.join();
  for (auto& f : last) ASSERT_TRUE(f.await());
  (*runtime)->settle();
  EXPECT_FALSE(counter->overlapped);
  EXPECT_EQ(20000, counter->count);
}

TEST(RuntimeTest, DelayFiresOnlyWhenThePausedClockPassesIt) {
  struct Timed : Actor {
    Timed() : Actor("timed") {}
    int fired = 0;
    void initialize() override {
      delay(10s, [this] { ++fired; });
      process::TimerId cancelled = delay(5s, [this] { fired += 100; });
      cancel(cancelled);
    }
  };
  auto runtime = makeRuntime();
  auto timed = runtime->spawn<Timed>();
  runtime->settle();
  runtime->clock().advance(9s);
  runtime->settle();
  EXPECT_EQ(0, timed->fired);
  runtime->clock().advance(1s);
  runtime->settle();
  EXPECT_EQ(1, timed->fired);
  runtime->clock().advance(1h);
  runtime->settle();
  EXPECT_EQ(1, timed->fired);
}

TEST(RuntimeTest, RealClockTimersFire) {
  auto runtime = makeRuntime(false);
  Promise<Nothing> fired;
  runtime->clock().schedule(runtime->clock().now() + 20ms, [&] { fired.set(Nothing{}); });
  EXPECT_TRUE(fired.future().await(10s));
}

TEST(ClockTest, LaterTimersShareOneRealTimer) {
  // No idle sweep: its timer would be the earliest.
  Runtime::Options options;
  options.idleTimeout = process::Duration::zero();
  auto runtime = std::move(Runtime::create(options)).value();
  process::Clock& clock = runtime->clock();
  size_t before = clock.armedCount();
  auto now = clock.now();
  std::vector<process::TimerId> ids;
  ids.push_back(clock.schedule(now + 1h, [] {}));
  for (int i = 0; i < 1000; ++i) ids.push_back(clock.schedule(now + 2h + std::chrono::seconds(i), [] {}));
  EXPECT_EQ(before + 1, clock.armedCount());
  // An earlier one needs a real timer of its own.
  ids.push_back(clock.schedule(now + 30min, [] {}));
  EXPECT_EQ(before + 2, clock.armedCount());
  for (auto id : ids) EXPECT_TRUE(clock.cancel(id));
}

TEST(RuntimeTest, LinkedLocalActorExitIsReported) {
  auto runtime = makeRuntime();
  auto watcher = runtime->spawn<Echo>("watcher");
  auto watched = runtime->spawn<Echo>("watched");
  UPID watchedPid = watched.pid();
  process::dispatch(watcher.pid(), &Echo::watch, watchedPid);
  runtime->settle();
  EXPECT_TRUE(watcher->exits.empty());
  watched.reset();
  runtime->settle();
  ASSERT_EQ(1u, watcher->exits.size());
  EXPECT_EQ(watchedPid, watcher->exits[0]);
  // Linking to an actor that is already gone reports at once.
  process::dispatch(watcher.pid(), &Echo::watch, watchedPid);
  runtime->settle();
  EXPECT_EQ(2u, watcher->exits.size());
}

TEST(RuntimeTest, FinalizeRunsWhenTheHandleGoes) {
  auto runtime = makeRuntime();
  bool finalized = false;
  struct Flag : Actor {
    explicit Flag(bool* f) : Actor("flag"), flag(f) {}
    bool* flag;
    void finalize() override { *flag = true; }
  };
  { auto flag = runtime->spawn<Flag>(&finalized); }
  EXPECT_TRUE(finalized);
}

TEST(RuntimeTest, MessagesBetweenRuntimesCrossTcp) {
  auto one = makeRuntime();
  auto two = makeRuntime();
  auto a = one->spawn<Echo>("a");
  auto b = two->spawn<Echo>("b");
  auto reply = one->hooks().await<ExecutorToFrameworkMessage>(b.pid(), a.pid());
  auto arrived = two->hooks().await(process::MessageMatch{
      FrameworkToExecutorMessage::descriptor()->full_name(), a.pid(), b.pid()});
  process::dispatch(a.pid(), &Echo::sendTo, UPID(b.pid()), std::string("over tcp"));
  ASSERT_TRUE(arrived.await());
  EXPECT_EQ(nullptr, arrived.get().message) << "a remote message must arrive serialized";
  EXPECT_FALSE(arrived.get().peer.empty());
  ASSERT_TRUE(reply.await());
  EXPECT_EQ("echo:over tcp", reply.get().data());
  one->settle();
  EXPECT_EQ(std::vector<std::string>{"echo:over tcp"}, a->received);
}

TEST(RuntimeTest, IncompleteMessagesCrossTcpWithoutCrashing) {
  auto one = makeRuntime();
  auto two = makeRuntime();
  auto a = one->spawn<Echo>("a");
  auto b = two->spawn<Echo>("b");
  auto arrived = two->hooks().await<FrameworkToExecutorMessage>();
  FrameworkToExecutorMessage partial;  // its required ids are missing
  partial.set_data("partial");
  process::dispatch(a.pid(), [&] { one->send(a.pid(), b.pid(), partial); });
  ASSERT_TRUE(arrived.await());
  EXPECT_EQ("partial", arrived.get().data());
  EXPECT_FALSE(arrived.get().IsInitialized());
}

TEST(RuntimeTest, ManyRemoteMessagesArriveInOrder) {
  auto one = makeRuntime();
  auto two = makeRuntime();
  const int n = 2000;
  Promise<Nothing> all;
  auto receiver = std::make_unique<Echo>("b");
  receiver->onReceived = [&, r = receiver.get()](const std::string&) {
    if (r->received.size() == n) all.set(Nothing{});
  };
  auto a = one->spawn<Echo>("a");
  auto b = two->spawn(std::move(receiver));
  process::dispatch(a.pid(), [&] {
    for (int i = 0; i < n; ++i) a->sendTo(b.pid(), std::to_string(i));
  });
  ASSERT_TRUE(all.future().await());
  two->settle();
  ASSERT_EQ(static_cast<size_t>(n), b->received.size());
  for (int i = 0; i < n; ++i) ASSERT_EQ(std::to_string(i), b->received[i]);
}

// A worker holds what its events send for a moment, to write it with what
// the next events send (Transport::WriteBatch); an actor about to block
// lets it go first, or its messages would wait behind it.
TEST(RuntimeTest, MessagesHeldByAWorkerGoBeforeItsActorBlocks) {
  auto one = makeRuntime(false);
  auto two = makeRuntime(false);
  auto a = one->spawn<Echo>("a");
  auto b = two->spawn<Echo>("b");
  // Connected first: a message to a peer not connected yet waits for the
  // connection, not for the batch.
  auto first = two->hooks().await<FrameworkToExecutorMessage>(a.pid(), b.pid());
  process::dispatch(a.pid(), &Echo::sendTo, UPID(b.pid()), std::string("connect"));
  ASSERT_TRUE(first.await());
  auto arrived = two->hooks().await<FrameworkToExecutorMessage>(a.pid(), b.pid());
  bool arrivedWhileBlocked = false;
  auto done = process::dispatch(a.pid(), [&] {
    a->sendTo(b.pid(), "before blocking");
    process::Transport::WriteBatch::flushThread();
    arrivedWhileBlocked = arrived.await(std::chrono::seconds(30));
  });
  ASSERT_TRUE(done.await());
  EXPECT_TRUE(arrivedWhileBlocked);
}

// Many messages sent in one event, and one sent by each of many events,
// all arrive, in order, whatever the batching.
TEST(RuntimeTest, BatchedWritesDeliverEverythingInOrder) {
  auto one = makeRuntime(false);
  auto two = makeRuntime(false);
  const int n = 500;
  Promise<Nothing> all;
  auto receiver = std::make_unique<Echo>("b");
  receiver->onReceived = [&, r = receiver.get()](const std::string&) {
    if (r->received.size() == 2 * n) all.set(Nothing{});
  };
  auto a = one->spawn<Echo>("a");
  auto b = two->spawn(std::move(receiver));
  process::dispatch(a.pid(), [&] {
    for (int i = 0; i < n; ++i) a->sendTo(b.pid(), std::to_string(i));
  });
  for (int i = n; i < 2 * n; ++i) {
    process::dispatch(a.pid(), &Echo::sendTo, UPID(b.pid()), std::to_string(i));
  }
  ASSERT_TRUE(all.future().await(std::chrono::seconds(60)));
  two->settle();
  ASSERT_EQ(static_cast<size_t>(2 * n), b->received.size());
  for (int i = 0; i < 2 * n; ++i) ASSERT_EQ(std::to_string(i), b->received[i]);
}

// A watcher whose exited() completes a promise.
std::unique_ptr<Echo> watcherWith(Promise<UPID>* exited) {
  auto watcher = std::make_unique<Echo>("watcher");
  watcher->onExited = [exited](const UPID& pid) { exited->set(pid); };
  return watcher;
}

TEST(RuntimeTest, LinkToARemoteActorReportsItsRuntimeGoing) {
  auto one = makeRuntime();
  auto two = makeRuntime();
  Promise<UPID> exited;
  auto watcher = one->spawn(watcherWith(&exited));
  UPID remote;
  {
    auto b = two->spawn<Echo>("b");
    remote = b.pid();
    process::dispatch(watcher.pid(), &Echo::watch, remote);
    // Make sure the link's connection is up before the peer goes.
    auto pong = one->hooks().await<ExecutorToFrameworkMessage>();
    process::dispatch(watcher.pid(), &Echo::sendTo, remote, std::string("ping"));
    ASSERT_TRUE(pong.await());
  }
  EXPECT_TRUE(exited.future().isPending());
  two.reset();
  ASSERT_TRUE(exited.future().await());
  EXPECT_EQ(remote, exited.future().get());
}

TEST(RuntimeTest, LinkToAnUnreachableAddressReportsExited) {
  auto runtime = makeRuntime();
  Promise<UPID> exited;
  auto watcher = runtime->spawn(watcherWith(&exited));
  // Port 1 on loopback refuses connections.
  UPID nobody("nobody", process::Address{0x7f000001, 1});
  process::dispatch(watcher.pid(), &Echo::watch, nobody);
  ASSERT_TRUE(exited.future().await());
  EXPECT_EQ(nobody, exited.future().get());
}

TEST(HooksTest, DropHoldReleaseAndCount) {
  auto runtime = makeRuntime();
  auto a = runtime->spawn<Echo>("a");
  auto b = runtime->spawn<Echo>("b");
  auto counted = runtime->hooks().count<FrameworkToExecutorMessage>(a.pid(), b.pid());
  auto drop = runtime->hooks().drop<FrameworkToExecutorMessage>(a.pid(), b.pid());
  process::dispatch(a.pid(), &Echo::sendTo, UPID(b.pid()), std::string("dropped"));
  runtime->settle();
  EXPECT_TRUE(b->received.empty());
  EXPECT_EQ(1u, counted->load());
  runtime->hooks().remove(drop);

  auto hold = runtime->hooks().hold<FrameworkToExecutorMessage>();
  process::dispatch(a.pid(), &Echo::sendTo, UPID(b.pid()), std::string("held1"));
  process::dispatch(a.pid(), &Echo::sendTo, UPID(b.pid()), std::string("held2"));
  runtime->settle();
  EXPECT_TRUE(b->received.empty());
  runtime->hooks().release(hold);
  runtime->settle();
  EXPECT_EQ((std::vector<std::string>{"held1", "held2"}), b->received);
  EXPECT_EQ(3u, counted->load());
}

TEST(HooksTest, DropsOutboundRemoteMessages) {
  auto one = makeRuntime();
  auto two = makeRuntime();
  auto a = one->spawn<Echo>("a");
  auto b = two->spawn<Echo>("b");
  one->hooks().drop<FrameworkToExecutorMessage>({}, b.pid());
  auto arrived = two->hooks().await<FrameworkToExecutorMessage>();
  process::dispatch(a.pid(), &Echo::sendTo, UPID(b.pid()), std::string("x"));
  one->settle();
  one->hooks().clear();
  process::dispatch(a.pid(), &Echo::sendTo, UPID(b.pid()), std::string("y"));
  ASSERT_TRUE(arrived.await());
  EXPECT_EQ("y", arrived.get().data());
}

TEST(HttpTest, RoutesDelegateHealthAndNotFound) {
  auto runtime = makeRuntime(false);
  auto echo = runtime->spawn<Echo>();
  std::string body;
  EXPECT_EQ(200, httpGet(runtime->address(), "/echo/hello?name=a%20b", &body));
  EXPECT_EQ("{\"hello\":\"a b\"}", body);
  EXPECT_EQ(404, httpGet(runtime->address(), "/hello"));
  runtime->setDelegate("echo");
  EXPECT_EQ(200, httpGet(runtime->address(), "/hello?name=x", &body));
  EXPECT_EQ("{\"hello\":\"x\"}", body);
  EXPECT_EQ(200, httpGet(runtime->address(), "/health"));
  EXPECT_EQ(404, httpGet(runtime->address(), "/echo/nothing"));
}

TEST(HttpTest, PipelinedRequestsAreAnsweredInOrder) {
  auto runtime = makeRuntime(false);
  auto echo = runtime->spawn<Echo>();
  TcpClient client(runtime->address());
  std::string requests;
  for (int i = 0; i < 5; ++i) {
    requests += "GET /echo/hello?name=" + std::to_string(i) + " HTTP/1.1\r\nHost: t\r\n\r\n";
  }
  ASSERT_TRUE(client.write(requests));
  for (int i = 0; i < 5; ++i) {
    int status = 0;
    std::string body;
    ASSERT_TRUE(client.readResponse(&status, &body));
    EXPECT_EQ(200, status);
    EXPECT_EQ("{\"hello\":\"" + std::to_string(i) + "\"}", body);
  }
}

TEST(HttpTest, NonLibprocessPeersGetAcceptedForMessages) {
  auto runtime = makeRuntime();
  auto echo = runtime->spawn<Echo>();
  auto arrived = runtime->hooks().await<FrameworkToExecutorMessage>();
  std::string body = note("from go").SerializeAsString();
  TcpClient client(runtime->address());
  ASSERT_TRUE(client.write(
      "POST /echo/mesos.internal.FrameworkToExecutorMessage HTTP/1.1\r\nHost: x\r\n"
      "User-Agent: Go-http-client/1.1\r\nLibprocess-From: go@127.0.0.1:1\r\n"
      "Content-Type: application/x-protobuf\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\nConnection: Keep-Alive\r\n\r\n" + body));
  int status = 0;
  std::string reply;
  ASSERT_TRUE(client.readResponse(&status, &reply));
  EXPECT_EQ(202, status);
  ASSERT_TRUE(arrived.await());
  EXPECT_EQ("from go", arrived.get().data());
}

TEST(HttpTest, LibprocessPeersGetNoAnswer) {
  auto runtime = makeRuntime();
  auto echo = runtime->spawn<Echo>();
  auto arrived = runtime->hooks().await<FrameworkToExecutorMessage>();
  TcpClient client(runtime->address());
  ASSERT_TRUE(client.write(libprocessMessage("peer@127.0.0.1:1", "echo",
                                             "mesos.internal.FrameworkToExecutorMessage",
                                             note("lp").SerializeAsString())));
  ASSERT_TRUE(arrived.await());
  int status = 0;
  std::string reply;
  EXPECT_FALSE(client.readResponse(&status, &reply, 200));
}

// Who sent a message (docs/runtime.md, "Who sent it"): the sender a
// message names counts only when the connection it came over is from that
// sender's address. 127.0.0.2, not one of this machine's interface
// addresses, stands for another host.

// A message as an HTTP client (not libprocess) posts it: it gets an answer.
std::string posted(const std::string& from, const std::string& data) {
  std::string body = note(data).SerializeAsString();
  return "POST /echo/mesos.internal.FrameworkToExecutorMessage HTTP/1.1\r\nHost: x\r\n"
         "User-Agent: curl/7.88\r\nLibprocess-From: " +
         from + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(SenderIdentityTest, AMessageNamingASenderElsewhereIsRefusedAndNotDelivered) {
  if (!loopbackAliasesWork()) GTEST_SKIP() << "cannot bind 127.0.0.2 here";
  auto runtime = makeRuntime(true, "127.0.0.1");
  auto echo = runtime->spawn<Echo>();
  std::string master = "master@127.0.0.1:" + std::to_string(runtime->address().port);

  TcpClient attacker(runtime->address(), 0x7f000002 /* 127.0.0.2 */);
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
  ASSERT_TRUE(attacker.write(libprocessMessage(master, "echo",
                                               "mesos.internal.FrameworkToExecutorMessage",
                                               note("forged quietly").SerializeAsString())));
  ASSERT_TRUE(attacker.write(posted("peer@127.0.0.2:1", "honest")));
  ASSERT_TRUE(attacker.readResponse(&status, &answer));
  EXPECT_EQ(202, status);
  ASSERT_TRUE(honest.await());
  runtime->settle();
  EXPECT_EQ(std::vector<std::string>{"honest"}, echo->received);
  EXPECT_EQ(std::vector<std::string>{"peer@127.0.0.2:1"}, echo->senders);
}

TEST(SenderIdentityTest, RuntimesOnOtherLoopbackAddressesSendFromThem) {
  if (!loopbackAliasesWork()) GTEST_SKIP() << "cannot bind 127.0.0.2 here";
  // Without binding its connections to 127.0.0.2, `there` would reach
  // 127.0.0.1 from 127.0.0.1, and its messages would be refused.
  auto here = makeRuntime(true, "127.0.0.1");
  auto there = makeRuntime(true, "127.0.0.2");
  auto a = there->spawn<Echo>("a");
  auto b = here->spawn<Echo>("b");
  auto reply = there->hooks().await<ExecutorToFrameworkMessage>();
  process::dispatch(a.pid(), &Echo::sendTo, UPID(b.pid()), std::string("hello"));
  ASSERT_TRUE(reply.await());
  here->settle();
  there->settle();
  EXPECT_EQ(std::vector<std::string>{a.pid().toString()}, b->senders);
  EXPECT_EQ(std::vector<std::string>{"echo:hello"}, a->received);
}

TEST(SenderIdentityTest, ThisMachinesAddressesSpeakForEachOther) {
  // A peer listening on every interface names this host's address but
  // reaches a loopback listener from 127.0.0.1: the same machine.
  auto runtime = makeRuntime(true, "127.0.0.1");
  auto echo = runtime->spawn<Echo>();
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
