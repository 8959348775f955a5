#include "authorizer/local/local_authorizer.hpp"

#include <algorithm>

namespace mesos::internal::authorizer {

namespace {

using Type = Entity::Type;

bool listed(const Entity& rule, const std::string& value) {
  return std::find(rule.values.begin(), rule.values.end(), value) != rule.values.end();
}

// A request's side: one value, or ANY (nullopt).
bool matches(const std::optional<std::string>& request, const Entity& rule) {
  if (rule.type == Type::kAny || rule.type == Type::kNone) return true;
  return request.has_value() && listed(rule, *request);
}

bool allows(const std::optional<std::string>& request, const Entity& rule) {
  if (rule.type == Type::kAny) return true;
  if (rule.type == Type::kNone) return false;
  return request.has_value() && listed(rule, *request);
}

}  // namespace

bool LocalAuthorizer::authorized(Action action, const std::optional<std::string>& principal,
                                 const std::optional<std::string>& object) const {
  auto rules = acls_.rules.find(action);
  if (rules != acls_.rules.end()) {
    for (const Rule& rule : rules->second) {
      if (matches(principal, rule.subjects) && matches(object, rule.objects)) {
        return allows(principal, rule.subjects) && allows(object, rule.objects);
      }
    }
  }
  return acls_.permissive;
}

// Every object is allowed when every rule that can match one of them, up to
// the first that matches them all, allows what it matches.
bool LocalAuthorizer::authorizedForAll(Action action,
                                       const std::optional<std::string>& principal) const {
  auto rules = acls_.rules.find(action);
  if (rules != acls_.rules.end()) {
    for (const Rule& rule : rules->second) {
      if (!matches(principal, rule.subjects)) continue;
      if (!allows(principal, rule.subjects)) return false;
      if (rule.objects.type == Type::kNone) return false;
      if (rule.objects.type == Type::kAny) return true;
    }
  }
  return acls_.permissive;
}

bool LocalAuthorizer::allowsByName(Action action, const std::optional<std::string>& principal,
                                   const std::string& object) const {
  auto rules = acls_.rules.find(action);
  if (rules == acls_.rules.end()) return false;
  for (const Rule& rule : rules->second) {
    if (matches(principal, rule.subjects) && matches(object, rule.objects)) {
      return allows(principal, rule.subjects) && rule.objects.type == Type::kSome &&
             listed(rule.objects, object);
    }
  }
  return false;
}

}  // namespace mesos::internal::authorizer
