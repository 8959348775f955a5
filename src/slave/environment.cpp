#include "slave/environment.hpp"

#include <set>

#include <glog/logging.h>

#include "common/json.hpp"
#include "common/json_flag.hpp"

extern char** environ;

namespace mesos::internal::slave {

namespace {

bool inherited(const std::string& name) {
  // LD_LIBRARY_PATH is the operator's, which the slave itself runs with:
  // executors built against libraries outside the loader's folders (an
  // unpacked package, a build tree) need it too.
  static const std::set<std::string> kNames = {"PATH",   "LD_LIBRARY_PATH", "HOME",
                                               "USER",   "LOGNAME",         "LANG",
                                               "LANGUAGE", "TZ",            "TMPDIR"};
  return kNames.count(name) != 0 || name.rfind("LC_", 0) == 0;
}

}  // namespace

std::map<std::string, std::string> inheritedEnvironment() {
  std::map<std::string, std::string> environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string text(*entry);
    size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = text.substr(0, eq);
    if (inherited(name)) environment[name] = text.substr(eq + 1);
  }
  if (environment.count("PATH") == 0) environment["PATH"] = kDefaultPath;
  return environment;
}

Result<std::map<std::string, std::string>> parseExecutorEnvironmentVariables(
    const std::string& value) {
  const std::string flag = "--executor_environment_variables: ";
  const std::string example = " (e.g. '{\"PATH\":\"/bin:/usr/bin\"}')";
  auto text = jsonFlagText("executor_environment_variables", value);
  if (!text) return text.error();
  auto parsed = json::parse(*text);
  if (!parsed) return Error{flag + "not JSON (" + parsed.error().message + ")" + example};
  if (!parsed->isObject()) return Error{flag + "expected a JSON object of names and values" + example};
  std::map<std::string, std::string> variables;
  for (const auto& [name, variable] : parsed->object()) {
    if (!variable.isString()) {
      return Error{flag + "must only contain string values; '" + name + "' is not one"};
    }
    if (!validVariable(name, variable.string())) {
      return Error{flag + "'" + name + "' is not a variable name, or its value holds a NUL byte"};
    }
    variables[name] = variable.string();
  }
  return variables;
}

std::map<std::string, std::string> baseEnvironment(const std::optional<std::string>& flag) {
  if (!flag) return inheritedEnvironment();
  auto parsed = parseExecutorEnvironmentVariables(*flag);
  if (parsed) return std::move(parsed).value();
  LOG(WARNING) << parsed.error().message << "; executors inherit the slave's PATH instead";
  return inheritedEnvironment();
}

bool validVariable(const std::string& name, const std::string& value) {
  return !name.empty() && name.find('=') == std::string::npos &&
         name.find('\0') == std::string::npos && value.find('\0') == std::string::npos;
}

std::string encodeEnvironment(const std::map<std::string, std::string>& environment) {
  std::string out;
  for (const auto& [name, value] : environment) {
    out += name;
    out += '=';
    out += value;
    out += '\0';
  }
  return out;
}

}  // namespace mesos::internal::slave
