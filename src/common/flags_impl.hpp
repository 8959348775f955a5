// Template definitions for flags.hpp; include flags.hpp, not this file.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace mesos::flags {

namespace internal {

// Whole-string integer parsing with a range check; the error says why.
Result<int64_t> parseSigned(const std::string& text, int64_t min, int64_t max);
Result<uint64_t> parseUnsigned(const std::string& text, uint64_t max);
Result<double> parseDouble(const std::string& text);

}  // namespace internal

// Parser<T>::parse(text) -> Result<T> and Parser<T>::format(value) -> text,
// one specialization per supported flag type.
template <typename T, typename Enable = void>
struct Parser;

template <>
struct Parser<std::string> {
  static Result<std::string> parse(const std::string& text) { return text; }
  static std::string format(const std::string& value) { return value; }
};

template <>
struct Parser<bool> {
  static Result<bool> parse(const std::string& text) { return parseBool(text); }
  static std::string format(bool value) { return value ? "true" : "false"; }
};

template <typename T>
struct Parser<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static Result<T> parse(const std::string& text) {
    if constexpr (std::is_signed_v<T>) {
      auto value = internal::parseSigned(text, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
      if (!value) return value.error();
      return static_cast<T>(*value);
    } else {
      auto value = internal::parseUnsigned(text, std::numeric_limits<T>::max());
      if (!value) return value.error();
      return static_cast<T>(*value);
    }
  }
  static std::string format(T value) { return std::to_string(value); }
};

template <>
struct Parser<double> {
  static Result<double> parse(const std::string& text) { return internal::parseDouble(text); }
  static std::string format(double value);
};

template <>
struct Parser<Duration> {
  static Result<Duration> parse(const std::string& text) { return parseDuration(text); }
  static std::string format(Duration value) { return formatDuration(value); }
};

template <>
struct Parser<Bytes> {
  static Result<Bytes> parse(const std::string& text) { return parseBytes(text); }
  static std::string format(Bytes value) { return formatBytes(value); }
};

template <typename T>
void FlagSet::add(T* field, const std::string& name, const std::string& help,
                  std::type_identity_t<T> defaultValue) {
  Flag flag;
  flag.name = name;
  flag.help = help;
  flag.defaultText = Parser<T>::format(defaultValue);
  flag.boolean = std::is_same_v<T, bool>;
  flag.offset = offsetOf(field);
  flag.set = [](void* target, const std::string& text) -> Result<void> {
    auto value = Parser<T>::parse(text);
    if (!value) return value.error();
    *static_cast<T*>(target) = std::move(value).value();
    return {};
  };
  flag.get = [](const void* target) -> std::optional<std::string> {
    return Parser<T>::format(*static_cast<const T*>(target));
  };
  *field = std::move(defaultValue);
  addFlag(std::move(flag));
}

template <typename T>
void FlagSet::add(std::optional<T>* field, const std::string& name, const std::string& help) {
  Flag flag;
  flag.name = name;
  flag.help = help;
  flag.boolean = std::is_same_v<T, bool>;
  flag.offset = offsetOf(field);
  flag.set = [](void* target, const std::string& text) -> Result<void> {
    auto value = Parser<T>::parse(text);
    if (!value) return value.error();
    *static_cast<std::optional<T>*>(target) = std::move(value).value();
    return {};
  };
  flag.get = [](const void* target) -> std::optional<std::string> {
    const auto& value = *static_cast<const std::optional<T>*>(target);
    if (!value) return std::nullopt;
    return Parser<T>::format(*value);
  };
  field->reset();
  addFlag(std::move(flag));
}

}  // namespace mesos::flags
