// A small file system of a test's own, to fill up (tests of what the slave
// does on a full disk): a tmpfs mounted with size=, or, where tmpfs cannot
// be mounted, a loop-mounted ext4 image. Needs root (mount(2)).
#pragma once

#include <cstdint>
#include <string>

namespace mesos::test {

class SmallDisk {
 public:
  // Mounts a file system of `bytes` (rounded up to pages) at `dir`, making
  // `dir` when missing. On failure missing() says what was missing.
  SmallDisk(std::string dir, uint64_t bytes);
  // Unmounts it (lazily, should something still hold it open) and removes
  // what the constructor made: the mount point and the image.
  ~SmallDisk();
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;

  // "" when mounted; otherwise why not (for GTEST_SKIP).
  const std::string& missing() const { return missing_; }
  const std::string& dir() const { return dir_; }

  // Writes <dir>/filler until the file system refuses (ENOSPC), so that no
  // write needing a new block succeeds. Whether it ended with ENOSPC.
  bool fill();
  // Removes <dir>/filler: the space is free again.
  void free();

 private:
  std::string dir_;
  std::string image_;  // the ext4 image, when that is what is mounted
  std::string missing_;
  bool mounted_ = false;
  bool madeDir_ = false;
};

}  // namespace mesos::test
