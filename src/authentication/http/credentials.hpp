// The credentials HTTP clients authenticate with (--http_credentials), in
// Apache Mesos's formats: its JSON,
//   {"credentials": [{"principal": "ops", "secret": "s3cret"}, ...]}
// or plain text, one "principal secret" a line (blank lines and lines
// starting with '#' skipped).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "mesos/result.hpp"

namespace mesos::internal::authentication {

using Secrets = std::map<std::string, std::string>;  // principal -> secret

// Parses either format. Errors name the line (plain text) or the entry
// (JSON) that is wrong.
Result<Secrets> parseCredentials(std::string_view text);

// The flag's value: a path or file:// URL of a file in either format, or
// the JSON itself. Errors start with "--<flagName>: ".
Result<Secrets> loadCredentials(const std::string& flag, const std::string& flagName);

}  // namespace mesos::internal::authentication
