#include "exec/task_cgroup.hpp"

#include <sys/stat.h>

#include "common/ids.hpp"

namespace mesos::internal {

std::optional<TaskCgroupsConfig> taskCgroupsConfig(
    const std::map<std::string, std::string>& environment) {
  auto hierarchy = environment.find(cgroups::kHierarchyVariable);
  if (hierarchy == environment.end() || hierarchy->second.empty()) return std::nullopt;
  TaskCgroupsConfig config{hierarchy->second, {}};
  if (auto controllers = environment.find(cgroups::kControllersVariable);
      controllers != environment.end()) {
    const std::string& list = controllers->second;
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(',', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) config.controllers.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  return config;
}

std::vector<std::string> joinFilesOf(const cgroups::Cgroup& cgroup) {
  std::vector<std::string> files;
  for (const std::string& dir : cgroup.dirs()) files.push_back(dir + "/cgroup.procs");
  return files;
}

Result<cgroups::Cgroup> makeTaskCgroup(const TaskCgroupsConfig& config, const std::string& taskId) {
  if (auto valid = validateId("task id", taskId); !valid) return valid.error();
  auto layout = cgroups::Layout::detect(config.hierarchy);
  if (!layout) return layout.error();
  // No base: below this process's own cgroup, the container's.
  auto parent = layout->cgroup(kTaskCgroupsParent, config.controllers);
  if (!parent) return parent.error();
  if (auto made = cgroups::create(*parent); !made) return made.error();
  auto cgroup = layout->cgroup(std::string(kTaskCgroupsParent) + "/" + taskId, config.controllers);
  if (!cgroup) return cgroup.error();
  // The parent's control files are there already ("tasks", "cgroup.procs",
  // "memory.limit_in_bytes"...): an id with such a name cannot be a cgroup.
  for (const std::string& dir : cgroup->dirs()) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      return Error{"task id '" + taskId + "' is the name of a cgroup control file (" + dir + ")"};
    }
  }
  if (auto made = cgroups::create(*cgroup); !made) return made.error();
  return cgroup;
}

}  // namespace mesos::internal
