// Role names as Apache Mesos 1.x accepts them: "*", or a path of components
// separated by single slashes ("eng/backend"), none of them ".", "..", "*",
// starting with a dash, or holding whitespace or DEL. The error quotes the
// role and says what is wrong, in Apache's words.
#pragma once

#include <string>
#include <vector>

#include "mesos.pb.h"
#include "mesos/result.hpp"

namespace mesos::roles {

Result<void> validate(const std::string& role);

// Whether the framework has the MULTI_ROLE capability.
bool multiRole(const FrameworkInfo& info);
// The roles a framework is offered resources for and may use:
// FrameworkInfo.roles with MULTI_ROLE (none: no role at all), its `role`
// ("*" when unset) otherwise.
std::vector<std::string> ofFramework(const FrameworkInfo& info);

}  // namespace mesos::roles
