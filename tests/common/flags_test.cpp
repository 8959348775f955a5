// mesos::flags: --name=value, booleans, MESOS_* environment variables,
// durations and byte sizes, the errors an operator sees, --help and values().
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "common/flags.hpp"
#include "master/flags.hpp"
#include "slave/flags.hpp"

namespace mesos::flags {
namespace {

using namespace std::chrono_literals;

struct TestFlags : FlagSet {
  TestFlags() {
    add(&port, "port", "Port to listen on", 5050);
    add(&ip, "ip", "Address to bind", "0.0.0.0");
    add(&verbose, "verbose", "Log more", false);
    add(&quiet, "quiet", "Log less", true);
    add(&timeout, "timeout", "How long to wait", Duration(5s));
    add(&memory, "memory", "How much memory", Bytes{512ULL << 20});
    add(&ratio, "ratio", "A fraction", 0.5);
    add(&count, "count", "A count", int64_t{-1});
    add(&big, "big", "A large number", uint64_t{0});
    add(&small, "small", "A small number", 0);
    add(&work_dir, "work_dir", "Where to keep state");
    add(&limit, "limit", "An optional limit");
  }
  uint16_t port;
  std::string ip;
  bool verbose;
  bool quiet;
  Duration timeout;
  Bytes memory;
  double ratio;
  int64_t count;
  uint64_t big;
  int small;
  std::optional<std::string> work_dir;
  std::optional<uint32_t> limit;
};

// Clears the variables a test sets, so that tests stay independent.
class FlagsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const auto& name : set_) unsetenv(name.c_str());
  }

  void setEnv(const std::string& name, const std::string& value) {
    setenv(name.c_str(), value.c_str(), 1);
    set_.push_back(name);
  }

  static Result<std::vector<std::string>> load(FlagSet& flags, std::vector<std::string> args) {
    args.insert(args.begin(), "program");
    std::vector<const char*> argv;
    for (const auto& arg : args) argv.push_back(arg.c_str());
    return flags.load(kPrefix, static_cast<int>(argv.size()), argv.data());
  }

  static constexpr const char* kPrefix = "MESOS_FLAGSTEST_";
  std::vector<std::string> set_;
};

std::string errorOf(const Result<std::vector<std::string>>& result) {
  return result.ok() ? "<ok>" : result.error().message;
}

TEST_F(FlagsTest, Defaults) {
  TestFlags flags;
  EXPECT_EQ(5050, flags.port);
  EXPECT_EQ("0.0.0.0", flags.ip);
  EXPECT_FALSE(flags.verbose);
  EXPECT_TRUE(flags.quiet);
  EXPECT_EQ(Duration(5s), flags.timeout);
  EXPECT_EQ(Bytes{512ULL << 20}, flags.memory);
  EXPECT_FALSE(flags.work_dir.has_value());
  auto extra = load(flags, {});
  ASSERT_TRUE(extra.ok()) << errorOf(extra);
  EXPECT_TRUE(extra->empty());
  EXPECT_EQ(5050, flags.port);
  EXPECT_FALSE(flags.help());
}

TEST_F(FlagsTest, CommandLine) {
  TestFlags flags;
  auto extra = load(flags, {"--port=6060", "--ip=127.0.0.1", "--timeout=1.5secs", "--memory=2GB",
                            "--ratio=0.25", "--count=-7", "--big=18446744073709551615", "--work_dir=/tmp/x",
                            "--limit=10", "--small=-3"});
  ASSERT_TRUE(extra.ok()) << errorOf(extra);
  EXPECT_EQ(6060, flags.port);
  EXPECT_EQ("127.0.0.1", flags.ip);
  EXPECT_EQ(Duration(1500ms), flags.timeout);
  EXPECT_EQ(Bytes{2ULL << 30}, flags.memory);
  EXPECT_DOUBLE_EQ(0.25, flags.ratio);
  EXPECT_EQ(-7, flags.count);
  EXPECT_EQ(18446744073709551615ULL, flags.big);
  EXPECT_EQ(-3, flags.small);
  EXPECT_EQ("/tmp/x", flags.work_dir);
  EXPECT_EQ(10u, flags.limit);
}

TEST_F(FlagsTest, EmptyStringValue) {
  TestFlags flags;
  auto extra = load(flags, {"--ip=", "--work_dir="});
  ASSERT_TRUE(extra.ok()) << errorOf(extra);
  EXPECT_EQ("", flags.ip);
  EXPECT_EQ("", flags.work_dir);
}

TEST_F(FlagsTest, DashesMeanUnderscores) {
  TestFlags flags;
  ASSERT_TRUE(load(flags, {"--work-dir=/w"}).ok());
  EXPECT_EQ("/w", flags.work_dir);
}

TEST_F(FlagsTest, BooleanForms) {
  {
    TestFlags flags;
    ASSERT_TRUE(load(flags, {"--verbose", "--no-quiet"}).ok());
    EXPECT_TRUE(flags.verbose);
    EXPECT_FALSE(flags.quiet);
  }
  {
    TestFlags flags;
    ASSERT_TRUE(load(flags, {"--verbose=true", "--quiet=false"}).ok());
    EXPECT_TRUE(flags.verbose);
    EXPECT_FALSE(flags.quiet);
  }
  {
    TestFlags flags;
    ASSERT_TRUE(load(flags, {"--verbose=1", "--quiet=0"}).ok());
    EXPECT_TRUE(flags.verbose);
    EXPECT_FALSE(flags.quiet);
  }
  {
    TestFlags flags;
    auto result = load(flags, {"--verbose=yes"});
    EXPECT_EQ("invalid value 'yes' for --verbose: expected 'true' or 'false'", errorOf(result));
  }
  {
    TestFlags flags;
    auto result = load(flags, {"--no-verbose=true"});
    EXPECT_NE(std::string::npos, errorOf(result).find("takes no value")) << errorOf(result);
  }
  {
    TestFlags flags;
    auto result = load(flags, {"--no-port"});
    EXPECT_NE(std::string::npos, errorOf(result).find("--port is not a boolean flag")) << errorOf(result);
  }
}

TEST_F(FlagsTest, Errors) {
  {
    TestFlags flags;
    EXPECT_EQ("unknown flag '--foo'", errorOf(load(flags, {"--foo=1"})));
  }
  {
    TestFlags flags;
    EXPECT_EQ("unknown flag '--no-such'", errorOf(load(flags, {"--no-such"})));
  }
  {
    TestFlags flags;
    EXPECT_EQ("invalid value 'x' for --port: expected a non-negative integer", errorOf(load(flags, {"--port=x"})));
  }
  {
    TestFlags flags;
    EXPECT_EQ("invalid value '70000' for --port: out of range [0, 65535]", errorOf(load(flags, {"--port=70000"})));
  }
  {
    TestFlags flags;
    EXPECT_EQ("invalid value '-1' for --port: expected a non-negative integer", errorOf(load(flags, {"--port=-1"})));
  }
  {
    TestFlags flags;
    EXPECT_EQ("invalid value '5' for --timeout: missing unit (one of ns, us, ms, secs, mins, hrs, days, weeks)",
              errorOf(load(flags, {"--timeout=5"})));
  }
  {
    TestFlags flags;
    EXPECT_EQ("invalid value '1024' for --memory: missing unit (one of B, KB, MB, GB, TB)",
              errorOf(load(flags, {"--memory=1024"})));
  }
  {
    TestFlags flags;
    EXPECT_EQ("missing value for --port (use --port=VALUE)", errorOf(load(flags, {"--port"})));
  }
  {
    TestFlags flags;
    EXPECT_EQ("duplicate flag '--port'", errorOf(load(flags, {"--port=1", "--port=2"})));
  }
  {
    TestFlags flags;
    EXPECT_EQ("invalid value '1.5.2' for --ratio: expected a number", errorOf(load(flags, {"--ratio=1.5.2"})));
  }
  {
    TestFlags flags;
    EXPECT_EQ("invalid value '12x' for --count: expected an integer", errorOf(load(flags, {"--count=12x"})));
  }
}

TEST_F(FlagsTest, EnvironmentAndPrecedence) {
  setEnv("MESOS_FLAGSTEST_PORT", "7070");
  setEnv("MESOS_FLAGSTEST_WORK_DIR", "/from/env");
  setEnv("MESOS_FLAGSTEST_VERBOSE", "true");
  setEnv("MESOS_FLAGSTEST_UNKNOWN", "ignored");  // not a flag: ignored
  {
    TestFlags flags;
    auto result = load(flags, {});
    ASSERT_TRUE(result.ok()) << errorOf(result);
    EXPECT_EQ(7070, flags.port);
    EXPECT_EQ("/from/env", flags.work_dir);
    EXPECT_TRUE(flags.verbose);
  }
  {
    TestFlags flags;
    auto result = load(flags, {"--port=8080", "--no-verbose"});  // argv wins
    ASSERT_TRUE(result.ok()) << errorOf(result);
    EXPECT_EQ(8080, flags.port);
    EXPECT_FALSE(flags.verbose);
    EXPECT_EQ("/from/env", flags.work_dir);
  }
}

TEST_F(FlagsTest, BadEnvironmentValueNamesTheVariable) {
  setEnv("MESOS_FLAGSTEST_TIMEOUT", "soon");
  TestFlags flags;
  auto result = load(flags, {});
  EXPECT_NE(std::string::npos, errorOf(result).find("invalid value 'soon' for --timeout (from MESOS_FLAGSTEST_TIMEOUT)"))
      << errorOf(result);
}

TEST_F(FlagsTest, ExtraArguments) {
  TestFlags flags;
  auto extra = load(flags, {"positional", "--port=1", "-x", "--", "--port=2", "rest"});
  ASSERT_TRUE(extra.ok()) << errorOf(extra);
  EXPECT_EQ(1, flags.port);
  EXPECT_EQ((std::vector<std::string>{"positional", "-x", "--port=2", "rest"}), *extra);
}

TEST_F(FlagsTest, Help) {
  TestFlags flags;
  auto extra = load(flags, {"--help"});
  ASSERT_TRUE(extra.ok()) << errorOf(extra);
  EXPECT_TRUE(flags.help());

  std::string usage = flags.usage("mesos-master");
  EXPECT_EQ(0u, usage.find("Usage: mesos-master [options]\n"));
  EXPECT_NE(std::string::npos, usage.find("--port=VALUE"));
  EXPECT_NE(std::string::npos, usage.find("Port to listen on (default: 5050)"));
  EXPECT_NE(std::string::npos, usage.find("--[no-]verbose"));
  EXPECT_NE(std::string::npos, usage.find("(default: 5secs)"));
  EXPECT_NE(std::string::npos, usage.find("(default: 512MB)"));
  EXPECT_NE(std::string::npos, usage.find("Where to keep state\n"));  // no default shown
  EXPECT_NE(std::string::npos, usage.find("--help"));
}

struct CheckedFlags : FlagSet {
  CheckedFlags() {
    add(&min, "min", "Lower bound", 0);
    add(&max, "max", "Upper bound", 10);
  }
  Result<void> validate() const override {
    if (min > max) return Error{"--min (" + std::to_string(min) + ") must not exceed --max"};
    return {};
  }
  int min;
  int max;
};

TEST_F(FlagsTest, ValidateRunsAfterLoading) {
  CheckedFlags ok;
  EXPECT_TRUE(load(ok, {"--min=5"}).ok());
  CheckedFlags bad;
  EXPECT_EQ("--min (11) must not exceed --max", errorOf(load(bad, {"--min=11"})));
  CheckedFlags help;  // --help skips the checks
  EXPECT_TRUE(load(help, {"--min=11", "--help"}).ok());
  EXPECT_TRUE(help.help());
}

TEST_F(FlagsTest, Values) {
  TestFlags flags;
  ASSERT_TRUE(load(flags, {"--timeout=90secs", "--work_dir=/w"}).ok());
  auto values = flags.values();
  EXPECT_EQ("5050", values["port"]);
  EXPECT_EQ("0.0.0.0", values["ip"]);
  EXPECT_EQ("false", values["verbose"]);
  EXPECT_EQ("1.5mins", values["timeout"]);
  EXPECT_EQ("512MB", values["memory"]);
  EXPECT_EQ("0.5", values["ratio"]);
  EXPECT_EQ("/w", values["work_dir"]);
  EXPECT_EQ(0u, values.count("limit"));  // optional and unset
}

TEST_F(FlagsTest, CopiesAreIndependent) {
  TestFlags original;
  ASSERT_TRUE(load(original, {"--port=1"}).ok());
  TestFlags copy = original;
  ASSERT_TRUE(load(copy, {"--port=2"}).ok());
  EXPECT_EQ(1, original.port);
  EXPECT_EQ(2, copy.port);
  EXPECT_EQ("2", copy.values()["port"]);
  EXPECT_EQ("1", original.values()["port"]);
}

TEST(DurationTest, Parse) {
  EXPECT_EQ(Duration(5s), parseDuration("5secs").value());
  EXPECT_EQ(Duration(100ms), parseDuration("100ms").value());
  EXPECT_EQ(Duration(15min), parseDuration("15mins").value());
  EXPECT_EQ(Duration(2h), parseDuration("2hrs").value());
  EXPECT_EQ(Duration(24h), parseDuration("1days").value());
  EXPECT_EQ(Duration(7 * 24h), parseDuration("1weeks").value());
  EXPECT_EQ(Duration(3ns), parseDuration("3ns").value());
  EXPECT_EQ(Duration(7us), parseDuration("7us").value());
  EXPECT_EQ(Duration(1500ms), parseDuration("1.5secs").value());
  EXPECT_EQ(Duration(90s), parseDuration("1.5mins").value());
  EXPECT_EQ(Duration(0), parseDuration("0secs").value());
  EXPECT_FALSE(parseDuration("5").ok());
  EXPECT_FALSE(parseDuration("secs").ok());
  EXPECT_FALSE(parseDuration("-5secs").ok());
  EXPECT_FALSE(parseDuration("5 secs").ok());
  EXPECT_FALSE(parseDuration("5seconds").ok());
  EXPECT_FALSE(parseDuration("1.2.3secs").ok());
  EXPECT_FALSE(parseDuration("").ok());
  EXPECT_FALSE(parseDuration("100000weeks").ok());  // beyond int64 nanoseconds
  EXPECT_NE(std::string::npos, parseDuration("5parsecs").error().message.find("unknown unit 'parsecs'"));
}

TEST(DurationTest, Format) {
  EXPECT_EQ("5secs", formatDuration(5s));
  EXPECT_EQ("100ms", formatDuration(100ms));
  EXPECT_EQ("1.5secs", formatDuration(1500ms));
  EXPECT_EQ("1.5mins", formatDuration(90s));
  EXPECT_EQ("10mins", formatDuration(600s));
  EXPECT_EQ("2hrs", formatDuration(2h));
  EXPECT_EQ("1.5days", formatDuration(36h));
  EXPECT_EQ("1weeks", formatDuration(7 * 24h));
  EXPECT_EQ("0secs", formatDuration(Duration(0)));
  EXPECT_EQ("1ns", formatDuration(Duration(1)));
  EXPECT_EQ("1.001secs", formatDuration(1001ms));
  EXPECT_EQ("1000.001ms", formatDuration(Duration(1000001000)));
  EXPECT_EQ("1000001.001us", formatDuration(Duration(1000001001)));
  EXPECT_EQ("-5secs", formatDuration(-5s));
  // Every formatted duration parses back to itself.
  for (Duration d : {Duration(1), Duration(999), Duration(1234567), Duration(1000000001), Duration(61s),
                     Duration(3h + 20min), Duration(12345678901234)}) {
    auto back = parseDuration(formatDuration(d));
    ASSERT_TRUE(back.ok()) << formatDuration(d);
    EXPECT_EQ(d, back.value()) << formatDuration(d);
  }
}

TEST(BytesTest, ParseAndFormat) {
  EXPECT_EQ(Bytes{100}, parseBytes("100B").value());
  EXPECT_EQ(Bytes{1024}, parseBytes("1KB").value());
  EXPECT_EQ(Bytes{512ULL << 20}, parseBytes("512MB").value());
  EXPECT_EQ(Bytes{4ULL << 30}, parseBytes("4GB").value());
  EXPECT_EQ(Bytes{2ULL << 40}, parseBytes("2TB").value());
  EXPECT_EQ(Bytes{1536ULL << 20}, parseBytes("1.5GB").value());
  EXPECT_FALSE(parseBytes("100").ok());
  EXPECT_FALSE(parseBytes("1PB").ok());
  EXPECT_FALSE(parseBytes("-1MB").ok());
  EXPECT_FALSE(parseBytes("MB").ok());
  EXPECT_FALSE(parseBytes("1mb").ok());

  EXPECT_EQ("100B", formatBytes(Bytes{100}));
  EXPECT_EQ("0B", formatBytes(Bytes{0}));
  EXPECT_EQ("1KB", formatBytes(Bytes{1024}));
  EXPECT_EQ("1025B", formatBytes(Bytes{1025}));
  EXPECT_EQ("1536MB", formatBytes(Bytes{1536ULL << 20}));
  EXPECT_EQ("4GB", formatBytes(Bytes{4ULL << 30}));
  EXPECT_EQ("2TB", formatBytes(Bytes{2ULL << 40}));
}

TEST(BoolTest, Parse) {
  EXPECT_TRUE(parseBool("true").value());
  EXPECT_TRUE(parseBool("1").value());
  EXPECT_FALSE(parseBool("false").value());
  EXPECT_FALSE(parseBool("0").value());
  EXPECT_FALSE(parseBool("TRUE").ok());
  EXPECT_FALSE(parseBool("").ok());
}

// The daemons' --help shows every default the way users write it: whole
// seconds and minutes ("0secs", "15secs", "1mins"), never "0ns".
TEST(DaemonFlagsTest, HelpShowsDefaultsAsUsersWriteThem) {
  std::string master = mesos::internal::master::MasterFlags().usage("mesos-master");
  std::string slave = mesos::internal::slave::Flags().usage("mesos-slave");
  for (const char* shown : {"(default: 0secs)", "(default: 1secs)", "(default: 15secs)",
                            "(default: 30secs)", "(default: 5secs)", "(default: 64MB)",
                            "(default: 5050)"}) {
    EXPECT_NE(std::string::npos, master.find(shown)) << shown << " in\n" << master;
  }
  for (const char* shown : {"(default: 1mins)", "(default: 5secs)", "(default: 1secs)",
                            "(default: 5051)", "(default: true)"}) {
    EXPECT_NE(std::string::npos, slave.find(shown)) << shown << " in\n" << slave;
  }
  const std::regex kOddUnit(R"(\(default: -?[0-9.]+(ns|us)\))");
  EXPECT_FALSE(std::regex_search(master, kOddUnit)) << master;
  EXPECT_FALSE(std::regex_search(slave, kOddUnit)) << slave;
}

}  // namespace
}  // namespace mesos::flags
