// The fifo allocator: an example allocator module (docs/allocation-modules.md),
// loaded with --allocator=/path/to/libmesos_fifo_allocator.so.
//
// Policy, first come first served: each slave's free resources go, whole, to
// the earliest-added framework that is active, not suppressed and not
// refusing that slave. Later frameworks get a slave only when every earlier
// one is inactive, suppressed or refusing it.
//
// A refusal (Filters.refuse_seconds when resources are declined) applies to
// one slave while the slave's free resources are within what was refused,
// until it expires on the master's clock; reviveOffers() drops a framework's
// refusals. Roles, weights and priorities are ignored; --guarantees cannot be
// honoured, so the factory refuses a configuration that has them.
//
// The module links neither mesos_proto nor mesos_common: Resources and the
// protobuf classes come from the host executable (mesos-master, mesos-local,
// mesos-tests), which exports its symbols.
#include <algorithm>
#include <chrono>
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

class FifoAllocator : public Allocator {
 public:
  void initialize(const Options& options) override { options_ = options; }

  void addFramework(const FrameworkID& frameworkId, const FrameworkInfo&,
                    const std::unordered_map<std::string, Resources>& used,
                    bool active) override {
    if (find(frameworkId.value()) != nullptr) return;
    Framework& framework = frameworks_.emplace_back();
    framework.id = frameworkId.value();
    framework.active = active;
    // Its tasks' resources were taken out of the slaves' free resources when
    // the slaves were added; remember them as its allocation.
    for (const auto& [slaveId, resources] : used) {
      auto slave = slaves_.find(slaveId);
      if (slave != slaves_.end()) slave->second.allocated[framework.id] += resources;
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
      slave.free -= resources;
      slave.allocated[frameworkId] += resources;
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

  void recoverResources(const FrameworkID& frameworkId, const SlaveID& slaveId,
                        const Resources& resources,
                        const std::optional<Filters>& filters) override {
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

  void allocate() override {
    Offers offers;
    for (auto& [slaveId, slave] : slaves_) allocateSlave(slaveId, slave, offers);
    send(offers);
  }

  void allocate(const std::vector<SlaveID>& slaveIds) override {
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

  bool refuses(Framework& framework, const std::string& slaveId, const Slave& slave) {
    auto refusal = framework.refusals.find(slaveId);
    if (refusal == framework.refusals.end()) return false;
    if (options_.now() >= refusal->second.expires) {
      framework.refusals.erase(refusal);
      return false;
    }
    return refusal->second.resources.contains(slave.free);
  }

  void allocateSlave(const std::string& slaveId, Slave& slave, Offers& offers) {
    if (!slave.active || !worthOffering(slave.free)) return;
    // frameworks_ is in the order they were added: the first eligible wins.
    for (Framework& framework : frameworks_) {
      if (!framework.active || framework.suppressed || refuses(framework, slaveId, slave)) {
        continue;
      }
      SlaveResources offer;
      offer.slaveId.set_value(slaveId);
      offer.resources = std::exchange(slave.free, Resources());
      slave.allocated[framework.id] += offer.resources;
      auto batch = std::find_if(offers.begin(), offers.end(),
                                [&](const auto& entry) { return entry.first == framework.id; });
      if (batch == offers.end()) batch = offers.insert(offers.end(), {framework.id, {}});
      batch->second.push_back(std::move(offer));
      return;
    }
  }

  void send(Offers& offers) {
    for (auto& [frameworkId, batch] : offers) {
      FrameworkID id;
      id.set_value(frameworkId);
      options_.offer(id, std::move(batch));
    }
  }

  Options options_;
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
