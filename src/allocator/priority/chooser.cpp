#include "allocator/priority/chooser.hpp"

#include "allocator/drf/sorter.hpp"

namespace mesos::allocator {

namespace {

class PriorityChooser final : public Chooser {
 public:
  explicit PriorityChooser(DrfSorter& sorter) : sorter_(sorter) { sorter_.orderByPriority(); }

  std::optional<Client> choose(RoleFilter roleEligible, ClientFilter eligible) override {
    return sorter_.pick(roleEligible, eligible);
  }

 private:
  DrfSorter& sorter_;
};

}  // namespace

std::unique_ptr<Chooser> makePriorityChooser(const Chooser::Context& context) {
  return std::make_unique<PriorityChooser>(context.sorter);
}

}  // namespace mesos::allocator
