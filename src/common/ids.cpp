#include "common/ids.hpp"

#include <cstdio>

namespace mesos {

namespace {

// `id` fit for a one-line message.
std::string printable(const std::string& id) {
  constexpr size_t kShown = 64;
  std::string out;
  for (size_t i = 0; i < id.size() && i < kShown; ++i) {
    unsigned char c = static_cast<unsigned char>(id[i]);
    if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (id.size() > kShown) out += "...";
  return out;
}

}  // namespace

Result<void> validateId(const std::string& kind, const std::string& id) {
  auto invalid = [&](const std::string& why) {
    return Error{kind + " '" + printable(id) + "' is not valid: " + why + " (ids name directories)"};
  };
  if (id.empty()) return Error{kind + " is empty"};
  if (id.size() > kMaxIdLength) {
    return invalid("it is " + std::to_string(id.size()) + " bytes long, more than " +
                   std::to_string(kMaxIdLength));
  }
  if (id == "." || id == "..") return invalid("it may not be '.' or '..'");
  for (char c : id) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '/') return invalid("it holds '/'");
    if (c == '\\') return invalid("it holds '\\'");
    if (u < 0x20 || u == 0x7f) return invalid("it holds a control character");
  }
  return {};
}

}  // namespace mesos
