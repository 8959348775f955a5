// A framework program's own matters: finding the programs it starts (its
// executors, helpers) beside it in a build tree, or in <prefix>/libexec/mesos
// when it runs from <prefix>/bin of an installed prefix; and its command line.
#pragma once

#include <string>

namespace mesos::frameworks {

// The directory of the running program.
std::string programDirectory();

// The absolute path of `name`: <programDirectory()>/<name> when it exists
// there, else <programDirectory()>/../libexec/mesos/<name> when that exists,
// else the first (so that an error names a real place).
std::string frameworkProgram(const std::string& name);

// Parses the command line with gflags (ParseCommandLineFlags, removing the
// flags it knows). The SDK logs through glog, whose flags share the command
// line: its INFO lines stay off the program's output unless the user asks
// for them with --minloglevel=0.
void parseCommandLine(int* argc, char*** argv);

}  // namespace mesos::frameworks
