// Finding the store's nodes from a running cluster: the slaves a master
// knows, with their `rack` attributes.
#pragma once

#include <string>
#include <vector>

#include "dfs/dfs.hpp"

namespace mesos::frameworks::dfs {

// GETs http://<master>/master/state (master "host:port", optionally
// "http://host:port") and returns its slaves' hostnames with their `rack`
// attributes, sorted by host. Fails with a message naming the master when
// it cannot be reached or knows no slave.
Result<std::vector<Node>> nodesFromMaster(const std::string& master);

}  // namespace mesos::frameworks::dfs
