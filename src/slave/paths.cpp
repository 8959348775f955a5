#include "slave/paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/ids.hpp"
#include "slave/constants.hpp"

namespace mesos::internal::slave {

namespace {

Result<void> makeDirectories(const std::string& path) {
  std::string partial;
  size_t start = 0;
  while (start < path.size()) {
    size_t slash = path.find('/', start + 1);
    if (slash == std::string::npos) slash = path.size();
    partial = path.substr(0, slash);
    start = slash;
    if (partial.empty() || partial == "/") continue;
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      return Error{"cannot create directory '" + partial + "': " + std::strerror(errno)};
    }
  }
  struct stat s {};
  if (::stat(path.c_str(), &s) != 0 || !S_ISDIR(s.st_mode)) {
    return Error{"'" + path + "' is not a directory"};
  }
  return {};
}

bool isExecutable(const std::string& path) {
  struct stat s {};
  return ::stat(path.c_str(), &s) == 0 && S_ISREG(s.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string executorRunPath(const std::string& workDir, const SlaveID& slaveId,
                            const FrameworkID& frameworkId, const ExecutorID& executorId,
                            const ContainerID& containerId) {
  return workDir + "/slaves/" + slaveId.value() + "/frameworks/" + frameworkId.value() +
         "/executors/" + executorId.value() + "/runs/" + containerId.value();
}

Result<std::string> createSandbox(const std::string& workDir, const SlaveID& slaveId,
                                  const FrameworkID& frameworkId, const ExecutorID& executorId,
                                  const ContainerID& containerId) {
  for (auto [kind, id] : {std::pair{"slave", &slaveId.value()},
                          std::pair{"framework", &frameworkId.value()},
                          std::pair{"executor", &executorId.value()},
                          std::pair{"container", &containerId.value()}}) {
    if (auto ok = validateId(std::string(kind) + " id", *id); !ok) return ok.error();
  }
  std::string path = executorRunPath(workDir, slaveId, frameworkId, executorId, containerId);
  if (auto made = makeDirectories(path); !made) return made.error();

  std::string latest = path.substr(0, path.rfind('/')) + "/latest";
  ::unlink(latest.c_str());
  if (::symlink(path.c_str(), latest.c_str()) != 0) {
    // Only a convenience for people browsing the work directory.
  }
  return path;
}

std::string launcherBinaryPath(const std::string& launcherDir, const std::string& name) {
  std::string dir = launcherDir.empty() ? "." : launcherDir;
  for (const std::string& candidate :
       {dir + "/" + name, dir + "/../exec/" + name, dir + "/../src/exec/" + name,
        dir + "/../slave/" + name, dir + "/../src/slave/" + name}) {
    if (isExecutable(candidate)) return candidate;
  }
  return dir + "/" + name;
}

std::string commandExecutorPath(const std::string& launcherDir) {
  return launcherBinaryPath(launcherDir, kCommandExecutor);
}

}  // namespace mesos::internal::slave
