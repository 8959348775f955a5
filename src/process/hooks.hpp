// Test hooks: drop, hold, await and count messages by name, sender and
// receiver. A runtime consults its hooks for every message it delivers to a
// local actor and every message it sends to another address, so a test can
// see and shape traffic in either direction. With no filter installed they
// cost one atomic load per message.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "process/event.hpp"
#include "process/future.hpp"
#include "process/upid.hpp"

namespace process {

struct MessageMatch {
  std::string name;           // protobuf full name; empty matches any
  std::optional<UPID> from;   // compared by id and address
  std::optional<UPID> to;

  bool matches(const MessageEvent& event) const;
};

class Hooks {
 public:
  using FilterId = uint64_t;

  enum class Verdict { kDeliver, kDrop, kHold };

  // Drops every matching message until remove(id).
  FilterId drop(const MessageMatch& match);
  // Keeps every matching message, undelivered, until release(id).
  FilterId hold(const MessageMatch& match);
  // Delivers (in order) the messages held by filter `id` and removes it.
  void release(FilterId id);
  // The first matching message (it is still delivered, unless another filter
  // drops or holds it).
  Future<MessageEvent> await(const MessageMatch& match);
  // Counts matching messages from now on.
  std::shared_ptr<std::atomic<uint64_t>> count(const MessageMatch& match);
  void remove(FilterId id);
  // Removes every filter; held messages are discarded.
  void clear();

  template <typename M>
  FilterId drop(std::optional<UPID> from = {}, std::optional<UPID> to = {}) {
    return drop(MessageMatch{M::descriptor()->full_name(), std::move(from), std::move(to)});
  }
  template <typename M>
  FilterId hold(std::optional<UPID> from = {}, std::optional<UPID> to = {}) {
    return hold(MessageMatch{M::descriptor()->full_name(), std::move(from), std::move(to)});
  }
  template <typename M>
  std::shared_ptr<std::atomic<uint64_t>> count(std::optional<UPID> from = {},
                                               std::optional<UPID> to = {}) {
    return count(MessageMatch{M::descriptor()->full_name(), std::move(from), std::move(to)});
  }
  // The first matching message, parsed. Fails if it does not parse as M.
  template <typename M>
  Future<M> await(std::optional<UPID> from = {}, std::optional<UPID> to = {}) {
    auto promise = std::make_shared<Promise<M>>();
    Future<MessageEvent> event =
        await(MessageMatch{M::descriptor()->full_name(), std::move(from), std::move(to)});
    event.onAny([event, promise] {
      if (event.isFailed()) {
        promise->fail(event.failure());
        return;
      }
      M message;
      if (event.get().template parse<M>(&message)) {
        promise->set(std::move(message));
      } else {
        promise->fail("message " + event.get().name + " does not parse");
      }
    });
    return promise->future();
  }

  // Runtime side. active() is the fast check; decide() applies counts and
  // says what to do; the runtime completes `awaited` with the message once it
  // has delivered it (so a test that awaits and then settles sees it
  // handled); a held message's delivery is kept with keep().
  struct Decision {
    Verdict verdict = Verdict::kDeliver;
    FilterId filter = 0;
    std::vector<std::shared_ptr<Promise<MessageEvent>>> awaited;
  };
  bool active() const { return active_.load(std::memory_order_acquire); }
  Decision decide(const MessageEvent& event);
  void keep(FilterId id, std::function<void()> deliver);

 private:
  enum class Kind { kDrop, kHold, kAwait, kCount };
  struct Filter {
    FilterId id;
    Kind kind;
    MessageMatch match;
    std::shared_ptr<Promise<MessageEvent>> awaited;
    std::shared_ptr<std::atomic<uint64_t>> counter;
    std::vector<std::function<void()>> held;
  };

  FilterId add(Filter filter);

  std::mutex mutex_;
  std::vector<Filter> filters_;
  FilterId nextId_ = 1;
  std::atomic<bool> active_{false};
};

}  // namespace process
