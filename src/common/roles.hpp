// Role names as Apache Mesos 1.x accepts them: "*", or a path of components
// separated by single slashes ("eng/backend"), none of them ".", "..", "*",
// starting with a dash, or holding whitespace or DEL. The error quotes the
// role and says what is wrong, in Apache's words.
#pragma once

#include <string>

#include "mesos/result.hpp"

namespace mesos::roles {

Result<void> validate(const std::string& role);

}  // namespace mesos::roles
