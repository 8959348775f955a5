// --allocator=lottery (the paper's section 4.2.1): each pick is a draw
// (lottery.hpp) among the clients that want offers, in proportion to their
// tickets. Tickets are dealt at the start of each cycle: a role's weight
// (--lottery_tickets=weights) or the dominant share of the cluster its
// --guarantees amount to (=guarantees), split evenly among the role's
// clients. A client without tickets (a role without a guarantee, or one
// added since the cycle began) is reached only when no client with
// tickets may take the slave, in weighted DRF order.
#pragma once

#include <memory>

#include "allocator/chooser.hpp"

namespace mesos::allocator {

std::unique_ptr<Chooser> makeLotteryChooser(const Chooser::Context& context);

}  // namespace mesos::allocator
