// Peer: a stand-in actor for a scheduler, slave or executor in tests. It
// accepts the messages it is told to (recording them, in order) and sends
// whatever the test asks. Tests usually await messages through the runtime's
// hooks and use the records for the rest.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <google/protobuf/message.h>

#include "process/dispatch.hpp"
#include "process/runtime.hpp"

namespace mesos::test {

class Peer : public process::Actor {
 public:
  explicit Peer(std::string id) : Actor(std::move(id)) {}

  // Accept messages of these types (call before spawning).
  template <typename... M>
  void accept() {
    (acceptOne<M>(), ...);
  }

  // Sends from this peer, on its actor.
  template <typename M>
  void post(const process::UPID& to, const M& message) {
    M copy = message;
    process::dispatch(self(), [this, to, copy]() mutable { send(to, std::move(copy)); });
  }

  // From now on this peer's messages to `to`'s address carry `authorization`
  // (Actor::setAuthorization, on this peer's actor).
  void presentAuthorization(const process::UPID& to, std::string authorization) {
    process::dispatch(self(), [this, address = to.address, authorization] {
      setAuthorization(address, authorization);
    });
  }

  // Every message of type M received so far (thread-safe copy).
  template <typename M>
  std::vector<M> received() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<M> out;
    for (const auto& message : log_[M::descriptor()->full_name()]) {
      out.push_back(static_cast<const M&>(*message));
    }
    return out;
  }

  // The full names of the message types received, in the order they came.
  std::vector<std::string> order() {
    std::lock_guard<std::mutex> lock(mutex_);
    return order_;
  }

  template <typename M>
  size_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return log_[M::descriptor()->full_name()].size();
  }

  // Links to `pid` from this peer (so it learns nothing, but the pid learns
  // of this peer's exit through its own link).
  void watch(const process::UPID& pid) {
    process::dispatch(self(), [this, pid] { link(pid); });
  }

 private:
  template <typename M>
  void acceptOne() {
    on<M>(std::function<void(const process::UPID&, const M&)>(
        [this](const process::UPID&, const M& message) {
          std::lock_guard<std::mutex> lock(mutex_);
          log_[M::descriptor()->full_name()].push_back(std::make_shared<M>(message));
          order_.push_back(M::descriptor()->full_name());
        }));
  }

  void initialize() override {}

  std::mutex mutex_;
  std::vector<std::string> order_;
  std::map<std::string, std::vector<std::shared_ptr<google::protobuf::Message>>> log_;
};

}  // namespace mesos::test
