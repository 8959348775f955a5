// MULTI_ROLE frameworks (docs/roles.md) in the hierarchical allocator,
// called directly: a framework of several roles is offered resources for
// each role as a framework of that role would be, with the role on each
// offer and resource; suppression, revival and filters are per role; what
// it gives back counts against the role it was allocated to; changing its
// roles (updateFramework) stops offers for a role it left.
#include <gtest/gtest.h>

#include <map>

#include "support/allocator_fixture.hpp"

namespace mesos::test {
namespace {

class MultiRoleAllocatorTest : public AllocatorFixture {
 protected:
  static FrameworkInfo multiRole(const std::string& name, const std::vector<std::string>& roles) {
    FrameworkInfo info;
    info.set_user("u");
    info.set_name(name);
    info.add_capabilities()->set_type(FrameworkInfo::Capability::MULTI_ROLE);
    for (const std::string& role : roles) info.add_roles(role);
    return info;
  }
  void addSingle(const std::string& id, const std::string& role) { addFramework(id, role); }
};

TEST_F(MultiRoleAllocatorTest, AFrameworkOfTwoRolesGetsOffersForEachWithTheRoleOnEveryResource) {
  allocator_->addFramework(framework("m"), multiRole("m", {"a", "b"}), {}, true);
  // One slave with a reservation for each role, and unreserved resources.
  addSlave("ra", "cpus(a):2;mem(a):512");
  addSlave("rb", "cpus(b):3;mem(b):512");
  std::map<std::string, Resources> byRole;
  for (const Made& made : cycle()) {
    EXPECT_EQ("m", made.framework);
    ASSERT_FALSE(made.role.empty());
    for (const Resource& resource : made.resources) {
      ASSERT_TRUE(resource.has_allocation_info()) << made.resources.toString();
      EXPECT_EQ(made.role, resource.allocation_info().role());
    }
    byRole[made.role] += made.resources.unallocated();
  }
  // Each role got its own reservation, nothing of the other's.
  EXPECT_DOUBLE_EQ(2, byRole["a"].role("a").scalar("cpus"));
  EXPECT_DOUBLE_EQ(0, byRole["a"].role("b").scalar("cpus"));
  EXPECT_DOUBLE_EQ(3, byRole["b"].role("b").scalar("cpus"));
  EXPECT_DOUBLE_EQ(0, byRole["b"].role("a").scalar("cpus"));
}

TEST_F(MultiRoleAllocatorTest, SuppressionRevivalAndFiltersArePerRole) {
  allocator_->addFramework(framework("m"), multiRole("m", {"a", "b"}), {}, true);
  addSlave("ra", "cpus(a):2;mem(a):512");
  addSlave("rb", "cpus(b):2;mem(b):512");
  allocator_->suppressRoles(framework("m"), {"a"});
  auto made = cycle();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("b", made[0].role);
  // Declining b's offer with a filter keeps b from it; a stays suppressed.
  Filters refuse;
  refuse.set_refuse_seconds(60);
  allocator_->recoverResources(framework("m"), slave("rb"), made[0].resources, refuse);
  EXPECT_TRUE(cycle().empty());
  // Reviving a offers a's reservation; b's filter stands.
  allocator_->reviveRoles(framework("m"), {"a"});
  made = cycle();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("a", made[0].role);
  EXPECT_EQ("ra", made[0].slave);
  // Reviving every role drops b's filter too.
  allocator_->reviveOffers(framework("m"));
  made = cycle();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("b", made[0].role);
}

TEST_F(MultiRoleAllocatorTest, WhatItHoldsCountsInTheRoleItWasAllocatedTo) {
  // A framework of role a alone, and the multi-role one also in a: the
  // share of role a includes what the multi-role framework holds in a.
  allocator_->addFramework(framework("m"), multiRole("m", {"a", "b"}), {}, true);
  addSlave("s", "cpus:4;mem:4096");
  auto made = cycle();
  ASSERT_EQ(1u, made.size());
  const std::string first = made[0].role;
  EXPECT_GT(allocator_->roleShare(first), 0.0);
  const std::string other = first == "a" ? "b" : "a";
  EXPECT_DOUBLE_EQ(0.0, allocator_->roleShare(other));
  // Given back with its allocation role, it is free again and the share
  // drops.
  allocator_->recoverResources(framework("m"), slave("s"), made[0].resources, std::nullopt);
  EXPECT_DOUBLE_EQ(0.0, allocator_->roleShare(first));
  EXPECT_DOUBLE_EQ(4, allocator_->free(slave("s")).scalar("cpus"));
  // The free resources carry no allocation role.
  for (const Resource& resource : allocator_->free(slave("s"))) {
    EXPECT_FALSE(resource.has_allocation_info());
  }
}

TEST_F(MultiRoleAllocatorTest, UsedResourcesReportedBySlavesGoToTheirRoles) {
  // After a failover slaves report what the framework's tasks use, each
  // resource with its allocation role, before the framework is back.
  Resources usedA = Resources::parse("cpus:1;mem:128").value().allocatedTo("a");
  Resources usedB = Resources::parse("cpus:2;mem:256").value().allocatedTo("b");
  addSlave("s", "cpus:4;mem:1024", {{"m", usedA + usedB}});
  allocator_->addFramework(framework("m"), multiRole("m", {"a", "b"}), {}, true);
  EXPECT_DOUBLE_EQ(1, allocator_->free(slave("s")).scalar("cpus"));
  // cpus are the dominant resource of both roles: 1/4 and 2/4.
  EXPECT_DOUBLE_EQ(0.25, allocator_->roleShare("a"));
  EXPECT_DOUBLE_EQ(0.5, allocator_->roleShare("b"));
  // A task of b ends: b's share drops, a's does not.
  allocator_->recoverResources(framework("m"), slave("s"), usedB, std::nullopt);
  EXPECT_DOUBLE_EQ(0.25, allocator_->roleShare("a"));
  EXPECT_DOUBLE_EQ(0.0, allocator_->roleShare("b"));
}

TEST_F(MultiRoleAllocatorTest, DominantResourceFairnessCountsEachRoleSeparately) {
  // m is in a and b; s is in b alone. Role a has only m's share there, so
  // after m holds something in b, the next slave goes to a (m), then b
  // alternates between m and s.
  allocator_->addFramework(framework("m"), multiRole("m", {"a", "b"}), {}, true);
  addSingle("s", "b");
  for (int i = 0; i < 4; i++) addSlave("s" + std::to_string(i), "cpus:1;mem:1024");
  std::map<std::string, int> perRole;
  std::map<std::string, int> perFramework;
  for (const Made& made : cycle()) {
    perRole[made.role.empty() ? "b" : made.role]++;
    perFramework[made.framework]++;
  }
  // Roles a and b take turns: two slaves each; in b, m and s one each.
  EXPECT_EQ(2, perRole["a"]);
  EXPECT_EQ(2, perRole["b"]);
  EXPECT_EQ(3, perFramework["m"]);
  EXPECT_EQ(1, perFramework["s"]);
}

TEST_F(MultiRoleAllocatorTest, ARoleTheFrameworkLeavesIsOfferedNothingMore) {
  allocator_->addFramework(framework("m"), multiRole("m", {"a", "b"}), {}, true);
  addSlave("s", "cpus:2;mem:1024");
  auto made = cycle();
  ASSERT_EQ(1u, made.size());
  const Resources held = made[0].resources;
  const std::string left = made[0].role;
  const std::string kept = left == "a" ? "b" : "a";
  // It leaves the role it holds resources in, and adds c suppressed.
  allocator_->updateFramework(framework("m"), multiRole("m", {kept, "c"}), {"c"});
  // What it holds in the role it left still counts there.
  EXPECT_GT(allocator_->roleShare(left), 0.0);
  allocator_->recoverResources(framework("m"), slave("s"), held, std::nullopt);
  EXPECT_DOUBLE_EQ(0.0, allocator_->roleShare(left));
  made = cycle();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ(kept, made[0].role);
  allocator_->recoverResources(framework("m"), slave("s"), made[0].resources, std::nullopt);
  // With `kept` suppressed and c revived, c gets it.
  allocator_->updateFramework(framework("m"), multiRole("m", {kept, "c"}), {kept});
  made = cycle();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("c", made[0].role);
}

TEST_F(MultiRoleAllocatorTest, AFrameworkWithoutMultiRoleGetsResourcesWithoutAllocationRoles) {
  addSingle("plain", "a");
  addSlave("s", "cpus:2;mem:1024");
  auto made = cycle();
  ASSERT_EQ(1u, made.size());
  EXPECT_TRUE(made[0].role.empty());
  for (const Resource& resource : made[0].resources) {
    EXPECT_FALSE(resource.has_allocation_info());
  }
}

TEST_F(MultiRoleAllocatorTest, AReservationIsOfferedToItsRoleAndItsSubRolesOnly) {
  // "eng"'s reservation may go to "eng/web" (which can refine it), never
  // to "engineering" (a name that only starts alike) nor up to a parent.
  addSingle("web", "eng/web");
  addSingle("other", "engineering");
  addSlave("eng", "cpus(eng):2;mem(eng):512");
  addSlave("web", "cpus(eng/web):3;mem(eng/web):512");
  std::map<std::string, Resources> got;
  for (const Made& made : cycle()) got[made.framework] += made.resources;
  EXPECT_DOUBLE_EQ(2, got["web"].role("eng").scalar("cpus"));
  EXPECT_DOUBLE_EQ(3, got["web"].role("eng/web").scalar("cpus"));
  EXPECT_TRUE(got["other"].empty()) << got["other"].toString();

  // A framework of "eng" alone is not offered its child's reservation.
  allocator_->removeFramework(framework("web"));
  addSingle("parent", "eng");
  for (const Made& made : cycle()) got[made.framework] += made.resources;
  EXPECT_DOUBLE_EQ(2, got["parent"].role("eng").scalar("cpus"));
  EXPECT_DOUBLE_EQ(0, got["parent"].role("eng/web").scalar("cpus"));
}

}  // namespace
}  // namespace mesos::test
