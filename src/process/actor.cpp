#include "process/actor.hpp"

#include <glog/logging.h>

#include "process/runtime.hpp"

namespace process {

Actor::Actor(std::string id) : id_(std::move(id)) {}

Actor::~Actor() = default;

Runtime& Actor::runtime() const {
  CHECK(runtime_ != nullptr) << "actor '" << id_ << "' is not spawned";
  return *runtime_;
}

void Actor::onRaw(const std::string& name,
                  std::function<void(const UPID&, const std::string&)> handler) {
  handlers_[name] = [handler = std::move(handler)](const MessageEvent& event) {
    if (event.message) {
      handler(event.from, event.message->SerializePartialAsString());
    } else {
      handler(event.from, event.body);
    }
  };
}

void Actor::route(const std::string& path, RouteHandler handler) {
  routes_[path] = std::move(handler);
}

void Actor::send(const UPID& to, const google::protobuf::Message& message) const {
  std::shared_ptr<google::protobuf::Message> copy(message.New());
  copy->MergeFrom(message);  // into an empty message: CopyFrom's checks cost more
  sendShared(to, std::move(copy));
}

void Actor::sendShared(const UPID& to,
                       std::shared_ptr<const google::protobuf::Message> message) const {
  const std::string& name = message->GetDescriptor()->full_name();
  runtime().sendMessage(self_, selfText_, to, name, std::move(message), {},
                        authorizationFor(to));
}

void Actor::sendRaw(const UPID& to, const std::string& name, std::string body) const {
  runtime().sendMessage(self_, selfText_, to, name, nullptr, std::move(body), authorizationFor(to));
}

void Actor::setAuthorization(const Address& to, std::string authorization) {
  authorizedAddress_ = to;
  authorization_ = std::move(authorization);
}

const std::string& Actor::authorizationFor(const UPID& to) const {
  static const std::string kNone;
  return authorizedAddress_ && to.address == *authorizedAddress_ ? authorization_ : kNone;
}

const std::string& Actor::messageAuthorization() const {
  static const std::string kNone;
  return handling_ != nullptr ? handling_->authorization : kNone;
}

void Actor::link(const UPID& pid) { runtime().link(self_, pid); }

TimerId Actor::delay(Duration d, std::function<void()> fn) {
  std::weak_ptr<ActorCell> weak = self_.ref;
  Runtime* runtime = runtime_;
  return runtime->clock().schedule(runtime->clock().now() + d, [weak, runtime, fn] {
    if (auto cell = weak.lock()) {
      runtime->enqueue(cell, DispatchEvent{[fn](Actor&) { fn(); }});
    }
  });
}

bool Actor::cancel(TimerId timer) { return runtime().clock().cancel(timer); }

void Actor::terminate() { runtime().terminate(self_); }

void Actor::dropUnparsable(const MessageEvent& event) const {
  LOG(WARNING) << "Dropping message " << event.name << " from " << event.from
               << (event.peer.empty() ? "" : " (peer " + event.peer + ")") << " to " << id_
               << ": the body (" << event.body.size() << " bytes) does not parse as "
               << event.name;
}

void Actor::consume(Event& event) {
  if (!std::holds_alternative<InitializeEvent>(event) &&
      !std::holds_alternative<TerminateEvent>(event) && !admit()) {
    if (auto* http = std::get_if<HttpEvent>(&event)) {
      http->respond(Future<http::Response>(
          http::Response::serviceUnavailable("this process no longer serves requests\n")));
    }
    return;
  }
  std::visit(
      [this](auto& e) {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, MessageEvent>) {
          auto it = handlers_.find(e.name);
          if (it == handlers_.end()) {
            LOG(WARNING) << "Dropping message " << e.name << " from " << e.from
                         << (e.peer.empty() ? "" : " (peer " + e.peer + ")") << " to " << id_
                         << ": no handler for that message";
            return;
          }
          handling_ = &e;
          it->second(e);
          handling_ = nullptr;
        } else if constexpr (std::is_same_v<E, DispatchEvent>) {
          e.fn(*this);
        } else if constexpr (std::is_same_v<E, ExitedEvent>) {
          exited(e.pid);
        } else if constexpr (std::is_same_v<E, HttpEvent>) {
          std::string path = e.request.path;
          // "/<id>/rest" -> "/rest"; a delegated "/rest" stays as it is.
          if (path.size() > id_.size() + 1 && path.compare(1, id_.size(), id_) == 0 &&
              path[id_.size() + 1] == '/') {
            path = path.substr(id_.size() + 1);
          } else if (path == "/" + id_) {
            path = "/";
          }
          auto it = routes_.find(path);
          if (it == routes_.end()) {
            // A route ending in '/' ("/quota/") takes the paths below it.
            for (auto prefix = routes_.begin(); prefix != routes_.end(); ++prefix) {
              const std::string& key = prefix->first;
              if (key.size() > 1 && key.back() == '/' && path.size() > key.size() &&
                  path.compare(0, key.size(), key) == 0 &&
                  (it == routes_.end() || key.size() > it->first.size())) {
                it = prefix;
              }
            }
          }
          if (it == routes_.end() && e.request.path == "/health") {
            // A delegate without a health of its own: serving is health.
            e.respond(Future<http::Response>(http::Response::ok("", "text/plain")));
            return;
          }
          if (it == routes_.end()) {
            e.respond(Future<http::Response>(
                http::Response::notFound("no route " + e.request.path + "\n")));
            return;
          }
          e.respond(it->second(e.request));
        } else if constexpr (std::is_same_v<E, InitializeEvent>) {
          initialize();
        } else if constexpr (std::is_same_v<E, TerminateEvent>) {
          finalize();
        }
      },
      event);
}

}  // namespace process
