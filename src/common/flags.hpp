// Command-line flags the way Apache Mesos takes them: `--name=value`,
// `--name` / `--no-name` for booleans, and the environment variable
// `<PREFIX>NAME` (e.g. MESOS_WORK_DIR for --work_dir) for any flag not on the
// command line. Durations read "5secs", "100ms", "15mins", "2hrs", "1days",
// "1weeks" (also "ns", "us"); byte sizes read "512MB", "4GB", "100B", "1KB",
// "2TB".
//
//   struct MasterFlags : mesos::flags::FlagSet {
//     MasterFlags() {
//       add(&port, "port", "Port to listen on", 5050);
//       add(&work_dir, "work_dir", "Where to keep state");
//     }
//     uint16_t port;
//     std::optional<std::string> work_dir;
//   };
//   MasterFlags flags;
//   auto extra = flags.load("MESOS_", argc, argv);
//   if (!extra) { std::cerr << program << ": " << extra.error().message << "\n"; return 1; }
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/secrets.hpp"
#include "mesos/result.hpp"

namespace mesos::flags {

using Duration = std::chrono::nanoseconds;

struct Bytes {
  uint64_t value = 0;
  friend bool operator==(const Bytes&, const Bytes&) = default;
};

// Parsers, also used for values that arrive other ways (JSON, HTTP).
Result<Duration> parseDuration(const std::string& text);
Result<Bytes> parseBytes(const std::string& text);
Result<bool> parseBool(const std::string& text);
// "5secs", "1.5mins" style, the inverse of parseDuration: the largest unit
// that gives an exact value with at most three decimals; zero is "0secs".
std::string formatDuration(Duration d);
std::string formatBytes(Bytes b);

class FlagSet {
 public:
  virtual ~FlagSet() = default;

  // Registers a flag. `defaultValue` is stored into *field at once and shows
  // in usage(). The name "help" is built in; registering it, or any name
  // twice, CHECK-fails. Supported T: std::string, bool, int, int64_t, uint16_t,
  // uint32_t, uint64_t, double, Duration, Bytes.
  // (The default is not used to deduce T, so `add(&port, "port", "...", 5050)`
  // works for a uint16_t port and a string flag takes a literal.)
  template <typename T>
  void add(T* field, const std::string& name, const std::string& help,
           std::type_identity_t<T> defaultValue);
  // A flag without a default: *field stays empty unless given.
  template <typename T>
  void add(std::optional<T>* field, const std::string& name, const std::string& help);
  // `alias` names the registered flag `name` too (Apache Mesos's
  // --authenticate for --authenticate_frameworks), on the command line and
  // in the environment. usage() mentions it in the flag's help.
  // REQUIRES: `name` is registered; `alias` is not a flag name.
  void alias(const std::string& alias, const std::string& name);

  // Declares flag `name` (registered already) as holding a secret: values()
  // and whatever shows flags (/flags, /state) mask it as `secrecy` says
  // (common/secrets.hpp), e.g. secret("credentials", Secrecy::kUnlessPath).
  // An unknown name CHECK-fails.
  void secret(const std::string& name, Secrecy secrecy = Secrecy::kWhole);

  // Reads `<envPrefix>NAME` variables, then argv (argv wins). Returns the
  // arguments that are not flags (after a lone "--", everything). Fails, with
  // one line naming the flag and the problem, on an unknown flag, a value
  // that does not parse, or a check (see validate()) that fails. `--help`
  // sets help() and succeeds.
  Result<std::vector<std::string>> load(const std::string& envPrefix, int argc,
                                        const char* const* argv);

  // Cross-flag checks run after loading; override to add them.
  virtual Result<void> validate() const { return {}; }

  bool help() const { return help_; }
  // "Usage: <program> [options]" and one line per flag with its default.
  std::string usage(const std::string& program) const;
  // Every flag's current value as text (for /state "flags"), secrets
  // masked (secret()); optional flags that are unset are left out.
  std::map<std::string, std::string> values() const;

 private:
  // Fields are found by their offset from this FlagSet, so that a copy of a
  // derived flags object loads and reports its own fields, not the
  // original's. REQUIRES: registered fields are members of the derived
  // object.
  struct Flag {
    std::string name;
    std::string help;
    std::string defaultText;  // "" when there is no default
    bool boolean = false;
    std::ptrdiff_t offset = 0;  // field address minus `this`
    Result<void> (*set)(void* field, const std::string& text) = nullptr;
    // The field's value as text; nullopt for an optional flag that is unset.
    std::optional<std::string> (*get)(const void* field) = nullptr;
    Secrecy secrecy = Secrecy::kNone;
  };
  void addFlag(Flag flag);
  std::ptrdiff_t offsetOf(const void* field) const;
  void* fieldOf(const Flag& flag);
  const void* fieldOf(const Flag& flag) const;
  Result<void> setFlag(const Flag& flag, const std::string& value, const std::string& source);

  std::map<std::string, Flag> flags_;
  std::map<std::string, std::string> aliases_;  // alias -> flag name
  bool help_ = false;
};

}  // namespace mesos::flags

#include "common/flags_impl.hpp"
