// Launching a shell command in a container for the isolation tests.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "process/future.hpp"
#include "slave/containerizer/containerizer.hpp"
#include "slave/reaper.hpp"

namespace mesos::internal::isolation {

struct Launched {
  pid_t pid = -1;              // -1: the launch failed (and the test with it)
  process::Future<int> exit;   // the wait status, once reaped
};

// Runs `sh -c command` in container `id` holding `resources`, with its
// sandbox, stdout (<id>.out) and stderr (<id>.err) in `dir`.
inline Launched launchShell(slave::Containerizer& containerizer, const std::string& dir,
                            const std::string& id, const std::string& command,
                            const std::string& resources,
                            std::vector<std::string> prefix = {}) {
  mesos::isolation::ContainerConfig config;
  config.containerId.set_value(id);
  config.directory = dir;
  config.resources = *Resources::parse(resources);
  slave::LaunchSpec spec;
  spec.command.set_value(command);
  spec.directory = dir;
  spec.environment = {{"PATH", "/usr/bin:/bin"}};
  spec.stdoutPath = dir + "/" + id + ".out";
  spec.stderrPath = dir + "/" + id + ".err";
  spec.prefix = std::move(prefix);
  auto pid = containerizer.launch(config, spec);
  EXPECT_TRUE(pid.ok()) << pid.error().message;
  if (!pid.ok()) return {};
  auto promise = std::make_shared<process::Promise<int>>();
  slave::Reaper::instance().watch(*pid, [promise](int status) { promise->set(status); });
  return {*pid, promise->future()};
}

}  // namespace mesos::internal::isolation
