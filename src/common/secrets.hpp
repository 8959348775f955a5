// What stays hidden wherever the daemons show their configuration or their
// executors (/flags, /state, logs): docs/security.md, "Secrets". A secret
// shows as kMasked.
//
// Flags declare their own secrecy where they are defined
// (FlagSet::secret(), common/flags.hpp), so that a flag added later is
// masked by saying so once. Environment variables of executors and tasks
// are shown with their names; the value is masked when the name looks like
// a secret's (secretVariableName()).
#pragma once

#include <string>

namespace mesos {

class CommandInfo;  // mesos.pb.h

inline constexpr const char* kMasked = "********";

enum class Secrecy {
  kNone,         // shown as it is
  kWhole,        // always kMasked
  kUnlessPath,   // kMasked, unless a path to the secret ("/..." or
                 // "file://..."): the contents are inline
  kUrlPassword,  // URLs shown with their passwords masked (maskUrlPasswords())
};

// `value` as it may be shown for a flag of `secrecy`.
std::string maskSecret(Secrecy secrecy, const std::string& value);

// `text` with the password of every "scheme://user:password@" in it masked:
// "zk://jo:pw@h1:2181,h2:2181/mesos" -> "zk://jo:********@h1:2181,h2:2181/mesos".
// A URL without a password (or without credentials) stays as it is.
std::string maskUrlPasswords(const std::string& text);

// Whether an environment variable named `name` holds a secret by its name:
// it contains, in any case, SECRET, PASSWORD, PASSWD, TOKEN, KEY or
// CREDENTIAL (AWS_SECRET_ACCESS_KEY, DB_PASSWORD, GITHUB_TOKEN, API_KEY).
bool secretVariableName(const std::string& name);

// `command` with the value of every secret-named variable of its
// environment masked.
CommandInfo maskEnvironment(const CommandInfo& command);

}  // namespace mesos
