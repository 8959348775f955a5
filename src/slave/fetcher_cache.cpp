#include "slave/fetcher_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

namespace mesos::internal::slave::fetcher {

namespace {

constexpr const char* kDirectoryLock = ".lock";

Error systemError(const std::string& what, int error) {
  return Error{what + ": " + std::strerror(error)};
}

// 128 bits of FNV-1a (two seeds) in hex: a file name for a key.
std::string hashName(const std::string& key) {
  auto fnv = [&](uint64_t hash) {
    for (unsigned char c : key) {
      hash ^= c;
      hash *= 0x100000001b3ULL;
    }
    return hash;
  };
  char text[33];
  std::snprintf(text, sizeof(text), "%016llx%016llx",
                static_cast<unsigned long long>(fnv(0xcbf29ce484222325ULL)),
                static_cast<unsigned long long>(fnv(0x84222325cbf29ce4ULL)));
  return text;
}

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Holds flock(LOCK_EX) on a file of the cache directory until it goes.
class Lock {
 public:
  // Creates `name` if missing and waits for the lock. Retries when the file
  // was removed (an evicted entry's lock) while we waited, so that the lock
  // held is always on the file the name now points at.
  static Result<Lock> acquire(int dir, const std::string& name, const std::string& directory) {
    for (;;) {
      UniqueFd fd(::openat(dir, name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
      if (fd.get() < 0) return systemError("cannot open '" + directory + "/" + name + "'", errno);
      while (::flock(fd.get(), LOCK_EX) != 0) {
        if (errno != EINTR)
          return systemError("cannot lock '" + directory + "/" + name + "'", errno);
      }
      struct stat held {
      }, named{};
      if (::fstat(fd.get(), &held) == 0 &&
          ::fstatat(dir, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
          held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
        return Lock(std::move(fd));
      }
    }
  }

  // The lock on `name` if it exists and nobody holds it; else an invalid
  // Lock. Never waits.
  static Lock tryAcquire(int dir, const std::string& name) {
    UniqueFd fd(::openat(dir, name.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW));
    if (fd.get() < 0) return Lock(UniqueFd());
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return Lock(UniqueFd());
    return Lock(std::move(fd));
  }

  bool held() const { return fd_.get() >= 0; }

 private:
  explicit Lock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;  // closing it releases the lock
};

Result<void> makeDirectories(const std::string& path) {
  std::string partial;
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    partial = path.substr(0, slash);
    if (!partial.empty() && ::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      return systemError("cannot create directory '" + partial + "'", errno);
    }
    if (slash == std::string::npos) return {};
  }
}

std::string readSmallFile(int dir, const std::string& name) {
  UniqueFd fd(::openat(dir, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) return "";
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

// Marks `name` used now. The time is set explicitly, with nanoseconds: a
// file system's own timestamps may be coarser than two fetches apart.
void touch(int dir, const std::string& name) {
  timespec now[2];
  ::clock_gettime(CLOCK_REALTIME, &now[0]);
  now[1] = now[0];
  ::utimensat(dir, name.c_str(), now, AT_SYMLINK_NOFOLLOW);
}

void removeEntry(int dir, const std::string& hash) {
  for (const char* suffix : {".key", ".data", ".part", ".lock"}) {
    ::unlinkat(dir, (hash + suffix).c_str(), 0);
  }
}

}  // namespace

Result<Cache> Cache::open(const std::string& directory, uint64_t capacity) {
  if (directory.empty() || directory[0] != '/') {
    return Error{"the fetcher cache directory '" + directory + "' is not an absolute path"};
  }
  if (auto made = makeDirectories(directory); !made) return made.error();
  UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return systemError("cannot open the fetcher cache '" + directory + "'", errno);
  return Cache(directory, std::move(dir), capacity);
}

Result<Cache::Entry> Cache::get(const std::string& key, const Download& download) {
  const std::string hash = hashName(key);
  const std::string data = hash + ".data";
  const std::string keyFile = hash + ".key";
  const std::string part = hash + ".part";

  // Waits here while another helper downloads the same key.
  auto entryLock = Lock::acquire(dir_.get(), hash + ".lock", directory_);
  if (!entryLock) return entryLock.error();

  {
    auto directoryLock = Lock::acquire(dir_.get(), kDirectoryLock, directory_);
    if (!directoryLock) return directoryLock.error();
    if (readSmallFile(dir_.get(), keyFile) == key) {
      UniqueFd file(::openat(dir_.get(), data.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
      if (file.get() >= 0) {
        touch(dir_.get(), keyFile);
        Entry entry;
        entry.file = std::move(file);
        entry.hit = true;
        entry.kept = true;
        return entry;
      }
    }
    // Nothing committed for this key: whatever is left (another key of the
    // same hash, or a helper's leftovers) goes.
    ::unlinkat(dir_.get(), keyFile.c_str(), 0);
    ::unlinkat(dir_.get(), data.c_str(), 0);
  }

  UniqueFd file(::openat(dir_.get(), part.c_str(),
                         O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (file.get() < 0) return systemError("cannot create '" + directory_ + "/" + part + "'", errno);
  if (auto downloaded = download(file.get()); !downloaded) {
    ::unlinkat(dir_.get(), part.c_str(), 0);
    return downloaded.error();
  }
  struct stat stats {};
  if (::fstat(file.get(), &stats) != 0) {
    ::unlinkat(dir_.get(), part.c_str(), 0);
    return systemError("cannot read '" + directory_ + "/" + part + "'", errno);
  }
  uint64_t size = static_cast<uint64_t>(stats.st_size);

  Entry entry;
  entry.file = std::move(file);
  auto notKept = [&](std::string why) {
    ::unlinkat(dir_.get(), part.c_str(), 0);
    entry.note = std::move(why);
    return std::move(entry);
  };
  if (size > capacity_) {
    return notKept("its " + std::to_string(size) + " bytes are more than the whole cache (" +
                   std::to_string(capacity_) + " bytes)");
  }

  auto directoryLock = Lock::acquire(dir_.get(), kDirectoryLock, directory_);
  if (!directoryLock) return directoryLock.error();
  auto room = makeRoom(size, hash);
  if (!room) return room.error();
  if (!*room) return notKept("the cache is full of files in use");
  if (::renameat(dir_.get(), part.c_str(), dir_.get(), data.c_str()) != 0) {
    return notKept(std::string("cannot keep it: ") + std::strerror(errno));
  }
  {
    UniqueFd keyOut(::openat(dir_.get(), keyFile.c_str(),
                             O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644));
    bool written = keyOut.get() >= 0 && ::write(keyOut.get(), key.data(), key.size()) ==
                                            static_cast<ssize_t>(key.size());
    if (!written) {
      ::unlinkat(dir_.get(), keyFile.c_str(), 0);
      ::unlinkat(dir_.get(), data.c_str(), 0);
      entry.note = "cannot record it in the cache";
      return entry;
    }
  }
  touch(dir_.get(), keyFile);
  entry.kept = true;
  return entry;
}

Result<bool> Cache::makeRoom(uint64_t size, const std::string& keep) {
  struct Committed {
    std::string hash;
    timespec used;
    uint64_t size;
  };
  std::vector<Committed> committed;
  std::map<std::string, bool> withKey;  // hash -> has a .key
  std::vector<std::string> leftovers;   // .data without .key, .part

  UniqueFd listing(::openat(dir_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  DIR* dir = listing.get() >= 0 ? ::fdopendir(listing.release()) : nullptr;
  if (dir == nullptr)
    return systemError("cannot list the fetcher cache '" + directory_ + "'", errno);
  std::vector<std::string> names;
  while (dirent* item = ::readdir(dir)) names.emplace_back(item->d_name);
  ::closedir(dir);

  for (const std::string& name : names) {
    if (endsWith(name, ".key")) withKey[name.substr(0, name.size() - 4)] = true;
  }
  for (const std::string& name : names) {
    if (endsWith(name, ".data")) {
      std::string hash = name.substr(0, name.size() - 5);
      if (hash == keep) continue;
      struct stat data {
      }, key{};
      if (!withKey.count(hash) || ::fstatat(dir_.get(), name.c_str(), &data, 0) != 0 ||
          ::fstatat(dir_.get(), (hash + ".key").c_str(), &key, 0) != 0) {
        leftovers.push_back(hash);
        continue;
      }
      committed.push_back(Committed{hash, key.st_mtim, static_cast<uint64_t>(data.st_size)});
    } else if (endsWith(name, ".part")) {
      std::string hash = name.substr(0, name.size() - 5);
      if (hash != keep) leftovers.push_back(hash);
    }
  }

  // Leftovers of killed helpers: theirs when nobody holds the entry's lock.
  for (const std::string& hash : leftovers) {
    Lock lock = Lock::tryAcquire(dir_.get(), hash + ".lock");
    if (lock.held()) {
      ::unlinkat(dir_.get(), (hash + ".part").c_str(), 0);
      if (!withKey.count(hash)) ::unlinkat(dir_.get(), (hash + ".data").c_str(), 0);
    }
  }

  uint64_t total = 0;
  for (const Committed& entry : committed) total += entry.size;
  std::sort(committed.begin(), committed.end(), [](const Committed& a, const Committed& b) {
    if (a.used.tv_sec != b.used.tv_sec) return a.used.tv_sec < b.used.tv_sec;
    if (a.used.tv_nsec != b.used.tv_nsec) return a.used.tv_nsec < b.used.tv_nsec;
    return a.hash < b.hash;
  });
  for (const Committed& entry : committed) {
    if (total + size <= capacity_) break;
    // An entry whose lock is held is being read (or replaced): it stays.
    Lock lock = Lock::tryAcquire(dir_.get(), entry.hash + ".lock");
    if (!lock.held() && ::faccessat(dir_.get(), (entry.hash + ".lock").c_str(), F_OK, 0) == 0) {
      continue;
    }
    std::string key = readSmallFile(dir_.get(), entry.hash + ".key");
    removeEntry(dir_.get(), entry.hash);
    total -= entry.size;
    std::fprintf(stderr, "mesos-fetcher: evicted '%s' (%llu bytes) from the cache\n",
                 key.substr(key.find('\n') + 1).c_str(),
                 static_cast<unsigned long long>(entry.size));
  }
  return total + size <= capacity_;
}

}  // namespace mesos::internal::slave::fetcher
