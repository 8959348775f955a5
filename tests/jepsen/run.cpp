#include "jepsen/run.hpp"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <random>
#include <thread>

#include "jepsen/framework.hpp"
#include "process/runtime.hpp"
#include "support/daemon.hpp"
#include "support/root_tasks.hpp"

namespace mesos::jepsen {

using namespace std::chrono_literals;

namespace {

// Samples the task processes every 250 ms into the history, until
// destroyed.
class Monitor {
 public:
  Monitor(const ProcessCluster* cluster, History* history)
      : thread_([this, cluster, history] {
          std::unique_lock lock(mutex_);
          while (!done_) {
            lock.unlock();
            history->sighted(cluster->scanTasks(history->now()));
            lock.lock();
            wake_.wait_for(lock, 250ms, [this] { return done_; });
          }
        }) {}
  ~Monitor() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

MasterView viewOf(const json::Value& state, const std::string& frameworkId) {
  MasterView view;
  for (const char* list : {"frameworks", "unregistered_frameworks"}) {
    if (!state[list].isArray()) continue;
    for (const json::Value& f : state[list].array()) {
      if (!f["id"].isString() || f["id"].string() != frameworkId) continue;
      for (const auto& [key, into] : {std::pair{"tasks", &view.active},
                                      std::pair{"completed_tasks", &view.completed}}) {
        if (!f[key].isArray()) continue;
        for (const json::Value& task : f[key].array()) {
          TaskState state = TASK_STAGING;
          if (task["id"].isString() && task["state"].isString() &&
              TaskState_Parse(task["state"].string(), &state)) {
            (*into)[task["id"].string()] = state;
          }
        }
      }
    }
  }
  return view;
}

}  // namespace

RunReport runJepsen(const RunOptions& options) {
  RunReport out;
  char pattern[] = "/tmp/jepsen-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) {
    out.error = "cannot make a scratch directory under /tmp";
    return out;
  }
  const std::string dir = pattern;
  auto say = [&](const std::string& line) {
    if (options.progress != nullptr) *options.progress << line << std::endl;
  };

  // The tasks run as the user running this (root on test machines): the
  // masters need the rule that lets them (as tests/main.cpp sets it).
  ::setenv("MESOS_ACLS", test::kRootTasksAcls, 0);
  History history;
  ClusterOptions clusterOptions = options.cluster;
  clusterOptions.dir = dir;
  auto cluster = std::make_unique<ProcessCluster>(clusterOptions);
  say("starting the cluster in " + dir);
  if (!cluster->start(&out.error)) {
    cluster.reset();
    std::filesystem::remove_all(dir);
    return out;
  }

  ::setenv("MESOS_REGISTRATION_BACKOFF_FACTOR", "200ms", 1);
  auto runtime = std::move(process::Runtime::create({})).value();
  std::vector<std::unique_ptr<JepsenFramework>> frameworks;
  std::map<std::string, bool> aware;
  for (bool partitionAware : {false, true}) {
    if (partitionAware && !options.partitionAware) continue;
    FrameworkOptions f;
    f.name = partitionAware ? "aware" : "plain";
    f.partitionAware = partitionAware;
    f.seed = options.seed * 2 + (partitionAware ? 1 : 0);
    f.maxUnfinished = options.maxUnfinished;
    f.longMaxS = options.longMaxS;
    aware[f.name] = partitionAware;
    frameworks.push_back(
        std::make_unique<JepsenFramework>(f, &history, cluster->url(), runtime.get()));
  }
  auto violation = [&](const std::string& task, const std::string& what) {
    out.violations.push_back({task, what});
  };
  auto whole = [&] { return cluster->whole(frameworks.size()); };
  // A supervisor: daemons that exit by themselves are noted and started
  // again.
  auto idle = [&] {
    for (const std::string& line : cluster->reap()) history.note(line + "; started again");
  };
  auto await = [&](const std::function<bool()>& done, double bound) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(static_cast<int64_t>(bound * 1000));
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      idle();
      std::this_thread::sleep_for(100ms);  // real processes, polled with a bound
    }
    return true;
  };

  {
    Monitor monitor(cluster.get(), &history);
    for (auto& f : frameworks) f->start();
    if (!await(whole, 60)) violation("", "the frameworks did not register within 60 s");

    // Faults.
    Nemesis nemesis(cluster.get(), &history, options.seed, options.faults, whole, idle);
    std::mt19937_64 random(options.seed + 1);
    history.note("faults begin");
    const double begin = history.now();
    while (out.violations.empty() && history.now() - begin < options.durationS) {
      double gap = std::exponential_distribution<double>(options.faultsPerMinute / 60)(random);
      nemesis.rest(std::min(gap, 20.0));
      for (auto& f : frameworks) {
        if (random() % 2 == 0) f->killOne();
      }
      if (!nemesis.strike(options.recoverBoundS)) {
        violation("", "the cluster was not whole within " +
                          std::to_string(static_cast<int>(options.recoverBoundS)) +
                          " s after the last fault:\n" + cluster->logs(3000));
      }
      say("t=" + std::to_string(static_cast<int>(history.now())) + " s: " +
          history.faults().back().kind + " " + history.faults().back().target);
    }
    out.faults = nemesis.counts();
    out.maxRecoverS = nemesis.maxRecoverS();

    // Heal, stop launching, and reconcile every unfinished task.
    history.note("faults end; healing");
    cluster->heal();
    if (!await(whole, options.recoverBoundS)) violation("", "the healed cluster was not whole");
    for (auto& f : frameworks) f->stopLaunching();
    double asked = history.now();
    for (auto& f : frameworks) f->reconcile();
    bool answered = await(
        [&] {
          for (auto& f : frameworks) {
            if (!f->answeredSince(asked)) return false;
          }
          return true;
        },
        30);
    if (!answered) {
      for (auto& f : frameworks) {
        for (const std::string& task : f->unfinished()) {
          violation(task, "explicit reconciliation did not answer within 30 s");
        }
      }
    }

    // (d): the master agrees (tasks may be finishing meanwhile: retried).
    auto agree = [&](std::vector<Violation>* found) {
      found->clear();
      json::Value state = cluster->leaderState();
      for (auto& f : frameworks) {
        auto disagreements =
            compareWithMaster(f->options().name,
                              latestStates(history.updates(), f->options().name),
                              viewOf(state, f->frameworkId()), f->options().partitionAware);
        found->insert(found->end(), disagreements.begin(), disagreements.end());
      }
      return found->empty();
    };
    std::vector<Violation> disagreements;
    if (!await([&] { return agree(&disagreements); }, 10)) {
      out.violations.insert(out.violations.end(), disagreements.begin(), disagreements.end());
    }

    // Every task killed; none may run afterwards.
    history.note("killing every task");
    bool ended = await(
        [&, kills = std::chrono::steady_clock::time_point()]() mutable {
          bool all = true;
          for (auto& f : frameworks) all = all && f->unfinished().empty();
          if (!all && std::chrono::steady_clock::now() - kills > 5s) {
            for (auto& f : frameworks) f->killAll();
            kills = std::chrono::steady_clock::now();
          }
          return all;
        },
        40);
    if (!ended) {
      for (auto& f : frameworks) {
        for (const std::string& task : f->unfinished()) {
          violation(task, "still not terminal 40 s after the framework asked to kill it");
        }
      }
    }
    await([&] { return cluster->scanTasks(0).empty(); }, 20);
    if (!await([&] { return agree(&disagreements); }, 10)) {
      out.violations.insert(out.violations.end(), disagreements.begin(), disagreements.end());
    }
  }
  const double end = history.now();
  history.sighted(cluster->scanTasks(end));
  history.note("the end");

  for (auto& f : frameworks) {
    out.tasksLaunched += f->launched();
    f->stop();
  }
  frameworks.clear();
  runtime.reset();
  ::unsetenv("MESOS_REGISTRATION_BACKOFF_FACTOR");
  for (const std::string& line : cluster->reap()) history.note(line + "; started again");
  out.crashes = cluster->crashes();
  for (const std::string& line : cluster->shutdown()) history.note(line);
  if (out.crashes > 0) {
    violation("", std::to_string(out.crashes) + " daemon(s) died by themselves (see notes)");
  }

  std::vector<Violation> checked = checkHistory(history, aware, end, options.graceS);
  out.violations.insert(out.violations.end(), checked.begin(), checked.end());
  out.updates = history.updates().size();
  for (const auto& [name, partitionAware] : aware) {
    for (const auto& [task, state] : latestStates(history.updates(), name)) {
      out.ended[TaskState_Name(state)]++;
    }
  }
  out.text = report(history, out.violations);
  cluster.reset();
  if (options.keepDir && !out.violations.empty()) {
    out.dir = dir;
  } else {
    std::filesystem::remove_all(dir);
  }
  return out;
}

}  // namespace mesos::jepsen
