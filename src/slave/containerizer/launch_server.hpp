// The launch server: `mesos-containerizer --serve_fd=N`, started once by the
// launcher (launcher.hpp) from the launch helper's own program, forks a
// launch helper for each container instead of the slave executing a new
// one: a fork of this small, single-threaded process costs a tenth of an
// exec of the helper (docs/benchmarks.md, container_bench).
//
// The server first sends one byte, 'S' (it runs and speaks this protocol:
// a program that does not is executed for each launch instead). A request,
// on the stream socket N (one end of a socketpair the launcher
// keeps; nobody else can reach it), is a header of two 32-bit numbers in
// host order, the payload's length and the number of descriptors, carried
// with the header as SCM_RIGHTS, then the payload (encodeRequest()). The
// server clones a child with CLONE_PARENT, so the helper is the slave's
// child (reaped as one, see Reaper) and not the server's; the child finds
// the i-th descriptor at number i (0, 1, 2: stdin, stdout, stderr; then
// the helper's, LaunchSpec), nothing else open, in a session of its own,
// with no signal blocked, in the directory, with the environment, and runs
// the helper's main() with the arguments, as an exec of it would. The
// answer is one 32-bit number: the child's pid, or minus the errno of a
// failed clone (or EINVAL for a request it cannot read).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mesos::internal::slave {

struct LaunchRequest {
  std::string directory;
  std::vector<std::string> arguments;    // argv, from argv[0]
  std::vector<std::string> environment;  // NAME=VALUE each
};

// The largest payload and the most descriptors a server takes.
constexpr uint32_t kLaunchRequestMaxBytes = 16u << 20;
constexpr uint32_t kLaunchRequestMaxFds = 64;

// The payload: the directory, the number of arguments, the arguments, the
// number of variables and the variables, each ended by a NUL byte.
inline std::string encodeRequest(const LaunchRequest& request) {
  std::string out;
  auto add = [&out](const std::string& field) {
    out += field;
    out += '\0';
  };
  add(request.directory);
  add(std::to_string(request.arguments.size()));
  for (const std::string& argument : request.arguments) add(argument);
  add(std::to_string(request.environment.size()));
  for (const std::string& entry : request.environment) add(entry);
  return out;
}

// False when `payload` is not encodeRequest()'s.
inline bool decodeRequest(const std::string& payload, LaunchRequest* request) {
  size_t at = 0;
  auto next = [&](std::string* field) {
    const size_t end = payload.find('\0', at);
    if (end == std::string::npos) return false;
    *field = payload.substr(at, end - at);
    at = end + 1;
    return true;
  };
  auto list = [&](std::vector<std::string>* fields) {
    std::string count;
    if (!next(&count) || count.empty() || count.size() > 9 ||
        count.find_first_not_of("0123456789") != std::string::npos) {
      return false;
    }
    // Each field takes at least its NUL byte.
    const size_t n = std::stoul(count);
    if (n > payload.size() - at) return false;
    fields->resize(n);
    for (std::string& field : *fields) {
      if (!next(&field)) return false;
    }
    return true;
  };
  return next(&request->directory) && list(&request->arguments) && !request->arguments.empty() &&
         list(&request->environment) && at == payload.size();
}

// The server's loop on `socket` (--serve_fd), with `helperMain` as the
// helper's main(): returns 0 once the slave closes its end, 1 on a broken
// stream. Only the clones run `helperMain`.
int serveLaunches(int socket, int (*helperMain)(int, char**));

}  // namespace mesos::internal::slave
