#include "zk/contender.hpp"

#include <glog/logging.h>
#include <zookeeper/zookeeper.h>

#include "process/dispatch.hpp"
#include "zk/masters.hpp"

namespace mesos::internal::zk {

using process::Nothing;

LeaderContender::LeaderContender(process::Pid<ZooKeeper> zk, std::string path, MasterInfo info,
                                 std::shared_ptr<Lease> lease,
                                 std::chrono::milliseconds sessionTimeout)
    : Actor(process::generateId("contender")),
      zk_(std::move(zk)),
      path_(std::move(path)),
      info_(std::move(info)),
      token_("\"id\":\"" + info_.id() + "\""),
      lease_(std::move(lease)),
      sessionTimeout_(sessionTimeout),
      granted_(sessionTimeout) {}

void LeaderContender::initialize() {
  process::Pid<LeaderContender> me(self());
  std::function<void(ZooKeeper::Session, int64_t)> listener =
      [me](ZooKeeper::Session session, int64_t) {
        if (session == ZooKeeper::Session::kExpired) {
          process::dispatch(me, &LeaderContender::sessionExpired);
        }
      };
  process::dispatch(zk_, &ZooKeeper::listen, std::move(listener));
  join();
}

void LeaderContender::sessionExpired() {
  if (gone_) return;
  if (leading_) {
    lose("its ZooKeeper session expired");
    return;
  }
  // A standby's member went with the session: join again (at the end of
  // the line).
  LOG(WARNING) << "ZooKeeper session expired before this master was elected; joining the "
               << "masters' group again";
  member_.reset();
  join();
}

void LeaderContender::join() {
  uint64_t attempt = ++joins_;
  process::dispatch(zk_, &ZooKeeper::join, path_, std::string(kMasterLabel),
                    masterInfoJson(info_), token_)
      .then(self(), [this, attempt](const Result<ZooKeeper::Member>& member) {
        if (gone_ || attempt != joins_) return;
        if (!member.ok()) {
          LOG(WARNING) << "Cannot join the masters' group " << path_ << " in ZooKeeper: "
                       << member.error().message << "; trying again";
          delay(std::chrono::milliseconds(200), [this, attempt] {
            if (attempt == joins_) join();
          });
          return;
        }
        member_ = *member;
        LOG(INFO) << "This master contends for leadership as " << member_->path;
        watch();
      });
}

void LeaderContender::watch() {
  uint64_t attempt = joins_;
  process::dispatch(zk_, &ZooKeeper::leader, path_)
      .then(self(), [this, attempt](const Result<ZooKeeper::Leading>& leading) {
        if (gone_ || attempt != joins_ || !member_) return;
        if (!leading.ok()) {
          delay(std::chrono::milliseconds(100), [this, attempt] {
            if (attempt == joins_) watch();
          });
          return;
        }
        bool ours = leading->member == member_->path;
        if (leading_ && !ours) {
          lose(leading->leader ? "another master leads now (" + leading->leader->pid() + ")"
                               : "its node " + member_->path + " is gone");
          return;
        }
        if (!leading_ && ours) {
          // Elected: hold a lease before saying so.
          leading_ = true;
          renew();
        }
        leading->changed.then(self(), [this, attempt] {
          if (attempt == joins_) watch();
        });
      });
}

// Reads the member's own node; an answer to a request sent at `sent`
// proves the session lives until sent + T. The first valid lease elects.
// T is the timeout the servers granted (read first: they may grant less
// than was asked).
void LeaderContender::renew() {
  if (gone_) return;
  if (lease_->until().time_since_epoch().count() != 0 && Lease::Clock::now() >= lease_->until()) {
    lose("no answer from ZooKeeper for longer than 80% of the session timeout (" +
         std::to_string(granted_.count()) + " ms)");
    return;
  }
  process::dispatch(zk_, &ZooKeeper::negotiatedTimeout)
      .then(self(), [this](const std::chrono::milliseconds& granted) {
        granted_ = std::min(sessionTimeout_, granted);
        renewWithin();
      });
}

void LeaderContender::renewWithin() {
  if (gone_) return;
  auto sent = Lease::Clock::now();
  process::dispatch(zk_, &ZooKeeper::get, member_->path)
      .then(self(), [this, sent](const Result<std::string>& data) {
        if (gone_) return;
        if (!data.ok()) {
          if (data.error().code == ZNONODE) lose("its node " + member_->path + " is gone");
          return;  // the session is away: the next renewal tries again
        }
        if (data->find(token_) == std::string::npos) {
          lose("its node " + member_->path + " holds another master's data");
          return;
        }
        lease_->extend(sent + granted_ * 8 / 10);
        if (elected_.set(Nothing{})) {
          LOG(INFO) << "Elected the leading master (" << member_->path << ")";
        }
      });
  delay(std::max(std::chrono::milliseconds(10), granted_ / 4), [this] { renew(); });
}

void LeaderContender::lose(const std::string& why) {
  if (gone_) return;
  gone_ = true;
  lease_->end(why);
  LOG(ERROR) << "Lost leadership: " << why;
  lost_.set(why);
}

}  // namespace mesos::internal::zk
