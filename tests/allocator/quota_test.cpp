// Quota and weights set at run time (docs/quota.md), in the hierarchical
// allocator called directly on a clock the test moves: guarantees are
// offered first, the headroom of unsatisfied guarantees is held back from
// other roles, limits are never passed (reservations count), and a weight
// change reorders roles at once.
#include <gtest/gtest.h>

#include <map>

#include "support/allocator_fixture.hpp"

namespace mesos::test {
namespace {

using allocator::Quota;

class QuotaTest : public AllocatorFixture {
 protected:
  void quota(const std::string& role, std::map<std::string, double> guarantees,
             std::map<std::string, double> limits) {
    allocator_->updateQuota(role, Quota{std::move(guarantees), std::move(limits)});
  }

  // What each framework was offered in one cycle, summed.
  std::map<std::string, Resources> offered() {
    std::map<std::string, Resources> sum;
    for (const Made& made : cycle()) sum[made.framework] += made.resources;
    return sum;
  }
};

TEST_F(QuotaTest, ARoleAtItsLimitIsOfferedNoMore) {
  addFramework("f", "capped");
  quota("capped", {}, {{"cpus", 3}, {"mem", 3072}});
  for (int i = 0; i < 4; i++) addSlave("s" + std::to_string(i), "cpus:2;mem:2048");
  auto sum = offered();
  // Cut to the limit: 3 of the 8 cpus, 3 GB of the 8.
  EXPECT_DOUBLE_EQ(3, sum["f"].scalar("cpus"));
  EXPECT_DOUBLE_EQ(3072, sum["f"].scalar("mem"));
  EXPECT_TRUE(cycle().empty());
  // Raising the limit lets it have more, at once.
  quota("capped", {}, {{"cpus", 5}});
  sum = offered();
  EXPECT_DOUBLE_EQ(2, sum["f"].scalar("cpus"));
  // Memory is unlimited now: all that is left of it is offered (a slave's
  // memory alone once the cpus are at their limit).
  EXPECT_DOUBLE_EQ(5120, sum["f"].scalar("mem"));
  // Removing the quota lifts the limit.
  quota("capped", {}, {});
  EXPECT_DOUBLE_EQ(3, offered()["f"].scalar("cpus"));
}

TEST_F(QuotaTest, ReservationsCountAgainstTheLimit) {
  addFramework("f", "r");
  addSlave("reserved", "cpus(r):2;mem(r):512");
  addSlave("plain", "cpus:4;mem:4096");
  quota("r", {}, {{"cpus", 3}});
  auto sum = offered();
  // Its 2 reserved cpus and 1 unreserved: 3 in all.
  EXPECT_DOUBLE_EQ(3, sum["f"].scalar("cpus"));
  EXPECT_DOUBLE_EQ(2, sum["f"].role("r").scalar("cpus"));
  EXPECT_DOUBLE_EQ(3, allocator_->consumed("r").scalar("cpus"));
}

TEST_F(QuotaTest, GuaranteesAreOfferedFirstAndTheirHeadroomIsHeldBack) {
  addFramework("other", "other");
  addFramework("q", "q");
  // The other role has the smaller share: without quota it would go first.
  allocator_->suppressOffers(framework("q"));
  quota("q", {{"cpus", 4}, {"mem", 4096}}, {});
  for (int i = 0; i < 4; i++) addSlave("s" + std::to_string(i), "cpus:2;mem:2048");
  // q wants nothing yet: the other role gets only what q's guarantee does
  // not need (8 - 4 cpus).
  auto sum = offered();
  EXPECT_DOUBLE_EQ(4, sum["other"].scalar("cpus"));
  EXPECT_TRUE(sum.count("q") == 0);
  EXPECT_TRUE(cycle().empty());
  // q revives: its guarantee is there for it.
  allocator_->reviveOffers(framework("q"));
  sum = offered();
  EXPECT_DOUBLE_EQ(4, sum["q"].scalar("cpus"));
  EXPECT_DOUBLE_EQ(4096, sum["q"].scalar("mem"));
}

TEST_F(QuotaTest, ARoleBelowItsGuaranteeGoesFirst) {
  addFramework("big", "big");
  addFramework("q", "q");
  quota("q", {{"cpus", 1}}, {});
  addSlave("s0", "cpus:1;mem:1024");
  // Both want it; q is below its guarantee, so it is offered first even on
  // a tie of shares.
  auto made = cycle();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("q", made[0].framework);
}

TEST_F(QuotaTest, AChildsConsumptionCountsInItsParent) {
  addFramework("child", "eng/web");
  quota("eng", {}, {{"cpus", 2}});
  for (int i = 0; i < 3; i++) addSlave("s" + std::to_string(i), "cpus:2;mem:1024");
  EXPECT_DOUBLE_EQ(2, offered()["child"].scalar("cpus"));
  EXPECT_DOUBLE_EQ(2, allocator_->consumed("eng").scalar("cpus"));
  EXPECT_DOUBLE_EQ(2, allocator_->consumed("eng/web").scalar("cpus"));
}

TEST_F(QuotaTest, WhatIsRecoveredNoLongerCounts) {
  addFramework("f", "r");
  quota("r", {}, {{"cpus", 2}});
  addSlave("s0", "cpus:2;mem:1024");
  addSlave("s1", "cpus:2;mem:1024");
  // The second slave's memory alone is offered too: only cpus are limited.
  auto made = cycle();
  ASSERT_EQ(2u, made.size());
  const Made& withCpus = made[0].resources.scalar("cpus") > 0 ? made[0] : made[1];
  EXPECT_DOUBLE_EQ(2, withCpus.resources.scalar("cpus"));
  EXPECT_DOUBLE_EQ(2, allocator_->consumed("r").scalar("cpus"));
  allocator_->recoverResources(framework("f"), slave(withCpus.slave), withCpus.resources,
                               std::nullopt);
  EXPECT_DOUBLE_EQ(0, allocator_->consumed("r").scalar("cpus"));
  EXPECT_DOUBLE_EQ(2, offered()["f"].scalar("cpus"));
}

TEST_F(QuotaTest, AWeightChangeReordersRolesAtOnce) {
  addFramework("a", "a");
  addFramework("b", "b");
  for (int i = 0; i < 2; i++) addSlave("s" + std::to_string(i), "cpus:1;mem:1024");
  auto made = cycle();
  ASSERT_EQ(2u, made.size());
  // Each holds half; b weighs 4 from now on, so its weighted share is the
  // smaller and the next slave is b's.
  WeightInfo weight;
  weight.set_role("b");
  weight.set_weight(4);
  allocator_->updateWeights({weight});
  EXPECT_NEAR(0.5 / 4, allocator_->roleShare("b"), 1e-9);
  addSlave("s2", "cpus:1;mem:1024");
  made = cycle();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("b", made[0].framework);
}

}  // namespace
}  // namespace mesos::test
