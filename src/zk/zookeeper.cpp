#include "zk/zookeeper.hpp"

#include <glog/logging.h>
#include <zookeeper/zookeeper.h>

#include <utility>

#include "process/dispatch.hpp"

namespace mesos::internal::zk {

using process::Future;
using process::Nothing;
using process::Promise;

struct ZooKeeper::Call {
  bool retry = false;  // issued again after a connection loss
  uint64_t connection = 0;  // connections_ when last issued
  // Issues the call on `handle` with `context` for its completion (the
  // client's return code).
  std::function<int(zhandle_t* handle, void* context)> issue;
  std::function<void(int rc, ReplyData& reply)> done;
};

namespace {

// What the client's callbacks need to reach the actor. A call's context is
// freed by its completion (called exactly once, ZCLOSING at the latest); a
// watch's and the session's by the actor once the handle is closed.
struct CallContext {
  process::UPID actor;
  ZooKeeper* self;
  uint64_t call;
  uint64_t generation;
  // What the client reads or writes until the completion (a transaction's
  // steps and results), freed with the context.
  std::shared_ptr<void> buffers;
};

struct SessionContext {
  process::UPID actor;
  ZooKeeper* self;
  uint64_t generation;
};

struct WatchContext {
  process::UPID actor;
  ZooKeeper* self;
  uint64_t watch;
};

bool lost(int rc) { return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT; }

Error failure(int rc, const std::string& what) {
  return Error{"ZooKeeper " + what + ": " + zerror(rc), rc};
}

void logLine(const char* message) {
  std::string line(message);
  while (!line.empty() && line.back() == '\n') line.pop_back();
  if (line.find("ZOO_ERROR") != std::string::npos || line.find("ZOO_WARN") != std::string::npos) {
    LOG(WARNING) << "zookeeper: " << line;
  } else {
    VLOG(1) << "zookeeper: " << line;
  }
}

// World-readable, all rights to the creator: for nodes made by a session
// with credentials.
ACL kCreatorAllWorldRead[] = {{ZOO_PERM_READ, {const_cast<char*>("world"),
                                                const_cast<char*>("anyone")}},
                               {ZOO_PERM_ALL, {const_cast<char*>("auth"), const_cast<char*>("")}}};
ACL_vector kCreatorAllWorldReadAcl = {2, kCreatorAllWorldRead};

const ACL_vector* aclFor(const Url& url) {
  return url.credentials ? &kCreatorAllWorldReadAcl : &ZOO_OPEN_ACL_UNSAFE;
}

}  // namespace

// The client's threads: post, never touch the actor.
namespace {

void sessionWatcher(zhandle_t*, int type, int state, const char*, void* data) {
  if (type != ZOO_SESSION_EVENT) return;
  auto* context = static_cast<SessionContext*>(data);
  ZooKeeper* self = context->self;
  uint64_t generation = context->generation;
  process::dispatch(context->actor, [self, state, generation] {
    self->onSessionEvent(state, generation);
  });
}

void nodeWatcher(zhandle_t*, int type, int state, const char*, void* data) {
  // Session events reach every watch; only an expiry ends one.
  if (type == ZOO_SESSION_EVENT && state != ZOO_EXPIRED_SESSION_STATE) return;
  auto* context = static_cast<WatchContext*>(data);
  ZooKeeper* self = context->self;
  uint64_t watch = context->watch;
  process::dispatch(context->actor, [self, watch] { self->onWatchEvent(watch); });
}

template <typename Fill>
void reply(int rc, const void* data, Fill fill) {
  std::unique_ptr<const CallContext> context(static_cast<const CallContext*>(data));
  auto result = std::make_shared<ZooKeeper::ReplyData>();
  if (rc == ZOK) fill(*result);
  ZooKeeper* self = context->self;
  uint64_t call = context->call;
  uint64_t generation = context->generation;
  process::dispatch(context->actor, [self, call, generation, rc, result] {
    self->onReplyEvent(call, generation, rc, result);
  });
}

void stringDone(int rc, const char* value, const void* data) {
  reply(rc, data, [value](ZooKeeper::ReplyData& r) {
    if (value != nullptr) r.value = value;
  });
}

void dataDone(int rc, const char* value, int length, const Stat* stat, const void* data) {
  reply(rc, data, [value, length, stat](ZooKeeper::ReplyData& r) {
    if (value != nullptr && length > 0) r.value.assign(value, static_cast<size_t>(length));
    if (stat != nullptr) r.version = stat->version;
  });
}

void statDone(int rc, const Stat* stat, const void* data) {
  reply(rc, data, [stat](ZooKeeper::ReplyData& r) {
    if (stat != nullptr) r.version = stat->version;
  });
}

void stringsDone(int rc, const String_vector* strings, const void* data) {
  reply(rc, data, [strings](ZooKeeper::ReplyData& r) {
    if (strings == nullptr) return;
    for (int32_t i = 0; i < strings->count; ++i) r.names.emplace_back(strings->data[i]);
  });
}

void voidDone(int rc, const void* data) {
  reply(rc, data, [](ZooKeeper::ReplyData&) {});
}

}  // namespace

ZooKeeper::ZooKeeper(std::string id, Url url, std::chrono::milliseconds sessionTimeout)
    : Actor(std::move(id)),
      url_(std::move(url)),
      sessionTimeout_(sessionTimeout),
      negotiated_(sessionTimeout.count()) {}

ZooKeeper::~ZooKeeper() { closeHandle(); }

void ZooKeeper::initialize() {
  zoo_set_debug_level(VLOG_IS_ON(1) ? ZOO_LOG_LEVEL_INFO : ZOO_LOG_LEVEL_WARN);
  open();
}

void ZooKeeper::finalize() {
  failAll(ZCLOSING);
  closeHandle();
}

void ZooKeeper::open() {
  generation_++;
  auto context = std::make_shared<SessionContext>(SessionContext{self(), this, generation_});
  sessionContext_ = context;
  handle_ = zookeeper_init2(url_.servers.c_str(), sessionWatcher,
                            static_cast<int>(sessionTimeout_.count()), nullptr, context.get(), 0,
                            logLine);
  if (handle_ == nullptr) {
    // The URL was checked: a host name that does not resolve (yet), or no
    // memory. Calls wait meanwhile.
    // Said once a minute.
    LOG_IF(WARNING, failedOpens_++ % 60 == 0)
        << "Cannot start a ZooKeeper session with " << url_.toString()
        << " (do its servers' names resolve?); trying again every second";
    sessionContext_.reset();
    delay(std::chrono::seconds(1), [this] {
      if (handle_ == nullptr) open();
    });
    return;
  }
  if (url_.credentials) {
    std::string identity = url_.credentials->user + ":" + url_.credentials->password;
    zoo_add_auth(handle_, "digest", identity.data(), static_cast<int>(identity.size()), nullptr,
                 nullptr);
  }
  failedOpens_ = 0;
  LOG(INFO) << "Connecting to ZooKeeper at " << url_.toString();
}

void ZooKeeper::closeHandle() {
  if (handle_ == nullptr) return;
  // Blocks until the client's threads end; the completions it runs for
  // calls still out (ZCLOSING) post replies of this generation, dropped.
  zookeeper_close(handle_);
  handle_ = nullptr;
  connected_ = false;
  sessionContext_.reset();
  watches_.clear();  // their promises were completed or are dropped with them
}

ZooKeeper::SessionKey ZooKeeper::sessionKey() const {
  if (handle_ == nullptr) return {};
  const clientid_t* id = zoo_client_id(handle_);
  return {id->client_id, std::string(id->passwd, sizeof(id->passwd))};
}

void ZooKeeper::listen(std::function<void(Session, int64_t)> listener) {
  if (connected_) listener(Session::kConnected, sessionId_);
  listeners_.push_back(std::move(listener));
}

void ZooKeeper::notify(Session session) {
  for (const auto& listener : listeners_) listener(session, sessionId_);
}

void ZooKeeper::onSessionEvent(int state, uint64_t generation) {
  if (generation != generation_) return;
  if (state == ZOO_CONNECTED_STATE) {
    connected_ = true;
    connections_++;
    sessionId_ = zoo_client_id(handle_)->client_id;
    if (int granted = zoo_recv_timeout(handle_); granted > 0) negotiated_ = granted;
    LOG(INFO) << "ZooKeeper session 0x" << std::hex << sessionId_ << std::dec << " connected";
    notify(Session::kConnected);
    std::deque<uint64_t> waiting = std::move(waiting_);
    waiting_.clear();
    for (uint64_t id : waiting) issue(id);
  } else if (state == ZOO_EXPIRED_SESSION_STATE) {
    LOG(WARNING) << "ZooKeeper session 0x" << std::hex << sessionId_ << std::dec
                 << " expired; starting a new one";
    connected_ = false;
    failAll(ZSESSIONEXPIRED);
    for (auto& [id, watch] : watches_) watch.promise->set(Nothing{});
    notify(Session::kExpired);
    closeHandle();
    open();
  } else if (state == ZOO_CONNECTING_STATE || state == ZOO_ASSOCIATING_STATE) {
    if (!connected_) return;
    connected_ = false;
    LOG(WARNING) << "ZooKeeper session 0x" << std::hex << sessionId_ << std::dec
                 << " disconnected; reconnecting";
    notify(Session::kDisconnected);
  } else if (state == ZOO_AUTH_FAILED_STATE) {
    LOG(ERROR) << "ZooKeeper refused the credentials of " << url_.toString();
  }
}

void ZooKeeper::failAll(int rc) {
  std::unordered_map<uint64_t, Call> calls = std::move(calls_);
  calls_.clear();
  waiting_.clear();
  for (auto& [id, call] : calls) {
    ReplyData none;
    call.done(rc, none);
  }
}

uint64_t ZooKeeper::add(Call call) {
  uint64_t id = ++nextCall_;
  calls_.emplace(id, std::move(call));
  issue(id);
  return id;
}

void ZooKeeper::issue(uint64_t id) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  if (!connected_ || handle_ == nullptr) {
    waiting_.push_back(id);
    return;
  }
  it->second.connection = connections_;
  auto* context = new CallContext{self(), this, id, generation_, nullptr};
  int rc = it->second.issue(handle_, context);
  if (rc != ZOK) {
    delete context;
    onReplyEvent(id, generation_, rc, std::make_shared<ReplyData>());
  }
}

void ZooKeeper::onReplyEvent(uint64_t id, uint64_t generation, int rc,
                             const std::shared_ptr<ReplyData>& reply) {
  if (generation != generation_) return;
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  if (lost(rc) && it->second.retry) {
    // Connected again since it was issued: at once; else once connected.
    if (connected_ && connections_ > it->second.connection) {
      issue(id);
    } else {
      waiting_.push_back(id);
    }
    return;
  }
  Call call = std::move(it->second);
  calls_.erase(it);
  call.done(rc, *reply);
}

uint64_t ZooKeeper::addWatch(std::shared_ptr<Promise<Nothing>>* promise) {
  uint64_t id = ++nextWatch_;
  Watch& watch = watches_[id];
  watch.promise = std::make_shared<Promise<Nothing>>();
  watch.context = std::make_shared<WatchContext>(WatchContext{self(), this, id});
  *promise = watch.promise;
  return id;
}

void ZooKeeper::onWatchEvent(uint64_t id) {
  auto it = watches_.find(id);
  if (it == watches_.end()) return;
  it->second.promise->set(Nothing{});
  watches_.erase(it);
}

namespace {

// Completes `promise` with the reply's value, or the failure of `what`.
std::function<void(int, ZooKeeper::ReplyData&)> valueDone(
    std::shared_ptr<Promise<Result<std::string>>> promise, std::string what) {
  return [promise, what](int rc, ZooKeeper::ReplyData& reply) {
    if (rc == ZOK) {
      promise->set(Result<std::string>(std::move(reply.value)));
    } else {
      promise->set(Result<std::string>(failure(rc, what)));
    }
  };
}

}  // namespace

Future<Result<std::string>> ZooKeeper::create(std::string path, std::string data, int flags) {
  auto promise = std::make_shared<Promise<Result<std::string>>>();
  Call call;
  call.retry = (flags & ZOO_SEQUENCE) == 0;
  const ACL_vector* acl = aclFor(url_);
  call.issue = [path, data, flags, acl](zhandle_t* handle, void* context) {
    return zoo_acreate(handle, path.c_str(), data.data(), static_cast<int>(data.size()), acl,
                       flags, stringDone, context);
  };
  call.done = valueDone(promise, "create " + path);
  add(std::move(call));
  return promise->future();
}

Future<Result<std::string>> ZooKeeper::get(std::string path) {
  auto promise = std::make_shared<Promise<Result<std::string>>>();
  Call call;
  call.retry = true;
  call.issue = [path](zhandle_t* handle, void* context) {
    return zoo_awget(handle, path.c_str(), nullptr, nullptr, dataDone, context);
  };
  call.done = valueDone(promise, "get " + path);
  add(std::move(call));
  return promise->future();
}

Future<Result<ZooKeeper::Children>> ZooKeeper::children(std::string path) {
  auto promise = std::make_shared<Promise<Result<Children>>>();
  // The watch set by the attempt that succeeds (each attempt its own).
  auto watch = std::make_shared<std::pair<uint64_t, std::shared_ptr<Promise<Nothing>>>>();
  Call call;
  call.retry = true;
  call.issue = [this, path, watch](zhandle_t* handle, void* context) {
    if (watch->first != 0) watches_.erase(watch->first);
    watch->first = addWatch(&watch->second);
    void* watchContext = watches_[watch->first].context.get();
    return zoo_awget_children(handle, path.c_str(), nodeWatcher, watchContext, stringsDone,
                              context);
  };
  call.done = [this, promise, path, watch](int rc, ReplyData& reply) {
    if (rc == ZOK) {
      promise->set(Result<Children>(Children{std::move(reply.names), watch->second->future()}));
      return;
    }
    // No watch was set.
    if (watch->first != 0) watches_.erase(watch->first);
    promise->set(Result<Children>(failure(rc, "get the children of " + path)));
  };
  add(std::move(call));
  return promise->future();
}

Future<Result<bool>> ZooKeeper::remove(std::string path) {
  auto promise = std::make_shared<Promise<Result<bool>>>();
  Call call;
  call.retry = true;
  call.issue = [path](zhandle_t* handle, void* context) {
    return zoo_adelete(handle, path.c_str(), -1, voidDone, context);
  };
  call.done = [promise, path](int rc, ReplyData&) {
    if (rc == ZOK || rc == ZNONODE) {
      promise->set(Result<bool>(rc == ZOK));
    } else {
      promise->set(Result<bool>(failure(rc, "remove " + path)));
    }
  };
  add(std::move(call));
  return promise->future();
}

Future<Result<Nothing>> ZooKeeper::createPath(std::string path) {
  auto promise = std::make_shared<Promise<Result<Nothing>>>();
  createStep(promise, std::move(path), 1);
  return promise->future();
}

Future<Result<ZooKeeper::Versioned>> ZooKeeper::getVersioned(std::string path) {
  auto promise = std::make_shared<Promise<Result<Versioned>>>();
  Call call;
  call.retry = true;
  call.issue = [path](zhandle_t* handle, void* context) {
    return zoo_awget(handle, path.c_str(), nullptr, nullptr, dataDone, context);
  };
  call.done = [promise, path](int rc, ReplyData& reply) {
    if (rc == ZOK) {
      promise->set(Result<Versioned>(Versioned{std::move(reply.value), reply.version}));
    } else {
      promise->set(Result<Versioned>(failure(rc, "get " + path)));
    }
  };
  add(std::move(call));
  return promise->future();
}

Future<Result<int32_t>> ZooKeeper::version(std::string path) {
  auto promise = std::make_shared<Promise<Result<int32_t>>>();
  Call call;
  call.retry = true;
  call.issue = [path](zhandle_t* handle, void* context) {
    return zoo_awexists(handle, path.c_str(), nullptr, nullptr, statDone, context);
  };
  call.done = [promise, path](int rc, ReplyData& reply) {
    if (rc == ZOK) {
      promise->set(Result<int32_t>(reply.version));
    } else {
      promise->set(Result<int32_t>(failure(rc, "exists " + path)));
    }
  };
  add(std::move(call));
  return promise->future();
}

Future<Result<int32_t>> ZooKeeper::set(std::string path, std::string data, int32_t version) {
  auto promise = std::make_shared<Promise<Result<int32_t>>>();
  Call call;
  // Repeating a write of the same data is harmless; a versioned one that
  // did succeed fails the second time with ZBADVERSION, which the caller
  // sees as losing a race (it then reads again).
  call.retry = true;
  call.issue = [path, data, version](zhandle_t* handle, void* context) {
    return zoo_aset(handle, path.c_str(), data.data(), static_cast<int>(data.size()), version,
                    statDone, context);
  };
  call.done = [promise, path](int rc, ReplyData& reply) {
    if (rc == ZOK) {
      promise->set(Result<int32_t>(reply.version));
    } else {
      promise->set(Result<int32_t>(failure(rc, "set " + path)));
    }
  };
  add(std::move(call));
  return promise->future();
}

namespace {

// A transaction's steps and results, alive until its completion.
struct MultiBuffers {
  std::vector<ZooKeeper::Op> ops;
  std::vector<zoo_op_t> steps;
  std::vector<zoo_op_result_t> results;
  std::vector<Stat> stats;
  std::vector<std::string> created;  // paths the creations made
};

}  // namespace

Future<Result<Nothing>> ZooKeeper::multi(std::vector<Op> ops) {
  auto promise = std::make_shared<Promise<Result<Nothing>>>();
  std::string what = "transaction of " + std::to_string(ops.size()) + " steps" +
                     (ops.empty() ? std::string() : " from " + ops.front().path);
  auto shared = std::make_shared<std::vector<Op>>(std::move(ops));
  Call call;
  call.retry = true;
  const ACL_vector* acl = aclFor(url_);
  call.issue = [shared, acl](zhandle_t* handle, void* context) {
    // Each attempt its own buffers: the client may still hold an earlier
    // attempt's until that one's completion.
    auto buffers = std::make_shared<MultiBuffers>();
    buffers->ops = *shared;
    size_t n = buffers->ops.size();
    buffers->steps.resize(n);
    buffers->results.resize(n);
    buffers->stats.resize(n);
    buffers->created.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Op& op = buffers->ops[i];
      zoo_op_t* step = &buffers->steps[i];
      switch (op.kind) {
        case Op::Kind::kCheck:
          zoo_check_op_init(step, op.path.c_str(), op.version);
          break;
        case Op::Kind::kSet:
          zoo_set_op_init(step, op.path.c_str(), op.data.data(), static_cast<int>(op.data.size()),
                          op.version, &buffers->stats[i]);
          break;
        case Op::Kind::kCreate:
          buffers->created[i].assign(op.path.size() + 16, '\0');
          zoo_create_op_init(step, op.path.c_str(), op.data.data(),
                             static_cast<int>(op.data.size()), acl, 0, buffers->created[i].data(),
                             static_cast<int>(buffers->created[i].size()));
          break;
      }
    }
    static_cast<CallContext*>(context)->buffers = buffers;
    return zoo_amulti(handle, static_cast<int>(n), buffers->steps.data(),
                      buffers->results.data(), voidDone, context);
  };
  call.done = [promise, what](int rc, ReplyData&) {
    if (rc == ZOK) {
      promise->set(Result<Nothing>(Nothing{}));
    } else {
      promise->set(Result<Nothing>(failure(rc, what)));
    }
  };
  add(std::move(call));
  return promise->future();
}

// Makes the prefix of `path` up to the slash after `next`, then the rest.
void ZooKeeper::createStep(std::shared_ptr<Promise<Result<Nothing>>> promise, std::string path,
                           size_t next) {
  if (path.size() <= 1 || next > path.size()) {
    promise->set(Result<Nothing>(Nothing{}));
    return;
  }
  size_t slash = path.find('/', next);
  size_t end = slash == std::string::npos ? path.size() : slash;
  std::string prefix = path.substr(0, end);
  create(prefix, "", 0).then(self(), [this, promise, path, end](const Result<std::string>& made) {
    if (!made.ok() && made.error().code != ZNODEEXISTS) {
      promise->set(Result<Nothing>(made.error()));
      return;
    }
    createStep(promise, path, end + 1);
  });
}

}  // namespace mesos::internal::zk
