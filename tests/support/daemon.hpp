// Running the daemons (mesos-master, mesos-slave, tools) as separate OS
// processes in tests: a free port, start in the background, wait for the
// exit with a bound, and wait for an HTTP endpoint to answer. Real
// processes, so every wait has a generous real-time bound.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "process/upid.hpp"

namespace mesos::test {

// A loopback port free right now, below the ephemeral range (see
// common/free_port.hpp).
uint16_t freePort();
// A port free right now on the local address `ip` (e.g. "127.0.0.3"), or 0.
uint16_t freePort(const std::string& ip);

// Starts `args` (args[0] an absolute path) in the background, its stdout and
// stderr to /dev/null. The pid, or -1.
pid_t startDaemon(const std::vector<std::string>& args);
// As above, with stdout and stderr appended to the file `log` (for tests
// that read what a daemon prints).
pid_t startDaemon(const std::vector<std::string>& args, const std::string& log);

// Waits at most `bound` for `pid` to exit: its exit status (128 + signal if
// killed), or -1 after killing it with SIGKILL.
int waitForExit(pid_t pid, std::chrono::seconds bound);

// Whether a TCP connection to `address` succeeds.
bool connectable(const process::Address& address);

// Polls `ready` (every 50 ms, at most `bound`) until it returns true;
// stops early, returning false, if `pid` exits meanwhile (its wait status
// into *exited when given).
bool waitUntil(const std::function<bool()>& ready, std::chrono::seconds bound, pid_t pid = -1,
               int* exited = nullptr);

// GETs `path` from `address` and parses the body: a Null value unless the
// answer is 200 with JSON (or when nothing listens there).
json::Value getJson(const process::Address& address, const std::string& path);

// The contents of the file at `path` ("" when it cannot be read).
std::string readFile(const std::string& path);

// Kills (SIGKILL) every process whose command line or working directory
// names `dir`; returns how many it signalled.
int killProcessesUnder(const std::string& dir);

// The fixture of tests that run the daemons as processes: it skips the test
// when mesos-master, mesos-slave or mesos-execute is not built, gives it a
// scratch directory (dir_, removed afterwards), and at the end stops every
// daemon started through start() with SIGTERM, expecting each to exit
// cleanly (status 0) within 30 s. Then it kills whatever still runs in or
// names dir_ (killProcessesUnder): a task of a slave the test killed with
// -9 outlives its executor's process group, and would run on forever.
class DaemonsFixture : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Starts `args` like startDaemon(), its output to <dir>/<log>.log when
  // `log` is given, and stops it at the end of the test. The pid, or -1.
  pid_t start(const std::vector<std::string>& args, const std::string& log = "");
  // A daemon the test ended and reaped itself (not stopped at the end).
  void reaped(pid_t pid);

  // Starts mesos-master on a free port with `flags` (on 127.0.0.1 unless
  // they give --ip), its output in <dir>/master.log, and waits until it
  // listens. Its loopback address.
  process::Address startMaster(const std::vector<std::string>& flags = {});
  // Starts mesos-slave on a port free on its address (or `port`), on
  // 127.0.0.1 unless `flags` give --ip, registering with the master at `master`, with its
  // work directory <dir>/<name>, its output in <dir>/<name>.log, the built
  // mesos-executor, and `flags`. Its pid.
  pid_t startSlave(const process::Address& master, const std::string& name,
                   const std::vector<std::string>& flags = {}, uint16_t port = 0);

  // The master's counter `name` in /metrics/snapshot (-1 when unreadable).
  static int64_t metric(const process::Address& master, const std::string& name);

  std::string dir_;
  std::vector<pid_t> daemons_;
};

}  // namespace mesos::test
