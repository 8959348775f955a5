// What this machine offers: its resources (from --resources, the rest
// detected: cpus from the core count, mem from /proc/meminfo, disk from the
// work directory's file system, ports 31000-32000) and its attributes.
#pragma once

#include <optional>
#include <string>

#include <google/protobuf/repeated_field.h>

#include "mesos/resources.hpp"
#include "mesos/result.hpp"
#include "mesos.pb.h"

namespace mesos::internal::slave {

// What the machine measured, separated from reading /proc so that the
// arithmetic can be tested.
struct MachineFacts {
  double cpus = 1;
  double memMB = 0;   // total physical memory
  double diskMB = 0;  // total size of the work directory's file system
};

// Reads the core count, /proc/meminfo and statvfs(workDir). Blocks on the
// file system briefly: call at start-up.
MachineFacts measureMachine(const std::string& workDir);

// The slave's total resources: those `flag` names, plus cpus, mem, disk and
// ports for any of those it leaves out (memory and disk less a reserve for
// the system, as Apache Mesos does). Resources `flag` gives without a role
// ("cpus:2", not "cpus(prod):2") and the detected ones are reserved for
// `defaultRole` (--default_role; "*" is unreserved). A resource named in
// `flag` under any role is not detected. Fails with the parse error of
// `flag`, or a message naming the flag of an invalid role.
Result<Resources> slaveResources(const std::optional<std::string>& flag, const MachineFacts& facts,
                                 const std::string& defaultRole = "*");

// Parses --attributes: "name:value;name:value" where a value is a scalar
// ("2.5"), ranges ("[1-5,8-9]"), a set ("{a,b}") or text ("rack-1").
Result<google::protobuf::RepeatedPtrField<Attribute>> parseAttributes(const std::string& text);

}  // namespace mesos::internal::slave
