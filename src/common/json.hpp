// JSON: a value type, a strict parser and a compact writer. Used to render
// HTTP endpoints (/state, /metrics/snapshot), to read MasterInfo from
// ZooKeeper, and by tests to read endpoints back.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <google/protobuf/message.h>

#include "mesos/result.hpp"

namespace mesos::json {

struct Value;
using Object = std::map<std::string, Value>;
using Array = std::vector<Value>;

struct Null {
  friend bool operator==(const Null&, const Null&) { return true; }
};

struct Value {
  // Numbers keep whether they were written as integers, so ids and counts
  // round-trip exactly.
  std::variant<Null, bool, int64_t, double, std::string, Array, Object> v;

  Value() : v(Null{}) {}
  Value(std::nullptr_t) : v(Null{}) {}                  // NOLINT
  Value(bool b) : v(b) {}                                // NOLINT
  Value(int i) : v(int64_t{i}) {}                        // NOLINT
  Value(int64_t i) : v(i) {}                             // NOLINT
  Value(unsigned i) : v(int64_t{i}) {}                   // NOLINT
  // Beyond int64_t's range a uint64_t is kept as a (rounded) double.
  Value(uint64_t i)  // NOLINT
      : v(i <= static_cast<uint64_t>(INT64_MAX) ? decltype(v)(static_cast<int64_t>(i))
                                                : decltype(v)(static_cast<double>(i))) {}
  Value(double d) : v(d) {}                              // NOLINT
  Value(const char* s) : v(std::string(s)) {}            // NOLINT
  Value(std::string s) : v(std::move(s)) {}              // NOLINT
  Value(Array a) : v(std::move(a)) {}                    // NOLINT
  Value(Object o) : v(std::move(o)) {}                   // NOLINT

  // Out of line: GCC 12 reports false -Wmaybe-uninitialized warnings when it
  // inlines the variant's copies and moves into callers.
  Value(const Value& that);
  Value(Value&& that) noexcept;
  Value& operator=(const Value& that);
  Value& operator=(Value&& that) noexcept;
  ~Value();

  bool isNull() const { return std::holds_alternative<Null>(v); }
  bool isObject() const { return std::holds_alternative<Object>(v); }
  bool isArray() const { return std::holds_alternative<Array>(v); }
  bool isString() const { return std::holds_alternative<std::string>(v); }
  bool isBool() const { return std::holds_alternative<bool>(v); }
  bool isInteger() const { return std::holds_alternative<int64_t>(v); }
  bool isNumber() const { return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v); }

  // REQUIRES: the matching is*() (CHECK-fails otherwise).
  const Object& object() const;
  const Array& array() const;
  const std::string& string() const;
  double number() const;
  int64_t integer() const;  // doubles are truncated
  bool boolean() const;

  // Member lookup on objects: a Null value when absent or not an object.
  const Value& operator[](const std::string& key) const;

  // Deep equality; an integer and a double are different values even when
  // numerically equal (1 != 1.0), as they print differently.
  friend bool operator==(const Value& a, const Value& b) { return a.v == b.v; }
};

// Parses one JSON text (RFC 8259; no trailing garbage). The error names the
// offset and what was expected.
Result<Value> parse(std::string_view text);

// Compact JSON text: no spaces, object keys sorted, strings escaped (control
// characters as \u00XX, non-ASCII UTF-8 passed through).
std::string stringify(const Value& value);

// A protobuf message as JSON with the proto's field names (as Apache Mesos
// renders them): enums as names, bytes as they are (escaped), repeated fields
// as arrays, unset optional fields left out.
Value fromProto(const google::protobuf::Message& message);

}  // namespace mesos::json
