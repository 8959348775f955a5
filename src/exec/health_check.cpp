#include "exec/health_check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

namespace mesos::internal {

namespace {

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

Result<process::Duration> seconds(double value, const std::string& field) {
  if (!std::isfinite(value) || value < 0 || value > kMaxHealthCheckSeconds) {
    return Error{"HealthCheck." + field + " is " + number(value) +
                 ": it must be a number of seconds from 0 to " + number(kMaxHealthCheckSeconds)};
  }
  return std::chrono::duration_cast<process::Duration>(std::chrono::duration<double>(value));
}

Result<uint16_t> port(uint32_t value, const std::string& field) {
  if (value == 0 || value > 65535) {
    return Error{"HealthCheck." + field + " is " + std::to_string(value) +
                 ": it must be a TCP port from 1 to 65535"};
  }
  return static_cast<uint16_t>(value);
}

Result<void> readCommand(const HealthCheck& check, HealthCheckSpec& spec) {
  if (!check.has_command()) {
    return Error{"HealthCheck.type is COMMAND but HealthCheck.command is not set"};
  }
  if (!check.command().has_value() || check.command().value().empty()) {
    return Error{std::string("HealthCheck.command has no value: set it to the ") +
                 (check.command().shell() ? "shell command" : "executable") + " to run"};
  }
  spec.command = check.command();
  return {};
}

Result<void> readHttp(const HealthCheck& check, HealthCheckSpec& spec) {
  if (!check.has_http()) {
    return Error{"HealthCheck.type is HTTP but HealthCheck.http is not set"};
  }
  const HealthCheck::HTTPCheckInfo& http = check.http();
  auto p = port(http.port(), "http.port");
  if (!p) return p.error();
  spec.port = *p;
  if (http.has_scheme() && http.scheme() != "http") {
    return Error{"HealthCheck.http.scheme '" + http.scheme() +
                 "' is not supported: only 'http' is (HTTPS health checks are not implemented)"};
  }
  const std::string& path = http.path();
  if (path.empty() || path.front() != '/') {
    return Error{"HealthCheck.http.path '" + path + "' must start with '/'"};
  }
  if (std::any_of(path.begin(), path.end(),
                  [](char c) { return c == ' ' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    return Error{"HealthCheck.http.path must not contain spaces or control characters "
                 "(percent-encode them)"};
  }
  spec.path = path;
  spec.ipv6 = http.protocol() == NetworkInfo::IPv6;
  if (spec.legacy) spec.statuses.assign(http.statuses().begin(), http.statuses().end());
  return {};
}

Result<void> readTcp(const HealthCheck& check, HealthCheckSpec& spec) {
  if (!check.has_tcp()) {
    return Error{"HealthCheck.type is TCP but HealthCheck.tcp is not set"};
  }
  auto p = port(check.tcp().port(), "tcp.port");
  if (!p) return p.error();
  spec.port = *p;
  spec.ipv6 = check.tcp().protocol() == NetworkInfo::IPv6;
  return {};
}

}  // namespace

Result<HealthCheckSpec> parseHealthCheck(const HealthCheck& check) {
  HealthCheckSpec spec;
  spec.type = check.type();
  if (!check.has_type()) {
    spec.legacy = true;
    if (check.has_command()) {
      spec.type = HealthCheck::COMMAND;
    } else if (check.has_http()) {
      spec.type = HealthCheck::HTTP;
    } else {
      return Error{"HealthCheck.type is not set: set it to COMMAND, HTTP or TCP (with "
                   "HealthCheck.command, .http or .tcp)"};
    }
  }

  Result<void> read;
  switch (spec.type) {
    case HealthCheck::COMMAND: read = readCommand(check, spec); break;
    case HealthCheck::HTTP: read = readHttp(check, spec); break;
    case HealthCheck::TCP: read = readTcp(check, spec); break;
    default:
      return Error{"HealthCheck.type " + HealthCheck::Type_Name(spec.type) +
                   " is not a health check type: use COMMAND, HTTP or TCP"};
  }
  if (!read) return read.error();

  auto delay = seconds(check.delay_seconds(), "delay_seconds");
  if (!delay) return delay.error();
  auto interval = seconds(check.interval_seconds(), "interval_seconds");
  if (!interval) return interval.error();
  auto timeout = seconds(check.timeout_seconds(), "timeout_seconds");
  if (!timeout) return timeout.error();
  auto grace = seconds(check.grace_period_seconds(), "grace_period_seconds");
  if (!grace) return grace.error();
  spec.delay = *delay;
  spec.interval = *interval;
  if (*timeout > process::Duration::zero()) spec.timeout = *timeout;
  spec.gracePeriod = *grace;
  // Apache Mesos kills at the first counted failure when this is 0.
  spec.consecutiveFailures = std::max<uint32_t>(1, check.consecutive_failures());
  return spec;
}

HealthPolicy::HealthPolicy(const HealthCheckSpec& spec, process::TimePoint start)
    : gracePeriod_(spec.gracePeriod), limit_(spec.consecutiveFailures), start_(start) {}

HealthPolicy::Verdict HealthPolicy::succeeded() {
  everHealthy_ = true;
  failures_ = 0;
  return report(true);
}

HealthPolicy::Verdict HealthPolicy::failed(process::TimePoint now) {
  if (!everHealthy_ && now - start_ <= gracePeriod_ && gracePeriod_ > process::Duration::zero()) {
    Verdict verdict;
    verdict.ignored = true;
    return verdict;
  }
  failures_++;
  Verdict verdict = report(false);
  verdict.kill = failures_ >= limit_;
  return verdict;
}

HealthPolicy::Verdict HealthPolicy::report(bool healthy) {
  Verdict verdict;
  if (reported_ != healthy) {
    reported_ = healthy;
    verdict.report = healthy;
  }
  return verdict;
}

}  // namespace mesos::internal
