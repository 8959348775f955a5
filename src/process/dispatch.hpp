// dispatch(): call a method of an actor as an event of that actor, from
// anywhere, and get its result as a future.
//
//   Future<int> n = dispatch(counterPid, &Counter::add, 5);
//   n.then(self(), [this](int total) { ... });   // back on the caller
//
// The method runs on the target actor's turn like any message handler.
// Arguments are copied (or moved) into the event. If the actor is gone the
// future fails. A method returning Future<X> yields that future's outcome; a
// void method yields Nothing.
#pragma once

#include <memory>
#include <tuple>
#include <utility>

#include "process/actor.hpp"
#include "process/future.hpp"
#include "process/upid.hpp"

namespace process {

namespace internal {

bool postToActor(const UPID& pid, std::function<void(Actor&)> fn);

template <typename Out, typename F>
void complete(const std::shared_ptr<Promise<typename Out::Value>>& promise, F&& call) {
  using R = decltype(call());
  if constexpr (std::is_void_v<R>) {
    call();
    promise->set(Nothing{});
  } else if constexpr (IsFuture<R>::value) {
    promise->associate(call());
  } else {
    promise->set(call());
  }
}

}  // namespace internal

template <typename T, typename R, typename... P, typename... A>
auto dispatch(const Pid<T>& pid, R (T::*method)(P...), A&&... args) {
  using Out = typename internal::FutureOf<R>::Type;
  auto promise = std::make_shared<Promise<typename Out::Value>>();
  Out future = promise->future();
  bool posted = internal::postToActor(
      pid, [promise, method, tuple = std::make_tuple(std::decay_t<A>(std::forward<A>(args))...)](
               Actor& actor) mutable {
        T& target = static_cast<T&>(actor);
        internal::complete<Out>(promise, [&]() -> decltype(auto) {
          return std::apply([&](auto&... a) -> decltype(auto) { return (target.*method)(a...); },
                            tuple);
        });
      });
  if (!posted) promise->fail("actor " + pid.toString() + " is gone");
  return future;
}

template <typename T, typename R, typename... P, typename... A>
auto dispatch(const Pid<T>& pid, R (T::*method)(P...) const, A&&... args) {
  using Out = typename internal::FutureOf<R>::Type;
  auto promise = std::make_shared<Promise<typename Out::Value>>();
  Out future = promise->future();
  bool posted = internal::postToActor(
      pid, [promise, method, tuple = std::make_tuple(std::decay_t<A>(std::forward<A>(args))...)](
               Actor& actor) mutable {
        const T& target = static_cast<const T&>(actor);
        internal::complete<Out>(promise, [&]() -> decltype(auto) {
          return std::apply([&](auto&... a) -> decltype(auto) { return (target.*method)(a...); },
                            tuple);
        });
      });
  if (!posted) promise->fail("actor " + pid.toString() + " is gone");
  return future;
}

// Runs `fn()` on the actor `pid` names; the future holds its result.
template <typename F>
auto dispatch(const UPID& pid, F fn) {
  using Out = typename internal::FutureOf<decltype(fn())>::Type;
  auto promise = std::make_shared<Promise<typename Out::Value>>();
  Out future = promise->future();
  bool posted = internal::postToActor(pid, [promise, fn](Actor&) mutable {
    internal::complete<Out>(promise, [&]() -> decltype(auto) { return fn(); });
  });
  if (!posted) promise->fail("actor " + pid.toString() + " is gone");
  return future;
}

}  // namespace process
