// container_bench: how fast the slave's containerizer launches and destroys
// containers. It builds the Containerizer the slave builds (PosixLauncher,
// the isolators --isolation names through createIsolators, the
// mesos-containerizer launch helper for isolators that ask the executor to
// join cgroups), launches --containers containers one after another, each
// running `sleep` (killed by the destroy) or `true` (exits at once), each in
// a sandbox of its own, then destroys them one after another and reaps them.
// It prints `name: value unit` lines:
//   launch_ms_p50, launch_ms_p99    Containerizer::launch(), call to return:
//                                   every isolator's prepare(), the spawn
//                                   (posix_spawn returns once the first
//                                   program, the launch helper or the
//                                   command, is executing) and every
//                                   isolator's isolate()
//   destroy_ms_p50, destroy_ms_p99  Containerizer::destroy() (the launcher's
//                                   kill, the isolators' kill and cleanup:
//                                   cgroups killed and removed) and then
//                                   until the bench has reaped the executor
//   launch_total_s, destroy_total_s the sums of those
//   containers_per_s                containers / (launch_total + destroy_total)
//   wall_s                          the whole run, from the first launch to
//                                   the last destroy: also what the calls
//                                   do not wait for (the helpers' work
//                                   after the go-ahead, the wait for the
//                                   `true` containers to exit)
//   launch_cpu_s, destroy_cpu_s     this process's CPU time in each phase
//                                   (all threads: the reaper's included)
//   step_<name>_s                   the time of each step inside the two
//                                   calls, summed over the containers
//                                   (--steps, the default)
//   limitations_reported            limits the isolators reported (none
//                                   is expected)
// With --image, every container runs in the root filesystem of one cached
// image, a layer the bench makes from busybox-static in an image store of
// its own, provisioned for each container by --image_backend (the slave's
// provisioner) before its launch and removed after its destroy (the
// isolation needs filesystem/linux):
//   provision_ms_p50, provision_ms_p99  Provisioner::provision() (overlay:
//                                   the upper and work directories, and
//                                   one mount with
//                                   --image_mount_in_container=false; by
//                                   default the launch helper mounts it)
//   unprovision_ms_p50, ..._p99     Provisioner::destroy() (unmount, remove)
// and containers_per_s then counts them too. With --image and --pulls=N,
// before the containers, the image is pulled N times into a fresh store of
// its own and once more from that store: a first pull against a cached
// one, through the slave's puller (the mesos-provisioner helper's), from a
// `docker save` tarball the bench makes of the same layer (the
// --docker_registry=DIR form: no registry server, no network):
//   pull_first_ms_p50, pull_first_ms_max  reading the tarball, checking
//                                   the layer's digest, unpacking it
//   pull_cached_ms_p50, pull_cached_ms_max  finding the image in the store
// And the isolation, the number of containers and the load average before
// and after. It leaves nothing behind: every container is destroyed (also
// on SIGINT, SIGTERM or SIGHUP, and after a failed launch), the root
// cgroup --cgroups_root is removed from every hierarchy (after any run but
// a posix one), and so is the directory of the sandboxes; a leftover found
// at the end is named and makes the exit status 1, and `left_behind:
// nothing` is the last line of a clean run.
// docs/benchmarks.md records the figures.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gflags/gflags.h>
#include <glog/logging.h>

#include "common/processes.hpp"
#include "slave/containerizer/isolators/cgroups/cgroups.hpp"
#include "slave/containerizer/isolators/isolators.hpp"
#include "slave/containerizer/isolators/lxc/lxc_isolator.hpp"
#include "slave/constants.hpp"
#include "slave/containerizer/containerizer.hpp"
#include "slave/containerizer/launcher.hpp"
#include "slave/containerizer/provisioner/docker/puller.hpp"
#include "slave/containerizer/provisioner/provisioner.hpp"
#include "slave/containerizer/provisioner/store.hpp"
#include "slave/paths.hpp"
#include "slave/reaper.hpp"

#ifndef MESOS_LAUNCHER_DIR
#define MESOS_LAUNCHER_DIR ""
#endif

DEFINE_string(isolation, "posix/cpu,posix/mem",
              "The isolators, as the slave's --isolation names them (e.g. "
              "cgroups/cpu,cgroups/mem or cgroups/all).");
DEFINE_int32(containers, 100, "Containers to launch, then destroy.");
DEFINE_string(command, "sleep",
              "What each container runs: 'sleep' (a long sleep, which the destroy kills) or "
              "'true' (exits at once; the bench waits for every exit before destroying).");
DEFINE_int32(sleep_s, 600, "How long the sleep of --command=sleep would last.");
DEFINE_string(resources, "cpus:0.1;mem:32", "Each container's resources.");
DEFINE_string(cgroups_hierarchy, "/sys/fs/cgroup", "As the slave's flag.");
DEFINE_string(cgroups_root, "mesos_bench",
              "The cgroups isolator's root cgroup; removed at the end. Not a running slave's "
              "(mesos): at start-up the isolator destroys every container it finds there.");
DEFINE_bool(cgroups_enable_cfs, false, "As the slave's flag.");
DEFINE_string(launcher_dir, MESOS_LAUNCHER_DIR,
              "Where the mesos-containerizer launch helper is (as the slave's flag).");
DEFINE_string(work_dir, "/tmp",
              "The sandboxes go in a new directory under it, removed at the end.");
DEFINE_int32(timeout_s, 60, "Give up waiting for a container's exit after this long.");
DEFINE_bool(image, false,
            "Run every container in the root filesystem of one cached image (busybox-static), "
            "provisioned per container; needs filesystem/linux in --isolation");
DEFINE_string(image_backend, "",
              "The provisioner backend: overlay, copy or bind (default: "
              "overlay where the kernel has it, else copy).");
DEFINE_bool(image_mount_in_container, true,
            "With the overlay backend: leave the mount to the launch helper, in the container's "
            "own mount namespace, as the slave does (false: mount on the host, one mount per "
            "running container there)");
DEFINE_bool(launch_server, true,
            "Fork each launch helper from the launcher's launch server, as the slave does (false: "
            "execute mesos-containerizer for each container)");
DEFINE_int32(pulls, 0,
             "With --image: pull the image this many times into a fresh store, and again "
             "from it (first pull against cached), before the containers.");
DEFINE_bool(steps, true,
            "Time each step inside the containerizer (the launcher's and each isolator's "
            "calls) and print step_*_s lines; false runs them unwrapped.");

namespace {

using mesos::ContainerID;
using mesos::Resources;
using mesos::isolation::ContainerConfig;
using mesos::isolation::Isolator;
using mesos::isolation::LaunchRequirements;
using mesos::internal::slave::Containerizer;
using mesos::internal::slave::Launcher;
using mesos::internal::slave::LaunchSpec;
using mesos::internal::slave::PosixLauncher;
using mesos::internal::slave::Reaper;
using Clock = std::chrono::steady_clock;
namespace cgroups = mesos::internal::cgroups;
namespace fs = std::filesystem;

std::atomic<bool> interrupted{false};
std::atomic<int> limitations{0};  // reported by the isolators

void onSignal(int) { interrupted = true; }

// SA_RESTART: a signal landing in a system call of the containerizer must
// not make it fail; the loops look at `interrupted` between containers.
void onStopSignals() {
  struct sigaction action {};
  action.sa_handler = onSignal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(signal, &action, nullptr);
}

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Nearest rank: the smallest value at least `fraction` of the values are
// at or below.
double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<size_t>(std::ceil(fraction * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

double sum(const std::vector<double>& values) {
  double total = 0;
  for (double value : values) total += value;
  return total;
}

// CPU time of this process, every thread (the reaper's and the isolators'
// included), in seconds.
double cpuSeconds() {
  rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string oneMinute;
  in >> oneMinute;
  return oneMinute.empty() ? "unknown" : oneMinute;
}

// The program `name` in PATH, or "" when there is none.
std::string which(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

// Time spent in one step of the containerizer, summed over its calls.
struct Step {
  std::string name;
  double ms = 0;
};

// The steps, in the order they were first seen; references stay valid.
class Steps {
 public:
  Step& add(const std::string& name) {
    steps_.push_back(Step{name});
    return steps_.back();
  }
  const std::deque<Step>& all() const { return steps_; }

 private:
  std::deque<Step> steps_;
};

template <typename F>
auto timed(Step& step, F call) {
  Clock::time_point start = Clock::now();
  if constexpr (std::is_void_v<decltype(call())>) {
    call();
    step.ms += msSince(start);
  } else {
    auto result = call();
    step.ms += msSince(start);
    return result;
  }
}

// The slave's launcher, timed.
class TimedLauncher : public Launcher {
 public:
  TimedLauncher(std::unique_ptr<Launcher> inner, Steps& steps)
      : inner_(std::move(inner)),
        spawn_(steps.add("launcher_spawn")),
        running_(steps.add("launcher_running")),
        kill_(steps.add("launcher_kill")) {}

  mesos::Result<pid_t> launch(const LaunchSpec& spec) override {
    return timed(spawn_, [&] { return inner_->launch(spec); });
  }
  bool kill(pid_t pid, int signal) override {
    return timed(kill_, [&] { return inner_->kill(pid, signal); });
  }
  bool running(pid_t pid) override {
    return timed(running_, [&] { return inner_->running(pid); });
  }

 private:
  std::unique_ptr<Launcher> inner_;
  Step& spawn_;
  Step& running_;
  Step& kill_;
};

// An isolator, timed: its steps are named after its family ("cgroups" for
// "cgroups/cpu,cgroups/mem"). Forwards every method of the interface
// (--steps=false runs the isolators unwrapped).
class TimedIsolator : public Isolator {
 public:
  TimedIsolator(std::unique_ptr<Isolator> inner, const std::string& tag, Steps& steps)
      : inner_(std::move(inner)),
        prepare_(steps.add(tag + "_prepare")),
        isolate_(steps.add(tag + "_isolate")),
        kill_(steps.add(tag + "_kill")),
        cleanup_(steps.add(tag + "_cleanup")),
        processes_(steps.add(tag + "_processes")) {}

  std::string name() const override { return inner_->name(); }
  mesos::Result<void> recover(const std::map<std::string, pid_t>& known) override {
    return inner_->recover(known);
  }
  mesos::Result<LaunchRequirements> prepare(const ContainerConfig& config) override {
    return timed(prepare_, [&] { return inner_->prepare(config); });
  }
  mesos::Result<void> isolate(const ContainerID& id, pid_t pid) override {
    return timed(isolate_, [&] { return inner_->isolate(id, pid); });
  }
  mesos::Result<void> update(const ContainerID& id, const Resources& resources) override {
    return inner_->update(id, resources);
  }
  mesos::Result<void> usage(const ContainerID& id, mesos::ResourceStatistics* stats) override {
    return inner_->usage(id, stats);
  }
  mesos::Result<void> kill(const ContainerID& id) override {
    return timed(kill_, [&] { return inner_->kill(id); });
  }
  mesos::Result<void> cleanup(const ContainerID& id) override {
    return timed(cleanup_, [&] { return inner_->cleanup(id); });
  }
  std::optional<mesos::isolation::ContainerLimitation> limitation(const ContainerID& id) override {
    return inner_->limitation(id);
  }
  std::optional<std::vector<pid_t>> processes(const ContainerID& id) override {
    return timed(processes_, [&] { return inner_->processes(id); });
  }

 private:
  std::unique_ptr<Isolator> inner_;
  Step& prepare_;
  Step& isolate_;
  Step& kill_;
  Step& cleanup_;
  Step& processes_;
};

// The exits the reaper reports, by pid. The reaper's callbacks share its
// state, so an exit reported after the bench gave up waiting is harmless.
class Exits {
 public:
  void watch(pid_t pid) {
    Reaper::instance().watch(pid, [state = state_, pid](int status) {
      std::lock_guard<std::mutex> lock(state->mutex);
      state->statuses[pid] = status;
      state->changed.notify_all();
    });
  }

  // Waits until `pid` was reaped; false after `timeout`.
  bool await(pid_t pid, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(state_->mutex);
    return state_->changed.wait_for(lock, timeout,
                                    [&] { return state_->statuses.count(pid) != 0; });
  }

  // Waits until every pid of `pids` was reaped, or `timeout` passes, or a
  // stop signal came; returns how many are still running.
  size_t awaitAll(const std::vector<pid_t>& pids, std::chrono::milliseconds timeout) {
    Clock::time_point deadline = Clock::now() + timeout;
    std::unique_lock<std::mutex> lock(state_->mutex);
    for (;;) {
      size_t left = 0;
      for (pid_t pid : pids) left += state_->statuses.count(pid) == 0 ? 1 : 0;
      if (left == 0 || interrupted || Clock::now() >= deadline) return left;
      state_->changed.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

  bool reaped(pid_t pid) {
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->statuses.count(pid) != 0;
  }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable changed;
    std::map<pid_t, int> statuses;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

struct Container {
  ContainerID id;
  pid_t pid = -1;
  bool provisioned = false;  // --image: its root filesystem was made
};

// --cgroups_root in every cgroup hierarchy mounted at or below
// --cgroups_hierarchy, under this process's own cgroup there: where the
// isolators put the containers' cgroups (the cgroups isolator in its
// controllers' hierarchies, LXC in all of them, named and unified ones
// included). The directories that exist.
std::vector<std::string> cgroupRoots() {
  std::vector<std::string> dirs;
  auto mounts = cgroups::read("/proc/self", "mounts");
  auto self = cgroups::read("/proc/self", "cgroup");
  if (!mounts || !self) return dirs;
  auto memberships = cgroups::parseProcCgroup(*self);
  if (!memberships) return dirs;
  std::string top = FLAGS_cgroups_hierarchy;
  while (top.size() > 1 && top.back() == '/') top.pop_back();
  for (const cgroups::Mount& mount : cgroups::parseMounts(*mounts)) {
    if (mount.type != "cgroup" && mount.type != "cgroup2") continue;
    if (mount.target != top && mount.target.rfind(top + "/", 0) != 0) continue;
    for (const cgroups::Membership& membership : *memberships) {
      bool ours = mount.type == "cgroup2"
                      ? membership.hierarchyId == 0 && membership.controllers.empty()
                      : std::any_of(membership.controllers.begin(), membership.controllers.end(),
                                    [&](const std::string& controller) {
                                      return std::find(mount.options.begin(),
                                                       mount.options.end(),
                                                       controller) != mount.options.end();
                                    });
      if (!ours) continue;
      std::string base = membership.path == "/" ? "" : membership.path;
      std::string dir = mount.target + base + "/" + FLAGS_cgroups_root;
      if (fs::is_directory(dir)) dirs.push_back(dir);
      break;
    }
  }
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  return dirs;
}

// Kills whatever runs in the root cgroup `dir` or below it and removes it,
// deepest first. Returns the cgroups that were left below it; `error` says
// what could not be removed.
std::vector<std::string> removeRoot(const std::string& dir, std::string* error) {
  std::vector<std::string> below;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) below.push_back(it->path().string());
  }
  // Nothing should run there any more: SIGKILL until it is empty (no
  // freezer: this is the last resort, not the measured path).
  Clock::time_point deadline = Clock::now() + std::chrono::seconds(10);
  for (;;) {
    auto pids = cgroups::pids(dir, true);
    if (!pids || pids->empty() || Clock::now() > deadline) break;
    for (pid_t pid : *pids) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::vector<std::string> order = below;
  std::sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
  });
  order.push_back(dir);
  for (const std::string& each : order) {
    if (::rmdir(each.c_str()) != 0 && errno != ENOENT && error->empty()) {
      *error = "cannot remove " + each + ": " + std::strerror(errno);
    }
  }
  return below;
}

class Bench {
 public:
  // `steps`: what the containerizer's launcher and isolators time; it
  // outlives the bench.
  Bench(std::unique_ptr<Containerizer> containerizer, std::string work, const Steps& steps)
      : containerizer_(std::move(containerizer)), work_(std::move(work)), steps_(steps) {}

  // Launches, waits for `true` to exit, destroys. Returns the exit status.
  int run() {
    int status = 0;
    std::string loadBefore = loadAverage();
    const Clock::time_point wallStart = Clock::now();
    double cpuStart = cpuSeconds();
    if (!launchAll()) status = 1;
    launchCpu_ = cpuSeconds() - cpuStart;
    if (status == 0 && !interrupted && FLAGS_command == "true") {
      std::vector<pid_t> pids;
      for (const Container& container : containers_) pids.push_back(container.pid);
      size_t left = exits_.awaitAll(pids, std::chrono::seconds(FLAGS_timeout_s));
      if (left > 0 && !interrupted) {
        std::cerr << "container_bench: " << left << " `true` containers still running after "
                  << FLAGS_timeout_s << " s" << std::endl;
        status = 1;
      }
    }
    if (interrupted) {
      std::cerr << "container_bench: interrupted; destroying the " << containers_.size()
                << " containers launched" << std::endl;
    }
    double destroyStart = cpuSeconds();
    if (!destroyAll()) status = 1;
    destroyCpu_ = cpuSeconds() - destroyStart;
    wallS_ = msSince(wallStart) / 1000;
    std::string loadAfter = loadAverage();
    if (interrupted) {
      std::cerr << "container_bench: interrupted: every container destroyed, no figures"
                << std::endl;
      return 130;
    }
    if (status == 0) report(loadBefore, loadAfter);
    return status;
  }

  // After run(): what is left of the containers, killed and named. Returns
  // whether nothing was left.
  bool sweep() {
    bool clean = true;
    std::set<pid_t> leaders;
    for (const Container& container : containers_) leaders.insert(container.pid);
    // A container's processes keep the session its executor leads.
    for (const auto& entry : mesos::internal::processTable()) {
      if (entry.zombie || leaders.count(entry.sid) == 0) continue;
      std::cerr << "container_bench: process " << entry.pid << " of container "
                << entry.sid << " was left running; killing it" << std::endl;
      ::kill(entry.pid, SIGKILL);
      clean = false;
    }
    for (const Container& container : containers_) {
      if (exits_.reaped(container.pid)) continue;
      if (!exits_.await(container.pid, std::chrono::seconds(FLAGS_timeout_s))) {
        std::cerr << "container_bench: executor " << container.pid << " of "
                  << container.id.value() << " was never reaped" << std::endl;
        clean = false;
      }
    }
    return clean;
  }

 private:
  // --image: the store under the work directory, holding one layer made
  // from busybox-static, and the image of that layer.
  bool makeImage() {
    namespace provisioner = mesos::internal::slave::provisioner;
    auto created =
        provisioner::Provisioner::create(FLAGS_image_backend, FLAGS_image_mount_in_container);
    if (!created) {
      std::cerr << "container_bench: " << created.error().message << std::endl;
      return false;
    }
    provisioner_.emplace(std::move(created).value());
    auto store = provisioner::Store::open(work_ + "/store");
    if (!store) {
      std::cerr << "container_bench: " << store.error().message << std::endl;
      return false;
    }
    store_.emplace(std::move(store).value());
    auto staged = store_->makeStaging();
    if (!staged) {
      std::cerr << "container_bench: " << staged.error().message << std::endl;
      return false;
    }
    std::error_code error;
    fs::create_directories(*staged + "/rootfs/bin", error);
    fs::create_directories(*staged + "/rootfs/etc", error);
    fs::copy_file("/bin/busybox", *staged + "/rootfs/bin/busybox", error);
    if (error) {
      std::cerr << "container_bench: --image needs /bin/busybox (busybox-static): "
                << error.message() << std::endl;
      return false;
    }
    for (const char* tool : {"sh", "sleep", "true"}) {
      fs::create_symlink("busybox", *staged + "/rootfs/bin/" + tool, error);
    }
    const std::string layer = "sha256:" + std::string(64, 'b');
    if (auto committed = store_->commitLayer(layer, *staged); !committed) {
      std::cerr << "container_bench: " << committed.error().message << std::endl;
      return false;
    }
    image_.reference = "bench/busybox:latest";
    image_.layers = {layer};
    return true;
  }

  // --pulls: a `docker save` tarball of busybox under <work>/pulls, pulled
  // FLAGS_pulls times into fresh stores, each time also again from the
  // store.
  bool measurePulls() {
    namespace provisioner = mesos::internal::slave::provisioner;
    const std::string dir = work_ + "/pulls";
    const std::string script =
        "set -e; cd '" + dir +
        "'; mkdir -p rootfs/bin img tarballs/bench; cp /bin/busybox rootfs/bin/; "
        "for t in sh sleep true; do ln -s busybox rootfs/bin/$t; done; "
        "tar -C rootfs -cf layer.tar .; d=$(sha256sum layer.tar | cut -d' ' -f1); "
        "mkdir img/$d; mv layer.tar img/$d/layer.tar; "
        "printf '{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{},"
        "\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"sha256:%s\"]}}' $d > "
        "img/config.json; "
        "printf '[{\"Config\":\"config.json\",\"RepoTags\":[\"bench/busybox:latest\"],"
        "\"Layers\":[\"%s/layer.tar\"]}]' $d > img/manifest.json; "
        "tar -C img -cf tarballs/bench/busybox:latest.tar .";
    fs::create_directories(dir);
    if (std::system(script.c_str()) != 0) {
      std::cerr << "container_bench: --pulls: cannot make the image's tarball (tar, sha256sum)"
                << std::endl;
      return false;
    }
    provisioner::docker::PullOptions options;
    options.registry = dir + "/tarballs";
    for (int i = 0; i < FLAGS_pulls && !interrupted; ++i) {
      const std::string storeDir = dir + "/store" + std::to_string(i);
      auto store = provisioner::Store::open(storeDir);
      if (!store) {
        std::cerr << "container_bench: " << store.error().message << std::endl;
        return false;
      }
      for (bool cached : {false, true}) {
        Clock::time_point start = Clock::now();
        auto pulled = provisioner::docker::pull(*store, "bench/busybox:latest", options);
        double ms = msSince(start);
        if (!pulled || pulled->cached != cached) {
          std::cerr << "container_bench: --pulls: "
                    << (pulled ? std::string("the store's answer was not the expected one")
                               : pulled.error().message)
                    << std::endl;
          return false;
        }
        (cached ? pullCachedMs_ : pullFirstMs_).push_back(ms);
      }
      std::error_code error;
      fs::remove_all(storeDir, error);
    }
    return true;
  }

  bool launchAll() {
    Resources resources = *Resources::parse(FLAGS_resources);
    std::string program = FLAGS_image ? "/bin/" + FLAGS_command : which(FLAGS_command);
    if (FLAGS_image && FLAGS_pulls > 0 && !measurePulls()) return false;
    if (FLAGS_image && !makeImage()) return false;
    for (int i = 0; i < FLAGS_containers && !interrupted; ++i) {
      Container container;
      container.id.set_value("c" + std::to_string(i));
      std::string sandbox = work_ + "/" + container.id.value();
      fs::create_directory(sandbox);
      ContainerConfig config;
      config.containerId = container.id;
      config.frameworkId.set_value("container_bench");
      config.executor.mutable_executor_id()->set_value(container.id.value());
      config.executor.mutable_command()->set_value(program);
      config.directory = sandbox;
      config.resources = resources;
      if (FLAGS_image) {
        Clock::time_point provisioning = Clock::now();
        auto rootfs = provisioner_->provision(*store_, image_, rootfsDirectory(container));
        if (!rootfs) {
          std::cerr << "container_bench: cannot provision container " << container.id.value()
                    << ": " << rootfs.error().message << std::endl;
          return false;
        }
        provisionMs_.push_back(msSince(provisioning));
        config.rootfs = *rootfs;
        container.provisioned = true;
      }
      LaunchSpec spec;
      spec.command.set_shell(false);
      spec.command.set_value(program);
      spec.command.add_arguments(FLAGS_command);
      if (FLAGS_command == "sleep") spec.command.add_arguments(std::to_string(FLAGS_sleep_s));
      spec.directory = sandbox;
      spec.environment = {{"PATH", "/usr/bin:/bin"}};
      spec.stdoutPath = sandbox + "/stdout";
      spec.stderrPath = sandbox + "/stderr";

      Clock::time_point start = Clock::now();
      auto pid = containerizer_->launch(config, std::move(spec));
      double ms = msSince(start);
      if (!pid) {
        std::cerr << "container_bench: cannot launch container " << container.id.value()
                  << ": " << pid.error().message << std::endl;
        if (container.provisioned) (void)provisioner_->destroy(rootfsDirectory(container));
        return false;
      }
      launchMs_.push_back(ms);
      container.pid = *pid;
      exits_.watch(container.pid);
      containers_.push_back(std::move(container));
    }
    return true;
  }

  // Destroys every container launched, in launch order; times each while
  // no stop signal came.
  bool destroyAll() {
    bool ok = true;
    for (const Container& container : containers_) {
      bool timing = !interrupted;
      Clock::time_point start = Clock::now();
      containerizer_->destroy(container.id, container.pid);
      if (!exits_.await(container.pid, std::chrono::seconds(FLAGS_timeout_s))) {
        std::cerr << "container_bench: executor " << container.pid << " of "
                  << container.id.value() << " not reaped " << FLAGS_timeout_s
                  << " s after its destroy" << std::endl;
        ok = false;
        continue;
      }
      if (timing) destroyMs_.push_back(msSince(start));
      if (container.provisioned) {
        Clock::time_point unprovisioning = Clock::now();
        if (auto destroyed = provisioner_->destroy(rootfsDirectory(container)); !destroyed) {
          std::cerr << "container_bench: cannot remove the root filesystem of "
                    << container.id.value() << ": " << destroyed.error().message << std::endl;
          ok = false;
        } else if (timing) {
          unprovisionMs_.push_back(msSince(unprovisioning));
        }
      }
    }
    return ok;
  }

  std::string rootfsDirectory(const Container& container) const {
    return work_ + "/rootfses/" + container.id.value();
  }

  void report(const std::string& loadBefore, const std::string& loadAfter) {
    double launchTotal = (sum(launchMs_) + sum(provisionMs_)) / 1000;
    double destroyTotal = (sum(destroyMs_) + sum(unprovisionMs_)) / 1000;
    std::printf("# launch_ms: Containerizer::launch(), call to return (isolators' prepare, "
                "spawn until the first program runs, isolators' isolate)\n");
    std::printf("# destroy_ms: Containerizer::destroy() (kill, cgroups killed and removed) "
                "and on until the executor is reaped\n");
    std::printf("isolation: %s\n", containerizer_->isolation().c_str());
    std::printf("containers: %zu containers\n", launchMs_.size());
    std::printf("command: %s\n", FLAGS_command.c_str());
    std::printf("launch_ms_p50: %.3f ms\n", percentile(launchMs_, 0.50));
    std::printf("launch_ms_p99: %.3f ms\n", percentile(launchMs_, 0.99));
    std::printf("destroy_ms_p50: %.3f ms\n", percentile(destroyMs_, 0.50));
    std::printf("destroy_ms_p99: %.3f ms\n", percentile(destroyMs_, 0.99));
    if (FLAGS_image) {
      std::printf("image_backend: %s\n", provisioner_->backend().c_str());
      std::printf("provision_ms_p50: %.3f ms\n", percentile(provisionMs_, 0.50));
      std::printf("provision_ms_p99: %.3f ms\n", percentile(provisionMs_, 0.99));
      std::printf("unprovision_ms_p50: %.3f ms\n", percentile(unprovisionMs_, 0.50));
      std::printf("unprovision_ms_p99: %.3f ms\n", percentile(unprovisionMs_, 0.99));
      if (!pullFirstMs_.empty()) {
        std::printf(
            "# pull_*: the image from a docker-save tarball into a fresh store "
            "(first), then from that store (cached); %zu times\n",
            pullFirstMs_.size());
        std::printf("pull_first_ms_p50: %.3f ms\n", percentile(pullFirstMs_, 0.50));
        std::printf("pull_first_ms_max: %.3f ms\n", percentile(pullFirstMs_, 1.0));
        std::printf("pull_cached_ms_p50: %.3f ms\n", percentile(pullCachedMs_, 0.50));
        std::printf("pull_cached_ms_max: %.3f ms\n", percentile(pullCachedMs_, 1.0));
      }
    }
    std::printf("launch_total_s: %.3f s\n", launchTotal);
    std::printf("destroy_total_s: %.3f s\n", destroyTotal);
    double total = launchTotal + destroyTotal;
    std::printf("containers_per_s: %.1f containers/s\n",
                total > 0 ? static_cast<double>(launchMs_.size()) / total : 0.0);
    std::printf(
        "# wall_s: from the first launch to the last destroy, with what the calls do "
        "not wait for (the helpers' mounts after the go-ahead, the wait for `true` "
        "to exit)\n");
    std::printf("wall_s: %.3f s\n", wallS_);
    std::printf("# *_cpu_s: CPU time of this process (all its threads) in each phase\n");
    std::printf("launch_cpu_s: %.3f s\n", launchCpu_);
    std::printf("destroy_cpu_s: %.3f s\n", destroyCpu_);
    if (!steps_.all().empty()) {
      std::printf("# step_*_s: time inside each step of the two calls, summed over the "
                  "containers\n");
    }
    for (const Step& step : steps_.all()) {
      std::printf("step_%s_s: %.3f s\n", step.name.c_str(), step.ms / 1000);
    }
    std::printf("limitations_reported: %d\n", limitations.load());
    std::printf("load_1min_before: %s\n", loadBefore.c_str());
    std::printf("load_1min_after: %s\n", loadAfter.c_str());
    std::fflush(stdout);
  }

  std::unique_ptr<Containerizer> containerizer_;
  const std::string work_;
  const Steps& steps_;
  Exits exits_;
  double wallS_ = 0;
  std::vector<Container> containers_;
  std::vector<double> launchMs_;
  std::vector<double> destroyMs_;
  std::vector<double> provisionMs_;
  std::vector<double> unprovisionMs_;
  std::vector<double> pullFirstMs_;
  std::vector<double> pullCachedMs_;
  std::optional<mesos::internal::slave::provisioner::Provisioner> provisioner_;
  std::optional<mesos::internal::slave::provisioner::Store> store_;
  mesos::internal::slave::provisioner::StoredImage image_;
  double launchCpu_ = 0;
  double destroyCpu_ = 0;
};

// "cgroups" for "cgroups/cpu,cgroups/mem", "lxc" for "lxc".
std::string family(const std::string& isolatorName) {
  return isolatorName.substr(0, isolatorName.find_first_of("/,"));
}

// An executor started by the containerizer is a child of this process:
// more open descriptors than the default 1024 may be needed (a pidfd per
// child for the reaper, an eventfd per container for cgroups/mem).
void raiseDescriptorLimit() {
  rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Launches and destroys --containers containers with the slave's containerizer and "
      "--isolation; prints `name: value unit` lines.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  if (FLAGS_minloglevel < google::GLOG_WARNING) FLAGS_minloglevel = google::GLOG_WARNING;

  if (FLAGS_containers <= 0 || FLAGS_sleep_s <= 0 || FLAGS_timeout_s <= 0) {
    std::cerr << "container_bench: --containers, --sleep_s and --timeout_s must be positive"
              << std::endl;
    return 1;
  }
  if (FLAGS_command != "sleep" && FLAGS_command != "true") {
    std::cerr << "container_bench: --command must be 'sleep' or 'true', not '" << FLAGS_command
              << "'" << std::endl;
    return 1;
  }
  if (which(FLAGS_command).empty()) {
    std::cerr << "container_bench: no '" << FLAGS_command << "' program in PATH" << std::endl;
    return 1;
  }
  auto resources = Resources::parse(FLAGS_resources);
  if (!resources) {
    std::cerr << "container_bench: --resources: " << resources.error().message << std::endl;
    return 1;
  }
  auto names = mesos::internal::isolation::expandIsolation(FLAGS_isolation);
  if (!names) {
    std::cerr << "container_bench: " << names.error().message << std::endl;
    return 1;
  }
  raiseDescriptorLimit();
  onStopSignals();

  std::string pattern = FLAGS_work_dir + "/container-bench-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::cerr << "container_bench: cannot create a directory under --work_dir=" << FLAGS_work_dir
              << ": " << std::strerror(errno) << std::endl;
    return 1;
  }
  const std::string work = pattern;

  int status = 0;
  {
    mesos::internal::isolation::IsolationOptions options;
    options.isolation = FLAGS_isolation;
    options.cgroupsHierarchy = FLAGS_cgroups_hierarchy;
    options.cgroupsRoot = FLAGS_cgroups_root;
    options.cgroupsEnableCfs = FLAGS_cgroups_enable_cfs;
    options.onLimitation = [](const mesos::isolation::ContainerLimitation& limitation) {
      // None is expected of `sleep` or `true`: counted and printed, not fatal.
      limitations++;
      std::cerr << "warning: container " << limitation.containerId.value()
                << " reported past a limit: " << limitation.message << std::endl;
    };
    auto isolators = mesos::internal::isolation::createIsolators(options);
    if (!isolators) {
      std::cerr << "container_bench: cannot create the isolators: " << isolators.error().message
                << (::geteuid() != 0 ? " (not running as root)" : "") << std::endl;
      status = 1;
    } else {
      Steps steps;
      std::unique_ptr<Launcher> launcher = std::make_unique<PosixLauncher>(FLAGS_launch_server);
      std::vector<std::unique_ptr<Isolator>> chosen = std::move(isolators).value();
      if (FLAGS_steps) {
        launcher = std::make_unique<TimedLauncher>(std::move(launcher), steps);
        for (auto& isolator : chosen) {
          std::string tag = family(isolator->name());
          isolator = std::make_unique<TimedIsolator>(std::move(isolator), tag, steps);
        }
      }
      std::string helper = mesos::internal::slave::launcherBinaryPath(
          FLAGS_launcher_dir, mesos::internal::slave::kLaunchHelper);
      auto containerizer =
          std::make_unique<Containerizer>(std::move(launcher), std::move(chosen), helper);
      // As the slave does: what an earlier, interrupted run left is destroyed.
      if (auto recovered = containerizer->recover({}); !recovered) {
        std::cerr << "container_bench: cannot recover: " << recovered.error().message
                  << std::endl;
        status = 1;
      } else {
        Bench bench(std::move(containerizer), work, steps);
        status = bench.run();
        if (!bench.sweep() && status == 0) status = 1;
      }
    }
  }

  // What the isolators keep for the next containers (the root cgroups) is
  // the bench's to remove; a container's cgroup left there is a leftover.
  // Not after a posix run, which made none (another run may own them).
  bool posixOnly = std::all_of(names->begin(), names->end(), [](const std::string& name) {
    return name.rfind("posix/", 0) == 0;
  });
  for (const std::string& root : posixOnly ? std::vector<std::string>() : cgroupRoots()) {
    std::string error;
    for (const std::string& left : removeRoot(root, &error)) {
      std::cerr << "container_bench: cgroup " << left << " was left behind" << std::endl;
      if (status == 0) status = 1;
    }
    if (!error.empty()) {
      std::cerr << "container_bench: " << error << std::endl;
      if (status == 0) status = 1;
    }
  }
  // LXC's directories for the root: the lxcpath (the isolator's default)
  // and the lock directory LXC makes for it and never removes; both empty
  // by now (rmdir removes nothing else).
  if (std::find(names->begin(), names->end(), "lxc") != names->end()) {
    std::string lxcPath =
        std::string(mesos::internal::isolation::kDefaultLxcPath) + "/" + FLAGS_cgroups_root;
    for (const std::string& dir : {lxcPath, "/run/lxc/lock" + lxcPath}) ::rmdir(dir.c_str());
  }
  std::error_code error;
  fs::remove_all(work, error);
  if (error) {
    std::cerr << "container_bench: cannot remove " << work << ": " << error.message()
              << std::endl;
    if (status == 0) status = 1;
  }
  if (status == 0) std::printf("left_behind: nothing\n");
  return status;
}
