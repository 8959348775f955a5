// Running a helper program as a test's child process, with its output
// captured and a real-time bound (tests that drive real programs: mesos-go
// probes, executors).
#pragma once

#include <sys/wait.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

namespace mesos::test {

struct ChildResult {
  std::string error;  // non-empty: the program could not be started
  bool timedOut = false;
  int status = 0;  // as from waitpid()
  std::string out;
  std::string err;

  bool exitedWith(int code) const {
    return error.empty() && !timedOut && WIFEXITED(status) && WEXITSTATUS(status) == code;
  }

  // How it ended, and what it said on stderr, for failure messages.
  std::string describe() const {
    std::ostringstream text;
    if (!error.empty()) {
      text << "could not run: " << error;
    } else if (timedOut) {
      text << "killed after running for longer than its time limit";
    } else if (WIFEXITED(status)) {
      text << "exit status " << WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      text << "killed by signal " << WTERMSIG(status);
    } else {
      text << "wait status " << status;
    }
    text << "\n--- stdout ---\n" << out << "\n--- stderr ---\n" << err;
    return text.str();
  }
};

// Runs `args` (args[0] an absolute path) with stdin from /dev/null, stdout
// and stderr captured, for at most `limit` of real time (then SIGKILL).
ChildResult runChild(const std::vector<std::string>& args, std::chrono::milliseconds limit);

}  // namespace mesos::test
