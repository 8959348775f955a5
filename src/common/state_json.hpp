// How the master's and the slave's /state render resources, attributes and
// tasks (Apache Mesos's shapes, which dashboards and clients read).
#pragma once

#include <google/protobuf/repeated_field.h>

#include "common/flags.hpp"
#include "common/json.hpp"
#include "mesos/resources.hpp"
#include "messages.pb.h"

namespace mesos::json {

// {"cpus": 4.0, "gpus": 0.0, "mem": 2048.0, "disk": 0.0, "ports":
// "[31000-32000]"}: summed over roles; scalars as numbers (cpus, gpus, mem and
// disk always present), ranges and sets as text.
Value fromResources(const Resources& resources);
// The reserved part by role, each rendered as fromResources() does:
// {"prod": {"cpus": 1.0, ...}}; {} when nothing is reserved.
Value reservedResources(const Resources& resources);
// The unreserved part (role "*"), rendered as fromResources() does.
Value unreservedResources(const Resources& resources);
// {"version", "build_date", "build_time", "build_user"} and, when known,
// "git_sha", "git_branch", "git_tag": what /version answers.
Object versionInfo();
// Every flag's value as text, unset optional flags left out: /flags's "flags".
Object fromFlags(const flags::FlagSet& flags);
// {"rack": "a", "rating": 3.0, "ports": "[1-5]", "zones": "{a, b}"}
Value fromAttributes(const google::protobuf::RepeatedPtrField<Attribute>& attributes);
// id, name, framework_id, executor_id, slave_id, state, resources, statuses.
Value fromTask(const internal::Task& task);

// "[31000-32000, 40000-40010]"
std::string formatRanges(const mesos::Value::Ranges& ranges);

}  // namespace mesos::json
