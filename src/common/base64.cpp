#include "common/base64.hpp"

#include <cstdint>

namespace mesos::base64 {

namespace {

constexpr char kStandard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kUrl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int valueOf(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

void append(std::string* out, std::string_view bytes, bool url) {
  const char* alphabet = url ? kUrl : kStandard;
  out->reserve(out->size() + (bytes.size() + 2) / 3 * 4);
  auto byte = [&bytes](size_t i) { return uint32_t{static_cast<unsigned char>(bytes[i])}; };
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    for (int shift : {18, 12, 6, 0}) out->push_back(alphabet[(n >> shift) & 63]);
  }
  size_t left = bytes.size() - i;
  if (left == 0) return;
  uint32_t n = byte(i) << 16 | (left == 2 ? byte(i + 1) << 8 : 0);
  out->push_back(alphabet[(n >> 18) & 63]);
  out->push_back(alphabet[(n >> 12) & 63]);
  if (left == 2) {
    out->push_back(alphabet[(n >> 6) & 63]);
  } else if (!url) {
    out->push_back('=');
  }
  if (!url) out->push_back('=');
}

std::string encode(std::string_view bytes, bool url) {
  std::string out;
  append(&out, bytes, url);
  return out;
}

std::optional<std::string> decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    int value = valueOf(c);
    if (value < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  return out;
}

}  // namespace mesos::base64
