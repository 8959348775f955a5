// The built-in policies (drf, with roles and weights; priority; lottery) and
// the offer controls (refusal and standing filters, minimum offer size) and
// revocation decisions of the hierarchical allocator, called directly on a
// clock the test moves.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "allocator/chooser.hpp"
#include "allocator/config.hpp"
#include "allocator/drf/shares.hpp"
#include "allocator/factory.hpp"
#include "allocator/hierarchical.hpp"
#include "support/allocator_fixture.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using allocator::Config;
using allocator::HierarchicalAllocator;
using allocator::Revocation;
using allocator::SlaveResources;

// Config flags from name -> value, as the master's flags would give them.
allocator::ConfigFlags flags(const std::map<std::string, std::string>& given) {
  allocator::ConfigFlags flags;
  for (const auto& [name, value] : given) {
    if (name == "roles") flags.roles = value;
    if (name == "weights") flags.weights = value;
    if (name == "priorities") flags.priorities = value;
    if (name == "guarantees") flags.guarantees = value;
    if (name == "min_offer_size") flags.minOfferSize = value;
    if (name == "revocation_timeout") flags.revocationTimeout = std::chrono::seconds(std::stoi(value));
    if (name == "seed") flags.seed = std::stoull(value);
    if (name == "lottery_tickets") flags.lotteryTickets = value;
    if (name == "revoke_below_fair_share") flags.revokeBelowFairShare = value == "true";
  }
  return flags;
}

class PoliciesTest : public ::testing::Test {
 protected:
  // Creates the allocator under test.
  void start(const std::string& policy, Config config = {}) {
    allocator_ = std::make_unique<HierarchicalAllocator>(policy, std::move(config));
    allocator::Options options;
    options.now = [this] { return now_; };
    options.offer = [this](const FrameworkID& id, std::vector<SlaveResources> offers) {
      for (auto& offer : offers) {
        offers_.push_back({id.value(), offer.slaveId.value(), offer.resources});
      }
    };
    options.revoke = [this](const Revocation& revocation) { revocations_.push_back(revocation); };
    allocator_->initialize(options);
  }

  static Config parse(const std::map<std::string, std::string>& given) {
    auto config = allocator::parseConfig(flags(given));
    EXPECT_TRUE(config.ok()) << config.error().message;
    return config.ok() ? *config : Config{};
  }

  static FrameworkID framework(const std::string& id) { return frameworkId(id); }
  static SlaveID slave(const std::string& id) { return slaveId(id); }
  static Resources resources(const std::string& text) { return Resources::parse(text).value(); }

  void addFramework(const std::string& id, const std::string& role = "*") {
    FrameworkInfo info;
    info.set_user("u");
    info.set_name(id);
    info.set_role(role);
    allocator_->addFramework(framework(id), info, {}, true);
  }
  void addSlave(const std::string& id, const std::string& total,
                const std::unordered_map<std::string, Resources>& used = {}) {
    SlaveInfo info;
    info.set_hostname("host-" + id);
    allocator_->addSlave(slave(id), info, resources(total), used);
  }
  void recover(const std::string& f, const std::string& s, const Resources& r,
               std::optional<Filters> filters = std::nullopt) {
    allocator_->recoverResources(framework(f), slave(s), r, filters);
  }
  // The framework's standing filter: only slaves with `minFree` free.
  void standingMinFree(const std::string& f, const std::string& minFree) {
    Filters filters;
    filters.set_refuse_seconds(0);
    for (const Resource& r : resources(minFree)) {
      filters.mutable_offer_filters()->add_min_free()->CopyFrom(r);
    }
    recover(f, "nowhere", Resources(), filters);
  }

  struct Made {
    std::string framework;
    std::string slave;
    Resources resources;
  };
  std::vector<Made> take() { return std::exchange(offers_, {}); }
  // Offers made by a full cycle, counted per framework.
  std::map<std::string, int> cycle() {
    allocator_->allocate();
    std::map<std::string, int> count;
    for (const Made& made : take()) count[made.framework]++;
    return count;
  }

  // Offers slave `s` `rounds` times, each offer given straight back
  // (lottery tests): how many each framework won.
  std::map<std::string, int> draws(const std::string& s, int rounds) {
    std::map<std::string, int> won;
    for (int round = 0; round < rounds; round++) {
      allocator_->allocate(std::vector<SlaveID>{slave(s)});
      auto made = take();
      EXPECT_EQ(1u, made.size());
      if (made.size() != 1) break;
      won[made[0].framework]++;
      recover(made[0].framework, s, made[0].resources);
    }
    return won;
  }

  // Five binomial standard deviations of a fraction p over `rounds`: a
  // correct lottery strays further about once in 10^6 seeds.
  static double bound(double p, int rounds) { return 5 * std::sqrt(p * (1 - p) / rounds); }

  allocator::TimePoint now_{};
  std::vector<Made> offers_;
  std::vector<Revocation> revocations_;
  std::unique_ptr<HierarchicalAllocator> allocator_;
};

// The default policy with one role: whole slaves, DRF, filters, churn.
class DrfTest : public PoliciesTest {
 protected:
  void SetUp() override { start("drf"); }
};

TEST_F(DrfTest, OffersAWholeSlaveToOneFramework) {
  addFramework("f1");
  addSlave("s1", "cpus:4;mem:1024");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("f1", made[0].framework);
  EXPECT_EQ(4, made[0].resources.scalar("cpus"));
  // Nothing is free now.
  allocator_->allocate();
  EXPECT_TRUE(take().empty());
}

TEST_F(DrfTest, DominantResourceFairness) {
  // The DRF paper's example: <9 cpus, 18 GB>; A's tasks <1, 4>, B's <3, 1>.
  // Offered one task's worth at a time, A ends with 3 tasks and B with 2.
  addFramework("A");
  addFramework("B");
  addSlave("s", "cpus:9;mem:18432");
  Resources taskA = Resources::parse("cpus:1;mem:4096").value();
  Resources taskB = Resources::parse("cpus:3;mem:1024").value();
  int tasksA = 0, tasksB = 0;
  for (int round = 0; round < 20; ++round) {
    allocator_->allocate();
    auto made = take();
    if (made.empty()) break;
    ASSERT_EQ(1u, made.size());
    const Resources& offered = made[0].resources;
    const Resources& task = made[0].framework == "A" ? taskA : taskB;
    if (!offered.contains(task)) {
      // It cannot use the offer: decline for a long time.
      Filters filters;
      filters.set_refuse_seconds(3600);
      allocator_->recoverResources(framework(made[0].framework), slave("s"), offered, filters);
      continue;
    }
    (made[0].framework == "A" ? tasksA : tasksB)++;
    allocator_->recoverResources(framework(made[0].framework), slave("s"), offered - task,
                                std::nullopt);
  }
  EXPECT_EQ(3, tasksA);
  EXPECT_EQ(2, tasksB);
  EXPECT_NEAR(2.0 / 3, allocator_->share(framework("A")), 1e-9);
  EXPECT_NEAR(2.0 / 3, allocator_->share(framework("B")), 1e-9);
}

TEST_F(DrfTest, OfferedResourcesCountTowardsTheShare) {
  addFramework("f1");
  addFramework("f2");
  addSlave("s1", "cpus:2;mem:1024");
  allocator_->allocate();
  auto first = take();
  ASSERT_EQ(1u, first.size());
  // The framework holding the (unanswered) offer has the larger share: the
  // next slave goes to the other one.
  addSlave("s2", "cpus:2;mem:1024");
  allocator_->allocate();
  auto second = take();
  ASSERT_EQ(1u, second.size());
  EXPECT_NE(first[0].framework, second[0].framework);
}

TEST_F(DrfTest, FiltersExpireAndMoreResourcesLiftThem) {
  addFramework("f1");
  addSlave("s1", "cpus:4;mem:1024");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  Filters filters;
  filters.set_refuse_seconds(10);
  Resources half = Resources::parse("cpus:2;mem:512").value();
  // Declines half (keeps the other half for a task).
  allocator_->recoverResources(framework("f1"), slave("s1"), half, filters);
  allocator_->allocate();
  EXPECT_TRUE(take().empty());
  now_ += 9s;
  allocator_->allocate();
  EXPECT_TRUE(take().empty());
  // The task ends: more is free than was refused, so the filter no longer
  // applies.
  allocator_->recoverResources(framework("f1"), slave("s1"), half, std::nullopt);
  allocator_->allocate();
  made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ(4, made[0].resources.scalar("cpus"));
}

TEST_F(DrfTest, SuppressAndReviveAndInactiveFrameworks) {
  addFramework("f1");
  allocator_->suppressOffers(framework("f1"));
  addSlave("s1", "cpus:1;mem:128");
  allocator_->allocate();
  EXPECT_TRUE(take().empty());
  allocator_->reviveOffers(framework("f1"));
  allocator_->deactivateFramework(framework("f1"));
  allocator_->allocate();
  EXPECT_TRUE(take().empty());
  allocator_->activateFramework(framework("f1"));
  allocator_->allocate();
  EXPECT_EQ(1u, take().size());
}

TEST_F(DrfTest, RemovedSlavesAndFrameworksLeaveNoTrace) {
  addFramework("f1");
  addFramework("f2");
  addSlave("s1", "cpus:1;mem:128");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  std::string holder = made[0].framework;
  allocator_->removeSlave(slave("s1"));
  EXPECT_EQ(0, allocator_->share(framework(holder)));
  addSlave("s2", "cpus:1;mem:128");
  allocator_->removeFramework(framework(holder));
  allocator_->allocate();
  made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_NE(holder, made[0].framework);
  EXPECT_EQ("s2", made[0].slave);
}

TEST_F(DrfTest, TinyLeftoversAreNotOffered) {
  addFramework("f1");
  addSlave("s1", "cpus:0.005;mem:16;ports:[1-2]");
  allocator_->allocate();
  EXPECT_TRUE(take().empty());
}

TEST_F(PoliciesTest, WeightedDrfAmongRoles) {
  start("drf", parse({{"weights", "a=2,b=1"}}));
  addFramework("fa", "a");
  addFramework("fb", "b");
  for (int i = 0; i < 6; i++) addSlave("s" + std::to_string(i), "cpus:1;mem:1024");
  // Shares divided by weights: a holds twice b's resources at equal share.
  auto count = cycle();
  EXPECT_EQ(4, count["fa"]);
  EXPECT_EQ(2, count["fb"]);
  EXPECT_NEAR(4.0 / 6 / 2, allocator_->roleShare("a"), 1e-9);
  EXPECT_NEAR(2.0 / 6, allocator_->roleShare("b"), 1e-9);
}

TEST_F(PoliciesTest, DrfAmongFrameworksWithinARole) {
  // Role a weighs 3, so it gets 3 slaves of 4; inside it, its two
  // frameworks split by their own dominant shares (2 and 1, ties by the
  // order they were added).
  start("drf", parse({{"weights", "a=3"}}));
  addFramework("a1", "a");
  addFramework("a2", "a");
  addFramework("b1", "b");
  for (int i = 0; i < 4; i++) addSlave("s" + std::to_string(i), "cpus:1;mem:1024");
  auto count = cycle();
  EXPECT_EQ(2, count["a1"]);
  EXPECT_EQ(1, count["a2"]);
  EXPECT_EQ(1, count["b1"]);
}

TEST_F(PoliciesTest, StrictPriorityOffersEverythingToTheHigherRoleFirst) {
  start("priority", parse({{"priorities", "hi=10,lo=1"}}));
  addFramework("lo1", "lo");
  addFramework("hi1", "hi");
  addFramework("hi2", "hi");
  for (int i = 0; i < 5; i++) addSlave("s" + std::to_string(i), "cpus:1;mem:1024");
  auto count = cycle();
  // Everything to hi, split between its frameworks by DRF; nothing to lo.
  EXPECT_EQ(0, count["lo1"]);
  EXPECT_EQ(3, count["hi1"]);
  EXPECT_EQ(2, count["hi2"]);
  // Once hi does not want offers, lo gets what is free.
  allocator_->suppressOffers(framework("hi1"));
  allocator_->suppressOffers(framework("hi2"));
  addSlave("s5", "cpus:1;mem:1024");
  count = cycle();
  EXPECT_EQ(1, count["lo1"]);
}

TEST_F(PoliciesTest, PriorityTiesAreBrokenByDrf) {
  start("priority", parse({{"priorities", "x=5,y=5"}}));
  addFramework("fx", "x");
  addFramework("fy", "y");
  for (int i = 0; i < 4; i++) addSlave("s" + std::to_string(i), "cpus:1;mem:1024");
  auto count = cycle();
  EXPECT_EQ(2, count["fx"]);
  EXPECT_EQ(2, count["fy"]);
}

TEST_F(PoliciesTest, DrfIgnoresPriorities) {
  start("drf", parse({{"priorities", "hi=10,lo=1"}}));
  addFramework("hi1", "hi");
  addFramework("lo1", "lo");
  for (int i = 0; i < 4; i++) addSlave("s" + std::to_string(i), "cpus:1;mem:1024");
  auto count = cycle();
  EXPECT_EQ(2, count["hi1"]);
  EXPECT_EQ(2, count["lo1"]);
}

// Each round one freed slave is drawn for; over many rounds each framework
// wins about t_i / sum(t) of them.
TEST_F(PoliciesTest, LotteryOffersInProportionToTickets) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    start("lottery", parse({{"weights", "a=3,b=1"}, {"seed", std::to_string(seed)}}));
    addFramework("fa", "a");
    addFramework("fb", "b");
    addSlave("s", "cpus:1;mem:1024");
    const int rounds = 4000;
    // Expected 3/4; a binomial's standard deviation here is about 0.0068.
    EXPECT_NEAR(0.75, draws("s", rounds)["fa"] / double(rounds), bound(0.75, rounds))
        << "seed " << seed;
  }
}

TEST_F(PoliciesTest, LotteryTicketsAreSplitAmongARolesFrameworks) {
  start("lottery", parse({{"weights", "a=2,b=1"}, {"seed", std::to_string(7)}}));
  addFramework("a1", "a");
  addFramework("a2", "a");
  addFramework("b1", "b");
  addSlave("s", "cpus:1;mem:1024");
  const int rounds = 6000;
  auto won = draws("s", rounds);
  // a's 2 tickets split in two: every framework holds 1 of 3.
  for (const char* f : {"a1", "a2", "b1"}) {
    EXPECT_NEAR(1.0 / 3, won[f] / double(rounds), bound(1.0 / 3, rounds)) << f;
  }
}

TEST_F(PoliciesTest, LotteryWithGuaranteeTickets) {
  start("lottery", parse({{"guarantees", "a:cpus:3,b:cpus:1"},
                                 {"seed", "11"},
                                 {"lottery_tickets", "guarantees"}}));
  addFramework("fa", "a");
  addFramework("fb", "b");
  addSlave("big", "cpus:8;mem:1024");
  addSlave("s", "cpus:1;mem:1024");
  allocator_->allocate(std::vector<SlaveID>{slave("big")});
  ASSERT_EQ(1u, take().size());
  const int rounds = 4000;
  // Tickets are the guarantees (3 : 1), whatever is held.
  EXPECT_NEAR(0.75, draws("s", rounds)["fa"] / double(rounds), bound(0.75, rounds));
}

TEST_F(PoliciesTest, LotteryHonoursFiltersAndSuppression) {
  start("lottery", parse({{"weights", "a=100"}, {"seed", std::to_string(5)}}));
  addFramework("fa", "a");
  addFramework("fb", "b");
  addSlave("s", "cpus:1;mem:1024");
  Filters refuse;
  refuse.set_refuse_seconds(1000);
  // fa refuses s: with 100 times fb's tickets it still never gets it.
  for (int round = 0; round < 50; round++) {
    allocator_->allocate();
    auto made = take();
    ASSERT_EQ(1u, made.size());
    if (made[0].framework == "fa") {
      recover("fa", "s", made[0].resources, refuse);
      continue;
    }
    EXPECT_EQ("fb", made[0].framework);
    recover("fb", "s", made[0].resources);
  }
  allocator_->suppressOffers(framework("fb"));
  allocator_->allocate();
  EXPECT_TRUE(take().empty());
}

TEST_F(PoliciesTest, RefusalFiltersExpireOnTime) {
  start("drf");
  addFramework("f");
  addSlave("s", "cpus:2;mem:1024");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  // Declined with the default filter: refuse_seconds is 5.
  recover("f", "s", made[0].resources, Filters());
  now_ += 4999ms;
  allocator_->allocate();
  EXPECT_TRUE(take().empty());
  now_ += 1ms;
  allocator_->allocate();
  EXPECT_EQ(1u, take().size());
}

TEST_F(PoliciesTest, StandingFilterOnlyTheseSlaves) {
  start("drf");
  addFramework("f");
  addSlave("s1", "cpus:1;mem:1024");
  addSlave("s2", "cpus:1;mem:1024");
  addSlave("s3", "cpus:1;mem:1024");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(3u, made.size());
  // Only s1 (by id) and s3 (by hostname) from now on.
  Filters filters;
  filters.set_refuse_seconds(0);
  filters.mutable_offer_filters()->add_slaves("s1");
  filters.mutable_offer_filters()->add_slaves("host-s3");
  for (const Made& m : made) recover("f", m.slave, m.resources, filters);
  made = take();
  allocator_->allocate();
  made = take();
  std::set<std::string> slaves;
  for (const Made& m : made) slaves.insert(m.slave);
  EXPECT_EQ((std::set<std::string>{"s1", "s3"}), slaves);
  // Present and empty: cleared.
  Filters clear;
  clear.set_refuse_seconds(0);
  clear.mutable_offer_filters();
  recover("f", "s1", Resources(), clear);
  allocator_->allocate();
  made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("s2", made[0].slave);
}

TEST_F(PoliciesTest, StandingFilterAtLeastThisMuchFree) {
  start("drf");
  addFramework("big");
  addFramework("small");
  standingMinFree("big", "cpus:4");
  addSlave("s1", "cpus:2;mem:1024");
  addSlave("s2", "cpus:4;mem:1024");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(2u, made.size());
  // big only sees a slave with 4 cpus free; small takes the other.
  std::map<std::string, std::string> got;
  for (const Made& m : made) got[m.framework] = m.slave;
  EXPECT_EQ("s2", got["big"]);
  EXPECT_EQ("s1", got["small"]);
}

TEST_F(PoliciesTest, MinimumOfferSizeHoldsBackSmallLeftovers) {
  start("drf", parse({{"min_offer_size", "cpus:2"}}));
  addFramework("f");
  addSlave("s", "cpus:4;mem:4096");
  addSlave("tiny", "cpus:1;mem:512");  // smaller than the minimum: offered when all free
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(2u, made.size());
  // f runs 3 cpus on s: 1 cpu free is less than the minimum.
  recover("f", "s", resources("cpus:1;mem:1024"));
  recover("f", "tiny", resources("cpus:1;mem:512"));
  allocator_->allocate();
  made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("tiny", made[0].slave);
  recover("f", "tiny", made[0].resources);
  // A task ends: 2 cpus free, offered.
  recover("f", "s", resources("cpus:1;mem:1024"));
  allocator_->allocate(std::vector<SlaveID>{slave("s")});
  made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ(2, made[0].resources.scalar("cpus"));
}

// The paper's section 4.5: a framework of small tasks takes every slot that
// frees up; with a minimum offer size the slave waits until it is wholly
// free, and equal shares take turns, so the framework of big tasks gets it.
TEST_F(PoliciesTest, MinimumOfferSizeLetsLargeTasksIn) {
  start("drf", parse({{"min_offer_size", "cpus:4"}}));
  addFramework("small");
  addFramework("big");
  addSlave("s", "cpus:4;mem:4096");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  ASSERT_EQ("small", made[0].framework);
  // small runs one 1-cpu task and gives the rest back: 3 cpus free is
  // below the minimum, so nobody is offered them.
  Resources task = resources("cpus:1;mem:512");
  recover("small", "s", made[0].resources - task);
  allocator_->allocate();
  EXPECT_TRUE(take().empty());
  // Its task ends: the whole slave is free, shares are equal (0), and big,
  // offered least recently, goes first.
  recover("small", "s", task);
  allocator_->allocate();
  made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("big", made[0].framework);
  EXPECT_EQ(4, made[0].resources.scalar("cpus"));
}

TEST_F(PoliciesTest, UsedResourcesOfAFrameworkAddedLaterCount) {
  start("drf");
  // A slave re-registers with f1's tasks before f1 re-registers.
  addSlave("s1", "cpus:4;mem:1024", {{"f1", resources("cpus:3;mem:512")}});
  addFramework("f1");
  addFramework("f2");
  EXPECT_NEAR(0.75, allocator_->share(framework("f1")), 1e-9);
  addSlave("s2", "cpus:4;mem:1024");
  auto count = cycle();
  // f2 (share 0) takes s1's leftover and then s2, staying below f1.
  EXPECT_EQ(0, count["f1"]);
  EXPECT_EQ(2, count["f2"]);
}

TEST_F(PoliciesTest, SlotsOfRemovedSlavesCarryNothingOver) {
  start("drf");
  addFramework("f");
  addSlave("s1", "cpus:1;mem:1024");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  Filters refuse;
  refuse.set_refuse_seconds(1000);
  recover("f", "s1", made[0].resources, refuse);
  allocator_->removeSlave(slave("s1"));
  // The new slave reuses s1's slot: no filter, no allocation.
  addSlave("s2", "cpus:1;mem:1024");
  allocator_->allocate();
  made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("s2", made[0].slave);
  EXPECT_NEAR(1.0, allocator_->share(framework("f")), 1e-9);
}

class RevocationTest : public PoliciesTest {
 protected:
  // Role a is guaranteed 2 cpus; b holds a whole 4-cpu slave.
  void SetUp() override {
    start("drf", parse({{"guarantees", "a:cpus:2"}, {"revocation_timeout", "10"}}));
    addFramework("b1", "b");
    addSlave("s", "cpus:4;mem:4096");
    allocator_->allocate();
    ASSERT_EQ(1u, take().size());
    addFramework("a1", "a");
  }
};

TEST_F(RevocationTest, AfterTheTimeoutResourcesAreRevokedFromAboveGuarantee) {
  allocator_->checkRevocations();
  now_ += 9s;
  allocator_->checkRevocations();
  EXPECT_TRUE(revocations_.empty());
  now_ += 1s;
  allocator_->checkRevocations();
  ASSERT_EQ(1u, revocations_.size());
  const Revocation& revocation = revocations_[0];
  EXPECT_EQ("b1", revocation.frameworkId.value());
  EXPECT_EQ("s", revocation.slaveId.value());
  EXPECT_EQ("a1", revocation.beneficiary.value());
  EXPECT_EQ(2, revocation.amount.scalar("cpus"));
  EXPECT_EQ(4, revocation.limit.scalar("cpus"));
  // The next one waits a full timeout again.
  now_ += 5s;
  allocator_->checkRevocations();
  EXPECT_EQ(1u, revocations_.size());
  // What b gives back goes to a first, although b's share is lower then.
  recover("b1", "s", resources("cpus:2;mem:2048"));
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("a1", made[0].framework);
}

TEST_F(RevocationTest, NeverFromARoleAtOrBelowItsGuarantee) {
  // b is guaranteed everything it holds: nothing can be taken from it.
  start("drf", parse({{"guarantees", "a:cpus:2,b:cpus:4"}, {"revocation_timeout", "10"}}));
  addFramework("b1", "b");
  addSlave("s", "cpus:4;mem:4096");
  allocator_->allocate();
  ASSERT_EQ(1u, take().size());
  addFramework("a1", "a");
  for (int i = 0; i < 10; i++) {
    now_ += 10s;
    allocator_->checkRevocations();
  }
  EXPECT_TRUE(revocations_.empty());
}

TEST_F(RevocationTest, OnlyTheSurplusAboveAGuaranteeIsTaken) {
  start("drf", parse({{"guarantees", "a:cpus:3,b:cpus:3"}, {"revocation_timeout", "10"}}));
  addFramework("b1", "b");
  addSlave("s", "cpus:4;mem:4096");
  allocator_->allocate();
  ASSERT_EQ(1u, take().size());
  addFramework("a1", "a");
  allocator_->checkRevocations();
  now_ += 10s;
  allocator_->checkRevocations();
  ASSERT_EQ(1u, revocations_.size());
  // a is 3 short but b can give only 1 and stay at its guarantee.
  EXPECT_EQ(1, revocations_[0].amount.scalar("cpus"));
  EXPECT_EQ(1, revocations_[0].limit.scalar("cpus"));
}

TEST_F(RevocationTest, AFrameworkThatDoesNotWantOffersWaitsForNothing) {
  allocator_->suppressOffers(framework("a1"));
  allocator_->checkRevocations();
  now_ += 60s;
  allocator_->checkRevocations();
  EXPECT_TRUE(revocations_.empty());
  // Reviving starts its clock.
  allocator_->reviveOffers(framework("a1"));
  allocator_->checkRevocations();
  now_ += 10s;
  allocator_->checkRevocations();
  EXPECT_EQ(1u, revocations_.size());
}

TEST_F(RevocationTest, AnOfferStopsTheClock) {
  allocator_->checkRevocations();
  now_ += 8s;
  addSlave("s2", "cpus:1;mem:1024");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("a1", made[0].framework);
  now_ += 2s;
  allocator_->checkRevocations();
  EXPECT_TRUE(revocations_.empty());
  // Still 1 cpu short of its guarantee: it waits another full timeout.
  now_ += 9s;
  allocator_->checkRevocations();
  EXPECT_TRUE(revocations_.empty());
  now_ += 1s;
  allocator_->checkRevocations();
  ASSERT_EQ(1u, revocations_.size());
  EXPECT_EQ(1, revocations_[0].amount.scalar("cpus"));
}

// Optionally, a framework below its role's fair share gets resources revoked
// too: from roles above their fair share, never below it, one slave a time.
TEST_F(PoliciesTest, RevocationBelowTheFairShare) {
  start("drf", parse({{"weights", "a=1,b=3"},
                             {"revocation_timeout", "10"},
                             {"revoke_below_fair_share", "true"}}));
  addFramework("b1", "b");
  addSlave("s1", "cpus:2;mem:2048");
  addSlave("s2", "cpus:2;mem:2048");
  allocator_->allocate();
  ASSERT_EQ(2u, take().size());
  addFramework("a1", "a");
  allocator_->checkRevocations();
  now_ += 10s;
  allocator_->checkRevocations();
  ASSERT_EQ(1u, revocations_.size());
  // a's fair share is 1/4 of 4 cpus; b may keep its 3/4: 1 cpu goes.
  EXPECT_EQ("b1", revocations_[0].frameworkId.value());
  EXPECT_EQ(1, revocations_[0].amount.scalar("cpus"));
  EXPECT_EQ(1, revocations_[0].limit.scalar("cpus"));
}

TEST_F(PoliciesTest, NoFairShareRevocationUnlessAskedFor) {
  start("drf", parse({{"weights", "a=1,b=3"}, {"revocation_timeout", "10"}}));
  addFramework("b1", "b");
  addSlave("s1", "cpus:2;mem:2048");
  allocator_->allocate();
  ASSERT_EQ(1u, take().size());
  addFramework("a1", "a");
  for (int i = 0; i < 5; i++) {
    allocator_->checkRevocations();
    now_ += 10s;
  }
  EXPECT_TRUE(revocations_.empty());
}

TEST_F(PoliciesTest, AFairShareRevocationNeverTakesARoleBelowItsFairShare) {
  // Equal weights: b holds exactly its half of the cluster; a refuses the
  // other half and waits in vain: nothing may be taken from b.
  start("drf", parse({{"revocation_timeout", "10"}, {"revoke_below_fair_share", "true"}}));
  addFramework("b1", "b");
  addSlave("s1", "cpus:2;mem:2048");
  allocator_->allocate();
  ASSERT_EQ(1u, take().size());
  allocator_->suppressOffers(framework("b1"));
  addFramework("a1", "a");
  addSlave("s2", "cpus:2;mem:2048");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  Filters refuse;
  refuse.set_refuse_seconds(1000);
  recover("a1", "s2", made[0].resources, refuse);
  for (int i = 0; i < 10; i++) {
    allocator_->checkRevocations();
    now_ += 10s;
  }
  EXPECT_TRUE(revocations_.empty());
}

// Static reservations: a slave's resources of a role other than "*" go only
// to frameworks of that role; a framework is offered the unreserved free
// resources and its role's own, and the rest goes to others in the same
// cycle.
class ReservationsTest : public PoliciesTest {
 protected:
  static bool reservedIn(const Resources& resources) {
    for (const Resource& resource : resources) {
      if (resource.role() != "*") return true;
    }
    return false;
  }
  // The offers a cycle makes, by framework (at most one per framework here).
  std::map<std::string, Resources> offered() {
    allocator_->allocate();
    std::map<std::string, Resources> byFramework;
    for (const Made& made : take()) byFramework[made.framework] += made.resources;
    return byFramework;
  }
};

TEST_F(ReservationsTest, TheReservationGoesToItsRoleInTheSameCycle) {
  start("drf");
  // Equal shares: role "*" comes before "prod" in DRF order.
  addFramework("any", "*");
  addFramework("prod", "prod");
  addSlave("s", "cpus:2;cpus(prod):1;mem:1024");
  auto made = offered();
  ASSERT_EQ(2u, made.size());
  EXPECT_EQ(resources("cpus:2;mem:1024"), made["any"]);
  EXPECT_FALSE(reservedIn(made["any"])) << made["any"].toString();
  EXPECT_EQ(resources("cpus(prod):1"), made["prod"]);
  EXPECT_TRUE(allocator_->free(slave("s")).empty());
  // The reservation counts towards prod's share like any resource.
  EXPECT_NEAR(1.0 / 3, allocator_->share(framework("prod")), 1e-9);
  EXPECT_NEAR(1.0, allocator_->share(framework("any")), 1e-9);
}

TEST_F(ReservationsTest, AFrameworkOfTheRoleGetsItsReservationAndTheUnreserved) {
  start("drf");
  addFramework("prod", "prod");
  addSlave("s", "cpus:2;cpus(prod):1;mem:1024");
  auto made = offered();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ(resources("cpus:2;cpus(prod):1;mem:1024"), made["prod"]);
  // A framework of "*" alone is offered what is unreserved, and the
  // reservation stays free, offered to nobody, cycle after cycle.
  allocator_->recoverResources(framework("prod"), slave("s"), made["prod"], std::nullopt);
  allocator_->deactivateFramework(framework("prod"));
  addFramework("any", "*");
  made = offered();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ(resources("cpus:2;mem:1024"), made["any"]);
  EXPECT_EQ(resources("cpus(prod):1"), allocator_->free(slave("s")));
  EXPECT_TRUE(offered().empty());
  // Another role's framework is not offered prod's reservation either.
  addFramework("batch", "batch");
  EXPECT_TRUE(offered().empty());
  allocator_->activateFramework(framework("prod"));
  made = offered();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ(resources("cpus(prod):1"), made["prod"]);
}

TEST_F(ReservationsTest, EveryRoleGetsItsOwnReservation) {
  for (const char* policy : {"drf", "priority", "lottery"}) {
    start(policy, parse({{"seed", "3"}, {"priorities", "a=2,b=1"}}));
    addFramework("any", "*");
    addFramework("fa", "a");
    addFramework("fb", "b");
    addSlave("s", "cpus:1;cpus(a):2;cpus(b):4;mem:1024;mem(b):512");
    auto made = offered();
    SCOPED_TRACE(policy);
    EXPECT_FALSE(reservedIn(made["any"])) << made["any"].toString();
    EXPECT_TRUE(made["fa"].contains(resources("cpus(a):2"))) << made["fa"].toString();
    EXPECT_TRUE(made["fb"].contains(resources("cpus(b):4;mem(b):512"))) << made["fb"].toString();
    EXPECT_TRUE(made["fa"].role("b").empty());
    EXPECT_TRUE(made["fb"].role("a").empty());
    // Everything was offered, once.
    EXPECT_EQ(resources("cpus:1;cpus(a):2;cpus(b):4;mem:1024;mem(b):512"),
              made["any"] + made["fa"] + made["fb"]);
  }
}

TEST_F(ReservationsTest, RefusalsJudgeWhatTheFrameworkWouldBeOffered) {
  start("drf");
  addFramework("any", "*");
  addFramework("prod", "prod");
  addSlave("s", "cpus:2;cpus(prod):1;mem:1024");
  auto made = offered();
  ASSERT_EQ(2u, made.size());
  Filters refuse;
  refuse.set_refuse_seconds(10);
  recover("any", "s", made["any"], refuse);
  allocator_->suppressOffers(framework("prod"));
  recover("prod", "s", made["prod"]);
  // The whole slave is free, more than "any" refused, but all it would be
  // offered is what it refused.
  EXPECT_TRUE(offered().empty());
  now_ += 10s;
  made = offered();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ(resources("cpus:2;mem:1024"), made["any"]);
}

TEST_F(ReservationsTest, StandingFiltersJudgeWhatTheFrameworkWouldBeOffered) {
  start("drf");
  addFramework("any", "*");
  standingMinFree("any", "cpus:3");
  // 3 cpus are free, but only 2 of them could be offered to "any".
  addSlave("reserved", "cpus:2;cpus(prod):1;mem:1024");
  addSlave("plain", "cpus:3;mem:1024");
  allocator_->allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("plain", made[0].slave);
}

TEST_F(ReservationsTest, MinimumOfferSizeIsCappedAtWhatTheRoleCouldGet) {
  start("drf", parse({{"min_offer_size", "cpus:3"}}));
  addFramework("any", "*");
  addFramework("prod", "prod");
  addSlave("s", "cpus:2;cpus(prod):1;mem:1024");
  // "any" can never have more than 2 cpus here: 2 is enough. prod could
  // have 3, and 1 is not.
  auto made = offered();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ(resources("cpus:2;mem:1024"), made["any"]);
  EXPECT_EQ(resources("cpus(prod):1"), allocator_->free(slave("s")));
  // "any" keeps one cpu: neither role has its minimum free.
  recover("any", "s", resources("cpus:1;mem:1024"));
  EXPECT_TRUE(offered().empty());
  // All free: prod (offered least recently) gets all 3 cpus.
  recover("any", "s", resources("cpus:1"));
  made = offered();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ(resources("cpus:2;cpus(prod):1;mem:1024"), made["prod"]);
}

TEST_F(ReservationsTest, RevocationTakesNothingTheBeneficiaryCouldNotBeOffered) {
  start("drf", parse({{"guarantees", "a:cpus:3"}, {"revocation_timeout", "10"}}));
  addFramework("b1", "b");
  addSlave("reserved", "cpus(b):4;mem(b):4096");
  addSlave("plain", "cpus:2;mem:2048");
  allocator_->allocate();
  ASSERT_EQ(2u, take().size());
  addFramework("a1", "a");
  allocator_->checkRevocations();
  now_ += 10s;
  allocator_->checkRevocations();
  // a lacks 3 cpus, but b1's 4 cpus reserved for b are useless to a: only
  // the plain slave's 2 count.
  ASSERT_EQ(1u, revocations_.size());
  EXPECT_EQ("plain", revocations_[0].slaveId.value());
  EXPECT_EQ(2, revocations_[0].amount.scalar("cpus"));
}

TEST(AllocatorConfigTest, ParsesEveryFlag) {
  auto config = allocator::parseConfig(flags({{"roles", "a,b"}, {"weights", "a=2.5,b=1"}, {"priorities", "a=10,b=-1"}, {"guarantees", "a:cpus:4;mem:8192,b:cpus:1"}, {"min_offer_size", "cpus:1;mem:512"}, {"revocation_timeout", "30"}, {"seed", std::to_string(42)}, {"lottery_tickets", "guarantees"}}));
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ((std::vector<std::string>{"a", "b"}), config->roles);
  EXPECT_EQ(2.5, config->weights.at("a"));
  EXPECT_EQ(-1, config->priorities.at("b"));
  EXPECT_EQ(8192, config->guarantees.at("a").scalar("mem"));
  EXPECT_EQ(1, config->guarantees.at("b").scalar("cpus"));
  EXPECT_EQ(512, config->minOfferSize.scalar("mem"));
  EXPECT_EQ(42u, *config->seed);
}

TEST(AllocatorConfigTest, RejectsBadInputNamingTheFlag) {
  struct Case {
    std::map<std::string, std::string> flags;
    std::string expected;
  };
  std::vector<Case> cases = {
      {{{"weights", "a=0"}}, "--weights: weight of 'a' must be a positive number"},
      {{{"weights", "a=x"}}, "--weights: weight of 'a'"},
      {{{"weights", "a"}}, "--weights: expected role=value"},
      {{{"weights", "a=1,a=2"}}, "--weights: role 'a' is named twice"},
      {{{"roles", "a"}, {"weights", "b=1"}}, "--weights: role 'b' is not in --roles"},
      {{{"priorities", "a=high"}}, "--priorities: priority of 'a' must be an integer"},
      {{{"guarantees", "a"}}, "--guarantees: expected role:resources"},
      {{{"guarantees", "a:ports:[1-2]"}}, "not a scalar"},
      {{{"guarantees", "a:cpus:1,a:cpus:2"}}, "--guarantees: role 'a' is named twice"},
      {{{"roles", "x"}, {"guarantees", "a:cpus:1"}}, "--guarantees: role 'a' is not in --roles"},
      {{{"min_offer_size", "cpus:-1"}}, "--min_offer_size"},
      {{{"roles", "a,a"}}, "--roles: 'a' is named twice"},
      {{{"roles", "eng/"}}, "--roles: Role 'eng/' cannot end with a slash"},
      {{{"weights", "-a=1"}}, "--weights: Role component '-a' is invalid because it starts with a dash"},
      {{{"guarantees", "a/../b:cpus:1"}}, "--guarantees: Role 'a/../b' cannot include '..' as a component"},
      {{{"lottery_tickets", "coins"}}, "--lottery_tickets: expected 'weights' or 'guarantees'"},
  };
  for (const Case& c : cases) {
    auto config = allocator::parseConfig(flags(c.flags));
    ASSERT_FALSE(config.ok()) << c.expected;
    EXPECT_NE(std::string::npos, config.error().message.find(c.expected))
        << config.error().message;
  }
}

// The built-in policies are found by their --allocator name in one table
// (src/allocator/policies.cpp), which also names them in the factory's
// error.
TEST(AllocationPolicyRegistryTest, BuiltInPoliciesAreFoundByName) {
  for (const char* name : {"drf", "priority", "lottery"}) {
    EXPECT_NE(nullptr, allocator::findPolicy(name)) << name;
  }
  EXPECT_EQ(nullptr, allocator::findPolicy("fifo"));
  EXPECT_EQ(nullptr, allocator::findPolicy("DRF"));
  EXPECT_EQ("drf, priority, lottery", allocator::policyNames());
  auto made = allocator::create("fair", {});
  ASSERT_FALSE(made.ok());
  EXPECT_EQ("--allocator: unknown allocator 'fair' (expected drf, priority, lottery or the path "
            "of a module .so)",
            made.error().message);
}

TEST(DominantShareTest, TheLargestFractionOfAResourceTheClusterHas) {
  EXPECT_DOUBLE_EQ(0.5, allocator::dominantShare({2, 1024}, {4, 8192}));
  EXPECT_DOUBLE_EQ(0.25, allocator::dominantShare({1, 1024}, {4, 8192}));
  // A resource the cluster lacks, and entries past either end, count for
  // nothing.
  EXPECT_DOUBLE_EQ(0.25, allocator::dominantShare({1, 5, 7}, {4, 0}));
  EXPECT_DOUBLE_EQ(0.0, allocator::dominantShare({}, {4}));
}

}  // namespace
}  // namespace mesos::test
