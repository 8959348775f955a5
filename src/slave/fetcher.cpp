#include "slave/fetcher.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include <glog/logging.h>

#include "common/fd.hpp"
#include "slave/containerizer/launcher.hpp"
#include "slave/reaper.hpp"
#include "slave/spawn.hpp"

extern char** environ;

namespace mesos::internal::slave {

std::string fetcherCacheDirectory(const std::string& fetcherCacheDir, const SlaveID& slaveId) {
  std::string dir = fetcherCacheDir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + "/slaves/" + slaveId.value();
}

Result<void> clearFetcherCache(const std::string& cacheDirectory) {
  std::error_code error;
  std::filesystem::remove_all(cacheDirectory, error);
  if (error) {
    return Error{"cannot clear the fetcher cache '" + cacheDirectory + "': " + error.message()};
  }
  return {};
}

FetchPlan fetchPlan(const Flags& flags, const SlaveID& slaveId, const CommandInfo& command,
                    const std::string& sandbox, const std::string& user) {
  FetchPlan plan;
  plan.uris.assign(command.uris().begin(), command.uris().end());
  plan.sandbox = sandbox;
  plan.user = user;
  plan.cacheDirectory = fetcherCacheDirectory(flags.fetcher_cache_dir, slaveId);
  plan.cacheSize = flags.fetcher_cache_size.value;
  plan.frameworksHome = flags.frameworks_home;
  plan.hadoopHome = flags.hadoop_home;
  return plan;
}

struct Fetcher::Run {
  std::string id;
  std::string firstUri;
  // The helper's status channel (fetcher_main.cpp), read once it has exited.
  int statusFd = -1;
  process::Promise<Result<process::Nothing>> promise;
  // Guarded by State::mutex.
  pid_t pid = -1;  // -1 until the helper has started
  bool exited = false;
  std::optional<std::string> killedBecause;
  std::optional<process::TimerId> timer;
};

struct Fetcher::State {
  std::mutex mutex;
  process::Clock* clock;  // null once the Fetcher is gone
  std::map<std::string, std::shared_ptr<Run>> runs;
};

namespace {

// An anonymous in-memory file, or -1 (errno set).
int memoryFile(const char* name) { return ::memfd_create(name, MFD_CLOEXEC); }

std::string readStatus(int fd) {
  std::string text;
  char buffer[4096];
  for (off_t offset = 0;;) {
    ssize_t n = ::pread(fd, buffer, sizeof(buffer), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
    offset += n;
  }
  return text;
}

std::string systemError(const std::string& what, int error) {
  return what + ": " + std::strerror(error);
}

}  // namespace

Fetcher::Fetcher(std::string helper, process::Clock& clock)
    : helper_(std::move(helper)), state_(std::make_shared<State>()) {
  state_->clock = &clock;
}

Fetcher::~Fetcher() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  for (auto& [id, run] : state_->runs) {
    if (run->timer) state_->clock->cancel(*run->timer);
    run->timer.reset();
    if (!run->exited && !run->killedBecause) {
      run->killedBecause = "the slave's fetcher stopped";
      if (run->pid > 0) ::kill(-run->pid, SIGKILL);
    }
  }
  state_->clock = nullptr;
}

process::Future<Result<process::Nothing>> Fetcher::fetch(const std::string& id,
                                                         const FetchPlan& requested,
                                                         process::Duration timeout) {
  using Outcome = Result<process::Nothing>;
  if (requested.uris.empty()) return Outcome(process::Nothing{});
  if (requested.sandbox.empty()) {
    return Outcome(Error{"Failed to fetch '" + requested.uris.front().value() + "': no sandbox"});
  }
  // The helper runs in the sandbox: a relative path would not name it there.
  FetchPlan plan = requested;
  if (!plan.sandbox.empty() && plan.sandbox[0] != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof(cwd)) != nullptr) plan.sandbox = std::string(cwd) + "/" + plan.sandbox;
  }
  auto run = std::make_shared<Run>();
  run->id = id;
  run->firstUri = plan.uris.front().value();
  auto failed = [&](const std::string& cause) {
    return process::Future<Outcome>(
        Outcome(Error{"Failed to fetch '" + run->firstUri + "': " + cause}));
  };
  std::shared_ptr<State> state = state_;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    if (state->runs.count(id)) return failed("another fetch for '" + id + "' is running");
    state->runs[id] = run;  // reserved: kill() finds it even before it starts
  }
  auto abandon = [&](const std::string& cause) {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->runs.erase(id);
    return failed(cause);
  };

  Fd planFile(memoryFile("mesos-fetcher-plan"));
  if (planFile.get() < 0) return abandon(systemError("cannot make the helper's plan file", errno));
  std::string text = encodePlan(plan);
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(planFile.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return abandon(systemError("cannot write the helper's plan", errno));
    done += static_cast<size_t>(n);
  }
  ::lseek(planFile.get(), 0, SEEK_SET);
  Fd status(memoryFile("mesos-fetcher-status"));
  if (status.get() < 0) return abandon(systemError("cannot make the helper's status file", errno));
  // The sandbox may be the task's user's already: opened so that nothing
  // the user put there is followed.
  auto outFd = openOutputFile(plan.sandbox + "/stdout");
  if (!outFd) return abandon(outFd.error().message);
  Fd out(*outFd);
  auto errFd = openOutputFile(plan.sandbox + "/stderr");
  if (!errFd) return abandon(errFd.error().message);
  Fd err(*errFd);

  SpawnState spawn;
  spawn.newSession();
  constexpr int kStatusFd = 3;
  posix_spawn_file_actions_adddup2(&spawn.actions, planFile.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&spawn.actions, out.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&spawn.actions, err.get(), STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&spawn.actions, status.get(), kStatusFd);
  posix_spawn_file_actions_addclosefrom_np(&spawn.actions, kStatusFd + 1);
  posix_spawn_file_actions_addchdir_np(&spawn.actions, plan.sandbox.c_str());
  std::string statusArgument = "--status_fd=" + std::to_string(kStatusFd);
  std::vector<char*> argv = {helper_.data(), statusArgument.data(), nullptr};
  pid_t pid = -1;
  int error =
      ::posix_spawn(&pid, helper_.c_str(), &spawn.actions, &spawn.attr, argv.data(), environ);
  if (error != 0) return abandon(systemError("cannot run '" + helper_ + "'", error));
  run->statusFd = ::dup(status.get());
  process::Future<Outcome> future = run->promise.future();

  {
    std::lock_guard<std::mutex> lock(state->mutex);
    run->pid = pid;
    if (run->killedBecause) {
      ::kill(-pid, SIGKILL);
    } else if (timeout > process::Duration::zero() && state->clock != nullptr) {
      // The clock runs timers outside its own lock: taking ours in one is safe.
      std::string why =
          "timed out after " +
          mesos::flags::formatDuration(std::chrono::duration_cast<mesos::flags::Duration>(timeout));
      run->timer = state->clock->schedule(state->clock->now() + timeout, [state, run, why] {
        std::lock_guard<std::mutex> lock(state->mutex);
        run->timer.reset();
        if (!run->exited && !run->killedBecause) {
          run->killedBecause = why;
          ::kill(-run->pid, SIGKILL);
        }
      });
    }
  }
  VLOG(1) << "Fetching " << plan.uris.size() << " URIs into " << plan.sandbox << " (pid " << pid
          << ")";

  Reaper::instance().watch(pid, [state, run](int waitStatus) {
    std::optional<std::string> killedBecause;
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      run->exited = true;
      auto it = state->runs.find(run->id);
      if (it != state->runs.end() && it->second == run) state->runs.erase(it);
      if (run->timer && state->clock != nullptr) state->clock->cancel(*run->timer);
      run->timer.reset();
      killedBecause = run->killedBecause;
    }
    std::string report = run->statusFd >= 0 ? readStatus(run->statusFd) : "";
    if (run->statusFd >= 0) ::close(run->statusFd);
    if (WIFEXITED(waitStatus) && WEXITSTATUS(waitStatus) == 0) {
      run->promise.set(process::Nothing{});
      return;
    }
    if (report.rfind("error:", 0) == 0) {
      run->promise.set(Error{report.substr(6)});
      return;
    }
    std::string uri = report.rfind("uri:", 0) == 0 ? report.substr(4) : run->firstUri;
    if (killedBecause) {
      run->promise.set(Error{"Failed to fetch '" + uri + "': " + *killedBecause});
    } else {
      run->promise.set(Error{"Failed to fetch '" + uri + "': mesos-fetcher " +
                             describeWaitStatus(waitStatus) + " (see the sandbox's stderr)"});
    }
  });
  return future;
}

void Fetcher::kill(const std::string& id, const std::string& why) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  auto it = state_->runs.find(id);
  if (it == state_->runs.end()) return;
  Run& run = *it->second;
  if (!run.exited && !run.killedBecause) {
    run.killedBecause = "killed (" + why + ")";
    if (run.pid > 0) ::kill(-run.pid, SIGKILL);  // else fetch() kills it once started
  }
}

std::optional<pid_t> Fetcher::pid(const std::string& id) const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  auto it = state_->runs.find(id);
  if (it == state_->runs.end() || it->second->exited || it->second->pid <= 0) return std::nullopt;
  return it->second->pid;
}

}  // namespace mesos::internal::slave
