#include "gang.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/resources.hpp"

namespace mesos::frameworks::mpi {

namespace {

// Scalars are kept to three decimals; a little slack keeps 2.0 / 1.0 from
// counting as 1.999... ranks.
constexpr double kSlack = 1e-6;

Resources usable(const Resources& offered, const std::string& role) {
  Resources result = offered.role("*");
  if (role != "*") result += offered.role(role);
  return result;
}

// `amount` of the scalar `name`: the reservation of `role` first, then "*".
Resources take(const Resources& offered, const std::string& name, double amount,
               const std::string& role) {
  Resources taken;
  double left = amount;
  if (role != "*") {
    double reserved = offered.role(role).scalar(name);
    double fromReserved = std::min(reserved, left);
    if (fromReserved > 0) {
      taken += scalarResource(name, fromReserved, role);
      left -= fromReserved;
    }
  }
  if (left > kSlack) taken += scalarResource(name, left, "*");
  return taken;
}

}  // namespace

int ranksThatFit(const Resources& offered, const RankShape& shape) {
  Resources mine = usable(offered, shape.role);
  double byCpus = std::floor(mine.scalar("cpus") / shape.cpus + kSlack);
  double byMem = std::floor(mine.scalar("mem") / shape.mem + kSlack);
  return static_cast<int>(std::max(0.0, std::min(byCpus, byMem)));
}

Resources resourcesFor(const Resources& offered, const RankShape& shape, int ranks) {
  return take(offered, "cpus", shape.cpus * ranks, shape.role) +
         take(offered, "mem", shape.mem * ranks, shape.role);
}

std::vector<NodeShare> placeGang(std::vector<NodeCapacity> nodes, int ranks) {
  std::sort(nodes.begin(), nodes.end(), [](const NodeCapacity& a, const NodeCapacity& b) {
    if (a.ranks != b.ranks) return a.ranks > b.ranks;
    if (a.hostname != b.hostname) return a.hostname < b.hostname;
    return a.slaveId < b.slaveId;
  });
  std::vector<NodeShare> shares;
  std::map<std::string, int> seen;  // hostname -> nodes of that name so far
  int placed = 0;
  for (const NodeCapacity& node : nodes) {
    if (placed == ranks) break;
    if (node.ranks <= 0) continue;
    NodeShare share;
    share.slaveId = node.slaveId;
    share.hostname = node.hostname;
    int repeat = ++seen[node.hostname];
    share.hydraHost = repeat == 1 ? node.hostname : node.hostname + "#" + std::to_string(repeat);
    share.firstRank = placed;
    share.ranks = std::min(node.ranks, ranks - placed);
    placed += share.ranks;
    shares.push_back(share);
  }
  if (placed < ranks) return {};
  return shares;
}

std::string hydraHostList(const std::vector<NodeShare>& shares) {
  std::string list;
  for (const NodeShare& share : shares) {
    if (!list.empty()) list += ",";
    list += share.hydraHost + ":" + std::to_string(share.ranks);
  }
  return list;
}

}  // namespace mesos::frameworks::mpi
