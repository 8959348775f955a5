#include "common/programs.hpp"

#include <limits.h>
#include <unistd.h>

#include <gflags/gflags.h>

namespace mesos::frameworks {

std::string programDirectory() {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return ".";
  std::string path(buffer, static_cast<size_t>(n));
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string frameworkProgram(const std::string& name) {
  std::string dir = programDirectory();
  std::string beside = dir + "/" + name;
  if (::access(beside.c_str(), X_OK) == 0) return beside;
  std::string installed = dir + "/../libexec/mesos/" + name;
  if (::access(installed.c_str(), X_OK) == 0) return installed;
  return beside;
}

void parseCommandLine(int* argc, char*** argv) {
  gflags::SetCommandLineOptionWithMode("minloglevel", "1", gflags::SET_FLAGS_DEFAULT);
  gflags::ParseCommandLineFlags(argc, argv, true);
}

}  // namespace mesos::frameworks
