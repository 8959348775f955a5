// Future<T> and Promise<T>: the result of asynchronous work (a dispatch, an
// HTTP route, a message awaited by a test).
//
// A future is pending, then ready (holds a T) or failed (holds a message),
// once. Continuations registered with then(pid, f) run on the actor `pid`
// names, as an event of that actor, never on the completing thread; that is
// the only way actor code should consume a future. Blocking waits (await)
// are for tests and for threads that are not actors.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <glog/logging.h>

#include "process/upid.hpp"

namespace process {

// The value of a future that completes with nothing to say.
struct Nothing {};

template <typename T>
class Future;
template <typename T>
class Promise;

namespace internal {

// Runs `fn` as an event of the actor `on` names. Returns false (and drops
// `fn`) when that actor does not exist or has terminated. Defined by the
// runtime. `ahead`: it runs at the start of the actor's next turn, before
// the events its mailbox holds.
bool post(const UPID& on, std::function<void()> fn, bool ahead = false);

template <typename T>
struct IsFuture : std::false_type {};
template <typename T>
struct IsFuture<Future<T>> : std::true_type {
  using Value = T;
};

// Future<X> for a callable returning X, void (-> Nothing) or Future<X>.
template <typename R>
struct FutureOf {
  using Type = Future<R>;
};
template <>
struct FutureOf<void> {
  using Type = Future<Nothing>;
};
template <typename X>
struct FutureOf<Future<X>> {
  using Type = Future<X>;
};

template <typename T>
struct State {
  enum class Phase { kPending, kReady, kFailed };
  std::mutex mutex;
  std::condition_variable done;
  Phase phase = Phase::kPending;
  std::optional<T> value;
  std::string failure;
  std::vector<std::function<void()>> callbacks;
};

}  // namespace internal

template <typename T>
class Future {
 public:
  using Value = T;

  // A pending future that nothing will complete.
  Future() : state_(std::make_shared<internal::State<T>>()) {}

  // A ready future.
  Future(T value) : Future() {  // NOLINT: implicit, as a return value.
    state_->phase = internal::State<T>::Phase::kReady;
    state_->value.emplace(std::move(value));
  }

  static Future failed(std::string message) {
    Future f;
    f.state_->phase = internal::State<T>::Phase::kFailed;
    f.state_->failure = std::move(message);
    return f;
  }

  bool isPending() const { return phase() == internal::State<T>::Phase::kPending; }
  bool isReady() const { return phase() == internal::State<T>::Phase::kReady; }
  bool isFailed() const { return phase() == internal::State<T>::Phase::kFailed; }

  // REQUIRES: isReady().
  const T& get() const {
    CHECK(isReady()) << "Future::get() on a future that is not ready"
                     << (isFailed() ? ": " + state_->failure : "");
    return *state_->value;
  }

  // REQUIRES: isFailed().
  const std::string& failure() const {
    CHECK(isFailed());
    return state_->failure;
  }

  // Blocks the calling thread until this future completes or `timeout`
  // passes (real time). Returns true when it completed. Never call it from an
  // actor: the actor's own work could be what completes it.
  bool await(std::chrono::steady_clock::duration timeout = std::chrono::seconds(15)) const {
    std::unique_lock<std::mutex> lock(state_->mutex);
    return state_->done.wait_for(lock, timeout, [this] {
      return state_->phase != internal::State<T>::Phase::kPending;
    });
  }

  // Runs `callback` once this future completes, on the completing thread (or
  // at once if it has). Runtime-internal; actor code uses then().
  void onAny(std::function<void()> callback) const {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      if (state_->phase == internal::State<T>::Phase::kPending) {
        state_->callbacks.push_back(std::move(callback));
        return;
      }
    }
    callback();
  }

  // When this future is ready, runs f(value) (or f() when f takes no
  // argument) on the actor `on`; the returned future completes with f's
  // result (a Future<X> result is flattened; void becomes Nothing). When this
  // future fails, or `on` no longer exists, the returned future fails and f
  // does not run.
  template <typename F>
  auto then(const UPID& on, F f) const {
    return chain(on, std::move(f), false);
  }

  // As then(), but f runs at the start of `on`'s next turn, ahead of the
  // events already in its mailbox: for an answer the actor waits on while
  // its mailbox fills with work that waits for that answer (a new leading
  // master's registry, with every slave's re-registration queued behind it).
  template <typename F>
  auto thenAhead(const UPID& on, F f) const {
    return chain(on, std::move(f), true);
  }

 private:
  friend class Promise<T>;

  template <typename F>
  auto chain(const UPID& on, F f, bool ahead) const {
    using Raw = decltype(invokeOn(f, std::declval<const T&>()));
    using Out = typename internal::FutureOf<Raw>::Type;
    using OutValue = typename Out::Value;
    auto promise = std::make_shared<Promise<OutValue>>();
    Out result = promise->future();
    Future self = *this;
    onAny([self, on, promise, ahead, f = std::move(f)]() mutable {
      if (self.isFailed()) {
        promise->fail(self.failure());
        return;
      }
      auto run = [self, promise, f = std::move(f)]() mutable {
        if constexpr (std::is_void_v<Raw>) {
          invokeOn(f, self.get());
          promise->set(Nothing{});
        } else if constexpr (internal::IsFuture<Raw>::value) {
          promise->associate(invokeOn(f, self.get()));
        } else {
          promise->set(invokeOn(f, self.get()));
        }
      };
      if (!internal::post(on, std::move(run), ahead)) {
        promise->fail("actor " + on.toString() + " is gone");
      }
    });
    return result;
  }

  template <typename F>
  static decltype(auto) invokeOn(F& f, const T& value) {
    if constexpr (std::is_invocable_v<F&, const T&>) {
      return f(value);
    } else {
      return f();
    }
  }

  typename internal::State<T>::Phase phase() const {
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->phase;
  }

  std::shared_ptr<internal::State<T>> state_;
};

// The writing end of a future. Completing an already completed promise is a
// no-op that returns false (the first completion wins).
template <typename T>
class Promise {
 public:
  Promise() = default;
  Promise(const Promise&) = delete;
  Promise& operator=(const Promise&) = delete;

  Future<T> future() const { return future_; }

  bool set(T value) {
    return complete([&](internal::State<T>& s) {
      s.phase = internal::State<T>::Phase::kReady;
      s.value.emplace(std::move(value));
    });
  }

  bool fail(std::string message) {
    return complete([&](internal::State<T>& s) {
      s.phase = internal::State<T>::Phase::kFailed;
      s.failure = std::move(message);
    });
  }

  // Completes this promise the way `other` completes.
  void associate(const Future<T>& other) {
    auto state = future_.state_;
    Future<T> source = other;
    source.onAny([state, source]() {
      Promise<T>::completeState(*state, [&](internal::State<T>& s) {
        if (source.isReady()) {
          s.phase = internal::State<T>::Phase::kReady;
          s.value.emplace(source.get());
        } else {
          s.phase = internal::State<T>::Phase::kFailed;
          s.failure = source.failure();
        }
      });
    });
  }

 private:
  template <typename Fill>
  bool complete(Fill fill) {
    return completeState(*future_.state_, fill);
  }

  template <typename Fill>
  static bool completeState(internal::State<T>& s, Fill fill) {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.phase != internal::State<T>::Phase::kPending) return false;
      fill(s);
      callbacks.swap(s.callbacks);
      // Under the lock: a woken waiter may drop the last reference to `s`.
      s.done.notify_all();
    }
    for (auto& callback : callbacks) callback();
    return true;
  }

  Future<T> future_;
};

}  // namespace process
