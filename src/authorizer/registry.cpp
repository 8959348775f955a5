// The authorizers there are, by the name --authorizers gives.
#include "authorizer/authorizer.hpp"
#include "authorizer/local/local_authorizer.hpp"

namespace mesos::internal::authorizer {

Result<std::shared_ptr<const Authorizer>> createAuthorizer(const std::string& name,
                                                           const Acls& acls) {
  if (name == "local") return std::shared_ptr<const Authorizer>(new LocalAuthorizer(acls));
  return Error{"--authorizers: unknown authorizer '" + name + "' (known: local)"};
}

}  // namespace mesos::internal::authorizer
