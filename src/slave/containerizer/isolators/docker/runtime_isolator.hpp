// docker/runtime: a container from a Docker or OCI image runs as its image
// says, as in Apache Mesos:
//   - the command: what the framework gave (a shell command, or a program
//     with arguments) wins; a CommandInfo with shell=false and no value
//     runs the image's Entrypoint (its arguments after it, or else the
//     image's Cmd), or without one the image's Cmd, whose first word is the
//     program (the framework's arguments then replace the rest of Cmd);
//   - the environment: the image's Env, under the variables the framework
//     and the slave set;
//   - the working directory: the image's WorkingDir (else the sandbox);
//   - the user: the image's User, looked up in the image, where the slave
//     would run the container as root (never above the user the framework
//     was allowed to run as: docs/container-images.md).
// The slave applies the command and environment (imageCommand(),
// withImageEnvironment()) to the executor's CommandInfo, or to the task's
// for a command task; this isolator gives the working directory. Stateless.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "mesos/isolator.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::isolation {

// `command` merged with `image`'s Entrypoint and Cmd. Fails when neither
// gives a program.
Result<CommandInfo> imageCommand(CommandInfo command,
                                 const mesos::isolation::ContainerConfig::Image& image);

// `image`'s Env as name -> value; malformed entries (no name, no '=') are
// left out.
std::map<std::string, std::string> imageEnvironment(
    const mesos::isolation::ContainerConfig::Image& image);

// `command` with `image`'s Env added under its own variables.
CommandInfo withImageEnvironment(CommandInfo command,
                                 const mesos::isolation::ContainerConfig::Image& image);

class DockerRuntimeIsolator : public mesos::isolation::Isolator {
 public:
  std::string name() const override { return "docker/runtime"; }
  Result<void> recover(const std::map<std::string, pid_t>&) override { return {}; }
  Result<mesos::isolation::LaunchRequirements> prepare(
      const mesos::isolation::ContainerConfig& config) override;
  Result<void> isolate(const ContainerID&, pid_t) override { return {}; }
  Result<void> update(const ContainerID&, const Resources&) override { return {}; }
  Result<void> usage(const ContainerID&, ResourceStatistics*) override { return {}; }
  Result<void> kill(const ContainerID&) override { return {}; }
  Result<void> cleanup(const ContainerID&) override { return {}; }
};

}  // namespace mesos::internal::isolation
