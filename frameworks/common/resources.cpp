#include "common/resources.hpp"

namespace mesos::frameworks {

Resource scalarResource(const std::string& name, double value, const std::string& role) {
  Resource resource;
  resource.set_name(name);
  resource.set_type(Value::SCALAR);
  resource.mutable_scalar()->set_value(value);
  resource.set_role(role);
  return resource;
}

}  // namespace mesos::frameworks
