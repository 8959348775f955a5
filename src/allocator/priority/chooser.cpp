#include "allocator/priority/chooser.hpp"

#include "allocator/drf/chooser.hpp"
#include "allocator/drf/sorter.hpp"

namespace mesos::allocator {

// The DRF chooser, over a sorter that puts priority first.
std::unique_ptr<Chooser> makePriorityChooser(const Chooser::Context& context) {
  context.sorter.orderByPriority();
  return makeDrfChooser(context);
}

}  // namespace mesos::allocator
