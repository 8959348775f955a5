// allocator_bench: the cost of one allocation cycle of HierarchicalAllocator
// (src/allocator/), called directly, without the allocator actor.
//
// For each combination of S slaves (cpus:16;mem:65536;disk:100000) and F
// frameworks (role "*"), the bench adds the frameworks, then the slaves, and
// runs one allocate() (every slave is offered). Then it simulates a steady
// cluster: every offer comes back and one full allocate() is timed. It prints
// one `name: value unit` line per figure, on stdout:
//   cycle_ms_SxF                 every offer declined without a filter, then
//                                one allocate(): every slave is offered again
//   offers_per_s_SxF             offers made by that cycle / its time
//   cycle_ms_filtered_SxF        every framework declines every offer it gets
//   offers_per_s_filtered_SxF    with refuse_seconds=1000; filters pile up, so
//                                in the k-th such cycle each slave is refused
//                                by the k frameworks offered it before
//   cycle_ms_suppressed_SxF      half of the frameworks are suppressed (idle),
//   offers_per_s_suppressed_SxF  the others decline without a filter
//   add_slaves_ms_S              addSlave() of S slaves, F=200 frameworks present
//   cycle_ms_lottery_SxF,        the plain cycle under the lottery and strict
//   cycle_ms_priority_SxF        priority policies (frameworks in four roles)
//   cycle_ms_reserved_SxF,       the plain cycle with static reservations: each
//   offers_per_s_reserved_SxF    slave also has cpus:4;mem:16384 reserved for
//                                one of four roles r0..r3, and the frameworks
//                                are spread over "*" and r0..r3
//   cycle_ms_quota_SxF,          the reserved cluster with quota
//   offers_per_s_quota_SxF       (docs/quota.md): r0 guaranteed a tenth of
//                                the unreserved cpus and memory, r1 limited
//                                to a twentieth, r2 both; offers are cut
//                                to limits and headroom (--scenarios=quota)
//   cycle_ms_multirole_SxF,      the reserved cluster with MULTI_ROLE
//   offers_per_s_multirole_SxF   frameworks: framework i subscribed to roles
//                                r<i % 4> and r<(i + 1) % 4> (FrameworkInfo
//                                .roles), one allocator client per role, so
//                                twice as many clients (--scenarios=multirole)
// Each cycle figure is the median of --cycles cycles; the time spent giving
// offers back (recoverResources) is not counted. docs/benchmarks.md records
// the figures.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "allocator/hierarchical.hpp"
#include "mesos/resources.hpp"

DEFINE_bool(quick, false,
            "Only the smaller combinations (1000 and 10000 slaves); the lottery, priority and "
            "add_slaves figures at 10000 slaves instead of 50000.");
DEFINE_string(combos, "",
              "Comma-separated SxF combinations to run instead of the defaults, e.g. "
              "'50000x200,1000x10'. The lottery, priority and add_slaves figures are then "
              "skipped.");
DEFINE_uint32(cycles, 5, "Timed cycles per figure; the median is printed.");
DEFINE_bool(cpu_time, false,
            "Time cycles by this thread's CPU time instead of real time (steadier while other "
            "programs run).");
DEFINE_string(scenarios, "plain,filtered,suppressed",
              "Comma-separated scenarios of each combination to run: plain, filtered, "
              "suppressed, reserved, quota, multirole (to profile one at a time).");
DEFINE_string(slave_resources, "cpus:16;mem:65536;disk:100000", "Each slave's resources.");

namespace {

using mesos::FrameworkID;
using mesos::FrameworkInfo;
using mesos::Filters;
using mesos::Resources;
using mesos::SlaveID;
using mesos::SlaveInfo;
using mesos::allocator::Config;
using mesos::allocator::HierarchicalAllocator;
using mesos::allocator::Options;
using mesos::allocator::SlaveResources;
using mesos::allocator::TimePoint;

void print(const std::string& name, double value, std::string_view unit) {
  if (value >= 100) {
    std::printf("%s: %.0f %.*s\n", name.c_str(), value, static_cast<int>(unit.size()),
                unit.data());
  } else {
    std::printf("%s: %.2f %.*s\n", name.c_str(), value, static_cast<int>(unit.size()),
                unit.data());
  }
  std::fflush(stdout);
}

// Seconds on the clock --cpu_time chooses.
double clockSeconds() {
  if (FLAGS_cpu_time) {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One allocator with S slaves and F frameworks, and the offers it has made
// that have not been given back.
class Cluster {
 public:
  // Framework i has role roles[i % roles.size()]; with `multiRole`, it is a
  // MULTI_ROLE framework of that role and the next one in `roles`.
  Cluster(const std::string& policy, Config config, size_t frameworks,
          const std::vector<std::string>& roles, bool multiRole = false)
      : allocator_(policy, std::move(config)) {
    Options options;
    options.now = [this] { return now_; };
    options.offer = [this](const FrameworkID& id, std::vector<SlaveResources> batch) {
      offers_ += batch.size();
      outstanding_.emplace_back(id, std::move(batch));
    };
    allocator_.initialize(options);
    frameworkIds_.resize(frameworks);
    for (size_t i = 0; i < frameworks; i++) {
      frameworkIds_[i].set_value("f" + std::to_string(i));
      FrameworkInfo info;
      info.set_user("bench");
      info.set_name(frameworkIds_[i].value());
      if (multiRole) {
        info.add_capabilities()->set_type(FrameworkInfo::Capability::MULTI_ROLE);
        info.add_roles(roles[i % roles.size()]);
        info.add_roles(roles[(i + 1) % roles.size()]);
      } else {
        info.set_role(roles[i % roles.size()]);
      }
      allocator_.addFramework(frameworkIds_[i], info, {}, true);
    }
  }

  // Adds `count` slaves h<i>, slave i with kinds[i % kinds.size()];
  // returns the seconds it took.
  double addSlaves(size_t count, const std::vector<Resources>& kinds) {
    std::vector<std::pair<SlaveID, SlaveInfo>> slaves(count);
    for (size_t i = 0; i < count; i++) {
      std::string name = "h" + std::to_string(i);
      slaves[i].first.set_value("S-" + name);
      slaves[i].second.set_hostname(name);
      *slaves[i].second.mutable_resources() = kinds[i % kinds.size()].proto();
    }
    double start = clockSeconds();
    for (size_t i = 0; i < count; i++) {
      allocator_.addSlave(slaves[i].first, slaves[i].second, kinds[i % kinds.size()], {});
    }
    return clockSeconds() - start;
  }
  double addSlaves(size_t count, const Resources& resources) {
    return addSlaves(count, std::vector<Resources>{resources});
  }

  // One full allocate(): its duration in seconds and the offers it made.
  std::pair<double, size_t> cycle() {
    offers_ = 0;
    double start = clockSeconds();
    allocator_.allocate();
    return {clockSeconds() - start, offers_};
  }

  // Every outstanding offer comes back: with `filters` for frameworks for
  // which `filtered(i)` holds, without for the others.
  template <typename F>
  void recoverAll(const std::optional<Filters>& filters, F&& filtered) {
    for (auto& [id, batch] : outstanding_) {
      size_t index = std::stoul(id.value().substr(1));
      std::optional<Filters> given = filtered(index) ? filters : std::nullopt;
      for (const SlaveResources& offer : batch) {
        allocator_.recoverResources(id, offer.slaveId, offer.resources, given);
      }
    }
    outstanding_.clear();
  }
  void recoverAll() {
    recoverAll(std::nullopt, [](size_t) { return false; });
  }

  void suppress(size_t index) { allocator_.suppressOffers(frameworkIds_[index]); }
  HierarchicalAllocator& allocator() { return allocator_; }

 private:
  TimePoint now_{};
  HierarchicalAllocator allocator_;
  std::vector<FrameworkID> frameworkIds_;
  std::vector<std::pair<FrameworkID, std::vector<SlaveResources>>> outstanding_;
  size_t offers_ = 0;
};

struct Figure {
  double ms;
  double offersPerSecond;
};

// Runs --cycles timed cycles, calling `recover` before each; the median
// cycle and the offers per second of that median cycle.
template <typename F>
Figure measure(Cluster& cluster, F&& recover) {
  std::vector<std::pair<double, size_t>> cycles;
  for (uint32_t i = 0; i < FLAGS_cycles; i++) {
    recover();
    cycles.push_back(cluster.cycle());
  }
  std::sort(cycles.begin(), cycles.end());
  auto [seconds, offers] = cycles[cycles.size() / 2];
  return {seconds * 1e3, seconds > 0 ? static_cast<double>(offers) / seconds : 0.0};
}

std::string combo(size_t slaves, size_t frameworks) {
  return std::to_string(slaves) + "x" + std::to_string(frameworks);
}

Filters refuse(double seconds) {
  Filters filters;
  filters.set_refuse_seconds(seconds);
  return filters;
}

bool scenario(const std::string& name) {
  std::string list = "," + FLAGS_scenarios + ",";
  return list.find("," + name + ",") != std::string::npos;
}

// The plain cycle (DRF) with static reservations: slave i has, besides
// `resources`, cpus:4;mem:16384 reserved for role r<i % 4>; the frameworks
// are spread over roles "*", r0, r1, r2 and r3. A slave goes to one
// framework, and its reservation to a second one when the first is not of
// its role.
void runReserved(size_t slaves, size_t frameworks, const Resources& resources) {
  std::vector<Resources> kinds;
  for (int r = 0; r < 4; r++) {
    std::string role = "r" + std::to_string(r);
    kinds.push_back(resources +
                    Resources::parse("cpus(" + role + "):4;mem(" + role + "):16384").value());
  }
  Cluster cluster("drf", Config{}, frameworks, {"*", "r0", "r1", "r2", "r3"});
  cluster.addSlaves(slaves, kinds);
  auto [seconds, offers] = cluster.cycle();
  CHECK_GE(offers, slaves) << "the first cycle should offer every slave";
  (void)seconds;
  Figure reserved = measure(cluster, [&] { cluster.recoverAll(); });
  print("cycle_ms_reserved_" + combo(slaves, frameworks), reserved.ms, "ms");
  print("offers_per_s_reserved_" + combo(slaves, frameworks), reserved.offersPerSecond,
        "offers/s");
}

// The reserved cluster of runReserved() with quota on three of its roles.
void runQuota(size_t slaves, size_t frameworks, const Resources& resources) {
  std::vector<Resources> kinds;
  for (int r = 0; r < 4; r++) {
    std::string role = "r" + std::to_string(r);
    kinds.push_back(resources +
                    Resources::parse("cpus(" + role + "):4;mem(" + role + "):16384").value());
  }
  Cluster cluster("drf", Config{}, frameworks, {"*", "r0", "r1", "r2", "r3"});
  double cpus = resources.scalar("cpus") * static_cast<double>(slaves);
  double mem = resources.scalar("mem") * static_cast<double>(slaves);
  using Quota = mesos::allocator::Quota;
  cluster.allocator().updateQuota("r0", Quota{{{"cpus", cpus / 10}, {"mem", mem / 10}}, {}});
  cluster.allocator().updateQuota("r1", Quota{{}, {{"cpus", cpus / 20}, {"mem", mem / 20}}});
  cluster.allocator().updateQuota(
      "r2", Quota{{{"cpus", cpus / 20}}, {{"cpus", cpus / 10}, {"mem", mem / 10}}});
  cluster.addSlaves(slaves, kinds);
  cluster.cycle();
  Figure quota = measure(cluster, [&] { cluster.recoverAll(); });
  print("cycle_ms_quota_" + combo(slaves, frameworks), quota.ms, "ms");
  print("offers_per_s_quota_" + combo(slaves, frameworks), quota.offersPerSecond, "offers/s");
}

// The reserved cluster of runReserved() with MULTI_ROLE frameworks, each of
// two of the roles r0..r3: each role of a framework is offered on its own.
void runMultiRole(size_t slaves, size_t frameworks, const Resources& resources) {
  std::vector<Resources> kinds;
  for (int r = 0; r < 4; r++) {
    std::string role = "r" + std::to_string(r);
    kinds.push_back(resources +
                    Resources::parse("cpus(" + role + "):4;mem(" + role + "):16384").value());
  }
  Cluster cluster("drf", Config{}, frameworks, {"r0", "r1", "r2", "r3"}, true);
  cluster.addSlaves(slaves, kinds);
  auto [seconds, offers] = cluster.cycle();
  CHECK_GE(offers, slaves) << "the first cycle should offer every slave";
  (void)seconds;
  Figure multi = measure(cluster, [&] { cluster.recoverAll(); });
  print("cycle_ms_multirole_" + combo(slaves, frameworks), multi.ms, "ms");
  print("offers_per_s_multirole_" + combo(slaves, frameworks), multi.offersPerSecond,
        "offers/s");
}

// Plain, filtered and suppressed cycles for one combination (DRF, role "*"),
// and the reserved one when asked for.
void runCombo(size_t slaves, size_t frameworks, const Resources& resources) {
  std::string name = combo(slaves, frameworks);
  if (scenario("plain") || scenario("filtered")) {
    Cluster cluster("drf", Config{}, frameworks, {"*"});
    cluster.addSlaves(slaves, resources);
    auto [seconds, offers] = cluster.cycle();
    CHECK_EQ(slaves, offers) << "the first cycle should offer every slave";
    (void)seconds;

    if (scenario("plain")) {
      Figure plain = measure(cluster, [&] { cluster.recoverAll(); });
      print("cycle_ms_" + name, plain.ms, "ms");
      print("offers_per_s_" + name, plain.offersPerSecond, "offers/s");
    }
    if (scenario("filtered")) {
      Filters filters = refuse(1000);
      Figure filtered =
          measure(cluster, [&] { cluster.recoverAll(filters, [](size_t) { return true; }); });
      print("cycle_ms_filtered_" + name, filtered.ms, "ms");
      print("offers_per_s_filtered_" + name, filtered.offersPerSecond, "offers/s");
    }
  }
  if (scenario("suppressed")) {
    Cluster cluster("drf", Config{}, frameworks, {"*"});
    for (size_t i = 0; i < frameworks; i += 2) cluster.suppress(i);
    cluster.addSlaves(slaves, resources);
    cluster.cycle();
    Figure suppressed = measure(cluster, [&] { cluster.recoverAll(); });
    print("cycle_ms_suppressed_" + name, suppressed.ms, "ms");
    print("offers_per_s_suppressed_" + name, suppressed.offersPerSecond, "offers/s");
  }
  if (scenario("reserved")) runReserved(slaves, frameworks, resources);
  if (scenario("quota")) runQuota(slaves, frameworks, resources);
  if (scenario("multirole")) runMultiRole(slaves, frameworks, resources);
}

// The plain cycle under another policy, the frameworks spread over four
// roles r0..r3 (priorities 0..3 for the priority policy, weights 1..4 for
// the lottery).
void runPolicy(const std::string& policy, const std::string& label, size_t slaves,
               size_t frameworks, const Resources& resources) {
  Config config;
  for (int r = 0; r < 4; r++) {
    std::string role = "r" + std::to_string(r);
    config.priorities[role] = r;
    config.weights[role] = r + 1;
  }
  config.seed = 1;
  Cluster cluster(policy, config, frameworks, {"r0", "r1", "r2", "r3"});
  cluster.addSlaves(slaves, resources);
  cluster.cycle();
  Figure plain = measure(cluster, [&] { cluster.recoverAll(); });
  print("cycle_ms_" + label + "_" + combo(slaves, frameworks), plain.ms, "ms");
  print("offers_per_s_" + label + "_" + combo(slaves, frameworks), plain.offersPerSecond,
        "offers/s");
}

// The SxF pairs of --combos; nothing if it is malformed.
std::optional<std::vector<std::pair<size_t, size_t>>> parseCombos(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> combos;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    size_t x = item.find('x');
    if (x == std::string::npos || x == 0 || x + 1 == item.size()) return std::nullopt;
    try {
      size_t used = 0;
      size_t s = std::stoul(item.substr(0, x), &used);
      if (used != x) return std::nullopt;
      size_t f = std::stoul(item.substr(x + 1), &used);
      if (used != item.size() - x - 1 || s == 0 || f == 0) return std::nullopt;
      combos.emplace_back(s, f);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    start = end + 1;
  }
  return combos;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Times allocation cycles of the hierarchical allocator; prints `name: value unit` lines.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = google::GLOG_WARNING;
  google::InitGoogleLogging(argv[0]);

  auto resources = Resources::parse(FLAGS_slave_resources);
  if (!resources.ok()) {
    std::fprintf(stderr, "--slave_resources: %s\n", resources.error().message.c_str());
    return 2;
  }
  if (FLAGS_cycles == 0) {
    std::fprintf(stderr, "--cycles must be positive\n");
    return 2;
  }

  if (!FLAGS_combos.empty()) {
    auto combos = parseCombos(FLAGS_combos);
    if (!combos) {
      std::fprintf(stderr, "--combos: expected SxF[,SxF...] with positive numbers, got '%s'\n",
                   FLAGS_combos.c_str());
      return 2;
    }
    for (auto [s, f] : *combos) runCombo(s, f, *resources);
    return 0;
  }

  std::vector<size_t> slaveCounts = {1000, 10000};
  if (!FLAGS_quick) slaveCounts.push_back(50000);
  for (size_t s : slaveCounts) {
    for (size_t f : {10, 200, 1000}) runCombo(s, f, *resources);
  }

  size_t big = FLAGS_quick ? 10000 : 50000;
  {
    Cluster cluster("drf", Config{}, 200, {"*"});
    print("add_slaves_ms_" + std::to_string(big), cluster.addSlaves(big, *resources) * 1e3, "ms");
  }
  runPolicy("lottery", "lottery", big, 200, *resources);
  runPolicy("priority", "priority", big, 200, *resources);
  if (!scenario("reserved")) runReserved(big, 200, *resources);
  return 0;
}
