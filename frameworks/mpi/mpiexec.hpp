// One run of MPICH's mpiexec (Hydra) with the manual launcher, as a child of
// mesos-mpirun: mpiexec prints the command line of each proxy it wants
// started ("HYDRA_LAUNCH: ..." then "HYDRA_LAUNCH_END"), waits for the
// proxies to connect back, and from then on forwards what the ranks print.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mesos/result.hpp"

namespace mesos::frameworks::mpi {

// What mpiexec said about a failure, read from its output: Hydra's
// "BAD TERMINATION" report and the proxies' "execvp error" lines.
struct HydraReport {
  std::string failedRank;   // "rank process 1234 on 127.0.0.2 ended with exit code 9"
  std::string exitString;   // "Killed (signal 9)"
  std::string launchError;  // "execvp error on file ./x (No such file or directory)"
  bool proxyVanished = false;  // a proxy's control connection closed under mpiexec

  bool empty() const { return failedRank.empty() && launchError.empty() && !proxyVanished; }
  // One line for the user ("" when empty()).
  std::string describe() const;
};

class Mpiexec {
 public:
  // Called on the reader thread, never with a lock of this object held.
  struct Callbacks {
    // The proxy command lines, each split into words, in proxy-id order
    // (once, at HYDRA_LAUNCH_END).
    std::function<void(std::vector<std::vector<std::string>> proxies)> onProxies;
    // mpiexec reported a failure for the first time (report() is not empty;
    // lines that complete it may still follow).
    std::function<void()> onFailure;
    // mpiexec has exited and its output is drained: its wait status.
    std::function<void(int status)> onExit;
  };

  // Starts `mpiexec` with `arguments` (not counting argv[0]). Its stdout and
  // stderr are read by a thread of this object: the HYDRA_LAUNCH lines go
  // to `onProxies`, everything else is copied to our stdout and stderr. On
  // failure (fork, pipes) nothing is left running. mpiexec gets SIGKILL
  // when the calling thread ends (PR_SET_PDEATHSIG), so call this from a
  // thread that lives as long as the job may run.
  static Result<std::unique_ptr<Mpiexec>> start(const std::string& mpiexec,
                                                const std::vector<std::string>& arguments,
                                                Callbacks callbacks);

  // Joins the reader thread. REQUIRES: mpiexec has exited (the exit
  // callback ran) or kill() was called; must not be called from a callback.
  ~Mpiexec();

  Mpiexec(const Mpiexec&) = delete;
  Mpiexec& operator=(const Mpiexec&) = delete;

  // SIGTERM: Hydra then kills the ranks through its proxies and exits.
  void terminate();
  // SIGKILL: for an mpiexec that does not end after terminate(); its
  // proxies see the control connection close and end their ranks.
  void kill();

  pid_t pid() const { return pid_; }
  // What mpiexec reported about a failure so far. Any thread.
  HydraReport report() const;

 private:
  Mpiexec(pid_t pid, int out, int err, Callbacks callbacks);
  void readUntilExit();
  void handleLine(const std::string& line, bool fromStdout);

  const pid_t pid_;
  const int out_;
  const int err_;
  Callbacks callbacks_;
  bool launchListDone_ = false;  // reader thread only
  std::vector<std::vector<std::string>> proxies_;  // reader thread only
  mutable std::mutex mutex_;
  HydraReport report_;  // guarded by mutex_
  bool exited_ = false;  // guarded by mutex_: reaped, so the pid may be reused
  std::thread reader_;
};

}  // namespace mesos::frameworks::mpi
