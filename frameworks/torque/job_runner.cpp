#include "torque/job_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "torque/request.hpp"

extern char** environ;

namespace mesos::frameworks::torque {

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kKillGrace = std::chrono::seconds(3);
constexpr auto kPollInterval = std::chrono::milliseconds(50);

RunOutcome cannotStart(const std::string& comment) { return RunOutcome{-1, comment}; }

bool writeFile(const std::string& path, const std::string& contents) {
  std::ofstream file(path, std::ios::trunc);
  file << contents;
  return static_cast<bool>(file);
}

// The mom's environment without the variables of Mesos and libprocess
// (they describe the mom, not the job), then the job's own and PBS's.
std::vector<std::string> jobEnvironment(const RunRequest& request, const std::string& nodefile) {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; *entry != nullptr; entry++) {
    std::string text(*entry);
    size_t equals = text.find('=');
    if (equals == std::string::npos) continue;
    std::string name = text.substr(0, equals);
    if (name.starts_with("MESOS_") || name.starts_with("LIBPROCESS_")) continue;
    variables[name] = text.substr(equals + 1);
  }
  for (const auto& [name, value] : request.environment) variables[name] = value;
  std::string id = std::to_string(request.id);
  variables["PBS_JOBID"] = id;
  variables["PBS_JOBNAME"] = request.name;
  variables["PBS_NODEFILE"] = nodefile;
  variables["PBS_O_WORKDIR"] = request.workdir;
  variables["PBS_O_HOST"] = request.submitHost;
  variables["PBS_O_LOGNAME"] = request.user;
  variables["PBS_QUEUE"] = "batch";
  variables["PBS_ENVIRONMENT"] = "PBS_BATCH";
  variables["PBS_NUM_NODES"] = std::to_string(request.hosts.size());
  variables["PBS_NUM_PPN"] = std::to_string(request.ppn);
  variables["PBS_NP"] = std::to_string(request.hosts.size() * static_cast<size_t>(request.ppn));
  variables["PBS_WALLTIME"] = std::to_string(request.walltimeSeconds);
  variables["PBS_NODENUM"] = "0";
  variables["PBS_TASKNUM"] = "1";
  std::vector<std::string> out;
  for (const auto& [name, value] : variables) out.push_back(name + "=" + value);
  return out;
}

int openOutput(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

}  // namespace

RunOutcome runJob(const RunRequest& request, const std::string& jobDir,
                  const std::atomic<bool>* killRequested) {
  std::error_code error;
  std::filesystem::create_directories(jobDir, error);
  std::string scriptPath = jobDir + "/script";
  std::string nodefile = jobDir + "/nodefile";
  // PBS's node file: each host once per processor the job has there.
  std::string nodes;
  for (const std::string& host : request.hosts) {
    for (int i = 0; i < request.ppn; i++) nodes += host + "\n";
  }
  if (error || !writeFile(scriptPath, request.script) || !writeFile(nodefile, nodes)) {
    return cannotStart("cannot write the job's files under " + jobDir + " on this node");
  }

  int out = openOutput(request.outPath);
  if (out < 0) {
    return cannotStart("cannot write the output file " + request.outPath + ": " +
                       std::strerror(errno) + " (give -o a directory the nodes can write)");
  }
  int err = out;
  if (request.errPath != request.outPath) {
    err = openOutput(request.errPath);
    if (err < 0) {
      ::close(out);
      return cannotStart("cannot write the error file " + request.errPath + ": " +
                         std::strerror(errno) + " (give -e a directory the nodes can write)");
    }
  }

  std::vector<std::string> environment = jobEnvironment(request, nodefile);
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string shell = "/bin/sh";
  std::string argv0 = "sh";
  std::vector<char*> argv = {argv0.data(), scriptPath.data(), nullptr};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  posix_spawn_file_actions_addchdir_np(&actions, request.workdir.c_str());
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  sigset_t defaults;
  sigfillset(&defaults);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, shell.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(out);
  if (err != out) ::close(err);
  if (spawned != 0) {
    return cannotStart("cannot start the script in " + request.workdir + ": " +
                       std::strerror(spawned) + " (does the working directory exist on " +
                       "the node? -d sets it)");
  }

  auto deadline = Clock::now() + std::chrono::seconds(request.walltimeSeconds);
  std::string comment;
  std::optional<Clock::time_point> terminatedAt;
  int status = 0;
  while (true) {
    pid_t waited = ::waitpid(pid, &status, WNOHANG);
    if (waited == pid || (waited < 0 && errno != EINTR)) break;
    auto now = Clock::now();
    if (!terminatedAt) {
      if (killRequested->load()) {
        comment = "killed on request";
      } else if (now >= deadline) {
        comment = "killed: walltime " + formatDuration(request.walltimeSeconds) + " exceeded";
      }
      if (!comment.empty()) {
        ::kill(-pid, SIGTERM);
        terminatedAt = now;
      }
    } else if (now - *terminatedAt >= kKillGrace) {
      ::kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(kPollInterval);  // a child process, polled
  }
  // Whatever the script left behind in its process group goes with it.
  ::kill(-pid, SIGKILL);

  RunOutcome outcome;
  outcome.comment = comment;
  if (WIFEXITED(status)) {
    outcome.exitStatus = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.exitStatus = 128 + WTERMSIG(status);
  }
  return outcome;
}

}  // namespace mesos::frameworks::torque
