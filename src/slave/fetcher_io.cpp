#include "slave/fetcher_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/strings.hpp"

namespace mesos::internal::slave::fetcher {

namespace {

Error systemError(const std::string& what, int error) {
  return Error{what + ": " + std::strerror(error)};
}

}  // namespace

Result<uint64_t> availableBytes(int fd) {
  struct statvfs stats {};
  if (::fstatvfs(fd, &stats) != 0) return systemError("cannot measure free disk space", errno);
  return static_cast<uint64_t>(stats.f_bavail) * static_cast<uint64_t>(stats.f_frsize);
}

Result<void> writeChecked(int fd, const char* data, size_t size, const std::string& what) {
  auto available = availableBytes(fd);
  if (!available) return available.error();
  if (size > *available) {
    return Error{"the file system of '" + what + "' has " + std::to_string(*available) +
                 " bytes free; " + std::to_string(size) + " more do not fit"};
  }
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return systemError("cannot write '" + what + "'", errno);
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return {};
}

Result<UniqueFd> openDirectoryBelow(int root, const std::string& relative,
                                    const std::string& rootName) {
  UniqueFd current(::fcntl(root, F_DUPFD_CLOEXEC, 0));
  if (current.get() < 0) return systemError("cannot open '" + rootName + "'", errno);
  std::string walked = rootName;
  for (const std::string& part : strings::splitNonEmpty(relative, '/')) {
    walked += "/" + part;
    if (::mkdirat(current.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
      return systemError("cannot create directory '" + walked + "'", errno);
    }
    UniqueFd next(
        ::openat(current.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0) {
      if (errno == ELOOP || errno == ENOTDIR) {
        return Error{"'" + walked +
                     "' is not a directory (a symbolic link or a file is in the way)"};
      }
      return systemError("cannot open directory '" + walked + "'", errno);
    }
    current = std::move(next);
  }
  return current;
}

Result<void> replaceFileAt(int dir, const std::string& name, mode_t mode,
                           const std::function<Result<void>(int fd)>& fill) {
  std::string temporary = "." + name + ".fetching-" + std::to_string(::getpid());
  UniqueFd file(
      ::openat(dir, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (file.get() < 0 && errno == EEXIST) {
    // Left by an earlier helper with our pid that was killed.
    ::unlinkat(dir, temporary.c_str(), 0);
    file = UniqueFd(::openat(dir, temporary.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  }
  if (file.get() < 0) return systemError("cannot create '" + name + "'", errno);
  auto fail = [&](Error error) {
    ::unlinkat(dir, temporary.c_str(), 0);
    return error;
  };
  if (auto filled = fill(file.get()); !filled) return fail(filled.error());
  if (::fchmod(file.get(), mode) != 0)
    return fail(systemError("cannot chmod '" + name + "'", errno));
  if (::close(file.release()) != 0) return fail(systemError("cannot write '" + name + "'", errno));
  if (::renameat(dir, temporary.c_str(), dir, name.c_str()) != 0) {
    return fail(systemError("cannot put '" + name + "' in place", errno));
  }
  return {};
}

Result<uint64_t> copyContents(int from, int to, const std::string& what) {
  struct stat source {};
  if (::fstat(from, &source) != 0)
    return systemError("cannot read the source of '" + what + "'", errno);
  auto available = availableBytes(to);
  if (!available) return available.error();
  uint64_t size = static_cast<uint64_t>(source.st_size);
  if (size > *available) {
    return Error{"'" + what + "' needs " + std::to_string(size) + " bytes; its file system has " +
                 std::to_string(*available) + " free"};
  }
  std::vector<char> buffer(1 << 20);
  uint64_t copied = 0;
  for (;;) {
    ssize_t n = ::pread(from, buffer.data(), buffer.size(), static_cast<off_t>(copied));
    if (n < 0) {
      if (errno == EINTR) continue;
      return systemError("cannot read the source of '" + what + "'", errno);
    }
    if (n == 0) break;
    if (auto written = writeChecked(to, buffer.data(), static_cast<size_t>(n), what); !written) {
      return written.error();
    }
    copied += static_cast<uint64_t>(n);
  }
  return copied;
}

std::string humanBytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof(kUnits) / sizeof(kUnits[0])) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof(text), "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof(text), "%.1f %s", value, kUnits[unit]);
  }
  return text;
}

}  // namespace mesos::internal::slave::fetcher
