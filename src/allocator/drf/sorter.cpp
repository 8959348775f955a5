#include "allocator/drf/sorter.hpp"

#include <algorithm>

#include <glog/logging.h>

#include "allocator/drf/shares.hpp"

namespace mesos::allocator {

uint32_t ScalarNames::index(const std::string& name) {
  for (uint32_t i = 0; i < names_.size(); i++) {
    if (names_[i] == name) return i;
  }
  names_.push_back(name);
  return static_cast<uint32_t>(names_.size() - 1);
}

void ScalarNames::add(std::vector<double>& into, const Resources& resources, double sign) {
  for (const Resource& resource : resources) {
    if (resource.type() != Value::SCALAR) continue;
    uint32_t i = index(resource.name());
    if (into.size() <= i) into.resize(i + 1, 0.0);
    // Sums of three-decimal values: clamp the rounding noise at zero.
    into[i] = std::max(0.0, into[i] + sign * resource.scalar().value());
  }
}

bool DrfSorter::RoleKey::operator<(const RoleKey& that) const {
  if (priority != that.priority) return priority < that.priority;
  if (share != that.share) return share < that.share;
  if (last != that.last) return last < that.last;
  return role->name < that.role->name;
}

void DrfSorter::orderByPriority() {
  if (priorities_) return;
  priorities_ = true;
  // The keys in roleOrder_ change: refresh() rebuilds it.
  stale_ = true;
}

DrfSorter::RoleKey DrfSorter::key(Role& role) const {
  return {priorities_ ? -role.priority : 0, role.share, role.last, &role};
}

void DrfSorter::addRole(const std::string& name, double weight, int64_t priority) {
  CHECK_GT(weight, 0.0);
  auto [it, inserted] = roles_.try_emplace(name);
  if (!inserted) return;
  Role& role = it->second;
  role.name = name;
  role.weight = weight;
  role.priority = priority;
  roleOrder_.insert(key(role));
}

void DrfSorter::setWeight(const std::string& name, double weight) {
  CHECK_GT(weight, 0.0);
  auto it = roles_.find(name);
  if (it == roles_.end() || it->second.weight == weight) return;
  Role& role = it->second;
  if (!stale_) roleOrder_.erase(key(role));
  role.weight = weight;
  if (!stale_) {
    role.share = dominantShare(role.allocation, total_) / role.weight;
    roleOrder_.insert(key(role));
  }
}

void DrfSorter::addClient(Client client, const std::string& roleName) {
  auto role = roles_.find(roleName);
  CHECK(role != roles_.end()) << "role " << roleName << " not added";
  auto [it, inserted] = clients_.emplace(client, Entry{&role->second, {}, 0.0, 0, true});
  if (!inserted) return;
  role->second.order.insert({0.0, 0, client});
  role->second.clients++;
}

void DrfSorter::removeClient(Client client) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  Entry& entry = it->second;
  Role& role = *entry.role;
  role.order.erase({entry.share, entry.last, client});
  role.clients--;
  // Its allocation leaves the role's.
  if (!stale_) roleOrder_.erase(key(role));
  for (size_t i = 0; i < entry.allocation.size() && i < role.allocation.size(); i++) {
    role.allocation[i] = std::max(0.0, role.allocation[i] - entry.allocation[i]);
  }
  if (!stale_) {
    role.share = dominantShare(role.allocation, total_) / role.weight;
    roleOrder_.insert(key(role));
  }
  clients_.erase(it);
}

void DrfSorter::setWanting(Client client, bool wanting) {
  auto it = clients_.find(client);
  if (it == clients_.end() || it->second.wanting == wanting) return;
  Entry& entry = it->second;
  entry.wanting = wanting;
  if (stale_) return;  // refresh() rebuilds the orders
  if (wanting) {
    entry.role->order.insert({entry.share, entry.last, client});
  } else {
    entry.role->order.erase({entry.share, entry.last, client});
  }
}

void DrfSorter::update(Client client, const Resources& resources, double sign) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  Entry& entry = it->second;
  Role& role = *entry.role;
  names_.add(entry.allocation, resources, sign);
  names_.add(role.allocation, resources, sign);
  if (stale_) {
    if (sign > 0) entry.last = role.last = ++allocations_;
    return;
  }
  if (entry.wanting) role.order.erase({entry.share, entry.last, client});
  roleOrder_.erase(key(role));
  if (sign > 0) entry.last = role.last = ++allocations_;
  entry.share = dominantShare(entry.allocation, total_);
  if (entry.wanting) role.order.insert({entry.share, entry.last, client});
  role.share = dominantShare(role.allocation, total_) / role.weight;
  roleOrder_.insert(key(role));
}

void DrfSorter::allocated(Client client, const Resources& resources) {
  update(client, resources, +1);
}

void DrfSorter::unallocated(Client client, const Resources& resources) {
  update(client, resources, -1);
}

void DrfSorter::addTotal(const Resources& resources) {
  names_.add(total_, resources, +1);
  stale_ = true;
}

void DrfSorter::removeTotal(const Resources& resources) {
  names_.add(total_, resources, -1);
  stale_ = true;
}

void DrfSorter::refresh() {
  if (!stale_) return;
  for (auto& [name, role] : roles_) {
    role.order.clear();
    role.share = dominantShare(role.allocation, total_) / role.weight;
  }
  for (auto& [client, entry] : clients_) {
    entry.share = dominantShare(entry.allocation, total_);
    if (entry.wanting) entry.role->order.insert({entry.share, entry.last, client});
  }
  roleOrder_.clear();
  for (auto& [name, role] : roles_) roleOrder_.insert(key(role));
  stale_ = false;
}

std::vector<std::string> DrfSorter::rolesForRevocation() {
  refresh();
  std::vector<std::string> roles;
  // The reverse of the offer order: lowest priority, then highest share.
  for (auto it = roleOrder_.rbegin(); it != roleOrder_.rend(); ++it) {
    roles.push_back(it->role->name);
  }
  return roles;
}

std::vector<DrfSorter::Client> DrfSorter::clientsForRevocation(const std::string& role) {
  refresh();
  // Every client of the role, wanting offers or not; rare, so a sort will do.
  std::vector<std::pair<double, Client>> byShare;
  for (const auto& [client, entry] : clients_) {
    if (entry.role->name == role) byShare.emplace_back(entry.share, client);
  }
  std::sort(byShare.begin(), byShare.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<Client> clients;
  for (const auto& [share, client] : byShare) clients.push_back(client);
  return clients;
}

double DrfSorter::share(Client client) {
  refresh();
  auto it = clients_.find(client);
  return it == clients_.end() ? 0.0 : it->second.share;
}

double DrfSorter::roleShare(const std::string& role) {
  refresh();
  auto it = roles_.find(role);
  return it == roles_.end() ? 0.0 : it->second.share;
}

std::vector<DrfSorter::RoleClients> DrfSorter::roster() const {
  std::vector<RoleClients> roster;
  std::unordered_map<const Role*, size_t> at;
  for (const auto& [name, role] : roles_) {
    if (role.clients == 0) continue;
    at[&role] = roster.size();
    roster.push_back({&role.name, role.clients, {}});
  }
  for (const auto& [client, entry] : clients_) {
    if (entry.wanting) roster[at.at(entry.role)].wanting.push_back(client);
  }
  for (RoleClients& role : roster) std::sort(role.wanting.begin(), role.wanting.end());
  return roster;
}

const std::vector<double>& DrfSorter::roleAllocation(const std::string& role) {
  static const std::vector<double> kNone;
  auto it = roles_.find(role);
  return it == roles_.end() ? kNone : it->second.allocation;
}

}  // namespace mesos::allocator
