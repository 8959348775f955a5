#include "allocator/factory.hpp"

#include "allocator/hierarchical.hpp"

namespace mesos::allocator {

Result<std::unique_ptr<Allocator>> create(const std::string& name, const Config& config) {
  if (name == "drf") return std::unique_ptr<Allocator>(new HierarchicalAllocator(Policy::kDrf, config));
  if (name == "priority") {
    return std::unique_ptr<Allocator>(new HierarchicalAllocator(Policy::kPriority, config));
  }
  if (name == "lottery") {
    return std::unique_ptr<Allocator>(new HierarchicalAllocator(Policy::kLottery, config));
  }
  if (name.find('/') != std::string::npos || name.ends_with(".so")) return loadModule(name, config);
  return Error{"--allocator: unknown allocator '" + name +
               "' (expected drf, priority, lottery or the path of a module .so)"};
}

}  // namespace mesos::allocator
