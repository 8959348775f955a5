// --allocator=drf: weighted Dominant Resource Fairness (the default). A
// slave goes to the first eligible client in the sorter's order: roles by
// weighted dominant share, then the role's clients by dominant share
// (drf/sorter.hpp keeps that order as allocations change).
#pragma once

#include <memory>

#include "allocator/chooser.hpp"

namespace mesos::allocator {

std::unique_ptr<Chooser> makeDrfChooser(const Chooser::Context& context);

}  // namespace mesos::allocator
