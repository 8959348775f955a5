#include "support/small_disk.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "support/subprocess.hpp"

namespace mesos::test {

namespace {

using namespace std::chrono_literals;

// The program `name` in the usual system directories, or "".
std::string findProgram(const std::string& name) {
  for (const char* dir : {"/usr/sbin", "/sbin", "/usr/bin", "/bin"}) {
    std::string path = std::string(dir) + "/" + name;
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

}  // namespace

SmallDisk::SmallDisk(std::string dir, uint64_t bytes) : dir_(std::move(dir)) {
  std::error_code ec;
  madeDir_ = std::filesystem::create_directories(dir_, ec);
  if (ec) {
    missing_ = "cannot make " + dir_ + ": " + ec.message();
    return;
  }
  std::string options = "size=" + std::to_string(bytes);
  if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, options.c_str()) == 0) {
    mounted_ = true;
    return;
  }
  std::string tmpfsError = std::strerror(errno);

  // A loop-mounted ext4 image instead (ext4 needs a few hundred KiB for itself).
  std::string mkfs = findProgram("mkfs.ext4");
  std::string mountProgram = findProgram("mount");
  if (mkfs.empty() || mountProgram.empty()) {
    missing_ = "cannot mount a tmpfs (" + tmpfsError + ") and mkfs.ext4 or mount is not installed";
    return;
  }
  image_ = dir_ + ".img";
  int fd = ::open(image_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(std::max<uint64_t>(bytes, 1u << 20))) != 0) {
    missing_ = "cannot mount a tmpfs (" + tmpfsError + ") nor make an image " + image_ + ": " +
               std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return;
  }
  ::close(fd);
  ChildResult made = runChild({mkfs, "-q", "-F", "-m", "0", image_}, 60s);
  if (!made.exitedWith(0)) {
    missing_ =
        "cannot mount a tmpfs (" + tmpfsError + ") nor make an ext4 image: " + made.describe();
    return;
  }
  ChildResult loop = runChild({mountProgram, "-o", "loop", image_, dir_}, 60s);
  if (!loop.exitedWith(0)) {
    missing_ = "cannot mount a tmpfs (" + tmpfsError + ") nor loop-mount an ext4 image: " +
               loop.describe();
    return;
  }
  mounted_ = true;
}

SmallDisk::~SmallDisk() {
  if (mounted_ && ::umount2(dir_.c_str(), MNT_DETACH) != 0) {
    // Nothing more a test can do: say it, where the test's output goes.
    std::fprintf(stderr, "cannot unmount %s: %s\n", dir_.c_str(), std::strerror(errno));
    return;
  }
  std::error_code ec;
  if (!image_.empty()) std::filesystem::remove(image_, ec);
  if (madeDir_) std::filesystem::remove_all(dir_, ec);
}

bool SmallDisk::fill() {
  std::string path = dir_ + "/filler";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return errno == ENOSPC;
  std::vector<char> chunk(64 << 10, 'x');
  size_t size = chunk.size();
  bool full = false;
  // Big writes first, then ever smaller ones for the last partial block.
  while (size > 0) {
    ssize_t n = ::write(fd, chunk.data(), size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (errno != ENOSPC) break;
      full = true;
      size /= 2;
    }
  }
  ::fsync(fd);
  ::close(fd);
  return full;
}

void SmallDisk::free() {
  std::error_code ec;
  std::filesystem::remove(dir_ + "/filler", ec);
}

}  // namespace mesos::test
