// The fetcher cache: files fetched for URIs with `cache` set, kept in one
// directory per slave (--fetcher_cache_dir) and shared by every
// mesos-fetcher helper of that slave, least recently used first out when
// their total would pass --fetcher_cache_size.
//
// Several helpers may use the cache at once. They coordinate through file
// locks (flock) only: a lock on the whole directory, held for a few
// milliseconds to look up, evict or commit, and a lock per entry, held while
// its file is downloaded, so that helpers wanting the same URI download it
// once (the others wait, then find it cached). A helper killed at any point
// leaves nothing that a later one misreads: partial downloads and
// uncommitted files are removed by the next eviction.
//
// In the directory, an entry is <hash>.data (the bytes), <hash>.key (the
// user and URI it holds, written last: it commits the entry; its mtime is
// the last use), and <hash>.lock.
//
// Blocking; only the helper process calls it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "mesos/result.hpp"
#include "slave/fetcher_io.hpp"

namespace mesos::internal::slave::fetcher {

class Cache {
 public:
  // Opens the cache in `directory` (created, with its parents, if missing),
  // holding at most `capacity` bytes. Fails naming the directory.
  static Result<Cache> open(const std::string& directory, uint64_t capacity);

  struct Entry {
    UniqueFd file;     // the bytes, open for reading from offset 0; stays
                       // readable even if the entry is evicted meanwhile
    bool hit = false;  // cached before this call: nothing was downloaded
    // Whether the file is now in the cache. When not, `file` is the
    // download, already unlinked, and `note` says why it was not kept (larger
    // than the whole cache, or the cache full of files in use).
    bool kept = false;
    std::string note;
  };

  // Fills `fd` (an empty file in the cache's directory) with the bytes of
  // the entry; the error is returned from get() as it is.
  using Download = std::function<Result<void>(int fd)>;

  // The entry for `key` (fetcher_plan.hpp cacheKey()): the cached file on a
  // hit (which makes it the most recently used); on a miss, waits for any
  // other helper downloading the same key, else runs `download` and keeps
  // the result when it fits, evicting least recently used entries that no
  // helper is reading at that moment. Fails when the download fails (nothing
  // is kept) or the cache directory cannot be used.
  Result<Entry> get(const std::string& key, const Download& download);

  const std::string& directory() const { return directory_; }

 private:
  Cache(std::string directory, UniqueFd dir, uint64_t capacity)
      : directory_(std::move(directory)), dir_(std::move(dir)), capacity_(capacity) {}

  // Removes least recently used entries (never `keep`) until `size` more
  // bytes fit; whether they do. REQUIRES: the directory lock is held.
  Result<bool> makeRoom(uint64_t size, const std::string& keep);

  std::string directory_;
  UniqueFd dir_;
  uint64_t capacity_;
};

}  // namespace mesos::internal::slave::fetcher
