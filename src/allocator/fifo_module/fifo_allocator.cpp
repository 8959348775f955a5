// The fifo allocator: an example allocator module (docs/allocation-modules.md),
// loaded with --allocator=/path/to/libmesos_fifo_allocator.so.
//
// Policy, first come first served: each slave's free resources go to the
// earliest-added framework that is active, not suppressed and not refusing
// them. Later frameworks get a slave only when every earlier one is
// inactive, suppressed or refusing it.
//
// Static reservations are respected: a framework is offered only the
// unreserved free resources (role "*") and those reserved for its own role
// (FrameworkInfo.role). What it cannot take, another role's reservation,
// goes on down the list, in the same call, to the first eligible framework
// of that role.
//
// A refusal (Filters.refuse_seconds when resources are declined) applies to
// one slave while what the framework would be offered there is within what
// was refused, until it expires on the master's clock; reviveOffers() drops
// a framework's refusals. Weights and priorities are ignored (so are weights
// set at run time); --guarantees cannot be honoured, so the factory refuses
// a configuration that has them. Of a quota set at run time (docs/quota.md)
// the limits are honoured, the guarantees not: an offer's unreserved
// scalars are cut so that no role holds more than its limit (consumption
// counted, each cycle, over the slaves: this module is O(slaves) a cycle
// anyway; descendants' roles are not counted in their parents').
//
// The module links neither mesos_proto nor mesos_common: Resources and the
// protobuf classes come from the host executable (mesos-master, mesos-local,
// mesos-tests), which exports its symbols.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mesos/allocator.hpp"

namespace {

using mesos::FrameworkID;
using mesos::FrameworkInfo;
using mesos::Filters;
using mesos::Request;
using mesos::Resources;
using mesos::SlaveID;
using mesos::SlaveInfo;
using namespace mesos::allocator;

// Refusals longer than a year are cut to a year (as the built-in policies do).
constexpr double kMaxRefuseSeconds = 365.0 * 24 * 3600;

// Whether free resources are worth an offer: some cpus or some memory.
bool worthOffering(const Resources& free) {
  return free.scalar("cpus") >= 0.01 || free.scalar("mem") >= 32;
}

// What of `free` a framework of `role` may be offered: the unreserved
// resources and those reserved for its role.
Resources offerableTo(const Resources& free, const std::string& role) {
  Resources offerable = free.role("*");
  if (role != "*") offerable += free.role(role);
  return offerable;
}

class FifoAllocator : public Allocator {
 public:
  void initialize(const Options& options) override { options_ = options; }

  void addFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                    const std::unordered_map<std::string, Resources>& used,
                    bool active) override {
    if (find(frameworkId.value()) != nullptr) return;
    Framework& framework = frameworks_.emplace_back();
    framework.id = frameworkId.value();
    // A MULTI_ROLE framework is offered for its first role only: the
    // master marks the offers allocated to it.
    framework.role = info.roles_size() > 0 ? info.roles(0) : info.role().empty() ? "*" : info.role();
    framework.active = active;
    // Its tasks' resources were taken out of the slaves' free resources when
    // the slaves were added; remember them as its allocation.
    for (const auto& [slaveId, resources] : used) {
      auto slave = slaves_.find(slaveId);
      if (slave != slaves_.end()) slave->second.allocated[framework.id] += resources.unallocated();
    }
  }

  void removeFramework(const FrameworkID& frameworkId) override {
    std::erase_if(frameworks_, [&](const Framework& f) { return f.id == frameworkId.value(); });
    // Whatever the master did not recover first is free again.
    for (auto& [slaveId, slave] : slaves_) {
      auto allocated = slave.allocated.find(frameworkId.value());
      if (allocated == slave.allocated.end()) continue;
      slave.free += allocated->second;
      slave.allocated.erase(allocated);
    }
  }

  void activateFramework(const FrameworkID& frameworkId) override {
    if (Framework* framework = find(frameworkId.value())) framework->active = true;
  }

  void deactivateFramework(const FrameworkID& frameworkId) override {
    if (Framework* framework = find(frameworkId.value())) framework->active = false;
  }

  void addSlave(const SlaveID& slaveId, const SlaveInfo&, const Resources& total,
                const std::unordered_map<std::string, Resources>& used) override {
    if (slaves_.count(slaveId.value())) return;
    Slave& slave = slaves_[slaveId.value()];
    slave.free = total;
    for (const auto& [frameworkId, resources] : used) {
      slave.free -= resources.unallocated();
      slave.allocated[frameworkId] += resources.unallocated();
    }
  }

  void removeSlave(const SlaveID& slaveId) override {
    slaves_.erase(slaveId.value());
    for (Framework& framework : frameworks_) framework.refusals.erase(slaveId.value());
  }

  void activateSlave(const SlaveID& slaveId) override {
    if (auto slave = slaves_.find(slaveId.value()); slave != slaves_.end()) {
      slave->second.active = true;
    }
  }

  void deactivateSlave(const SlaveID& slaveId) override {
    if (auto slave = slaves_.find(slaveId.value()); slave != slaves_.end()) {
      slave->second.active = false;
    }
  }

  void updateAllocation(const FrameworkID& frameworkId, const SlaveID& slaveId,
                        const Resources& allocatedFrom, const Resources& allocatedTo) override {
    const Resources from = allocatedFrom.unallocated();
    const Resources to = allocatedTo.unallocated();
    auto slave = slaves_.find(slaveId.value());
    if (slave == slaves_.end()) return;
    auto allocated = slave->second.allocated.find(frameworkId.value());
    if (allocated == slave->second.allocated.end() || !allocated->second.contains(from)) return;
    allocated->second = allocated->second - from + to;
  }

  bool updateAvailable(const SlaveID& slaveId, const Resources& from,
                       const Resources& to) override {
    auto slave = slaves_.find(slaveId.value());
    if (slave == slaves_.end() || !slave->second.free.contains(from)) return false;
    slave->second.free = slave->second.free - from + to;
    return true;
  }

  void recoverResources(const FrameworkID& frameworkId, const SlaveID& slaveId,
                        const Resources& given,
                        const std::optional<Filters>& filters) override {
    const Resources resources = given.unallocated();
    auto slave = slaves_.find(slaveId.value());
    if (slave == slaves_.end() || resources.empty()) return;
    auto allocated = slave->second.allocated.find(frameworkId.value());
    if (allocated == slave->second.allocated.end()) return;
    // Only what the framework holds there comes back (the intersection).
    Resources back = allocated->second - (allocated->second - resources);
    allocated->second -= back;
    if (allocated->second.empty()) slave->second.allocated.erase(allocated);
    slave->second.free += back;

    Framework* framework = find(frameworkId.value());
    if (framework == nullptr || !filters) return;
    double seconds = std::min(filters->refuse_seconds(), kMaxRefuseSeconds);
    if (!(seconds > 0)) return;
    auto duration = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(seconds));
    framework->refusals[slaveId.value()] = Refusal{resources, options_.now() + duration};
  }

  void requestResources(const FrameworkID&, const std::vector<Request>&) override {
    // A hint; first come first served offers everything anyway.
  }

  void suppressOffers(const FrameworkID& frameworkId) override {
    if (Framework* framework = find(frameworkId.value())) framework->suppressed = true;
  }

  void reviveOffers(const FrameworkID& frameworkId) override {
    if (Framework* framework = find(frameworkId.value())) {
      framework->suppressed = false;
      framework->refusals.clear();
    }
  }

  void updateWeights(const std::vector<mesos::WeightInfo>&) override {
    // First come first served has no use for weights.
  }

  void updateQuota(const std::string& role, const Quota& quota) override {
    if (quota.limits.empty()) {
      limits_.erase(role);
    } else {
      limits_[role] = quota.limits;
    }
  }

  void allocate() override {
    countConsumed();
    Offers offers;
    for (auto& [slaveId, slave] : slaves_) allocateSlave(slaveId, slave, offers);
    send(offers);
  }

  void allocate(const std::vector<SlaveID>& slaveIds) override {
    countConsumed();
    Offers offers;
    for (const SlaveID& slaveId : slaveIds) {
      auto slave = slaves_.find(slaveId.value());
      if (slave != slaves_.end()) allocateSlave(slave->first, slave->second, offers);
    }
    send(offers);
  }

 private:
  // A framework declined resources on a slave: it refuses them there until
  // `expires`, unless more becomes free than it refused.
  struct Refusal {
    Resources resources;
    TimePoint expires;
  };
  struct Framework {
    std::string id;
    std::string role;
    bool active = true;
    bool suppressed = false;
    std::map<std::string, Refusal> refusals;  // by slave id
  };
  struct Slave {
    bool active = true;  // offered only while its connection to the master holds
    Resources free;
    std::unordered_map<std::string, Resources> allocated;  // by framework id: offered or used
  };
  // One batch of offers per framework, in the order frameworks were served.
  using Offers = std::vector<std::pair<std::string, std::vector<SlaveResources>>>;

  Framework* find(const std::string& id) {
    for (Framework& framework : frameworks_) {
      if (framework.id == id) return &framework;
    }
    return nullptr;
  }

  // Whether `framework` refuses `offer` on the slave.
  bool refuses(Framework& framework, const std::string& slaveId, const Resources& offer) {
    auto refusal = framework.refusals.find(slaveId);
    if (refusal == framework.refusals.end()) return false;
    if (options_.now() >= refusal->second.expires) {
      framework.refusals.erase(refusal);
      return false;
    }
    return refusal->second.resources.contains(offer);
  }

  void allocateSlave(const std::string& slaveId, Slave& slave, Offers& offers) {
    if (!slave.active) return;
    // frameworks_ is in the order they were added: the first eligible one
    // takes what it may; reservations it may not take stay for the next.
    for (Framework& framework : frameworks_) {
      if (!worthOffering(slave.free)) return;
      if (!framework.active || framework.suppressed) continue;
      Resources offerable = withinLimits(offerableTo(slave.free, framework.role), framework.role);
      if (!worthOffering(offerable) || refuses(framework, slaveId, offerable)) continue;
      slave.free -= offerable;
      slave.allocated[framework.id] += offerable;
      if (limits_.count(framework.role)) {
        for (const mesos::Resource& resource : offerable) {
          if (resource.type() == mesos::Value::SCALAR && resource.role() == "*") {
            consumed_[framework.role][resource.name()] += resource.scalar().value();
          }
        }
      }
      SlaveResources offer;
      offer.slaveId.set_value(slaveId);
      offer.resources = std::move(offerable);
      auto batch = std::find_if(offers.begin(), offers.end(),
                                [&](const auto& entry) { return entry.first == framework.id; });
      if (batch == offers.end()) batch = offers.insert(offers.end(), {framework.id, {}});
      batch->second.push_back(std::move(offer));
    }
  }

  void send(Offers& offers) {
    for (auto& [frameworkId, batch] : offers) {
      FrameworkID id;
      id.set_value(frameworkId);
      options_.offer(id, std::move(batch));
    }
  }

  // Per role with limits, what it holds now: the unreserved resources its
  // frameworks hold and its reservations, free or held.
  void countConsumed() {
    consumed_.clear();
    if (limits_.empty()) return;
    std::unordered_map<std::string, const std::string*> roles;
    for (const Framework& framework : frameworks_) roles[framework.id] = &framework.role;
    auto add = [&](const std::string& role, const mesos::Resource& resource) {
      if (resource.type() == mesos::Value::SCALAR && limits_.count(role)) {
        consumed_[role][resource.name()] += resource.scalar().value();
      }
    };
    for (const auto& [slaveId, slave] : slaves_) {
      for (const mesos::Resource& resource : slave.free) {
        if (resource.role() != "*") add(resource.role(), resource);
      }
      for (const auto& [frameworkId, held] : slave.allocated) {
        for (const mesos::Resource& resource : held) {
          if (resource.role() != "*") {
            add(resource.role(), resource);
          } else if (auto role = roles.find(frameworkId); role != roles.end()) {
            add(*role->second, resource);
          }
        }
      }
    }
  }

  // `offer` with its unreserved scalars cut to what `role`'s limits leave.
  Resources withinLimits(const Resources& offer, const std::string& role) {
    auto limits = limits_.find(role);
    if (limits == limits_.end()) return offer;
    std::map<std::string, double> left;
    for (const auto& [name, limit] : limits->second) left[name] = limit - consumed_[role][name];
    Resources result;
    for (const mesos::Resource& resource : offer) {
      auto room = left.find(resource.name());
      if (resource.type() != mesos::Value::SCALAR || resource.role() != "*" ||
          room == left.end()) {
        result += Resources(resource);
        continue;
      }
      double take = std::min(resource.scalar().value(), std::floor(room->second * 1000) / 1000);
      if (take <= 0) continue;
      room->second -= take;
      mesos::Resource part = resource;
      part.mutable_scalar()->set_value(take);
      result += Resources(part);
    }
    return result;
  }

  Options options_;
  std::map<std::string, std::map<std::string, double>> limits_;    // by role
  std::map<std::string, std::map<std::string, double>> consumed_;  // by role with limits
  std::vector<Framework> frameworks_;   // in the order they were added
  std::map<std::string, Slave> slaves_;  // by slave id
};

}  // namespace

// The module's entry point, MESOS_ALLOCATOR_FACTORY_SYMBOL: unmangled
// (extern "C") and exported. The master owns and deletes the result.
extern "C" __attribute__((visibility("default"))) mesos::allocator::Allocator*
mesos_allocator_create_v1(const mesos::allocator::Config* config, std::string* error) {
  if (!config->guarantees.empty()) {
    *error = "the fifo allocator does not support --guarantees";
    return nullptr;
  }
  return new FifoAllocator();
}

// The compiler checks the signature against the one the loader casts to.
static_assert(std::is_same_v<decltype(&mesos_allocator_create_v1),
                             mesos::allocator::AllocatorFactory>);
