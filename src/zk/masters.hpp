// Masters in ZooKeeper, in Apache Mesos's layout (which independent
// clients such as mesos-go's detector read): every master contending for
// leadership is a member "json.info_<10-digit sequence>" of the group at
// the ZooKeeper URL's path, holding its MasterInfo as JSON with the proto's
// field names; the member with the lowest sequence leads.
#pragma once

#include <string>

#include "mesos.pb.h"
#include "mesos/result.hpp"

namespace mesos::internal::zk {

inline constexpr const char* kMasterLabel = "json.info";

// What a master's member holds.
std::string masterInfoJson(const MasterInfo& info);
// A member's data read back: MasterInfo with at least its id and pid.
Result<MasterInfo> parseMasterInfo(const std::string& json);

}  // namespace mesos::internal::zk
