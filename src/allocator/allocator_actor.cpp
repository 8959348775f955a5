#include "allocator/allocator_actor.hpp"

#include "process/dispatch.hpp"
#include "process/runtime.hpp"

namespace mesos::allocator {

AllocatorActor::AllocatorActor(std::unique_ptr<Allocator> allocator, process::Duration interval,
                               OfferCallback offer, RevokeCallback revoke)
    : Actor(process::generateId("allocator")),
      allocator_(std::move(allocator)),
      interval_(interval),
      offer_(std::move(offer)),
      revoke_(std::move(revoke)) {}

void AllocatorActor::initialize() {
  Options options;
  options.now = [this] { return runtime().clock().now(); };
  options.offer = offer_;
  options.revoke = [this](const Revocation& revocation) {
    stats_.revocations++;
    if (revoke_) revoke_(revocation);
  };
  allocator_->initialize(options);
  delay(interval_, [this] { tick(); });
}

void AllocatorActor::tick() {
  if (!held_) {
    allocateNow();
    allocator_->checkRevocations();
  }
  delay(interval_, [this] { tick(); });
}

void AllocatorActor::hold(bool held) {
  if (held_ == held) return;
  held_ = held;
  if (!held_) allocateNow();
}

void AllocatorActor::allocateNow() {
  auto start = std::chrono::steady_clock::now();
  allocator_->allocate();
  pendingAll_ = false;
  pendingSlaves_.clear();
  stats_.cycles++;
  stats_.lastCycleMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Allocation for freed resources waits for the events already queued (a
// burst of recoveries is one allocation), then runs once.
void AllocatorActor::soon(const SlaveID& slaveId) {
  pendingSlaves_.insert(slaveId.value());
  if (!pendingScheduled_) {
    pendingScheduled_ = true;
    process::dispatch(self(), [this] { runPending(); });
  }
}

void AllocatorActor::soonAll() {
  pendingAll_ = true;
  if (!pendingScheduled_) {
    pendingScheduled_ = true;
    process::dispatch(self(), [this] { runPending(); });
  }
}

void AllocatorActor::runPending() {
  pendingScheduled_ = false;
  if (held_) {
    pendingAll_ = false;
    pendingSlaves_.clear();
    return;
  }
  if (pendingAll_) {
    allocateNow();
    return;
  }
  std::vector<SlaveID> slaves;
  slaves.reserve(pendingSlaves_.size());
  for (const std::string& id : pendingSlaves_) {
    slaves.emplace_back().set_value(id);
  }
  pendingSlaves_.clear();
  allocator_->allocate(slaves);
}

void AllocatorActor::addFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                                  const std::unordered_map<std::string, Resources>& used,
                                  bool active, const std::vector<std::string>& suppressedRoles) {
  allocator_->addFramework(frameworkId, info, used, active);
  if (!suppressedRoles.empty()) allocator_->suppressRoles(frameworkId, suppressedRoles);
  soonAll();
}

void AllocatorActor::removeFramework(const FrameworkID& frameworkId) {
  allocator_->removeFramework(frameworkId);
  soonAll();
}

void AllocatorActor::activateFramework(const FrameworkID& frameworkId) {
  allocator_->activateFramework(frameworkId);
  soonAll();
}

void AllocatorActor::deactivateFramework(const FrameworkID& frameworkId) {
  allocator_->deactivateFramework(frameworkId);
}

void AllocatorActor::addSlave(const SlaveID& slaveId, const SlaveInfo& info,
                              const std::vector<SlaveInfo::Capability::Type>& capabilities,
                              const Resources& total,
                              const std::unordered_map<std::string, Resources>& used) {
  allocator_->addSlave(slaveId, info, total, used);
  allocator_->updateSlaveCapabilities(slaveId, capabilities);
  soon(slaveId);
}

void AllocatorActor::updateSlaveCapabilities(
    const SlaveID& slaveId, const std::vector<SlaveInfo::Capability::Type>& capabilities) {
  allocator_->updateSlaveCapabilities(slaveId, capabilities);
  soon(slaveId);
}

void AllocatorActor::removeSlave(const SlaveID& slaveId) { allocator_->removeSlave(slaveId); }

void AllocatorActor::activateSlave(const SlaveID& slaveId) {
  allocator_->activateSlave(slaveId);
  soon(slaveId);
}

void AllocatorActor::deactivateSlave(const SlaveID& slaveId) {
  allocator_->deactivateSlave(slaveId);
}

void AllocatorActor::recoverResources(const FrameworkID& frameworkId, const SlaveID& slaveId,
                                      const Resources& resources,
                                      const std::optional<Filters>& filters) {
  allocator_->recoverResources(frameworkId, slaveId, resources, filters);
  soon(slaveId);
}

void AllocatorActor::updateAllocation(const FrameworkID& frameworkId, const SlaveID& slaveId,
                                      const Resources& from, const Resources& to) {
  allocator_->updateAllocation(frameworkId, slaveId, from, to);
}

bool AllocatorActor::updateAvailable(const SlaveID& slaveId, const Resources& from,
                                     const Resources& to) {
  bool done = allocator_->updateAvailable(slaveId, from, to);
  if (done) soon(slaveId);
  return done;
}

void AllocatorActor::requestResources(const FrameworkID& frameworkId,
                                      const std::vector<Request>& requests) {
  allocator_->requestResources(frameworkId, requests);
}

void AllocatorActor::suppressOffers(const FrameworkID& frameworkId) {
  allocator_->suppressOffers(frameworkId);
}

void AllocatorActor::reviveOffers(const FrameworkID& frameworkId) {
  allocator_->reviveOffers(frameworkId);
  soonAll();
}

void AllocatorActor::suppressRoles(const FrameworkID& frameworkId,
                                   const std::vector<std::string>& roles) {
  allocator_->suppressRoles(frameworkId, roles);
}

void AllocatorActor::reviveRoles(const FrameworkID& frameworkId,
                                 const std::vector<std::string>& roles) {
  allocator_->reviveRoles(frameworkId, roles);
  soonAll();
}

void AllocatorActor::updateFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                                     const std::vector<std::string>& suppressedRoles) {
  allocator_->updateFramework(frameworkId, info, suppressedRoles);
  soonAll();
}

void AllocatorActor::updateWeights(const std::vector<WeightInfo>& weights) {
  allocator_->updateWeights(weights);
  soonAll();
}

void AllocatorActor::updateQuota(const std::string& role, const Quota& quota) {
  allocator_->updateQuota(role, quota);
  soonAll();
}

}  // namespace mesos::allocator
