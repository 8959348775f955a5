#include "allocator/factory.hpp"

#include "allocator/chooser.hpp"
#include "allocator/hierarchical.hpp"

namespace mesos::allocator {

Result<std::unique_ptr<Allocator>> create(const std::string& name, const Config& config) {
  if (findPolicy(name) != nullptr) {
    return std::unique_ptr<Allocator>(new HierarchicalAllocator(name, config));
  }
  if (name.find('/') != std::string::npos || name.ends_with(".so")) return loadModule(name, config);
  return Error{"--allocator: unknown allocator '" + name + "' (expected " + policyNames() +
               " or the path of a module .so)"};
}

}  // namespace mesos::allocator
