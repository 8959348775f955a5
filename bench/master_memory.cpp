// master_memory: what the master keeps per slave, offer, task, framework
// and completed task, measured as bytes allocated from the heap (glibc's
// mallinfo2) before and after each step, in one process: a real master and
// allocator on a runtime with a paused clock, and stand-in slaves and
// schedulers (actors that answer what the master sends and keep nothing
// that grows). docs/scaling.md explains the figures.
//
// Steps, each measured after the runtime settles:
//   slaves       --slaves slaves register (cpus:2;mem:2048), no framework yet
//   offers       a framework registers and is offered every slave; it then
//                unregisters (its offers go back)
//   tasks        a framework registers, launches two tasks on every offer
//                (filling every slave), and every task reports TASK_RUNNING
//   frameworks   --frameworks more frameworks register (nothing is free)
//   (after slaves and after frameworks) GET /master/state: the fragments
//                of the slaves, then of the tasks, now cached
//   completed    every task finishes (nothing is offered: the frameworks
//                suppress offers), the history cap keeps all of them, and
//                /master/state is rendered again (completed tasks' JSON is
//                joined in chunks)
#include <malloc.h>

#include <gflags/gflags.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../bench/fig10/http_get.hpp"
#include "mesos/resources.hpp"
#include "master/master.hpp"
#include "messages.pb.h"
#include "process/runtime.hpp"

DEFINE_int32(slaves, 20000, "Slaves to register.");
DEFINE_int32(frameworks, 200, "Frameworks registered in the frameworks step.");

namespace {

using namespace mesos;
using namespace mesos::internal;
using process::UPID;

size_t allocated() {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

double rssMb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  }
  return 0;
}

// A stand-in slave: answers each task with TASK_RUNNING. Its id string is
// reserved before the measurements start, so learning it allocates nothing.
class SlaveSink : public process::Actor {
 public:
  SlaveSink(std::string id, UPID master) : Actor(std::move(id)), master_(std::move(master)) {
    slaveId.reserve(96);
  }
  std::string slaveId;

 private:
  void initialize() override {
    on<SlaveRegisteredMessage>([this](const UPID&, const SlaveRegisteredMessage& message) {
      slaveId = message.slave_id().value();
    });
    on<RunTaskMessage>([this](const UPID&, const RunTaskMessage& message) {
      StatusUpdateMessage update;
      StatusUpdate* u = update.mutable_update();
      u->mutable_framework_id()->CopyFrom(message.framework().id());
      u->mutable_slave_id()->CopyFrom(message.task().slave_id());
      u->set_timestamp(1);
      u->set_uuid(std::string(16, 'u'));
      u->mutable_status()->mutable_task_id()->CopyFrom(message.task().task_id());
      u->mutable_status()->set_state(TASK_RUNNING);
      u->mutable_status()->set_uuid(u->uuid());
      update.set_pid(self().toString());
      send(master_, update);
    });
  }
  UPID master_;
};

// A stand-in scheduler: when `launching`, fills every offer with two tasks
// (named <slave's hostname>-a and -b); otherwise keeps its offers.
class SchedulerSink : public process::Actor {
 public:
  SchedulerSink(std::string id, UPID master) : Actor(std::move(id)), master_(std::move(master)) {
    frameworkId.reserve(96);
  }
  std::string frameworkId;
  bool launching = false;

 private:
  void initialize() override {
    on<FrameworkRegisteredMessage>([this](const UPID&, const FrameworkRegisteredMessage& message) {
      frameworkId = message.framework_id().value();
    });
    on<ResourceOffersMessage>([this](const UPID&, const ResourceOffersMessage& message) {
      if (!launching) return;
      for (const Offer& offer : message.offers()) {
        LaunchTasksMessage launch;
        launch.mutable_framework_id()->CopyFrom(offer.framework_id());
        launch.add_offer_ids()->CopyFrom(offer.id());
        for (const char* suffix : {"-a", "-b"}) {
          TaskInfo* task = launch.add_tasks();
          task->set_name("task");
          task->mutable_task_id()->set_value(offer.hostname() + suffix);
          task->mutable_slave_id()->CopyFrom(offer.slave_id());
          *task->mutable_resources() = Resources::parse("cpus:1;mem:1024").value().proto();
          task->mutable_command()->set_value("sleep 30");
        }
        send(master_, launch);
      }
    });
  }
  UPID master_;
};

FrameworkInfo frameworkInfo(const std::string& name) {
  FrameworkInfo info;
  info.set_user("bench");
  info.set_name(name);
  return info;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage("Bytes the master keeps per slave, offer, task and framework.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  google::InitGoogleLogging(argv[0]);
  FLAGS_minloglevel = 2;  // errors only: a log line per slave would be measured too
  const size_t slaves = static_cast<size_t>(FLAGS_slaves);
  const size_t frameworks = static_cast<size_t>(FLAGS_frameworks);

  process::Runtime::Options options;
  options.pauseClock = true;
  auto runtime = std::move(process::Runtime::create(options)).value();
  master::MasterFlags flags;
  flags.max_completed_tasks_per_framework = static_cast<uint32_t>(2 * slaves);
  auto allocator = master::createAllocator(flags);
  if (!allocator.ok()) {
    std::fprintf(stderr, "%s\n", allocator.error().message.c_str());
    return 1;
  }
  auto master = runtime->spawn<master::Master>(flags, std::move(allocator).value());
  runtime->setDelegate("master");
  UPID masterPid = master.pid();

  std::vector<process::Spawned<SlaveSink>> slaveSinks;
  for (size_t i = 0; i < slaves; ++i) {
    slaveSinks.push_back(
        runtime->spawn(std::make_unique<SlaveSink>("slave(" + std::to_string(i + 1) + ")", masterPid)));
  }
  std::vector<process::Spawned<SchedulerSink>> schedulers;
  for (size_t i = 0; i < frameworks + 2; ++i) {
    schedulers.push_back(runtime->spawn(
        std::make_unique<SchedulerSink>("scheduler(" + std::to_string(i + 1) + ")", masterPid)));
  }
  SchedulerSink& offered = *schedulers[0].get();
  SchedulerSink& filler = *schedulers[1].get();
  auto registerFramework = [&](SchedulerSink& sink, const std::string& name) {
    RegisterFrameworkMessage message;
    *message.mutable_framework() = frameworkInfo(name);
    runtime->send(sink.self(), masterPid, message);
  };
  runtime->settle();
  process::Address address = runtime->address();
  auto get = [&] {
    auto result = fig10::httpGet(address.ipString(), address.port, "/master/state",
                                 std::chrono::minutes(5), false);
    if (!result.complete || result.status != 200) {
      std::fprintf(stderr, "GET /master/state failed: %s\n", result.error.c_str());
      std::exit(1);
    }
    return result.bodyBytes;
  };
  malloc_trim(0);

  size_t before = allocated();
  auto step = [&](const char* name, double per) {
    runtime->settle();
    size_t now = allocated();
    double delta = static_cast<double>(now) - static_cast<double>(before);
    std::printf("%s_bytes: %.0f bytes\n", name, per > 0 ? delta / per : delta);
    std::fflush(stdout);
    before = now;
    return delta;
  };

  for (size_t i = 0; i < slaves; ++i) {
    RegisterSlaveMessage message;
    message.mutable_slave()->set_hostname("s" + std::to_string(i + 1));
    *message.mutable_slave()->mutable_resources() =
        Resources::parse("cpus:2;mem:2048").value().proto();
    message.set_version("1.0.0");
    runtime->send(slaveSinks[i].get()->self(), masterPid, message);
    if (i % 1000 == 999) runtime->settle();
  }
  step("per_slave", static_cast<double>(slaves));
  get();
  step("state_json_per_slave", static_cast<double>(slaves));

  registerFramework(offered, "offered");
  step("per_offer", static_cast<double>(slaves));
  UnregisterFrameworkMessage unregister;
  runtime->settle();
  unregister.mutable_framework_id()->set_value(offered.frameworkId);
  runtime->send(offered.self(), masterPid, unregister);
  runtime->settle();
  malloc_trim(0);
  before = allocated();

  filler.launching = true;
  registerFramework(filler, "filler");
  runtime->settle();
  filler.launching = false;
  double running = step("per_running_task", static_cast<double>(2 * slaves)) / (2.0 * slaves);

  for (size_t i = 2; i < schedulers.size(); ++i) {
    registerFramework(*schedulers[i].get(), "framework " + std::to_string(i));
  }
  step("per_framework", static_cast<double>(frameworks));

  // The slaves' fragments are rendered anew (they changed) and the old ones
  // freed: what grows is the tasks' fragments.
  size_t liveBytes = get();
  double taskJson = step("state_json_per_running_task", static_cast<double>(2 * slaves)) /
                    (2.0 * slaves);
  std::printf("state_bytes_live: %zu bytes\n", liveBytes);

  for (auto& scheduler : schedulers) {
    if (scheduler.get()->frameworkId.empty() || scheduler.get() == &offered) continue;
    SuppressOffersMessage suppress;
    suppress.mutable_framework_id()->set_value(scheduler.get()->frameworkId);
    runtime->send(scheduler.get()->self(), masterPid, suppress);
  }
  runtime->settle();
  before = allocated();
  for (size_t i = 0; i < slaves; ++i) {
    SlaveSink& sink = *slaveSinks[i].get();
    for (const char* suffix : {"-a", "-b"}) {
      StatusUpdateMessage update;
      StatusUpdate* u = update.mutable_update();
      u->mutable_framework_id()->set_value(filler.frameworkId);
      u->mutable_slave_id()->set_value(sink.slaveId);
      u->set_timestamp(2);
      u->mutable_status()->mutable_task_id()->set_value("s" + std::to_string(i + 1) + suffix);
      u->mutable_status()->set_state(TASK_FINISHED);
      update.set_pid(sink.self().toString());
      runtime->send(sink.self(), masterPid, update);
    }
    if (i % 1000 == 999) runtime->settle();
  }
  // Rendered again: the last document's fragments (the running tasks') are
  // let go and the completed tasks' JSON joined in chunks. What the running
  // tasks held is added back to get what a completed task costs.
  size_t completedBytes = get();
  runtime->settle();
  double delta = static_cast<double>(allocated()) - static_cast<double>(before);
  std::printf("per_completed_task_bytes: %.0f bytes\n",
              delta / (2.0 * slaves) + running + taskJson);
  std::printf("state_bytes_completed: %zu bytes\n", completedBytes);
  std::printf("rss_mb: %.1f MB\n", rssMb());
  return 0;
}
