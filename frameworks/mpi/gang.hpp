// Gang arithmetic of mesos-mpirun, free of any driver or process: how many
// ranks some offered resources fit, which resources a node's ranks take,
// and how a gang of N ranks is spread over the nodes it holds offers for.
#pragma once

#include <string>
#include <vector>

#include "mesos/resources.hpp"

namespace mesos::frameworks::mpi {

// What one rank needs and the role it runs in.
struct RankShape {
  double cpus = 1.0;
  double mem = 128.0;  // MB
  std::string role = "*";
};

// The number of whole ranks `offered` fits, counting only resources of
// `shape.role` and unreserved ones ("*"); 0 when not even one.
int ranksThatFit(const Resources& offered, const RankShape& shape);

// The resources `ranks` ranks take out of `offered`: cpus and mem, taken
// from the role's reservation first, then from unreserved resources.
// REQUIRES: ranks <= ranksThatFit(offered, shape).
Resources resourcesFor(const Resources& offered, const RankShape& shape, int ranks);

// A node the scheduler holds offers for, and how many ranks they fit.
struct NodeCapacity {
  std::string slaveId;
  std::string hostname;
  int ranks = 0;
};

// One node of a gang: its ranks are [firstRank, firstRank + ranks).
struct NodeShare {
  std::string slaveId;
  std::string hostname;
  std::string hydraHost;  // the name mpiexec -hosts knows it by (unique)
  int firstRank = 0;
  int ranks = 0;
};

// Spreads `ranks` ranks over as few of `nodes` as possible (the largest
// capacities first, ties by hostname), each node filled before the next, in
// the order Hydra numbers its proxies. Empty when the nodes together fit
// fewer than `ranks`. Two nodes with one hostname (slaves of mesos-local)
// get distinct Hydra names ("host", "host#2"), because Hydra merges
// repeated names into one proxy.
std::vector<NodeShare> placeGang(std::vector<NodeCapacity> nodes, int ranks);

// mpiexec's -hosts value for a placement: "h1:k1,h2:k2".
std::string hydraHostList(const std::vector<NodeShare>& shares);

}  // namespace mesos::frameworks::mpi
