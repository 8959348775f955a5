// MesosSchedulerDriver: the thread-safe front of the scheduler actor. Every
// call takes the driver's mutex only to read or change the status and to
// hand the work to the actor; nothing here waits on the actor while holding
// it, so callbacks (which run on the actor) may call back into the driver.
#include "mesos/scheduler.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>
#include <variant>
#include <vector>

#include <glog/logging.h>

#include "common/flags.hpp"
#include "process/dispatch.hpp"
#include "process/runtime.hpp"
#include "sched/master_address.hpp"
#include "sched/scheduler_process.hpp"
#include "zk/detector.hpp"

namespace mesos {

using internal::SchedulerProcess;

namespace {

std::string currentUser() {
  passwd entry{};
  passwd* found = nullptr;
  char buffer[4096];
  if (getpwuid_r(geteuid(), &entry, buffer, sizeof(buffer), &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  const char* user = std::getenv("USER");
  return user != nullptr ? user : "root";
}

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

bool isLoopback(uint32_t ip) { return (ip >> 24) == 127; }

// How long join() waits for the driver's last messages to be written.
constexpr process::Duration kFlushBound = std::chrono::seconds(2);

FrameworkInfo withDefaults(FrameworkInfo framework) {
  if (framework.user().empty()) framework.set_user(currentUser());
  if (framework.hostname().empty()) framework.set_hostname(hostName());
  return framework;
}

}  // namespace

MesosSchedulerDriver::MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                                           const std::string& master)
    : MesosSchedulerDriver(scheduler, framework, master, true, nullptr) {}

MesosSchedulerDriver::MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                                           const std::string& master,
                                           bool implicitAcknowledgements)
    : MesosSchedulerDriver(scheduler, framework, master, implicitAcknowledgements, nullptr) {}

MesosSchedulerDriver::MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                                           const std::string& master,
                                           bool implicitAcknowledgements,
                                           process::Runtime* runtime)
    : scheduler_(scheduler),
      framework_(withDefaults(framework)),
      master_(master),
      implicitAcknowledgements_(implicitAcknowledgements),
      runtime_(runtime) {
  CHECK(scheduler_ != nullptr) << "MesosSchedulerDriver needs a Scheduler";
}

MesosSchedulerDriver::MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                                           const std::string& master,
                                           const Credential& credential)
    : MesosSchedulerDriver(scheduler, framework, master, true, credential, nullptr) {}

MesosSchedulerDriver::MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                                           const std::string& master,
                                           bool implicitAcknowledgements,
                                           const Credential& credential)
    : MesosSchedulerDriver(scheduler, framework, master, implicitAcknowledgements, credential,
                           nullptr) {}

MesosSchedulerDriver::MesosSchedulerDriver(Scheduler* scheduler, const FrameworkInfo& framework,
                                           const std::string& master,
                                           bool implicitAcknowledgements,
                                           const Credential& credential,
                                           process::Runtime* runtime)
    : MesosSchedulerDriver(scheduler, framework, master, implicitAcknowledgements, runtime) {
  credential_ = std::make_unique<Credential>(credential);
  if (framework_.principal().empty()) framework_.set_principal(credential.principal());
}

MesosSchedulerDriver::~MesosSchedulerDriver() {
  std::unique_ptr<process::Spawned<SchedulerProcess>> process;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    process = std::move(process_);
  }
  if (process) {
    CHECK(process::currentActor() != process->get())
        << "A MesosSchedulerDriver was destroyed from one of its own Scheduler callbacks";
    process->reset();
  }
}

template <typename F>
Status MesosSchedulerDriver::dispatchIfRunning(F call) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_ != DRIVER_RUNNING) return status_;
  call(process_->pid());
  return status_;
}

void MesosSchedulerDriver::stopped() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopped_ = true;
  stoppedChanged_.notify_all();
}

Status MesosSchedulerDriver::start() {
  std::string failure;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (status_ != DRIVER_NOT_STARTED) return status_;
    // host:port, or the masters' group in ZooKeeper (directly or named in
    // a file).
    process::Runtime& runtime = runtime_ != nullptr ? *runtime_ : process::Runtime::global();
    std::shared_ptr<internal::zk::MasterDetector> detector;
    mesos::Result<process::UPID> master = process::UPID();
    auto source = internal::zk::masterSource(master_);
    if (!source) {
      master = Error{"bad master '" + master_ + "': " + source.error().message};
    } else if (const auto* url = std::get_if<internal::zk::Url>(&*source)) {
      auto timeout = internal::zk::kDetectorSessionTimeout;
      if (const char* text = std::getenv("MESOS_ZK_SESSION_TIMEOUT")) {
        auto parsed = flags::parseDuration(text);
        if (parsed && *parsed > flags::Duration::zero()) {
          timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*parsed);
        }
      }
      detector = internal::zk::MasterDetector::zookeeper(runtime, *url, timeout);
    } else {
      master = internal::parseMasterAddress(std::get<std::string>(*source));
    }
    if (!framework_.IsInitialized()) {
      master = Error{"FrameworkInfo is missing required fields: " +
                     framework_.InitializationErrorString()};
    }
    if (master) {
      if (!detector && isLoopback(runtime.address().ip) && !isLoopback(master->address.ip)) {
        LOG(WARNING) << "The scheduler driver advertises loopback address "
                     << runtime.address() << ", which master " << *master
                     << " cannot reach: set LIBPROCESS_IP (or LIBPROCESS_ADVERTISE_IP) to a "
                        "routable address of this host";
      }
      process_ = std::make_unique<process::Spawned<SchedulerProcess>>(
          runtime.spawn<SchedulerProcess>(
              this, scheduler_, framework_, *master, std::move(detector),
              implicitAcknowledgements_,
              credential_ ? std::optional<Credential>(*credential_) : std::nullopt));
      return status_ = DRIVER_RUNNING;
    }
    failure = master.error().message;
    status_ = DRIVER_ABORTED;
  }
  // Outside the lock: the scheduler may call the driver from error().
  LOG(ERROR) << "Scheduler driver cannot start: " << failure;
  scheduler_->error(this, failure);
  return DRIVER_ABORTED;
}

Status MesosSchedulerDriver::stop(bool failover) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_ != DRIVER_RUNNING && status_ != DRIVER_ABORTED) return status_;
  if (process_) {
    (*process_)->running.store(false);
    process::dispatch(process_->pid(), &SchedulerProcess::stop, failover);
  }
  const bool aborted = status_ == DRIVER_ABORTED;
  status_ = DRIVER_STOPPED;
  return aborted ? DRIVER_ABORTED : DRIVER_STOPPED;
}

Status MesosSchedulerDriver::abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_ != DRIVER_RUNNING) return status_;
  (*process_)->running.store(false);
  // Queued behind the calls the scheduler made before, which still run.
  process::dispatch(process_->pid(), &SchedulerProcess::abort);
  return status_ = DRIVER_ABORTED;
}

Status MesosSchedulerDriver::join() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!process_) return status_;
  if (process::currentActor() == process_->get()) {
    LOG(ERROR) << "SchedulerDriver::join() called from a Scheduler callback would wait "
                  "forever; returning at once";
    return status_;
  }
  stoppedChanged_.wait(lock, [this] { return stopped_; });
  Status status = status_;
  lock.unlock();
  // The driver's last messages (UnregisterFrameworkMessage) are queued, not
  // yet written: a scheduler that exits right after join() must not lose
  // them.
  process::Runtime& runtime = runtime_ != nullptr ? *runtime_ : process::Runtime::global();
  if (!runtime.flush(kFlushBound)) {
    LOG(WARNING) << "The scheduler driver's last messages to the master were not all sent within "
                 << std::chrono::duration<double>(kFlushBound).count() << " s";
  }
  return status;
}

std::vector<Resource> MesosSchedulerDriver::guarantee() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return guarantee_;
}

void MesosSchedulerDriver::setGuarantee(std::vector<Resource> guarantee) {
  std::lock_guard<std::mutex> lock(mutex_);
  guarantee_ = std::move(guarantee);
}

Status MesosSchedulerDriver::run() {
  Status status = start();
  return status != DRIVER_RUNNING ? status : join();
}

Status MesosSchedulerDriver::requestResources(const std::vector<Request>& requests) {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::requestResources, requests);
  });
}

Status MesosSchedulerDriver::launchTasks(const std::vector<OfferID>& offerIds,
                                         const std::vector<TaskInfo>& tasks,
                                         const Filters& filters) {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::launchTasks, offerIds, tasks, filters);
  });
}

Status MesosSchedulerDriver::launchTasks(const OfferID& offerId,
                                         const std::vector<TaskInfo>& tasks,
                                         const Filters& filters) {
  return launchTasks(std::vector<OfferID>{offerId}, tasks, filters);
}

Status MesosSchedulerDriver::acceptOffers(const std::vector<OfferID>& offerIds,
                                          const std::vector<Offer::Operation>& operations,
                                          const Filters& filters) {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::acceptOffers, offerIds, operations, filters);
  });
}

Status MesosSchedulerDriver::killTask(const TaskID& taskId) {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::killTask, taskId);
  });
}

Status MesosSchedulerDriver::declineOffer(const OfferID& offerId, const Filters& filters) {
  return launchTasks(std::vector<OfferID>{offerId}, std::vector<TaskInfo>{}, filters);
}

Status MesosSchedulerDriver::reviveOffers() {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::reviveOffers);
  });
}

Status MesosSchedulerDriver::suppressOffers() {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::suppressOffers);
  });
}

Status MesosSchedulerDriver::reviveOffers(const std::vector<std::string>& roles) {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::reviveRoles, roles);
  });
}

Status MesosSchedulerDriver::suppressOffers(const std::vector<std::string>& roles) {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::suppressRoles, roles);
  });
}

Status MesosSchedulerDriver::updateFramework(const FrameworkInfo& frameworkInfo,
                                             const std::vector<std::string>& suppressedRoles) {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::updateFramework, frameworkInfo, suppressedRoles);
  });
}

Status MesosSchedulerDriver::acknowledgeStatusUpdate(const TaskStatus& status) {
  if (implicitAcknowledgements_) {
    LOG(ERROR) << "Ignoring acknowledgeStatusUpdate() for task " << status.task_id().value()
               << ": this driver acknowledges implicitly (create it with "
                  "implicitAcknowledgements = false to acknowledge explicitly)";
    std::lock_guard<std::mutex> lock(mutex_);
    return status_;
  }
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::acknowledgeStatusUpdate, status);
  });
}

Status MesosSchedulerDriver::sendFrameworkMessage(const ExecutorID& executorId,
                                                  const SlaveID& slaveId,
                                                  const std::string& data) {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::sendFrameworkMessage, executorId, slaveId, data);
  });
}

Status MesosSchedulerDriver::reconcileTasks(const std::vector<TaskStatus>& statuses) {
  return dispatchIfRunning([&](const process::Pid<SchedulerProcess>& pid) {
    process::dispatch(pid, &SchedulerProcess::reconcileTasks, statuses);
  });
}

}  // namespace mesos
