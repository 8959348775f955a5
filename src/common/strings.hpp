// Small string helpers shared by the flag, URL and /proc parsers.
#pragma once

#include <string>
#include <vector>

namespace mesos::internal::strings {

// "a,,b" -> {"a", "", "b"}; "" -> {""}: every part, empty ones included.
inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

// "a,,b," -> {"a", "b"}: the parts that are not empty.
inline std::vector<std::string> splitNonEmpty(const std::string& text, char separator) {
  std::vector<std::string> parts;
  for (std::string& part : split(text, separator)) {
    if (!part.empty()) parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace mesos::internal::strings
