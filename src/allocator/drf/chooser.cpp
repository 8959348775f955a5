#include "allocator/drf/chooser.hpp"

#include "allocator/drf/sorter.hpp"

namespace mesos::allocator {

namespace {

class DrfChooser final : public Chooser {
 public:
  explicit DrfChooser(DrfSorter& sorter) : sorter_(sorter) {}

  std::optional<Client> choose(RoleFilter roleEligible, ClientFilter eligible) override {
    return sorter_.pick(roleEligible, eligible);
  }

 private:
  DrfSorter& sorter_;
};

}  // namespace

std::unique_ptr<Chooser> makeDrfChooser(const Chooser::Context& context) {
  return std::make_unique<DrfChooser>(context.sorter);
}

}  // namespace mesos::allocator
