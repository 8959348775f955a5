#include "slave/containerizer/docker/docker.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>

#include "common/json.hpp"
#include "slave/spawn.hpp"

namespace mesos::internal::docker {

namespace {

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

Result<void> validateParameter(const Parameter& parameter, const std::string& field) {
  const std::string& key = parameter.key();
  if (key.empty() || !(key[0] >= 'a' && key[0] <= 'z')) {
    return Error{field + ".key '" + key +
                 "' must start with a lowercase letter (write the option without its dashes: "
                 "'memory-swap', not '--memory-swap')"};
  }
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      return Error{field + ".key '" + key + "' may hold only lowercase letters, digits and '-'"};
    }
  }
  static const std::set<std::string> kReserved = {"name", "rm", "detach", "interactive", "tty",
                                                   "help"};
  if (kReserved.count(key) != 0) {
    return Error{field + ".key '" + key +
                 "' is the executor's to set (it names, attaches to and removes the container)"};
  }
  if (parameter.value().find('\0') != std::string::npos) {
    return Error{field + ".value holds a NUL byte"};
  }
  return {};
}

Result<void> validatePath(const std::string& path, const std::string& field) {
  if (path.empty()) return Error{field + " is empty"};
  if (path.find_first_of(":,") != std::string::npos || path.find('\0') != std::string::npos) {
    return Error{field + " '" + path + "' holds ':' or ',' (docker's separators)"};
  }
  if (("/" + path + "/").find("/../") != std::string::npos) {
    return Error{field + " '" + path + "' holds '..'"};
  }
  return {};
}

std::string shares(double cpus) {
  long value = std::lround(cpus * kCpuSharesPerCpu);
  return std::to_string(std::max<long>(value, kMinCpuShares));
}

// --cpu-shares and --memory of `resources` (nothing for one not given);
// with `swap`, also --memory-swap at twice the memory, what Docker gives a
// container run with --memory alone (docker update refuses a memory limit
// above the container's swap limit unless both change).
std::vector<std::string> limitArguments(const Resources& resources, bool swap) {
  std::vector<std::string> argv;
  if (double cpus = resources.scalar("cpus"); cpus > 0) {
    argv.push_back("--cpu-shares=" + shares(cpus));
  }
  if (double mem = resources.scalar("mem"); mem > 0) {
    uint64_t bytes = std::max(static_cast<uint64_t>(mem * 1024 * 1024), kMinMemoryBytes);
    argv.push_back("--memory=" + std::to_string(bytes));
    if (swap) argv.push_back("--memory-swap=" + std::to_string(2 * bytes));
  }
  return argv;
}

std::string readFile(int fd) {
  std::string text;
  if (fd < 0) return text;
  ::lseek(fd, 0, SEEK_SET);
  char buffer[8192];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return std::string("was terminated by signal ") + ::strsignal(WTERMSIG(status));
  }
  return "ended (wait status " + std::to_string(status) + ")";
}

}  // namespace

Result<void> validateImage(const std::string& image) {
  if (image.empty()) return Error{"is empty"};
  if (!alnum(image[0])) {
    return Error{"'" + image + "' must start with a letter or a digit"};
  }
  for (char c : image) {
    if (!(alnum(c) || c == '.' || c == '_' || c == '-' || c == '/' || c == ':' || c == '@')) {
      return Error{"'" + image +
                   "' is not a Docker image reference (letters, digits and . _ - / : @ only)"};
    }
  }
  return {};
}

Result<void> validateContainer(const ContainerInfo& container, const std::string& field) {
  if (container.type() != ContainerInfo::DOCKER) {
    return Error{field + ".type is " + ContainerInfo::Type_Name(container.type()) +
                 ", not DOCKER"};
  }
  if (!container.has_docker()) return Error{field + ".docker is unset: name the image"};
  const ContainerInfo::DockerInfo& docker = container.docker();
  if (auto image = validateImage(docker.image()); !image) {
    return Error{field + ".docker.image " + image.error().message};
  }
  if (container.has_mesos()) {
    return Error{field + ".mesos is for MESOS containers; a DOCKER container has docker.image"};
  }
  if (container.network_infos_size() > 0) {
    return Error{field +
                 ".network_infos: CNI networks are for MESOS containers; a DOCKER container "
                 "uses docker.network (HOST, BRIDGE or NONE)"};
  }
  for (int i = 0; i < docker.parameters_size(); ++i) {
    if (auto valid = validateParameter(docker.parameters(i),
                                       field + ".docker.parameters[" + std::to_string(i) + "]");
        !valid) {
      return valid;
    }
  }
  if (docker.port_mappings_size() > 0 && docker.network() != ContainerInfo::DockerInfo::BRIDGE) {
    return Error{field + ".docker.port_mappings need docker.network BRIDGE (it is " +
                 ContainerInfo::DockerInfo::Network_Name(docker.network()) + ")"};
  }
  for (int i = 0; i < docker.port_mappings_size(); ++i) {
    const auto& mapping = docker.port_mappings(i);
    const std::string name = field + ".docker.port_mappings[" + std::to_string(i) + "]";
    if (mapping.host_port() == 0 || mapping.host_port() > 65535 ||
        mapping.container_port() == 0 || mapping.container_port() > 65535) {
      return Error{name + ": ports must be between 1 and 65535"};
    }
    if (mapping.has_protocol() && mapping.protocol() != "tcp" && mapping.protocol() != "udp") {
      return Error{name + ".protocol '" + mapping.protocol() + "' is not tcp or udp"};
    }
  }
  if (!container.hostname().empty()) {
    if (docker.network() == ContainerInfo::DockerInfo::HOST) {
      return Error{field +
                   ".hostname: a container on the host's network (docker.network HOST) has the "
                   "host's name"};
    }
    for (char c : container.hostname()) {
      if (!(alnum(c) || c == '.' || c == '-')) {
        return Error{field + ".hostname '" + container.hostname() + "' is not a host name"};
      }
    }
    if (container.hostname()[0] == '-') {
      return Error{field + ".hostname '" + container.hostname() + "' is not a host name"};
    }
  }
  for (int i = 0; i < container.volumes_size(); ++i) {
    const Volume& volume = container.volumes(i);
    const std::string name = field + ".volumes[" + std::to_string(i) + "]";
    if (volume.has_image()) return Error{name + ".image is for MESOS containers"};
    if (auto valid = validatePath(volume.container_path(), name + ".container_path"); !valid) {
      return valid;
    }
    if (volume.container_path()[0] != '/') {
      return Error{name + ".container_path '" + volume.container_path() + "' is not absolute"};
    }
    if (auto valid = validatePath(volume.host_path(), name + ".host_path"); !valid) return valid;
  }
  return {};
}

std::vector<std::string> updateArguments(const Endpoint& endpoint, const std::string& name,
                                         const Resources& resources) {
  std::vector<std::string> argv = daemonArguments(endpoint);
  argv.push_back("update");
  for (std::string& limit : limitArguments(resources, true)) argv.push_back(std::move(limit));
  argv.insert(argv.end(), {"--", name});
  return argv;
}

std::vector<std::string> daemonArguments(const Endpoint& endpoint) {
  return {endpoint.docker, "-H", "unix://" + endpoint.socket};
}

Result<std::vector<std::string>> runArguments(const Endpoint& endpoint, const RunSpec& spec) {
  if (auto valid = validateContainer(spec.container, "container"); !valid) return valid.error();
  const ContainerInfo::DockerInfo& docker = spec.container.docker();
  std::vector<std::string> argv = daemonArguments(endpoint);
  argv.insert(argv.end(), {"run", "--name=" + spec.name});

  for (std::string& limit : limitArguments(spec.resources, false)) {
    argv.push_back(std::move(limit));
  }

  std::map<std::string, std::string> environment = spec.environment;
  for (const auto& variable : spec.command.environment().variables()) {
    environment[variable.name()] = variable.value();
  }
  environment["MESOS_SANDBOX"] = spec.mappedDirectory;
  environment["MESOS_CONTAINER_NAME"] = spec.name;
  for (const auto& [name, value] : environment) {
    if (name.empty() || name.find('=') != std::string::npos ||
        name.find('\0') != std::string::npos || value.find('\0') != std::string::npos) {
      return Error{"variable '" + name +
                   "': a name must be non-empty without '=', a value without NUL bytes"};
    }
    argv.insert(argv.end(), {"-e", name + "=" + value});
  }
  for (const std::string& name : spec.passedVariables) {
    if (name.empty() || name.find('=') != std::string::npos ||
        name.find('\0') != std::string::npos ||
        environment.count(name) != 0) {
      return Error{"variable '" + name + "': not a name, or also given a value"};
    }
    argv.insert(argv.end(), {"-e", name});
  }

  for (const Volume& volume : spec.container.volumes()) {
    std::string host = volume.host_path();
    if (host[0] != '/') host = spec.sandbox + "/" + host;
    std::string mount = host + ":" + volume.container_path();
    mount += volume.mode() == Volume::RO ? ":ro" : ":rw";
    argv.insert(argv.end(), {"-v", mount});
  }
  argv.insert(argv.end(), {"-v", spec.sandbox + ":" + spec.mappedDirectory});

  switch (docker.network()) {
    case ContainerInfo::DockerInfo::HOST: argv.push_back("--net=host"); break;
    case ContainerInfo::DockerInfo::BRIDGE: argv.push_back("--net=bridge"); break;
    case ContainerInfo::DockerInfo::NONE: argv.push_back("--net=none"); break;
  }
  // As Apache's: a host port is the task's only if its ports resources
  // hold it.
  const Value::Ranges ports = spec.resources.ranges("ports");
  for (int i = 0; i < docker.port_mappings_size(); ++i) {
    const uint32_t host = docker.port_mappings(i).host_port();
    bool held = false;
    for (const Value::Range& range : ports.range()) {
      if (range.begin() <= host && host <= range.end()) held = true;
    }
    if (!held) {
      return Error{"container.docker.port_mappings[" + std::to_string(i) + "]: host port " +
                   std::to_string(host) + " is not in the task's ports resources"};
    }
  }
  for (const auto& mapping : docker.port_mappings()) {
    std::string port = std::to_string(mapping.host_port()) + ":" +
                       std::to_string(mapping.container_port());
    if (mapping.has_protocol()) port += "/" + mapping.protocol();
    argv.insert(argv.end(), {"-p", port});
  }
  if (!spec.container.hostname().empty()) {
    argv.push_back("--hostname=" + spec.container.hostname());
  }
  if (docker.privileged()) argv.push_back("--privileged");
  for (const Parameter& parameter : docker.parameters()) {
    argv.push_back("--" + parameter.key() + "=" + parameter.value());
  }

  const CommandInfo& command = spec.command;
  if (command.shell()) argv.push_back("--entrypoint=/bin/sh");
  // Nothing after the image can be read as docker's own option.
  argv.push_back(docker.image());
  if (command.shell()) {
    argv.insert(argv.end(), {"-c", command.value()});
  } else {
    if (command.has_value()) argv.push_back(command.value());
    for (const std::string& argument : command.arguments()) argv.push_back(argument);
  }
  return argv;
}

std::vector<std::string> pullArguments(const Endpoint& endpoint, const std::string& image) {
  std::vector<std::string> argv = daemonArguments(endpoint);
  argv.insert(argv.end(), {"pull", "--", image});
  return argv;
}

std::vector<std::string> imagePresentArguments(const Endpoint& endpoint,
                                               const std::string& image) {
  std::vector<std::string> argv = daemonArguments(endpoint);
  argv.insert(argv.end(), {"image", "inspect", "--format={{.Id}}", "--", image});
  return argv;
}

std::vector<std::string> stopArguments(const Endpoint& endpoint, const std::string& name,
                                       std::chrono::seconds timeout) {
  std::vector<std::string> argv = daemonArguments(endpoint);
  argv.insert(argv.end(), {"stop", "-t", std::to_string(timeout.count()), "--", name});
  return argv;
}

std::vector<std::string> removeArguments(const Endpoint& endpoint, const std::string& name) {
  std::vector<std::string> argv = daemonArguments(endpoint);
  argv.insert(argv.end(), {"rm", "-f", "-v", "--", name});
  return argv;
}

std::vector<std::string> inspectArguments(const Endpoint& endpoint, const std::string& name) {
  std::vector<std::string> argv = daemonArguments(endpoint);
  argv.insert(argv.end(), {"container", "inspect", "--", name});
  return argv;
}

std::vector<std::string> execArguments(const Endpoint& endpoint, const std::string& name,
                                       const CommandInfo& command) {
  std::vector<std::string> argv = daemonArguments(endpoint);
  argv.push_back("exec");
  for (const auto& variable : command.environment().variables()) {
    argv.insert(argv.end(), {"-e", variable.name()});
  }
  argv.push_back(name);
  if (command.shell()) {
    argv.insert(argv.end(), {"sh", "-c", command.value()});
  } else {
    argv.push_back(command.value());
    for (int i = 1; i < command.arguments_size(); ++i) argv.push_back(command.arguments(i));
  }
  return argv;
}

std::vector<std::string> listArguments(const Endpoint& endpoint) {
  std::vector<std::string> argv = daemonArguments(endpoint);
  argv.insert(argv.end(), {"ps", "-a", "--no-trunc", "--filter",
                           std::string("name=") + kNamePrefix, "--format", "{{.Names}}"});
  return argv;
}

Result<Inspected> parseInspect(const std::string& text) {
  auto parsed = json::parse(text);
  if (!parsed) return Error{"docker inspect printed no JSON: " + parsed.error().message};
  const json::Value* object = &parsed.value();
  if (object->isArray()) {
    if (object->array().empty()) return Error{"docker inspect printed no container"};
    object = &object->array().at(0);
  }
  if (!object->isObject()) return Error{"docker inspect printed no container"};
  Inspected inspected;
  if ((*object)["Id"].isString()) inspected.id = (*object)["Id"].string();
  if ((*object)["Name"].isString()) {
    inspected.name = (*object)["Name"].string();
    if (!inspected.name.empty() && inspected.name[0] == '/') inspected.name.erase(0, 1);
  }
  const json::Value& state = (*object)["State"];
  if (!state.isObject()) return Error{"docker inspect printed no State"};
  inspected.running = state["Running"].isBool() && state["Running"].boolean();
  if (state["Pid"].isNumber()) inspected.pid = static_cast<pid_t>(state["Pid"].integer());
  if (state["ExitCode"].isNumber()) inspected.exitCode = static_cast<int>(state["ExitCode"].integer());
  if (state["Error"].isString()) inspected.error = state["Error"].string();
  return inspected;
}

std::vector<std::string> parseList(const std::string& text) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.rfind(kNamePrefix, 0) == 0) names.push_back(line);
    start = end + 1;
  }
  return names;
}

bool Output::succeeded() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

std::string Output::reason() const {
  std::string text = err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  size_t start = text.rfind('\n');
  std::string line = start == std::string::npos ? text : text.substr(start + 1);
  if (!line.empty()) return line;
  return "docker " + describeStatus(status);
}

Result<Started> spawn(const std::vector<std::string>& argv, bool capture) {
  if (argv.empty()) return Error{"no program to run"};
  Started started;
  int out = -1;
  int err = -1;
  if (capture) {
    out = ::memfd_create("docker-out", MFD_CLOEXEC);
    err = ::memfd_create("docker-err", MFD_CLOEXEC);
    if (out < 0 || err < 0) {
      int error = errno;
      if (out >= 0) ::close(out);
      if (err >= 0) ::close(err);
      return Error{std::string("cannot make docker's output files: ") + std::strerror(error)};
    }
  }
  slave::SpawnState spawn;
  spawn.newProcessGroup();
  posix_spawn_file_actions_addopen(&spawn.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (capture) {
    posix_spawn_file_actions_adddup2(&spawn.actions, out, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&spawn.actions, err, STDERR_FILENO);
  }
  posix_spawn_file_actions_addclosefrom_np(&spawn.actions, STDERR_FILENO + 1);
  std::vector<std::string> copy = argv;
  std::vector<char*> args;
  for (std::string& arg : copy) args.push_back(arg.data());
  args.push_back(nullptr);
  int error = ::posix_spawnp(&started.pid, copy[0].c_str(), &spawn.actions, &spawn.attr,
                             args.data(), environ);
  if (error != 0) {
    if (out >= 0) ::close(out);
    if (err >= 0) ::close(err);
    return Error{"cannot run '" + argv[0] + "': " + std::strerror(error)};
  }
  started.out = out;
  started.err = err;
  return started;
}

Output collect(const Started& started, int status) {
  Output output;
  output.status = status;
  output.out = readFile(started.out);
  output.err = readFile(started.err);
  if (started.out >= 0) ::close(started.out);
  if (started.err >= 0) ::close(started.err);
  return output;
}

Result<Output> run(const std::vector<std::string>& argv) {
  auto started = spawn(argv, true);
  if (!started) return started.error();
  int status = 0;
  while (::waitpid(started->pid, &status, 0) < 0) {
    if (errno != EINTR) {
      int error = errno;
      collect(*started, -1);
      return Error{"cannot wait for '" + argv[0] + "': " + std::strerror(error)};
    }
  }
  return collect(*started, status);
}

}  // namespace mesos::internal::docker
