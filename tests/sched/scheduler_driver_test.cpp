// The scheduler driver against a fake master (and a fake slave) living in
// the test's runtime, with the clock paused: registration and its retries,
// failover, offers and launches, status updates and acknowledgements, master
// loss, errors, impostors, the driver's life cycle, and calls from many
// threads.
#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/uuid.hpp"
#include "mesos/scheduler.hpp"
#include "messages.pb.h"
#include "process/runtime.hpp"
#include "scheduler.pb.h"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using namespace mesos::internal;
using process::Runtime;
using process::UPID;

constexpr char kFrameworkId[] = "framework-1";

// Answers registrations the way a master does and records every other
// message it gets. Read its fields only after runtime->settle().
class FakeMaster : public process::Actor {
 public:
  FakeMaster() : Actor("master") {}

  UPID scheduler;  // the driver, from its last (re-)registration
  std::vector<RegisterFrameworkMessage> registrations;
  std::vector<ReregisterFrameworkMessage> reregistrations;
  std::vector<LaunchTasksMessage> launches;
  std::vector<KillTaskMessage> kills;
  std::vector<StatusUpdateAcknowledgementMessage> acknowledgements;
  std::vector<ReviveOffersMessage> revivals;
  std::vector<scheduler::Call> calls;
  std::vector<ResourceRequestMessage> resourceRequests;
  std::vector<ReconcileTasksMessage> reconciliations;
  std::vector<FrameworkToExecutorMessage> frameworkMessages;
  std::vector<UnregisterFrameworkMessage> unregistrations;
  std::vector<DeactivateFrameworkMessage> deactivations;

 protected:
  void initialize() override {
    on(&FakeMaster::registerFramework);
    on(&FakeMaster::reregisterFramework);
    on(&FakeMaster::launchTasks);
    on(&FakeMaster::killTask);
    on(&FakeMaster::acknowledge);
    on(&FakeMaster::revive);
    on(&FakeMaster::call);
    on(&FakeMaster::requestResources);
    on(&FakeMaster::reconcile);
    on(&FakeMaster::frameworkMessage);
    on(&FakeMaster::unregister);
    on(&FakeMaster::deactivate);
  }

 private:
  MasterInfo info() const {
    MasterInfo info;
    info.set_id("master-info-id");
    info.set_ip(self().address.ip);
    info.set_port(self().address.port);
    info.set_pid(self().toString());
    return info;
  }

  void registerFramework(const UPID& from, const RegisterFrameworkMessage& message) {
    registrations.push_back(message);
    scheduler = from;
    FrameworkRegisteredMessage reply;
    reply.mutable_framework_id()->set_value(kFrameworkId);
    *reply.mutable_master_info() = info();
    send(from, reply);
  }
  void reregisterFramework(const UPID& from, const ReregisterFrameworkMessage& message) {
    reregistrations.push_back(message);
    scheduler = from;
    if (message.failover()) {
      FrameworkRegisteredMessage reply;
      *reply.mutable_framework_id() = message.framework().id();
      *reply.mutable_master_info() = info();
      send(from, reply);
    } else {
      FrameworkReregisteredMessage reply;
      *reply.mutable_framework_id() = message.framework().id();
      *reply.mutable_master_info() = info();
      send(from, reply);
    }
  }
  void launchTasks(const UPID&, const LaunchTasksMessage& m) { launches.push_back(m); }
  void killTask(const UPID&, const KillTaskMessage& m) { kills.push_back(m); }
  void acknowledge(const UPID&, const StatusUpdateAcknowledgementMessage& m) {
    acknowledgements.push_back(m);
  }
  void revive(const UPID&, const ReviveOffersMessage& m) { revivals.push_back(m); }
  void call(const UPID&, const scheduler::Call& m) { calls.push_back(m); }
  void requestResources(const UPID&, const ResourceRequestMessage& m) {
    resourceRequests.push_back(m);
  }
  void reconcile(const UPID&, const ReconcileTasksMessage& m) { reconciliations.push_back(m); }
  void frameworkMessage(const UPID&, const FrameworkToExecutorMessage& m) {
    frameworkMessages.push_back(m);
  }
  void unregister(const UPID&, const UnregisterFrameworkMessage& m) {
    unregistrations.push_back(m);
  }
  void deactivate(const UPID&, const DeactivateFrameworkMessage& m) {
    deactivations.push_back(m);
  }
};

// A slave that only records the framework messages sent straight to it.
class FakeSlave : public process::Actor {
 public:
  FakeSlave() : Actor("slave(1)") {}
  std::vector<FrameworkToExecutorMessage> frameworkMessages;

 protected:
  void initialize() override { on(&FakeSlave::frameworkMessage); }

 private:
  void frameworkMessage(const UPID&, const FrameworkToExecutorMessage& m) {
    frameworkMessages.push_back(m);
  }
};

// Records every callback (as one line of text, plus the interesting
// arguments) and notices callbacks that overlap in time. Optional actions
// run inside callbacks, on the driver's actor.
class RecordingScheduler : public Scheduler {
 public:
  std::function<void(SchedulerDriver*, const std::vector<Offer>&)> onOffers;
  std::function<void(SchedulerDriver*, const TaskStatus&)> onStatus;
  std::function<void(SchedulerDriver*)> onRegistered;
  std::function<void()> onDisconnected;

  void registered(SchedulerDriver* driver, const FrameworkID& id, const MasterInfo& info) override {
    Scope scope(this);
    record("registered " + id.value() + " " + info.id());
    if (onRegistered) onRegistered(driver);
  }
  void reregistered(SchedulerDriver*, const MasterInfo& info) override {
    Scope scope(this);
    record("reregistered " + info.id());
  }
  void disconnected(SchedulerDriver*) override {
    Scope scope(this);
    record("disconnected");
    if (onDisconnected) onDisconnected();
  }
  void resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) override {
    Scope scope(this);
    std::string line = "offers";
    for (const Offer& offer : offers) line += " " + offer.id().value();
    record(line);
    if (onOffers) onOffers(driver, offers);
  }
  void offerRescinded(SchedulerDriver*, const OfferID& id) override {
    Scope scope(this);
    record("rescinded " + id.value());
  }
  void statusUpdate(SchedulerDriver* driver, const TaskStatus& status) override {
    Scope scope(this);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      statuses_.push_back(status);
    }
    record("status " + status.task_id().value() + " " + TaskState_Name(status.state()));
    if (onStatus) onStatus(driver, status);
  }
  void frameworkMessage(SchedulerDriver*, const ExecutorID& executor, const SlaveID& slave,
                        const std::string& data) override {
    Scope scope(this);
    record("message " + executor.value() + " " + slave.value() + " " + data);
  }
  void slaveLost(SchedulerDriver*, const SlaveID& slave) override {
    Scope scope(this);
    record("slave lost " + slave.value());
  }
  void executorLost(SchedulerDriver*, const ExecutorID& executor, const SlaveID& slave,
                    int status) override {
    Scope scope(this);
    record("executor lost " + executor.value() + " " + slave.value() + " " +
           std::to_string(status));
  }
  void error(SchedulerDriver*, const std::string& message) override {
    Scope scope(this);
    record("error " + message);
  }

  std::vector<std::string> events() {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_;
  }
  std::vector<TaskStatus> statuses() {
    std::lock_guard<std::mutex> lock(mutex_);
    return statuses_;
  }
  bool overlapped() const { return overlapped_.load(); }

 private:
  struct Scope {
    explicit Scope(RecordingScheduler* s) : s(s) {
      if (s->inside_.exchange(true)) s->overlapped_ = true;
    }
    ~Scope() { s->inside_ = false; }
    RecordingScheduler* s;
  };

  void record(std::string line) {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(line));
  }

  std::mutex mutex_;
  std::vector<std::string> events_;
  std::vector<TaskStatus> statuses_;
  std::atomic<bool> inside_{false};
  std::atomic<bool> overlapped_{false};
};

Offer makeOffer(const std::string& id, const std::string& slave) {
  Offer offer;
  offer.mutable_id()->set_value(id);
  offer.mutable_framework_id()->set_value(kFrameworkId);
  offer.mutable_slave_id()->set_value(slave);
  offer.set_hostname("host-" + slave);
  Resource* cpus = offer.add_resources();
  cpus->set_name("cpus");
  cpus->set_type(Value::SCALAR);
  cpus->mutable_scalar()->set_value(4);
  return offer;
}

TaskInfo makeTask(const std::string& id, const std::string& slave) {
  TaskInfo task;
  task.set_name("task " + id);
  task.mutable_task_id()->set_value(id);
  task.mutable_slave_id()->set_value(slave);
  task.mutable_command()->set_value("true");
  return task;
}

StatusUpdateMessage makeUpdate(const std::string& task, TaskState state, const std::string& uuid,
                               const std::string& slavePid) {
  StatusUpdateMessage message;
  StatusUpdate* update = message.mutable_update();
  update->mutable_framework_id()->set_value(kFrameworkId);
  update->mutable_slave_id()->set_value("S1");
  update->set_timestamp(1700000000);
  if (!uuid.empty()) update->set_uuid(uuid);
  TaskStatus* status = update->mutable_status();
  status->mutable_task_id()->set_value(task);
  status->set_state(state);
  status->mutable_slave_id()->set_value("S1");
  if (!uuid.empty()) status->set_uuid(uuid);
  message.set_pid(slavePid);
  return message;
}

class SchedulerDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Runtime::Options options;
    options.pauseClock = true;
    options.workers = 4;
    auto runtime = Runtime::create(options);
    ASSERT_TRUE(runtime.ok()) << runtime.error().message;
    runtime_ = std::move(runtime).value();
    master_ = runtime_->spawn<FakeMaster>();
  }

  void TearDown() override {
    driver_.reset();
    slave_.reset();
    master_.reset();
    runtime_.reset();
  }

  FrameworkInfo framework(const std::string& id = "") {
    FrameworkInfo info;
    info.set_name("test framework");
    if (!id.empty()) info.mutable_id()->set_value(id);
    return info;
  }

  // Creates and starts the driver on the test runtime; returns once the
  // fake master has answered (unless something holds its answer).
  MesosSchedulerDriver& start(const FrameworkInfo& info, bool implicitAcks = true,
                              const std::string& master = "") {
    driver_ = std::make_unique<MesosSchedulerDriver>(
        &scheduler_, info, master.empty() ? master_.pid().toString() : master, implicitAcks,
        runtime_.get());
    EXPECT_EQ(DRIVER_RUNNING, driver_->start());
    runtime_->settle();
    return *driver_;
  }

  MesosSchedulerDriver& startRegistered(bool implicitAcks = true) {
    MesosSchedulerDriver& driver = start(framework(), implicitAcks);
    EXPECT_EQ(std::vector<std::string>{"registered framework-1 master-info-id"},
              scheduler_.events());
    return driver;
  }

  UPID driverPid() const { return master_->scheduler; }

  // Delivers `message` to the driver as if `from` (default: the master)
  // sent it, and waits for the driver to handle it.
  void deliver(const google::protobuf::Message& message, std::optional<UPID> from = {}) {
    runtime_->send(from ? *from : UPID(master_.pid()), driverPid(), message);
    runtime_->settle();
  }

  void advance(process::Duration d) {
    runtime_->clock().advance(d);
    runtime_->settle();
  }

  std::unique_ptr<Runtime> runtime_;
  process::Spawned<FakeMaster> master_;
  process::Spawned<FakeSlave> slave_;
  RecordingScheduler scheduler_;
  std::unique_ptr<MesosSchedulerDriver> driver_;
};

TEST_F(SchedulerDriverTest, RegistersAndStopsRetrying) {
  start(framework());

  ASSERT_EQ(1u, master_->registrations.size());
  const FrameworkInfo& sent = master_->registrations[0].framework();
  EXPECT_EQ("test framework", sent.name());
  EXPECT_FALSE(sent.user().empty()) << "the driver fills in the OS user";
  EXPECT_FALSE(sent.hostname().empty()) << "the driver fills in the host name";
  EXPECT_FALSE(sent.has_id());
  EXPECT_EQ(std::vector<std::string>{"registered framework-1 master-info-id"},
            scheduler_.events());
  EXPECT_EQ(0u, driverPid().id.rfind("scheduler(", 0)) << driverPid();

  advance(10min);
  EXPECT_EQ(1u, master_->registrations.size()) << "no retries once registered";
  EXPECT_TRUE(master_->reregistrations.empty());
}

TEST_F(SchedulerDriverTest, RetriesRegistrationWithBackoffUntilAnswered) {
  auto dropped = runtime_->hooks().drop<FrameworkRegisteredMessage>();
  start(framework());
  EXPECT_EQ(1u, master_->registrations.size());
  EXPECT_TRUE(scheduler_.events().empty());

  advance(2s);  // the first retry comes within 2 s
  EXPECT_EQ(2u, master_->registrations.size());
  advance(4s);  // then within 4 s
  EXPECT_EQ(3u, master_->registrations.size());
  EXPECT_TRUE(scheduler_.events().empty());

  runtime_->hooks().remove(dropped);
  advance(8s);
  EXPECT_EQ(4u, master_->registrations.size());
  EXPECT_EQ(std::vector<std::string>{"registered framework-1 master-info-id"},
            scheduler_.events());

  advance(10min);
  EXPECT_EQ(4u, master_->registrations.size());
}

TEST_F(SchedulerDriverTest, RetriesComeAtLeastOnceAMinute) {
  runtime_->hooks().drop<FrameworkRegisteredMessage>();
  start(framework());
  // Each step fires the one pending retry, which is due within the bound
  // (capped at a minute); the next is scheduled after the step.
  for (int i = 0; i < 10; ++i) advance(60s);
  EXPECT_EQ(11u, master_->registrations.size());
  EXPECT_TRUE(scheduler_.events().empty());
}

TEST_F(SchedulerDriverTest, RetriesWithinATenthOfTheFailoverTimeout) {
  runtime_->hooks().drop<FrameworkRegisteredMessage>();
  FrameworkInfo info = framework();
  info.set_failover_timeout(1);  // seconds
  start(info);
  for (int i = 0; i < 5; ++i) advance(100ms);
  EXPECT_EQ(6u, master_->registrations.size());
}

TEST_F(SchedulerDriverTest, FailoverReregistersWithTheFrameworkId) {
  FrameworkInfo info = framework("framework-7");
  info.set_failover_timeout(3600);
  start(info);

  EXPECT_TRUE(master_->registrations.empty());
  ASSERT_EQ(1u, master_->reregistrations.size());
  EXPECT_TRUE(master_->reregistrations[0].failover());
  EXPECT_EQ("framework-7", master_->reregistrations[0].framework().id().value());
  // A master answers a failover with FrameworkRegisteredMessage.
  EXPECT_EQ(std::vector<std::string>{"registered framework-7 master-info-id"},
            scheduler_.events());
}

TEST_F(SchedulerDriverTest, LaunchesTasksOnOffers) {
  slave_ = runtime_->spawn<FakeSlave>();
  MesosSchedulerDriver& driver = startRegistered();

  // Launch from inside the callback, as schedulers do.
  scheduler_.onOffers = [](SchedulerDriver* d, const std::vector<Offer>& offers) {
    TaskInfo withExecutor = makeTask("t1", "S1");
    withExecutor.clear_command();
    withExecutor.mutable_executor()->mutable_executor_id()->set_value("e1");
    withExecutor.mutable_executor()->mutable_command()->set_value("./executor");
    Filters filters;
    filters.set_refuse_seconds(10);
    EXPECT_EQ(DRIVER_RUNNING,
              d->launchTasks({offers[0].id()}, {withExecutor, makeTask("t2", "S1")}, filters));
  };
  ResourceOffersMessage offers;
  *offers.add_offers() = makeOffer("o1", "S1");
  *offers.add_offers() = makeOffer("o2", "S2");
  offers.add_pids(slave_.pid().toString());
  offers.add_pids("slave(1)@10.0.0.2:5051");
  deliver(offers);

  EXPECT_EQ("offers o1 o2", scheduler_.events().back());
  ASSERT_EQ(1u, master_->launches.size());
  const LaunchTasksMessage& launch = master_->launches[0];
  EXPECT_EQ(kFrameworkId, launch.framework_id().value());
  ASSERT_EQ(1, launch.offer_ids_size());
  EXPECT_EQ("o1", launch.offer_ids(0).value());
  EXPECT_EQ(10, launch.filters().refuse_seconds());
  ASSERT_EQ(2, launch.tasks_size());
  EXPECT_EQ("t1", launch.tasks(0).task_id().value());
  EXPECT_EQ(kFrameworkId, launch.tasks(0).executor().framework_id().value())
      << "the driver fills in the executor's framework id";
  EXPECT_EQ("t2", launch.tasks(1).task_id().value());
  EXPECT_TRUE(launch.tasks(1).has_command());

  // Framework messages go straight to a slave the framework launched on,
  // through the master otherwise.
  ExecutorID executor;
  executor.set_value("e1");
  SlaveID s1, s2;
  s1.set_value("S1");
  s2.set_value("S2");
  driver.sendFrameworkMessage(executor, s1, "to S1");
  driver.sendFrameworkMessage(executor, s2, "to S2");
  runtime_->settle();
  ASSERT_EQ(1u, slave_->frameworkMessages.size());
  EXPECT_EQ("to S1", slave_->frameworkMessages[0].data());
  EXPECT_EQ(kFrameworkId, slave_->frameworkMessages[0].framework_id().value());
  EXPECT_EQ("e1", slave_->frameworkMessages[0].executor_id().value());
  ASSERT_EQ(1u, master_->frameworkMessages.size());
  EXPECT_EQ("to S2", master_->frameworkMessages[0].data());
  EXPECT_EQ("S2", master_->frameworkMessages[0].slave_id().value());
}

TEST_F(SchedulerDriverTest, DeclineIsALaunchWithoutTasks) {
  MesosSchedulerDriver& driver = startRegistered();
  ResourceOffersMessage offers;
  *offers.add_offers() = makeOffer("o1", "S1");
  *offers.add_offers() = makeOffer("o2", "S1");
  offers.add_pids("slave(1)@10.0.0.2:5051");
  offers.add_pids("slave(1)@10.0.0.2:5051");
  deliver(offers);

  Filters filters;
  filters.set_refuse_seconds(30);
  OfferID o1, o2;
  o1.set_value("o1");
  o2.set_value("o2");
  EXPECT_EQ(DRIVER_RUNNING, driver.declineOffer(o1, filters));
  EXPECT_EQ(DRIVER_RUNNING, driver.declineOffer(o2));
  runtime_->settle();

  ASSERT_EQ(2u, master_->launches.size());
  EXPECT_EQ(0, master_->launches[0].tasks_size());
  ASSERT_EQ(1, master_->launches[0].offer_ids_size());
  EXPECT_EQ("o1", master_->launches[0].offer_ids(0).value());
  EXPECT_EQ(30, master_->launches[0].filters().refuse_seconds());
  EXPECT_EQ(0, master_->launches[1].tasks_size());
  EXPECT_EQ("o2", master_->launches[1].offer_ids(0).value());
  EXPECT_EQ(5, master_->launches[1].filters().refuse_seconds()) << "the protocol default";
}

// acceptOffers goes out as Apache Mesos drivers send it: a scheduler Call
// (ACCEPT) with the operations, the executors given the framework's id; the
// offers are used up as by launchTasks (a framework message to the slave of
// a launch goes straight to it).
TEST_F(SchedulerDriverTest, AcceptOffersSendsAnAcceptCall) {
  slave_ = runtime_->spawn<FakeSlave>();
  MesosSchedulerDriver& driver = startRegistered();
  ResourceOffersMessage offers;
  *offers.add_offers() = makeOffer("o1", "S1");
  offers.add_pids(slave_.pid().toString());
  deliver(offers);

  Offer::Operation launch;
  launch.set_type(Offer::Operation::LAUNCH);
  TaskInfo* task = launch.mutable_launch()->add_task_infos();
  task->set_name("t1");
  task->mutable_task_id()->set_value("t1");
  task->mutable_slave_id()->set_value("S1");
  task->mutable_executor()->mutable_executor_id()->set_value("e1");
  task->mutable_executor()->mutable_command()->set_value("run-me");
  Offer::Operation reserve;
  reserve.set_type(Offer::Operation::RESERVE);
  Filters filters;
  filters.set_refuse_seconds(7);
  OfferID o1;
  o1.set_value("o1");
  EXPECT_EQ(DRIVER_RUNNING, driver.acceptOffers({o1}, {launch, reserve}, filters));
  ExecutorID executor;
  executor.set_value("e1");
  SlaveID s1;
  s1.set_value("S1");
  driver.sendFrameworkMessage(executor, s1, "to S1");
  runtime_->settle();

  EXPECT_TRUE(master_->launches.empty());
  ASSERT_EQ(1u, master_->calls.size());
  const scheduler::Call& call = master_->calls[0];
  EXPECT_EQ(scheduler::Call::ACCEPT, call.type());
  EXPECT_EQ(kFrameworkId, call.framework_id().value());
  ASSERT_EQ(1, call.accept().offer_ids_size());
  EXPECT_EQ("o1", call.accept().offer_ids(0).value());
  EXPECT_EQ(7, call.accept().filters().refuse_seconds());
  ASSERT_EQ(2, call.accept().operations_size());
  const Offer::Operation& sent = call.accept().operations(0);
  EXPECT_EQ(Offer::Operation::LAUNCH, sent.type());
  ASSERT_EQ(1, sent.launch().task_infos_size());
  EXPECT_EQ(kFrameworkId, sent.launch().task_infos(0).executor().framework_id().value());
  EXPECT_EQ(Offer::Operation::RESERVE, call.accept().operations(1).type());
  ASSERT_EQ(1u, slave_->frameworkMessages.size());
  EXPECT_EQ("to S1", slave_->frameworkMessages[0].data());
}

TEST_F(SchedulerDriverTest, ImplicitAcknowledgementFollowsTheCallback) {
  startRegistered();
  auto acks = runtime_->hooks().count<StatusUpdateAcknowledgementMessage>();
  std::vector<uint64_t> acksDuringCallback;
  scheduler_.onStatus = [&](SchedulerDriver*, const TaskStatus&) {
    acksDuringCallback.push_back(acks->load());
  };

  const std::string uuid = randomUuid();
  deliver(makeUpdate("t1", TASK_RUNNING, uuid, "slave(1)@10.0.0.2:5051"));

  ASSERT_EQ(1u, scheduler_.statuses().size());
  TaskStatus seen = scheduler_.statuses()[0];
  EXPECT_EQ("t1", seen.task_id().value());
  EXPECT_EQ(TASK_RUNNING, seen.state());
  EXPECT_EQ(uuid, seen.uuid());
  EXPECT_EQ(std::vector<uint64_t>{0}, acksDuringCallback) << "acknowledged after the callback";
  ASSERT_EQ(1u, master_->acknowledgements.size());
  const StatusUpdateAcknowledgementMessage& ack = master_->acknowledgements[0];
  EXPECT_EQ(kFrameworkId, ack.framework_id().value());
  EXPECT_EQ("S1", ack.slave_id().value());
  EXPECT_EQ("t1", ack.task_id().value());
  EXPECT_EQ(uuid, ack.uuid());

  // A master-generated update carries no uuid: nothing to acknowledge.
  deliver(makeUpdate("t2", TASK_LOST, "", ""));
  ASSERT_EQ(2u, scheduler_.statuses().size());
  EXPECT_FALSE(scheduler_.statuses()[1].has_uuid());
  EXPECT_EQ(1u, master_->acknowledgements.size());

  // acknowledgeStatusUpdate() is refused in implicit mode.
  EXPECT_EQ(DRIVER_RUNNING, driver_->acknowledgeStatusUpdate(seen));
  runtime_->settle();
  EXPECT_EQ(1u, master_->acknowledgements.size());
}

TEST_F(SchedulerDriverTest, ExplicitAcknowledgement) {
  MesosSchedulerDriver& driver = startRegistered(/*implicitAcks=*/false);
  const std::string uuid = randomUuid();
  deliver(makeUpdate("t1", TASK_FINISHED, uuid, "slave(1)@10.0.0.2:5051"));

  ASSERT_EQ(1u, scheduler_.statuses().size());
  TaskStatus seen = scheduler_.statuses()[0];
  EXPECT_EQ(uuid, seen.uuid());
  EXPECT_TRUE(master_->acknowledgements.empty()) << "nothing sent until the scheduler acks";

  EXPECT_EQ(DRIVER_RUNNING, driver.acknowledgeStatusUpdate(seen));
  runtime_->settle();
  ASSERT_EQ(1u, master_->acknowledgements.size());
  EXPECT_EQ(uuid, master_->acknowledgements[0].uuid());
  EXPECT_EQ("t1", master_->acknowledgements[0].task_id().value());
  EXPECT_EQ("S1", master_->acknowledgements[0].slave_id().value());
  EXPECT_EQ(kFrameworkId, master_->acknowledgements[0].framework_id().value());

  // A status without a uuid needs no acknowledgement.
  seen.clear_uuid();
  driver.acknowledgeStatusUpdate(seen);
  runtime_->settle();
  EXPECT_EQ(1u, master_->acknowledgements.size());
}

TEST_F(SchedulerDriverTest, ForwardsMasterEventsToCallbacks) {
  startRegistered();
  RescindResourceOfferMessage rescind;
  rescind.mutable_offer_id()->set_value("o9");
  deliver(rescind);
  LostSlaveMessage lost;
  lost.mutable_slave_id()->set_value("S3");
  deliver(lost);
  ExitedExecutorMessage exited;
  exited.mutable_slave_id()->set_value("S1");
  exited.mutable_framework_id()->set_value(kFrameworkId);
  exited.mutable_executor_id()->set_value("e1");
  exited.set_status(9);
  deliver(exited);
  ExecutorToFrameworkMessage data;
  data.mutable_slave_id()->set_value("S1");
  data.mutable_framework_id()->set_value(kFrameworkId);
  data.mutable_executor_id()->set_value("e1");
  data.set_data("hello");
  deliver(data);

  std::vector<std::string> expected = {"registered framework-1 master-info-id", "rescinded o9",
                                       "slave lost S3", "executor lost e1 S1 9",
                                       "message e1 S1 hello"};
  EXPECT_EQ(expected, scheduler_.events());
}

TEST_F(SchedulerDriverTest, SendsCallsToTheMaster) {
  MesosSchedulerDriver& driver = startRegistered();
  TaskID task;
  task.set_value("t5");
  EXPECT_EQ(DRIVER_RUNNING, driver.killTask(task));
  EXPECT_EQ(DRIVER_RUNNING, driver.reviveOffers());
  EXPECT_EQ(DRIVER_RUNNING, driver.suppressOffers());
  Request request;
  request.mutable_slave_id()->set_value("S1");
  EXPECT_EQ(DRIVER_RUNNING, driver.requestResources({request}));
  TaskStatus status;
  status.mutable_task_id()->set_value("t5");
  EXPECT_EQ(DRIVER_RUNNING, driver.reconcileTasks({status}));
  EXPECT_EQ(DRIVER_RUNNING, driver.reconcileTasks({}));
  runtime_->settle();

  ASSERT_EQ(1u, master_->kills.size());
  EXPECT_EQ("t5", master_->kills[0].task_id().value());
  EXPECT_EQ(kFrameworkId, master_->kills[0].framework_id().value());
  ASSERT_EQ(1u, master_->revivals.size());
  EXPECT_EQ(kFrameworkId, master_->revivals[0].framework_id().value());
  ASSERT_EQ(1u, master_->calls.size());
  EXPECT_EQ(scheduler::Call::SUPPRESS, master_->calls[0].type());
  EXPECT_EQ(kFrameworkId, master_->calls[0].framework_id().value());
  ASSERT_EQ(1u, master_->resourceRequests.size());
  EXPECT_EQ("S1", master_->resourceRequests[0].requests(0).slave_id().value());
  ASSERT_EQ(2u, master_->reconciliations.size());
  ASSERT_EQ(1, master_->reconciliations[0].statuses_size());
  EXPECT_EQ("t5", master_->reconciliations[0].statuses(0).task_id().value());
  EXPECT_TRUE(master_->reconciliations[0].IsInitialized()) << "state filled in for the wire";
  EXPECT_EQ(0, master_->reconciliations[1].statuses_size()) << "implicit reconciliation";
}

TEST_F(SchedulerDriverTest, MasterExitDisconnectsAndReregisters) {
  MesosSchedulerDriver& driver = startRegistered();
  master_.reset();
  runtime_->settle();
  EXPECT_EQ("disconnected", scheduler_.events().back());

  // While disconnected, launches come back as TASK_LOST from the driver.
  OfferID offer;
  offer.set_value("o1");
  EXPECT_EQ(DRIVER_RUNNING, driver.launchTasks(offer, {makeTask("t1", "S1")}));
  runtime_->settle();
  ASSERT_EQ(1u, scheduler_.statuses().size());
  const TaskStatus lost = scheduler_.statuses()[0];
  EXPECT_EQ(TASK_LOST, lost.state());
  EXPECT_EQ(TaskStatus::REASON_MASTER_DISCONNECTED, lost.reason());
  EXPECT_FALSE(lost.has_uuid());

  master_ = runtime_->spawn<FakeMaster>();
  advance(2s);
  ASSERT_EQ(1u, master_->reregistrations.size());
  EXPECT_FALSE(master_->reregistrations[0].failover());
  EXPECT_EQ(kFrameworkId, master_->reregistrations[0].framework().id().value());
  EXPECT_EQ("reregistered master-info-id", scheduler_.events().back());

  // Linked to the new master too.
  master_.reset();
  runtime_->settle();
  EXPECT_EQ("disconnected", scheduler_.events().back());
  std::vector<std::string> events = scheduler_.events();
  EXPECT_EQ(2, std::count(events.begin(), events.end(), "disconnected"));
}

TEST_F(SchedulerDriverTest, FrameworkErrorAbortsTheDriver) {
  MesosSchedulerDriver& driver = startRegistered();
  FrameworkErrorMessage error;
  error.set_message("Framework failed over");
  deliver(error);

  EXPECT_EQ("error Framework failed over", scheduler_.events().back());
  EXPECT_EQ(DRIVER_ABORTED, driver.join());
  EXPECT_EQ(DRIVER_ABORTED, driver.reviveOffers());
  ASSERT_EQ(1u, master_->deactivations.size());
  EXPECT_EQ(kFrameworkId, master_->deactivations[0].framework_id().value());
  EXPECT_TRUE(master_->revivals.empty());

  // Nothing reaches an aborted scheduler.
  size_t before = scheduler_.events().size();
  ResourceOffersMessage offers;
  *offers.add_offers() = makeOffer("o1", "S1");
  offers.add_pids("slave(1)@10.0.0.2:5051");
  deliver(offers);
  EXPECT_EQ(before, scheduler_.events().size());
  EXPECT_EQ(DRIVER_ABORTED, driver.stop());
}

TEST_F(SchedulerDriverTest, IgnoresMessagesNotFromTheMaster) {
  auto held = runtime_->hooks().hold<FrameworkRegisteredMessage>();
  start(framework());
  const UPID impostor("master", process::Address{0x0a000001, 5050});  // master@10.0.0.1
  const UPID other("intruder", master_.pid().address);

  // Not registered yet: a registration answer from anyone else is ignored.
  FrameworkRegisteredMessage registered;
  registered.mutable_framework_id()->set_value("framework-evil");
  registered.mutable_master_info()->set_id("x");
  registered.mutable_master_info()->set_ip(0);
  registered.mutable_master_info()->set_port(0);
  deliver(registered, impostor);
  EXPECT_TRUE(scheduler_.events().empty());
  runtime_->hooks().release(held);
  runtime_->settle();
  ASSERT_EQ(std::vector<std::string>{"registered framework-1 master-info-id"},
            scheduler_.events());

  ResourceOffersMessage offers;
  *offers.add_offers() = makeOffer("o1", "S1");
  offers.add_pids("slave(1)@10.0.0.2:5051");
  RescindResourceOfferMessage rescind;
  rescind.mutable_offer_id()->set_value("o1");
  LostSlaveMessage lost;
  lost.mutable_slave_id()->set_value("S1");
  FrameworkErrorMessage error;
  error.set_message("go away");
  for (const UPID& from : {impostor, other}) {
    deliver(offers, from);
    deliver(rescind, from);
    deliver(lost, from);
    deliver(makeUpdate("t1", TASK_RUNNING, randomUuid(), "slave(1)@10.0.0.2:5051"), from);
    deliver(error, from);
  }
  EXPECT_EQ(1u, scheduler_.events().size()) << scheduler_.events().back();
  EXPECT_TRUE(master_->acknowledgements.empty());
  EXPECT_EQ(DRIVER_RUNNING, driver_->reviveOffers());

  // Executors' messages come straight from slaves.
  ExecutorToFrameworkMessage data;
  data.mutable_slave_id()->set_value("S1");
  data.mutable_framework_id()->set_value(kFrameworkId);
  data.mutable_executor_id()->set_value("e1");
  data.set_data("direct");
  deliver(data, UPID("slave(1)", process::Address{0x0a000002, 5051}));
  EXPECT_EQ("message e1 S1 direct", scheduler_.events().back());
}

TEST_F(SchedulerDriverTest, StopUnregistersAndEndsJoin) {
  MesosSchedulerDriver& driver = startRegistered();
  EXPECT_EQ(DRIVER_STOPPED, driver.stop());
  EXPECT_EQ(DRIVER_STOPPED, driver.join());
  runtime_->settle();
  ASSERT_EQ(1u, master_->unregistrations.size());
  EXPECT_EQ(kFrameworkId, master_->unregistrations[0].framework_id().value());

  TaskID task;
  task.set_value("t1");
  EXPECT_EQ(DRIVER_STOPPED, driver.killTask(task));
  EXPECT_EQ(DRIVER_STOPPED, driver.start());
  EXPECT_EQ(DRIVER_STOPPED, driver.abort());
  EXPECT_EQ(DRIVER_STOPPED, driver.stop());
  runtime_->settle();
  EXPECT_TRUE(master_->kills.empty());
  EXPECT_EQ(1u, master_->unregistrations.size());
  EXPECT_TRUE(master_->deactivations.empty());
}

TEST_F(SchedulerDriverTest, StopForFailoverLeavesTheFrameworkRegistered) {
  MesosSchedulerDriver& driver = startRegistered();
  EXPECT_EQ(DRIVER_STOPPED, driver.stop(/*failover=*/true));
  EXPECT_EQ(DRIVER_STOPPED, driver.join());
  runtime_->settle();
  EXPECT_TRUE(master_->unregistrations.empty());
  EXPECT_TRUE(master_->deactivations.empty());
}

TEST_F(SchedulerDriverTest, AbortDeactivatesAndStopReportsAborted) {
  MesosSchedulerDriver& driver = startRegistered();
  TaskID task;
  task.set_value("t1");
  driver.killTask(task);
  EXPECT_EQ(DRIVER_ABORTED, driver.abort());
  EXPECT_EQ(DRIVER_ABORTED, driver.join());
  EXPECT_EQ(DRIVER_ABORTED, driver.killTask(task));
  runtime_->settle();
  EXPECT_EQ(1u, master_->kills.size()) << "calls made before abort() still go out";
  EXPECT_EQ(1u, master_->deactivations.size());
  EXPECT_EQ(DRIVER_ABORTED, driver.stop());
  EXPECT_EQ(DRIVER_STOPPED, driver.stop());
}

TEST_F(SchedulerDriverTest, CallsBeforeStartDoNothing) {
  MesosSchedulerDriver driver(&scheduler_, framework(), master_.pid().toString(), true,
                              runtime_.get());
  auto sent = runtime_->hooks().count(process::MessageMatch{});
  TaskID task;
  task.set_value("t1");
  EXPECT_EQ(DRIVER_NOT_STARTED, driver.killTask(task));
  EXPECT_EQ(DRIVER_NOT_STARTED, driver.reviveOffers());
  EXPECT_EQ(DRIVER_NOT_STARTED, driver.declineOffer(OfferID()));
  EXPECT_EQ(DRIVER_NOT_STARTED, driver.abort());
  EXPECT_EQ(DRIVER_NOT_STARTED, driver.stop());
  EXPECT_EQ(DRIVER_NOT_STARTED, driver.join());
  runtime_->settle();
  EXPECT_EQ(0u, sent->load());
  EXPECT_TRUE(scheduler_.events().empty());
}

TEST_F(SchedulerDriverTest, UnusableMasterAddressAborts) {
  // A ZooKeeper URL without servers.
  driver_ = std::make_unique<MesosSchedulerDriver>(&scheduler_, framework(), "zk:///mesos", true,
                                                   runtime_.get());
  EXPECT_EQ(DRIVER_ABORTED, driver_->run());
  ASSERT_EQ(1u, scheduler_.events().size());
  EXPECT_NE(std::string::npos, scheduler_.events()[0].find("zk://")) << scheduler_.events()[0];
  EXPECT_EQ(DRIVER_ABORTED, driver_->join());
  EXPECT_EQ(DRIVER_ABORTED, driver_->start());
}

TEST_F(SchedulerDriverTest, IncompleteFrameworkInfoAborts) {
  driver_ = std::make_unique<MesosSchedulerDriver>(&scheduler_, FrameworkInfo(),
                                                   master_.pid().toString(), true,
                                                   runtime_.get());
  EXPECT_EQ(DRIVER_ABORTED, driver_->start());
  ASSERT_EQ(1u, scheduler_.events().size());
  EXPECT_NE(std::string::npos, scheduler_.events()[0].find("name")) << scheduler_.events()[0];
  runtime_->settle();
  EXPECT_TRUE(master_->registrations.empty());
}

TEST_F(SchedulerDriverTest, AcceptsEveryStandaloneMasterForm) {
  const std::string port = std::to_string(master_.pid().address.port);
  for (const std::string& address :
       {"127.0.0.1:" + port, "master@127.0.0.1:" + port, "localhost:" + port}) {
    RecordingScheduler scheduler;
    MesosSchedulerDriver driver(&scheduler, framework(), address, true, runtime_.get());
    ASSERT_EQ(DRIVER_RUNNING, driver.start()) << address;
    runtime_->settle();
    EXPECT_EQ(std::vector<std::string>{"registered framework-1 master-info-id"},
              scheduler.events())
        << address;
    EXPECT_EQ(DRIVER_STOPPED, driver.stop());
    EXPECT_EQ(DRIVER_STOPPED, driver.join());
  }
  runtime_->settle();
  EXPECT_EQ(3u, master_->registrations.size());
  EXPECT_EQ(3u, master_->unregistrations.size());
}

TEST_F(SchedulerDriverTest, RunReturnsWhenACallbackStopsTheDriver) {
  scheduler_.onRegistered = [](SchedulerDriver* driver) {
    EXPECT_EQ(DRIVER_STOPPED, driver->stop());
  };
  driver_ = std::make_unique<MesosSchedulerDriver>(&scheduler_, framework(),
                                                   master_.pid().toString(), true,
                                                   runtime_.get());
  std::atomic<int> result{0};
  std::thread runner([&] { result = driver_->run(); });
  runner.join();  // run() returns on its own: the callback stopped the driver
  EXPECT_EQ(DRIVER_STOPPED, result.load());
  runtime_->settle();
  EXPECT_EQ(1u, master_->unregistrations.size());
}

TEST_F(SchedulerDriverTest, CallsFromManyThreadsWhileEventsArrive) {
  MesosSchedulerDriver& driver = startRegistered();
  constexpr int kThreads = 4;
  constexpr int kCalls = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&driver, t] {
      for (int i = 0; i < kCalls; ++i) {
        TaskID task;
        task.set_value("t" + std::to_string(t) + "-" + std::to_string(i));
        EXPECT_EQ(DRIVER_RUNNING, driver.killTask(task));
        EXPECT_EQ(DRIVER_RUNNING, driver.reviveOffers());
      }
    });
  }
  // Status updates arrive from the master meanwhile.
  for (int i = 0; i < kCalls; ++i) {
    runtime_->send(master_.pid(), driverPid(),
                   makeUpdate("u" + std::to_string(i), TASK_RUNNING, randomUuid(),
                              "slave(1)@10.0.0.2:5051"));
  }
  for (std::thread& thread : threads) thread.join();
  runtime_->settle();

  ASSERT_EQ(size_t{kThreads * kCalls}, master_->kills.size());
  std::set<std::string> killed;
  for (const KillTaskMessage& kill : master_->kills) killed.insert(kill.task_id().value());
  EXPECT_EQ(size_t{kThreads * kCalls}, killed.size());
  EXPECT_EQ(size_t{kThreads * kCalls}, master_->revivals.size());
  EXPECT_EQ(size_t{kCalls}, scheduler_.statuses().size());
  EXPECT_EQ(size_t{kCalls}, master_->acknowledgements.size());
  EXPECT_FALSE(scheduler_.overlapped()) << "callbacks ran concurrently";

  EXPECT_EQ(DRIVER_STOPPED, driver.stop());
  EXPECT_EQ(DRIVER_STOPPED, driver.join());
}

// The same conversation over real TCP: a master in another runtime, whose
// going away the driver notices through its link.
TEST(SchedulerDriverTcpTest, TalksToARemoteMasterAndNoticesItGoing) {
  auto makeRuntime = [] {
    Runtime::Options options;
    options.pauseClock = true;
    auto runtime = Runtime::create(options);
    CHECK(runtime.ok()) << runtime.error().message;
    return std::move(runtime).value();
  };
  std::unique_ptr<Runtime> masterRuntime = makeRuntime();
  std::unique_ptr<Runtime> schedulerRuntime = makeRuntime();
  process::Spawned<FakeMaster> master = masterRuntime->spawn<FakeMaster>();

  RecordingScheduler scheduler;
  process::Promise<process::Nothing> registered, offered, disconnected;
  scheduler.onRegistered = [&](SchedulerDriver*) { registered.set({}); };
  scheduler.onOffers = [&](SchedulerDriver* driver, const std::vector<Offer>& offers) {
    driver->launchTasks(offers[0].id(), {makeTask("t1", "S1")});
    offered.set({});
  };
  scheduler.onDisconnected = [&] { disconnected.set({}); };
  auto launched = masterRuntime->hooks().await<LaunchTasksMessage>();

  FrameworkInfo info;
  info.set_name("tcp framework");
  MesosSchedulerDriver driver(&scheduler, info, master.pid().toString(), true,
                              schedulerRuntime.get());
  ASSERT_EQ(DRIVER_RUNNING, driver.start());
  ASSERT_TRUE(registered.future().await(15s));
  masterRuntime->settle();
  const UPID schedulerPid = master->scheduler;
  EXPECT_EQ(schedulerRuntime->address(), schedulerPid.address);

  ResourceOffersMessage offers;
  *offers.add_offers() = makeOffer("o1", "S1");
  offers.add_pids("slave(1)@127.0.0.1:5051");
  masterRuntime->send(master.pid(), schedulerPid, offers);
  ASSERT_TRUE(offered.future().await(15s));
  ASSERT_TRUE(launched.await(15s));
  ASSERT_TRUE(launched.isReady()) << launched.failure();
  EXPECT_EQ("o1", launched.get().offer_ids(0).value());
  EXPECT_EQ("t1", launched.get().tasks(0).task_id().value());
  EXPECT_EQ(kFrameworkId, launched.get().framework_id().value());

  master.reset();
  masterRuntime.reset();
  ASSERT_TRUE(disconnected.future().await(15s));
  EXPECT_EQ("disconnected", scheduler.events().back());
  EXPECT_EQ(DRIVER_STOPPED, driver.stop());
  EXPECT_EQ(DRIVER_STOPPED, driver.join());
}

}  // namespace
}  // namespace mesos::test
