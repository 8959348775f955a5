// The registry of authentication mechanisms: one line per folder.
#include "authentication/authentication.hpp"
#include "authentication/cram_md5/cram_md5.hpp"

namespace mesos::internal::authentication {

namespace {

struct Mechanism {
  const char* name;
  Result<std::unique_ptr<Authenticator>> (*authenticator)(const Credentials& credentials);
  std::unique_ptr<Authenticatee> (*authenticatee)();
};

constexpr Mechanism kMechanisms[] = {
    {"crammd5", &cram_md5::createAuthenticator, &cram_md5::createAuthenticatee},
};

const Mechanism* find(const std::string& name) {
  for (const Mechanism& mechanism : kMechanisms) {
    if (name == mechanism.name) return &mechanism;
  }
  return nullptr;
}

std::string known() {
  std::string out;
  for (const std::string& name : authenticatorNames()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

std::vector<std::string> authenticatorNames() {
  std::vector<std::string> names;
  for (const Mechanism& mechanism : kMechanisms) names.emplace_back(mechanism.name);
  return names;
}

Result<std::unique_ptr<Authenticator>> createAuthenticator(const std::string& name,
                                                           const Credentials& credentials) {
  const Mechanism* mechanism = find(name);
  if (mechanism == nullptr) {
    return Error{"unknown authenticator '" + name + "' (known: " + known() + ")"};
  }
  return mechanism->authenticator(credentials);
}

Result<std::unique_ptr<Authenticatee>> createAuthenticatee(const std::string& name) {
  const Mechanism* mechanism = find(name);
  if (mechanism == nullptr) {
    return Error{"unknown authenticatee '" + name + "' (known: " + known() + ")"};
  }
  return mechanism->authenticatee();
}

}  // namespace mesos::internal::authentication
