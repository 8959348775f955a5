#include "master/pieces.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>

namespace mesos::internal::master {

namespace {

// Buffers of kJoinedBytes + kShareFrom capacity: a piece is flushed once
// it holds kJoinedBytes, and what is appended to it is below kShareFrom
// (or copied in parts).
constexpr size_t kCapacity = Pieces::kJoinedBytes + Pieces::kShareFrom;

class Pool {
 public:
  std::unique_ptr<std::string> take() {
    held_.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        std::unique_ptr<std::string> buffer = std::move(idle_.back());
        idle_.pop_back();
        return buffer;
      }
    }
    auto buffer = std::make_unique<std::string>();
    buffer->reserve(kCapacity);
    return buffer;
  }

  void give(std::string* buffer) {
    std::unique_ptr<std::string> owned(buffer);
    held_.fetch_sub(1, std::memory_order_relaxed);
    if (owned->capacity() < kCapacity) return;
    owned->clear();
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_.size() * kCapacity < Pieces::kPooledBytes) idle_.push_back(std::move(owned));
  }

  size_t idle() {
    std::lock_guard<std::mutex> lock(mutex_);
    return idle_.size();
  }

  size_t held() const { return held_.load(std::memory_order_relaxed); }

 private:
  std::atomic<size_t> held_{0};
  std::mutex mutex_;
  std::vector<std::unique_ptr<std::string>> idle_;
};

// Never destroyed: answers may give buffers back while the process exits.
Pool& pool() {
  static Pool* instance = new Pool();
  return *instance;
}

const Fragment& comma() {
  static const Fragment* instance = new Fragment(std::make_shared<const std::string>(","));
  return *instance;
}

}  // namespace

Pieces::~Pieces() {
  if (open_) pool().give(open_.release());
}

void Pieces::append(std::string_view text) {
  if (!open_ && !copying()) {
    pieces_.push_back(text == "," ? comma() : std::make_shared<const std::string>(text));
    return;
  }
  while (!text.empty()) {
    if (!open_) open_ = pool().take();
    size_t room = kCapacity - open_->size();
    size_t n = std::min(room, text.size());
    open_->append(text.substr(0, n));
    text.remove_prefix(n);
    if (open_->size() >= kJoinedBytes) flush();
  }
}

void Pieces::flush() {
  if (!open_ || open_->empty()) return;
  if (open_->size() < kShareFrom) {
    // A few separators between shared pieces: not worth a whole buffer.
    pieces_.push_back(*open_ == "," ? comma() : std::make_shared<const std::string>(*open_));
    open_->clear();
    return;
  }
  pieces_.emplace_back(open_.release(), [](const std::string* buffer) {
    pool().give(const_cast<std::string*>(buffer));
  });
}

std::vector<Fragment> Pieces::take() {
  flush();
  std::vector<Fragment> pieces = std::move(pieces_);
  pieces_.clear();
  return pieces;
}

bool Pieces::copying() { return pool().held() * kCapacity < kCopyingBytes; }

size_t Pieces::heldBytes() { return pool().held() * kCapacity; }

size_t Pieces::pooledBytes() { return pool().idle() * kCapacity; }

}  // namespace mesos::internal::master
