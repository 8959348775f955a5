#include "common/roles.hpp"

#include <string_view>

namespace mesos::roles {

Result<void> validate(const std::string& role) {
  // Resources::validate() calls this for every resource with a role:
  // nothing is allocated unless the name is refused.
  if (role == "*") return {};
  if (role.empty()) return Error{"Role names cannot be the empty string"};
  if (role.front() == '/') return Error{"Role '" + role + "' cannot start with a slash"};
  if (role.back() == '/') return Error{"Role '" + role + "' cannot end with a slash"};
  if (role.find("//") != std::string::npos) {
    return Error{"Role '" + role + "' cannot contain two adjacent slashes"};
  }
  const std::string_view path(role);
  for (size_t begin = 0; begin < path.size();) {
    size_t end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view component = path.substr(begin, end - begin);
    if (component == "." || component == ".." || component == "*") {
      return Error{"Role '" + role + "' cannot include '" + std::string(component) +
                   "' as a component"};
    }
    if (component.front() == '-') {
      return Error{"Role component '" + std::string(component) +
                   "' is invalid because it starts with a dash"};
    }
    if (component.find_first_of("\t\n\v\f\r \x7f") != std::string_view::npos) {
      return Error{"Role component '" + std::string(component) +
                   "' is invalid because it contains backspace or whitespace"};
    }
    begin = end + 1;
  }
  return {};
}

bool multiRole(const FrameworkInfo& info) {
  for (const auto& capability : info.capabilities()) {
    if (capability.type() == FrameworkInfo::Capability::MULTI_ROLE) return true;
  }
  return false;
}

std::vector<std::string> ofFramework(const FrameworkInfo& info) {
  if (multiRole(info)) return {info.roles().begin(), info.roles().end()};
  return {info.has_role() && !info.role().empty() ? info.role() : std::string("*")};
}

}  // namespace mesos::roles
