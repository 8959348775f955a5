// The credentials HTTP clients authenticate with (--http_credentials), in
// Apache Mesos's formats, read as the master's --credentials are
// (authentication/credentials.hpp).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "mesos/result.hpp"

namespace mesos::internal::authentication {

using Secrets = std::map<std::string, std::string>;  // principal -> secret

// The flag's value: a path or file:// URL of a file in either format, or
// the JSON itself. Errors start with "--<flagName>: ".
Result<Secrets> loadCredentials(const std::string& flag, const std::string& flagName);

}  // namespace mesos::internal::authentication
