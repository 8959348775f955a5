#include "authentication/http/credentials.hpp"

#include "authentication/credentials.hpp"

namespace mesos::internal::authentication {

Result<Secrets> loadCredentials(const std::string& flag, const std::string& flagName) {
  std::string prefix = "--" + flagName + ": ";
  size_t first = flag.find_first_not_of(" \t\r\n");
  bool inline_ = first != std::string::npos && flag[first] == '{';
  std::string path = flag.rfind("file://", 0) == 0 ? flag.substr(7) : flag;
  if (!inline_ && (path.empty() || path[0] != '/')) {
    return Error{prefix + "expected the absolute path or file:// URL of a credentials file, not '" +
                 flag + "'"};
  }
  auto credentials = inline_ ? parseCredentials(flag) : readCredentials(flag);
  if (!credentials) return Error{prefix + credentials.error().message};
  Secrets secrets;
  for (const Credential& credential : credentials->credentials()) {
    secrets[credential.principal()] = credential.secret();
  }
  return secrets;
}

}  // namespace mesos::internal::authentication
