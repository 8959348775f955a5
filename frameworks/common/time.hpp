// Time as the frameworks write it in their records and reports.
#pragma once

#include <ctime>
#include <string>

namespace mesos::frameworks {

// Now in UTC, ISO 8601 to the second ("2026-11-24T09:30:00Z").
inline std::string utcTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

}  // namespace mesos::frameworks
