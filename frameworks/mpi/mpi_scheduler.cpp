#include "mpi_scheduler.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace mesos::frameworks::mpi {

namespace {

using namespace std::chrono_literals;

// How long mpiexec may take to list its proxies once started.
constexpr auto kProxyListTimeout = 30s;
// After a failure: SIGTERM to mpiexec, SIGKILL this much later.
constexpr auto kMpiexecKillGrace = 5s;
// After a failure, or after mpiexec exited 0: how long tasks may take to end
// before we stop waiting for them (the driver's stop() then unregisters the
// framework, and the master kills whatever is left).
constexpr auto kTaskEndBound = 30s;
constexpr auto kHydraReportGrace = 2s;
// Offers we cannot use at all, and offers that come while a gang runs.
constexpr double kRefuseUnusableSeconds = 5;
constexpr double kRefuseWhileRunningSeconds = 60;

bool isTerminal(TaskState state) {
  switch (state) {
    case TASK_FINISHED:
    case TASK_FAILED:
    case TASK_KILLED:
    case TASK_LOST:
    case TASK_ERROR:
      return true;
    default:
      return false;
  }
}

std::string seconds(std::chrono::milliseconds duration) {
  std::ostringstream text;
  text << static_cast<double>(duration.count()) / 1000.0 << " s";
  return text.str();
}

std::string describeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "wait status " + std::to_string(status);
}

Filters refuse(double secondsToRefuse) {
  Filters filters;
  filters.set_refuse_seconds(secondsToRefuse);
  return filters;
}

}  // namespace

MpiScheduler::MpiScheduler(MpiJob job) : job_(std::move(job)) {}

MpiScheduler::~MpiScheduler() = default;

int MpiScheduler::waitUntilDone() {
  std::unique_lock lock(mutex_);
  while (phase_ != Phase::kDone) {
    changed_.wait_for(lock, 100ms);
    if (spawnPending_) spawnMpiexec();
    checkTimers(Clock::now());
  }
  // Every mpiexec has exited (kDone requires it); join their readers
  // without the lock, which their exit callbacks took.
  std::vector<std::unique_ptr<Mpiexec>> mpiexecs = std::move(mpiexecs_);
  lock.unlock();
  mpiexecs.clear();
  lock.lock();
  return failure_.empty() ? 0 : 1;
}

void MpiScheduler::interrupt(const std::string& why) {
  std::lock_guard lock(mutex_);
  fail(why);
  changed_.notify_all();
}

std::string MpiScheduler::failure() const {
  std::lock_guard lock(mutex_);
  if (failure_.empty()) return "";
  // The first failure, in Hydra's words when Hydra saw it first (read now,
  // when its report is complete), then what else the teardown learnt.
  std::string message = failure_;
  if (hydraFirst_) {
    message = (current_ != nullptr ? current_->report() : lastReport_).describe();
    if (mpiexecStatus_) message += "; mpiexec ended with " + describeWaitStatus(*mpiexecStatus_);
  }
  for (const std::string& note : notes_) message += "; " + note;
  return message;
}

void MpiScheduler::registered(SchedulerDriver* driver, const FrameworkID& frameworkId,
                              const MasterInfo& masterInfo) {
  std::lock_guard lock(mutex_);
  schedulerDriver_ = driver;
  log("registered as framework " + frameworkId.value() + " with the master at " +
      masterInfo.hostname() + ":" + std::to_string(masterInfo.port()));
  if (phase_ != Phase::kRegistering) return;

  // Stay within the role's guarantee: a gang that needs more than the role
  // is guaranteed could only run on resources the master may revoke.
  if (driver_ != nullptr) {
    Resources guarantee;
    for (const Resource& resource : driver_->guarantee()) guarantee += resource;
    const double need[] = {job_.ranks * job_.shape.cpus, job_.ranks * job_.shape.mem};
    const char* names[] = {"cpus", "mem"};
    for (int i = 0; i < 2; ++i) {
      const double guaranteed = guarantee.scalar(names[i]);
      if (guaranteed > 0 && need[i] > guaranteed + 1e-6) {
        std::ostringstream reason;
        reason << "-n " << job_.ranks << " needs " << names[i] << " " << need[i]
               << ", more than role '" << job_.shape.role << "' is guaranteed ("
               << guarantee.toString() << "); lower -n, --cpus_per_rank or --mem_per_rank, "
               << "or raise the role's guarantee (the master's --guarantees)";
        fail(reason.str());
        changed_.notify_all();
        return;
      }
    }
    if (!guarantee.empty()) {
      log("role '" + job_.shape.role + "' is guaranteed " + guarantee.toString() +
          "; the gang fits within it");
    }
  }
  phase_ = Phase::kGathering;
  started_ = Clock::now();
}

void MpiScheduler::reregistered(SchedulerDriver* driver, const MasterInfo&) {
  std::lock_guard lock(mutex_);
  schedulerDriver_ = driver;
  log("re-registered with the master");
}

void MpiScheduler::disconnected(SchedulerDriver*) {
  std::lock_guard lock(mutex_);
  log("disconnected from the master; the driver is reconnecting");
}

void MpiScheduler::resourceOffers(SchedulerDriver* driver, const std::vector<Offer>& offers) {
  std::lock_guard lock(mutex_);
  schedulerDriver_ = driver;
  for (const Offer& offer : offers) {
    switch (phase_) {
      case Phase::kGathering:
        // Each offer may complete the gang; the rest of the batch is then
        // declined below.
        holdOffer(offer);
        tryToStartGang();
        break;
      case Phase::kBackingOff: {
        auto left = std::chrono::duration<double>(backOffUntil_ - Clock::now()).count();
        driver->declineOffer(offer.id(), refuse(std::max(1.0, left)));
        break;
      }
      default:
        driver->declineOffer(offer.id(), refuse(kRefuseWhileRunningSeconds));
        break;
    }
  }
  changed_.notify_all();
}

void MpiScheduler::holdOffer(const Offer& offer) {
  Resources before;
  for (const auto& [id, held] : held_) {
    if (held.slave_id().value() == offer.slave_id().value()) before += Resources(held.resources());
  }
  Resources after = before + Resources(offer.resources());
  if (ranksThatFit(after, job_.shape) <= ranksThatFit(before, job_.shape)) {
    schedulerDriver_->declineOffer(offer.id(), refuse(kRefuseUnusableSeconds));
    return;
  }
  held_[offer.id().value()] = offer;
  if (!holdingSince_) holdingSince_ = Clock::now();
  log("holding offers for " + std::to_string(ranksHeld()) + " of " +
      std::to_string(job_.ranks) + " ranks (" + offer.hostname() + " fits " +
      std::to_string(ranksThatFit(after, job_.shape)) + ")");
}

int MpiScheduler::ranksHeld() const {
  std::map<std::string, Resources> bySlave;
  for (const auto& [id, offer] : held_) {
    bySlave[offer.slave_id().value()] += Resources(offer.resources());
  }
  int ranks = 0;
  for (const auto& [slave, resources] : bySlave) ranks += ranksThatFit(resources, job_.shape);
  return ranks;
}

void MpiScheduler::tryToStartGang() {
  std::map<std::string, NodeCapacity> nodes;
  std::map<std::string, Resources> resources;
  for (const auto& [id, offer] : held_) {
    NodeCapacity& node = nodes[offer.slave_id().value()];
    node.slaveId = offer.slave_id().value();
    node.hostname = offer.hostname();
    resources[node.slaveId] += Resources(offer.resources());
  }
  std::vector<NodeCapacity> capacities;
  for (auto& [slaveId, node] : nodes) {
    node.ranks = ranksThatFit(resources[slaveId], job_.shape);
    capacities.push_back(node);
  }
  std::vector<NodeShare> placement = placeGang(capacities, job_.ranks);
  if (placement.empty()) return;

  // Offers of nodes the gang does not use go back now.
  std::set<std::string> used;
  for (const NodeShare& share : placement) used.insert(share.slaveId);
  for (auto it = held_.begin(); it != held_.end();) {
    if (used.count(it->second.slave_id().value()) == 0) {
      schedulerDriver_->declineOffer(it->second.id(), refuse(kRefuseWhileRunningSeconds));
      it = held_.erase(it);
    } else {
      ++it;
    }
  }
  startMpiexec(std::move(placement));
}

void MpiScheduler::startMpiexec(std::vector<NodeShare> placement) {
  placement_ = std::move(placement);
  phase_ = Phase::kStarting;
  startingSince_ = Clock::now();
  // The main thread forks it (spawnMpiexec()): mpiexec dies with the
  // thread that forked it (PR_SET_PDEATHSIG), and only the main thread is
  // sure to live as long as mesos-mpirun.
  spawnPending_ = true;
  changed_.notify_all();
  std::string where;
  for (const NodeShare& share : placement_) {
    where += (where.empty() ? "" : ", ") + share.hostname + " (" + std::to_string(share.ranks) +
             (share.ranks == 1 ? " rank)" : " ranks)");
  }
  log("holding a gang of " + std::to_string(job_.ranks) + " ranks on " + where +
      "; starting mpiexec");
}

void MpiScheduler::spawnMpiexec() {
  spawnPending_ = false;
  if (phase_ != Phase::kStarting) return;
  std::vector<std::string> arguments = {"-launcher", "manual"};
  if (!job_.launchHost.empty()) {
    arguments.push_back("-localhost");
    arguments.push_back(job_.launchHost);
  }
  arguments.push_back("-hosts");
  arguments.push_back(hydraHostList(placement_));
  arguments.push_back("-n");
  arguments.push_back(std::to_string(job_.ranks));
  arguments.insert(arguments.end(), job_.program.begin(), job_.program.end());

  const int attempt = ++attempt_;
  Mpiexec::Callbacks callbacks;
  callbacks.onProxies = [this, attempt](std::vector<std::vector<std::string>> proxies) {
    std::lock_guard lock(mutex_);
    launchProxies(attempt, std::move(proxies));
    changed_.notify_all();
  };
  callbacks.onFailure = [this, attempt] {
    std::lock_guard lock(mutex_);
    hydraReportedFailure(attempt);
    changed_.notify_all();
  };
  callbacks.onExit = [this, attempt](int status) {
    std::lock_guard lock(mutex_);
    mpiexecExited(attempt, status);
    changed_.notify_all();
  };
  auto started = Mpiexec::start(job_.mpiexec, arguments, std::move(callbacks));
  if (!started) {
    fail("cannot start mpiexec (" + job_.mpiexec + "): " + started.error().message);
    return;
  }
  current_ = started.value().get();
  mpiexecs_.push_back(std::move(started).value());
  ++runningMpiexecs_;
}

void MpiScheduler::launchProxies(int attempt, std::vector<std::vector<std::string>> proxies) {
  if (attempt != attempt_ || phase_ != Phase::kStarting) return;
  if (proxies.size() != placement_.size()) {
    fail("mpiexec asked for " + std::to_string(proxies.size()) + " proxies for " +
         std::to_string(placement_.size()) + " nodes");
    return;
  }
  // Every node's offers must still be held; one rescinded meanwhile sends
  // the gang back to gathering before anything is launched.
  std::vector<std::vector<const Offer*>> offers(placement_.size());
  for (size_t i = 0; i < placement_.size(); ++i) {
    for (const auto& [id, offer] : held_) {
      if (offer.slave_id().value() == placement_[i].slaveId) offers[i].push_back(&offer);
    }
    Resources total;
    for (const Offer* offer : offers[i]) total += Resources(offer->resources());
    if (ranksThatFit(total, job_.shape) < placement_[i].ranks) {
      log("an offer of " + placement_[i].hostname + " was rescinded before the launch; " +
          "gathering again");
      current_->kill();
      current_ = nullptr;
      ++attempt_;
      placement_.clear();
      phase_ = Phase::kGathering;
      tryToStartGang();
      return;
    }
  }

  for (size_t i = 0; i < placement_.size(); ++i) {
    const NodeShare& share = placement_[i];
    Resources total;
    std::vector<OfferID> offerIds;
    for (const Offer* offer : offers[i]) {
      total += Resources(offer->resources());
      offerIds.push_back(offer->id());
    }
    const std::string ranks = std::to_string(share.firstRank) + "-" +
                              std::to_string(share.firstRank + share.ranks - 1);
    TaskInfo task;
    task.set_name("mpi ranks " + ranks + " on " + share.hostname);
    task.mutable_task_id()->set_value("ranks-" + ranks);
    task.mutable_slave_id()->set_value(share.slaveId);
    *task.mutable_resources() = resourcesFor(total, job_.shape, share.ranks).proto();
    CommandInfo* command = task.mutable_command();
    command->set_shell(false);
    command->set_value(job_.proxyWrapper);
    command->add_arguments(job_.proxyWrapper);
    for (const std::string& word : proxies[i]) command->add_arguments(word);
    Environment::Variable* node = command->mutable_environment()->add_variables();
    node->set_name("MESOS_MPI_NODE");
    node->set_value(share.hostname);

    Task record;
    record.share = share;
    tasks_[task.task_id().value()] = record;
    schedulerDriver_->launchTasks(offerIds, {task}, refuse(kRefuseUnusableSeconds));
    for (const Offer* offer : offers[i]) held_.erase(offer->id().value());
  }
  releaseHeldOffers(kRefuseWhileRunningSeconds);
  schedulerDriver_->suppressOffers();
  phase_ = Phase::kRunning;
  log("launched " + std::to_string(placement_.size()) + " Hydra proxies as tasks");
}

void MpiScheduler::hydraReportedFailure(int attempt) {
  if (attempt != attempt_ || current_ == nullptr) return;
  if (phase_ != Phase::kStarting && phase_ != Phase::kRunning) return;
  // Hydra's report (a rank that died, a program that cannot start) is the
  // root cause; what follows (proxies' tasks failing, mpiexec's exit) is
  // its consequence. failure() reads the report once it is complete.
  hydraFirst_ = true;
  fail("Hydra reported: " + current_->report().describe());
}

void MpiScheduler::mpiexecExited(int attempt, int status) {
  --runningMpiexecs_;
  if (attempt == attempt_) {
    lastReport_ = current_ != nullptr ? current_->report() : HydraReport();
    current_ = nullptr;
    mpiexecStatus_ = status;
    if (phase_ == Phase::kStarting) {
      fail("mpiexec exited (" + describeWaitStatus(status) +
           ") before it listed the proxies to start");
    } else if (phase_ == Phase::kRunning) {
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        finishingSince_ = Clock::now();
      } else {
        fail(taskFailure_ ? *taskFailure_
                          : "mpiexec ended with " + describeWaitStatus(status) +
                                " (see its output above)");
      }
    }
  }
  finishIfQuiet();
}

void MpiScheduler::statusUpdate(SchedulerDriver*, const TaskStatus& status) {
  std::lock_guard lock(mutex_);
  auto it = tasks_.find(status.task_id().value());
  if (it == tasks_.end()) return;
  Task& task = it->second;
  if (task.terminal) return;
  task.state = status.state();
  task.terminal = isTerminal(status.state());
  if (job_.verbose) {
    log("task " + status.task_id().value() + " is " + TaskState_Name(status.state()) +
        (status.message().empty() ? "" : ": " + status.message()));
  }
  if (task.terminal && status.state() != TASK_FINISHED) {
    const bool succeeded = mpiexecStatus_ && WIFEXITED(*mpiexecStatus_) &&
                           WEXITSTATUS(*mpiexecStatus_) == 0;
    const std::string what = "task " + describeTask(task) + " ended " +
                             TaskState_Name(status.state()) +
                             (status.message().empty() ? "" : " (" + status.message() + ")");
    if (phase_ == Phase::kTearingDown) {
      // A lost task says something the first failure may not (a node gone);
      // the others end because the gang is being torn down.
      if (status.state() == TASK_LOST) notes_.push_back(what);
    } else if (!succeeded && phase_ == Phase::kRunning && runningMpiexecs_ > 0) {
      // Often the echo of a rank's death that Hydra is about to report:
      // checkTimers() takes it as the failure if Hydra says nothing first.
      if (!taskFailure_) {
        taskFailure_ = what;
        taskFailureSince_ = Clock::now();
      }
    } else if (!succeeded) {
      fail(what);
    }
  }
  finishIfQuiet();
  changed_.notify_all();
}

void MpiScheduler::frameworkMessage(SchedulerDriver*, const ExecutorID&, const SlaveID&,
                                    const std::string&) {}

void MpiScheduler::slaveLost(SchedulerDriver*, const SlaveID& slaveId) {
  std::lock_guard lock(mutex_);
  for (auto it = held_.begin(); it != held_.end();) {
    it = it->second.slave_id().value() == slaveId.value() ? held_.erase(it) : std::next(it);
  }
  for (auto& [id, task] : tasks_) {
    if (task.share.slaveId == slaveId.value() && !task.terminal) {
      const std::string what = "slave " + task.share.hostname + " (" + slaveId.value() +
                               ") was lost while it ran " + describeTask(task);
      if (phase_ == Phase::kTearingDown) notes_.push_back(what);
      fail(what);
      // Its tasks are gone with it; their updates may never come.
      task.terminal = true;
      task.state = TASK_LOST;
    }
  }
  finishIfQuiet();
  changed_.notify_all();
}

void MpiScheduler::executorLost(SchedulerDriver*, const ExecutorID&, const SlaveID&, int) {}

void MpiScheduler::error(SchedulerDriver*, const std::string& message) {
  std::lock_guard lock(mutex_);
  driverAborted_ = true;
  fail("the scheduler driver failed: " + message);
  finishIfQuiet();
  changed_.notify_all();
}

void MpiScheduler::offerRescinded(SchedulerDriver*, const OfferID& offerId) {
  std::lock_guard lock(mutex_);
  held_.erase(offerId.value());
  if (held_.empty() && phase_ == Phase::kGathering) holdingSince_.reset();
}

void MpiScheduler::releaseHeldOffers(double refuseSeconds) {
  if (schedulerDriver_ != nullptr && !driverAborted_) {
    for (const auto& [id, offer] : held_) {
      schedulerDriver_->declineOffer(offer.id(), refuse(refuseSeconds));
    }
  }
  held_.clear();
  holdingSince_.reset();
}

void MpiScheduler::checkTimers(Clock::time_point now) {
  if (phase_ == Phase::kRegistering && job_.waitLimit.count() > 0 &&
      now - started_ >= job_.waitLimit) {
    fail("could not register with the master within " + seconds(job_.waitLimit) +
         " (--timeout); is a master running at --master?");
    return;
  }
  const bool gathering = phase_ == Phase::kGathering || phase_ == Phase::kBackingOff;
  if (gathering && job_.waitLimit.count() > 0 && now - started_ >= job_.waitLimit) {
    fail("could not gather " + std::to_string(job_.ranks) + " ranks (cpus " +
         std::to_string(job_.shape.cpus) + ", mem " + std::to_string(job_.shape.mem) +
         " MB each) within " + seconds(job_.waitLimit) +
         " (--timeout); the cluster may be too small or busy");
    return;
  }
  switch (phase_) {
    case Phase::kGathering:
      if (holdingSince_ && now - *holdingSince_ >= job_.gangTimeout) {
        // Let go, so that a gang holding the rest can complete; wait a
        // random while (longer after each release) before trying again, so
        // that two gangs do not keep taking turns at holding halves.
        ++releases_;
        std::uniform_real_distribution<double> jitter(0.5, 1.5);
        const double factor = std::min(1 << std::min(releases_ - 1, 3), 8) * jitter(random_);
        auto backOff = std::chrono::duration_cast<std::chrono::milliseconds>(
            job_.gangTimeout * factor);
        log("held offers for " + std::to_string(ranksHeld()) + " of " +
            std::to_string(job_.ranks) + " ranks for " + seconds(job_.gangTimeout) +
            " (--gang_timeout); releasing them and backing off for " + seconds(backOff));
        releaseHeldOffers(std::chrono::duration<double>(backOff).count());
        backOffUntil_ = now + backOff;
        phase_ = Phase::kBackingOff;
      }
      break;
    case Phase::kBackingOff:
      if (now >= backOffUntil_) {
        phase_ = Phase::kGathering;
        if (schedulerDriver_ != nullptr) schedulerDriver_->reviveOffers();
      }
      break;
    case Phase::kStarting:
      if (now - startingSince_ >= kProxyListTimeout) {
        fail("mpiexec did not list its proxies within " +
             std::to_string(std::chrono::seconds(kProxyListTimeout).count()) + " s");
      }
      break;
    case Phase::kRunning:
      if (taskFailure_ && now - taskFailureSince_ >= kHydraReportGrace) {
        fail(*taskFailure_);
        break;
      }
      if (finishingSince_ && now - *finishingSince_ >= kTaskEndBound) {
        log("the MPI job finished but some proxy tasks did not end within " +
            std::to_string(std::chrono::seconds(kTaskEndBound).count()) +
            " s; leaving them to the master");
        phase_ = Phase::kDone;
      }
      break;
    case Phase::kTearingDown:
      if (!mpiexecKilled_ && now - tearDownSince_ >= kMpiexecKillGrace) {
        mpiexecKilled_ = true;
        for (const auto& mpiexec : mpiexecs_) mpiexec->kill();
      }
      if (now - tearDownSince_ >= kTaskEndBound && runningMpiexecs_ == 0) {
        log("some tasks did not report their end within " +
            std::to_string(std::chrono::seconds(kTaskEndBound).count()) +
            " s; leaving them to the master");
        phase_ = Phase::kDone;
      }
      break;
    default:
      break;
  }
}

void MpiScheduler::fail(const std::string& reason) {
  if (failure_.empty()) failure_ = reason;
  if (phase_ == Phase::kTearingDown || phase_ == Phase::kDone) return;
  log("failing the job: " + reason);
  phase_ = Phase::kTearingDown;
  tearDownSince_ = Clock::now();
  releaseHeldOffers(kRefuseUnusableSeconds);
  if (schedulerDriver_ != nullptr && !driverAborted_) {
    for (const auto& [id, task] : tasks_) {
      if (task.terminal) continue;
      TaskID taskId;
      taskId.set_value(id);
      schedulerDriver_->killTask(taskId);
    }
  }
  for (const auto& mpiexec : mpiexecs_) mpiexec->terminate();
  finishIfQuiet();
}

void MpiScheduler::finishIfQuiet() {
  if (runningMpiexecs_ > 0) return;
  if (phase_ == Phase::kTearingDown && (allTasksTerminal() || driverAborted_)) {
    phase_ = Phase::kDone;
  } else if (phase_ == Phase::kRunning && finishingSince_ && allTasksTerminal()) {
    phase_ = Phase::kDone;
  }
}

bool MpiScheduler::allTasksTerminal() const {
  return std::all_of(tasks_.begin(), tasks_.end(),
                     [](const auto& entry) { return entry.second.terminal; });
}

std::string MpiScheduler::describeTask(const Task& task) const {
  const NodeShare& share = task.share;
  std::string ranks = share.ranks == 1
                          ? "rank " + std::to_string(share.firstRank)
                          : "ranks " + std::to_string(share.firstRank) + "-" +
                                std::to_string(share.firstRank + share.ranks - 1);
  return "'" + std::string("ranks-") + std::to_string(share.firstRank) + "-" +
         std::to_string(share.firstRank + share.ranks - 1) + "' (" + ranks + " on " +
         share.hostname + ")";
}

void MpiScheduler::log(const std::string& line) const {
  std::fprintf(stderr, "mesos-mpirun: %s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace mesos::frameworks::mpi
