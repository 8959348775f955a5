#include "slave/containerizer/isolators/docker/runtime_isolator.hpp"

#include <set>
#include <vector>

namespace mesos::internal::isolation {

Result<CommandInfo> imageCommand(CommandInfo command,
                                 const mesos::isolation::ContainerConfig::Image& image) {
  if (command.shell() || command.has_value()) return command;
  // The framework's arguments come after the program the image names.
  std::vector<std::string> given(command.arguments().begin(), command.arguments().end());
  std::vector<std::string> argv;
  if (!image.entrypoint.empty()) {
    argv = image.entrypoint;
    if (given.empty()) {
      argv.insert(argv.end(), image.cmd.begin(), image.cmd.end());
    } else {
      argv.insert(argv.end(), given.begin(), given.end());
    }
  } else if (!image.cmd.empty()) {
    argv.push_back(image.cmd.front());
    if (given.empty()) {
      argv.insert(argv.end(), image.cmd.begin() + 1, image.cmd.end());
    } else {
      argv.insert(argv.end(), given.begin(), given.end());
    }
  } else {
    return Error{
        "the command has no value and the image has neither Entrypoint nor Cmd: nothing to run"};
  }
  command.set_value(argv.front());
  command.clear_arguments();
  for (const std::string& argument : argv) command.add_arguments(argument);
  return command;
}

std::map<std::string, std::string> imageEnvironment(
    const mesos::isolation::ContainerConfig::Image& image) {
  std::map<std::string, std::string> variables;
  for (const std::string& entry : image.env) {
    const size_t equals = entry.find('=');
    if (equals == 0 || equals == std::string::npos) continue;
    variables[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  return variables;
}

CommandInfo withImageEnvironment(CommandInfo command,
                                 const mesos::isolation::ContainerConfig::Image& image) {
  std::set<std::string> given;
  for (const auto& variable : command.environment().variables()) given.insert(variable.name());
  Environment merged;
  for (const auto& [name, value] : imageEnvironment(image)) {
    if (given.count(name) != 0) continue;
    auto* variable = merged.add_variables();
    variable->set_name(name);
    variable->set_value(value);
  }
  merged.mutable_variables()->MergeFrom(command.environment().variables());
  *command.mutable_environment() = std::move(merged);
  return command;
}

Result<mesos::isolation::LaunchRequirements> DockerRuntimeIsolator::prepare(
    const mesos::isolation::ContainerConfig& config) {
  mesos::isolation::LaunchRequirements requirements;
  if (config.image && config.executorInRootfs) {
    requirements.workingDirectory = config.image->workingDir;
  }
  return requirements;
}

}  // namespace mesos::internal::isolation
