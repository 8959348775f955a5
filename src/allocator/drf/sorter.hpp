// DrfSorter: the order in which the hierarchical allocator offers resources
// (Ghodsi et al., "Dominant Resource Fairness", NSDI 2011), on two levels:
// roles first, by weighted dominant share (the largest fraction the role's
// frameworks hold of any one scalar resource of the cluster, divided by the
// role's weight), then the frameworks of a role by their own dominant share.
// Lowest share first; ties go to the one offered least recently (then by
// role name, or the order clients were added), so that equal shares take
// turns. Ordered by priority (orderByPriority(), the strict priority
// policy), a role of higher priority comes before every role of lower
// priority, whatever the shares. Dominant shares are drf/shares.hpp's.
//
// Shares are kept in ordered sets and updated as allocations change, in
// O(log n); a change of the cluster's total marks them all stale, to be
// recomputed once, at the next question.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mesos/resources.hpp"

namespace mesos::allocator {

// Scalar resources as a vector indexed by resource name (interned: cpus,
// mem, disk... get indices in the order first seen).
class ScalarNames {
 public:
  uint32_t index(const std::string& name);
  size_t size() const { return names_.size(); }
  const std::string& name(uint32_t index) const { return names_[index]; }
  // Adds `sign` x the scalars of `resources` into `into` (growing it).
  void add(std::vector<double>& into, const Resources& resources, double sign);

 private:
  std::vector<std::string> names_;
};

class DrfSorter {
 public:
  using Client = uint64_t;  // the allocator's framework number

  DrfSorter() = default;

  // From now on roles of higher priority come first (then the shares, as
  // without); the order is rebuilt at the next question.
  void orderByPriority();

  // Roles must be added before their clients; adding one again updates
  // nothing.
  void addRole(const std::string& role, double weight, int64_t priority);
  // Replaces a known role's weight (> 0) at once: its share, and so its
  // place in the order, follow. Unknown roles are ignored.
  void setWeight(const std::string& role, double weight);
  void addClient(Client client, const std::string& role);
  void removeClient(Client client);
  // Clients that want no offers (inactive, suppressed) keep their
  // allocation and share but are skipped by pick() at no cost.
  void setWanting(Client client, bool wanting);

  void allocated(Client client, const Resources& resources);
  void unallocated(Client client, const Resources& resources);
  void addTotal(const Resources& resources);
  void removeTotal(const Resources& resources);

  // The first client in order for which `eligible(client)` is true, among
  // the roles for which `roleEligible(name)` is true (a role it rules out
  // costs one call, whatever its number of clients).
  template <typename R, typename F>
  std::optional<Client> pick(R&& roleEligible, F&& eligible) {
    refresh();
    for (const RoleKey& key : roleOrder_) {
      if (key.role->order.empty() || !roleEligible(key.role->name)) continue;
      for (const ClientKey& client : key.role->order) {
        if (eligible(std::get<2>(client))) return std::get<2>(client);
      }
    }
    return std::nullopt;
  }

  // Roles from the one that should give up resources first (lowest
  // priority, then highest share) to the last, and a role's clients from
  // the highest share down.
  std::vector<std::string> rolesForRevocation();
  std::vector<Client> clientsForRevocation(const std::string& role);

  // The client's dominant share, and the role's weighted share.
  double share(Client client);
  double roleShare(const std::string& role);
  // What a role's clients hold, by scalar index (see names()).
  const std::vector<double>& roleAllocation(const std::string& role);
  const std::vector<double>& total() const { return total_; }
  ScalarNames& names() { return names_; }

  // The roles that have clients, each with its number of clients and those
  // of its clients that want offers, by number (the lottery's tickets,
  // dealt once per cycle). Roles in the order of an unordered map of them:
  // the same for the same roles added in the same order, so that a seeded
  // lottery draws the same.
  struct RoleClients {
    const std::string* name;
    size_t clients;
    std::vector<Client> wanting;
  };
  std::vector<RoleClients> roster() const;

 private:
  struct Role;
  // -priority, share, last allocation, role (ties by name)
  struct RoleKey {
    int64_t priority;
    double share;
    uint64_t last;
    Role* role;
    bool operator<(const RoleKey& that) const;
  };
  using ClientKey = std::tuple<double, uint64_t, Client>;  // share, last allocation, client
  struct Role {
    std::string name;
    double weight = 1.0;
    int64_t priority = 0;
    std::vector<double> allocation;
    double share = 0.0;
    uint64_t last = 0;  // allocation counter at its latest allocation
    std::set<ClientKey> order;  // its wanting clients
    size_t clients = 0;
  };
  struct Entry {
    Role* role;
    std::vector<double> allocation;
    double share = 0.0;
    uint64_t last = 0;
    bool wanting = true;
  };

  RoleKey key(Role& role) const;
  void update(Client client, const Resources& resources, double sign);
  void refresh();

  bool priorities_ = false;
  ScalarNames names_;
  std::vector<double> total_;
  std::unordered_map<Client, Entry> clients_;
  std::unordered_map<std::string, Role> roles_;  // nodes: Role* stay valid
  std::set<RoleKey> roleOrder_;
  bool stale_ = false;
  uint64_t allocations_ = 0;  // counts allocated() calls: "how recent"
};

}  // namespace mesos::allocator
