// A task's HealthCheck read into what a checker needs (HealthCheckSpec), and
// the rules that turn check results into status updates and a kill
// (HealthPolicy). Both are pure: no I/O, and time is passed in, so the
// master's validation and the command executor share them and tests call
// them directly. Semantics: docs/health-checks.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mesos.pb.h"
#include "mesos/result.hpp"
#include "process/clock.hpp"

namespace mesos::internal {

struct HealthCheckSpec {
  HealthCheck::Type type = HealthCheck::UNKNOWN;  // COMMAND, HTTP or TCP
  CommandInfo command;      // COMMAND: has a value
  uint16_t port = 0;        // HTTP and TCP: 1-65535
  std::string path = "/";   // HTTP: starts with '/', no spaces or control characters
  // HTTP: the statuses that count as healthy. Empty: 200-399. Only a legacy
  // check (no `type`) sets them, as Apache's default executors ignore
  // `statuses` in typed checks.
  std::vector<uint32_t> statuses;
  bool ipv6 = false;        // HTTP and TCP: probe [::1] rather than 127.0.0.1
  process::Duration delay{};
  process::Duration interval{};
  std::optional<process::Duration> timeout;  // unset: a check may run for ever
  process::Duration gracePeriod{};
  uint32_t consecutiveFailures = 1;  // at least 1
  bool legacy = false;      // `type` was unset and was inferred
};

// The longest duration a HealthCheck may ask for, in seconds (about 31
// years; durations are nanosecond counts).
inline constexpr double kMaxHealthCheckSeconds = 1e9;

// Reads `check`. A check without `type` (from clients older than Apache
// Mesos 1.1) is a COMMAND check when it has `command`, else an HTTP check
// when it has `http`. Fails with one line naming the field at fault
// ("HealthCheck.http.port ..."): an UNKNOWN or missing type with nothing to
// infer it from, the type's field unset, a command without a value, a port
// outside 1-65535, a scheme other than "http", a path not starting with '/',
// and durations that are negative, not finite or above
// kMaxHealthCheckSeconds.
Result<HealthCheckSpec> parseHealthCheck(const HealthCheck& check);

// Decides what each check result means for the task. One per task, owned by
// whoever runs the checks; not thread-safe.
class HealthPolicy {
 public:
  // `start`: when the task started (the grace period counts from it).
  HealthPolicy(const HealthCheckSpec& spec, process::TimePoint start);

  struct Verdict {
    std::optional<bool> report;  // tell the scheduler: healthy = *report
    bool kill = false;           // consecutive_failures reached: kill the task
    bool ignored = false;        // a failure within the grace period
  };

  // A check passed. Reports healthy on the first result and after failures.
  Verdict succeeded();
  // A check failed (or timed out) at `now`. Ignored while no check has ever
  // passed and `now` is within the grace period of the start. Otherwise it
  // counts: unhealthy is reported when it is the first result or follows a
  // healthy one, and the consecutive_failures-th failure in a row asks for
  // the kill.
  Verdict failed(process::TimePoint now);

  uint32_t consecutiveFailures() const { return failures_; }

 private:
  Verdict report(bool healthy);

  const process::Duration gracePeriod_;
  const uint32_t limit_;
  const process::TimePoint start_;
  bool everHealthy_ = false;
  std::optional<bool> reported_;  // the last value reported
  uint32_t failures_ = 0;         // counted failures in a row
};

}  // namespace mesos::internal
