// Actor: the unit of state and concurrency. An actor owns its state; other
// code reaches it only by message, dispatch() or HTTP route, all of which
// become events in its mailbox. The runtime runs an actor's events one at a
// time, in arrival order (per sender), never two at once.
//
// Writing an actor: derive from Actor, install handlers in initialize() (the
// table reads like the protocol's table of contents), keep each handler
// short, and consume futures with then(self(), ...).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>

#include <google/protobuf/message.h>

#include "process/clock.hpp"
#include "process/event.hpp"
#include "process/future.hpp"
#include "process/http.hpp"
#include "process/upid.hpp"

namespace process {

class Runtime;

class Actor {
 public:
  // `id` names the actor within its runtime ("master", generateId("slave")).
  explicit Actor(std::string id);
  virtual ~Actor();
  Actor(const Actor&) = delete;
  Actor& operator=(const Actor&) = delete;

  const std::string& id() const { return id_; }
  // This actor's UPID. Valid once spawned.
  const UPID& self() const { return self_; }
  // REQUIRES: spawned.
  Runtime& runtime() const;

 protected:
  // Runs as the actor's first event.
  virtual void initialize() {}
  // Runs as its last event (terminate() or the owner's Spawned handle going).
  virtual void finalize() {}
  // A linked actor terminated, or the connection to its address broke.
  virtual void exited(const UPID& /*pid*/) {}
  // Asked before each event other than initialization and termination:
  // false drops it (an HTTP request is answered 503). For an actor that
  // must stop acting at once, whatever is queued (a master that lost its
  // leadership).
  virtual bool admit() { return true; }

  // Installs the handler for protobuf message M (by M's full name).
  // Messages that do not parse as M are logged and dropped.
  template <typename T, typename M>
  void on(void (T::*handler)(const UPID& from, const M& message)) {
    static_assert(std::is_base_of_v<google::protobuf::Message, M>);
    T* actor = static_cast<T*>(this);
    handlers_[M::descriptor()->full_name()] = [actor, handler](const MessageEvent& event) {
      if (event.message && event.message->GetDescriptor() == M::descriptor()) {
        (actor->*handler)(event.from, static_cast<const M&>(*event.message));
        return;
      }
      M message;
      if (!message.ParsePartialFromString(event.body)) {
        actor->dropUnparsable(event);
        return;
      }
      (actor->*handler)(event.from, message);
    };
  }

  // Installs `handler` for protobuf message M (a lambda or std::function).
  template <typename M>
  void on(std::function<void(const UPID& from, const M& message)> handler) {
    static_assert(std::is_base_of_v<google::protobuf::Message, M>);
    handlers_[M::descriptor()->full_name()] = [this, handler = std::move(handler)](
                                                  const MessageEvent& event) {
      if (event.message && event.message->GetDescriptor() == M::descriptor()) {
        handler(event.from, static_cast<const M&>(*event.message));
        return;
      }
      M message;
      if (!message.ParsePartialFromString(event.body)) {
        dropUnparsable(event);
        return;
      }
      handler(event.from, message);
    };
  }

  // Installs `handler` for protobuf message M, handing it the parsed message
  // to keep: it may move parts into its own state instead of copying them
  // (a message sent within this runtime is shared, and copied first).
  template <typename M>
  void onOwned(std::function<void(const UPID& from, M&& message)> handler) {
    static_assert(std::is_base_of_v<google::protobuf::Message, M>);
    handlers_[M::descriptor()->full_name()] = [this, handler = std::move(handler)](
                                                  const MessageEvent& event) {
      M message;
      if (event.message && event.message->GetDescriptor() == M::descriptor()) {
        message.MergeFrom(static_cast<const M&>(*event.message));
      } else if (!message.ParsePartialFromString(event.body)) {
        dropUnparsable(event);
        return;
      }
      handler(event.from, std::move(message));
    };
  }

  // Installs a handler for a message that is not a protobuf (or whose body
  // the actor wants raw).
  void onRaw(const std::string& name,
             std::function<void(const UPID& from, const std::string& body)> handler);

  // Installs a GET/POST route: "/path" answers /<id>/path (and /path when
  // this actor is the runtime's delegate). A path ending in '/' ("/quota/")
  // also answers every path below it that has no route of its own (the
  // longest such prefix wins).
  using RouteHandler = std::function<Future<http::Response>(const http::Request&)>;
  void route(const std::string& path, RouteHandler handler);
  template <typename T>
  void route(const std::string& path, Future<http::Response> (T::*handler)(const http::Request&)) {
    T* actor = static_cast<T*>(this);
    route(path, [actor, handler](const http::Request& request) { return (actor->*handler)(request); });
  }

  // Sends `message` to `to`: in this runtime without serializing it, elsewhere
  // over the libprocess wire protocol. Never blocks; messages to unreachable
  // or missing actors are dropped (and logged).
  void send(const UPID& to, const google::protobuf::Message& message) const;
  template <typename M>
    requires(std::is_base_of_v<google::protobuf::Message, M> && !std::is_reference_v<M>)
  void send(const UPID& to, M&& message) const {
    sendShared(to, std::make_shared<M>(std::move(message)));
  }
  void sendRaw(const UPID& to, const std::string& name, std::string body) const;

  // From now on, every message this actor sends to an actor at `to` carries
  // `authorization` (the Authorization header on the wire; the receiver reads
  // it with messageAuthorization()). Messages to other addresses never carry
  // it. Call on this actor.
  void setAuthorization(const Address& to, std::string authorization);

  // The credential the message being handled came with (empty when it has
  // none, or outside a message handler). Call on this actor.
  const std::string& messageAuthorization() const;

  // Watches `pid`: exited(pid) runs when it terminates or, for a remote pid,
  // when the connection to its address breaks (at once if it does not exist).
  void link(const UPID& pid);

  // Runs `fn` on this actor after `d` of runtime-clock time.
  TimerId delay(Duration d, std::function<void()> fn);
  bool cancel(TimerId timer);

  // Terminates this actor after the current event.
  void terminate();

 private:
  friend class Runtime;

  void sendShared(const UPID& to, std::shared_ptr<const google::protobuf::Message> message) const;
  const std::string& authorizationFor(const UPID& to) const;
  void consume(Event& event);
  void dropUnparsable(const MessageEvent& event) const;

  std::string id_;
  UPID self_;
  std::string selfText_;  // self_.toString(), cached for the wire
  Runtime* runtime_ = nullptr;
  std::optional<Address> authorizedAddress_;
  std::string authorization_;
  const MessageEvent* handling_ = nullptr;  // while a message handler runs
  std::unordered_map<std::string, std::function<void(const MessageEvent&)>> handlers_;
  std::unordered_map<std::string, RouteHandler> routes_;
};

}  // namespace process
