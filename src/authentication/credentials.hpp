// Credentials files, in Apache Mesos's formats.
//
// The master's --credentials holds every principal and its secret, as JSON
//   {"credentials": [{"principal": "alice", "secret": "s3cret"}, ...]}
// or as text, one "principal secret" per line (blank lines and lines
// starting with '#' are skipped). A slave's --credential holds its own, as
// JSON {"principal": "...", "secret": "..."} or one "principal secret" line.
// Flags name the file by its path or a file:// URL.
#pragma once

#include <string>
#include <string_view>

#include "mesos.pb.h"
#include "mesos/result.hpp"

namespace mesos::internal::authentication {

// Parse the contents of a credentials file. Fail with one line naming the
// problem (and the line, for text) on anything else; a secret never appears
// in an error.
Result<Credentials> parseCredentials(std::string_view text);
Result<Credential> parseCredential(std::string_view text);

// Read and parse the file `location` names (a path or file:// URL). Logs a
// warning when others may read it. Errors name the file.
Result<Credentials> readCredentials(const std::string& location);
Result<Credential> readCredential(const std::string& location);

}  // namespace mesos::internal::authentication
