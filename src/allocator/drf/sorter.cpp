#include "allocator/drf/sorter.hpp"

#include <algorithm>

#include <glog/logging.h>

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

double DrfSorter::dominant(const std::vector<double>& allocation) const {
  double share = 0.0;
  size_t n = std::min(allocation.size(), total_.size());
  for (size_t i = 0; i < n; i++) {
    if (total_[i] > 0.0) share = std::max(share, allocation[i] / total_[i]);
  }
  return share;
}

DrfSorter::RoleKey DrfSorter::key(const std::string& name, const Role& role) const {
  return {priorities_ ? -role.priority : 0, role.share, role.last, name};
}

void DrfSorter::addRole(const std::string& name, double weight, int64_t priority) {
  CHECK_GT(weight, 0.0);
  if (roles_.count(name)) return;
  Role& role = roles_[name];
  role.weight = weight;
  role.priority = priority;
  roleOrder_.insert(key(name, role));
}

void DrfSorter::addClient(Client client, const std::string& role) {
  CHECK(roles_.count(role)) << "role " << role << " not added";
  auto [it, inserted] = clients_.emplace(client, Entry{role, {}, 0.0});
  if (!inserted) return;
  roles_[role].order.insert({0.0, 0, client});
}

void DrfSorter::removeClient(Client client) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  // Its allocation leaves the role's.
  Role& role = roles_[it->second.role];
  role.order.erase({it->second.share, it->second.last, client});
  if (!stale_) roleOrder_.erase(key(it->second.role, role));
  for (size_t i = 0; i < it->second.allocation.size() && i < role.allocation.size(); i++) {
    role.allocation[i] = std::max(0.0, role.allocation[i] - it->second.allocation[i]);
  }
  if (!stale_) {
    role.share = dominant(role.allocation) / role.weight;
    roleOrder_.insert(key(it->second.role, role));
  }
  clients_.erase(it);
}

void DrfSorter::update(Client client, const Resources& resources, double sign) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  Entry& entry = it->second;
  Role& role = roles_[entry.role];
  names_.add(entry.allocation, resources, sign);
  names_.add(role.allocation, resources, sign);
  if (stale_) {
    if (sign > 0) entry.last = role.last = ++allocations_;
    return;
  }
  role.order.erase({entry.share, entry.last, client});
  roleOrder_.erase(key(entry.role, role));
  if (sign > 0) entry.last = role.last = ++allocations_;
  entry.share = dominant(entry.allocation);
  role.order.insert({entry.share, entry.last, client});
  role.share = dominant(role.allocation) / role.weight;
  roleOrder_.insert(key(entry.role, role));
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
    role.share = dominant(role.allocation) / role.weight;
  }
  for (auto& [client, entry] : clients_) {
    entry.share = dominant(entry.allocation);
    roles_[entry.role].order.insert({entry.share, entry.last, client});
  }
  roleOrder_.clear();
  for (auto& [name, role] : roles_) roleOrder_.insert(key(name, role));
  stale_ = false;
}

std::vector<std::string> DrfSorter::rolesForRevocation() {
  refresh();
  std::vector<std::string> roles;
  // The reverse of the offer order: lowest priority, then highest share.
  for (auto it = roleOrder_.rbegin(); it != roleOrder_.rend(); ++it) {
    roles.push_back(std::get<3>(*it));
  }
  return roles;
}

std::vector<DrfSorter::Client> DrfSorter::clientsForRevocation(const std::string& role) {
  refresh();
  std::vector<Client> clients;
  auto it = roles_.find(role);
  if (it == roles_.end()) return clients;
  for (auto c = it->second.order.rbegin(); c != it->second.order.rend(); ++c) {
    clients.push_back(std::get<2>(*c));
  }
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

const std::vector<double>& DrfSorter::roleAllocation(const std::string& role) {
  static const std::vector<double> kNone;
  auto it = roles_.find(role);
  return it == roles_.end() ? kNone : it->second.allocation;
}

}  // namespace mesos::allocator
