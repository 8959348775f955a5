#include "process/hooks.hpp"

namespace process {

bool MessageMatch::matches(const MessageEvent& event) const {
  if (!name.empty() && name != event.name) return false;
  if (from && !(*from == event.from)) return false;
  if (to && !(*to == event.to)) return false;
  return true;
}

Hooks::FilterId Hooks::add(Filter filter) {
  std::lock_guard<std::mutex> lock(mutex_);
  filter.id = nextId_++;
  FilterId id = filter.id;
  filters_.push_back(std::move(filter));
  active_.store(true, std::memory_order_release);
  return id;
}

Hooks::FilterId Hooks::drop(const MessageMatch& match) {
  return add(Filter{0, Kind::kDrop, match, nullptr, nullptr, {}});
}

Hooks::FilterId Hooks::hold(const MessageMatch& match) {
  return add(Filter{0, Kind::kHold, match, nullptr, nullptr, {}});
}

Future<MessageEvent> Hooks::await(const MessageMatch& match) {
  auto promise = std::make_shared<Promise<MessageEvent>>();
  add(Filter{0, Kind::kAwait, match, promise, nullptr, {}});
  return promise->future();
}

std::shared_ptr<std::atomic<uint64_t>> Hooks::count(const MessageMatch& match) {
  auto counter = std::make_shared<std::atomic<uint64_t>>(0);
  add(Filter{0, Kind::kCount, match, nullptr, counter, {}});
  return counter;
}

void Hooks::release(FilterId id) {
  std::vector<std::function<void()>> held;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = filters_.begin(); it != filters_.end(); ++it) {
      if (it->id == id) {
        held = std::move(it->held);
        filters_.erase(it);
        break;
      }
    }
    active_.store(!filters_.empty(), std::memory_order_release);
  }
  for (auto& deliver : held) deliver();
}

void Hooks::remove(FilterId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(filters_, [id](const Filter& f) { return f.id == id; });
  active_.store(!filters_.empty(), std::memory_order_release);
}

void Hooks::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  filters_.clear();
  active_.store(false, std::memory_order_release);
}

Hooks::Decision Hooks::decide(const MessageEvent& event) {
  Decision decision;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = filters_.begin(); it != filters_.end();) {
      if (!it->match.matches(event)) {
        ++it;
        continue;
      }
      switch (it->kind) {
        case Kind::kCount:
          it->counter->fetch_add(1);
          break;
        case Kind::kAwait:
          decision.awaited.push_back(it->awaited);
          it = filters_.erase(it);
          continue;
        case Kind::kDrop:
          if (decision.verdict == Verdict::kDeliver) {
            decision.verdict = Verdict::kDrop;
            decision.filter = it->id;
          }
          break;
        case Kind::kHold:
          if (decision.verdict == Verdict::kDeliver) {
            decision.verdict = Verdict::kHold;
            decision.filter = it->id;
          }
          break;
      }
      ++it;
    }
    active_.store(!filters_.empty(), std::memory_order_release);
  }
  return decision;
}

void Hooks::keep(FilterId id, std::function<void()> deliver) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& filter : filters_) {
      if (filter.id == id) {
        filter.held.push_back(std::move(deliver));
        return;
      }
    }
  }
  deliver();  // released in the meantime
}

}  // namespace process
