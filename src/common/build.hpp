// What this build is: its version and when, by whom and from which commit
// it was built. The master's and the slave's /version and /state report it.
#pragma once

#include <optional>
#include <string>

namespace mesos::build {

// The release, as the project declares it in CMake ("1.0.0").
const std::string& version();
// When build.cpp was last compiled, in local time ("2024-05-01 12:34:56"),
// and the same instant in seconds since the epoch.
const std::string& date();
double time();
// Who configured the build ($USER, else the login name); "" when unknown.
const std::string& user();
// The commit, branch and exact tag the build was configured from; none when
// the sources were not a git checkout (or HEAD was detached, for the branch;
// or not tagged, for the tag).
const std::optional<std::string>& gitSha();
const std::optional<std::string>& gitBranch();
const std::optional<std::string>& gitTag();

}  // namespace mesos::build
