#include "allocator/lottery/chooser.hpp"

#include <utility>
#include <vector>

#include "allocator/drf/shares.hpp"
#include "allocator/drf/sorter.hpp"
#include "allocator/lottery/lottery.hpp"

namespace mesos::allocator {

namespace {

class LotteryChooser final : public Chooser {
 public:
  explicit LotteryChooser(const Context& context)
      : sorter_(context.sorter), config_(context.config), lottery_(context.config.seed) {}

  // Roles in the sorter's order, their clients by number: a seed draws the
  // same for the same roles and clients.
  void beginCycle() override {
    std::vector<std::pair<Client, double>> tickets;
    for (const DrfSorter::RoleClients& role : sorter_.roster()) {
      double roleTickets = 0;
      if (config_.lotteryTickets == "guarantees") {
        auto guarantee = config_.guarantees.find(*role.name);
        if (guarantee != config_.guarantees.end()) {
          std::vector<double> scalars;
          sorter_.names().add(scalars, guarantee->second, +1);
          roleTickets = dominantShare(scalars, sorter_.total());
        }
      } else {
        auto weight = config_.weights.find(*role.name);
        roleTickets = weight == config_.weights.end() ? 1.0 : weight->second;
      }
      for (Client client : role.wanting) {
        tickets.emplace_back(client, roleTickets / static_cast<double>(role.clients));
      }
    }
    lottery_.reset(std::move(tickets));
  }

  std::optional<Client> choose(RoleFilter roleEligible, ClientFilter eligible) override {
    if (auto drawn = lottery_.draw(eligible)) return drawn;
    return sorter_.pick(roleEligible, eligible);
  }

 private:
  DrfSorter& sorter_;
  const Config& config_;
  Lottery lottery_;
};

}  // namespace

std::unique_ptr<Chooser> makeLotteryChooser(const Chooser::Context& context) {
  return std::make_unique<LotteryChooser>(context);
}

}  // namespace mesos::allocator
