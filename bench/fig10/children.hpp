// The coordinator's child processes (the master and the helpers): started
// so that none can outlive it, read line by line, measured through /proc,
// and killed on every way out.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace fig10 {

// CPU time and memory of a live process, from /proc/<pid>/stat and status.
struct ProcStats {
  double cpuSeconds = 0;  // utime + stime
  double rssMb = 0;       // VmRSS
  double peakRssMb = 0;   // VmHWM
};
// nullopt when the process is gone (or is a zombie).
std::optional<ProcStats> readProcStats(pid_t pid);

class Children {
 public:
  struct Child {
    std::string name;  // "master", "slaves-0", ...
    pid_t pid = -1;
    int out = -1;      // read end of its stdout, non-blocking; -1 when not piped
    std::string partial;  // bytes of an unfinished line
    bool exited = false;
    int status = 0;  // as from waitpid(), once exited
  };

  Children() = default;
  Children(const Children&) = delete;
  Children& operator=(const Children&) = delete;
  // Kills whatever is still running (killAll()).
  ~Children();

  // Starts argv[0] (a path) with stdin from /dev/null, stdout on a pipe
  // when `pipeStdout` (else /dev/null) and stderr appended to `stderrPath`.
  // The child gets its own process group (a Ctrl-C reaches only the
  // coordinator, which then stops everything in order) and SIGKILL when the
  // coordinator dies, however it dies. Returns the child's index, or an
  // error message.
  std::optional<size_t> spawn(const std::string& name, const std::vector<std::string>& argv,
                              bool pipeStdout, const std::string& stderrPath,
                              std::string* error);

  Child& operator[](size_t i) { return children_[i]; }
  size_t size() const { return children_.size(); }

  // Reads whatever the children wrote, waiting at most `timeoutMs` for
  // something to arrive, and hands each complete line to `line(index,
  // text)`. Also notices children that exited (Child::exited).
  template <typename F>
  void poll(int timeoutMs, F&& line) {
    std::vector<std::pair<size_t, std::string>> lines;
    pollLines(timeoutMs, &lines);
    for (auto& [index, text] : lines) line(index, text);
  }

  // SIGTERM to every child still running, then SIGKILL to those that have
  // not exited after `graceMs`; reaps them all. Safe to call twice.
  void killAll(int graceMs = 3000);
  // The same for one child.
  void kill(size_t index, int graceMs = 3000);

 private:
  void pollLines(int timeoutMs, std::vector<std::pair<size_t, std::string>>* lines);
  void reap();

  std::vector<Child> children_;
};

}  // namespace fig10
