// The HTTP authentication and authorization flags a master and an agent
// share, with Apache Mesos's names: a member of MasterFlags and SlaveFlags
// that registers them (addTo) and builds the daemon's EndpointGuard from
// them.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "authentication/http/endpoint_guard.hpp"
#include "common/flags.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::authentication {

enum class Daemon { kMaster, kAgent };

struct HttpSecurityFlags {
  bool authenticate_http_readonly = false;
  bool authenticate_http_readwrite = false;
  bool authenticate_http_frameworks = false;  // master only
  std::optional<std::string> http_credentials;
  std::string http_authenticators = "basic";
  std::string http_framework_authenticators = "basic";  // master only
  std::optional<std::string> acls;
  std::string authorizers = "local";  // --authorizers on a master, --authorizer on an agent

  // Registers the flags on `set`. REQUIRES: this is a member of `set`'s
  // derived object (flags are found by offset).
  void addTo(flags::FlagSet& set, Daemon daemon);

  // The guard the flags describe: reads --http_credentials and --acls.
  // Fails with one line naming the flag and what is wrong (the ACL file's
  // line, a missing --http_credentials, an unknown authenticator). With
  // `warn`, logs the ACLs that are accepted but not checked (once, when
  // the flags are validated at start-up).
  Result<std::shared_ptr<EndpointGuard>> guard(Daemon daemon, bool warn = false) const;
};

}  // namespace mesos::internal::authentication
