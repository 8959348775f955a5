// What mesos-ps, mesos-cat, mesos-tail and mesos-resolve share: their
// command lines, finding the leading master (host:port or zk://), GETs on
// the master's and slaves' endpoints, where a task's sandbox is, and the
// slave's /files/read. Everything here blocks the calling thread, bounded by
// the timeout it is given; it is meant for a tool's main thread, never for
// an actor. docs/cli.md describes the tools.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/flags.hpp"
#include "common/json.hpp"
#include "mesos/result.hpp"
#include "process/upid.hpp"

namespace mesos::cli {

// Every tool: 0 when it did what was asked, 1 for anything else (a bad
// flag, an unreachable master, an unknown task, ...), with one line on
// stderr saying which and what to do.
inline constexpr int kExitSuccess = 0;
inline constexpr int kExitFailure = 1;

// Writes "<program>: <message>" to stderr; returns kExitFailure.
int fail(const std::string& program, const std::string& message);

// The flags of the tools that ask the master: --master (required) and
// --timeout (default 5secs, positive). Tools add their own.
struct MasterFlags : flags::FlagSet {
  MasterFlags();
  Result<void> validate() const override;
  std::optional<std::string> master;
  flags::Duration timeout;
};

// And of those that read a file of a task's sandbox: --framework and --task
// (required), --file (default "stdout").
struct SandboxFileFlags : MasterFlags {
  SandboxFileFlags();
  Result<void> validate() const override;
  std::optional<std::string> framework;
  std::optional<std::string> task;
  std::string file;
};

// Loads `flags` from MESOS_* variables and argv. Returns the exit status
// when the tool is done already: 0 after printing usage for --help
// ("Usage: <synopsis>", `description`, the flags), 1 after one line naming a
// bad flag. Otherwise nullopt, with the arguments that are not flags in
// *positional (when given; without it any such argument is an error).
std::optional<int> loadFlags(flags::FlagSet& flags, const std::string& program,
                             const std::string& synopsis, const std::string& description,
                             int argc, const char* const* argv,
                             std::vector<std::string>* positional = nullptr);

// glog (and the ZooKeeper client through it) quiet: errors only, to
// stderr, so that a tool's output is its own.
void quietLogging(const char* argv0);

// One HTTP answer: the status, the body, and the Location header.
struct HttpAnswer {
  int status = 0;
  std::string body;
  std::string location;
};

// GET `target` (path and query, already encoded) from `address`. Fails, with
// the transport's reason, when there is no answer within `timeout`.
Result<HttpAnswer> httpGet(const process::Address& address, const std::string& target,
                           flags::Duration timeout);

// POSTs `body` (JSON, asking for JSON) to `target` and hands each piece of
// a 200 answer's body to `onData` as it arrives, until the server ends the
// answer, `onData` returns false, or nothing arrives for `silence` (the
// connection is bounded by `timeout`). Returns the status, and the body
// when it is not 200 (a redirect's Location too). Fails with the
// transport's reason (silence included) when the answer did not end by
// the server's or onData's doing.
Result<HttpAnswer> httpPostStream(const process::Address& address, const std::string& target,
                                  const std::string& body, flags::Duration timeout,
                                  flags::Duration silence,
                                  const std::function<bool(std::string_view)>& onData);

// GET `target` and parse it as JSON. Fails with a line that names `what`
// ("the master", "slave S1") and its address when there is no answer, the
// status is not 200, or the body is not JSON.
Result<json::Value> getJson(const process::Address& address, const std::string& target,
                            flags::Duration timeout, const std::string& what);

// Percent-encodes a query value (RFC 3986 unreserved characters and '/'
// stay as they are).
std::string percentEncode(std::string_view text);

// The leading master named by `master`:
//   host:port, master@ip:port   asks that master who leads (itself, or the
//                               leader it knows when it is a standby);
//   zk://host:port[,...]/path   the leader of the masters' group in
//                               ZooKeeper, waiting at most `timeout` for one;
//   file:///path                a file holding either.
// Fails with one line naming the problem: a malformed address, a master that
// does not answer, a standby that knows no leader, no leader in ZooKeeper
// within `timeout`.
Result<process::Address> leadingMaster(const std::string& master, flags::Duration timeout);

// A task as the master knows it and where its sandbox is.
struct TaskSandbox {
  std::string frameworkId;
  std::string taskId;
  std::string state;  // "TASK_RUNNING", ...
  std::string slaveId;
  std::string slaveHost;  // the slave's hostname
  process::UPID slave;    // "slave(1)@ip:port"
  std::string directory;  // the executor's sandbox on the slave
};

// Finds task `taskId` of framework `frameworkId` in the master's /state
// (live and completed frameworks and tasks), then its executor's sandbox
// in its slave's /state, as Apache Mesos's CLI does. Fails with a line
// naming what is missing: the framework, the task, the slave, the sandbox.
Result<TaskSandbox> locateTask(const process::Address& master, const std::string& frameworkId,
                               const std::string& taskId, flags::Duration timeout);

// The task's state now, from the master's /tasks ("TASK_RUNNING", ...).
// Fails when the master does not answer or no longer knows the task.
Result<std::string> taskState(const process::Address& master, const std::string& frameworkId,
                              const std::string& taskId, flags::Duration timeout);

// Whether `state` ("TASK_FINISHED", ...) is one a task never leaves.
bool isTerminal(const std::string& state);

// The slave's /files: `path` is a file in a sandbox (directory + "/" + name).
class SandboxFile {
 public:
  // The largest read the slave answers (Apache Mesos's 16 pages).
  static constexpr int64_t kMaxRead = 16 * 4096;

  SandboxFile(process::UPID slave, std::string path, std::string name, flags::Duration timeout)
      : slave_(std::move(slave)), path_(std::move(path)), name_(std::move(name)),
        timeout_(timeout) {}

  // The file's size now. Fails when the file is not there (naming it) or
  // the slave does not answer.
  Result<int64_t> size() const;
  // Up to `length` bytes (at most kMaxRead) from `offset`: fewer at the
  // end of the file, none past it. *at (when given) is the offset the slave
  // answered: `offset`, or the file's size when the file ends before
  // `offset` (it was truncated, say).
  Result<std::string> read(int64_t offset, int64_t length, int64_t* at = nullptr) const;

 private:
  Result<std::string> get(const std::string& query, int64_t* offset) const;

  process::UPID slave_;
  std::string path_;
  std::string name_;  // the name the user gave, for messages
  flags::Duration timeout_;
};

// The file --file of the task --task of --framework, found through the
// leading master (--master): where it is and its size now. Fails with one
// line saying what is missing or does not answer.
struct OpenedFile {
  process::Address master;
  TaskSandbox sandbox;
  SandboxFile file;
  int64_t size = 0;
};
Result<OpenedFile> openSandboxFile(const SandboxFileFlags& flags);

// Writes all of `data` to stdout (unbuffered, so that a tool stopped by a
// signal has written everything it read). False when stdout is closed.
bool writeOut(std::string_view data);

}  // namespace mesos::cli
