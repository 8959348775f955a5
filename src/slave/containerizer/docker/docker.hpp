// A client of the Docker daemon through its command-line program: the Docker
// containerizer's executor (mesos-docker-executor) runs tasks with it, and the
// slave removes and lists containers with it (docs/docker-containerizer.md).
//
// Every call is an argument vector handed to the `docker` program, never a
// shell line. What a framework sends (an image name, parameters, volumes,
// variables) is checked before it becomes an argument (validateContainer()),
// so that nothing it sends can be read by docker as an option of its own
// choosing:
//   - an image is a Docker reference: it starts with a letter or digit and
//     holds only letters, digits and . _ - / : @ (no spaces, no '=').
//   - a parameter is `--key=value` with a key of lowercase letters, digits and
//     '-' starting with a letter (one argument, so the value can never be a
//     separate option); `name`, `rm`, `detach`, `interactive`, `tty` and
//     `help` are refused (the executor names, attaches to and removes the
//     container itself).
//   - a volume's paths hold no ':' or ','; the container path is absolute.
//   - a variable's name is non-empty without '='; values hold no NUL.
// The argument builders are pure functions (unit-tested); run() and spawn()
// start the program.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mesos.pb.h"
#include "mesos/resources.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::docker {

// Apache's: the sandbox as a container sees it, and the name prefix of every
// container a slave makes (mesos-<container id>).
constexpr const char* kMappedSandbox = "/mnt/mesos/sandbox";
constexpr const char* kNamePrefix = "mesos-";
// `--cpu-shares` per cpu, and the least any container gets (Docker's floor).
constexpr double kCpuSharesPerCpu = 1024;
constexpr int kMinCpuShares = 2;
// Docker refuses less memory than this.
constexpr uint64_t kMinMemoryBytes = 6ull * 1024 * 1024;

// How to reach the daemon: the `docker` program (looked up in PATH unless a
// path) and its unix socket.
struct Endpoint {
  std::string docker = "docker";
  std::string socket = "/var/run/docker.sock";
};

// What `docker run` starts: the task's container, command and resources.
struct RunSpec {
  std::string name;                  // the container's name (mesos-<container id>)
  ContainerInfo container;           // type DOCKER, with docker.image
  CommandInfo command;               // shell: /bin/sh -c value; else value + arguments
  Resources resources;               // cpus -> --cpu-shares, mem -> --memory
  std::string sandbox;               // the host's sandbox, mounted at mappedDirectory
  std::string mappedDirectory = kMappedSandbox;
  std::map<std::string, std::string> environment;  // -e NAME=VALUE (MESOS_SANDBOX is added)
  // -e NAME: the value is the docker program's own (its environment), so
  // that it never shows in a process list (a secret such as the executor's
  // token).
  std::vector<std::string> passedVariables;
};

// Whether `container` can run: type DOCKER with a valid image, valid
// parameters, volumes, port mappings (only with BRIDGE networking) and
// hostname (not with HOST networking). The error names the field
// (`field`.docker.image...) and what is allowed.
Result<void> validateContainer(const ContainerInfo& container, const std::string& field);

// Whether `image` is a Docker reference as described above.
Result<void> validateImage(const std::string& image);

// The arguments after the program: `-H unix://SOCKET`.
std::vector<std::string> daemonArguments(const Endpoint& endpoint);

// `docker ... run` for `spec`, attached (no -d): its stdout and stderr are
// the container's. Fails as validateContainer() does, or on an invalid
// variable.
Result<std::vector<std::string>> runArguments(const Endpoint& endpoint, const RunSpec& spec);
std::vector<std::string> pullArguments(const Endpoint& endpoint, const std::string& image);
// `docker image inspect IMAGE`: succeeds when the image is present.
std::vector<std::string> imagePresentArguments(const Endpoint& endpoint, const std::string& image);
std::vector<std::string> stopArguments(const Endpoint& endpoint, const std::string& name,
                                       std::chrono::seconds timeout);
// `docker update` of container `name` to the limits runArguments() gives
// `resources` (--cpu-shares, --memory, and --memory-swap at twice the
// memory, Docker's own default at `docker run`).
std::vector<std::string> updateArguments(const Endpoint& endpoint, const std::string& name,
                                         const Resources& resources);
std::vector<std::string> removeArguments(const Endpoint& endpoint, const std::string& name);
std::vector<std::string> inspectArguments(const Endpoint& endpoint, const std::string& name);
// `docker exec` of `command` in running container `name` (a COMMAND health
// check): a shell command as `sh -c VALUE`, else VALUE with the arguments
// after argv[0]. The command's own variables are passed by name only
// (`-e NAME`): docker takes their values from its own environment, which
// the caller gives them (never in a process list).
std::vector<std::string> execArguments(const Endpoint& endpoint, const std::string& name,
                                       const CommandInfo& command);
// `docker ps -a` of the containers whose name starts with kNamePrefix, one
// name a line.
std::vector<std::string> listArguments(const Endpoint& endpoint);

// A container as `docker inspect` shows it.
struct Inspected {
  std::string id;
  std::string name;      // without Docker's leading '/'
  bool running = false;
  pid_t pid = 0;         // 0 when not running
  int exitCode = 0;      // meaningful once it ran and stopped
  std::string error;     // State.Error: why it could not start, if docker says
};

// Reads `docker inspect`'s output (a JSON array of one object).
Result<Inspected> parseInspect(const std::string& text);

// The names in `docker ps --format {{.Names}}` output that start with
// kNamePrefix.
std::vector<std::string> parseList(const std::string& text);

// A finished run of the program.
struct Output {
  int status = -1;       // the wait status (waitpid())
  std::string out;
  std::string err;
  bool succeeded() const;
  // The last non-empty line of `err` (docker's reason), else a description
  // of the status.
  std::string reason() const;
};

// A started run: its pid, and its stdout and stderr as in-memory files when
// captured (-1 otherwise). The caller reaps the pid and closes the files.
struct Started {
  pid_t pid = -1;
  int out = -1;
  int err = -1;
};

// Starts `argv` (argv[0] searched in PATH when it has no '/') in a new
// process group with stdin from /dev/null; `capture`: stdout and stderr
// into in-memory files, else this process's. Fails naming the program.
// Safe from any thread.
Result<Started> spawn(const std::vector<std::string>& argv, bool capture);

// What a captured run printed and how it ended, once `status` is known:
// reads and closes started.out and started.err.
Output collect(const Started& started, int status);

// Runs `argv` to its end, capturing its output. Blocks the calling thread:
// never call it on an actor's thread (the executor calls it on its own).
Result<Output> run(const std::vector<std::string>& argv);

}  // namespace mesos::internal::docker
