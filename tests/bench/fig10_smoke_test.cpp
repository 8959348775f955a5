// A short run of bench/fig10 (the Figure 10 experiment, docs/benchmarks.md):
// a real mesos-master, 200 emulated slaves, 10 busy frameworks polling
// /state, two probes, tasks 50 times shorter than the paper's. It checks that
// the harness works end to end (tasks ran, probes finished, every figure was
// measured), not how fast anything is.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/subprocess.hpp"

namespace {

// "name: value unit" lines -> name -> value text.
std::map<std::string, std::string> figures(const std::string& out) {
  std::map<std::string, std::string> values;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    size_t colon = line.find(": ");
    if (colon == std::string::npos) continue;
    std::istringstream rest(line.substr(colon + 2));
    std::string value;
    rest >> value;
    values[line.substr(0, colon)] = value;
  }
  return values;
}

TEST(Fig10SmokeTest, RunsTasksAndProbesAndPrintsEveryFigure) {
  auto result = mesos::test::runChild(
      {MESOS_FIG10_PATH, "--slaves=200", "--frameworks=10", "--frameworks_per_process=5",
       "--time_scale=0.02", "--probes=2", "--state_poll_s=0.2", "--busy_target=0.5",
       "--saturation_timeout_s=20", "--max_runtime_s=50"},
      std::chrono::seconds(60));
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  auto values = figures(result.out);

  EXPECT_EQ(values["status"], "ok") << result.describe();
  EXPECT_EQ(values["probes_completed"], "2") << result.out;
  EXPECT_EQ(values["tasks_failed"], "0") << result.out;
  for (const char* name :
       {"registration_s", "saturation_s", "busy_fraction_min", "tasks_launched_per_s",
        "probe_overhead_p50_s", "probe_overhead_p99_s", "master_cpu_s_per_1000_tasks",
        "master_peak_rss_mb", "state_render_ms_p50", "state_bytes"}) {
    ASSERT_TRUE(values.count(name)) << name << " missing from:\n" << result.out;
    double value = std::strtod(values[name].c_str(), nullptr);
    EXPECT_TRUE(std::isfinite(value)) << name << ": " << values[name] << "\n" << result.out;
    EXPECT_GE(value, 0) << name;
  }
  EXPECT_GT(std::strtod(values["tasks_launched_per_s"].c_str(), nullptr), 0) << result.out;
  EXPECT_GE(std::strtod(values["busy_fraction_min"].c_str(), nullptr), 0.3) << result.out;
  EXPECT_GT(std::strtod(values["state_bytes"].c_str(), nullptr), 1000) << result.out;
}

}  // namespace
