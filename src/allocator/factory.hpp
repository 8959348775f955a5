// Choosing the master's allocator: --allocator=drf|priority|lottery (the
// built-in policies, by the names in policies.cpp), or the path of a module
// (a shared library; see docs/allocation-modules.md).
#pragma once

#include <memory>
#include <string>

#include "mesos/result.hpp"
#include "mesos/allocator.hpp"

namespace mesos::allocator {

// A new allocator named `name`, configured by `config`. Fails with one line
// for an unknown name, a module that does not load or export the factory
// symbol, or a module whose factory refuses the configuration.
Result<std::unique_ptr<Allocator>> create(const std::string& name, const Config& config);

// Loads the module at `path` (never unloaded) and calls its factory.
Result<std::unique_ptr<Allocator>> loadModule(const std::string& path, const Config& config);

}  // namespace mesos::allocator
