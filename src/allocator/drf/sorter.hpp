// Dominant Resource Fairness (Ghodsi et al., NSDI 2011): a client's share is
// the largest fraction it holds of any one scalar resource of the pool,
// divided by its weight; the client with the lowest share goes first (ties by
// name). Shares are kept in an ordered set and updated as allocations
// change; a change of the pool marks them all stale, to be recomputed once at
// the next pick().
#pragma once

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "allocator/sorter.hpp"

namespace mesos::allocator {

class DrfSorter : public Sorter {
 public:
  void add(const std::string& client, double weight) override;
  void remove(const std::string& client) override;
  void allocated(const std::string& client, const Resources& resources) override;
  void unallocated(const std::string& client, const Resources& resources) override;
  void addTotal(const Resources& resources) override;
  void removeTotal(const Resources& resources) override;
  std::optional<std::string> pick(const std::function<bool(const std::string&)>& eligible) override;
  double share(const std::string& client) override;

 private:
  struct Client {
    double weight = 1.0;
    std::map<std::string, double> scalars;  // allocated, by resource name
    double share = 0.0;
  };

  double compute(const Client& client) const;
  void reposition(const std::string& name, Client& client);
  void refresh();

  std::unordered_map<std::string, Client> clients_;
  std::set<std::pair<double, std::string>> order_;
  std::map<std::string, double> total_;  // pool scalars by name
  bool stale_ = false;
};

}  // namespace mesos::allocator
