// Fetcher: puts a task's CommandInfo.uris into its sandbox before its
// executor starts, without blocking the slave. Each fetch runs in a child
// process, the mesos-fetcher helper (fetcher_main.cpp), which downloads,
// copies, caches and extracts (docs/fetcher.md); the slave actor only
// starts it and hears how it ended, through a Future.
//
//   Fetcher fetcher(launcherBinaryPath(flags.launcher_dir, kFetcherHelper),
//                   runtime().clock());
//   FetchPlan plan = fetchPlan(flags, slaveId, command, sandbox, user);
//   fetcher.fetch(containerId.value(), plan, timeout)
//       .then(self(), [=](const Result<process::Nothing>& fetched) {
//         if (!fetched) ...TASK_FAILED, REASON_CONTAINER_LAUNCH_FAILED,
//                       message fetched.error().message...
//         else ...launch the executor...
//       });
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "mesos.pb.h"
#include "process/clock.hpp"
#include "process/future.hpp"
#include "slave/fetcher_plan.hpp"
#include "slave/flags.hpp"

namespace mesos::internal::slave {

// The helper's binary name, looked up in --launcher_dir
// (launcherBinaryPath()).
constexpr const char* kFetcherHelper = "mesos-fetcher";

// The slave's cache directory: <fetcher_cache_dir>/slaves/<slave id>, as in
// Apache Mesos.
std::string fetcherCacheDirectory(const std::string& fetcherCacheDir, const SlaveID& slaveId);

// Empties the slave's cache directory (fetcherCacheDirectory()), as Apache
// Mesos does when a slave recovers its id: entries are not checked against
// the URIs' current contents, so they do not outlive the slave that fetched
// them. Blocks while it removes the files (a few, however large): call it
// at start-up, before any fetch. Fails naming the directory; a missing
// directory is fine.
Result<void> clearFetcherCache(const std::string& cacheDirectory);

// The plan for fetching `command.uris()` into `sandbox` for `user` (the
// task's or framework's user: it keys the cache), with the cache,
// --frameworks_home and --hadoop_home of the slave's `flags`.
FetchPlan fetchPlan(const Flags& flags, const SlaveID& slaveId, const CommandInfo& command,
                    const std::string& sandbox, const std::string& user);

class Fetcher {
 public:
  // `helper`: the mesos-fetcher binary. `clock`: the clock whose timers
  // bound each fetch (the slave's runtime().clock()); it must outlive this
  // Fetcher.
  Fetcher(std::string helper, process::Clock& clock);
  // Kills the fetches still running (their futures get an error once the
  // helpers are reaped).
  ~Fetcher();

  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  // Starts fetching `plan.uris` into `plan.sandbox` and returns at once
  // (it costs a fork/exec; nothing else blocks). The helper runs in its own
  // session and process group, in the sandbox, with this process's
  // environment; its stdout and stderr are appended to the sandbox's
  // `stdout` and `stderr` files (created if missing), where its progress
  // and failure can be read. Its exit is watched by the Reaper.
  //
  // The future always becomes ready (it never fails), on the reaper's
  // thread: consume it with then(self(), ...). It holds nothing when every
  // URI is in place, else an Error whose message is one line naming the URI
  // and the cause, e.g.
  //   Failed to fetch 'http://h/a.tgz': the server answered 404 Not Found
  //   Failed to fetch 'http://h/a.tgz': timed out after 1mins
  //   Failed to fetch 'x': output_file '/etc/x' is absolute; it must be relative to the sandbox
  // (also when the helper cannot be started: then the future is ready at
  // once).
  //
  // When `timeout` (of `clock` time) passes first, the helper's process
  // group is killed (SIGKILL) and the error says "timed out after <timeout>"
  // about the URI being fetched. A zero or negative timeout bounds nothing.
  // A plan without URIs is ready at once, with no helper started. `id`
  // names the fetch for kill() (the container id); while a fetch of that id
  // runs, another with the same id is refused at once. Thread-safe.
  process::Future<Result<process::Nothing>> fetch(const std::string& id, const FetchPlan& plan,
                                                  process::Duration timeout);

  // Kills the fetch `id` (SIGKILL to the helper's process group); its
  // future's error is "Failed to fetch '<uri>': killed (<why>)". Harmless when no
  // such fetch runs (it ended, or never started). Thread-safe.
  void kill(const std::string& id, const std::string& why);

  // The pid of the helper running fetch `id`, if any (for tests and logs).
  std::optional<pid_t> pid(const std::string& id) const;

 private:
  struct Run;
  struct State;

  std::string helper_;
  std::shared_ptr<State> state_;
};

}  // namespace mesos::internal::slave
