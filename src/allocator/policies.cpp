// The built-in allocation policies, by the name --allocator gives them. A
// new policy is a folder with its chooser (chooser.hpp) and one line here.
#include "allocator/chooser.hpp"
#include "allocator/drf/chooser.hpp"
#include "allocator/lottery/chooser.hpp"
#include "allocator/priority/chooser.hpp"

namespace mesos::allocator {

namespace {

struct Policy {
  const char* name;
  ChooserFactory make;
};

constexpr Policy kPolicies[] = {
    {"drf", &makeDrfChooser},
    {"priority", &makePriorityChooser},
    {"lottery", &makeLotteryChooser},
};

}  // namespace

ChooserFactory findPolicy(const std::string& name) {
  for (const Policy& policy : kPolicies) {
    if (name == policy.name) return policy.make;
  }
  return nullptr;
}

std::string policyNames() {
  std::string names;
  for (const Policy& policy : kPolicies) {
    if (!names.empty()) names += ", ";
    names += policy.name;
  }
  return names;
}

}  // namespace mesos::allocator
