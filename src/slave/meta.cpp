#include "slave/meta.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "slave/checkpoint.hpp"

namespace mesos::internal::slave::meta {

std::string bootIdPath(const std::string& workDir) { return workDir + "/meta/boot_id"; }

std::string latestSlavePath(const std::string& workDir) {
  return workDir + "/meta/slaves/latest";
}

std::string slavePath(const std::string& workDir, const std::string& slaveId) {
  return workDir + "/meta/slaves/" + slaveId;
}

std::string slaveInfoPath(const std::string& workDir, const std::string& slaveId) {
  return slavePath(workDir, slaveId) + "/slave.info";
}

std::string drainConfigPath(const std::string& workDir, const std::string& slaveId) {
  return slavePath(workDir, slaveId) + "/drain.config";
}

std::string frameworkPath(const std::string& workDir, const std::string& slaveId,
                          const std::string& frameworkId) {
  return slavePath(workDir, slaveId) + "/frameworks/" + frameworkId;
}

std::string frameworkInfoPath(const std::string& workDir, const std::string& slaveId,
                              const std::string& frameworkId) {
  return frameworkPath(workDir, slaveId, frameworkId) + "/framework.info";
}

std::string frameworkPidPath(const std::string& workDir, const std::string& slaveId,
                             const std::string& frameworkId) {
  return frameworkPath(workDir, slaveId, frameworkId) + "/framework.pid";
}

std::string executorPath(const std::string& workDir, const std::string& slaveId,
                         const std::string& frameworkId, const std::string& executorId) {
  return frameworkPath(workDir, slaveId, frameworkId) + "/executors/" + executorId;
}

std::string executorInfoPath(const std::string& workDir, const std::string& slaveId,
                             const std::string& frameworkId, const std::string& executorId) {
  return executorPath(workDir, slaveId, frameworkId, executorId) + "/executor.info";
}

std::string runPath(const std::string& workDir, const std::string& slaveId,
                    const std::string& frameworkId, const std::string& executorId,
                    const std::string& containerId) {
  return executorPath(workDir, slaveId, frameworkId, executorId) + "/runs/" + containerId;
}

std::string containerPidPath(const std::string& workDir, const std::string& slaveId,
                             const std::string& containerId) {
  return slavePath(workDir, slaveId) + "/containers/" + containerId;
}

std::string forkedPidPath(const std::string& runPath) { return runPath + "/pids/forked.pid"; }

std::string libprocessPidPath(const std::string& runPath) {
  return runPath + "/pids/libprocess.pid";
}

std::string completedPath(const std::string& runPath) { return runPath + "/completed"; }
std::string shutDownPath(const std::string& runPath) { return runPath + "/framework.shut_down"; }

std::string taskInfoPath(const std::string& runPath, const std::string& taskId) {
  return runPath + "/tasks/" + taskId + "/task.info";
}

std::string taskUpdatesPath(const std::string& runPath, const std::string& taskId) {
  return runPath + "/tasks/" + taskId + "/task.updates";
}

std::string currentBootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

std::string formatForkedPid(pid_t pid, uint64_t startTicks) {
  return std::to_string(pid) + " " + std::to_string(startTicks) + "\n";
}

Result<std::pair<pid_t, uint64_t>> parseForkedPid(const std::string& text) {
  std::istringstream in(text);
  long long pid = 0;
  unsigned long long ticks = 0;
  std::string rest;
  if (!(in >> pid >> ticks) || pid <= 0 || (in >> rest)) {
    return Error{"'" + text.substr(0, 40) + "' is not \"<pid> <start ticks>\""};
  }
  return std::pair<pid_t, uint64_t>{static_cast<pid_t>(pid), ticks};
}

namespace {

// The names in directory `dir` (ENOENT: none).
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  return names;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Reading with --strict or without: the first failure is kept (strict) or
// each is noted and skipped.
class Reader {
 public:
  Reader(bool strict, std::vector<std::string>* skipped) : strict_(strict), skipped_(skipped) {}

  // Whether reading goes on after `error` about a file, which is dropped.
  bool skip(const Error& error) {
    if (strict_) {
      if (!failure_) failure_ = error;
      return false;
    }
    skipped_->push_back(error.message + " (left out)");
    return true;
  }
  // Something left out that is no failure, in either mode.
  void note(const std::string& line) { skipped_->push_back(line); }
  bool failed() const { return failure_.has_value(); }
  const Error& failure() const { return *failure_; }

 private:
  bool strict_;
  std::vector<std::string>* skipped_;
  std::optional<Error> failure_;
};

void readTask(Reader& reader, const std::string& runDir, const std::string& taskId,
              RunState& run) {
  TaskCheckpoint task;
  task.id.set_value(taskId);
  Task info;
  if (auto read = checkpoint::read(taskInfoPath(runDir, taskId), &info); !read) {
    if (read.error().code == ENOENT) {
      // The slave stopped, or the disk was full, between making the task's
      // directory and writing its info (as Apache Mesos, in either mode).
      reader.note(taskInfoPath(runDir, taskId) + " is missing: task " + taskId + " (left out)");
      return;
    }
    reader.skip(read.error());
    return;
  }
  task.info = std::move(info);
  task.updatesPath = taskUpdatesPath(runDir, taskId);
  if (exists(task.updatesPath)) {
    auto records = StatusUpdateManager::read(task.updatesPath);
    if (!records) {
      reader.skip(records.error());
      return;
    }
    if (records->torn) {
      // A crash in the middle of an append: not corruption, in any mode.
      reader.note(task.updatesPath + ": a partly written last record after byte " +
                  std::to_string(records->validBytes) + " (left out)");
    }
    task.updates = std::move(records).value();
  }
  run.tasks.emplace(taskId, std::move(task));
}

void readRun(Reader& reader, const std::string& runDir, const std::string& containerId,
             ExecutorState& executor) {
  RunState run;
  run.id.set_value(containerId);
  run.path = runDir;
  run.completed = exists(completedPath(runDir));
  run.shutDown = exists(shutDownPath(runDir));
  if (!run.completed) {
    auto forked = checkpoint::read(forkedPidPath(runDir));
    if (forked) {
      auto parsed = parseForkedPid(*forked);
      if (!parsed) {
        if (!reader.skip(Error{forkedPidPath(runDir) + ": " + parsed.error().message})) return;
      } else {
        run.forkedPid = parsed->first;
        run.startTicks = parsed->second;
      }
    } else if (forked.error().code != ENOENT) {
      // Missing: the slave died between the launch and the write.
      if (!reader.skip(forked.error())) return;
    }
    auto libprocess = checkpoint::read(libprocessPidPath(runDir));
    if (libprocess) {
      std::string text = *libprocess;
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
      auto pid = process::UPID::parse(text);
      if (!pid) {
        if (!reader.skip(Error{libprocessPidPath(runDir) + ": " + pid.error().message})) return;
      } else {
        run.libprocessPid = *pid;
      }
    } else if (libprocess.error().code != ENOENT) {
      // Missing: the executor had not registered yet.
      if (!reader.skip(libprocess.error())) return;
    }
  }
  for (const std::string& taskId : entries(runDir + "/tasks")) {
    readTask(reader, runDir, taskId, run);
    if (reader.failed()) return;
  }
  executor.runs.emplace(containerId, std::move(run));
}

// The runs found anywhere below `dir` (a framework's or an executor's
// directory whose info was left out), with their pids when they read.
void collectOrphans(const std::string& dir, std::vector<RunState>* orphans) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() != "forked.pid") continue;
    std::string runDir = it->path().parent_path().parent_path().string();
    if (exists(completedPath(runDir))) continue;
    auto text = checkpoint::read(it->path().string());
    if (!text) continue;
    auto parsed = parseForkedPid(*text);
    if (!parsed) continue;
    RunState run;
    run.id.set_value(std::filesystem::path(runDir).filename().string());
    run.path = runDir;
    run.forkedPid = parsed->first;
    run.startTicks = parsed->second;
    orphans->push_back(std::move(run));
  }
}

void readExecutor(Reader& reader, const std::string& workDir, const std::string& slaveId,
                  const std::string& frameworkId, const std::string& executorId,
                  FrameworkState& framework, SlaveState& slave) {
  ExecutorState executor;
  executor.id.set_value(executorId);
  ExecutorInfo info;
  const std::string infoPath = executorInfoPath(workDir, slaveId, frameworkId, executorId);
  if (auto read = checkpoint::read(infoPath, &info); !read) {
    if (read.error().code == ENOENT &&
        !exists(executorPath(workDir, slaveId, frameworkId, executorId) + "/runs")) {
      // The slave stopped between making the executor's directory and
      // renaming its info into it, before any run of it: nothing of it ran
      // (as Apache Mesos, in either mode). With runs below, the info went
      // missing later: damage.
      reader.note(infoPath + " is missing: executor " + executorId + " (left out)");
    } else if (reader.skip(read.error())) {
      collectOrphans(executorPath(workDir, slaveId, frameworkId, executorId), &slave.orphans);
    }
    return;
  }
  executor.info = std::move(info);
  const std::string runs = executorPath(workDir, slaveId, frameworkId, executorId) + "/runs";
  for (const std::string& containerId : entries(runs)) {
    readRun(reader, runs + "/" + containerId, containerId, executor);
    if (reader.failed()) return;
  }
  framework.executors.emplace(executorId, std::move(executor));
}

void readFramework(Reader& reader, const std::string& workDir, const std::string& slaveId,
                   const std::string& frameworkId, SlaveState& slave) {
  FrameworkState framework;
  framework.id.set_value(frameworkId);
  FrameworkInfo info;
  const std::string infoPath = frameworkInfoPath(workDir, slaveId, frameworkId);
  if (auto read = checkpoint::read(infoPath, &info); !read) {
    if (read.error().code == ENOENT &&
        !exists(frameworkPath(workDir, slaveId, frameworkId) + "/executors")) {
      // As for an executor: stopped before its info was in place.
      reader.note(infoPath + " is missing: framework " + frameworkId + " (left out)");
    } else if (reader.skip(read.error())) {
      collectOrphans(frameworkPath(workDir, slaveId, frameworkId), &slave.orphans);
    }
    return;
  }
  framework.info = std::move(info);
  auto pid = checkpoint::read(frameworkPidPath(workDir, slaveId, frameworkId));
  if (pid && !pid->empty()) {
    auto parsed = process::UPID::parse(*pid);
    if (parsed) {
      framework.pid = *parsed;
    } else if (!reader.skip(Error{frameworkPidPath(workDir, slaveId, frameworkId) + ": " +
                                  parsed.error().message})) {
      return;
    }
  }
  const std::string executors = frameworkPath(workDir, slaveId, frameworkId) + "/executors";
  for (const std::string& executorId : entries(executors)) {
    readExecutor(reader, workDir, slaveId, frameworkId, executorId, framework, slave);
    if (reader.failed()) return;
  }
  slave.frameworks.emplace(frameworkId, std::move(framework));
}

}  // namespace

Result<std::optional<SlaveState>> recover(const std::string& workDir, bool strict) {
  auto latest = checkpoint::read(latestSlavePath(workDir));
  if (!latest) {
    if (latest.error().code == ENOENT) return std::optional<SlaveState>();
    return latest.error();  // the slave's own id: no recovery without it
  }
  std::string slaveId = *latest;
  while (!slaveId.empty() && (slaveId.back() == '\n' || slaveId.back() == ' ')) slaveId.pop_back();
  if (slaveId.empty() || slaveId.find('/') != std::string::npos || slaveId == "." ||
      slaveId == "..") {
    return Error{latestSlavePath(workDir) + ": '" + slaveId.substr(0, 80) +
                 "' is not a slave id"};
  }

  SlaveState state;
  state.id.set_value(slaveId);
  if (auto read = checkpoint::read(slaveInfoPath(workDir, slaveId), &state.info); !read) {
    return read.error();
  }
  auto bootId = checkpoint::read(bootIdPath(workDir));
  std::string current = currentBootId();
  if (bootId) {
    std::string recorded = *bootId;
    while (!recorded.empty() && recorded.back() == '\n') recorded.pop_back();
    state.rebooted = !current.empty() && recorded != current;
  }

  // Executors of frameworks that do not checkpoint: killed, never kept. A
  // record that does not read names nothing to kill.
  const std::string containers = slavePath(workDir, slaveId) + "/containers";
  for (const std::string& containerId : entries(containers)) {
    auto text = checkpoint::read(containers + "/" + containerId);
    auto parsed = text ? parseForkedPid(*text) : Result<std::pair<pid_t, uint64_t>>(text.error());
    if (!parsed) {
      state.skipped.push_back(containers + "/" + containerId + ": " + parsed.error().message +
                              " (left out)");
      continue;
    }
    RunState run;
    run.id.set_value(containerId);
    run.path = containers + "/" + containerId;
    run.forkedPid = parsed->first;
    run.startTicks = parsed->second;
    state.orphans.push_back(std::move(run));
  }

  Reader reader(strict, &state.skipped);
  for (const std::string& frameworkId : entries(slavePath(workDir, slaveId) + "/frameworks")) {
    readFramework(reader, workDir, slaveId, frameworkId, state);
    if (reader.failed()) return reader.failure();
  }
  return std::optional<SlaveState>(std::move(state));
}

}  // namespace mesos::internal::slave::meta
