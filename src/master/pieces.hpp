// Pieces: a document's text under assembly, handed to the transport as a
// list of immutable strings that it writes without joining them
// (process/http.hpp, Response::pieces).
//
// Large shared fragments (chunks of entities, kShareFrom bytes and more)
// go in as they are; small ones (a lone task, a separator) are copied into
// joined pieces of about kJoinedBytes (what little lies between two shared
// fragments becomes a small piece of its own). A piece costs whoever holds, writes and frees it
// about as much as copying a few hundred bytes: a document of a hundred
// thousand tasks is a few thousand pieces, not a few hundred thousand.
//
// Joined pieces are buffers of one size, taken from a pool and given back
// to it when the last answer holding them is gone (on whatever thread that
// is): documents rendered several times a second reuse the same memory
// instead of leaving the heap in holes. Copies cost memory for as long as
// clients take to read them, so they are bounded: while kCopyingBytes of
// joined pieces are held, small fragments are shared like large ones, and
// the pool keeps at most kPooledBytes of idle buffers.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mesos::internal::master {

// Immutable text shared by the documents that contain it.
using Fragment = std::shared_ptr<const std::string>;

class Pieces {
 public:
  static constexpr size_t kShareFrom = 4096;  // fragments this big are shared
  static constexpr size_t kJoinedBytes = 64 * 1024;
  static constexpr size_t kCopyingBytes = 256 * 1024 * 1024;
  static constexpr size_t kPooledBytes = 64 * 1024 * 1024;

  Pieces() = default;
  Pieces(const Pieces&) = delete;
  Pieces& operator=(const Pieces&) = delete;
  ~Pieces();

  void add(const Fragment& fragment) {
    if (fragment->size() < kShareFrom && (open_ || copying())) {
      append(*fragment);
    } else {
      flush();
      pieces_.push_back(fragment);
    }
  }

  void append(std::string_view text);

  // The pieces, in order; leaves this empty.
  std::vector<Fragment> take();

  // Joined pieces held (by documents and answers) and idle in the pool.
  static size_t heldBytes();
  static size_t pooledBytes();

 private:
  // Whether small fragments are copied (below kCopyingBytes held).
  static bool copying();
  void flush();

  std::vector<Fragment> pieces_;
  std::unique_ptr<std::string> open_;  // the joined piece being filled
};

}  // namespace mesos::internal::master
