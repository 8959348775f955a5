// The local authorizer: Apache Mesos's, deciding with the ACLs given to
// --acls. For a request (principal, object) the rules of its action are
// tried in order; the first whose principals and objects both match it
// decides, by whether they allow it. When none matches, `permissive` does.
//
// A rule's entity matches and allows a request's entity as follows (the
// request's principal is "ANY" when it did not authenticate; its object
// "ANY" when it stands for every object):
//
//   request \ rule   values [..]            NONE            ANY
//   one value        matches when listed;   matches,        matches,
//                    allows when listed     never allows    allows
//   ANY              no match               matches, no     matches, allows
//
// So {"type": "NONE"} on either side of a rule refuses what it matches, and
// a request made without credentials is allowed only by rules whose
// principals are {"type": "ANY"}, or by `permissive` when no rule matches.
#pragma once

#include "authorizer/acls.hpp"
#include "authorizer/authorizer.hpp"

namespace mesos::internal::authorizer {

class LocalAuthorizer : public Authorizer {
 public:
  explicit LocalAuthorizer(Acls acls) : acls_(std::move(acls)) {}

  bool authorized(Action action, const std::optional<std::string>& principal,
                  const std::optional<std::string>& object) const override;
  bool authorizedForAll(Action action,
                        const std::optional<std::string>& principal) const override;
  bool allowsByName(Action action, const std::optional<std::string>& principal,
                    const std::string& object) const override;

 private:
  Acls acls_;
};

}  // namespace mesos::internal::authorizer
