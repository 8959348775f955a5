// HierarchicalAllocator: the allocator the master runs by default. It keeps
// every slave's free resources and every framework's allocation, and offers
// each slave's free resources, whole, to the first framework its Sorter
// picks that is active, not suppressed and not filtering that slave.
//
// Cost: a cycle visits only slaves with free resources, and per slave asks
// the sorter once; a sorter keeps its order incrementally.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "allocator/sorter.hpp"
#include "mesos/allocator.hpp"

namespace mesos::allocator {

class HierarchicalAllocator : public Allocator {
 public:
  explicit HierarchicalAllocator(std::unique_ptr<Sorter> sorter);

  void initialize(const Options& options) override;
  void addFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                    const std::unordered_map<std::string, Resources>& used, bool active) override;
  void removeFramework(const FrameworkID& frameworkId) override;
  void activateFramework(const FrameworkID& frameworkId) override;
  void deactivateFramework(const FrameworkID& frameworkId) override;
  void addSlave(const SlaveID& slaveId, const SlaveInfo& info, const Resources& total,
                const std::unordered_map<std::string, Resources>& used) override;
  void removeSlave(const SlaveID& slaveId) override;
  void recoverResources(const FrameworkID& frameworkId, const SlaveID& slaveId,
                        const Resources& resources, const std::optional<Filters>& filters) override;
  void requestResources(const FrameworkID& frameworkId,
                        const std::vector<Request>& requests) override;
  void suppressOffers(const FrameworkID& frameworkId) override;
  void reviveOffers(const FrameworkID& frameworkId) override;
  void allocate() override;
  void allocate(const std::vector<SlaveID>& slaveIds) override;

  // For tests and /state: the sorter's share of a framework, and a slave's
  // free resources.
  double share(const FrameworkID& frameworkId) { return sorter_->share(frameworkId.value()); }
  Resources free(const SlaveID& slaveId) const;

 private:
  // A framework refuses, until `expires`, offers on one slave that are
  // within `resources` (more free resources lift the filter).
  struct Filter {
    Resources resources;
    TimePoint expires;
  };
  struct Framework {
    FrameworkInfo info;
    bool active = true;
    bool suppressed = false;
    std::unordered_map<std::string, Filter> filters;  // by slave id
  };
  struct Slave {
    SlaveInfo info;
    Resources total;
    Resources free;
    std::unordered_map<std::string, Resources> allocated;  // by framework id
  };

  bool filtered(Framework& framework, const std::string& slaveId, const Resources& offer);
  void allocateSlave(const std::string& slaveId, Slave& slave,
                     std::unordered_map<std::string, std::vector<SlaveResources>>& offers);
  void markFree(const std::string& slaveId, const Slave& slave);
  void send(std::unordered_map<std::string, std::vector<SlaveResources>>& offers);

  Options options_;
  std::unique_ptr<Sorter> sorter_;
  std::unordered_map<std::string, Framework> frameworks_;
  std::unordered_map<std::string, Slave> slaves_;
  std::unordered_set<std::string> withFree_;  // slaves whose free resources are allocatable
};

// Whether `resources` are worth offering: some cpus or memory (Apache Mesos's
// minimums: 0.01 cpus, 32 MB).
bool allocatable(const Resources& resources);

}  // namespace mesos::allocator
