#include "allocator/hierarchical.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include <glog/logging.h>

#include "allocator/drf/shares.hpp"
#include "common/roles.hpp"

namespace mesos::allocator {

namespace {

constexpr double kMinCpus = 0.01;
constexpr double kMinMemMb = 32;
// Apache Mesos caps refuse_seconds at a year.
constexpr double kMaxRefuseSeconds = 365.0 * 24 * 3600;
constexpr double kEpsilon = 1e-9;

const std::string kDefaultRole = "*";

// Whether a framework of `role` may be offered resources reserved for
// `reserved`: unreserved ones, its role's own and its ancestors' ("eng"'s
// for "eng/web"), as Apache Mesos offers them, so that it can refine them.
bool allocatableTo(const std::string& reserved, const std::string& role) {
  if (reserved == kDefaultRole || reserved == role) return true;
  return role.size() > reserved.size() && role[reserved.size()] == '/' &&
         role.compare(0, reserved.size(), reserved) == 0;
}

// What of `resources` a framework of `role` may be offered.
Resources usableBy(const Resources& resources, const std::string& role) {
  Resources usable = resources.role(kDefaultRole);
  if (role == kDefaultRole) return usable;
  usable += resources.role(role);
  for (size_t slash = role.rfind('/'); slash != std::string::npos;
       slash = role.rfind('/', slash - 1)) {
    usable += resources.role(role.substr(0, slash));
    if (slash == 0) break;
  }
  return usable;
}

// The sum of the scalars named `name` of `resources` that a framework of
// `role` may be offered.
double scalarFor(const Resources& resources, const std::string& name, const std::string& role) {
  double sum = 0;
  for (const Resource& resource : resources) {
    if (resource.type() == Value::SCALAR && resource.name() == name &&
        allocatableTo(resource.role(), role)) {
      sum += resource.scalar().value();
    }
  }
  return sum;
}

// Adds `value` at index `i` of `into` (growing it), clamped at zero as the
// sorter's sums are.
void addAt(std::vector<double>& into, size_t i, double value) {
  if (into.size() <= i) into.resize(i + 1, 0.0);
  into[i] = std::max(0.0, into[i] + value);
}

double at(const std::vector<double>& values, size_t i, double otherwise = 0.0) {
  return i < values.size() ? values[i] : otherwise;
}

// Calls `f` with `role` and each of its ancestors ("a/b/c", "a/b", "a").
template <typename F>
void withAncestors(const std::string& role, F&& f) {
  std::string name = role;
  while (true) {
    f(name);
    size_t slash = name.rfind('/');
    if (slash == std::string::npos) return;
    name.resize(slash);
  }
}

bool hasReservation(const Resources& resources) {
  for (const Resource& resource : resources) {
    if (resource.role() != kDefaultRole) return true;
  }
  return false;
}

}  // namespace

bool allocatable(const Resources& resources) {
  return resources.scalar("cpus") >= kMinCpus || resources.scalar("mem") >= kMinMemMb;
}

HierarchicalAllocator::HierarchicalAllocator(const std::string& policy, Config config)
    : config_(std::move(config)) {
  ChooserFactory make = findPolicy(policy);
  CHECK(make != nullptr) << "unknown allocation policy '" << policy << "'";
  chooser_ = make(Chooser::Context{sorter_, config_});
}

void HierarchicalAllocator::initialize(const Options& options) { options_ = options; }

HierarchicalAllocator::Seq HierarchicalAllocator::clientSeq(const std::string& id,
                                                            const std::string& role) {
  std::vector<Seq>& clients = clients_[id];
  for (Seq seq : clients) {
    const Framework& client = frameworks_[seq];
    if (client.role == role || (role.empty() && client.added)) return seq;
  }
  if (role.empty() && !clients.empty()) return clients.front();
  Seq seq = nextSeq_++;
  Framework& client = frameworks_[seq];
  client.id = id;
  client.role = role;
  clients.push_back(seq);
  return seq;
}

template <typename F>
void HierarchicalAllocator::byClient(const std::string& id, const Resources& resources, F&& f) {
  std::string role = resources.allocationRole();
  if (role.empty()) {
    // The usual case: a framework of one role.
    f(clientSeq(id, ""), resources);
    return;
  }
  std::vector<std::string> roles;
  for (const Resource& resource : resources) {
    const std::string& name = resource.allocation_info().role();
    if (std::find(roles.begin(), roles.end(), name) == roles.end()) roles.push_back(name);
  }
  for (const std::string& name : roles) {
    f(clientSeq(id, name), resources.allocatedOnlyTo(name).unallocated());
  }
}

std::vector<HierarchicalAllocator::Seq> HierarchicalAllocator::clientsOf(const std::string& id) {
  std::vector<Seq> out;
  auto it = clients_.find(id);
  if (it == clients_.end()) return out;
  for (Seq seq : it->second) {
    if (frameworks_[seq].added) out.push_back(seq);
  }
  return out;
}

void HierarchicalAllocator::ensureRole(const std::string& role) {
  auto weight = config_.weights.find(role);
  auto priority = config_.priorities.find(role);
  sorter_.addRole(role, weight == config_.weights.end() ? 1.0 : weight->second,
                  priority == config_.priorities.end() ? 0 : priority->second);
}

void HierarchicalAllocator::wanting(Seq seq) {
  const Framework& client = frameworks_[seq];
  sorter_.setWanting(seq, client.active && !client.suppressed && client.subscribed);
}

// The client becomes the framework's for `role`: in the sorter, counted
// with what slaves reported it holding before.
void HierarchicalAllocator::addClient(Seq seq, const std::string& role,
                                      const FrameworkInfo& info) {
  Framework& client = frameworks_[seq];
  client.role = role;
  client.multiRole = roles::multiRole(info);
  if (client.added) return;
  client.added = true;
  ensureRole(role);
  sorter_.addClient(seq, role);
  roleMembers_[role].insert(seq);
  for (uint32_t index : client.slaves) {
    auto held = slaves_[index].allocated.find(seq);
    if (held != slaves_[index].allocated.end()) account(seq, held->second, +1);
  }
}

void HierarchicalAllocator::addFramework(const FrameworkID& frameworkId, const FrameworkInfo& info,
                                         const std::unordered_map<std::string, Resources>& used,
                                         bool active) {
  const std::string& id = frameworkId.value();
  if (!clientsOf(id).empty()) return;
  std::vector<std::string> roles = roles::ofFramework(info);
  std::vector<Seq>& clients = clients_[id];
  // What slaves reported it holding with no allocation role is its first
  // role's (merged there if that role's client exists already).
  for (size_t i = 0; i < clients.size() && !roles.empty(); i++) {
    Framework& placeholder = frameworks_[clients[i]];
    if (!placeholder.role.empty()) continue;
    Seq from = clients[i];
    clients.erase(clients.begin() + static_cast<long>(i));
    Seq into = clientSeq(id, roles.front());
    Framework& target = frameworks_[into];
    for (uint32_t index : placeholder.slaves) {
      auto held = slaves_[index].allocated.find(from);
      if (held == slaves_[index].allocated.end()) continue;
      auto [entry, fresh] = slaves_[index].allocated.try_emplace(into, held->second);
      if (fresh) {
        target.holding++;
        target.slaves.insert(index);
      } else {
        entry->second += held->second;
      }
      slaves_[index].allocated.erase(held);
    }
    frameworks_.erase(from);
    break;
  }
  for (const std::string& role : roles) {
    Seq seq = clientSeq(id, role);
    addClient(seq, role, info);
    frameworks_[seq].active = active;
  }
  // Its first role first, then the others in the order given.
  std::vector<Seq>& ordered = clients_[id];
  std::stable_sort(ordered.begin(), ordered.end(), [&](Seq a, Seq b) {
    auto rank = [&](Seq seq) {
      auto at = std::find(roles.begin(), roles.end(), frameworks_[seq].role);
      return static_cast<size_t>(at - roles.begin());
    };
    return rank(a) < rank(b);
  });
  for (const auto& [slaveId, resources] : used) {
    auto slave = slaveIndex_.find(slaveId);
    if (slave == slaveIndex_.end() || resources.empty()) continue;
    // Already out of the slave's free resources when it was added.
    byClient(id, resources, [&](Seq seq, const Resources& part) {
      if (!frameworks_[seq].added) addClient(seq, frameworks_[seq].role, info);
      frameworks_[seq].subscribed = std::find(roles.begin(), roles.end(),
                                              frameworks_[seq].role) != roles.end();
      give(seq, slave->second, slaves_[slave->second], part);
    });
  }
  for (Seq seq : clients_[id]) {
    frameworks_[seq].active = active;
    if (frameworks_[seq].added) wanting(seq);
  }
}

void HierarchicalAllocator::updateFramework(const FrameworkID& frameworkId,
                                            const FrameworkInfo& info,
                                            const std::vector<std::string>& suppressedRoles) {
  const std::string& id = frameworkId.value();
  std::vector<Seq> known = clientsOf(id);
  if (known.empty()) return;
  bool active = frameworks_[known.front()].active;
  std::vector<std::string> roles = roles::ofFramework(info);
  for (const std::string& role : roles) addClient(clientSeq(id, role), role, info);
  for (Seq seq : clients_[id]) {
    Framework& client = frameworks_[seq];
    if (!client.added) continue;
    client.multiRole = roles::multiRole(info);
    client.active = active;
    client.subscribed = std::find(roles.begin(), roles.end(), client.role) != roles.end();
    client.suppressed = std::find(suppressedRoles.begin(), suppressedRoles.end(), client.role) !=
                        suppressedRoles.end();
    wanting(seq);
  }
}

void HierarchicalAllocator::removeFramework(const FrameworkID& frameworkId) {
  auto it = clients_.find(frameworkId.value());
  if (it == clients_.end()) return;
  for (Seq seq : it->second) {
    Framework& framework = frameworks_[seq];
    for (uint32_t index : framework.slaves) {
      Slave& slave = slaves_[index];
      auto allocated = slave.allocated.find(seq);
      if (allocated == slave.allocated.end()) continue;
      if (framework.added) countAllocated(framework, allocated->second, -1);
      // Whatever the master did not recover is free now.
      setFree(slave, slave.free + allocated->second);
      slave.allocated.erase(allocated);
      markFree(index);
    }
    if (framework.added) {
      sorter_.removeClient(seq);
      roleMembers_[framework.role].erase(seq);
    }
    frameworks_.erase(seq);
  }
  clients_.erase(it);
}

void HierarchicalAllocator::activateFramework(const FrameworkID& frameworkId) {
  for (Seq seq : clientsOf(frameworkId.value())) {
    frameworks_[seq].active = true;
    wanting(seq);
  }
}

void HierarchicalAllocator::deactivateFramework(const FrameworkID& frameworkId) {
  for (Seq seq : clientsOf(frameworkId.value())) {
    frameworks_[seq].active = false;
    wanting(seq);
  }
}

void HierarchicalAllocator::addSlave(const SlaveID& slaveId, const SlaveInfo& info,
                                     const Resources& total,
                                     const std::unordered_map<std::string, Resources>& used) {
  const std::string& id = slaveId.value();
  if (slaveIndex_.count(id)) return;
  uint32_t index;
  if (!freeSlots_.empty()) {
    index = freeSlots_.back();
    freeSlots_.pop_back();
  } else {
    index = static_cast<uint32_t>(slaves_.size());
    slaves_.emplace_back();
  }
  slaveIndex_[id] = index;
  Slave& slave = slaves_[index];
  uint32_t generation = slave.generation;
  slave = Slave{};
  slave.generation = generation;
  slave.live = true;
  slave.id = id;
  slave.hostname = info.hostname();
  slave.total = total;
  slave.reserved = hasReservation(total);
  for (const Resource& minimum : config_.minOfferSize) {
    double have = total.scalar(minimum.name());
    if (have > 0) slave.threshold.emplace_back(minimum.name(), std::min(have, minimum.scalar().value()));
  }
  sorter_.addTotal(total);
  countReserved(total, +1);
  Resources free = total;
  for (const auto& [frameworkId, resources] : used) {
    if (resources.empty()) continue;
    free -= resources.unallocated();
    // The sorter counts it once the framework is added.
    byClient(frameworkId, resources,
             [&](Seq seq, const Resources& part) { give(seq, index, slave, part); });
  }
  setFree(slave, std::move(free));
  markFree(index);
}

void HierarchicalAllocator::updateSlaveCapabilities(
    const SlaveID& slaveId, const std::vector<SlaveInfo::Capability::Type>& declared) {
  auto it = slaveIndex_.find(slaveId.value());
  if (it == slaveIndex_.end()) return;
  Slave& slave = slaves_[it->second];
  auto has = [&](SlaveInfo::Capability::Type type) {
    return std::find(declared.begin(), declared.end(), type) != declared.end();
  };
  slave.multiRole = has(SlaveInfo::Capability::MULTI_ROLE);
  slave.hierarchicalRole = has(SlaveInfo::Capability::HIERARCHICAL_ROLE);
}

void HierarchicalAllocator::removeSlave(const SlaveID& slaveId) {
  auto it = slaveIndex_.find(slaveId.value());
  if (it == slaveIndex_.end()) return;
  uint32_t index = it->second;
  Slave& slave = slaves_[index];
  for (const auto& [seq, resources] : slave.allocated) {
    account(seq, resources, -1);
    auto framework = frameworks_.find(seq);
    if (framework != frameworks_.end()) {
      framework->second.slaves.erase(index);
      framework->second.holding--;
    }
  }
  sorter_.removeTotal(slave.total);
  countReserved(slave.total, -1);
  for (auto& [seq, framework] : frameworks_) {
    if (!framework.filters.empty()) framework.filters.erase(index);
  }
  uint32_t generation = slave.generation + 1;
  slave = Slave{};
  slave.generation = generation;
  freeSlots_.push_back(index);
  slaveIndex_.erase(it);
}

void HierarchicalAllocator::activateSlave(const SlaveID& slaveId) {
  auto it = slaveIndex_.find(slaveId.value());
  if (it == slaveIndex_.end()) return;
  slaves_[it->second].active = true;
  markFree(it->second);
}

void HierarchicalAllocator::deactivateSlave(const SlaveID& slaveId) {
  auto it = slaveIndex_.find(slaveId.value());
  if (it == slaveIndex_.end()) return;
  // Not offerable from now on; allocate() drops it from withFree_ when it
  // comes to it.
  slaves_[it->second].active = false;
}

void HierarchicalAllocator::take(Seq seq, uint32_t index, Slave& slave,
                                 const Resources& resources) {
  auto allocated = slave.allocated.find(seq);
  if (allocated == slave.allocated.end()) return;
  Resources back = resources;
  // Only what the framework holds there comes back.
  if (!allocated->second.contains(back)) back = allocated->second - (allocated->second - back);
  allocated->second -= back;
  if (allocated->second.empty()) {
    slave.allocated.erase(allocated);
    auto framework = frameworks_.find(seq);
    if (framework != frameworks_.end()) forget(framework->second, seq, slave);
  }
  setFree(slave, slave.free + back);
  account(seq, back, -1);
  markFree(index);
}

void HierarchicalAllocator::recoverResources(const FrameworkID& frameworkId,
                                             const SlaveID& slaveId, const Resources& resources,
                                             const std::optional<Filters>& filters) {
  const std::string& id = frameworkId.value();
  if (clients_.find(id) == clients_.end()) return;
  auto slave = slaveIndex_.find(slaveId.value());
  // The clients given something back here, with what they got back: kept
  // only for a refusal (the usual decline and task end need none).
  const bool refusing = filters && filters->refuse_seconds() > 0;
  std::vector<std::pair<Seq, Resources>> parts;
  if (!resources.empty()) {
    byClient(id, resources, [&](Seq seq, const Resources& part) {
      if (slave != slaveIndex_.end()) take(seq, slave->second, slaves_[slave->second], part);
      if (refusing) parts.emplace_back(seq, part);
    });
  }
  if (!filters) return;
  if (filters->has_offer_filters()) {
    // The paper's standing filters replace the previous ones, for every
    // role of the framework; empty ones clear them.
    const OfferFilters& given = filters->offer_filters();
    std::optional<Standing> standing;
    if (given.slaves_size() > 0 || given.min_free_size() > 0) {
      standing.emplace();
      standing->slaves.insert(given.slaves().begin(), given.slaves().end());
      standing->minFree = Resources(given.min_free()).flatten();
    }
    for (Seq seq : clientsOf(id)) frameworks_[seq].standing = standing;
  }
  if (slave == slaveIndex_.end()) return;
  double seconds = std::min(filters->refuse_seconds(), kMaxRefuseSeconds);
  if (!(seconds > 0)) return;
  for (auto& [seq, part] : parts) {
    Framework& framework = frameworks_[seq];
    if (!framework.added) continue;
    Filter& filter = framework.filters[slave->second];
    filter.resources = std::move(part);
    filter.expires = options_.now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(seconds));
  }
}

void HierarchicalAllocator::updateAllocation(const FrameworkID& frameworkId,
                                             const SlaveID& slaveId, const Resources& allocatedFrom,
                                             const Resources& allocatedTo) {
  auto slaveIt = slaveIndex_.find(slaveId.value());
  if (clients_.find(frameworkId.value()) == clients_.end() || slaveIt == slaveIndex_.end()) {
    return;
  }
  // A conversion stays within one allocation role.
  Seq seq = clientSeq(frameworkId.value(), allocatedFrom.allocationRole());
  Resources from = allocatedFrom.unallocated();
  Resources to = allocatedTo.unallocated();
  Slave& slave = slaves_[slaveIt->second];
  auto allocated = slave.allocated.find(seq);
  if (allocated == slave.allocated.end() || !allocated->second.contains(from)) {
    LOG(WARNING) << "Ignoring a conversion of " << from.toString() << " on slave " << slave.id
                 << ": framework " << frameworkId.value() << " does not hold it there";
    return;
  }
  allocated->second = allocated->second - from + to;
  account(seq, from, -1);
  account(seq, to, +1);
  sorter_.removeTotal(from);
  sorter_.addTotal(to);
  countReserved(from, -1);
  countReserved(to, +1);
  slave.total = slave.total - from + to;
  slave.reserved = hasReservation(slave.total);
}

bool HierarchicalAllocator::updateAvailable(const SlaveID& slaveId, const Resources& from,
                                            const Resources& to) {
  auto slaveIt = slaveIndex_.find(slaveId.value());
  if (slaveIt == slaveIndex_.end()) return false;
  uint32_t index = slaveIt->second;
  Slave& slave = slaves_[index];
  if (!slave.free.contains(from)) return false;
  sorter_.removeTotal(from);
  sorter_.addTotal(to);
  slave.total = slave.total - from + to;
  slave.reserved = hasReservation(slave.total);
  setFree(slave, slave.free - from + to);
  markFree(index);
  return true;
}

void HierarchicalAllocator::requestResources(const FrameworkID&, const std::vector<Request>&) {
  // Requests are hints; these policies offer what is free regardless.
}

void HierarchicalAllocator::suppressOffers(const FrameworkID& frameworkId) {
  suppressRoles(frameworkId, {});
}

void HierarchicalAllocator::reviveOffers(const FrameworkID& frameworkId) {
  reviveRoles(frameworkId, {});
}

void HierarchicalAllocator::suppressRoles(const FrameworkID& frameworkId,
                                          const std::vector<std::string>& roles) {
  setSuppressed(frameworkId, roles, true);
}

void HierarchicalAllocator::reviveRoles(const FrameworkID& frameworkId,
                                        const std::vector<std::string>& roles) {
  setSuppressed(frameworkId, roles, false);
}

// Reviving also drops the role's filters.
void HierarchicalAllocator::setSuppressed(const FrameworkID& frameworkId,
                                          const std::vector<std::string>& roles, bool suppressed) {
  for (Seq seq : clientsOf(frameworkId.value())) {
    Framework& framework = frameworks_[seq];
    if (!roles.empty() && std::find(roles.begin(), roles.end(), framework.role) == roles.end()) {
      continue;
    }
    framework.suppressed = suppressed;
    if (!suppressed) framework.filters.clear();
    wanting(seq);
  }
}

double HierarchicalAllocator::share(const FrameworkID& frameworkId) {
  std::vector<Seq> clients = clientsOf(frameworkId.value());
  return clients.empty() ? 0.0 : sorter_.share(clients.front());
}

Resources HierarchicalAllocator::free(const SlaveID& slaveId) const {
  auto it = slaveIndex_.find(slaveId.value());
  return it == slaveIndex_.end() ? Resources() : slaves_[it->second].free;
}

void HierarchicalAllocator::setFree(Slave& slave, Resources free) {
  slave.free = std::move(free);
  slave.freeCpus = slave.free.scalar("cpus");
  slave.freeMem = slave.free.scalar("mem");
}

bool HierarchicalAllocator::offerable(const Slave& slave) const {
  if (!slave.live || !slave.active || (slave.freeCpus < kMinCpus && slave.freeMem < kMinMemMb)) return false;
  // Per role, by allocateReserved().
  if (slave.reserved) return true;
  for (const auto& [name, minimum] : slave.threshold) {
    if (slave.free.scalar(name) + kEpsilon < minimum) return false;
  }
  return true;
}

void HierarchicalAllocator::markFree(uint32_t index) {
  Slave& slave = slaves_[index];
  if (slave.listed || !offerable(slave)) return;
  slave.listed = true;
  withFree_.emplace_back(index, slave.generation);
}

// Whether `framework` takes what it would be offered on `slave`, which
// `offer()` returns (called only when a filter needs it).
template <typename Offer>
bool HierarchicalAllocator::eligible(Framework& framework, uint32_t index, const Slave& slave,
                                     Offer&& offer) {
  if (!framework.added || !framework.active || framework.suppressed || !framework.subscribed) {
    return false;
  }
  // A slave that would not understand its resources (Apache's agents
  // before 1.3).
  if ((framework.multiRole && !slave.multiRole) ||
      (!slave.hierarchicalRole && framework.role.find('/') != std::string::npos)) {
    return false;
  }
  if (!framework.filters.empty()) {
    auto it = framework.filters.find(index);
    if (it != framework.filters.end()) {
      if (now_ >= it->second.expires) {
        framework.filters.erase(it);
      } else if (it->second.resources.contains(offer())) {
        return false;
      }
    }
  }
  if (framework.standing) {
    const Standing& standing = *framework.standing;
    if (!standing.slaves.empty() && !standing.slaves.count(slave.id) &&
        !standing.slaves.count(slave.hostname)) {
      return false;
    }
    if (!standing.minFree.empty() && !offer().flatten().contains(standing.minFree)) {
      return false;
    }
  }
  return true;
}

// The framework `slave` goes to among those for which `ok(seq)` holds,
// looking only at roles for which `roleOk(role)` holds: the one a
// revocation freed it for, else the policy's choice (one virtual call; the
// chooser calls `ok` and `roleOk` through a function pointer).
template <typename Ok, typename RoleOk>
std::optional<HierarchicalAllocator::Seq> HierarchicalAllocator::choose(Slave& slave, Ok&& ok,
                                                                        RoleOk&& roleOk) {
  if (slave.promisedTo) {
    Seq promised = *slave.promisedTo;
    bool current = now_ < slave.promisedUntil;
    if (current && ok(promised)) {
      slave.promisedTo.reset();
      return promised;
    }
    if (!current) slave.promisedTo.reset();
  }
  return chooser_->choose(roleOk, ok);
}

void HierarchicalAllocator::give(Seq seq, uint32_t index, Slave& slave,
                                 const Resources& resources) {
  Framework& framework = frameworks_[seq];
  auto [allocated, added] = slave.allocated.try_emplace(seq, resources);
  if (added) {
    framework.holding++;
    framework.slaves.insert(index);
  } else {
    allocated->second += resources;
  }
  framework.waitingSince.reset();
  account(seq, resources, +1);
}

// The framework no longer holds anything on `slave`. Its index of slaves
// keeps the entry (it may well be offered that slave again); stale entries
// are pruned once they outnumber the live ones.
void HierarchicalAllocator::forget(Framework& framework, Seq seq, Slave&) {
  framework.holding--;
  if (framework.slaves.size() <= 2 * framework.holding + 64) return;
  for (auto it = framework.slaves.begin(); it != framework.slaves.end();) {
    it = slaves_[*it].allocated.count(seq) ? std::next(it) : framework.slaves.erase(it);
  }
}

void HierarchicalAllocator::offer(Seq seq, uint32_t index, Slave& slave, Resources resources,
                                  Offers& offers) {
  give(seq, index, slave, resources);
  SlaveResources& entry = offers[seq].emplace_back();
  entry.slaveId.set_value(slave.id);
  const Framework& framework = frameworks_[seq];
  if (framework.multiRole) {
    entry.role = framework.role;
    entry.resources = resources.allocatedTo(framework.role);
  } else {
    entry.resources = std::move(resources);
  }
}

void HierarchicalAllocator::allocateSlave(uint32_t index, Offers& offers) {
  Slave& slave = slaves_[index];
  if (!offerable(slave)) return;
  if (!quotas_.empty()) {
    allocateWithQuota(index, offers);
    return;
  }
  if (slave.reserved) {
    allocateReserved(index, offers);
    return;
  }
  auto whole = [&]() -> const Resources& { return slave.free; };
  auto ok = [&](Seq seq) {
    auto it = frameworks_.find(seq);
    return it != frameworks_.end() && eligible(it->second, index, slave, whole);
  };
  auto chosen = choose(slave, ok, [](const std::string&) { return true; });
  if (!chosen) return;
  Resources offered = std::move(slave.free);
  setFree(slave, Resources());
  offer(*chosen, index, slave, std::move(offered), offers);
}

// Whether the part of `slave`'s free resources a framework of `role` may be
// offered holds --min_offer_size, capped at what that role could ever get
// there (the unreserved total and the role's reservation).
bool HierarchicalAllocator::bigEnough(const Slave& slave, const std::string& role) const {
  for (const Resource& minimum : config_.minOfferSize) {
    double cap = scalarFor(slave.total, minimum.name(), role);
    if (cap <= 0) continue;
    double wanted = std::min(cap, minimum.scalar().value());
    if (scalarFor(slave.free, minimum.name(), role) + kEpsilon < wanted) return false;
  }
  return true;
}

// A slave with reservations. The chosen framework takes the unreserved free
// resources and its role's; what is left (other roles' reservations) goes to
// the next choice, in the same cycle. Each pick empties the chosen role's
// part, so there are at most as many picks as roles with resources here,
// plus one. Who may take what is decided on free cpus and memory per role,
// counted without copying resources; resources are split only for the
// chosen framework (and for a filter that needs the framework's part).
void HierarchicalAllocator::allocateReserved(uint32_t index, Offers& offers) {
  Slave& slave = slaves_[index];
  while (offerable(slave)) {
    // Points into slave.free, which stays as it is until the choice is made.
    roleFree_.clear();
    for (const Resource& resource : slave.free) {
      RoleFree* entry = nullptr;
      for (RoleFree& known : roleFree_) {
        if (*known.role == resource.role()) {
          entry = &known;
          break;
        }
      }
      if (entry == nullptr) entry = &roleFree_.emplace_back(RoleFree{&resource.role(), 0, 0});
      if (resource.type() != Value::SCALAR) continue;
      if (resource.name() == "cpus") entry->cpus += resource.scalar().value();
      if (resource.name() == "mem") entry->mem += resource.scalar().value();
    }
    auto worthOffering = [&](const std::string& role) {
      double cpus = 0;
      double mem = 0;
      for (const RoleFree& known : roleFree_) {
        if (!allocatableTo(*known.role, role)) continue;
        cpus += known.cpus;
        mem += known.mem;
      }
      if (cpus < kMinCpus && mem < kMinMemMb) return false;
      return config_.minOfferSize.empty() || bigEnough(slave, role);
    };
    std::optional<Resources> part;  // the last framework's part, if a filter asked for it
    const std::string* partRole = nullptr;
    auto ok = [&](Seq seq) {
      auto it = frameworks_.find(seq);
      if (it == frameworks_.end() || !it->second.added) return false;
      const std::string& role = it->second.role;
      auto offer = [&]() -> const Resources& {
        if (!part || *partRole != role) {
          part = usableBy(slave.free, role);
          partRole = &role;
        }
        return *part;
      };
      return worthOffering(role) && eligible(it->second, index, slave, offer);
    };
    auto chosen = choose(slave, ok, worthOffering);
    if (!chosen) return;

    // Other roles' reservations are copied out; the rest is offered in
    // place (free's list is usually not shared: no copy).
    const std::string& role = frameworks_[*chosen].role;
    Resources left;
    for (const RoleFree& known : roleFree_) {
      if (!allocatableTo(*known.role, role)) left += slave.free.role(*known.role);
    }
    Resources offered = std::move(slave.free);
    if (!left.empty()) offered -= left;
    roleFree_.clear();
    setFree(slave, std::move(left));
    offer(*chosen, index, slave, std::move(offered), offers);
  }
}

void HierarchicalAllocator::send(Offers& offers) {
  for (auto& [seq, batch] : offers) {
    FrameworkID frameworkId;
    frameworkId.set_value(frameworks_[seq].id);
    options_.offer(frameworkId, std::move(batch));
  }
}

void HierarchicalAllocator::allocate() {
  now_ = options_.now();
  chooser_->beginCycle();
  Offers offers;
  std::vector<std::pair<uint32_t, uint32_t>> candidates;
  candidates.swap(withFree_);
  for (const auto& [index, generation] : candidates) {
    Slave& slave = slaves_[index];
    if (slave.generation != generation || !slave.live) continue;
    slave.listed = false;
    allocateSlave(index, offers);
    markFree(index);  // still offerable: nobody took it
  }
  send(offers);
}

void HierarchicalAllocator::allocate(const std::vector<SlaveID>& slaveIds) {
  now_ = options_.now();
  chooser_->beginCycle();
  Offers offers;
  for (const SlaveID& slaveId : slaveIds) {
    auto it = slaveIndex_.find(slaveId.value());
    if (it == slaveIndex_.end()) continue;
    allocateSlave(it->second, offers);
  }
  send(offers);
}

std::vector<double> HierarchicalAllocator::vector(const Resources& resources) {
  std::vector<double> scalars;
  sorter_.names().add(scalars, resources, +1);
  return scalars;
}

Resources HierarchicalAllocator::resources(const std::vector<double>& scalars) const {
  Resources result;
  ScalarNames& names = const_cast<DrfSorter&>(sorter_).names();
  for (size_t i = 0; i < scalars.size(); i++) {
    if (scalars[i] <= kEpsilon) continue;
    Resource resource;
    resource.set_name(names.name(static_cast<uint32_t>(i)));
    resource.set_type(Value::SCALAR);
    resource.mutable_scalar()->set_value(scalars[i]);
    resource.set_role(kDefaultRole);
    result += Resources(resource);
  }
  return result;
}

// Revocation (the paper's sections 3.3.1 and 4.3). Every interval: a role
// below its guarantee on some resource has a deficit; a framework of it that
// wants offers (active, not suppressed) and has received none for
// --revocation_timeout gets resources revoked for it.
void HierarchicalAllocator::checkRevocations() {
  if (config_.revocationTimeout <= std::chrono::nanoseconds::zero() || !options_.revoke ||
      (config_.guarantees.empty() && !config_.revokeBelowFairShare)) {
    return;
  }
  TimePoint now = options_.now();
  for (const auto& [role, members] : roleMembers_) {
    if (members.empty()) continue;
    // Short of its guarantee, or (optionally) of its fair share.
    std::vector<double> deficit = guaranteeDeficit(role);
    bool fair = false;
    if (!positive(deficit) && config_.revokeBelowFairShare) {
      deficit = fairShareDeficit(role);
      fair = positive(deficit);
    }
    bool below = positive(deficit);
    for (Seq seq : members) {
      Framework& framework = frameworks_[seq];
      bool wanting = below && framework.active && !framework.suppressed && framework.subscribed;
      if (!wanting) {
        framework.waitingSince.reset();
        continue;
      }
      if (!framework.waitingSince) {
        framework.waitingSince = now;
        continue;
      }
      if (now - *framework.waitingSince < config_.revocationTimeout) continue;
      // Its clock starts again: the next revocation waits a full timeout.
      framework.waitingSince = now;
      revokeFor(framework, seq, deficit, fair);
      break;  // one beneficiary per role per interval
    }
  }
}

bool HierarchicalAllocator::positive(const std::vector<double>& scalars) {
  for (double value : scalars) {
    if (value > kEpsilon) return true;
  }
  return false;
}

std::vector<double> HierarchicalAllocator::guaranteeDeficit(const std::string& role) {
  auto guarantee = config_.guarantees.find(role);
  if (guarantee == config_.guarantees.end()) return {};
  std::vector<double> deficit = vector(guarantee->second);
  const std::vector<double>& held = sorter_.roleAllocation(role);
  for (size_t i = 0; i < deficit.size(); i++) {
    deficit[i] = std::max(0.0, deficit[i] - (i < held.size() ? held[i] : 0.0));
  }
  return deficit;
}

double HierarchicalAllocator::fairShare(const std::string& role) const {
  double total = 0;
  double mine = 0;
  for (const auto& [name, members] : roleMembers_) {
    if (members.empty()) continue;
    auto weight = config_.weights.find(name);
    double w = weight == config_.weights.end() ? 1.0 : weight->second;
    total += w;
    if (name == role) mine = w;
  }
  return total > 0 ? mine / total : 0.0;
}

// A role whose dominant share is below its fair share (its weight over the
// weights of the roles with frameworks) lacks, of each resource, what would
// bring it to that share of the cluster.
std::vector<double> HierarchicalAllocator::fairShareDeficit(const std::string& role) {
  double fair = fairShare(role);
  const std::vector<double>& total = sorter_.total();
  const std::vector<double>& held = sorter_.roleAllocation(role);
  if (dominantShare(held, total) + kEpsilon >= fair) return {};
  std::vector<double> deficit(total.size(), 0.0);
  for (size_t i = 0; i < total.size(); i++) {
    deficit[i] = std::max(0.0, fair * total[i] - (i < held.size() ? held[i] : 0.0));
  }
  return deficit;
}

void HierarchicalAllocator::revokeFor(Framework& beneficiary, Seq beneficiarySeq,
                                      std::vector<double> deficit, bool fair) {
  TimePoint now = options_.now();
  bool done = false;  // fair-share revocations free one slave's worth a time
  auto remaining = [&] { return !done && positive(deficit); };
  for (const std::string& role : sorter_.rolesForRevocation()) {
    if (!remaining()) return;
    if (role == beneficiary.role) continue;
    // A role gives up only what it holds above its guarantee; a role below
    // its guarantee on any resource is not touched.
    std::vector<double> surplus = sorter_.roleAllocation(role);
    auto guaranteed = config_.guarantees.find(role);
    if (guaranteed != config_.guarantees.end()) {
      std::vector<double> g = vector(guaranteed->second);
      bool below = false;
      for (size_t i = 0; i < g.size(); i++) {
        double have = i < surplus.size() ? surplus[i] : 0.0;
        if (have + kEpsilon < g[i]) below = true;
        if (i < surplus.size()) surplus[i] = std::max(0.0, have - g[i]);
      }
      if (below) continue;
    }
    if (fair) {
      // For a fair share, only what a role holds above its own fair share
      // (and its guarantee) is taken.
      double share = fairShare(role);
      const std::vector<double>& total = sorter_.total();
      const std::vector<double>& held = sorter_.roleAllocation(role);
      if (dominantShare(held, total) <= share + kEpsilon) continue;
      for (size_t i = 0; i < surplus.size() && i < total.size(); i++) {
        surplus[i] = std::min(surplus[i], std::max(0.0, held[i] - share * total[i]));
      }
    }
    for (Seq victimSeq : sorter_.clientsForRevocation(role)) {
      if (!remaining()) return;
      Framework& victim = frameworks_[victimSeq];
      for (uint32_t index : victim.slaves) {
        if (!remaining()) return;
        Slave& slave = slaves_[index];
        auto allocated = slave.allocated.find(victimSeq);
        if (allocated == slave.allocated.end()) continue;
        // Only what the beneficiary could be offered there helps it: not
        // resources reserved for another role.
        std::vector<double> there =
            vector(slave.reserved ? usableBy(allocated->second, beneficiary.role)
                                  : allocated->second);
        std::vector<double> amount(deficit.size(), 0.0);
        std::vector<double> limit(there.size(), 0.0);
        bool helps = false;
        for (size_t i = 0; i < there.size(); i++) {
          limit[i] = std::min(there[i], i < surplus.size() ? surplus[i] : 0.0);
        }
        for (size_t i = 0; i < deficit.size() && i < limit.size(); i++) {
          amount[i] = std::min(deficit[i], limit[i]);
          helps = helps || amount[i] > kEpsilon;
        }
        if (!helps) continue;
        for (size_t i = 0; i < amount.size(); i++) deficit[i] -= amount[i];
        for (size_t i = 0; i < limit.size() && i < surplus.size(); i++) surplus[i] -= limit[i];
        Revocation revocation;
        revocation.frameworkId.set_value(victim.id);
        revocation.slaveId.set_value(slave.id);
        revocation.amount = resources(amount);
        revocation.limit = resources(limit);
        revocation.beneficiary.set_value(beneficiary.id);
        revocation.role = victim.role;
        revocation.beneficiaryRole = beneficiary.role;
        // What the revocation frees goes to the beneficiary first.
        slave.promisedTo = beneficiarySeq;
        slave.promisedUntil = now + config_.revocationTimeout;
        LOG(INFO) << "Revoking " << revocation.amount.toString() << " (at most "
                  << revocation.limit.toString() << ") of framework " << victim.id
                  << " on slave " << slave.id << " for framework " << beneficiary.id
                  << ", below the " << (fair ? "fair share" : "guarantee") << " of role "
                  << beneficiary.role;
        options_.revoke(revocation);
        done = fair;
      }
    }
  }
}

// Weights and quota set at run time.

void HierarchicalAllocator::updateWeights(const std::vector<WeightInfo>& weights) {
  for (const WeightInfo& info : weights) {
    if (!info.has_role() || !(info.weight() > 0)) continue;
    config_.weights[info.role()] = info.weight();
    sorter_.setWeight(info.role(), info.weight());
  }
}

void HierarchicalAllocator::updateQuota(const std::string& role, const Quota& quota) {
  if (quota.empty()) {
    quotaConfigs_.erase(role);
  } else {
    quotaConfigs_[role] = quota;
  }
  refreshQuotaIndices();
}

void HierarchicalAllocator::refreshQuotaIndices() {
  quotas_.clear();
  ScalarNames& names = sorter_.names();
  for (const auto& [role, quota] : quotaConfigs_) {
    RoleQuota& entry = quotas_[role];
    for (const auto& [name, amount] : quota.guarantees) {
      addAt(entry.guarantees, names.index(name), amount);
    }
    entry.limits.assign(names.size(), std::numeric_limits<double>::infinity());
    for (const auto& [name, amount] : quota.limits) {
      uint32_t i = names.index(name);
      if (entry.limits.size() <= i) {
        entry.limits.resize(i + 1, std::numeric_limits<double>::infinity());
      }
      entry.limits[i] = amount;
    }
  }
  for (auto& [role, entry] : quotas_) {
    entry.top = true;
    withAncestors(role, [&](const std::string& name) {
      if (name != role && quotaConfigs_.count(name)) entry.top = false;
    });
  }
}

void HierarchicalAllocator::countReserved(const Resources& total, double sign) {
  ScalarNames& names = sorter_.names();
  for (const Resource& resource : total) {
    if (resource.type() != Value::SCALAR) continue;
    uint32_t i = names.index(resource.name());
    double value = sign * resource.scalar().value();
    if (resource.role() == kDefaultRole) {
      addAt(unreservedTotal_, i, value);
      continue;
    }
    withAncestors(resource.role(), [&](const std::string& role) {
      addAt(consumption_[role].reserved, i, value);
    });
  }
}

void HierarchicalAllocator::countAllocated(const Framework& framework, const Resources& resources,
                                           double sign) {
  ScalarNames& names = sorter_.names();
  for (const Resource& resource : resources) {
    if (resource.type() != Value::SCALAR || resource.role() != kDefaultRole) continue;
    uint32_t i = names.index(resource.name());
    double value = sign * resource.scalar().value();
    addAt(unreservedAllocated_, i, value);
    if (framework.role == kDefaultRole) continue;
    withAncestors(framework.role, [&](const std::string& role) {
      addAt(consumption_[role].allocatedUnreserved, i, value);
    });
  }
}

void HierarchicalAllocator::account(Seq seq, const Resources& resources, double sign) {
  if (sign > 0) {
    sorter_.allocated(seq, resources);
  } else {
    sorter_.unallocated(seq, resources);
  }
  auto framework = frameworks_.find(seq);
  if (framework != frameworks_.end() && framework->second.added) {
    countAllocated(framework->second, resources, sign);
  }
}

double HierarchicalAllocator::consumedAt(const std::string& role, size_t i) {
  auto it = consumption_.find(role);
  if (it == consumption_.end()) return 0.0;
  return at(it->second.reserved, i) + at(it->second.allocatedUnreserved, i);
}

Resources HierarchicalAllocator::consumed(const std::string& role) {
  std::vector<double> scalars(sorter_.names().size(), 0.0);
  for (size_t i = 0; i < scalars.size(); i++) scalars[i] = consumedAt(role, i);
  return resources(scalars);
}

bool HierarchicalAllocator::belowGuarantee(const std::string& role) {
  bool below = false;
  withAncestors(role, [&](const std::string& name) {
    auto quota = quotas_.find(name);
    if (below || quota == quotas_.end()) return;
    for (size_t i = 0; i < quota->second.guarantees.size(); i++) {
      if (quota->second.guarantees[i] > consumedAt(name, i) + kEpsilon) below = true;
    }
  });
  return below;
}

// The unreserved resources not allocated, less the headroom: what the
// unsatisfied guarantees of the roles with quota (the topmost ones: a
// child's consumption counts in its parent's) still need.
std::vector<double> HierarchicalAllocator::quotaCap(const std::string& role) {
  size_t n = sorter_.names().size();
  std::vector<double> cap(n, 0.0);
  for (size_t i = 0; i < n; i++) {
    double headroom = 0;
    for (const auto& [name, quota] : quotas_) {
      if (quota.top) headroom += std::max(0.0, at(quota.guarantees, i) - consumedAt(name, i));
    }
    double unallocated = at(unreservedTotal_, i) - at(unreservedAllocated_, i);
    cap[i] = std::max(0.0, unallocated - headroom);
  }
  // Its own unsatisfied guarantee is its to take; no limit of its own or
  // of an ancestor may be passed.
  withAncestors(role, [&](const std::string& name) {
    auto quota = quotas_.find(name);
    if (quota == quotas_.end()) return;
    for (size_t i = 0; i < n; i++) {
      if (quota->second.top) {
        cap[i] += std::max(0.0, at(quota->second.guarantees, i) - consumedAt(name, i));
      }
      double limit = at(quota->second.limits, i, std::numeric_limits<double>::infinity());
      cap[i] = std::min(cap[i], std::max(0.0, limit - consumedAt(name, i)));
    }
  });
  return cap;
}

// `offer` with its unreserved scalars cut to `cap` (by scalar index), in
// Mesos's steps of a thousandth.
Resources HierarchicalAllocator::cut(const Resources& offer, const std::vector<double>& cap) {
  std::vector<double> left = cap;
  ScalarNames& names = sorter_.names();
  Resources result;
  for (const Resource& resource : offer) {
    if (resource.type() != Value::SCALAR || resource.role() != kDefaultRole) {
      result += Resources(resource);
      continue;
    }
    uint32_t i = names.index(resource.name());
    double room = at(left, i, std::numeric_limits<double>::infinity());
    double take = std::min(resource.scalar().value(), std::floor(room * 1000 + kEpsilon) / 1000);
    if (take <= 0) continue;
    if (i < left.size()) left[i] -= take;
    Resource part = resource;
    part.mutable_scalar()->set_value(take);
    result += Resources(part);
  }
  return result;
}

// Allocation with quota (see the top of hierarchical.hpp): each pick first
// among roles below their guarantee, then among all; what a role may not
// take stays free for the next pick on this slave.
void HierarchicalAllocator::allocateWithQuota(uint32_t index, Offers& offers) {
  Slave& slave = slaves_[index];
  for (size_t pick = 0; pick <= quotas_.size() + roleMembers_.size() && offerable(slave);
       pick++) {
    std::string cachedRole;
    std::optional<Resources> cached;
    auto offerFor = [&](const std::string& role) -> const Resources& {
      if (!cached || cachedRole != role) {
        cachedRole = role;
        cached = cut(usableBy(slave.free, role), quotaCap(role));
      }
      return *cached;
    };
    auto worth = [&](const std::string& role) {
      return allocatable(offerFor(role)) &&
             (config_.minOfferSize.empty() || bigEnough(slave, role));
    };
    auto guaranteed = [&](const std::string& role) { return belowGuarantee(role) && worth(role); };
    auto okWith = [&](auto& roleOk) {
      return [&](Seq seq) {
        auto it = frameworks_.find(seq);
        if (it == frameworks_.end() || !it->second.added) return false;
        const std::string& role = it->second.role;
        auto offer = [&]() -> const Resources& { return offerFor(role); };
        return roleOk(role) && eligible(it->second, index, slave, offer);
      };
    };
    auto chosen = choose(slave, okWith(guaranteed), guaranteed);
    if (!chosen) chosen = choose(slave, okWith(worth), worth);
    if (!chosen) return;
    Resources offered = offerFor(frameworks_[*chosen].role);
    setFree(slave, slave.free - offered);
    offer(*chosen, index, slave, std::move(offered), offers);
  }
}

}  // namespace mesos::allocator
