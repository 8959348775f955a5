// failover_bench: how long a cluster takes to get over the loss of its
// leading master (issue 10; docs/benchmarks.md, "Master failover").
//
// It starts a ZooKeeper ensemble of --zk_servers servers, --masters
// mesos-master processes electing a leader through it (--zk,
// --zk_session_timeout_ms), --slaves emulated slaves following the leader
// (bench/fig10/slaves.cpp in --zk mode, --slaves_per_process in each
// process) and --frameworks real scheduler drivers in this process
// (frameworks.hpp) that launch --tasks long-running tasks in all. Once every
// task runs, it kills the leading master with SIGKILL --kills times, and
// each time measures, from the kill:
//
//   elected_s                 until the new leader was elected: its
//                             /master/state "elected_time";
//   slaves_reregistered_s     until the last slave got SlaveReregisteredMessage
//                             from the new leader (the emulators' reports);
//   frameworks_reregistered_s until the last framework's driver got
//                             FrameworkReregisteredMessage from it;
//   slaves_detected_s         until the slaves' ZooKeeper detector named it;
//   mesos_go_reregistered_s   with --mesos_go_scheduler: until a framework
//                             on mesos-go's v0 driver (following the leader
//                             through ZooKeeper itself) was re-registered,
//                             and mesos_go_after_election_s, how long after
//                             the election that was.
//
// and, over the same span (kill to the last re-registration), the CPU time
// the new leader used (leader_cpu_s) and the harness used (harness_cpu_s:
// the emulated slaves and this process, which share the machine with the
// masters), and the (re-)registration messages the slaves sent per slave
// (above 1 when answers came after a slave's retry, or a message reached
// the standby before its election and was dropped).
//
// After each failover it checks the new leader's /metrics/snapshot (every
// slave and framework active, every task running), starts the killed master
// again as a standby, waits --settle_s, and kills the next leader. Times are
// wall-clock times (every process is on this machine, so one clock).
//
// Figures go to stdout as `name: value unit` lines, median and max over the
// failovers; progress to stderr. `status:` says how the run ended: ok, or why
// it was cut short (start_failed, failover_timeout, master_died,
// zookeeper_died, helper_died, interrupted). Exit status 0 when every kill was
// measured, 3 when the run was cut short, 1 on a usage error. Every child
// is killed on the way out, and by the kernel if this process dies.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "../fig10/children.hpp"
#include "../fig10/basics.hpp"
#include "../fig10/http_get.hpp"
#include "ensemble.hpp"
#include "frameworks.hpp"
#include "process/runtime.hpp"
#include "zk/detector.hpp"
#include "zk/url.hpp"

#ifndef MESOS_MASTER_PATH
#define MESOS_MASTER_PATH ""
#endif
#ifndef FIG10_SLAVES_PATH
#define FIG10_SLAVES_PATH ""
#endif

DEFINE_int32(slaves, 1000, "Emulated slaves.");
DEFINE_int64(tasks, 20000,
             "Long-running tasks in all; each slave gets ceil(tasks / slaves) slots of 1 cpu "
             "and 1024 MB, so the cluster is full.");
DEFINE_int32(frameworks, 10, "Frameworks (scheduler drivers in this process).");
DEFINE_int32(masters, 2, "mesos-master processes: one leader, the others standbys.");
DEFINE_int32(zk_servers, 3, "ZooKeeper servers in the ensemble.");
DEFINE_int32(kills, 5, "Times the leading master is killed (SIGKILL).");
DEFINE_int32(zk_session_timeout_ms, 500, "The masters' --zk_session_timeout, milliseconds.");
DEFINE_double(slave_backoff_s, 0.25,
              "The slaves' --registration_backoff_factor: each re-registers after a random "
              "wait within it once it sees a new leader (Apache Mesos's default: 1 s).");
DEFINE_double(framework_backoff_s, 0.25,
              "The drivers' MESOS_REGISTRATION_BACKOFF_FACTOR, the same for frameworks "
              "(Apache Mesos's default: 2 s).");
DEFINE_bool(executors, true,
            "Launch tasks on an executor of each framework (else as command tasks).");
DEFINE_int32(slaves_per_process, 10000, "Emulated slaves per fig10-slaves process.");
DEFINE_double(settle_s, 3,
              "Seconds between the end of a failover (the killed master back as a standby) "
              "and the next kill.");
DEFINE_double(failover_timeout_s, 60, "Give up on a failover not complete within this.");
DEFINE_double(start_timeout_s, 300,
              "Give up when the cluster is not up (every slave registered, every task "
              "running) within this.");
DEFINE_string(master_flags, "",
              "Extra flags for mesos-master, space-separated (e.g. "
              "\"--allocation_settle_delay=2secs\").");
DEFINE_string(master_binary, MESOS_MASTER_PATH, "The mesos-master to run.");
DEFINE_string(slaves_binary, FIG10_SLAVES_PATH, "The fig10-slaves emulator to run.");
DEFINE_string(work_dir, "",
              "Directory for the children's logs and ZooKeeper's data (default: a new "
              "/tmp/failover-XXXXXX, removed after a clean run unless --keep_logs).");
DEFINE_bool(keep_logs, false, "Keep the logs of a clean run too.");
DEFINE_string(mesos_go_scheduler, "",
              "Also run this mesos-go v0 framework (tests/interop/go's go_failover_scheduler, "
              "built into <build>/tests/interop/go-bin) and measure when it is back "
              "(mesos_go_reregistered_s).");

namespace {

using failover::Ensemble;
using failover::Frameworks;
using fig10::Children;
using fig10::wallTime;
using mesos::MasterInfo;
using SteadyClock = std::chrono::steady_clock;
namespace zk = mesos::internal::zk;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

volatile sig_atomic_t interrupted = 0;

void onSignal(int) { interrupted = 1; }

SteadyClock::duration seconds(double s) {
  return std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(s));
}

std::vector<std::string> splitWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

double median(std::vector<double> values) {
  if (values.empty()) return kNan;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double maximum(const std::vector<double>& values) {
  if (values.empty()) return kNan;
  return *std::max_element(values.begin(), values.end());
}

// One failover's figures, seconds from the kill; nan when not measured.
struct Failover {
  double elected = kNan;
  double slavesDetected = kNan;
  double slavesReregistered = kNan;
  double frameworksReregistered = kNan;
  double mesosGoReregistered = kNan;
  double mesosGoAfterElection = kNan;  // mesosGoReregistered - elected
  double leaderCpu = kNan;
  double harnessCpu = kNan;
  double messagesPerSlave = kNan;
};

class Coordinator {
 public:
  int run();

 private:
  struct Master {
    size_t child = 0;
    uint16_t port = 0;
    std::string pid;  // master@127.0.0.1:<port>, as in its MasterInfo
    bool killed = false;
  };
  // A fig10-slaves process and what it said.
  struct Emulator {
    size_t child = 0;
    int64_t registered = 0;
    bool registeredAll = false;
    std::map<uint64_t, std::pair<std::string, double>> leaders;  // generation -> pid, seen at
    std::map<uint64_t, std::pair<double, int64_t>> reregisteredAll;  // generation -> when, messages
  };

  // Reads the children's lines (waiting at most `ms`), follows the leader,
  // and returns false once the run must stop (status_ says why).
  bool tick(int ms = 50);
  void onLine(size_t child, const std::string& line);
  void stop(const std::string& status);
  void progress(const std::string& text);
  // Starts a master and waits until it answers /health. Its index in
  // masters_, or nullopt.
  std::optional<size_t> startMaster();
  bool startEmulators();
  // The live master the detector names as leader, or nullopt.
  std::optional<size_t> leader() const;
  // Waits (ticking) until `done` or `bound` passed; false on timeout or stop.
  template <typename F>
  bool waitFor(F done, double bound);
  // Kills the leader, measures the failover, restarts the killed master.
  bool failover(int round);
  void printFigures();

  std::string workDir_;
  Children children_;
  std::unique_ptr<Ensemble> ensemble_;
  std::string zkUrl_;
  std::unique_ptr<process::Runtime> runtime_;
  // After the runtime: they go before it.
  std::unique_ptr<zk::MasterDetector> detector_;
  std::unique_ptr<Frameworks> frameworks_;
  process::Future<std::optional<MasterInfo>> detection_;
  std::optional<MasterInfo> leader_;
  std::vector<Master> masters_;
  std::vector<Emulator> emulators_;
  std::map<size_t, size_t> emulatorOf_;  // child index -> emulators_ index
  // The mesos-go framework (--mesos_go_scheduler): its child index, and the
  // masters it was (re-)registered with, with when.
  std::optional<size_t> mesosGo_;
  std::vector<std::pair<std::string, double>> mesosGoRegistrations_;
  int slots_ = 0;
  int mastersStarted_ = 0;
  std::vector<Failover> failovers_;
  std::string status_;
  SteadyClock::time_point start_ = SteadyClock::now();
  SteadyClock::time_point lastProgress_ = start_;
};

void Coordinator::progress(const std::string& text) {
  char prefix[64];
  std::snprintf(prefix, sizeof(prefix), "failover_bench [%.1f s] ",
                std::chrono::duration<double>(SteadyClock::now() - start_).count());
  std::cerr << prefix << text << std::endl;
}

void Coordinator::stop(const std::string& status) {
  if (status_.empty()) {
    status_ = status;
    progress("stopping: " + status);
  }
}

void Coordinator::onLine(size_t child, const std::string& line) {
  if (mesosGo_ && child == *mesosGo_) {
    // "registered <id> <master pid> <time>", "reregistered <master pid> <time>".
    auto words = splitWords(line);
    if (words.size() == 4 && words[0] == "registered") {
      mesosGoRegistrations_.emplace_back(words[2], std::atof(words[3].c_str()));
    } else if (words.size() == 3 && words[0] == "reregistered") {
      mesosGoRegistrations_.emplace_back(words[1], std::atof(words[2].c_str()));
    }
    return;
  }
  auto it = emulatorOf_.find(child);
  if (it == emulatorOf_.end()) return;
  Emulator& emulator = emulators_[it->second];
  auto words = splitWords(line);
  if (words.empty()) return;
  if (words[0] == "slaves" && words.size() >= 2) {
    emulator.registered = std::atoll(words[1].c_str());
  } else if (words[0] == "registered_all") {
    emulator.registeredAll = true;
  } else if (words[0] == "leader" && words.size() >= 4) {
    emulator.leaders[std::stoull(words[1])] = {words[2], std::atof(words[3].c_str())};
  } else if (words[0] == "reregistered_all" && words.size() >= 3) {
    emulator.reregisteredAll[std::stoull(words[1])] = {
        std::atof(words[2].c_str()), words.size() >= 4 ? std::atoll(words[3].c_str()) : 0};
  }
}

bool Coordinator::tick(int ms) {
  children_.poll(ms, [this](size_t child, const std::string& line) { onLine(child, line); });
  if (detection_.isReady()) {
    leader_ = detection_.get();
    detection_ = detector_->detect(leader_);
  }
  if (!status_.empty()) return false;
  if (interrupted) {
    stop("interrupted");
    return false;
  }
  for (size_t i : ensemble_->children()) {
    if (children_[i].exited) {
      stop("zookeeper_died");
      progress(children_[i].name + " exited; see its log in " + workDir_);
      return false;
    }
  }
  if (mesosGo_ && children_[*mesosGo_].exited) {
    stop("helper_died");
    progress("the mesos-go framework exited; see its log in " + workDir_);
    return false;
  }
  for (const Emulator& emulator : emulators_) {
    if (children_[emulator.child].exited) {
      stop("helper_died");
      progress(children_[emulator.child].name + " exited; see its log in " + workDir_);
      return false;
    }
  }
  for (const Master& master : masters_) {
    if (!master.killed && children_[master.child].exited) {
      stop("master_died");
      progress(children_[master.child].name + " exited unasked; see its log in " + workDir_);
      return false;
    }
  }
  return true;
}

template <typename F>
bool Coordinator::waitFor(F done, double bound) {
  auto deadline = SteadyClock::now() + seconds(bound);
  while (tick()) {
    if (done()) return true;
    if (SteadyClock::now() > deadline) return false;
  }
  return false;
}

std::optional<size_t> Coordinator::leader() const {
  if (!leader_) return std::nullopt;
  for (size_t i = 0; i < masters_.size(); ++i) {
    if (!masters_[i].killed && masters_[i].pid == leader_->pid()) return i;
  }
  return std::nullopt;
}

std::optional<size_t> Coordinator::startMaster() {
  Master master;
  master.port = failover::freePort();
  if (master.port == 0) {
    progress("no free port for a master");
    return std::nullopt;
  }
  master.pid = "master@127.0.0.1:" + std::to_string(master.port);
  std::string name = "master-" + std::to_string(mastersStarted_++);
  std::filesystem::create_directories(workDir_ + "/" + name);
  std::vector<std::string> argv = {
      FLAGS_master_binary,
      "--ip=127.0.0.1",
      "--port=" + std::to_string(master.port),
      "--work_dir=" + workDir_ + "/" + name,
      "--zk=" + zkUrl_,
      "--zk_session_timeout=" + std::to_string(FLAGS_zk_session_timeout_ms) + "ms"};
  for (const std::string& flag : splitWords(FLAGS_master_flags)) argv.push_back(flag);
  std::string error;
  auto child = children_.spawn(name, argv, false, workDir_ + "/" + name + ".log", &error);
  if (!child) {
    progress("cannot start " + FLAGS_master_binary + ": " + error);
    return std::nullopt;
  }
  master.child = *child;
  masters_.push_back(master);
  size_t index = masters_.size() - 1;
  bool up = waitFor(
      [&] {
        auto health = fig10::httpGet("127.0.0.1", master.port, "/health",
                                     std::chrono::seconds(1), false);
        return health.complete && health.status == 200;
      },
      30);
  if (!up) {
    progress(name + " did not answer /health within 30 s; see " + workDir_ + "/" + name +
             ".log");
    return std::nullopt;
  }
  return index;
}

bool Coordinator::startEmulators() {
  int processes = (FLAGS_slaves + FLAGS_slaves_per_process - 1) / FLAGS_slaves_per_process;
  int first = 0;
  for (int p = 0; p < processes; ++p) {
    int count = FLAGS_slaves / processes + (p < FLAGS_slaves % processes ? 1 : 0);
    char backoff[32];
    std::snprintf(backoff, sizeof(backoff), "%g", FLAGS_slave_backoff_s);
    std::vector<std::string> argv = {FLAGS_slaves_binary,
                                     "--zk=" + zkUrl_,
                                     "--count=" + std::to_string(count),
                                     "--first=" + std::to_string(first),
                                     "--slots=" + std::to_string(slots_),
                                     std::string("--registration_backoff_factor=") + backoff};
    std::string name = "slaves-" + std::to_string(p);
    std::string error;
    auto child = children_.spawn(name, argv, true, workDir_ + "/" + name + ".log", &error);
    if (!child) {
      progress("cannot start " + FLAGS_slaves_binary + ": " + error);
      return false;
    }
    Emulator emulator;
    emulator.child = *child;
    emulatorOf_[*child] = emulators_.size();
    emulators_.push_back(emulator);
    first += count;
  }
  return true;
}

bool Coordinator::failover(int round) {
  auto killedIndex = leader();
  if (!killedIndex) {
    progress("no known leader to kill");
    stop("failover_timeout");
    return false;
  }
  const std::string killedPid = masters_[*killedIndex].pid;
  // Generations each emulator had seen: the new leader's comes after.
  std::vector<uint64_t> before;
  for (const Emulator& emulator : emulators_) {
    before.push_back(emulator.leaders.empty() ? 0 : emulator.leaders.rbegin()->first);
  }

  // CPU time so far of every process that may work for the failover.
  auto cpuOf = [](pid_t pid) {
    auto stats = fig10::readProcStats(pid);
    return stats ? stats->cpuSeconds : kNan;
  };
  auto harnessCpu = [&] {
    double sum = cpuOf(::getpid());
    for (const Emulator& emulator : emulators_) sum += cpuOf(children_[emulator.child].pid);
    return sum;
  };
  std::vector<double> mastersCpu;
  for (const Master& master : masters_) mastersCpu.push_back(cpuOf(children_[master.child].pid));
  const double harnessBefore = harnessCpu();

  const double killedAt = wallTime();
  ::kill(children_[masters_[*killedIndex].child].pid, SIGKILL);
  masters_[*killedIndex].killed = true;

  Failover figures;
  std::string newPid;
  int64_t messages = 0;
  bool done = waitFor(
      [&] {
        if (!leader_ || leader_->pid() == killedPid) return false;
        newPid = leader_->pid();
        double detected = 0, reregistered = 0;
        int64_t sent = 0;
        for (size_t e = 0; e < emulators_.size(); ++e) {
          const Emulator& emulator = emulators_[e];
          bool found = false;
          for (auto it = emulator.leaders.upper_bound(before[e]); it != emulator.leaders.end();
               ++it) {
            if (it->second.first != newPid) continue;
            auto at = emulator.reregisteredAll.find(it->first);
            if (at == emulator.reregisteredAll.end()) continue;
            detected = std::max(detected, it->second.second);
            reregistered = std::max(reregistered, at->second.first);
            sent += at->second.second;
            found = true;
          }
          if (!found) return false;
        }
        auto frameworks = frameworks_->reregisteredWith(newPid, killedAt);
        if (frameworks.count < FLAGS_frameworks) return false;
        if (mesosGo_) {
          double back = kNan;
          for (const auto& [pid, at] : mesosGoRegistrations_) {
            if (pid == newPid && at >= killedAt) back = at;
          }
          if (std::isnan(back)) return false;
          figures.mesosGoReregistered = back - killedAt;
        }
        figures.slavesDetected = detected - killedAt;
        figures.slavesReregistered = reregistered - killedAt;
        figures.frameworksReregistered = frameworks.latest - killedAt;
        messages = sent;
        return true;
      },
      FLAGS_failover_timeout_s);
  if (!done) {
    if (status_.empty()) {
      auto frameworks = frameworks_->reregisteredWith(newPid, killedAt);
      int64_t registered = 0;
      for (const Emulator& emulator : emulators_) registered += emulator.registered;
      progress("failover " + std::to_string(round) + " not complete after " +
               std::to_string(FLAGS_failover_timeout_s) + " s: new leader '" + newPid + "', " +
               std::to_string(registered) + " slaves registered, " +
               std::to_string(frameworks.count) + " frameworks re-registered");
      stop("failover_timeout");
    }
    return false;
  }

  figures.harnessCpu = harnessCpu() - harnessBefore;
  figures.messagesPerSlave = static_cast<double>(messages) / FLAGS_slaves;
  // The election's time, from the new leader itself, now that nothing
  // competes with the render.
  std::optional<size_t> elected = leader();
  if (elected) {
    figures.leaderCpu = cpuOf(children_[masters_[*elected].child].pid) - mastersCpu[*elected];
    uint16_t port = masters_[*elected].port;
    auto state = fig10::httpGet("127.0.0.1", port, "/master/state", std::chrono::seconds(60), true);
    double electedTime = state.complete && state.status == 200
                             ? fig10::jsonNumber(state.body, "elected_time")
                             : -1;
    if (electedTime > 0) figures.elected = electedTime - killedAt;
    figures.mesosGoAfterElection = figures.mesosGoReregistered - figures.elected;
    auto metrics =
        fig10::httpGet("127.0.0.1", port, "/metrics/snapshot", std::chrono::seconds(30), true);
    if (metrics.complete && metrics.status == 200) {
      double slaves = fig10::jsonNumber(metrics.body, "master/slaves_active");
      double frameworks = fig10::jsonNumber(metrics.body, "master/frameworks_active");
      double running = fig10::jsonNumber(metrics.body, "master/tasks_running");
      if (slaves != FLAGS_slaves || frameworks != FLAGS_frameworks + (mesosGo_ ? 1 : 0) ||
          running != FLAGS_tasks) {
        progress("warning: the new leader has " + std::to_string(slaves) + " active slaves, " +
                 std::to_string(frameworks) + " active frameworks, " + std::to_string(running) +
                 " running tasks");
      }
    }
  }
  char text[400];
  std::snprintf(text, sizeof(text),
                "failover %d: elected %.3f s, slaves detected %.3f s, slaves re-registered "
                "%.3f s (%.3f messages a slave), frameworks re-registered %.3f s; CPU: new "
                "leader %.2f s, harness %.2f s",
                round, figures.elected, figures.slavesDetected, figures.slavesReregistered,
                figures.messagesPerSlave, figures.frameworksReregistered, figures.leaderCpu,
                figures.harnessCpu);
  progress(text);
  if (mesosGo_) {
    std::snprintf(text, sizeof(text),
                  "failover %d: the mesos-go framework re-registered %.3f s (%.3f s after the "
                  "election)",
                  round, figures.mesosGoReregistered, figures.mesosGoAfterElection);
    progress(text);
  }
  failovers_.push_back(figures);

  // The killed master comes back as a standby; the next kill waits until
  // it knows the leader.
  auto restarted = startMaster();
  if (!restarted) {
    stop("start_failed");
    return false;
  }
  uint16_t port = masters_[*restarted].port;
  bool standby = waitFor(
      [&] {
        auto state =
            fig10::httpGet("127.0.0.1", port, "/master/state", std::chrono::seconds(5), true);
        return state.complete && state.body.find("\"leader\":\"" + newPid + "\"") !=
                                      std::string::npos;
      },
      30);
  if (!standby) {
    if (status_.empty()) {
      progress("the restarted master did not name the leader within 30 s");
      stop("start_failed");
    }
    return false;
  }
  waitFor([] { return false; }, FLAGS_settle_s);
  return status_.empty();
}

int Coordinator::run() {
  if (FLAGS_work_dir.empty()) {
    char dir[] = "/tmp/failover-XXXXXX";
    if (::mkdtemp(dir) == nullptr) {
      std::cerr << "failover_bench: cannot create a directory under /tmp" << std::endl;
      return 1;
    }
    workDir_ = dir;
  } else {
    workDir_ = FLAGS_work_dir;
    std::filesystem::create_directories(workDir_);
  }
  slots_ = static_cast<int>((FLAGS_tasks + FLAGS_slaves - 1) / FLAGS_slaves);

  // ZooKeeper.
  ensemble_ =
      std::make_unique<Ensemble>(children_, workDir_, static_cast<size_t>(FLAGS_zk_servers));
  std::string error;
  if (!ensemble_->start(std::chrono::seconds(60), &error)) {
    progress(error);
    stop("start_failed");
  } else {
    progress("ZooKeeper serving at " + ensemble_->connectString());
  }
  zkUrl_ = "zk://" + ensemble_->connectString() + "/mesos";

  process::Runtime::Options options;
  options.ip = "127.0.0.1";
  auto runtime = process::Runtime::create(options);
  if (!runtime) {
    std::cerr << "failover_bench: " << runtime.error().message << std::endl;
    return 1;
  }
  runtime_ = std::move(runtime).value();
  auto url = zk::parseUrl(zkUrl_);
  CHECK(url.ok()) << url.error().message;
  detector_ = zk::MasterDetector::zookeeper(*runtime_, *url);
  detection_ = detector_->detect(std::nullopt);

  // The masters, and the first leader.
  for (int i = 0; i < FLAGS_masters && status_.empty(); ++i) {
    if (!startMaster()) stop("start_failed");
  }
  if (status_.empty() && !waitFor([this] { return leader().has_value(); }, 60)) {
    progress("no master was elected within 60 s");
    stop("start_failed");
  }
  if (status_.empty()) progress("leader: " + leader_->pid());

  // The slaves.
  if (status_.empty() && !startEmulators()) stop("start_failed");
  if (status_.empty()) {
    bool registered = waitFor(
        [this] {
          if (SteadyClock::now() - lastProgress_ > std::chrono::seconds(5)) {
            lastProgress_ = SteadyClock::now();
            int64_t sum = 0;
            for (const Emulator& emulator : emulators_) sum += emulator.registered;
            progress("registered " + std::to_string(sum) + " / " + std::to_string(FLAGS_slaves));
          }
          for (const Emulator& emulator : emulators_) {
            if (!emulator.registeredAll) return false;
          }
          return true;
        },
        FLAGS_start_timeout_s);
    if (registered) {
      progress("all " + std::to_string(FLAGS_slaves) + " slaves registered");
    } else {
      stop("start_failed");
    }
  }

  // The frameworks and their tasks.
  if (status_.empty()) {
    std::string factor = std::to_string(std::llround(FLAGS_framework_backoff_s * 1000)) + "ms";
    ::setenv("MESOS_REGISTRATION_BACKOFF_FACTOR", factor.c_str(), 1);
    frameworks_ = std::make_unique<Frameworks>(
        *runtime_, Frameworks::Options{zkUrl_, FLAGS_frameworks, FLAGS_tasks, FLAGS_executors});
    if (!frameworks_->start(&error)) {
      progress(error);
      stop("start_failed");
    }
  }
  if (status_.empty() && !FLAGS_mesos_go_scheduler.empty()) {
    std::vector<std::string> argv = {FLAGS_mesos_go_scheduler, "--master=" + zkUrl_};
    auto child = children_.spawn("mesos-go", argv, true, workDir_ + "/mesos-go.log", &error);
    if (!child) {
      progress("cannot start " + FLAGS_mesos_go_scheduler + ": " + error);
      stop("start_failed");
    } else {
      mesosGo_ = *child;
      if (!waitFor([this] { return !mesosGoRegistrations_.empty(); }, 60)) {
        progress("the mesos-go framework did not register within 60 s");
        stop("start_failed");
      }
    }
  }
  if (status_.empty()) {
    bool running = waitFor(
        [this] {
          auto tally = frameworks_->tally();
          if (SteadyClock::now() - lastProgress_ > std::chrono::seconds(5)) {
            lastProgress_ = SteadyClock::now();
            progress(std::to_string(tally.registered) + " frameworks registered, " +
                     std::to_string(tally.launched) + " tasks launched, " +
                     std::to_string(tally.running) + " running");
          }
          return tally.registered == FLAGS_frameworks && tally.running == FLAGS_tasks;
        },
        FLAGS_start_timeout_s);
    if (running) {
      progress("all " + std::to_string(FLAGS_tasks) + " tasks running");
      waitFor([] { return false; }, FLAGS_settle_s);
    } else {
      stop("start_failed");
    }
  }

  for (int round = 0; round < FLAGS_kills && status_.empty(); ++round) failover(round);

  bool cut = !status_.empty();
  if (status_.empty()) status_ = "ok";
  if (frameworks_) {
    auto tally = frameworks_->tally();
    if (tally.ended > 0 || tally.errors > 0) {
      progress(std::to_string(tally.ended) + " tasks ended, " + std::to_string(tally.errors) +
               " driver errors");
    }
  }
  // The drivers and the detector go first: they would log every server
  // and master going away.
  frameworks_.reset();
  detector_.reset();
  children_.killAll();
  printFigures();
  if (cut || FLAGS_keep_logs || !FLAGS_work_dir.empty()) {
    progress("logs kept in " + workDir_);
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(workDir_, ignored);
  }
  return cut ? 3 : 0;
}

void Coordinator::printFigures() {
  auto line = [](const std::string& name, double value, const char* unit) {
    if (std::isnan(value)) {
      std::printf("%s: nan %s\n", name.c_str(), unit);
    } else {
      std::printf("%s: %.3f %s\n", name.c_str(), value, unit);
    }
  };
  auto count = [](const std::string& name, double value, const char* unit) {
    std::printf("%s: %.0f %s\n", name.c_str(), value, unit);
  };
  count("slaves", FLAGS_slaves, "slaves");
  count("tasks", static_cast<double>(FLAGS_tasks), "tasks");
  count("frameworks", FLAGS_frameworks, "frameworks");
  count("masters", FLAGS_masters, "masters");
  count("zk_servers", FLAGS_zk_servers, "servers");
  count("zk_session_timeout_ms", FLAGS_zk_session_timeout_ms, "ms");
  line("slave_backoff_s", FLAGS_slave_backoff_s, "s");
  line("framework_backoff_s", FLAGS_framework_backoff_s, "s");
  count("failovers", static_cast<double>(failovers_.size()), "failovers");
  auto figure = [&](const std::string& name, double Failover::*field, const char* unit) {
    std::vector<double> values;
    for (const Failover& f : failovers_) {
      if (!std::isnan(f.*field)) values.push_back(f.*field);
    }
    line(name + "_median", median(values), unit);
    line(name + "_max", maximum(values), unit);
  };
  figure("elected_s", &Failover::elected, "s");
  figure("slaves_detected_s", &Failover::slavesDetected, "s");
  figure("slaves_reregistered_s", &Failover::slavesReregistered, "s");
  figure("frameworks_reregistered_s", &Failover::frameworksReregistered, "s");
  if (mesosGo_) {
    figure("mesos_go_reregistered_s", &Failover::mesosGoReregistered, "s");
    figure("mesos_go_after_election_s", &Failover::mesosGoAfterElection, "s");
  }
  figure("leader_cpu_s", &Failover::leaderCpu, "s");
  figure("harness_cpu_s", &Failover::harnessCpu, "s");
  figure("registration_messages_per_slave", &Failover::messagesPerSlave, "messages");
  std::printf("status: %s\n", status_.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Master failover: time from killing the leading master to a new leader, all slaves and "
      "all frameworks re-registered.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  if (FLAGS_minloglevel < google::GLOG_WARNING) FLAGS_minloglevel = google::GLOG_WARNING;
  if (FLAGS_slaves <= 0 || FLAGS_tasks < 0 || FLAGS_frameworks <= 0 || FLAGS_masters < 2 ||
      FLAGS_zk_servers <= 0 || FLAGS_kills < 0 || FLAGS_zk_session_timeout_ms <= 0 ||
      !(FLAGS_slave_backoff_s > 0) || !(FLAGS_framework_backoff_s > 0) ||
      FLAGS_slaves_per_process <= 0) {
    std::cerr << "failover_bench: --slaves, --frameworks, --zk_servers, "
                 "--zk_session_timeout_ms, the backoffs and --slaves_per_process must be "
                 "positive, --masters at least 2, --tasks and --kills not negative"
              << std::endl;
    return 1;
  }
  for (const std::string& binary : {FLAGS_master_binary, FLAGS_slaves_binary}) {
    if (binary.empty() || ::access(binary.c_str(), X_OK) != 0) {
      std::cerr << "failover_bench: '" << binary
                << "' is not an executable; point --master_binary at mesos-master and "
                   "--slaves_binary at fig10-slaves"
                << std::endl;
      return 1;
    }
  }
  if (std::string why = Ensemble::unavailable(); !why.empty()) {
    std::cerr << "failover_bench: cannot run ZooKeeper: " << why << std::endl;
    return 1;
  }
  fig10::onStopSignals(onSignal);

  Coordinator coordinator;
  return coordinator.run();
}
