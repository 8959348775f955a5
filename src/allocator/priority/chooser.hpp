// --allocator=priority: strict priority between roles (--priorities), DRF
// within a priority. Every role of a higher priority comes before every
// role of a lower one, whatever their shares; roles of one priority, and a
// role's clients, in weighted DRF order. The order is the sorter's, told to
// put priority first (DrfSorter::orderByPriority()); revocation takes from
// the lowest priority first.
#pragma once

#include <memory>

#include "allocator/chooser.hpp"

namespace mesos::allocator {

std::unique_ptr<Chooser> makePriorityChooser(const Chooser::Context& context);

}  // namespace mesos::allocator
