// High availability with --zk (docs/high-availability.md): contending for
// leadership, the standby's behaviour, the lease that stops a leader that
// lost its session before it acts again, and what a newly elected master
// does while slaves and frameworks come back (allocation held, task
// reconciliation waiting for slaves, frameworks known only from slaves'
// reports kept for their failover timeout).
#include <glog/logging.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "master/master.hpp"
#include "process/dispatch.hpp"

namespace mesos::internal::master {

using allocator::AllocatorActor;
using process::dispatch;

namespace {

double seconds(process::Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

void Master::contend() {
  auto url = zk::parseUrl(*flags_.zk);
  CHECK(url.ok()) << "--zk: " << url.error().message;  // validated with the flags
  auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(flags_.zk_session_timeout);
  lease_ = std::make_shared<zk::Lease>();
  zk_ = runtime().spawn<zk::ZooKeeper>(process::generateId("zookeeper"), *url, timeout);
  contender_ =
      runtime().spawn<zk::LeaderContender>(zk_.pid(), url->path, info_, lease_, timeout);
  detector_ = zk::MasterDetector::zookeeper(runtime(), zk_.pid(), url->path);
  // Nothing is offered until re-registration settles after the election.
  dispatch(allocator_.pid(), &AllocatorActor::hold, true);
  LOG(INFO) << "Master " << info_.id() << " contends for leadership at " << url->toString()
            << " (session timeout " << timeout.count() << " ms); a standby until elected";
  dispatch(contender_.pid(), &zk::LeaderContender::elected).then(self(), [this] { elected(); });
  // Losing it ends the lease first, so admit() refuses this continuation
  // and stops the master itself; the event is what makes it look.
  dispatch(contender_.pid(), &zk::LeaderContender::lost)
      .then(self(), [this](const std::string& why) { lostLeadership(why); });
  watchLeader(std::nullopt);
}

void Master::watchLeader(std::optional<MasterInfo> previous) {
  detector_->detect(previous).then(self(), [this](const std::optional<MasterInfo>& leader) {
    if (!leading_) {
      leader_ = leader;
      lastState_.reset();  // /state names the leader
      if (leader) prefetchRegistry();
    }
    watchLeader(leader);
  });
}

void Master::prefetchRegistry() {
  if (leading_ || lost_ || prefetching_ || flags_.registryKind() != "zookeeper") return;
  prefetching_ = true;
  dispatch(registrar_.pid(), &registrar::Registrar::prefetch)
      .then(self(), [this](const Result<size_t>& read) {
        if (leading_ || lost_) return;
        if (!read) {
          VLOG(1) << "Reading the registry ahead failed: " << read.error().message;
        } else if (read.value() != prefetched_) {
          LOG(INFO) << "Read the registry ahead: " << read.value() << " agents";
          prefetched_ = read.value();
        }
        delay(kPrefetchInterval, [this] {
          prefetching_ = false;
          prefetchRegistry();
        });
      });
}

bool Master::admit() {
  if (lost_) return false;
  if (!leading_ || lease_ == nullptr || lease_->valid()) return true;
  std::string why = lease_->reason();
  lostLeadership(why.empty() ? "no word from ZooKeeper within its lease (80% of the session "
                               "timeout)"
                             : why);
  return false;
}

void Master::elected() {
  if (lost_ || leading_) return;
  leading_ = true;
  electedTime_ = now();
  leader_ = info_;
  lastState_.reset();  // /state names the leader
  standbyLogged_.clear();
  windowOpen_ = true;
  LOG(INFO) << "Master " << info_.id() << " at " << self() << " is the leading master; "
            << "it reads the registry, offers start in " << seconds(flags_.allocation_settle_delay)
            << " s, reconciliation waits up to " << seconds(flags_.slave_reregister_timeout)
            << " s for slaves not yet back";
  delay(flags_.allocation_settle_delay,
        [this] { dispatch(allocator_.pid(), &AllocatorActor::hold, false); });
  delay(flags_.slave_ping_timeout, [this] { pingSlaves(); });
  // Nothing is handled until the registry is read (partitions.cpp), which
  // also opens the re-registration window; what came while this master was
  // a standby waits with the rest.
  recoverRegistry();
  auto fresh = runtime().clock().now() - 2 * flags_.zk_session_timeout;
  size_t kept = 0;
  for (auto& [at, call] : standbyHeld_) {
    if (at < fresh) continue;
    hold(std::move(call));
    ++kept;
  }
  LOG_IF(INFO, kept > 0) << "Handling " << kept
                         << " messages that came while this master was a standby";
  standbyHeld_.clear();
  std::erase_if(keptRegistrations_, [](const auto& kept) { return kept.second.expired(); });
}

void Master::lostLeadership(const std::string& why) {
  if (lost_) return;
  lost_ = true;
  leading_ = false;
  standbyHeld_.clear();
  keptRegistrations_.clear();
  LOG(ERROR) << "Master " << info_.id() << " is no longer the leading master (" << why
             << "); it stops acting now";
  if (lostLeadershipAction_) {
    lostLeadershipAction_(why);
    return;
  }
  LOG(ERROR) << "Exiting with status 1 (a supervisor restarts it as a standby)";
  google::FlushLogFiles(google::GLOG_INFO);
  std::_Exit(1);
}

bool Master::standby(const UPID& from, const std::string& what, std::function<void()> call) {
  if (lost_ || !zk_) {
    dropAsStandby(from, what);
    return false;
  }
  auto now = runtime().clock().now();
  while (!standbyHeld_.empty() &&
         standbyHeld_.front().first < now - 2 * flags_.zk_session_timeout) {
    standbyHeld_.pop_front();
  }
  if (standbyHeld_.size() >= kMaxStandbyHeld) {
    dropAsStandby(from, what);
    return false;
  }
  standbyHeld_.emplace_back(now, std::move(call));
  if (standbyLogged_.count(from) != 0) return true;
  if (standbyLogged_.size() >= 10000) standbyLogged_.clear();
  standbyLogged_.insert(from);
  LOG(WARNING) << "Keeping " << what << " from " << from << ": this master is a standby ("
               << (leader_ ? "the leader is " + leader_->pid() : std::string("no leader yet"))
               << "); it is handled if this master is elected within twice the session "
                  "timeout, dropped otherwise; later messages from "
               << from << " are kept without a word";
  return true;
}

void Master::dropAsStandby(const UPID& from, const std::string& what) {
  if (lost_) return;
  if (standbyLogged_.count(from) != 0) return;
  if (standbyLogged_.size() >= 10000) standbyLogged_.clear();
  standbyLogged_.insert(from);
  LOG(WARNING) << "Dropping " << what << " from " << from << ": this master is a standby ("
               << (leader_ ? "the leader is " + leader_->pid() : std::string("no leader yet"))
               << "); later messages from " << from << " are dropped without a word";
}

void Master::deferReconciliation(const Framework& f, const TaskID& taskId,
                                 const std::optional<SlaveID>& slaveId) {
  Deferred deferred{f.id.value(), taskId};
  VLOG(1) << "Reconciliation of task " << taskId.value() << " of framework " << f.id.value()
          << " waits for " << (slaveId ? "slave " + slaveId->value() : std::string("its slave"));
  if (slaveId && !slaveId->value().empty()) {
    deferredBySlave_[slaveId->value()].push_back(std::move(deferred));
  } else {
    deferredByTask_[f.id.value() + " " + taskId.value()] = std::move(deferred);
  }
}

void Master::answerDeferred(const Slave& s) {
  auto it = deferredBySlave_.find(s.id.value());
  if (it == deferredBySlave_.end()) return;
  std::vector<Deferred> deferred = std::move(it->second);
  deferredBySlave_.erase(it);
  for (const Deferred& d : deferred) {
    Framework* f = framework(d.frameworkId);
    if (f == nullptr) continue;
    TaskRecord* task = registry_.task(d.frameworkId, d.taskId.value());
    if (task != nullptr && task->slave == &s) {
      sendReconciliation(*f, *task);
    } else {
      sendMasterUpdate(*f, s.id, d.taskId, stateFor(*f, TASK_GONE),
                       TaskStatus::REASON_RECONCILIATION,
                       "Reconciliation: the task's slave re-registered without it");
    }
  }
}

void Master::answerDeferred(const TaskRecord& task) {
  auto it = deferredByTask_.find(task.task.framework_id().value() + " " +
                                 task.task.task_id().value());
  if (it == deferredByTask_.end()) return;
  Framework* f = framework(it->second.frameworkId);
  deferredByTask_.erase(it);
  if (f != nullptr) sendReconciliation(*f, task);
}

void Master::reregistrationWindowClosed() {
  windowOpen_ = false;
  // The agents the registry lists that are not back become unreachable
  // (partitions.cpp), which answers the reconciliations that wait for them.
  markRecoveredUnreachable();
  if (lost_) return;
  size_t answered = 0;
  auto unknown = [&](const Deferred& d, const SlaveID& slaveId) {
    Framework* f = framework(d.frameworkId);
    if (f == nullptr) return;
    answered++;
    sendMasterUpdate(*f, slaveId, d.taskId, stateFor(*f, TASK_UNKNOWN),
                     TaskStatus::REASON_RECONCILIATION,
                     "Reconciliation: the task's slave did not re-register within "
                     "--slave_reregister_timeout of the election");
  };
  for (const auto& [slaveId, deferred] : deferredBySlave_) {
    SlaveID id;
    id.set_value(slaveId);
    for (const Deferred& d : deferred) unknown(d, id);
  }
  for (const auto& [key, d] : deferredByTask_) unknown(d, SlaveID());
  deferredBySlave_.clear();
  deferredByTask_.clear();
  LOG(INFO) << "The re-registration window after the election closed"
            << (answered > 0 ? "; " + std::to_string(answered) + " waiting reconciliations "
                                   "answered"
                             : std::string());
}

void Master::noteReportedFramework(const FrameworkInfo& info) {
  if (!info.has_id() || info.id().value().empty()) return;
  const std::string id = info.id().value();
  Framework* f = registry_.unregisteredFramework(id);
  if (f == nullptr) return;  // registered, or nothing of it here
  if (f->info.name().empty()) registry_.describe(*f, info);
  if (!reportedFrameworks_.insert(id).second) return;
  double timeout = info.has_failover_timeout() ? info.failover_timeout()
                                               : seconds(flags_.framework_failover_timeout);
  // Counted from the election (or from the start, without --zk), and never
  // shorter than the re-registration window.
  double keep = std::max(timeout, seconds(flags_.slave_reregister_timeout));
  double wait = std::clamp(keep - (now() - electedTime_), 0.0, 10.0 * 365 * 86400);
  LOG(INFO) << "Framework " << id << " (" << info.name() << ") is known only from slaves' "
            << "reports; its tasks are killed unless it re-registers within " << wait << " s";
  delay(std::chrono::duration_cast<process::Duration>(std::chrono::duration<double>(wait)),
        [this, id] { reportedFrameworkExpired(id); });
}

void Master::reportedFrameworkExpired(const std::string& id) {
  reportedFrameworks_.erase(id);
  Framework* f = registry_.unregisteredFramework(id);
  if (f == nullptr) return;  // it came back, or holds nothing any more
  LOG(WARNING) << "Framework " << id << " did not re-register within its failover timeout "
               << "after the election; shutting it down on its slaves";
  const FrameworkID frameworkId = f->id;
  shutDownOnSlaves(*f, "Framework did not re-register after a master failover");
  dispatch(allocator_.pid(), &AllocatorActor::removeFramework, frameworkId);
}

}  // namespace mesos::internal::master
