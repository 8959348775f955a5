#include "authentication/http/endpoint_guard.hpp"

#include <algorithm>

#include <glog/logging.h>

#include "common/base64.hpp"

namespace mesos::internal::authentication {

using process::Future;
using process::http::Request;
using process::http::Response;

namespace {

// Compares without stopping at the first difference, so that the time taken
// says nothing about where a guessed secret goes wrong.
bool sameSecret(const std::string& a, const std::string& b) {
  unsigned char difference = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    difference |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return difference == 0;
}

}  // namespace

Response EndpointGuard::forbidden(const std::string& why) {
  return Response{403, "text/plain", why + "\n", {}};
}

const std::string& EndpointGuard::realmName(Realm realm) const {
  switch (realm) {
    case Realm::kReadwrite: return options_.readwriteRealm;
    case Realm::kFramework: return options_.frameworkRealm;
    default: return options_.readonlyRealm;
  }
}

bool EndpointGuard::authenticates(Realm realm) const {
  switch (realm) {
    case Realm::kReadonly: return options_.readonly;
    case Realm::kReadwrite: return options_.readwrite;
    case Realm::kFramework: return options_.frameworks;
    case Realm::kNone: return false;
  }
  return false;
}

EndpointGuard::Outcome EndpointGuard::authenticate(Realm realm, const Request& request) const {
  if (!authenticates(realm)) return {};
  auto unauthorized = [&](const std::string& why) {
    Response response{401, "text/plain", why + "\n", {}};
    response.headers.emplace_back("WWW-Authenticate",
                                  "Basic realm=\"" + realmName(realm) + "\"");
    return Outcome{std::nullopt, std::move(response)};
  };
  const std::string& header = request.header("authorization");
  if (header.empty()) return unauthorized("Missing 'Authorization' header");
  size_t space = header.find(' ');
  std::string scheme = header.substr(0, space);
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (scheme != "basic" || space == std::string::npos) {
    return unauthorized("Expecting 'Authorization: Basic <credentials>'");
  }
  std::string_view encoded = std::string_view(header).substr(space + 1);
  while (!encoded.empty() && encoded.front() == ' ') encoded.remove_prefix(1);
  auto decoded = base64::decode(encoded);
  size_t colon = decoded ? decoded->find(':') : std::string::npos;
  if (colon == std::string::npos) {
    return unauthorized("Malformed 'Authorization' header: expecting base64 of principal:secret");
  }
  std::string principal = decoded->substr(0, colon);
  std::string secret = decoded->substr(colon + 1);
  auto known = options_.credentials.find(principal);
  if (known == options_.credentials.end() || !sameSecret(secret, known->second)) {
    LOG(WARNING) << "HTTP authentication failed for principal '" << principal << "' from "
                 << request.peer << " on " << request.path;
    return unauthorized("Authentication failed");
  }
  return Outcome{principal, std::nullopt};
}

bool EndpointGuard::authorized(authorizer::Action action,
                               const std::optional<std::string>& principal,
                               const std::optional<std::string>& object) const {
  return options_.authorizer == nullptr ||
         options_.authorizer->authorized(action, principal, object);
}

bool EndpointGuard::authorizedForAll(authorizer::Action action,
                                     const std::optional<std::string>& principal) const {
  return options_.authorizer == nullptr ||
         options_.authorizer->authorizedForAll(action, principal);
}

bool EndpointGuard::allowsByName(authorizer::Action action,
                                 const std::optional<std::string>& principal,
                                 const std::string& object) const {
  return options_.authorizer != nullptr &&
         options_.authorizer->allowsByName(action, principal, object);
}

RouteHandler EndpointGuard::guard(Realm realm, const std::string& path,
                                                  RouteHandler handler) const {
  const auto& authorizable = authorizer::authorizableEndpoints();
  bool checkPath = std::find(authorizable.begin(), authorizable.end(), path) != authorizable.end();
  return [self = shared_from_this(), realm, path, checkPath,
          handler = std::move(handler)](const Request& request) -> Future<Response> {
    Outcome outcome = self->authenticate(realm, request);
    if (outcome.refusal) return *outcome.refusal;
    if (checkPath && !self->authorized(authorizer::Action::kGetEndpoint, outcome.principal, path)) {
      return forbidden("Not authorized to GET " + path + " (ACL get_endpoints)");
    }
    if (!outcome.principal && !request.principal) return handler(request);
    Request authenticated = request;
    authenticated.principal = outcome.principal;
    return handler(authenticated);
  };
}

}  // namespace mesos::internal::authentication
