// File operations of the mesos-fetcher helper: writing inside a sandbox
// without following symbolic links, and writing no more than the file system
// has room for. They block; only the helper process calls them, never an
// actor.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <sys/types.h>
#include <unistd.h>

#include "mesos/result.hpp"

namespace mesos::internal::slave::fetcher {

// Owns a file descriptor (closes it when it goes); movable, unlike
// mesos::Fd, so that it can travel in a Result.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& that) noexcept : fd_(that.release()) {}
  UniqueFd& operator=(UniqueFd&& that) noexcept {
    if (this != &that) {
      reset();
      fd_ = that.release();
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// Bytes an unprivileged writer may still put on the file system holding
// `fd` (statvfs's f_bavail: root's reserve does not count).
Result<uint64_t> availableBytes(int fd);

// Writes all of data[0, size) to `fd`. Fails without writing when `size`
// bytes do not fit in availableBytes(fd) ("the file system of '<what>' has
// N bytes free; M more do not fit"), or when write() fails.
Result<void> writeChecked(int fd, const char* data, size_t size, const std::string& what);

// Opens the directory `relative` below the directory `root` (an open
// directory), creating missing components (mode 0755). No component may
// be a symbolic link: that fails, naming it. `relative` must be a
// containedPath() ("" for `root` itself). Returns a new descriptor.
Result<UniqueFd> openDirectoryBelow(int root, const std::string& relative,
                                    const std::string& rootName);

// Creates `name` in the directory `dir` as a whole: `fill` writes its
// contents into a temporary file of the same directory, which then replaces
// `name` (renamed over it: an existing symbolic link is replaced, never
// followed). Fails, removing the temporary file, when `fill` fails (its
// error is returned as it is) or the file cannot be made. `mode` applies
// on success.
Result<void> replaceFileAt(int dir, const std::string& name, mode_t mode,
                           const std::function<Result<void>(int fd)>& fill);

// Copies the whole of `from` (read from offset 0) to `to` (at its current
// offset), within the free space of `to`'s file system: refused up front
// when `from` is larger than that. `what` names the destination in errors.
Result<uint64_t> copyContents(int from, int to, const std::string& what);

// "1.5 MiB", for progress lines.
std::string humanBytes(uint64_t bytes);

}  // namespace mesos::internal::slave::fetcher
