#include "allocator/drf/sorter.hpp"

#include <algorithm>

#include <glog/logging.h>

namespace mesos::allocator {

namespace {

void addScalars(std::map<std::string, double>& into, const Resources& resources, double sign) {
  for (const Resource& resource : resources) {
    if (resource.type() != Value::SCALAR) continue;
    double& value = into[resource.name()];
    value = std::max(0.0, value + sign * resource.scalar().value());
  }
}

}  // namespace

double DrfSorter::compute(const Client& client) const {
  double dominant = 0.0;
  for (const auto& [name, value] : client.scalars) {
    auto total = total_.find(name);
    if (total == total_.end() || total->second <= 0.0) continue;
    dominant = std::max(dominant, value / total->second);
  }
  return dominant / client.weight;
}

void DrfSorter::reposition(const std::string& name, Client& client) {
  order_.erase({client.share, name});
  client.share = compute(client);
  order_.insert({client.share, name});
}

void DrfSorter::refresh() {
  if (!stale_) return;
  order_.clear();
  for (auto& [name, client] : clients_) {
    client.share = compute(client);
    order_.insert({client.share, name});
  }
  stale_ = false;
}

void DrfSorter::add(const std::string& client, double weight) {
  CHECK_GT(weight, 0.0);
  auto [it, inserted] = clients_.emplace(client, Client{});
  if (!inserted) return;
  it->second.weight = weight;
  order_.insert({0.0, client});
}

void DrfSorter::remove(const std::string& client) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  order_.erase({it->second.share, client});
  clients_.erase(it);
}

void DrfSorter::allocated(const std::string& client, const Resources& resources) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  addScalars(it->second.scalars, resources, +1);
  if (!stale_) reposition(client, it->second);
}

void DrfSorter::unallocated(const std::string& client, const Resources& resources) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  addScalars(it->second.scalars, resources, -1);
  if (!stale_) reposition(client, it->second);
}

void DrfSorter::addTotal(const Resources& resources) {
  addScalars(total_, resources, +1);
  stale_ = true;
}

void DrfSorter::removeTotal(const Resources& resources) {
  addScalars(total_, resources, -1);
  stale_ = true;
}

std::optional<std::string> DrfSorter::pick(
    const std::function<bool(const std::string&)>& eligible) {
  refresh();
  for (const auto& [share, name] : order_) {
    if (eligible(name)) return name;
  }
  return std::nullopt;
}

double DrfSorter::share(const std::string& client) {
  refresh();
  auto it = clients_.find(client);
  return it == clients_.end() ? 0.0 : it->second.share;
}

}  // namespace mesos::allocator
