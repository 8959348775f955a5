// Flags whose value is JSON, given inline or in a file, as Apache Mesos
// takes them (--acls, --image_gc_config, --executor_environment_variables,
// mesos-execute's --task and --env...).
#pragma once

#include <string>

#include "mesos/result.hpp"

namespace mesos::internal {

// The JSON text of flag `flag` (its name, for the error): `value` itself,
// or the contents of the file it names as file:///PATH or /PATH (a JSON
// document never starts with '/'). Fails with one line naming the flag and
// the file that cannot be read.
Result<std::string> jsonFlagText(const std::string& flag, const std::string& value);

}  // namespace mesos::internal
