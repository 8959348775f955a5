#include "common/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <system_error>

#include <glog/logging.h>
#include <google/protobuf/descriptor.h>

// GCC 12 reports false -Wmaybe-uninitialized warnings when it inlines
// std::variant moves (see Value's special members in the header); this file
// is the one place those stay inline.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace mesos::json {

Value::Value(const Value& that) : v(that.v) {}
Value::Value(Value&& that) noexcept : v(std::move(that.v)) {}
Value& Value::operator=(const Value& that) {
  v = that.v;
  return *this;
}
Value& Value::operator=(Value&& that) noexcept {
  v = std::move(that.v);
  return *this;
}
Value::~Value() {}

const Object& Value::object() const {
  CHECK(isObject()) << "JSON value is not an object";
  return std::get<Object>(v);
}

const Array& Value::array() const {
  CHECK(isArray()) << "JSON value is not an array";
  return std::get<Array>(v);
}

const std::string& Value::string() const {
  CHECK(isString()) << "JSON value is not a string";
  return std::get<std::string>(v);
}

double Value::number() const {
  CHECK(isNumber()) << "JSON value is not a number";
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}

int64_t Value::integer() const {
  CHECK(isNumber()) << "JSON value is not a number";
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  double d = std::get<double>(v);
  // Saturate instead of invoking undefined behaviour on out-of-range values.
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

bool Value::boolean() const {
  CHECK(isBool()) << "JSON value is not a boolean";
  return std::get<bool>(v);
}

const Value& Value::operator[](const std::string& key) const {
  static const Value kNull;
  const auto* object = std::get_if<Object>(&v);
  if (object == nullptr) return kNull;
  auto it = object->find(key);
  return it == object->end() ? kNull : it->second;
}

namespace {

// Nesting deeper than this is refused rather than risking the stack.
constexpr int kMaxDepth = 512;

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 when the
// bytes there are not one (overlong forms, surrogates and code points past
// U+10FFFF included).
size_t utf8SequenceLength(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t length = 0;
  uint32_t cp = 0;
  if ((c & 0xe0) == 0xc0) {
    length = 2;
    cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    length = 3;
    cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    length = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  static const uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinimum[length] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return length;
}

void appendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xc0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xe0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    *out += static_cast<char>(0xf0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  // Returns false (with the error recorded) when the text is not one JSON value.
  bool parseDocument(Value* value) {
    skipWhitespace();
    if (!parseValue(value, 0)) return false;
    skipWhitespace();
    if (pos_ != text_.size()) return fail("expected end of input");
    return true;
  }

  Error error() const {
    return Error{"JSON parse error at offset " + std::to_string(errorOffset_) + ": " + errorMessage_};
  }

 private:
  bool fail(const std::string& message) { return failAt(pos_, message); }

  bool failAt(size_t offset, const std::string& message) {
    errorOffset_ = offset;
    errorMessage_ = message;
    if (offset < text_.size()) {
      unsigned char c = static_cast<unsigned char>(text_[offset]);
      char found[32];
      if (c >= 0x20 && c < 0x7f) {
        std::snprintf(found, sizeof(found), " (found '%c')", c);
      } else {
        std::snprintf(found, sizeof(found), " (found byte 0x%02x)", c);
      }
      errorMessage_ += found;
    } else {
      errorMessage_ += " (found end of input)";
    }
    return false;
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }

  void skipWhitespace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }

  bool parseValue(Value* out, int depth) {
    if (atEnd()) return fail("expected a value");
    switch (peek()) {
      case '{': return parseObject(out, depth);
      case '[': return parseArray(out, depth);
      case '"': {
        std::string s;
        if (!parseString(&s)) return false;
        *out = Value(std::move(s));
        return true;
      }
      case 't': return parseLiteral("true", Value(true), out);
      case 'f': return parseLiteral("false", Value(false), out);
      case 'n': return parseLiteral("null", Value(nullptr), out);
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return parseNumber(out);
        return fail("expected a value");
    }
  }

  bool parseLiteral(std::string_view word, Value value, Value* out) {
    if (text_.substr(pos_, word.size()) != word) {
      return fail("expected '" + std::string(word) + "'");
    }
    pos_ += word.size();
    *out = std::move(value);
    return true;
  }

  bool parseObject(Value* out, int depth) {
    if (depth >= kMaxDepth) return fail("nesting deeper than " + std::to_string(kMaxDepth));
    ++pos_;  // '{'
    Object object;
    skipWhitespace();
    if (!atEnd() && peek() == '}') {
      ++pos_;
      *out = Value(std::move(object));
      return true;
    }
    while (true) {
      skipWhitespace();
      if (atEnd() || peek() != '"') return fail("expected a string key");
      std::string key;
      if (!parseString(&key)) return false;
      skipWhitespace();
      if (atEnd() || peek() != ':') return fail("expected ':'");
      ++pos_;
      skipWhitespace();
      Value member;
      if (!parseValue(&member, depth + 1)) return false;
      object.insert_or_assign(std::move(key), std::move(member));
      skipWhitespace();
      if (atEnd()) return fail("expected ',' or '}'");
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        *out = Value(std::move(object));
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  bool parseArray(Value* out, int depth) {
    if (depth >= kMaxDepth) return fail("nesting deeper than " + std::to_string(kMaxDepth));
    ++pos_;  // '['
    Array array;
    skipWhitespace();
    if (!atEnd() && peek() == ']') {
      ++pos_;
      *out = Value(std::move(array));
      return true;
    }
    while (true) {
      skipWhitespace();
      Value element;
      if (!parseValue(&element, depth + 1)) return false;
      array.push_back(std::move(element));
      skipWhitespace();
      if (atEnd()) return fail("expected ',' or ']'");
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        *out = Value(std::move(array));
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  bool parseHex4(uint32_t* out) {
    if (pos_ + 4 > text_.size()) {
      pos_ = text_.size();
      return fail("expected 4 hex digits after \\u");
    }
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_];
      uint32_t digit;
      if (c >= '0' && c <= '9') {
        digit = static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        digit = static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        digit = static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return fail("expected 4 hex digits after \\u");
      }
      value = value * 16 + digit;
      ++pos_;
    }
    *out = value;
    return true;
  }

  bool parseString(std::string* out) {
    ++pos_;  // '"'
    while (true) {
      if (atEnd()) return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(peek());
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return fail("control character in string (escape it)");
      if (c == '\\') {
        size_t escapeStart = pos_;
        ++pos_;
        if (atEnd()) return fail("unterminated string");
        char e = peek();
        ++pos_;
        switch (e) {
          case '"': *out += '"'; break;
          case '\\': *out += '\\'; break;
          case '/': *out += '/'; break;
          case 'b': *out += '\b'; break;
          case 'f': *out += '\f'; break;
          case 'n': *out += '\n'; break;
          case 'r': *out += '\r'; break;
          case 't': *out += '\t'; break;
          case 'u': {
            uint32_t cp = 0;
            if (!parseHex4(&cp)) return false;
            if (cp >= 0xdc00 && cp <= 0xdfff) {
              return failAt(escapeStart, "unpaired low surrogate in \\u escape");
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
              if (text_.substr(pos_, 2) != "\\u") {
                return failAt(escapeStart, "unpaired high surrogate in \\u escape");
              }
              pos_ += 2;
              uint32_t low = 0;
              if (!parseHex4(&low)) return false;
              if (low < 0xdc00 || low > 0xdfff) {
                return failAt(escapeStart, "unpaired high surrogate in \\u escape");
              }
              cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            }
            appendUtf8(out, cp);
            break;
          }
          default:
            --pos_;
            return fail("invalid escape");
        }
        continue;
      }
      size_t length = utf8SequenceLength(text_, pos_);
      if (length == 0) return fail("invalid UTF-8 in string");
      out->append(text_.substr(pos_, length));
      pos_ += length;
    }
  }

  bool isDigit(size_t at) const {
    return at < text_.size() && text_[at] >= '0' && text_[at] <= '9';
  }

  bool parseNumber(Value* out) {
    size_t start = pos_;
    bool integral = true;
    if (peek() == '-') ++pos_;
    if (!isDigit(pos_)) return fail("expected a digit");
    if (text_[pos_] == '0') {
      ++pos_;
      if (isDigit(pos_)) return fail("leading zeros are not allowed");
    } else {
      while (isDigit(pos_)) ++pos_;
    }
    if (!atEnd() && peek() == '.') {
      integral = false;
      ++pos_;
      if (!isDigit(pos_)) return fail("expected a digit after '.'");
      while (isDigit(pos_)) ++pos_;
    }
    if (!atEnd() && (peek() == 'e' || peek() == 'E')) {
      integral = false;
      ++pos_;
      if (!atEnd() && (peek() == '+' || peek() == '-')) ++pos_;
      if (!isDigit(pos_)) return fail("expected a digit in the exponent");
      while (isDigit(pos_)) ++pos_;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (integral) {
      int64_t i;
      auto [end, ec] = std::from_chars(first, last, i);
      if (ec == std::errc() && end == last) {
        *out = Value(i);
        return true;
      }
      // Too large for int64_t: fall through and keep it as a double.
    }
    double d;
    auto [end, ec] = std::from_chars(first, last, d);
    if (ec == std::errc::result_out_of_range) {
      // Underflow reads as zero; overflow has no JSON representation.
      bool tiny = false;
      for (const char* p = first; p != last; ++p) {
        if (*p == 'e' || *p == 'E') {
          tiny = p + 1 != last && p[1] == '-';
          break;
        }
      }
      if (!tiny) return failAt(start, "number out of range");
      *out = Value(first[0] == '-' ? -0.0 : 0.0);
      return true;
    }
    if (ec != std::errc() || end != last) return failAt(start, "invalid number");
    *out = Value(d);
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t errorOffset_ = 0;
  std::string errorMessage_;
};

void appendEscaped(std::string* out, const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  *out += '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': *out += "\\\""; ++i; continue;
      case '\\': *out += "\\\\"; ++i; continue;
      case '\b': *out += "\\b"; ++i; continue;
      case '\f': *out += "\\f"; ++i; continue;
      case '\n': *out += "\\n"; ++i; continue;
      case '\r': *out += "\\r"; ++i; continue;
      case '\t': *out += "\\t"; ++i; continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7f) {
      *out += "\\u00";
      *out += kHex[c >> 4];
      *out += kHex[c & 0x0f];
      ++i;
      continue;
    }
    size_t length = utf8SequenceLength(s, i);
    if (length == 0) {
      // Not UTF-8 (e.g. raw bytes from a protobuf `bytes` field): read the
      // byte as Latin-1 so that the output stays valid JSON.
      *out += "\\u00";
      *out += kHex[c >> 4];
      *out += kHex[c & 0x0f];
      ++i;
      continue;
    }
    out->append(s, i, length);
    i += length;
  }
  *out += '"';
}

void appendDouble(std::string* out, double d) {
  if (!std::isfinite(d)) {
    *out += "null";  // JSON has no NaN or infinity.
    return;
  }
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), d);
  CHECK(ec == std::errc());
  std::string_view text(buffer, static_cast<size_t>(end - buffer));
  *out += text;
  // Keep doubles recognisable as doubles when read back ("2.0", not "2").
  if (text.find_first_of(".e") == std::string_view::npos) *out += ".0";
}

void write(std::string* out, const Value& value) {
  struct Writer {
    std::string* out;
    void operator()(const Null&) const { *out += "null"; }
    void operator()(bool b) const { *out += b ? "true" : "false"; }
    void operator()(int64_t i) const { *out += std::to_string(i); }
    void operator()(double d) const { appendDouble(out, d); }
    void operator()(const std::string& s) const { appendEscaped(out, s); }
    void operator()(const Array& array) const {
      *out += '[';
      bool first = true;
      for (const auto& element : array) {
        if (!first) *out += ',';
        first = false;
        write(out, element);
      }
      *out += ']';
    }
    void operator()(const Object& object) const {
      *out += '{';
      bool first = true;
      for (const auto& [key, member] : object) {  // std::map: sorted keys
        if (!first) *out += ',';
        first = false;
        appendEscaped(out, key);
        *out += ':';
        write(out, member);
      }
      *out += '}';
    }
  };
  std::visit(Writer{out}, value.v);
}

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

Value fieldValue(const Message& message, const Reflection* reflection, const FieldDescriptor* field,
                 int index) {
  bool repeated = field->is_repeated();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return Value(repeated ? reflection->GetRepeatedInt32(message, field, index)
                            : reflection->GetInt32(message, field));
    case FieldDescriptor::CPPTYPE_INT64:
      return Value(static_cast<int64_t>(repeated ? reflection->GetRepeatedInt64(message, field, index)
                                                 : reflection->GetInt64(message, field)));
    case FieldDescriptor::CPPTYPE_UINT32:
      return Value(static_cast<int64_t>(repeated ? reflection->GetRepeatedUInt32(message, field, index)
                                                 : reflection->GetUInt32(message, field)));
    case FieldDescriptor::CPPTYPE_UINT64:
      return Value(static_cast<uint64_t>(repeated ? reflection->GetRepeatedUInt64(message, field, index)
                                                  : reflection->GetUInt64(message, field)));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return Value(repeated ? reflection->GetRepeatedDouble(message, field, index)
                            : reflection->GetDouble(message, field));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return Value(static_cast<double>(repeated ? reflection->GetRepeatedFloat(message, field, index)
                                                : reflection->GetFloat(message, field)));
    case FieldDescriptor::CPPTYPE_BOOL:
      return Value(repeated ? reflection->GetRepeatedBool(message, field, index)
                            : reflection->GetBool(message, field));
    case FieldDescriptor::CPPTYPE_ENUM: {
      int number = repeated ? reflection->GetRepeatedEnumValue(message, field, index)
                            : reflection->GetEnumValue(message, field);
      const auto* enumValue = field->enum_type()->FindValueByNumber(number);
      // An unknown number (from a newer peer) has no name: show the number.
      if (enumValue == nullptr) return Value(number);
      return Value(enumValue->name());
    }
    case FieldDescriptor::CPPTYPE_STRING:
      return Value(repeated ? reflection->GetRepeatedString(message, field, index)
                            : reflection->GetString(message, field));
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return fromProto(repeated ? reflection->GetRepeatedMessage(message, field, index)
                                : reflection->GetMessage(message, field));
  }
  LOG(FATAL) << "unhandled protobuf field type " << field->cpp_type_name();
}

}  // namespace

Result<Value> parse(std::string_view text) {
  Parser parser(text);
  Value value;
  if (!parser.parseDocument(&value)) return parser.error();
  return value;
}

std::string stringify(const Value& value) {
  std::string out;
  write(&out, value);
  return out;
}

Value fromProto(const Message& message) {
  const Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);  // only set fields (and non-empty repeated ones)
  Object object;
  for (const FieldDescriptor* field : fields) {
    if (field->is_repeated()) {
      Array array;
      int count = reflection->FieldSize(message, field);
      array.reserve(static_cast<size_t>(count));
      for (int i = 0; i < count; ++i) array.push_back(fieldValue(message, reflection, field, i));
      object[field->name()] = Value(std::move(array));
    } else {
      object[field->name()] = fieldValue(message, reflection, field, -1);
    }
  }
  return Value(std::move(object));
}

}  // namespace mesos::json
