#include "common/build.hpp"

#include <cstdio>
#include <cstring>
#include <ctime>

#ifndef MESOS_VERSION
#error "MESOS_VERSION must be defined (CMake's PROJECT_VERSION)"
#endif

namespace mesos::build {

namespace {

// __DATE__ ("May  1 2024") and __TIME__ ("12:34:56") of this file's compile.
struct Stamp {
  std::string date;
  double seconds = 0;
};

Stamp compiledAt() {
  static const char kMonths[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
  char month[4] = {};
  int day = 0, year = 0, hour = 0, minute = 0, second = 0;
  std::sscanf(__DATE__, "%3s %d %d", month, &day, &year);
  std::sscanf(__TIME__, "%d:%d:%d", &hour, &minute, &second);
  const char* found = std::strstr(kMonths, month);
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = found == nullptr ? 0 : static_cast<int>((found - kMonths) / 3);
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  tm.tm_isdst = -1;
  char text[32];
  std::snprintf(text, sizeof(text), "%04d-%02d-%02d %02d:%02d:%02d", year, tm.tm_mon + 1, day,
                hour, minute, second);
  return Stamp{text, static_cast<double>(std::mktime(&tm))};
}

const Stamp& stamp() {
  static const Stamp value = compiledAt();
  return value;
}

std::optional<std::string> defined(const char* value) {
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

}  // namespace

const std::string& version() {
  static const std::string value = MESOS_VERSION;
  return value;
}

const std::string& date() { return stamp().date; }

double time() { return stamp().seconds; }

const std::string& user() {
#ifdef MESOS_BUILD_USER
  static const std::string value = MESOS_BUILD_USER;
#else
  static const std::string value;
#endif
  return value;
}

const std::optional<std::string>& gitSha() {
#ifdef MESOS_GIT_SHA
  static const std::optional<std::string> value = defined(MESOS_GIT_SHA);
#else
  static const std::optional<std::string> value = defined(nullptr);
#endif
  return value;
}

const std::optional<std::string>& gitBranch() {
#ifdef MESOS_GIT_BRANCH
  static const std::optional<std::string> value = defined(MESOS_GIT_BRANCH);
#else
  static const std::optional<std::string> value = defined(nullptr);
#endif
  return value;
}

const std::optional<std::string>& gitTag() {
#ifdef MESOS_GIT_TAG
  static const std::optional<std::string> value = defined(MESOS_GIT_TAG);
#else
  static const std::optional<std::string> value = defined(nullptr);
#endif
  return value;
}

}  // namespace mesos::build
