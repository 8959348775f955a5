// AllocatorActor: runs an Allocator (policy) on an actor of its own, so that
// allocation never blocks the master. The master calls it with dispatch();
// offers go back to the master through the callback given at construction.
//
// It allocates every `interval` over all slaves (then lets the policy decide
// on revocations), and, for resources that free up (recovered, new slave,
// revived framework), soon after the burst of events that freed them, on the
// affected slaves only.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mesos/allocator.hpp"
#include "process/actor.hpp"

namespace mesos::allocator {

class AllocatorActor : public process::Actor {
 public:
  using OfferCallback = std::function<void(const FrameworkID&, std::vector<SlaveResources>)>;
  using RevokeCallback = std::function<void(const Revocation&)>;

  AllocatorActor(std::unique_ptr<Allocator> allocator, process::Duration interval,
                 OfferCallback offer, RevokeCallback revoke = nullptr);

  // `suppressedRoles` want no offers from the start (v1 SUBSCRIBE).
  void addFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                    const std::unordered_map<std::string, Resources>& used, bool active,
                    const std::vector<std::string>& suppressedRoles = {});
  void removeFramework(const FrameworkID& frameworkId);
  void activateFramework(const FrameworkID& frameworkId);
  void deactivateFramework(const FrameworkID& frameworkId);
  // With what the slave declared it can do, given to the allocator in the
  // same turn: no allocation sees the slave without them.
  void addSlave(const SlaveID& slaveId, const SlaveInfo& info,
                const std::vector<SlaveInfo::Capability::Type>& capabilities,
                const Resources& total, const std::unordered_map<std::string, Resources>& used);
  void updateSlaveCapabilities(const SlaveID& slaveId,
                               const std::vector<SlaveInfo::Capability::Type>& capabilities);
  void removeSlave(const SlaveID& slaveId);
  void activateSlave(const SlaveID& slaveId);
  void deactivateSlave(const SlaveID& slaveId);
  void recoverResources(const FrameworkID& frameworkId, const SlaveID& slaveId,
                        const Resources& resources, const std::optional<Filters>& filters);
  void updateAllocation(const FrameworkID& frameworkId, const SlaveID& slaveId,
                        const Resources& from, const Resources& to);
  bool updateAvailable(const SlaveID& slaveId, const Resources& from, const Resources& to);
  void requestResources(const FrameworkID& frameworkId, const std::vector<Request>& requests);
  void suppressOffers(const FrameworkID& frameworkId);
  void reviveOffers(const FrameworkID& frameworkId);
  // Per role, for MULTI_ROLE frameworks (docs/roles.md).
  void suppressRoles(const FrameworkID& frameworkId, const std::vector<std::string>& roles);
  void reviveRoles(const FrameworkID& frameworkId, const std::vector<std::string>& roles);
  void updateFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                       const std::vector<std::string>& suppressedRoles);
  // Weights and quota set at run time (docs/quota.md); a full cycle follows.
  void updateWeights(const std::vector<WeightInfo>& weights);
  void updateQuota(const std::string& role, const Quota& quota);

  // Runs a full cycle now (tests; the timer does it every interval).
  void allocateNow();
  // While held, nothing is allocated (a newly elected master lets slaves
  // and frameworks re-register first); releasing runs a full cycle.
  void hold(bool held);

  // Time spent in the last full cycle, how many cycles ran, and how many
  // revocations the policy asked for.
  struct Stats {
    uint64_t cycles = 0;
    double lastCycleMs = 0;
    uint64_t revocations = 0;
  };
  Stats stats() const { return stats_; }

  // The policy object (tests inspect it). Touch only on this actor.
  Allocator& allocator() { return *allocator_; }

 protected:
  void initialize() override;

 private:
  void tick();
  void soon(const SlaveID& slaveId);
  void soonAll();
  void runPending();

  std::unique_ptr<Allocator> allocator_;
  process::Duration interval_;
  OfferCallback offer_;
  RevokeCallback revoke_;
  Stats stats_;
  bool held_ = false;
  bool pendingScheduled_ = false;
  bool pendingAll_ = false;
  std::unordered_set<std::string> pendingSlaves_;
};

}  // namespace mesos::allocator
