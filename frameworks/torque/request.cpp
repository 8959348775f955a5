#include "torque/request.hpp"

#include <cctype>
#include <cstdio>
#include <limits>

namespace mesos::frameworks::torque {

namespace {

const char* const kExpected =
    "expected nodes=N[:ppn=C], mem=SIZE (e.g. 512mb) and walltime=HH:MM:SS, separated by commas";

// A decimal number of at most 12 digits; nullopt otherwise.
std::optional<int64_t> parseCount(const std::string& text) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// "N[:ppn=C]" into `request`; an error message or "".
std::string parseNodes(const std::string& value, ResourceRequest* request) {
  std::vector<std::string> parts = split(value, ':');
  std::optional<int64_t> nodes = parseCount(parts[0]);
  if (!nodes || *nodes < 1 || *nodes > 10000) {
    if (value.find('+') != std::string::npos || (!parts[0].empty() && !std::isdigit(parts[0][0]))) {
      return "nodes=" + value + ": only a node count is supported (nodes=N[:ppn=C]), " +
             "not host names, properties or '+' lists";
    }
    return "nodes=" + value + ": the node count must be a whole number from 1 (nodes=N[:ppn=C])";
  }
  request->nodes = static_cast<int>(*nodes);
  for (size_t i = 1; i < parts.size(); i++) {
    const std::string& part = parts[i];
    if (!part.starts_with("ppn=")) {
      return "nodes=" + value + ": unknown node property '" + part +
             "' (only ppn=C, the cpus per node, is supported)";
    }
    std::optional<int64_t> ppn = parseCount(part.substr(4));
    if (!ppn || *ppn < 1 || *ppn > 10000) {
      return "nodes=" + value + ": ppn must be a whole number of cpus from 1";
    }
    request->ppn = static_cast<int>(*ppn);
  }
  return "";
}

}  // namespace

std::optional<int64_t> parseWalltime(const std::string& text) {
  std::vector<std::string> parts = split(text, ':');
  if (parts.size() > 3) return std::nullopt;
  int64_t seconds = 0;
  for (size_t i = 0; i < parts.size(); i++) {
    std::optional<int64_t> part = parseCount(parts[i]);
    if (!part) return std::nullopt;
    // Minutes and seconds after a colon stay below 60, as in HH:MM:SS.
    if (i > 0 && *part >= 60) return std::nullopt;
    seconds = seconds * 60 + *part;
  }
  if (seconds > 100LL * 365 * 24 * 3600) return std::nullopt;
  return seconds;
}

std::optional<int64_t> parseSizeMb(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) digits++;
  std::optional<int64_t> number = parseCount(text.substr(0, digits));
  if (!number) return std::nullopt;
  std::string unit = lower(text.substr(digits));
  // PBS sizes: b (the default), kb, mb, gb, tb, powers of 1024; "k" etc. too.
  int64_t bytesPer = 0;
  if (unit.empty() || unit == "b") {
    bytesPer = 1;
  } else if (unit == "kb" || unit == "k") {
    bytesPer = 1LL << 10;
  } else if (unit == "mb" || unit == "m") {
    bytesPer = 1LL << 20;
  } else if (unit == "gb" || unit == "g") {
    bytesPer = 1LL << 30;
  } else if (unit == "tb" || unit == "t") {
    bytesPer = 1LL << 40;
  } else {
    return std::nullopt;
  }
  if (*number > std::numeric_limits<int64_t>::max() / bytesPer) return std::nullopt;
  int64_t bytes = *number * bytesPer;
  return (bytes + (1LL << 20) - 1) >> 20;
}

std::string formatDuration(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  char text[32];
  std::snprintf(text, sizeof(text), "%02lld:%02lld:%02lld", static_cast<long long>(seconds / 3600),
                static_cast<long long>(seconds / 60 % 60), static_cast<long long>(seconds % 60));
  return text;
}

Parsed<ResourceRequest> parseResourceLists(const std::vector<std::string>& lists) {
  using Result = Parsed<ResourceRequest>;
  ResourceRequest request;
  std::optional<int> ppn;  // a separate ppn= entry applies after nodes=
  for (const std::string& list : lists) {
    if (list.empty())
      return Result::failure("-l: empty resource list (" + std::string(kExpected) + ")");
    for (const std::string& entry : split(list, ',')) {
      size_t equals = entry.find('=');
      if (entry.empty() || equals == std::string::npos || equals == 0 ||
          equals + 1 == entry.size()) {
        return Result::failure("-l " + list + ": malformed entry '" + entry + "' (" + kExpected +
                               ")");
      }
      std::string key = lower(entry.substr(0, equals));
      std::string value = entry.substr(equals + 1);
      if (key == "nodes") {
        std::string error = parseNodes(value, &request);
        if (!error.empty()) return Result::failure("-l " + error);
      } else if (key == "ppn") {
        std::optional<int64_t> count = parseCount(value);
        if (!count || *count < 1 || *count > 10000) {
          return Result::failure("-l ppn=" + value + ": ppn must be a whole number of cpus from 1");
        }
        ppn = static_cast<int>(*count);
      } else if (key == "mem") {
        std::optional<int64_t> mb = parseSizeMb(value);
        if (!mb) {
          return Result::failure("-l mem=" + value +
                                 ": not a size (a whole number with b, kb, mb, gb or tb, "
                                 "e.g. mem=512mb)");
        }
        request.memMb = *mb;
      } else if (key == "walltime") {
        std::optional<int64_t> seconds = parseWalltime(value);
        if (!seconds || *seconds == 0) {
          return Result::failure("-l walltime=" + value +
                                 ": not a positive time (HH:MM:SS, MM:SS or seconds, "
                                 "e.g. walltime=01:30:00)");
        }
        request.walltimeSeconds = *seconds;
      } else {
        return Result::failure("-l " + entry + ": unknown resource '" + key +
                               "' (supported: nodes, ppn, mem, walltime)");
      }
    }
  }
  if (ppn) request.ppn = *ppn;
  return Result{request, ""};
}

}  // namespace mesos::frameworks::torque
