// The allocation policies end to end: real schedulers (MesosSchedulerDriver)
// on a real master and real slaves, with real executor processes. Each test
// checks an outcome of the policy that the frameworks can see: how many
// tasks each one ends up running.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "mesos/resources.hpp"
#include "support/cluster.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

FrameworkInfo frameworkInfo(const std::string& name, const std::string& role = "") {
  FrameworkInfo info;
  info.set_user("");
  info.set_name(name);
  if (!role.empty()) info.set_role(role);
  return info;
}

Filters refuseFor(double seconds) {
  Filters filters;
  filters.set_refuse_seconds(seconds);
  return filters;
}

// How a framework answers offers: every offer that holds `task` gets one task
// `<prefix><n>` running `command`, and the rest of the offer comes back to
// the allocator at once (refuse_seconds 0); an offer that does not hold
// `task` is declined for `declineSeconds`. Once `done`, every offer is
// declined.
struct OneTaskPerOffer {
  std::string prefix;
  std::string task;
  std::string command;
  double declineSeconds = 0;
  std::atomic<int> launched{0};
  std::atomic<int> declined{0};
  std::atomic<bool> done{false};

  bool fits(const Offer& offer) const {
    return Resources(offer.resources()).contains(Resources::parse(task).value());
  }
};

// A policy launching `task` resources running `command`, ids prefix0, prefix1...
std::shared_ptr<OneTaskPerOffer> oneTaskPerOffer(const std::string& prefix, const std::string& task,
                                                 const std::string& command = "sleep 1000") {
  auto policy = std::make_shared<OneTaskPerOffer>();
  policy->prefix = prefix;
  policy->task = task;
  policy->command = command;
  return policy;
}

void answerOffers(RecordingScheduler& scheduler, std::shared_ptr<OneTaskPerOffer> policy) {
  scheduler.onOffers = [policy](SchedulerDriver* driver, const std::vector<Offer>& offers) {
    for (const Offer& offer : offers) {
      if (!policy->done && policy->fits(offer)) {
        std::string id = policy->prefix + std::to_string(policy->launched++);
        driver->launchTasks(offer.id(), {commandTask(offer, id, policy->command, policy->task)},
                            refuseFor(0));
      } else {
        policy->declined++;
        driver->declineOffer(offer.id(), refuseFor(policy->declineSeconds));
      }
    }
  };
}

// Whether an "offers" event holds an offer that does not fit `policy`.
std::function<bool(const RecordingScheduler::Event&)> unfitOffer(
    std::shared_ptr<OneTaskPerOffer> policy) {
  return [policy](const RecordingScheduler::Event& e) {
    if (e.kind != "offers") return false;
    for (const Offer& offer : e.offers) {
      if (!policy->fits(offer)) return true;
    }
    return false;
  };
}

// Ends the test's long-running tasks <prefix>0.. (stopping a framework just
// before the cluster goes can leave their processes behind).
void killAll(SchedulerDriver& driver, RecordingScheduler& scheduler, OneTaskPerOffer& policy) {
  policy.done = true;
  for (int i = 0; i < policy.launched; i++) {
    TaskID id;
    id.set_value(policy.prefix + std::to_string(i));
    driver.killTask(id);
    EXPECT_TRUE(scheduler.awaitStatus(id.value(), TASK_KILLED)) << id.value();
  }
}

// Every offer `scheduler` has received so far.
std::vector<Offer> allOffers(RecordingScheduler& scheduler) {
  std::vector<Offer> offers;
  scheduler.await(
      [&](const RecordingScheduler::Event& e) {
        if (e.kind == "offers") offers.insert(offers.end(), e.offers.begin(), e.offers.end());
        return false;
      },
      0ms);
  return offers;
}

int offersReceived(RecordingScheduler& scheduler) {
  return static_cast<int>(allOffers(scheduler).size());
}

// The DRF paper's example (section 4.1): a cluster of <9 CPUs, 18 GB>, A's
// tasks need <1 CPU, 4 GB> and B's <3 CPUs, 1 GB>. Offered one task at a
// time, A ends with three tasks and B with two (both at a dominant share of
// 2/3), and what is left, <0 CPUs, 4 GB>, fits neither.
TEST(AllocationTest, DrfPaperExampleEndsWithThreeAndTwoTasks) {
  internal::master::MasterFlags flags;
  flags.allocation_interval = 50ms;
  TestCluster cluster(flags);

  RecordingScheduler a, b;
  auto policyA = oneTaskPerOffer("a", "cpus:1;mem:4096");
  policyA->declineSeconds = 1000;
  auto policyB = oneTaskPerOffer("b", "cpus:3;mem:1024");
  policyB->declineSeconds = 1000;
  answerOffers(a, policyA);
  answerOffers(b, policyB);

  MesosSchedulerDriver driverA(&a, frameworkInfo("A"), cluster.masterAddress(), true,
                               &cluster.runtime());
  MesosSchedulerDriver driverB(&b, frameworkInfo("B"), cluster.masterAddress(), true,
                               &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driverA.start());
  ASSERT_TRUE(a.awaitKind("registered"));
  ASSERT_EQ(DRIVER_RUNNING, driverB.start());
  ASSERT_TRUE(b.awaitKind("registered"));
  cluster.startSlave("cpus:9;mem:18432;disk:1024");

  for (const char* id : {"a0", "a1", "a2"}) EXPECT_TRUE(a.awaitStatus(id, TASK_RUNNING)) << id;
  for (const char* id : {"b0", "b1"}) EXPECT_TRUE(b.awaitStatus(id, TASK_RUNNING)) << id;

  // The end: each framework is offered the leftover and turns it down, and
  // after that nobody has launched more.
  EXPECT_TRUE(a.await(unfitOffer(policyA))) << "A was never offered the leftover";
  EXPECT_TRUE(b.await(unfitOffer(policyB))) << "B was never offered the leftover";
  EXPECT_EQ(3, policyA->launched.load());
  EXPECT_EQ(2, policyB->launched.load());
  EXPECT_GE(policyA->declined.load(), 1);
  EXPECT_GE(policyB->declined.load(), 1);

  policyA->done = policyB->done = true;
  killAll(driverA, a, *policyA);
  killAll(driverB, b, *policyB);
  driverA.stop();
  driverB.stop();
  driverA.join();
  driverB.join();
}

// The paper's section 4.5: with a minimum offer size, a slave kept busy by a
// framework of short 1-CPU tasks is still offered whole, so a framework that
// needs 4 CPUs at once gets them. The small framework runs first and keeps
// launching one task per offer; the big one arrives while it does. With the
// minimum, the slave is offered only when all 4 CPUs are free, that is when
// neither framework holds anything: the tie must go to the big one (offered
// least recently), or the older small framework wins every time.
TEST(AllocationTest, MinimumOfferSizeLetsABigFrameworkIn) {
  internal::master::MasterFlags flags;
  flags.allocation_interval = 50ms;
  flags.min_offer_size = "cpus:4";
  TestCluster cluster(flags);

  RecordingScheduler small, big;
  auto policySmall = oneTaskPerOffer("small", "cpus:1;mem:128", "sleep 0.2");
  auto policyBig = oneTaskPerOffer("big", "cpus:4;mem:1024");
  answerOffers(small, policySmall);
  answerOffers(big, policyBig);

  MesosSchedulerDriver driverSmall(&small, frameworkInfo("small"), cluster.masterAddress(), true,
                                   &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driverSmall.start());
  ASSERT_TRUE(small.awaitKind("registered"));
  cluster.startSlave("cpus:4;mem:4096;disk:1024");
  ASSERT_TRUE(small.awaitStatus("small0", TASK_RUNNING));

  MesosSchedulerDriver driverBig(&big, frameworkInfo("big"), cluster.masterAddress(), true,
                                 &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driverBig.start());
  ASSERT_TRUE(big.awaitKind("registered"));
  EXPECT_TRUE(big.awaitStatus("big0", TASK_RUNNING))
      << "the big framework never got 4 CPUs; the small one launched "
      << policySmall->launched.load() << " tasks meanwhile";
  // Offers were only ever of the whole slave: nobody saw a fragment.
  EXPECT_EQ(0, policyBig->declined.load());
  EXPECT_EQ(0, policySmall->declined.load());

  driverSmall.stop();
  driverSmall.join();
  killAll(driverBig, big, *policyBig);
  driverBig.stop();
  driverBig.join();
}

// Weighted DRF across roles: role a weighs 2 and role b 1, so a's framework
// ends with twice b's CPUs when both take every offer.
TEST(AllocationTest, WeightedRolesSplitTwoToOne) {
  internal::master::MasterFlags flags;
  flags.allocation_interval = 50ms;
  flags.weights = "a=2,b=1";
  TestCluster cluster(flags);

  RecordingScheduler a, b;
  auto policyA = oneTaskPerOffer("a", "cpus:1;mem:1024");
  auto policyB = oneTaskPerOffer("b", "cpus:1;mem:1024");
  answerOffers(a, policyA);
  answerOffers(b, policyB);

  MesosSchedulerDriver driverA(&a, frameworkInfo("A", "a"), cluster.masterAddress(), true,
                               &cluster.runtime());
  MesosSchedulerDriver driverB(&b, frameworkInfo("B", "b"), cluster.masterAddress(), true,
                               &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driverA.start());
  ASSERT_EQ(DRIVER_RUNNING, driverB.start());
  ASSERT_TRUE(a.awaitKind("registered"));
  ASSERT_TRUE(b.awaitKind("registered"));
  for (int i = 0; i < 6; i++) cluster.startSlave("cpus:1;mem:1024;disk:64");

  // Six slaves, one task each: once all six run, nothing is free and the
  // split is final.
  for (const char* id : {"a0", "a1", "a2", "a3"}) EXPECT_TRUE(a.awaitStatus(id, TASK_RUNNING)) << id;
  for (const char* id : {"b0", "b1"}) EXPECT_TRUE(b.awaitStatus(id, TASK_RUNNING)) << id;
  EXPECT_EQ(4, policyA->launched.load());
  EXPECT_EQ(2, policyB->launched.load());

  policyA->done = policyB->done = true;
  killAll(driverA, a, *policyA);
  killAll(driverB, b, *policyB);
  driverA.stop();
  driverB.stop();
  driverA.join();
  driverB.join();
}

// Strict priority: the framework of the higher-priority role is offered
// every slave while it takes them; the lower one is offered resources only
// once the higher one stops asking (suppresses) and something frees up.
TEST(AllocationTest, StrictPriorityServesTheHigherRoleFirst) {
  internal::master::MasterFlags flags;
  flags.allocation_interval = 50ms;
  flags.allocator = "priority";
  flags.priorities = "hi=10,lo=1";
  TestCluster cluster(flags);

  RecordingScheduler hi, lo;
  auto policyHi = oneTaskPerOffer("hi", "cpus:1;mem:512");
  answerOffers(hi, policyHi);

  MesosSchedulerDriver driverHi(&hi, frameworkInfo("hi", "hi"), cluster.masterAddress(), true,
                                &cluster.runtime());
  MesosSchedulerDriver driverLo(&lo, frameworkInfo("lo", "lo"), cluster.masterAddress(), true,
                                &cluster.runtime());
  ASSERT_EQ(DRIVER_RUNNING, driverLo.start());
  ASSERT_TRUE(lo.awaitKind("registered"));
  ASSERT_EQ(DRIVER_RUNNING, driverHi.start());
  ASSERT_TRUE(hi.awaitKind("registered"));
  for (int i = 0; i < 3; i++) cluster.startSlave("cpus:1;mem:512;disk:64");

  auto first = hi.awaitStatus("hi0", TASK_RUNNING);
  ASSERT_TRUE(first);
  EXPECT_TRUE(hi.awaitStatus("hi1", TASK_RUNNING));
  EXPECT_TRUE(hi.awaitStatus("hi2", TASK_RUNNING));
  // All three slaves went to hi, and nothing is free: lo has seen nothing.
  EXPECT_EQ(3, offersReceived(hi));
  EXPECT_EQ(0, offersReceived(lo));

  // hi stops asking; one of its tasks ends and frees a slave, which lo gets.
  driverHi.suppressOffers();
  driverHi.killTask(first->status.task_id());
  EXPECT_TRUE(hi.awaitStatus("hi0", TASK_KILLED));
  auto offered = lo.awaitKind("offers");
  ASSERT_TRUE(offered);
  ASSERT_EQ(1u, offered->offers.size());
  EXPECT_EQ(first->status.slave_id().value(), offered->offers[0].slave_id().value());
  EXPECT_EQ(3, offersReceived(hi));

  killAll(driverHi, hi, *policyHi);
  driverHi.stop();
  driverLo.stop();
  driverHi.join();
  driverLo.join();
}

// Whether any resource of `offer` is reserved for a role.
bool reserved(const Offer& offer) {
  for (const Resource& resource : offer.resources()) {
    if (resource.role() != "*") return true;
  }
  return false;
}

// The n-th (from 1) "offers" event of `scheduler`, waiting for it.
std::optional<RecordingScheduler::Event> nthOffers(RecordingScheduler& scheduler, int n) {
  int seen = 0;
  return scheduler.await([&](const RecordingScheduler::Event& e) {
    return e.kind == "offers" && ++seen == n;
  });
}

// Two frameworks on one cluster, registered before any slave: "any" of
// role "*" and "prod" of role prod. Both hold their offers until the test
// answers them.
class ReservationsClusterTest : public ::testing::Test {
 protected:
  static internal::master::MasterFlags flags() {
    internal::master::MasterFlags flags;
    flags.allocation_interval = 50ms;
    return flags;
  }

  void SetUp() override {
    any.onOffers = prod.onOffers = [](SchedulerDriver*, const std::vector<Offer>&) {};
    ASSERT_EQ(DRIVER_RUNNING, driverAny.start());
    ASSERT_TRUE(any.awaitKind("registered"));
    ASSERT_EQ(DRIVER_RUNNING, driverProd.start());
    ASSERT_TRUE(prod.awaitKind("registered"));
  }

  void TearDown() override {
    driverAny.stop();
    driverProd.stop();
    driverAny.join();
    driverProd.join();
  }

  TestCluster cluster{flags()};
  RecordingScheduler any, prod;
  MesosSchedulerDriver driverAny{&any, frameworkInfo("any"), cluster.masterAddress(), true,
                                 &cluster.runtime()};
  MesosSchedulerDriver driverProd{&prod, frameworkInfo("prod", "prod"), cluster.masterAddress(),
                                  true, &cluster.runtime()};
};

// Static reservations (a slave's --resources with roles): the reserved cpus
// and memory go only to the framework of role prod, in the same allocation
// as the unreserved ones go to the framework of role "*", and a task uses
// them only by naming the role: cpus(prod).
TEST_F(ReservationsClusterTest, StaticReservationsAreOfferedOnlyToTheirRole) {
  cluster.startSlave("cpus:2;cpus(prod):1;mem:512;mem(prod):256;disk:64");

  // Equal shares: role "*" is served first and takes what is unreserved;
  // prod still gets its reservation, at once.
  auto first = nthOffers(any, 1);
  ASSERT_TRUE(first);
  ASSERT_EQ(1u, first->offers.size());
  const Offer& offerAny = first->offers[0];
  EXPECT_FALSE(reserved(offerAny)) << Resources(offerAny.resources()).toString();
  EXPECT_EQ(2, Resources(offerAny.resources()).scalar("cpus"));
  auto firstProd = nthOffers(prod, 1);
  ASSERT_TRUE(firstProd);
  ASSERT_EQ(1u, firstProd->offers.size());
  const Offer& offerProd = firstProd->offers[0];
  EXPECT_EQ(Resources::parse("cpus(prod):1;mem(prod):256").value(),
            Resources(offerProd.resources()));

  // The master checks resources with their roles: "any" cannot use prod's
  // cpus, and prod cannot use its reserved cpus as unreserved ones.
  driverAny.launchTasks(offerAny.id(),
                        {commandTask(offerAny, "any0", "sleep 1000", "cpus(prod):1;mem:32")},
                        refuseFor(0));
  auto anyError = any.awaitStatus("any0", TASK_ERROR);
  ASSERT_TRUE(anyError);
  EXPECT_EQ(TaskStatus::REASON_TASK_INVALID, anyError->status.reason());
  driverProd.launchTasks(offerProd.id(),
                         {commandTask(offerProd, "prod0", "sleep 1000", "cpus:1;mem(prod):32")},
                         refuseFor(0));
  auto prodError = prod.awaitStatus("prod0", TASK_ERROR);
  ASSERT_TRUE(prodError);
  EXPECT_EQ(TaskStatus::REASON_TASK_INVALID, prodError->status.reason());

  // Named with its role, the reservation runs prod's task.
  auto again = nthOffers(prod, 2);
  ASSERT_TRUE(again);
  ASSERT_EQ(1u, again->offers.size());
  const Offer& offerProd2 = again->offers[0];
  Resources task = Resources::parse("cpus(prod):1;mem(prod):32").value();
  ASSERT_TRUE(Resources(offerProd2.resources()).contains(task))
      << Resources(offerProd2.resources()).toString();
  driverProd.launchTasks(offerProd2.id(),
                         {commandTask(offerProd2, "prod1", "sleep 1000", task.toString())},
                         refuseFor(0));
  EXPECT_TRUE(prod.awaitStatus("prod1", TASK_RUNNING));

  // "any" has been offered the unreserved resources again; never a
  // reserved one.
  ASSERT_TRUE(nthOffers(any, 2));
  for (const Offer& offer : allOffers(any)) {
    EXPECT_FALSE(reserved(offer)) << Resources(offer.resources()).toString();
  }

  TaskID prod1;
  prod1.set_value("prod1");
  driverProd.killTask(prod1);
  EXPECT_TRUE(prod.awaitStatus("prod1", TASK_KILLED));
}

// --default_role=prod reserves everything the slave gives without a role,
// detected resources included: only prod's framework is offered that slave.
TEST_F(ReservationsClusterTest, DefaultRoleReservesTheSlavesResources) {
  cluster.startSlave("cpus:1;mem:256;disk:64", {"--default_role=prod"});

  auto offered = nthOffers(prod, 1);
  ASSERT_TRUE(offered);
  ASSERT_EQ(1u, offered->offers.size());
  Resources all(offered->offers[0].resources());
  EXPECT_EQ(all.role("prod"), all) << all.toString();
  EXPECT_EQ(1, all.scalar("cpus"));
  EXPECT_GT(all.ranges("ports").range_size(), 0) << "detected ports take the default role too";
  // prod turns the slave down for good; a plain slave comes, and that is
  // what "any" is offered, never the reserved one.
  driverProd.declineOffer(offered->offers[0].id(), refuseFor(1000));
  cluster.startSlave("cpus:1;mem:256;disk:64");
  auto anyOffer = nthOffers(any, 1);
  ASSERT_TRUE(anyOffer);
  for (const Offer& offer : allOffers(any)) {
    EXPECT_FALSE(reserved(offer)) << Resources(offer.resources()).toString();
  }

}

}  // namespace
}  // namespace mesos::test
