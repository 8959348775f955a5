// ZooKeeper: one session with a ZooKeeper ensemble, as an actor.
//
// The C client (libzookeeper_mt) runs threads of its own; its watchers and
// completions only post events to this actor, which owns every piece of
// state. Calls (by dispatch from other actors) return futures completed on
// this actor's turn, with a Result whose Error::code is the client's
// return code (ZNONODE, ZNODEEXISTS, ZCONNECTIONLOSS, ...).
//
// Connection loss: the client reconnects by itself within the session
// timeout. Calls that are safe to repeat (get, children, remove, making a
// path, creating a node that is not sequential) are issued again once the
// session is connected; a sequential create is not (a lost answer may hide
// a node that was made), and fails with ZCONNECTIONLOSS for the caller to
// look for its node.
//
// Expiry: the session's ephemeral nodes are gone. Listeners hear it, calls
// waiting for a connection fail with ZSESSIONEXPIRED, and a new session is
// made at once (listeners then hear it connect, with a new session id).
//
// The client's log goes to glog (ERROR and WARN as warnings, the rest at
// VLOG(1)).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mesos.pb.h"
#include "mesos/result.hpp"
#include "process/actor.hpp"
#include "process/future.hpp"
#include "zk/url.hpp"

typedef struct _zhandle zhandle_t;

namespace mesos::internal::zk {

class ZooKeeper : public process::Actor {
 public:
  enum class Session { kConnected, kDisconnected, kExpired };

  // The children of a node, and a future that completes (once) when they
  // change, the node goes, or the session expires.
  struct Children {
    std::vector<std::string> names;
    process::Future<process::Nothing> changed;
  };

  ZooKeeper(std::string id, Url url, std::chrono::milliseconds sessionTimeout);
  ~ZooKeeper() override;

  // `listener` runs on this actor at every change of the session (with the
  // session's id); a listener added while connected hears that at once.
  void listen(std::function<void(Session session, int64_t sessionId)> listener);

  // `flags`: ZOO_EPHEMERAL, ZOO_SEQUENCE (zookeeper.h). The path made.
  process::Future<Result<std::string>> create(std::string path, std::string data, int flags);
  // The node's data; ZNONODE when there is none.
  process::Future<Result<std::string>> get(std::string path);
  process::Future<Result<Children>> children(std::string path);
  // Whether there was a node to remove.
  process::Future<Result<bool>> remove(std::string path);
  // Makes `path` and its parents (persistent, empty) where missing.
  process::Future<Result<process::Nothing>> createPath(std::string path);

  // Versioned data, for writers that must not overwrite each other (the
  // master's registry, master/registrar/): a node's data with its version,
  // and writes that fail with ZBADVERSION unless the node is at `version`
  // (-1: any version).
  struct Versioned {
    std::string data;
    int32_t version = 0;
  };
  process::Future<Result<Versioned>> getVersioned(std::string path);
  // The node's version alone (its data is not sent); ZNONODE when there is
  // none.
  process::Future<Result<int32_t>> version(std::string path);
  // The node's new version.
  process::Future<Result<int32_t>> set(std::string path, std::string data, int32_t version);
  // One step of a transaction: a check of a node's version, a write, or the
  // creation of a persistent node.
  struct Op {
    enum class Kind { kCheck, kSet, kCreate };
    Kind kind = Kind::kCheck;
    std::string path;
    std::string data;
    int32_t version = -1;
  };
  // All of `ops` or none (ZooKeeper's multi): fails with the code of the
  // first step that failed. Issued again after a connection loss, so the
  // steps must be safe to repeat (a check and writes of whole nodes are).
  process::Future<Result<process::Nothing>> multi(std::vector<Op> ops);

  // Group membership (zk/group.cpp), Apache Mesos's layout: the members of
  // the group at `path` are its ephemeral sequential children
  // "<label>_<10-digit sequence>" (masters: "json.info"), in order of
  // sequence; the lowest leads.
  struct Member {
    uint64_t sequence = 0;
    std::string path;  // "<group>/<label>_<sequence>"
  };
  struct Members {
    std::vector<Member> members;  // by sequence
    process::Future<process::Nothing> changed;
  };
  // Joins with `data`, which holds `token` (a string no other member's
  // data holds: it finds this member's node again when the answer to its
  // creation was lost, or when it joins twice). Makes the group's path
  // where missing. The member ends with the session (or leave()).
  process::Future<Result<Member>> join(std::string path, std::string label, std::string data,
                                       std::string token);
  process::Future<Result<bool>> leave(const Member& member) { return remove(member.path); }
  process::Future<Result<Members>> members(std::string path, std::string label);

  // The leading master of the group of masters at `path` (zk/masters.hpp;
  // the path made where missing): none while there is no member; with its member's path and a future
  // that completes when the members change. Members whose data is not
  // MasterInfo JSON are passed over, with a warning once per member.
  struct Leading {
    std::optional<MasterInfo> leader;
    std::string member;
    process::Future<process::Nothing> changed;
  };
  process::Future<Result<Leading>> leader(std::string path);

  // The session's id; 0 before the first connection.
  int64_t sessionId() const { return sessionId_; }
  // The id and password another client needs to take the session over
  // (tests expire a session that way).
  struct SessionKey {
    int64_t id = 0;
    std::string password;
  };
  SessionKey sessionKey() const;
  bool connected() const { return connected_; }
  // The session timeout the servers granted (the one asked for until the
  // first connection). Safe to read from any thread.
  std::chrono::milliseconds negotiatedTimeout() const {
    return std::chrono::milliseconds(negotiated_.load());
  }

 protected:
  void initialize() override;
  void finalize() override;

 public:
  // What a call's completion brought back (filled on the client's thread).
  struct ReplyData {
    std::string value;               // a node's data, or the path made
    std::vector<std::string> names;  // children
    int32_t version = 0;             // the node's, when the call reports it
  };
  // Posted by the client's threads (zookeeper.cpp); not for other callers.
  void onSessionEvent(int state, uint64_t generation);
  void onReplyEvent(uint64_t call, uint64_t generation, int rc,
                    const std::shared_ptr<ReplyData>& reply);
  void onWatchEvent(uint64_t watch);

 private:
  struct Call;
  void open();
  void closeHandle();
  void failAll(int rc);
  uint64_t add(Call call);
  void issue(uint64_t id);
  // A watch whose future completes when the client reports it fired.
  uint64_t addWatch(std::shared_ptr<process::Promise<process::Nothing>>* promise);
  void createStep(std::shared_ptr<process::Promise<Result<process::Nothing>>> promise,
                  std::string path, size_t next);
  struct Joining;
  void joinStep(std::shared_ptr<Joining> joining);
  void notify(Session session);
  process::Future<Result<Leading>> leaderFrom(std::shared_ptr<std::vector<Member>> members,
                                              size_t next,
                                              process::Future<process::Nothing> changed);

  const Url url_;
  const std::chrono::milliseconds sessionTimeout_;
  zhandle_t* handle_ = nullptr;
  uint64_t generation_ = 0;  // of handle_: replies of older handles are dropped
  std::shared_ptr<void> sessionContext_;
  uint64_t failedOpens_ = 0;  // in a row: the servers' names did not resolve
  bool connected_ = false;
  uint64_t connections_ = 0;  // connected events so far
  int64_t sessionId_ = 0;
  uint64_t nextCall_ = 0;
  std::unordered_map<uint64_t, Call> calls_;
  std::deque<uint64_t> waiting_;  // calls to issue once connected
  struct Watch {
    std::shared_ptr<process::Promise<process::Nothing>> promise;
    std::shared_ptr<void> context;  // freed once fired, or with the handle
  };
  std::unordered_map<uint64_t, Watch> watches_;
  uint64_t nextWatch_ = 0;
  std::vector<std::function<void(Session, int64_t)>> listeners_;
  std::atomic<int64_t> negotiated_;
  std::unordered_set<std::string> passedOver_;  // members said not to hold MasterInfo
};

}  // namespace mesos::internal::zk
