// What an executor's environment is made of (docs/slave.md, "The executor's
// environment"), and how it reaches the executor without passing through
// the privileged programs that start it.
//
// The slave's own environment is not the executor's: only the variables
// kInheritedVariables names come from it (or, when the operator gives
// --executor_environment_variables, exactly those instead), then the
// slave's MESOS_* variables, then the executor's CommandInfo.environment,
// which wins. The framework's loader variables (LD_PRELOAD,
// LD_LIBRARY_PATH, ...) are in that last part only, and reach
// the executor only through the launch helper (mesos-containerizer
// --environment_fd), which reads them after it dropped root.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "mesos/result.hpp"

namespace mesos::internal::slave {

// The PATH an executor gets when the slave has none (and the operator gave
// none): the usual system directories.
constexpr const char* kDefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// The variables of this process's environment that an executor inherits
// when --executor_environment_variables is not given: PATH (kDefaultPath
// when unset), LD_LIBRARY_PATH, HOME, USER, LOGNAME, LANG, LANGUAGE, LC_*,
// TZ and TMPDIR.
// The launch helper replaces HOME, USER and LOGNAME with the task user's
// when it switches to that user.
std::map<std::string, std::string> inheritedEnvironment();

// The variables of --executor_environment_variables: a JSON object whose
// values are strings, inline or as file:///PATH. Fails with one line naming
// the flag and what is wrong.
Result<std::map<std::string, std::string>> parseExecutorEnvironmentVariables(
    const std::string& value);

// What every executor's environment starts from: the variables of
// --executor_environment_variables when `flag` is set (already checked by
// Flags::validate(); when it no longer parses, as when its file went, the
// inherited ones, with a warning), else inheritedEnvironment().
std::map<std::string, std::string> baseEnvironment(const std::optional<std::string>& flag);

// Whether `name`=`value` can be an environment entry: a name that is not
// empty and holds no '=' or NUL byte, a value without NUL bytes.
bool validVariable(const std::string& name, const std::string& value);

// The environment as the launch helper reads it: each NAME=VALUE followed
// by a NUL byte.
std::string encodeEnvironment(const std::map<std::string, std::string>& environment);

}  // namespace mesos::internal::slave
