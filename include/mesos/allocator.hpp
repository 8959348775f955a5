// The allocator module interface: the policy that decides which framework is
// offered which free resources (the paper's section 3.3, "allocation
// modules"). The master tells the allocator what exists and what is used;
// the allocator answers with offers through the callback.
//
// Threading: an allocator runs inside the master's allocator actor. Every
// method is called on that actor, one call at a time, never concurrently; the
// offer callback must be called from within those calls too. An
// implementation needs no locks.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/resources.hpp"
#include "mesos.pb.h"

namespace mesos::allocator {

using TimePoint = std::chrono::steady_clock::time_point;

// Resources on one slave offered to one framework.
struct SlaveResources {
  SlaveID slaveId;
  Resources resources;
};

struct Options {
  // The current time on the master's clock (paused in tests). Filters
  // expire by it.
  std::function<TimePoint()> now;
  // Called with every batch of offers for one framework.
  std::function<void(const FrameworkID&, std::vector<SlaveResources>)> offer;
};

class Allocator {
 public:
  virtual ~Allocator() = default;

  // Called once, before anything else.
  virtual void initialize(const Options& options) = 0;

  // A framework registered (or was re-added); `used` is what its running
  // tasks and executors hold, per slave id value.
  virtual void addFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                            const std::unordered_map<std::string, Resources>& used,
                            bool active) = 0;
  // The framework is gone; the master has recovered its resources first.
  virtual void removeFramework(const FrameworkID& frameworkId) = 0;
  // Inactive frameworks (disconnected schedulers) are offered nothing.
  virtual void activateFramework(const FrameworkID& frameworkId) = 0;
  virtual void deactivateFramework(const FrameworkID& frameworkId) = 0;

  // A slave registered with `total` resources, of which `used` (per
  // framework id value) are held by tasks and executors already.
  virtual void addSlave(const SlaveID& slaveId, const SlaveInfo& info, const Resources& total,
                        const std::unordered_map<std::string, Resources>& used) = 0;
  // The slave is gone with everything on it.
  virtual void removeSlave(const SlaveID& slaveId) = 0;

  // Resources allocated to a framework (offered or used) are free again:
  // declined, unused in a launch, or released by a finished task. With
  // `filters`, the framework refuses such resources on that slave for
  // filters->refuse_seconds().
  virtual void recoverResources(const FrameworkID& frameworkId, const SlaveID& slaveId,
                                const Resources& resources,
                                const std::optional<Filters>& filters) = 0;

  // A framework asks for resources (ResourceRequestMessage); a hint.
  virtual void requestResources(const FrameworkID& frameworkId,
                                const std::vector<Request>& requests) = 0;
  // Stop, and resume, offering to a framework. Reviving also drops its
  // filters.
  virtual void suppressOffers(const FrameworkID& frameworkId) = 0;
  virtual void reviveOffers(const FrameworkID& frameworkId) = 0;

  // Offers free resources now: on every slave, or only on `slaveIds`.
  virtual void allocate() = 0;
  virtual void allocate(const std::vector<SlaveID>& slaveIds) = 0;
};

}  // namespace mesos::allocator
