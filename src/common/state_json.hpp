// How the master's and the slave's /state render resources, attributes and
// tasks (Apache Mesos's shapes, which dashboards and clients read).
#pragma once

#include <google/protobuf/repeated_field.h>

#include "common/json.hpp"
#include "mesos/resources.hpp"
#include "messages.pb.h"

namespace mesos::json {

// {"cpus": 4.0, "mem": 2048.0, "disk": 0.0, "ports": "[31000-32000]"}: scalars
// as numbers (cpus, mem and disk always present), ranges and sets as text.
Value fromResources(const Resources& resources);
// {"rack": "a", "rating": 3.0, "ports": "[1-5]", "zones": "{a, b}"}
Value fromAttributes(const google::protobuf::RepeatedPtrField<Attribute>& attributes);
// id, name, framework_id, executor_id, slave_id, state, resources, statuses.
Value fromTask(const internal::Task& task);

// "[31000-32000, 40000-40010]"
std::string formatRanges(const mesos::Value::Ranges& ranges);

}  // namespace mesos::json
