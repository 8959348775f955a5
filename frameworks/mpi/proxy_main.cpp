// mesos-mpi-proxy <hydra_pmi_proxy> <its arguments...>: the command of an
// MPI task. mesos-mpirun runs each Hydra proxy command line (mpiexec's
// "HYDRA_LAUNCH: ...") through this wrapper, because Hydra's proxy alone
// does not fit the command executor's way of ending a task:
//   - the proxy starts every rank in a session of its own (setsid), so
//     signalling the task's process group does not reach the ranks;
//   - the proxy ignores SIGTERM, and when it dies of SIGKILL its ranks live
//     on as orphans.
// The wrapper makes itself a child subreaper (orphaned ranks become its
// children), runs the proxy, and:
//   - on SIGTERM, SIGINT or SIGHUP kills the proxy and every process
//     descended from it with SIGKILL at once (well within the command
//     executor's grace before its own SIGKILL), reaps them, exits 128 + signal;
//   - when the proxy exits, kills whatever it left behind and exits with the
//     proxy's status (128 + signal if a signal ended it).
// The environment variable MESOS_MPI_NODE is passed through to the ranks.
#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

// Parent pid of `pid` from /proc/<pid>/stat (-1 if it is gone).
pid_t parentOf(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return -1;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
  size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return -1;
  char state = 0;
  int parent = -1;
  if (std::sscanf(text.c_str() + close + 2, "%c %d", &state, &parent) != 2) return -1;
  return parent;
}

// Every live process descended from this one.
std::vector<pid_t> descendants() {
  std::multimap<pid_t, pid_t> children;
  if (DIR* proc = opendir("/proc")) {
    while (dirent* entry = readdir(proc)) {
      char* end = nullptr;
      long pid = std::strtol(entry->d_name, &end, 10);
      if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
      pid_t parent = parentOf(static_cast<pid_t>(pid));
      if (parent > 0) children.emplace(parent, static_cast<pid_t>(pid));
    }
    closedir(proc);
  }
  std::vector<pid_t> found;
  std::vector<pid_t> pending = {getpid()};
  while (!pending.empty()) {
    pid_t parent = pending.back();
    pending.pop_back();
    auto [begin, end] = children.equal_range(parent);
    for (auto it = begin; it != end; ++it) {
      found.push_back(it->second);
      pending.push_back(it->second);
    }
  }
  return found;
}

void killDescendants() {
  // Twice: a process may fork while the first pass runs.
  for (int pass = 0; pass < 2; ++pass) {
    for (pid_t pid : descendants()) ::kill(pid, SIGKILL);
  }
}

int exitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: mesos-mpi-proxy <hydra_pmi_proxy> [arguments...] (mesos-mpirun runs "
                 "this as an MPI task's command)\n");
    return 2;
  }
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    std::fprintf(stderr, "mesos-mpi-proxy: cannot become a child subreaper (%s); ranks whose "
                         "proxy dies may be left running\n", std::strerror(errno));
  }

  sigset_t signals;
  sigemptyset(&signals);
  for (int signal : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, signal);
  sigprocmask(SIG_BLOCK, &signals, nullptr);

  const pid_t proxy = fork();
  if (proxy < 0) {
    std::fprintf(stderr, "mesos-mpi-proxy: fork failed: %s\n", std::strerror(errno));
    return 1;
  }
  if (proxy == 0) {
    sigprocmask(SIG_UNBLOCK, &signals, nullptr);
    execv(argv[1], argv + 1);
    std::fprintf(stderr, "mesos-mpi-proxy: cannot run the Hydra proxy '%s': %s\n", argv[1],
                 std::strerror(errno));
    _exit(127);
  }

  int exitCode = -1;
  int stopSignal = 0;
  for (;;) {
    // Reap whatever ended: the proxy, or orphaned ranks handed to us.
    for (;;) {
      int status = 0;
      pid_t pid = waitpid(-1, &status, WNOHANG);
      if (pid == 0) break;
      if (pid < 0) {
        if (errno == EINTR) continue;
        // No children left at all: done.
        if (exitCode < 0) exitCode = 1;
        return stopSignal != 0 ? 128 + stopSignal : exitCode;
      }
      if (pid == proxy) {
        exitCode = exitCodeOf(status);
        // The job on this node is over: nothing it started may outlive it.
        killDescendants();
      }
    }
    siginfo_t info{};
    int signal = sigwaitinfo(&signals, &info);
    if (signal < 0) continue;
    if (signal != SIGCHLD && stopSignal == 0) {
      stopSignal = signal;
      killDescendants();
    }
  }
}
