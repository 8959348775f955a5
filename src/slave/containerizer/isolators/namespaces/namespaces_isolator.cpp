#include "slave/containerizer/isolators/namespaces/namespaces_isolator.hpp"

#include <unistd.h>

namespace mesos::internal::isolation {

Result<std::unique_ptr<NamespacesIsolator>> NamespacesIsolator::create(
    const std::vector<std::string>& names) {
  if (::geteuid() != 0) {
    return Error{"needs root: only root can give a container namespaces of its own"};
  }
  std::vector<std::string> namespaces;
  for (const std::string& name : names) namespaces.push_back(name.substr(name.find('/') + 1));
  return std::unique_ptr<NamespacesIsolator>(new NamespacesIsolator(std::move(namespaces)));
}

std::string NamespacesIsolator::name() const {
  std::string names;
  for (const std::string& ns : namespaces_) {
    names += (names.empty() ? "" : ",") + ("namespaces/" + ns);
  }
  return names;
}

Result<mesos::isolation::LaunchRequirements> NamespacesIsolator::prepare(
    const mesos::isolation::ContainerConfig&) {
  mesos::isolation::LaunchRequirements requirements;
  requirements.namespaces = namespaces_;
  return requirements;
}

}  // namespace mesos::internal::isolation
