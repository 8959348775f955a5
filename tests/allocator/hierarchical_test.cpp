// The hierarchical allocator with the DRF sorter, called directly (no actor):
// who is offered what, filters, suppression, and slave and framework churn.
#include <gtest/gtest.h>

#include "allocator/hierarchical.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using allocator::HierarchicalAllocator;
using allocator::SlaveResources;

class HierarchicalAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    allocator::Options options;
    options.now = [this] { return now_; };
    options.offer = [this](const FrameworkID& id, std::vector<SlaveResources> offers) {
      for (auto& offer : offers) offers_.push_back({id.value(), offer.slaveId.value(), offer.resources});
    };
    allocator_.initialize(options);
  }

  static FrameworkID framework(const std::string& id) {
    FrameworkID f;
    f.set_value(id);
    return f;
  }
  static SlaveID slave(const std::string& id) {
    SlaveID s;
    s.set_value(id);
    return s;
  }

  void addFramework(const std::string& id) {
    FrameworkInfo info;
    info.set_user("u");
    info.set_name(id);
    allocator_.addFramework(framework(id), info, {}, true);
  }
  void addSlave(const std::string& id, const std::string& resources) {
    SlaveInfo info;
    info.set_hostname(id);
    allocator_.addSlave(slave(id), info, Resources::parse(resources).value(), {});
  }

  struct Made {
    std::string framework;
    std::string slave;
    Resources resources;
  };

  std::vector<Made> take() { return std::exchange(offers_, {}); }

  allocator::TimePoint now_{};
  std::vector<Made> offers_;
  HierarchicalAllocator allocator_;
};

TEST_F(HierarchicalAllocatorTest, OffersAWholeSlaveToOneFramework) {
  addFramework("f1");
  addSlave("s1", "cpus:4;mem:1024");
  allocator_.allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ("f1", made[0].framework);
  EXPECT_EQ(4, made[0].resources.scalar("cpus"));
  // Nothing is free now.
  allocator_.allocate();
  EXPECT_TRUE(take().empty());
}

TEST_F(HierarchicalAllocatorTest, DominantResourceFairness) {
  // The DRF paper's example: <9 cpus, 18 GB>; A's tasks <1, 4>, B's <3, 1>.
  // Offered one task's worth at a time, A ends with 3 tasks and B with 2.
  addFramework("A");
  addFramework("B");
  addSlave("s", "cpus:9;mem:18432");
  Resources taskA = Resources::parse("cpus:1;mem:4096").value();
  Resources taskB = Resources::parse("cpus:3;mem:1024").value();
  int tasksA = 0, tasksB = 0;
  for (int round = 0; round < 20; ++round) {
    allocator_.allocate();
    auto made = take();
    if (made.empty()) break;
    ASSERT_EQ(1u, made.size());
    const Resources& offered = made[0].resources;
    const Resources& task = made[0].framework == "A" ? taskA : taskB;
    if (!offered.contains(task)) {
      // It cannot use the offer: decline for a long time.
      Filters filters;
      filters.set_refuse_seconds(3600);
      allocator_.recoverResources(framework(made[0].framework), slave("s"), offered, filters);
      continue;
    }
    (made[0].framework == "A" ? tasksA : tasksB)++;
    allocator_.recoverResources(framework(made[0].framework), slave("s"), offered - task,
                                std::nullopt);
  }
  EXPECT_EQ(3, tasksA);
  EXPECT_EQ(2, tasksB);
  EXPECT_NEAR(2.0 / 3, allocator_.share(framework("A")), 1e-9);
  EXPECT_NEAR(2.0 / 3, allocator_.share(framework("B")), 1e-9);
}

TEST_F(HierarchicalAllocatorTest, OfferedResourcesCountTowardsTheShare) {
  addFramework("f1");
  addFramework("f2");
  addSlave("s1", "cpus:2;mem:1024");
  allocator_.allocate();
  auto first = take();
  ASSERT_EQ(1u, first.size());
  // The framework holding the (unanswered) offer has the larger share: the
  // next slave goes to the other one.
  addSlave("s2", "cpus:2;mem:1024");
  allocator_.allocate();
  auto second = take();
  ASSERT_EQ(1u, second.size());
  EXPECT_NE(first[0].framework, second[0].framework);
}

TEST_F(HierarchicalAllocatorTest, FiltersExpireAndMoreResourcesLiftThem) {
  addFramework("f1");
  addSlave("s1", "cpus:4;mem:1024");
  allocator_.allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  Filters filters;
  filters.set_refuse_seconds(10);
  Resources half = Resources::parse("cpus:2;mem:512").value();
  // Declines half (keeps the other half for a task).
  allocator_.recoverResources(framework("f1"), slave("s1"), half, filters);
  allocator_.allocate();
  EXPECT_TRUE(take().empty());
  now_ += 9s;
  allocator_.allocate();
  EXPECT_TRUE(take().empty());
  // The task ends: more is free than was refused, so the filter no longer
  // applies.
  allocator_.recoverResources(framework("f1"), slave("s1"), half, std::nullopt);
  allocator_.allocate();
  made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_EQ(4, made[0].resources.scalar("cpus"));
}

TEST_F(HierarchicalAllocatorTest, SuppressAndReviveAndInactiveFrameworks) {
  addFramework("f1");
  allocator_.suppressOffers(framework("f1"));
  addSlave("s1", "cpus:1;mem:128");
  allocator_.allocate();
  EXPECT_TRUE(take().empty());
  allocator_.reviveOffers(framework("f1"));
  allocator_.deactivateFramework(framework("f1"));
  allocator_.allocate();
  EXPECT_TRUE(take().empty());
  allocator_.activateFramework(framework("f1"));
  allocator_.allocate();
  EXPECT_EQ(1u, take().size());
}

TEST_F(HierarchicalAllocatorTest, RemovedSlavesAndFrameworksLeaveNoTrace) {
  addFramework("f1");
  addFramework("f2");
  addSlave("s1", "cpus:1;mem:128");
  allocator_.allocate();
  auto made = take();
  ASSERT_EQ(1u, made.size());
  std::string holder = made[0].framework;
  allocator_.removeSlave(slave("s1"));
  EXPECT_EQ(0, allocator_.share(framework(holder)));
  addSlave("s2", "cpus:1;mem:128");
  allocator_.removeFramework(framework(holder));
  allocator_.allocate();
  made = take();
  ASSERT_EQ(1u, made.size());
  EXPECT_NE(holder, made[0].framework);
  EXPECT_EQ("s2", made[0].slave);
}

TEST_F(HierarchicalAllocatorTest, TinyLeftoversAreNotOffered) {
  addFramework("f1");
  addSlave("s1", "cpus:0.005;mem:16;ports:[1-2]");
  allocator_.allocate();
  EXPECT_TRUE(take().empty());
}

}  // namespace
}  // namespace mesos::test
