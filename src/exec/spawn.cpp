#include "exec/spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace mesos::internal {

std::map<std::string, std::string> withEnvironmentOf(std::map<std::string, std::string> base,
                                                     const CommandInfo& command) {
  for (const auto& variable : command.environment().variables()) {
    base[variable.name()] = variable.value();
  }
  return base;
}

Result<pid_t> spawnCommand(const CommandInfo& command, const SpawnOptions& options) {
  std::vector<std::string> arguments;
  std::string file;
  if (command.shell()) {
    file = "/bin/sh";
    arguments = {"sh", "-c", command.value()};
  } else {
    file = command.value();
    arguments.assign(command.arguments().begin(), command.arguments().end());
    if (arguments.empty()) arguments.push_back(command.value());
  }
  std::vector<std::string> environment;
  environment.reserve(options.environment.size());
  for (const auto& [name, value] : options.environment) environment.push_back(name + "=" + value);

  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addchdir_np(&actions, options.directory.c_str());
  if (options.quietStdio) {
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  }
  // A process group of its own: kills reach the command and its children.
  // Default signal handling and an empty mask, whatever this process's.
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int signal : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2}) {
    sigaddset(&defaults, signal);
  }
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);

  pid_t pid = -1;
  const int result =
      command.shell()
          ? posix_spawn(&pid, file.c_str(), &actions, &attributes, argv.data(), envp.data())
          : posix_spawnp(&pid, file.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (result != 0) {
    return Error{"'" + file + "' in '" + options.directory + "': " + std::strerror(result)};
  }
  return pid;
}

}  // namespace mesos::internal
