// fig10: the experiment of Figure 10 of the Mesos paper (NSDI 2011, section
// 6.5): how the overhead a framework sees grows with the cluster's size.
//
// It starts a real mesos-master, then --slaves emulated slaves in
// fig10-slaves processes (--slaves_per_process each), waits until all are
// registered, starts --frameworks busy frameworks in fig10-frameworks
// processes (--frameworks_per_process each) and waits until the cluster is
// saturated: running tasks / slots >= --busy_target and every framework has
// a task (until then a probe would queue behind frameworks that hold
// nothing, which DRF serves first, as in the cluster's first minute rather
// than its steady state). After --warmup_s more, in the measured
// window, it runs --probes probe frameworks one after the other (probe.hpp):
// each registers, launches one task of --probe_task_s, and its overhead is
// its end-to-end time minus that duration. Task durations and the probe's
// are multiplied by --time_scale.
//
// Figures go to stdout as `name: value unit` lines (docs/benchmarks.md says
// what each is); progress to stderr. A figure that could not be measured is
// `nan`. The `status:` line says how the run ended: ok, did_not_saturate
// (the probes ran anyway), or why it was cut short (master_died,
// master_rss_limit, max_runtime, registration_timeout, helper_died,
// interrupted, start_failed). Exit status 0 when the probe phase ran to its
// end, 3 when the run was cut short, 1 on a usage error.
//
// Every child process is killed on the way out, also on errors and Ctrl-C;
// children also get SIGKILL from the kernel if this process dies.
#include <signal.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <cstdlib>
#include <vector>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "basics.hpp"
#include "children.hpp"
#include "http_get.hpp"
#include "../tls_env.hpp"
#include "probe.hpp"
#include "subscribers.hpp"
#include "common/free_port.hpp"
#include "process/runtime.hpp"

#ifndef MESOS_MASTER_PATH
#define MESOS_MASTER_PATH ""
#endif

DEFINE_int32(slaves, 1000, "Emulated slaves.");
DEFINE_int32(frameworks, 200, "Busy frameworks.");
DEFINE_int32(slots, 2, "Task slots per slave (a slot: 1 cpu, 1024 MB; a task uses one).");
DEFINE_double(task_mean_s, 30, "Mean task duration, seconds (before --time_scale).");
DEFINE_double(task_stddev_s, 10, "Standard deviation of task durations, seconds.");
DEFINE_double(task_min_s, 1, "Task durations are raised to at least this, seconds.");
DEFINE_double(probe_task_s, 10, "Duration of a probe's task, seconds (before --time_scale).");
DEFINE_int32(probes, 5, "Probe frameworks to run, one after the other.");
DEFINE_double(time_scale, 1,
              "Multiplies every task duration (0.1: ten times shorter tasks, shorter runs).");
DEFINE_double(state_poll_s, 30,
              "Each framework GETs /state this often, as mesos-go v0 does; 0: no polling.");
DEFINE_double(busy_target, 0.95,
              "The cluster is saturated once this fraction of slots is busy and every "
              "framework has a task.");
DEFINE_double(warmup_s, 0, "Seconds to wait after saturation before the probes.");
DEFINE_int32(slaves_per_process, 10000, "Emulated slaves per fig10-slaves process.");
DEFINE_int32(frameworks_per_process, 50, "Frameworks per fig10-frameworks process.");
DEFINE_int32(registration_window, 256,
             "Registrations each fig10-slaves process keeps waiting for an answer at once.");
DEFINE_double(registration_timeout_s, 600, "Give up when not every slave registered by then.");
DEFINE_double(saturation_timeout_s, 300,
              "Stop waiting for saturation after this long (the probes run anyway).");
DEFINE_double(probe_timeout_s, 300, "A probe not done this long after its task's end fails.");
DEFINE_double(max_runtime_s, 3600, "Cut the whole run short after this long.");
DEFINE_double(max_master_rss_mb, 8000, "Cut the run short once the master's RSS passes this.");
DEFINE_string(master_binary, MESOS_MASTER_PATH, "The mesos-master to run.");
DEFINE_string(master_flags, "",
              "Extra flags for mesos-master, space-separated (e.g. "
              "\"--allocation_interval=500ms\").");
DEFINE_string(work_dir, "",
              "Directory for the children's logs (default: a new /tmp/fig10-XXXXXX, removed "
              "after a clean run unless --keep_logs).");
DEFINE_bool(keep_logs, false, "Keep the logs of a clean run too.");
DEFINE_bool(tls, false,
            "Run every process with TLS: makes a CA and a certificate for 127.0.0.1 with the "
            "openssl tool in the work directory and sets LIBPROCESS_SSL_* for itself and its "
            "children (client certificates required and verified; downgrade on, for the "
            "harness's plain HTTP polls). Without it, LIBPROCESS_SSL_* from the environment apply.");
DEFINE_uint64(seed, 1, "Seed of the task durations.");
DEFINE_int32(operator_subscribers, 0,
             "Subscribers of the master's operator event stream (SUBSCRIBE to /api/v1) that read "
             "everything, opened once the master is up (from 127.0.0.2, 127.0.0.3, ..., 1000 "
             "from each); the master gets --max_operator_event_stream_subscribers to match.");
DEFINE_string(operator_subscriber_encoding, "json",
              "What --operator_subscribers ask for: json or protobuf.");

namespace {

using fig10::Children;
using fig10::ProcStats;
using fig10::readProcStats;
using SteadyClock = std::chrono::steady_clock;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

volatile sig_atomic_t interrupted = 0;

void onSignal(int) { interrupted = 1; }

std::string binaryDir() {
  return std::filesystem::canonical("/proc/self/exe").parent_path().string();
}

double secondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

// Nearest-rank percentile of `values` (p in (0, 1]); nan when empty.
double percentile(std::vector<double> values, double p) {
  if (values.empty()) return kNan;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

std::vector<std::string> splitWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}


struct SlavesReport {
  int64_t registered = 0, running = 0, slots = 0, removed = 0, resent = 0;
  bool registeredAll = false;
};
struct FrameworksReport {
  int64_t registered = 0, launched = 0, finished = 0, failed = 0, errors = 0, busy = 0;
};
struct StatePoll {
  double at;  // seconds since the run's start
  bool complete;
  int status;
  double ms;
  double bytes;
};

// What the run measured; nan where it did not get that far.
struct Figures {
  double registration = kNan, saturation = kNan;
  double busyMin = kNan, busyMean = kNan;
  double launchedPerS = kNan;
  std::vector<double> overheads, endToEnds;
  int probesFailed = 0;
  double cpuPer1000 = kNan, cpuCores = kNan, peakRss = kNan;
  double window = kNan;
  double slavesActiveEnd = kNan;
  double harnessCores = kNan;
  int slavesRemoved = 0;
  int64_t resent = 0;
  int64_t tasksFailed = 0;
};

class Coordinator {
 public:
  int run();

 private:
  // One step of the event loop: reads the children's lines (waiting at most
  // `ms`), samples the master once a second, and returns false once the
  // run must stop (status_ says why).
  bool tick(int ms = 100);
  void onLine(size_t child, const std::string& line);
  void stop(const std::string& status);
  bool startMaster();
  bool startHelpers(const std::string& binary, const std::string& kind, int total,
                    int perProcess, const std::vector<std::string>& common,
                    std::vector<size_t>* indices);
  int64_t sumRegisteredSlaves() const;
  // Every fig10-slaves process said its last slave registered.
  bool allRegistered() const;
  // Frameworks with a task launched and not yet ended.
  int64_t busyFrameworks() const;
  // Tasks the frameworks have launched so far.
  int64_t frameworkLaunches() const;
  double busy() const;
  // The body of /metrics/snapshot; nullopt when the master does not answer.
  std::optional<std::string> metrics();
  void progress(const std::string& text);

  std::string workDir_;
  // --tls: makes the certificates and sets LIBPROCESS_SSL_*; false (said
  // on stderr) when openssl fails.
  bool setUpTls();
  Children children_;
  size_t master_ = 0;
  std::string masterUpid_;
  uint16_t port_ = 0;
  std::vector<size_t> slaveHelpers_, frameworkHelpers_;
  std::vector<SlavesReport> slaveReports_;          // by child index
  std::vector<FrameworksReport> frameworkReports_;  // by child index
  std::vector<StatePoll> polls_;
  SteadyClock::time_point start_ = SteadyClock::now();
  SteadyClock::time_point lastSample_ = start_;
  SteadyClock::time_point lastProgress_ = start_;
  std::string status_;  // empty while the run goes on
  double peakRssSeen_ = 0;
  // The master's latest /proc sample, and when it was taken: what a run
  // cut short (the master killed or dead) still knows of its CPU time.
  std::optional<ProcStats> lastMasterStats_;
  SteadyClock::time_point lastMasterStatsAt_;
  // Busy samples (one a second) while measuring.
  bool measuring_ = false;
  std::vector<double> busySamples_;
  Figures figures_;
  fig10::OperatorSubscribers subscribers_;  // --operator_subscribers
};

void Coordinator::progress(const std::string& text) {
  std::cerr << "fig10 [" << std::fixed;
  std::cerr.precision(1);
  std::cerr << secondsSince(start_) << " s] " << text << std::endl;
  std::cerr.unsetf(std::ios::fixed);
}

void Coordinator::stop(const std::string& status) {
  if (status_.empty()) {
    status_ = status;
    progress("stopping: " + status);
  }
}

void Coordinator::onLine(size_t child, const std::string& line) {
  auto words = splitWords(line);
  if (words.empty()) return;
  auto number = [&](size_t i) -> int64_t { return i < words.size() ? std::atoll(words[i].c_str()) : 0; };
  if (words[0] == "slaves" && child < slaveReports_.size()) {
    SlavesReport& report = slaveReports_[child];
    report = {number(1), number(2), number(3), number(4), number(5), report.registeredAll};
  } else if (words[0] == "registered_all" && child < slaveReports_.size()) {
    slaveReports_[child].registeredAll = true;
  } else if (words[0] == "frameworks" && child < frameworkReports_.size()) {
    frameworkReports_[child] = {number(1), number(2), number(3), number(4), number(5), number(6)};
  } else if (words[0] == "state" && words.size() >= 5) {
    polls_.push_back({secondsSince(start_), words[1] == "1", static_cast<int>(number(2)),
                      std::atof(words[3].c_str()), std::atof(words[4].c_str())});
  } else if (words[0] == "note") {
    progress(children_[child].name + ": " + line.substr(5));
  }
}

bool Coordinator::tick(int ms) {
  children_.poll(ms, [this](size_t child, const std::string& line) { onLine(child, line); });
  if (!status_.empty()) return false;
  if (interrupted) {
    stop("interrupted");
    return false;
  }
  if (children_[master_].exited) {
    stop("master_died");
    return false;
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    if (i != master_ && children_[i].exited) {
      stop("helper_died");
      progress(children_[i].name + " exited");
      return false;
    }
  }
  if (secondsSince(start_) > FLAGS_max_runtime_s) {
    stop("max_runtime");
    return false;
  }
  if (SteadyClock::now() - lastSample_ >= std::chrono::seconds(1)) {
    lastSample_ = SteadyClock::now();
    if (auto stats = readProcStats(children_[master_].pid)) {
      lastMasterStats_ = stats;
      lastMasterStatsAt_ = SteadyClock::now();
      peakRssSeen_ = std::max(peakRssSeen_, stats->peakRssMb);
      if (stats->rssMb > FLAGS_max_master_rss_mb) {
        stop("master_rss_limit");
        progress("the master's RSS is " + std::to_string(stats->rssMb) + " MB, over " +
                 "--max_master_rss_mb; killing it");
        children_.kill(master_, 0);  // at once: it may be eating the machine's memory
        return false;
      }
    }
    if (measuring_) busySamples_.push_back(busy());
  }
  return true;
}

int64_t Coordinator::sumRegisteredSlaves() const {
  int64_t sum = 0;
  for (size_t i : slaveHelpers_) sum += slaveReports_[i].registered;
  return sum;
}

bool Coordinator::allRegistered() const {
  for (size_t i : slaveHelpers_) {
    if (!slaveReports_[i].registeredAll) return false;
  }
  return !slaveHelpers_.empty();
}

int64_t Coordinator::frameworkLaunches() const {
  int64_t sum = 0;
  for (size_t i : frameworkHelpers_) sum += frameworkReports_[i].launched;
  return sum;
}

int64_t Coordinator::busyFrameworks() const {
  int64_t sum = 0;
  for (size_t i : frameworkHelpers_) sum += frameworkReports_[i].busy;
  return sum;
}

double Coordinator::busy() const {
  int64_t running = 0;
  for (size_t i : slaveHelpers_) running += slaveReports_[i].running;
  return static_cast<double>(running) / (static_cast<double>(FLAGS_slaves) * FLAGS_slots);
}

std::optional<std::string> Coordinator::metrics() {
  auto result = fig10::httpGet("127.0.0.1", port_, "/metrics/snapshot", std::chrono::seconds(30),
                               true);
  if (!result.complete || result.status != 200) {
    progress("GET /metrics/snapshot failed: " +
             (result.error.empty() ? "status " + std::to_string(result.status) : result.error));
    return std::nullopt;
  }
  return result.body;
}

bool Coordinator::startMaster() {
  port_ = mesos::freePort();
  if (port_ == 0) {
    progress("no free port for the master");
    return false;
  }
  masterUpid_ = "master@127.0.0.1:" + std::to_string(port_);
  std::filesystem::create_directories(workDir_ + "/master");
  std::vector<std::string> argv = {FLAGS_master_binary, "--ip=127.0.0.1",
                                   "--port=" + std::to_string(port_),
                                   "--work_dir=" + workDir_ + "/master"};
  if (FLAGS_operator_subscribers > 1000 &&
      FLAGS_master_flags.find("--max_operator_event_stream_subscribers") == std::string::npos) {
    argv.push_back("--max_operator_event_stream_subscribers=" +
                   std::to_string(FLAGS_operator_subscribers));
  }
  for (const std::string& flag : splitWords(FLAGS_master_flags)) argv.push_back(flag);
  std::string error;
  auto index = children_.spawn("master", argv, false, workDir_ + "/master.log", &error);
  if (!index) {
    progress("cannot start " + FLAGS_master_binary + ": " + error);
    return false;
  }
  master_ = *index;
  slaveReports_.resize(children_.size());
  frameworkReports_.resize(children_.size());
  auto deadline = SteadyClock::now() + std::chrono::seconds(30);
  while (SteadyClock::now() < deadline) {
    if (!tick(100)) return false;
    auto health = fig10::httpGet("127.0.0.1", port_, "/health", std::chrono::seconds(1), false);
    if (health.complete && health.status == 200) {
      progress("master up at " + masterUpid_ + " (pid " +
               std::to_string(children_[master_].pid) + ")");
      if (FLAGS_operator_subscribers > 0) {
        if (!subscribers_.start(port_, FLAGS_operator_subscribers,
                                FLAGS_operator_subscriber_encoding == "protobuf", &error)) {
          progress("operator event stream subscribers: " + error);
          return false;
        }
        progress(std::to_string(subscribers_.opened()) + " operator event streams open");
      }
      return true;
    }
  }
  progress("the master did not answer /health within 30 s; see " + workDir_ + "/master.log");
  return false;
}

bool Coordinator::startHelpers(const std::string& binary, const std::string& kind, int total,
                               int perProcess, const std::vector<std::string>& common,
                               std::vector<size_t>* indices) {
  int processes = (total + perProcess - 1) / perProcess;
  int first = 0;
  for (int p = 0; p < processes; ++p) {
    // Even shares: 25,000 slaves at 10,000 a process are 8,334 + 8,333 + 8,333.
    int count = total / processes + (p < total % processes ? 1 : 0);
    std::vector<std::string> argv = {binary, "--master=" + masterUpid_,
                                     "--count=" + std::to_string(count),
                                     "--first=" + std::to_string(first)};
    argv.insert(argv.end(), common.begin(), common.end());
    std::string name = kind + "-" + std::to_string(p);
    std::string error;
    auto index = children_.spawn(name, argv, true, workDir_ + "/" + name + ".log", &error);
    if (!index) {
      progress("cannot start " + binary + ": " + error);
      return false;
    }
    indices->push_back(*index);
    first += count;
  }
  slaveReports_.resize(children_.size());
  frameworkReports_.resize(children_.size());
  return true;
}

bool Coordinator::setUpTls() {
  std::string error;
  if (!bench::setUpTls(workDir_ + "/tls", &error)) {
    std::cerr << "fig10: --tls: " << error << std::endl;
    return false;
  }
  progress("TLS on: certificates in " + workDir_ + "/tls");
  return true;
}

int Coordinator::run() {
  if (FLAGS_work_dir.empty()) {
    char dir[] = "/tmp/fig10-XXXXXX";
    if (::mkdtemp(dir) == nullptr) {
      std::cerr << "fig10: cannot create a directory under /tmp" << std::endl;
      return 1;
    }
    workDir_ = dir;
  } else {
    workDir_ = FLAGS_work_dir;
    std::filesystem::create_directories(workDir_);
  }
  if (FLAGS_tls && !setUpTls()) return 1;
  process::Runtime::Options options;
  options.ip = "127.0.0.1";
  // TLS as every program takes it: LIBPROCESS_SSL_* (docs/benchmarks.md).
  auto tls = process::TlsOptions::fromEnvironment();
  CHECK(tls.ok()) << tls.error().message;
  options.tls = std::move(tls).value();
  auto runtime = process::Runtime::create(options);
  if (!runtime) {
    std::cerr << "fig10: " << runtime.error().message << std::endl;
    return 1;
  }

  const double scale = FLAGS_time_scale;
  const std::string dir = binaryDir();
  bool started = startMaster();

  // Registration.
  SteadyClock::time_point slavesStart = SteadyClock::now();
  if (started) {
    started = startHelpers(dir + "/fig10-slaves", "slaves", FLAGS_slaves,
                           FLAGS_slaves_per_process,
                           {"--slots=" + std::to_string(FLAGS_slots),
                            "--registration_window=" + std::to_string(FLAGS_registration_window)},
                           &slaveHelpers_);
  }
  if (!started) stop("start_failed");
  while (tick()) {
    int64_t registered = sumRegisteredSlaves();
    if (allRegistered()) {
      figures_.registration = secondsSince(slavesStart);
      progress("all " + std::to_string(FLAGS_slaves) + " slaves registered in " +
               std::to_string(figures_.registration) + " s");
      break;
    }
    if (secondsSince(slavesStart) > FLAGS_registration_timeout_s) {
      stop("registration_timeout");
      progress(std::to_string(registered) + " of " + std::to_string(FLAGS_slaves) +
               " slaves registered");
      break;
    }
    if (SteadyClock::now() - lastProgress_ > std::chrono::seconds(5)) {
      lastProgress_ = SteadyClock::now();
      progress("registered " + std::to_string(registered) + " / " + std::to_string(FLAGS_slaves));
    }
  }

  // Saturation.
  SteadyClock::time_point frameworksStart = SteadyClock::now();
  if (status_.empty()) {
    auto fixed = [](double v) {
      std::ostringstream out;
      out << v;
      return out.str();
    };
    if (!startHelpers(dir + "/fig10-frameworks", "frameworks", FLAGS_frameworks,
                      FLAGS_frameworks_per_process,
                      {"--task_mean_s=" + fixed(FLAGS_task_mean_s * scale),
                       "--task_stddev_s=" + fixed(FLAGS_task_stddev_s * scale),
                       "--task_min_s=" + fixed(FLAGS_task_min_s * scale),
                       "--state_poll_s=" + fixed(FLAGS_state_poll_s),
                       "--seed=" + std::to_string(FLAGS_seed)},
                      &frameworkHelpers_)) {
      stop("start_failed");
    }
  }
  bool saturated = false;
  while (tick()) {
    double b = busy();
    if (b >= FLAGS_busy_target && busyFrameworks() >= FLAGS_frameworks) {
      figures_.saturation = secondsSince(frameworksStart);
      saturated = true;
      progress("saturated (busy " + std::to_string(b) + ") after " +
               std::to_string(figures_.saturation) + " s");
      break;
    }
    if (secondsSince(frameworksStart) > FLAGS_saturation_timeout_s) {
      progress("did not saturate: busy " + std::to_string(b) + ", " +
               std::to_string(busyFrameworks()) + " frameworks with tasks, after " +
               std::to_string(FLAGS_saturation_timeout_s) + " s; probing anyway");
      break;
    }
    if (SteadyClock::now() - lastProgress_ > std::chrono::seconds(5)) {
      lastProgress_ = SteadyClock::now();
      progress("busy " + std::to_string(b) + ", " + std::to_string(busyFrameworks()) +
               " frameworks with tasks");
    }
  }

  auto warmupEnd = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                                           std::chrono::duration<double>(FLAGS_warmup_s));
  while (SteadyClock::now() < warmupEnd && tick()) {
  }

  // The measured window: the probes.
  double windowStart = secondsSince(start_);
  auto startMetrics = status_.empty() ? metrics() : std::nullopt;
  auto startCpu = status_.empty() ? readProcStats(children_[master_].pid) : std::nullopt;
  std::vector<std::optional<ProcStats>> startHelpersCpu;
  for (size_t i = 0; i < children_.size(); ++i) {
    startHelpersCpu.push_back(i == master_ ? std::nullopt : readProcStats(children_[i].pid));
  }
  SteadyClock::time_point windowClock = SteadyClock::now();
  const int64_t windowLaunches = frameworkLaunches();
  // Busy fraction: sampled at both ends of the window and once a second
  // in between, so a window shorter than a second still has samples.
  measuring_ = true;
  busySamples_.push_back(busy());
  const double probeTask = FLAGS_probe_task_s * scale;
  for (int i = 0; i < FLAGS_probes && status_.empty(); ++i) {
    fig10::Probe probe(runtime->get(), masterUpid_, "fig10-probe-" + std::to_string(i),
                       probeTask);
    SteadyClock::time_point probeStart = SteadyClock::now();
    bool ended = false;
    while (tick(0)) {
      if ((ended = probe.wait(std::chrono::milliseconds(100)))) break;
      if (secondsSince(probeStart) > probeTask + FLAGS_probe_timeout_s) break;
    }
    if (!status_.empty()) break;
    if (auto e2e = probe.endToEndSeconds()) {
      figures_.endToEnds.push_back(*e2e);
      figures_.overheads.push_back(*e2e - probeTask);
      progress("probe " + std::to_string(i) + ": overhead " + std::to_string(*e2e - probeTask) +
               " s");
    } else {
      figures_.probesFailed++;
      progress("probe " + std::to_string(i) + " failed: " +
               (ended ? probe.failure() : std::string("timed out")));
    }
  }
  if (status_.empty()) busySamples_.push_back(busy());
  measuring_ = false;
  double window = std::chrono::duration<double>(SteadyClock::now() - windowClock).count();
  figures_.window = window;
  // A run cut short asks the master nothing more: it may be dead, or
  // swelling while it would wait for the answer.
  auto endMetrics = status_.empty() ? metrics() : std::nullopt;
  auto endCpu = readProcStats(children_[master_].pid);
  if (endCpu) peakRssSeen_ = std::max(peakRssSeen_, endCpu->peakRssMb);
  if (peakRssSeen_ > 0) figures_.peakRss = peakRssSeen_;

  // Tasks launched in the window: the master's count; when the master did
  // not answer /metrics/snapshot (a collapsing master may not within 30 s),
  // what the frameworks sent it, which is an upper bound (stderr says so).
  double launched = kNan;
  if (startMetrics && endMetrics) {
    launched = fig10::jsonNumber(*endMetrics, "master/tasks_launched") -
               fig10::jsonNumber(*startMetrics, "master/tasks_launched");
  } else if (window > 0 && startCpu) {
    launched = static_cast<double>(frameworkLaunches() - windowLaunches);
    progress("no /metrics/snapshot from the master at the end: tasks launched are counted by "
             "the frameworks (an upper bound)");
  }
  if (window > 0) figures_.launchedPerS = launched / window;
  // CPU over the window, or, when the master is gone, up to its last sample.
  double cpuWindow = window;
  if (!endCpu && lastMasterStats_ && lastMasterStatsAt_ > windowClock) {
    endCpu = lastMasterStats_;
    cpuWindow = std::chrono::duration<double>(lastMasterStatsAt_ - windowClock).count();
    launched *= cpuWindow / window;
  }
  if (startCpu && endCpu && cpuWindow > 0) {
    double cpu = endCpu->cpuSeconds - startCpu->cpuSeconds;
    figures_.cpuCores = cpu / cpuWindow;
    if (launched > 0) figures_.cpuPer1000 = cpu / (launched / 1000);
  }
  if (endMetrics) figures_.slavesActiveEnd = fig10::jsonNumber(*endMetrics, "master/slaves_active");
  if (window > 0) {
    double harness = 0;
    bool all = true;
    for (size_t i = 0; i < children_.size(); ++i) {
      if (i == master_) continue;
      auto now = readProcStats(children_[i].pid);
      if (!now || !startHelpersCpu[i]) {
        all = false;
        continue;
      }
      harness += now->cpuSeconds - startHelpersCpu[i]->cpuSeconds;
    }
    if (all) figures_.harnessCores = harness / window;
  }
  if (!busySamples_.empty()) {
    figures_.busyMin = *std::min_element(busySamples_.begin(), busySamples_.end());
    double sum = 0;
    for (double b : busySamples_) sum += b;
    figures_.busyMean = sum / static_cast<double>(busySamples_.size());
  }
  for (size_t i : slaveHelpers_) {
    figures_.slavesRemoved += static_cast<int>(slaveReports_[i].removed);
    figures_.resent += slaveReports_[i].resent;
  }
  for (size_t i : frameworkHelpers_) figures_.tasksFailed += frameworkReports_[i].failed;

  // State polls that ended in the window.
  std::vector<double> renderMs, bytes;
  int pollFailures = 0;
  for (const StatePoll& poll : polls_) {
    if (poll.at < windowStart || poll.at > windowStart + window) continue;
    if (poll.complete && poll.status == 200) {
      renderMs.push_back(poll.ms);
      bytes.push_back(poll.bytes);
    } else {
      pollFailures++;
    }
  }

  bool cut = !status_.empty();
  if (status_.empty()) status_ = saturated ? "ok" : "did_not_saturate";
  subscribers_.stop();
  children_.killAll();

  auto line = [](const char* name, double value, const char* unit) {
    if (std::isnan(value)) {
      std::printf("%s: nan %s\n", name, unit);
    } else {
      std::printf("%s: %.6g %s\n", name, value, unit);
    }
  };
  line("slaves", FLAGS_slaves, "slaves");
  line("frameworks", FLAGS_frameworks, "frameworks");
  line("slots_per_slave", FLAGS_slots, "slots");
  line("time_scale", FLAGS_time_scale, "x");
  line("state_poll_s", FLAGS_state_poll_s, "s");
  line("registration_s", figures_.registration, "s");
  line("saturation_s", figures_.saturation, "s");
  line("window_s", figures_.window, "s");
  line("busy_fraction_min", figures_.busyMin, "fraction");
  line("busy_fraction_mean", figures_.busyMean, "fraction");
  line("tasks_launched_per_s", figures_.launchedPerS, "tasks/s");
  line("probe_overhead_p50_s", percentile(figures_.overheads, 0.5), "s");
  line("probe_overhead_p99_s", percentile(figures_.overheads, 0.99), "s");
  line("probe_end_to_end_p50_s", percentile(figures_.endToEnds, 0.5), "s");
  line("probes_completed", static_cast<double>(figures_.overheads.size()), "probes");
  line("probes_failed", figures_.probesFailed, "probes");
  line("master_cpu_s_per_1000_tasks", figures_.cpuPer1000, "s");
  line("master_cpu_cores", figures_.cpuCores, "cores");
  line("master_peak_rss_mb", figures_.peakRss, "MB");
  line("state_render_ms_p50", percentile(renderMs, 0.5), "ms");
  line("state_render_ms_p99", percentile(renderMs, 0.99), "ms");
  line("state_bytes", percentile(bytes, 0.5), "bytes");
  line("state_polls", static_cast<double>(renderMs.size()), "polls");
  line("state_poll_failures", pollFailures, "polls");
  line("slaves_active_end", figures_.slavesActiveEnd, "slaves");
  line("slaves_removed", figures_.slavesRemoved, "slaves");
  line("status_updates_resent", static_cast<double>(figures_.resent), "updates");
  line("tasks_failed", static_cast<double>(figures_.tasksFailed), "tasks");
  line("harness_cpu_cores", figures_.harnessCores, "cores");
  if (FLAGS_operator_subscribers > 0) {
    line("operator_subscribers", FLAGS_operator_subscribers, "streams");
    line("operator_streams_accepted", subscribers_.accepted(), "streams");
    line("operator_streams_closed", subscribers_.closed(), "streams");
    line("operator_event_bytes", static_cast<double>(subscribers_.bytes()), "bytes");
  }
  std::printf("status: %s\n", status_.c_str());
  std::fflush(stdout);

  if (cut || FLAGS_keep_logs || !FLAGS_work_dir.empty()) {
    progress("logs kept in " + workDir_);
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(workDir_, ignored);
  }
  return cut ? 3 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "The Figure 10 experiment: probe overhead on a busy cluster of emulated slaves.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  if (FLAGS_minloglevel < google::GLOG_WARNING) FLAGS_minloglevel = google::GLOG_WARNING;
  if (FLAGS_slaves <= 0 || FLAGS_frameworks <= 0 || FLAGS_slots <= 0 || FLAGS_probes < 0 ||
      FLAGS_time_scale <= 0 || FLAGS_slaves_per_process <= 0 ||
      FLAGS_frameworks_per_process <= 0) {
    std::cerr << "fig10: --slaves, --frameworks, --slots, --time_scale and the per-process "
                 "counts must be positive, --probes not negative"
              << std::endl;
    return 1;
  }
  if (FLAGS_operator_subscriber_encoding != "json" &&
      FLAGS_operator_subscriber_encoding != "protobuf") {
    std::cerr << "fig10: --operator_subscriber_encoding must be json or protobuf, not '"
              << FLAGS_operator_subscriber_encoding << "'" << std::endl;
    return 1;
  }
  if (FLAGS_master_binary.empty() || ::access(FLAGS_master_binary.c_str(), X_OK) != 0) {
    std::cerr << "fig10: --master_binary '" << FLAGS_master_binary
              << "' is not an executable; point it at mesos-master" << std::endl;
    return 1;
  }
  fig10::onStopSignals(onSignal);

  Coordinator coordinator;
  return coordinator.run();
}
