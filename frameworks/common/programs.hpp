// Finding the programs a framework starts (its executors, helpers): beside
// the running program in a build tree, or in <prefix>/libexec/mesos when it
// runs from <prefix>/bin of an installed prefix.
#pragma once

#include <string>

namespace mesos::frameworks {

// The directory of the running program.
std::string programDirectory();

// The absolute path of `name`: <programDirectory()>/<name> when it exists
// there, else <programDirectory()>/../libexec/mesos/<name> when that exists,
// else the first (so that an error names a real place).
std::string frameworkProgram(const std::string& name);

}  // namespace mesos::frameworks
