#include "allocator/hierarchical.hpp"

#include <algorithm>
#include <chrono>

#include <glog/logging.h>

namespace mesos::allocator {

namespace {

constexpr double kMinCpus = 0.01;
constexpr double kMinMemMb = 32;
// Apache Mesos caps refuse_seconds at a year.
constexpr double kMaxRefuseSeconds = 365.0 * 24 * 3600;

}  // namespace

bool allocatable(const Resources& resources) {
  return resources.scalar("cpus") >= kMinCpus || resources.scalar("mem") >= kMinMemMb;
}

HierarchicalAllocator::HierarchicalAllocator(std::unique_ptr<Sorter> sorter)
    : sorter_(std::move(sorter)) {}

void HierarchicalAllocator::initialize(const Options& options) { options_ = options; }

void HierarchicalAllocator::addFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                                         const std::unordered_map<std::string, Resources>& used,
                                         bool active) {
  const std::string& id = frameworkId.value();
  if (frameworks_.count(id)) return;
  Framework& framework = frameworks_[id];
  framework.info = info;
  framework.active = active;
  sorter_->add(id, 1.0);
  for (const auto& [slaveId, resources] : used) {
    auto slave = slaves_.find(slaveId);
    if (slave == slaves_.end()) continue;
    // Already counted in the slave's free resources when it was added.
    slave->second.allocated[id] += resources;
    sorter_->allocated(id, resources);
  }
}

void HierarchicalAllocator::removeFramework(const FrameworkID& frameworkId) {
  const std::string& id = frameworkId.value();
  for (auto& [slaveId, slave] : slaves_) {
    auto it = slave.allocated.find(id);
    if (it == slave.allocated.end()) continue;
    // Whatever the master did not recover is free now.
    slave.free += it->second;
    slave.allocated.erase(it);
    markFree(slaveId, slave);
  }
  sorter_->remove(id);
  frameworks_.erase(id);
}

void HierarchicalAllocator::activateFramework(const FrameworkID& frameworkId) {
  auto it = frameworks_.find(frameworkId.value());
  if (it != frameworks_.end()) it->second.active = true;
}

void HierarchicalAllocator::deactivateFramework(const FrameworkID& frameworkId) {
  auto it = frameworks_.find(frameworkId.value());
  if (it != frameworks_.end()) it->second.active = false;
}

void HierarchicalAllocator::addSlave(const SlaveID& slaveId, const SlaveInfo& info,
                                     const Resources& total,
                                     const std::unordered_map<std::string, Resources>& used) {
  const std::string& id = slaveId.value();
  if (slaves_.count(id)) return;
  Slave& slave = slaves_[id];
  slave.info = info;
  slave.total = total;
  slave.free = total;
  sorter_->addTotal(total);
  for (const auto& [frameworkId, resources] : used) {
    slave.free -= resources;
    slave.allocated[frameworkId] += resources;
    sorter_->allocated(frameworkId, resources);
  }
  markFree(id, slave);
}

void HierarchicalAllocator::removeSlave(const SlaveID& slaveId) {
  auto it = slaves_.find(slaveId.value());
  if (it == slaves_.end()) return;
  for (const auto& [frameworkId, resources] : it->second.allocated) {
    sorter_->unallocated(frameworkId, resources);
  }
  sorter_->removeTotal(it->second.total);
  withFree_.erase(it->first);
  for (auto& [id, framework] : frameworks_) framework.filters.erase(it->first);
  slaves_.erase(it);
}

void HierarchicalAllocator::recoverResources(const FrameworkID& frameworkId,
                                             const SlaveID& slaveId, const Resources& resources,
                                             const std::optional<Filters>& filters) {
  if (resources.empty()) return;
  const std::string& fid = frameworkId.value();
  auto slave = slaves_.find(slaveId.value());
  if (slave != slaves_.end()) {
    auto allocated = slave->second.allocated.find(fid);
    if (allocated != slave->second.allocated.end()) {
      Resources back = resources;
      // Only what the framework holds there comes back.
      if (!allocated->second.contains(back)) back = allocated->second - (allocated->second - back);
      allocated->second -= back;
      if (allocated->second.empty()) slave->second.allocated.erase(allocated);
      slave->second.free += back;
      sorter_->unallocated(fid, back);
      markFree(slave->first, slave->second);
    }
  }
  auto framework = frameworks_.find(fid);
  if (framework == frameworks_.end() || !filters || slave == slaves_.end()) return;
  double seconds = std::min(filters->refuse_seconds(), kMaxRefuseSeconds);
  if (!(seconds > 0)) return;
  Filter& filter = framework->second.filters[slaveId.value()];
  filter.resources = resources;
  filter.expires = options_.now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                        std::chrono::duration<double>(seconds));
}

void HierarchicalAllocator::requestResources(const FrameworkID&, const std::vector<Request>&) {
  // Requests are hints; this policy offers what is free regardless.
}

void HierarchicalAllocator::suppressOffers(const FrameworkID& frameworkId) {
  auto it = frameworks_.find(frameworkId.value());
  if (it != frameworks_.end()) it->second.suppressed = true;
}

void HierarchicalAllocator::reviveOffers(const FrameworkID& frameworkId) {
  auto it = frameworks_.find(frameworkId.value());
  if (it == frameworks_.end()) return;
  it->second.suppressed = false;
  it->second.filters.clear();
}

Resources HierarchicalAllocator::free(const SlaveID& slaveId) const {
  auto it = slaves_.find(slaveId.value());
  return it == slaves_.end() ? Resources() : it->second.free;
}

void HierarchicalAllocator::markFree(const std::string& slaveId, const Slave& slave) {
  if (allocatable(slave.free)) {
    withFree_.insert(slaveId);
  } else {
    withFree_.erase(slaveId);
  }
}

bool HierarchicalAllocator::filtered(Framework& framework, const std::string& slaveId,
                                     const Resources& offer) {
  auto it = framework.filters.find(slaveId);
  if (it == framework.filters.end()) return false;
  if (options_.now() >= it->second.expires) {
    framework.filters.erase(it);
    return false;
  }
  return it->second.resources.contains(offer);
}

void HierarchicalAllocator::allocateSlave(
    const std::string& slaveId, Slave& slave,
    std::unordered_map<std::string, std::vector<SlaveResources>>& offers) {
  if (!allocatable(slave.free)) return;
  auto chosen = sorter_->pick([&](const std::string& id) {
    auto it = frameworks_.find(id);
    if (it == frameworks_.end()) return false;
    Framework& framework = it->second;
    return framework.active && !framework.suppressed && !filtered(framework, slaveId, slave.free);
  });
  if (!chosen) return;
  Resources offered = slave.free;
  slave.free = Resources();
  slave.allocated[*chosen] += offered;
  sorter_->allocated(*chosen, offered);
  SlaveResources entry;
  entry.slaveId.set_value(slaveId);
  entry.resources = std::move(offered);
  offers[*chosen].push_back(std::move(entry));
}

void HierarchicalAllocator::send(
    std::unordered_map<std::string, std::vector<SlaveResources>>& offers) {
  for (auto& [id, batch] : offers) {
    FrameworkID frameworkId;
    frameworkId.set_value(id);
    options_.offer(frameworkId, std::move(batch));
  }
}

void HierarchicalAllocator::allocate() {
  std::unordered_map<std::string, std::vector<SlaveResources>> offers;
  // Copy: allocating removes slaves from withFree_.
  std::vector<std::string> candidates(withFree_.begin(), withFree_.end());
  for (const std::string& id : candidates) {
    auto slave = slaves_.find(id);
    if (slave == slaves_.end()) continue;
    allocateSlave(id, slave->second, offers);
    markFree(id, slave->second);
  }
  send(offers);
}

void HierarchicalAllocator::allocate(const std::vector<SlaveID>& slaveIds) {
  std::unordered_map<std::string, std::vector<SlaveResources>> offers;
  for (const SlaveID& slaveId : slaveIds) {
    auto slave = slaves_.find(slaveId.value());
    if (slave == slaves_.end()) continue;
    allocateSlave(slave->first, slave->second, offers);
    markFree(slave->first, slave->second);
  }
  send(offers);
}

}  // namespace mesos::allocator
