// libFuzzer target for the ACL parser (authorizer/acls.hpp), which reads
// the operator's --acls file, and the local authorizer built from what it
// accepts.
//
// Input: the bytes of an ACL document. These must hold:
//   - parsing either fails with a one-line, non-empty message, or gives
//     rules whose ANY and NONE entities hold no values;
//   - loadAcls() on the same text inline (when it starts with '{') agrees;
//   - the authorizer's answers agree with each other for a few principals
//     and objects taken from the document: authorizedForAll() implies
//     authorized() for every object, allowsByName() implies authorized(),
//     and a request no rule can match gets `permissive`.
// A violation aborts, which libFuzzer reports as a crash.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authorizer/acls.hpp"
#include "authorizer/authorizer.hpp"

namespace {

using namespace mesos::internal::authorizer;

#define FUZZ_CHECK(condition)                                                                \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

constexpr Action kActions[] = {
    Action::kRegisterFramework, Action::kRunTask,         Action::kTeardownFramework,
    Action::kViewFramework,     Action::kViewTask,        Action::kViewExecutor,
    Action::kViewFlags,         Action::kAccessSandbox,   Action::kAccessMesosLog,
    Action::kGetEndpoint,       Action::kReserveResources, Action::kUnreserveResources,
    Action::kCreateVolume,      Action::kDestroyVolume};

void checkEntity(const Entity& entity) {
  if (entity.type != Entity::Type::kSome) FUZZ_CHECK(entity.values.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto acls = parseAcls(text);
  if (!acls) {
    const std::string& message = acls.error().message;
    FUZZ_CHECK(!message.empty());
    FUZZ_CHECK(message.find('\n') == std::string::npos);
    return 0;
  }
  if (!text.empty() && text[0] == '{') {
    auto loaded = loadAcls(std::string(text));
    FUZZ_CHECK(loaded.ok());
    FUZZ_CHECK(loaded->permissive == acls->permissive);
    FUZZ_CHECK(loaded->rules.size() == acls->rules.size());
  }

  // Principals and objects to ask about: every value named, and some no
  // rule names.
  std::vector<std::optional<std::string>> names{std::nullopt, std::string("\x01unnamed")};
  for (const auto& [action, rules] : acls->rules) {
    for (const Rule& rule : rules) {
      checkEntity(rule.subjects);
      checkEntity(rule.objects);
      for (const std::string& value : rule.subjects.values) names.push_back(value);
      for (const std::string& value : rule.objects.values) names.push_back(value);
    }
  }
  if (names.size() > 24) names.resize(24);

  auto created = createAuthorizer("local", *acls);
  FUZZ_CHECK(created.ok());
  const Authorizer& authorizer = **created;
  for (Action action : kActions) {
    bool hasRules = acls->rules.count(action) > 0 && !acls->rules.at(action).empty();
    for (const auto& principal : names) {
      bool all = authorizer.authorizedForAll(action, principal);
      for (const auto& object : names) {
        bool allowed = authorizer.authorized(action, principal, object);
        if (all && object.has_value()) FUZZ_CHECK(allowed);
        if (object.has_value() && authorizer.allowsByName(action, principal, *object)) {
          FUZZ_CHECK(allowed);
        }
        if (!hasRules) FUZZ_CHECK(allowed == acls->permissive);
      }
    }
  }
  return 0;
}
