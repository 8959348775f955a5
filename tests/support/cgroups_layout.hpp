// For tests that make cgroups with real daemons: this machine's cgroups
// layout, or why such a test must skip.
#pragma once

#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "slave/containerizer/isolators/cgroups/cgroups.hpp"

namespace mesos::test {

// The layout of the default hierarchy when this process is root and it has
// every one of `controllers`; otherwise nullptr, with `why` saying what is
// missing (for GTEST_SKIP).
inline std::unique_ptr<internal::cgroups::Layout> cgroupsForTests(
    const std::vector<std::string>& controllers, std::string* why) {
  if (::geteuid() != 0) {
    *why = "needs root to create cgroups";
    return nullptr;
  }
  auto layout = internal::cgroups::Layout::detect();
  if (!layout) {
    *why = "no cgroups: " + layout.error().message;
    return nullptr;
  }
  for (const std::string& controller : controllers) {
    if (!layout->has(controller)) {
      *why = "no cgroup " + controller + " controller";
      return nullptr;
    }
  }
  return std::make_unique<internal::cgroups::Layout>(std::move(layout).value());
}

}  // namespace mesos::test
