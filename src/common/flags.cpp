#include "common/flags.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <system_error>

#include <glog/logging.h>

namespace mesos::flags {

namespace {

struct Unit {
  const char* suffix;
  int64_t nanos;
};

// Largest first: formatDuration picks the first exact one.
constexpr Unit kDurationUnits[] = {
    {"weeks", 7LL * 24 * 3600 * 1000000000LL},
    {"days", 24LL * 3600 * 1000000000LL},
    {"hrs", 3600LL * 1000000000LL},
    {"mins", 60LL * 1000000000LL},
    {"secs", 1000000000LL},
    {"ms", 1000000LL},
    {"us", 1000LL},
    {"ns", 1LL},
};

struct ByteUnit {
  const char* suffix;
  uint64_t bytes;
};

constexpr ByteUnit kByteUnits[] = {
    {"TB", 1ULL << 40},
    {"GB", 1ULL << 30},
    {"MB", 1ULL << 20},
    {"KB", 1ULL << 10},
    {"B", 1ULL},
};

// Splits "1.5secs" into a non-negative decimal number and its unit.
Result<std::pair<double, std::string>> splitQuantity(const std::string& text) {
  size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  std::string number = text.substr(0, end);
  std::string unit = text.substr(end);
  if (number.empty()) return Error{"expected a non-negative number followed by a unit"};
  double value = 0;
  auto [last, ec] = std::from_chars(number.data(), number.data() + number.size(), value, std::chars_format::fixed);
  if (ec != std::errc() || last != number.data() + number.size() || !std::isfinite(value)) {
    return Error{"'" + number + "' is not a number"};
  }
  return std::make_pair(value, unit);
}

}  // namespace

Result<Duration> parseDuration(const std::string& text) {
  auto parts = splitQuantity(text);
  if (!parts) return parts.error();
  const auto& [value, unit] = *parts;
  for (const auto& candidate : kDurationUnits) {
    if (unit != candidate.suffix) continue;
    double nanos = value * static_cast<double>(candidate.nanos);
    if (nanos >= 9.2e18) return Error{"duration '" + text + "' is too large"};
    return Duration(std::llround(nanos));
  }
  if (unit.empty()) return Error{"missing unit (one of ns, us, ms, secs, mins, hrs, days, weeks)"};
  return Error{"unknown unit '" + unit + "' (expected one of ns, us, ms, secs, mins, hrs, days, weeks)"};
}

std::string formatDuration(Duration d) {
  int64_t nanos = d.count();
  if (nanos == 0) return "0secs";  // how users write it, not "0ns"
  std::string sign = nanos < 0 ? "-" : "";
  // Work in unsigned so that the most negative duration has a magnitude.
  uint64_t magnitude = nanos < 0 ? uint64_t{0} - static_cast<uint64_t>(nanos) : static_cast<uint64_t>(nanos);
  for (const auto& unit : kDurationUnits) {
    auto size = static_cast<uint64_t>(unit.nanos);
    if (magnitude < size) continue;
    uint64_t whole = magnitude / size;
    uint64_t rest = magnitude % size;
    // Exact with at most three decimals (e.g. "1.5mins", "2.25hrs")?
    if (size % 1000 != 0 && rest != 0) continue;
    if (rest != 0 && rest % (size / 1000) != 0) continue;
    std::string out = sign + std::to_string(whole);
    if (rest != 0) {
      std::string digits = std::to_string(rest / (size / 1000));
      digits.insert(0, 3 - digits.size(), '0');
      while (digits.back() == '0') digits.pop_back();
      out += "." + digits;
    }
    return out + unit.suffix;
  }
  return sign + std::to_string(magnitude) + "ns";
}

Result<Bytes> parseBytes(const std::string& text) {
  auto parts = splitQuantity(text);
  if (!parts) return parts.error();
  const auto& [value, unit] = *parts;
  for (const auto& candidate : kByteUnits) {
    if (unit != candidate.suffix) continue;
    double bytes = value * static_cast<double>(candidate.bytes);
    if (bytes >= 1.8e19) return Error{"size '" + text + "' is too large"};
    return Bytes{static_cast<uint64_t>(std::llround(bytes))};
  }
  if (unit.empty()) return Error{"missing unit (one of B, KB, MB, GB, TB)"};
  return Error{"unknown unit '" + unit + "' (expected one of B, KB, MB, GB, TB)"};
}

std::string formatBytes(Bytes b) {
  for (const auto& unit : kByteUnits) {
    if (b.value != 0 && b.value % unit.bytes == 0) return std::to_string(b.value / unit.bytes) + unit.suffix;
  }
  return std::to_string(b.value) + "B";
}

Result<bool> parseBool(const std::string& text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  return Error{"expected 'true' or 'false'"};
}

namespace internal {

Result<int64_t> parseSigned(const std::string& text, int64_t min, int64_t max) {
  int64_t value = 0;
  auto [last, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || last != text.data() + text.size() || ec == std::errc::invalid_argument) {
    return Error{"expected an integer"};
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    return Error{"out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]"};
  }
  return value;
}

Result<uint64_t> parseUnsigned(const std::string& text, uint64_t max) {
  uint64_t value = 0;
  auto [last, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || last != text.data() + text.size() || ec == std::errc::invalid_argument) {
    return Error{"expected a non-negative integer"};
  }
  if (ec == std::errc::result_out_of_range || value > max) {
    return Error{"out of range [0, " + std::to_string(max) + "]"};
  }
  return value;
}

Result<double> parseDouble(const std::string& text) {
  double value = 0;
  auto [last, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || last != text.data() + text.size() || ec != std::errc() || !std::isfinite(value)) {
    return Error{"expected a number"};
  }
  return value;
}

}  // namespace internal

std::string Parser<double>::format(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  CHECK(ec == std::errc());
  return std::string(buffer, end);
}

std::ptrdiff_t FlagSet::offsetOf(const void* field) const {
  return static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(field) -
                                     reinterpret_cast<std::uintptr_t>(this));
}

void* FlagSet::fieldOf(const Flag& flag) {
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(this) + static_cast<std::uintptr_t>(flag.offset));
}

const void* FlagSet::fieldOf(const Flag& flag) const {
  return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(this) +
                                       static_cast<std::uintptr_t>(flag.offset));
}

void FlagSet::addFlag(Flag flag) {
  CHECK(!flag.name.empty()) << "flag without a name";
  CHECK(flag.name != "help") << "--help is built in";
  std::string name = flag.name;
  bool inserted = flags_.emplace(name, std::move(flag)).second;
  CHECK(inserted) << "flag --" << name << " registered twice";
}

Result<void> FlagSet::setFlag(const Flag& flag, const std::string& value, const std::string& source) {
  auto set = flag.set(fieldOf(flag), value);
  if (!set) {
    return Error{"invalid value '" + maskSecret(flag.secrecy, value) + "' for --" + flag.name +
                 source + ": " + set.error().message};
  }
  return {};
}

Result<std::vector<std::string>> FlagSet::load(const std::string& envPrefix, int argc,
                                               const char* const* argv) {
  // The environment first, so that the command line overrides it; a
  // flag's own variable wins over its aliases'.
  auto fromEnvironment = [&](const std::string& name, const Flag& flag) -> Result<bool> {
    std::string variable = envPrefix;
    for (char c : name) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const char* value = std::getenv(variable.c_str());
    if (value == nullptr) return false;
    auto set = setFlag(flag, value, " (from " + variable + ")");
    if (!set) return set.error();
    return true;
  };
  for (const auto& [alias, name] : aliases_) {
    auto set = fromEnvironment(alias, flags_.at(name));
    if (!set) return set.error();
  }
  for (const auto& [name, flag] : flags_) {
    auto set = fromEnvironment(name, flag);
    if (!set) return set.error();
  }

  std::vector<std::string> extra;
  std::set<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) extra.emplace_back(argv[i]);
      break;
    }
    if (arg.size() <= 2 || arg.compare(0, 2, "--") != 0) {
      extra.push_back(arg);
      continue;
    }
    std::string body = arg.substr(2);
    size_t equals = body.find('=');
    std::string name = body.substr(0, equals);
    std::optional<std::string> value;
    if (equals != std::string::npos) value = body.substr(equals + 1);
    // Apache Mesos accepts --work-dir for --work_dir.
    std::replace(name.begin(), name.end(), '-', '_');

    if (name == "help") {
      if (value) {
        auto wanted = parseBool(*value);
        if (!wanted) return Error{"invalid value '" + *value + "' for --help: " + wanted.error().message};
        help_ = *wanted;
      } else {
        help_ = true;
      }
      continue;
    }

    if (auto alias = aliases_.find(name); alias != aliases_.end()) name = alias->second;
    auto it = flags_.find(name);
    if (it == flags_.end() && name.compare(0, 3, "no_") == 0) {
      // --no-name: only for booleans and without a value.
      std::string positive = name.substr(3);
      if (auto alias = aliases_.find(positive); alias != aliases_.end()) positive = alias->second;
      auto negated = flags_.find(positive);
      if (negated != flags_.end()) {
        if (!negated->second.boolean) {
          return Error{"'" + arg + "': --" + negated->first + " is not a boolean flag"};
        }
        if (value) return Error{"'" + arg + "': --no-" + negated->first + " takes no value"};
        if (!seen.insert(negated->first).second) return Error{"duplicate flag '--" + negated->first + "'"};
        auto set = setFlag(negated->second, "false", "");
        if (!set) return set.error();
        continue;
      }
    }
    if (it == flags_.end()) return Error{"unknown flag '--" + body.substr(0, equals) + "'"};
    const Flag& flag = it->second;
    if (!seen.insert(flag.name).second) return Error{"duplicate flag '--" + flag.name + "'"};
    if (!value) {
      if (!flag.boolean) return Error{"missing value for --" + flag.name + " (use --" + flag.name + "=VALUE)"};
      value = "true";
    }
    auto set = setFlag(flag, *value, "");
    if (!set) return set.error();
  }

  if (!help_) {
    auto valid = validate();
    if (!valid) return valid.error();
  }
  return extra;
}

void FlagSet::alias(const std::string& alias, const std::string& name) {
  auto it = flags_.find(name);
  CHECK(it != flags_.end()) << "alias --" << alias << " of unknown flag --" << name;
  CHECK(flags_.count(alias) == 0 && aliases_.count(alias) == 0 && alias != "help")
      << "alias --" << alias << " is taken";
  aliases_[alias] = name;
  it->second.help += " (alias: --" + alias + ")";
}

std::string FlagSet::usage(const std::string& program) const {
  std::vector<std::pair<std::string, std::string>> lines;
  lines.emplace_back("--help", "Prints this help message");
  for (const auto& [name, flag] : flags_) {
    std::string left = flag.boolean ? "--[no-]" + name : "--" + name + "=VALUE";
    std::string right = flag.help;
    if (!flag.defaultText.empty()) right += " (default: " + flag.defaultText + ")";
    lines.emplace_back(std::move(left), std::move(right));
  }
  size_t width = 0;
  for (const auto& line : lines) width = std::max(width, line.first.size());
  std::string out = "Usage: " + program + " [options]\n\n";
  for (const auto& [left, right] : lines) {
    out += "  " + left + std::string(width - left.size() + 2, ' ') + right + "\n";
  }
  return out;
}

void FlagSet::secret(const std::string& name, Secrecy secrecy) {
  auto it = flags_.find(name);
  CHECK(it != flags_.end()) << "secret(): no flag --" << name;
  it->second.secrecy = secrecy;
}

std::map<std::string, std::string> FlagSet::values() const {
  std::map<std::string, std::string> out;
  for (const auto& [name, flag] : flags_) {
    auto value = flag.get(fieldOf(flag));
    if (value) out[name] = maskSecret(flag.secrecy, *value);
  }
  return out;
}

}  // namespace mesos::flags
