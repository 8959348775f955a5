// Authorizer: decides whether a principal may do an action to an object.
// One interface, implementations in folders of their own (local/: Apache's
// ACLs), chosen by name with --authorizers (registry.cpp).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "authorizer/acls.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::authorizer {

class Authorizer {
 public:
  virtual ~Authorizer() = default;

  // Whether `principal` (nullopt: a request that did not authenticate) may
  // do `action` to `object`: a role, a user, a path, a framework's
  // principal... as the action names it (objectName()); nullopt stands for
  // "any object", which only a rule for any object allows. Answers at once,
  // never blocks: actors call it on their own thread.
  virtual bool authorized(Action action, const std::optional<std::string>& principal,
                          const std::optional<std::string>& object) const = 0;

  // Whether `principal` may do `action` to every object there could be (so
  // that a caller may skip asking object by object, e.g. to serve /state
  // unfiltered).
  virtual bool authorizedForAll(Action action,
                                const std::optional<std::string>& principal) const = 0;

  // Whether the rule that decides (`principal`, `object`) lists `object`
  // among its values and allows it: a grant by name, not by a rule for any
  // object or by `permissive` (the master lets a task run as root only so,
  // docs/security.md).
  virtual bool allowsByName(Action action, const std::optional<std::string>& principal,
                            const std::string& object) const = 0;
};

// How refusals and logs name `principal`: "principal 'p'", or "no
// principal" for a request that did not authenticate.
inline std::string describe(const std::optional<std::string>& principal) {
  return principal ? "principal '" + *principal + "'" : std::string("no principal");
}

// The authorizer named `name` ("local", the only one), deciding with
// `acls`. Fails naming the known ones for an unknown name.
Result<std::shared_ptr<const Authorizer>> createAuthorizer(const std::string& name,
                                                           const Acls& acls);

}  // namespace mesos::internal::authorizer
