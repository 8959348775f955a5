// What an actor's mailbox holds.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <variant>

#include <google/protobuf/message.h>

#include "process/future.hpp"
#include "process/http.hpp"
#include "process/upid.hpp"

namespace process {

class Actor;

// A message from `from` to `to`. Between actors of one runtime it carries the
// protobuf object itself (`message`, shared and immutable); from the network
// it carries the serialized `body`. Raw (non-protobuf) messages carry only a
// body.
struct MessageEvent {
  UPID from;
  UPID to;
  std::string name;
  std::shared_ptr<const google::protobuf::Message> message;
  std::string body;
  std::string peer;  // "ip:port" of the connection it arrived on, if any
  // The credential the sender presented with it (the Authorization header
  // of a network message; what the sending actor set for this receiver's
  // address with setAuthorization() for a local one), or empty.
  std::string authorization;

  // Parses the message as an M (copying the local object when there is one).
  // Returns false when the body is not a valid M.
  template <typename M>
  bool parse(M* out) const {
    if (message && message->GetDescriptor() == M::descriptor()) {
      out->CopyFrom(*message);
      return true;
    }
    return out->ParsePartialFromString(body);
  }
};

struct DispatchEvent {
  std::function<void(Actor&)> fn;
};

struct ExitedEvent {
  UPID pid;
};

struct HttpEvent {
  http::Request request;
  // Called once by the actor with its route's answer, ready or not.
  std::function<void(const Future<http::Response>&)> respond;
};

struct InitializeEvent {};
struct TerminateEvent {};

using Event =
    std::variant<MessageEvent, DispatchEvent, ExitedEvent, HttpEvent, InitializeEvent, TerminateEvent>;

}  // namespace process
