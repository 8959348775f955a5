#include "common/secrets.hpp"

#include <algorithm>
#include <cctype>

#include "mesos.pb.h"

namespace mesos {

std::string maskSecret(Secrecy secrecy, const std::string& value) {
  switch (secrecy) {
    case Secrecy::kNone:
      return value;
    case Secrecy::kWhole:
      return kMasked;
    case Secrecy::kUnlessPath:
      if (value.rfind("/", 0) == 0 || value.rfind("file://", 0) == 0) return value;
      return kMasked;
    case Secrecy::kUrlPassword:
      return maskUrlPasswords(value);
  }
  return kMasked;
}

std::string maskUrlPasswords(const std::string& text) {
  std::string out;
  size_t done = 0;
  for (size_t scheme = text.find("://"); scheme != std::string::npos;
       scheme = text.find("://", scheme + 3)) {
    size_t start = scheme + 3;
    // The authority ends at the path; the credentials at its last '@'.
    size_t end = text.find_first_of("/?# \t", start);
    if (end == std::string::npos) end = text.size();
    size_t at = text.rfind('@', end == 0 ? 0 : end - 1);
    if (at == std::string::npos || at < start) continue;
    size_t colon = text.find(':', start);
    if (colon == std::string::npos || colon > at) continue;
    out.append(text, done, colon + 1 - done);
    out += kMasked;
    done = at;
  }
  out.append(text, done, std::string::npos);
  return out;
}

bool secretVariableName(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const char* word : {"SECRET", "PASSWORD", "PASSWD", "TOKEN", "KEY", "CREDENTIAL"}) {
    if (upper.find(word) != std::string::npos) return true;
  }
  return false;
}

CommandInfo maskEnvironment(const CommandInfo& command) {
  CommandInfo masked = command;
  if (!masked.has_environment()) return masked;
  for (auto& variable : *masked.mutable_environment()->mutable_variables()) {
    if (secretVariableName(variable.name())) variable.set_value(kMasked);
  }
  return masked;
}

}  // namespace mesos
