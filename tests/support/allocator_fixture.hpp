// AllocatorFixture: the hierarchical allocator called directly, on a clock
// the test moves, with every offer it makes recorded (framework, slave, the
// role of a MULTI_ROLE framework's offer, resources).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "allocator/hierarchical.hpp"

namespace mesos::test {

inline FrameworkID frameworkId(const std::string& id) {
  FrameworkID f;
  f.set_value(id);
  return f;
}

inline SlaveID slaveId(const std::string& id) {
  SlaveID s;
  s.set_value(id);
  return s;
}

class AllocatorFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    allocator_ = std::make_unique<allocator::HierarchicalAllocator>();
    allocator::Options options;
    options.now = [this] { return now_; };
    options.offer = [this](const FrameworkID& id, std::vector<allocator::SlaveResources> offers) {
      for (auto& offer : offers) {
        made_.push_back({id.value(), offer.slaveId.value(), offer.role, offer.resources});
      }
    };
    allocator_->initialize(options);
  }

  static FrameworkID framework(const std::string& id) { return frameworkId(id); }
  static SlaveID slave(const std::string& id) { return slaveId(id); }

  // A framework of one role.
  void addFramework(const std::string& id, const std::string& role) {
    FrameworkInfo info;
    info.set_user("u");
    info.set_name(id);
    info.set_role(role);
    allocator_->addFramework(framework(id), info, {}, true);
  }
  void addSlave(const std::string& id, const std::string& total,
                const std::unordered_map<std::string, Resources>& used = {}) {
    SlaveInfo info;
    info.set_hostname(id);
    allocator_->addSlave(slave(id), info, Resources::parse(total).value(), used);
  }

  struct Made {
    std::string framework;
    std::string slave;
    std::string role;  // a MULTI_ROLE framework's offer's
    Resources resources;
  };
  // The offers of one full cycle.
  std::vector<Made> cycle() {
    allocator_->allocate();
    return std::exchange(made_, {});
  }

  allocator::TimePoint now_{};
  std::vector<Made> made_;
  std::unique_ptr<allocator::HierarchicalAllocator> allocator_;
};

}  // namespace mesos::test
