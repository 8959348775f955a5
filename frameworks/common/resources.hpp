// Building the resources a framework asks for.
#pragma once

#include <string>

#include "mesos/scheduler.hpp"

namespace mesos::frameworks {

// The scalar resource `name` (cpus, mem, disk...) of `value`, in `role`
// ("*" for unreserved).
Resource scalarResource(const std::string& name, double value, const std::string& role = "*");

}  // namespace mesos::frameworks
