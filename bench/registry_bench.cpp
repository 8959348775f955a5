// registry_bench: the master's registry of agents (src/master/registrar/)
// at scale, against a real ZooKeeper server (or files, or memory): N agents
// admitted in one burst (as when a cluster starts), one change after that
// (a registration or a removal, the steady state), and a new owner's
// recovery of all of them (a failover). Prints `name: value unit` lines
// (docs/benchmarks.md, "The registry of agents").
//
//   registry_bench --agents=50000 [--storage=zookeeper|file|in_memory] [--runs=3]
#include <gflags/gflags.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "failover/ensemble.hpp"
#include "fig10/children.hpp"
#include "master/registrar/registrar.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "zk/zookeeper.hpp"

DEFINE_uint64(agents, 10000, "agents in the registry");
DEFINE_string(storage, "zookeeper", "zookeeper, file or in_memory");
DEFINE_uint64(runs, 3, "runs (medians are printed)");
DEFINE_string(dir, "", "scratch directory (default: a new one under /tmp)");

namespace {

using namespace std::chrono_literals;
using mesos::internal::master::registrar::Registrar;
using mesos::internal::master::registrar::Storage;
namespace registrar = mesos::internal::master::registrar;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A SlaveInfo as a mesos-slave sends it (hostname, resources with a port
// range, an attribute), with its id.
mesos::SlaveInfo agent(uint64_t i, const std::string& run) {
  mesos::SlaveInfo info;
  info.set_hostname("agent-" + std::to_string(i) + ".rack-" + std::to_string(i % 50) +
                    ".example.com");
  info.set_port(5051);
  info.mutable_id()->set_value(run + "-S" + std::to_string(i));
  auto* resources = info.mutable_resources();
  for (auto [name, value] : {std::pair{"cpus", 32.0}, std::pair{"mem", 245760.0},
                             std::pair{"disk", 1843200.0}}) {
    auto* r = resources->Add();
    r->set_name(name);
    r->set_type(mesos::Value::SCALAR);
    r->mutable_scalar()->set_value(value);
  }
  auto* ports = resources->Add();
  ports->set_name("ports");
  ports->set_type(mesos::Value::RANGES);
  auto* range = ports->mutable_ranges()->add_range();
  range->set_begin(31000);
  range->set_end(32000);
  auto* rack = info.add_attributes();
  rack->set_name("rack");
  rack->set_type(mesos::Value::TEXT);
  rack->mutable_text()->set_value("rack-" + std::to_string(i % 50));
  return info;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  std::string dir = FLAGS_dir.empty()
                        ? std::string(std::filesystem::temp_directory_path() /
                                      ("registry-bench-" + std::to_string(::getpid())))
                        : FLAGS_dir;
  std::filesystem::create_directories(dir);
  fig10::Children children;
  std::unique_ptr<failover::Ensemble> ensemble;
  auto runtime = std::move(process::Runtime::create({})).value();
  process::Spawned<mesos::internal::zk::ZooKeeper> zk;
  if (FLAGS_storage == "zookeeper") {
    if (std::string why = failover::Ensemble::unavailable(); !why.empty()) {
      std::fprintf(stderr, "registry_bench: %s\n", why.c_str());
      return 2;
    }
    ensemble = std::make_unique<failover::Ensemble>(children, dir, 1);
    std::string error;
    if (!ensemble->start(60s, &error)) {
      std::fprintf(stderr, "registry_bench: ZooKeeper: %s\n", error.c_str());
      return 2;
    }
    auto url = mesos::internal::zk::parseUrl("zk://" + ensemble->connectString() + "/mesos");
    zk = runtime->spawn<mesos::internal::zk::ZooKeeper>("zookeeper", *url, 10000ms);
  }
  std::vector<double> burst, single, removal, recovery, bytes, writes;
  for (uint64_t run = 0; run < FLAGS_runs; ++run) {
    const std::string name = "run" + std::to_string(run);
    auto storage = [&]() -> std::unique_ptr<Storage> {
      if (FLAGS_storage == "zookeeper") {
        return registrar::zookeeperStorage(zk.pid(), "/mesos/" + name, "bench");
      }
      if (FLAGS_storage == "file") return registrar::fileStorage(dir + "/" + name);
      return registrar::inMemoryStorage();
    };
    auto owner = runtime->spawn<Registrar>("registrar-" + name, storage(), 600000ms, 600000ms);
    auto recovered = process::dispatch(owner.pid(), &Registrar::recover);
    if (!recovered.await(600s) || !recovered.get().ok()) {
      std::fprintf(stderr, "registry_bench: cannot make the registry\n");
      return 1;
    }
    // The burst: every agent at once.
    auto start = std::chrono::steady_clock::now();
    std::vector<process::Future<mesos::Result<bool>>> changes;
    changes.reserve(FLAGS_agents);
    for (uint64_t i = 0; i < FLAGS_agents; ++i) {
      changes.push_back(process::dispatch(owner.pid(), &Registrar::admit, agent(i, name), 1.0));
    }
    for (auto& change : changes) {
      if (!change.await(600s) || !change.get().ok()) {
        std::fprintf(stderr, "registry_bench: a change failed\n");
        return 1;
      }
    }
    burst.push_back(since(start));
    const auto& stats = *owner->stats();
    writes.push_back(static_cast<double>(stats.writes.load()));
    bytes.push_back(static_cast<double>(stats.bytes.load()) / static_cast<double>(FLAGS_agents));
    // One more agent, then one marked unreachable: the steady state.
    start = std::chrono::steady_clock::now();
    auto one = process::dispatch(owner.pid(), &Registrar::admit, agent(FLAGS_agents, name), 2.0);
    one.await(600s);
    single.push_back(since(start));
    start = std::chrono::steady_clock::now();
    mesos::SlaveID id;
    id.set_value(name + "-S0");
    auto gone = process::dispatch(owner.pid(), &Registrar::markUnreachable, id, 3.0);
    gone.await(600s);
    removal.push_back(since(start));
    // A new owner reads everything.
    auto next = runtime->spawn<Registrar>("registrar-" + name + "-next", storage(), 600000ms,
                                          600000ms);
    start = std::chrono::steady_clock::now();
    auto all = process::dispatch(next.pid(), &Registrar::recover);
    if (!all.await(600s) || !all.get().ok() || all.get().value().size() != FLAGS_agents + 1) {
      std::fprintf(stderr, "registry_bench: the new owner did not read every agent\n");
      return 1;
    }
    recovery.push_back(since(start));
  }
  std::printf("registry_storage: %s\n", FLAGS_storage.c_str());
  std::printf("registry_agents: %llu agents\n", static_cast<unsigned long long>(FLAGS_agents));
  std::printf("registry_bytes_per_agent: %.0f bytes\n", median(bytes));
  std::printf("registry_burst_admission: %.3f s\n", median(burst));
  std::printf("registry_burst_writes: %.0f writes\n", median(writes));
  std::printf("registry_one_admission: %.1f ms\n", median(single) * 1000);
  std::printf("registry_one_unreachable: %.1f ms\n", median(removal) * 1000);
  std::printf("registry_recovery: %.3f s\n", median(recovery));
  zk = {};
  runtime.reset();
  std::filesystem::remove_all(dir);
  return 0;
}
