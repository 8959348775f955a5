// EndpointGuard: who may call a daemon's HTTP endpoints. Each route is in
// one of Apache Mesos's authentication realms; a realm whose
// --authenticate_http_* flag is set answers a request without valid Basic
// credentials with 401 and `WWW-Authenticate: Basic realm="<realm>"`. A
// request that authenticated reaches its route with Request::principal set.
// With an authorizer (--acls), the endpoints Apache lets get_endpoints
// rules name (/metrics/snapshot, /files/debug, /monitor/statistics...)
// answer 403 to a principal not allowed; the routes themselves ask it about
// what they show (view_frameworks...) through authorized().
//
// A guard is immutable once made and shared (shared_ptr<const>) by the
// actors of one daemon; any thread may use it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "authentication/http/credentials.hpp"
#include "authorizer/authorizer.hpp"
#include "process/actor.hpp"
#include "process/http.hpp"

namespace mesos::internal::authentication {

// What a route answers with (as process::Actor::route() takes it).
using RouteHandler =
    std::function<process::Future<process::http::Response>(const process::http::Request&)>;

enum class Realm {
  kNone,       // never authenticated (/health, /version, the web UI's files)
  kReadonly,   // what only reads: /state, /flags, /metrics/snapshot, /files/...
  kReadwrite,  // what changes something: /teardown
  kFramework,  // the v1 scheduler API
};

class EndpointGuard : public std::enable_shared_from_this<EndpointGuard> {
 public:
  struct Options {
    // The realms' names: Apache's are mesos-master-readonly,
    // mesos-master-readwrite and mesos-master-scheduler on a master,
    // mesos-agent-readonly and mesos-agent-readwrite on an agent.
    std::string readonlyRealm;
    std::string readwriteRealm;
    std::string frameworkRealm;
    // Which realms require credentials.
    bool readonly = false;
    bool readwrite = false;
    bool frameworks = false;
    Secrets credentials;
    // Null: everything is authorized.
    std::shared_ptr<const authorizer::Authorizer> authorizer;
  };

  explicit EndpointGuard(Options options) : options_(std::move(options)) {}

  // `handler` behind authentication in `realm` and, when `path` is one
  // that get_endpoints rules name, authorization of that path. The route
  // keeps the guard alive. REQUIRES: the guard is owned by a shared_ptr.
  RouteHandler guard(Realm realm, const std::string& path,
                                     RouteHandler handler) const;

  // The principal of `request` in `realm`, or the 401 to answer. Without
  // authentication in the realm: nullopt, whatever the request carries.
  struct Outcome {
    std::optional<std::string> principal;
    std::optional<process::http::Response> refusal;
  };
  Outcome authenticate(Realm realm, const process::http::Request& request) const;

  // Whether `principal` may do `action` to `object` (nullopt: to any);
  // true without an authorizer.
  bool authorized(authorizer::Action action, const std::optional<std::string>& principal,
                  const std::optional<std::string>& object) const;
  bool authorizedForAll(authorizer::Action action,
                        const std::optional<std::string>& principal) const;
  // Authorizer::allowsByName(); false without an authorizer.
  bool allowsByName(authorizer::Action action, const std::optional<std::string>& principal,
                    const std::string& object) const;
  bool authorizing() const { return options_.authorizer != nullptr; }
  bool authenticates(Realm realm) const;

  // The 403 a refused request gets.
  static process::http::Response forbidden(const std::string& why);

 private:
  const std::string& realmName(Realm realm) const;

  Options options_;
};

}  // namespace mesos::internal::authentication
