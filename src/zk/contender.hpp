// One master contending for leadership of the masters' group in ZooKeeper
// (zk/masters.hpp): it joins with its MasterInfo, is elected when its
// member is the lowest, and from then on holds a lease that says until when
// it may act.
//
// The lease is what keeps two masters from acting at once. ZooKeeper
// expires a session the servers have not heard from for the session
// timeout T, and only then deletes the leader's node and lets a standby
// lead. So when the servers answer a request the leader sent at time t, the
// session lives at least until t + T: the leader renews by reading its own
// node every T/4 and may act until t + 0.8 T after the latest request
// answered (0.2 T spare for clocks and scheduling). A leader that was
// stopped (SIGSTOP, a long pause, a partition) finds its lease lapsed when
// it runs again, before it handles anything: the master checks the lease
// at every event (master.hpp) and stops.
//
// Leadership, once held, is lost for good when the session expires, the
// node is gone, another member leads, or the lease lapses; lost() says
// which. Before election an expired session only means joining again.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "mesos.pb.h"
#include "process/actor.hpp"
#include "process/future.hpp"
#include "zk/zookeeper.hpp"

namespace mesos::internal::zk {

// Until when a leader may act, readable from any thread without a lock.
class Lease {
 public:
  using Clock = std::chrono::steady_clock;
  bool valid() const { return Clock::now().time_since_epoch().count() < until_.load(); }
  Clock::time_point until() const { return Clock::time_point(Clock::duration(until_.load())); }
  // Moves the end later (never earlier).
  void extend(Clock::time_point until) {
    if (ended_) return;
    int64_t value = until.time_since_epoch().count();
    int64_t current = until_.load();
    while (current < value && !until_.compare_exchange_weak(current, value)) {
    }
  }
  // Ends it for good, saying why.
  void end(const std::string& why) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (reason_.empty()) reason_ = why;
    }
    until_ = 0;
    ended_ = true;
  }
  bool ended() const { return ended_.load(); }
  std::string reason() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return reason_;
  }

 private:
  std::atomic<int64_t> until_{0};
  std::atomic<bool> ended_{false};
  mutable std::mutex mutex_;
  std::string reason_;
};

class LeaderContender : public process::Actor {
 public:
  // `info` goes into the member's data; its id finds the member again.
  LeaderContender(process::Pid<ZooKeeper> zk, std::string path, MasterInfo info,
                  std::shared_ptr<Lease> lease, std::chrono::milliseconds sessionTimeout);

  // Completes when this master leads (its lease is valid then).
  process::Future<process::Nothing> elected() const { return elected_.future(); }
  // Completes, with the reason, when leadership is lost after election.
  process::Future<std::string> lost() const { return lost_.future(); }
  void sessionExpired();  // from the session's listener

 protected:
  void initialize() override;

 private:
  void join();
  void watch();
  void renew();
  void renewWithin();
  void lose(const std::string& why);

  const process::Pid<ZooKeeper> zk_;
  const std::string path_;
  const MasterInfo info_;
  const std::string token_;
  const std::shared_ptr<Lease> lease_;
  const std::chrono::milliseconds sessionTimeout_;
  std::optional<ZooKeeper::Member> member_;
  uint64_t joins_ = 0;  // joins so far: a watch of an older membership stops
  bool leading_ = false;
  bool gone_ = false;  // leadership lost: nothing more happens here
  std::chrono::milliseconds granted_;  // the session timeout, as last read
  process::Promise<process::Nothing> elected_;
  process::Promise<std::string> lost_;
};

}  // namespace mesos::internal::zk
