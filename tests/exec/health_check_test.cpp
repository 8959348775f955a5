// HealthCheck as the master and the command executor read it
// (parseHealthCheck), and the rules that turn check results into updates
// and a kill (HealthPolicy), called directly with injected times.
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "exec/health_check.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
using internal::HealthCheckSpec;
using internal::HealthPolicy;
using internal::parseHealthCheck;

HealthCheck commandCheck(const std::string& command = "true") {
  HealthCheck check;
  check.set_type(HealthCheck::COMMAND);
  check.mutable_command()->set_value(command);
  return check;
}

HealthCheck httpCheck(uint32_t port = 8080) {
  HealthCheck check;
  check.set_type(HealthCheck::HTTP);
  check.mutable_http()->set_port(port);
  return check;
}

HealthCheck tcpCheck(uint32_t port = 8080) {
  HealthCheck check;
  check.set_type(HealthCheck::TCP);
  check.mutable_tcp()->set_port(port);
  return check;
}

// The error parseHealthCheck gives, or "" when it accepts `check`.
std::string errorOf(const HealthCheck& check) {
  auto spec = parseHealthCheck(check);
  return spec ? "" : spec.error().message;
}

#define EXPECT_REFUSED(check, words)                                          \
  do {                                                                        \
    const std::string error = errorOf(check);                                 \
    EXPECT_NE(std::string::npos, error.find(words)) << "error: '" << error << "'"; \
  } while (0)

TEST(HealthCheckSpecTest, ProtoFieldsMatchApacheMesos1x) {
  const auto* check = HealthCheck::descriptor();
  EXPECT_EQ(8, check->FindFieldByName("type")->number());
  EXPECT_EQ(9, check->FindFieldByName("tcp")->number());
  EXPECT_EQ(1, check->FindFieldByName("http")->number());
  EXPECT_EQ(7, check->FindFieldByName("command")->number());
  EXPECT_EQ(0, HealthCheck::UNKNOWN);
  EXPECT_EQ(1, HealthCheck::COMMAND);
  EXPECT_EQ(2, HealthCheck::HTTP);
  EXPECT_EQ(3, HealthCheck::TCP);
  const auto* http = HealthCheck::HTTPCheckInfo::descriptor();
  EXPECT_EQ(3, http->FindFieldByName("scheme")->number());
  EXPECT_EQ(4, http->FindFieldByName("statuses")->number());
  EXPECT_EQ(5, http->FindFieldByName("protocol")->number());
  const auto* tcp = HealthCheck::TCPCheckInfo::descriptor();
  EXPECT_EQ(1, tcp->FindFieldByName("port")->number());
  EXPECT_EQ(2, tcp->FindFieldByName("protocol")->number());
  EXPECT_EQ(29, TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED);
}

TEST(HealthCheckSpecTest, DefaultsAreApacheMesosDefaults) {
  auto spec = parseHealthCheck(commandCheck());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(HealthCheck::COMMAND, spec->type);
  EXPECT_EQ("true", spec->command.value());
  EXPECT_EQ(15s, spec->delay);
  EXPECT_EQ(10s, spec->interval);
  ASSERT_TRUE(spec->timeout.has_value());
  EXPECT_EQ(20s, *spec->timeout);
  EXPECT_EQ(10s, spec->gracePeriod);
  EXPECT_EQ(3u, spec->consecutiveFailures);
  EXPECT_FALSE(spec->legacy);
}

TEST(HealthCheckSpecTest, FractionalSecondsAndZeroTimeout) {
  HealthCheck check = commandCheck();
  check.set_delay_seconds(0.1);
  check.set_interval_seconds(0.25);
  check.set_timeout_seconds(0);
  check.set_grace_period_seconds(0);
  check.set_consecutive_failures(0);
  auto spec = parseHealthCheck(check);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(100ms, spec->delay);
  EXPECT_EQ(250ms, spec->interval);
  EXPECT_FALSE(spec->timeout.has_value()) << "0 means no timeout";
  EXPECT_EQ(process::Duration::zero(), spec->gracePeriod);
  EXPECT_EQ(1u, spec->consecutiveFailures) << "0 kills at the first counted failure";
}

TEST(HealthCheckSpecTest, HttpAndTcpChecks) {
  HealthCheck http = httpCheck(8080);
  http.mutable_http()->set_path("/health?deep=1");
  http.mutable_http()->set_scheme("http");
  http.mutable_http()->add_statuses(204);
  auto spec = parseHealthCheck(http);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(HealthCheck::HTTP, spec->type);
  EXPECT_EQ(8080, spec->port);
  EXPECT_EQ("/health?deep=1", spec->path);
  EXPECT_FALSE(spec->ipv6);
  EXPECT_TRUE(spec->statuses.empty()) << "typed checks ignore statuses, as Apache's executors do";

  auto unsetPath = parseHealthCheck(httpCheck(80));
  ASSERT_TRUE(unsetPath.ok());
  EXPECT_EQ("/", unsetPath->path);

  HealthCheck tcp = tcpCheck(31000);
  tcp.mutable_tcp()->set_protocol(NetworkInfo::IPv6);
  auto tcpSpec = parseHealthCheck(tcp);
  ASSERT_TRUE(tcpSpec.ok()) << tcpSpec.error().message;
  EXPECT_EQ(HealthCheck::TCP, tcpSpec->type);
  EXPECT_EQ(31000, tcpSpec->port);
  EXPECT_TRUE(tcpSpec->ipv6);
}

TEST(HealthCheckSpecTest, LegacyChecksWithoutTypeAreInferred) {
  HealthCheck command = commandCheck("exit 0");
  command.clear_type();
  auto commandSpec = parseHealthCheck(command);
  ASSERT_TRUE(commandSpec.ok()) << commandSpec.error().message;
  EXPECT_EQ(HealthCheck::COMMAND, commandSpec->type);
  EXPECT_TRUE(commandSpec->legacy);

  HealthCheck http = httpCheck(9000);
  http.clear_type();
  http.mutable_http()->add_statuses(200);
  http.mutable_http()->add_statuses(418);
  auto httpSpec = parseHealthCheck(http);
  ASSERT_TRUE(httpSpec.ok()) << httpSpec.error().message;
  EXPECT_EQ(HealthCheck::HTTP, httpSpec->type);
  EXPECT_EQ((std::vector<uint32_t>{200, 418}), httpSpec->statuses);

  // Both set: the command wins, as in Apache Mesos before `type`.
  HealthCheck both = http;
  both.mutable_command()->set_value("true");
  auto bothSpec = parseHealthCheck(both);
  ASSERT_TRUE(bothSpec.ok());
  EXPECT_EQ(HealthCheck::COMMAND, bothSpec->type);
}

TEST(HealthCheckSpecTest, ChecksThatCannotWorkAreRefusedNamingTheField) {
  HealthCheck nothing;
  EXPECT_REFUSED(nothing, "HealthCheck.type is not set");

  HealthCheck unknown = commandCheck();
  unknown.set_type(HealthCheck::UNKNOWN);
  EXPECT_REFUSED(unknown, "HealthCheck.type UNKNOWN");

  HealthCheck noCommand = commandCheck();
  noCommand.clear_command();
  EXPECT_REFUSED(noCommand, "HealthCheck.command is not set");

  HealthCheck emptyCommand = commandCheck("");
  EXPECT_REFUSED(emptyCommand, "HealthCheck.command has no value");

  HealthCheck noHttp = httpCheck();
  noHttp.clear_http();
  EXPECT_REFUSED(noHttp, "HealthCheck.http is not set");

  EXPECT_REFUSED(httpCheck(0), "HealthCheck.http.port");
  EXPECT_REFUSED(httpCheck(70000), "HealthCheck.http.port is 70000");

  HealthCheck https = httpCheck();
  https.mutable_http()->set_scheme("https");
  EXPECT_REFUSED(https, "HealthCheck.http.scheme 'https' is not supported");

  HealthCheck relative = httpCheck();
  relative.mutable_http()->set_path("health");
  EXPECT_REFUSED(relative, "HealthCheck.http.path 'health' must start with '/'");

  HealthCheck spaced = httpCheck();
  spaced.mutable_http()->set_path("/a b");
  EXPECT_REFUSED(spaced, "HealthCheck.http.path must not contain spaces");

  HealthCheck injected = httpCheck();
  injected.mutable_http()->set_path("/\r\nX-Evil: 1");
  EXPECT_REFUSED(injected, "control characters");

  HealthCheck noTcp = tcpCheck();
  noTcp.clear_tcp();
  EXPECT_REFUSED(noTcp, "HealthCheck.tcp is not set");
  EXPECT_REFUSED(tcpCheck(0), "HealthCheck.tcp.port");

  HealthCheck tcpOnlyNoType = tcpCheck();
  tcpOnlyNoType.clear_type();
  EXPECT_REFUSED(tcpOnlyNoType, "HealthCheck.type is not set");
}

TEST(HealthCheckSpecTest, DurationsMustBeFiniteAndNonNegative) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  HealthCheck check = commandCheck();
  check.set_delay_seconds(-1);
  EXPECT_REFUSED(check, "HealthCheck.delay_seconds is -1");
  check = commandCheck();
  check.set_interval_seconds(nan);
  EXPECT_REFUSED(check, "HealthCheck.interval_seconds is nan");
  check = commandCheck();
  check.set_timeout_seconds(inf);
  EXPECT_REFUSED(check, "HealthCheck.timeout_seconds is inf");
  check = commandCheck();
  check.set_grace_period_seconds(1e12);
  EXPECT_REFUSED(check, "HealthCheck.grace_period_seconds");
  check = commandCheck();
  check.set_grace_period_seconds(internal::kMaxHealthCheckSeconds);
  EXPECT_EQ("", errorOf(check)) << "the largest duration is accepted";
}

// The policy, with time given by the test.
class HealthPolicyTest : public ::testing::Test {
 protected:
  HealthPolicy policy(process::Duration grace, uint32_t consecutiveFailures) {
    HealthCheckSpec spec;
    spec.gracePeriod = grace;
    spec.consecutiveFailures = consecutiveFailures;
    return HealthPolicy(spec, start_);
  }

  process::TimePoint at(process::Duration sinceStart) const { return start_ + sinceStart; }

  const process::TimePoint start_ = process::TimePoint(std::chrono::hours(100));
};

TEST_F(HealthPolicyTest, FirstResultAndEachChangeAreReported) {
  HealthPolicy p = policy(0s, 3);
  auto first = p.succeeded();
  ASSERT_TRUE(first.report.has_value());
  EXPECT_TRUE(*first.report);
  EXPECT_FALSE(p.succeeded().report.has_value()) << "no change, no report";

  auto failed = p.failed(at(1min));
  ASSERT_TRUE(failed.report.has_value());
  EXPECT_FALSE(*failed.report);
  EXPECT_FALSE(failed.kill);
  EXPECT_FALSE(p.failed(at(2min)).report.has_value());

  auto recovered = p.succeeded();
  ASSERT_TRUE(recovered.report.has_value());
  EXPECT_TRUE(*recovered.report);
  EXPECT_EQ(0u, p.consecutiveFailures());
}

TEST_F(HealthPolicyTest, KillAfterConsecutiveFailuresInARow) {
  HealthPolicy p = policy(0s, 3);
  EXPECT_FALSE(p.failed(at(1s)).kill);
  EXPECT_FALSE(p.failed(at(2s)).kill);
  p.succeeded();  // breaks the run
  EXPECT_FALSE(p.failed(at(3s)).kill);
  EXPECT_FALSE(p.failed(at(4s)).kill);
  auto third = p.failed(at(5s));
  EXPECT_TRUE(third.kill);
  EXPECT_EQ(3u, p.consecutiveFailures());
}

TEST_F(HealthPolicyTest, FirstResultUnhealthyIsReported) {
  HealthPolicy p = policy(0s, 5);
  auto first = p.failed(at(0s));
  ASSERT_TRUE(first.report.has_value());
  EXPECT_FALSE(*first.report);
  EXPECT_FALSE(first.ignored);
}

TEST_F(HealthPolicyTest, FailuresWithinTheGracePeriodAreIgnored) {
  HealthPolicy p = policy(10s, 1);
  auto early = p.failed(at(5s));
  EXPECT_TRUE(early.ignored);
  EXPECT_FALSE(early.report.has_value());
  EXPECT_FALSE(early.kill);
  EXPECT_TRUE(p.failed(at(10s)).ignored) << "the grace period includes its end";
  EXPECT_EQ(0u, p.consecutiveFailures());

  auto late = p.failed(at(10s + 1ms));
  EXPECT_FALSE(late.ignored);
  EXPECT_TRUE(late.kill);
}

TEST_F(HealthPolicyTest, GracePeriodEndsWithTheFirstSuccess) {
  HealthPolicy p = policy(1h, 2);
  EXPECT_TRUE(p.failed(at(1s)).ignored);
  p.succeeded();
  auto failed = p.failed(at(2s));
  EXPECT_FALSE(failed.ignored);
  ASSERT_TRUE(failed.report.has_value());
  EXPECT_FALSE(*failed.report);
  EXPECT_TRUE(p.failed(at(3s)).kill);
}

}  // namespace
}  // namespace mesos::test
