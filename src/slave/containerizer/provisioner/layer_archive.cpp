#include "slave/containerizer/provisioner/layer_archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "common/strings.hpp"

namespace mesos::internal::slave::provisioner {

namespace {

struct ReadDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriteDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};

std::string errorOf(archive* a) {
  const char* text = archive_error_string(a);
  return text != nullptr ? text : "unknown error";
}

// `name` as a relative path without "." parts; an error for an absolute
// name or one with "..".
Result<std::string> normalize(const std::string& name) {
  if (!name.empty() && name[0] == '/') return Error{"it is an absolute path"};
  std::string result;
  for (const std::string& part : strings::splitNonEmpty(name, '/')) {
    if (part == ".") continue;
    if (part == "..") return Error{"it climbs out with '..'"};
    result += (result.empty() ? "" : "/") + part;
  }
  return result;
}

// The first directory on the way to `relative` below `rootfs` that is a
// symbolic link, or "" when none is.
std::string symlinkOnTheWay(const std::string& rootfs, const std::string& relative) {
  std::string prefix;
  std::vector<std::string> parts = strings::splitNonEmpty(relative, '/');
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix += (prefix.empty() ? "" : "/") + parts[i];
    struct stat stats {};
    if (::lstat((rootfs + "/" + prefix).c_str(), &stats) == 0 && S_ISLNK(stats.st_mode)) {
      return prefix;
    }
  }
  return "";
}

Result<void> makeParents(const std::string& rootfs, const std::string& relative) {
  size_t slash = relative.rfind('/');
  if (slash == std::string::npos) return {};
  std::error_code error;
  std::filesystem::create_directories(rootfs + "/" + relative.substr(0, slash), error);
  if (error) return Error{"cannot create the parents of '" + relative + "': " + error.message()};
  return {};
}

Result<void> emptyFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Error{"cannot create '" + path + "': " + std::strerror(errno)};
  ::close(fd);
  return {};
}

// Writes the whiteout `relative` (its base name starts with ".wh.").
Result<void> whiteout(const std::string& rootfs, const std::string& relative) {
  size_t slash = relative.rfind('/');
  std::string parent = slash == std::string::npos ? "" : relative.substr(0, slash);
  std::string base = relative.substr(slash == std::string::npos ? 0 : slash + 1);
  std::string parentPath = parent.empty() ? rootfs : rootfs + "/" + parent;
  if (auto made = makeParents(rootfs, relative); !made) return made.error();

  if (base == kOpaqueWhiteout) {
    if (::setxattr(parentPath.c_str(), kOpaqueXattr, "y", 1, 0) == 0) return {};
    if (errno != EPERM && errno != ENOTSUP && errno != EACCES) {
      return Error{"cannot mark '" + parent + "' opaque: " + std::strerror(errno)};
    }
    return emptyFile(rootfs + "/" + relative);
  }
  std::string name = base.substr(std::strlen(kWhiteoutPrefix));
  if (name.empty() || name == "." || name == "..") {
    return Error{"the whiteout '" + relative + "' names no file"};
  }
  std::string target = parentPath + "/" + name;
  std::error_code ignored;
  std::filesystem::remove_all(target, ignored);
  if (::mknod(target.c_str(), S_IFCHR | 0000, makedev(0, 0)) == 0) return {};
  if (errno != EPERM && errno != EACCES) {
    return Error{"cannot write the whiteout of '" + name + "': " + std::strerror(errno)};
  }
  return emptyFile(rootfs + "/" + relative);
}

}  // namespace

Result<void> extractLayer(const std::string& tarball, const std::string& rootfsPath) {
  char resolved[PATH_MAX];
  if (::realpath(rootfsPath.c_str(), resolved) == nullptr) {
    return Error{"cannot resolve '" + rootfsPath + "': " + std::strerror(errno)};
  }
  const std::string rootfs = resolved;
  std::unique_ptr<archive, ReadDeleter> reader(archive_read_new());
  archive_read_support_filter_all(reader.get());
  archive_read_support_format_tar(reader.get());
  archive_read_support_format_gnutar(reader.get());
  if (archive_read_open_filename(reader.get(), tarball.c_str(), 1 << 16) != ARCHIVE_OK) {
    return Error{"cannot read the layer '" + tarball + "': " + errorOf(reader.get())};
  }
  std::unique_ptr<archive, WriteDeleter> writer(archive_write_disk_new());
  int flags = ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_XATTR |
              ARCHIVE_EXTRACT_UNLINK | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
              ARCHIVE_EXTRACT_SECURE_NODOTDOT;
  if (::geteuid() == 0) flags |= ARCHIVE_EXTRACT_OWNER;
  archive_write_disk_set_options(writer.get(), flags);
  archive_write_disk_set_standard_lookup(writer.get());

  for (;;) {
    archive_entry* entry = nullptr;
    int status = archive_read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status < ARCHIVE_WARN) {
      return Error{"cannot read the layer '" + tarball + "': " + errorOf(reader.get())};
    }
    const char* raw = archive_entry_pathname(entry);
    std::string name = raw != nullptr ? raw : "";
    auto refuse = [&](const std::string& why) {
      return Error{"the layer '" + tarball + "' holds '" + name + "': " + why};
    };
    auto relative = normalize(name);
    if (!relative) return refuse(relative.error().message);
    if (relative->empty()) continue;  // the layer's root itself
    if (std::string link = symlinkOnTheWay(rootfs, *relative); !link.empty()) {
      return refuse("it goes through the symbolic link '" + link + "'");
    }
    std::string base = relative->substr(relative->rfind('/') + 1);
    if (base.rfind(kWhiteoutPrefix, 0) == 0) {
      if (auto written = whiteout(rootfs, *relative); !written)
        return refuse(written.error().message);
      continue;
    }
    if (const char* hardlink = archive_entry_hardlink(entry); hardlink != nullptr) {
      auto target = normalize(hardlink);
      if (!target || target->empty()) {
        return refuse(std::string("a hard link to '") + hardlink + "' outside the layer");
      }
      if (std::string link = symlinkOnTheWay(rootfs, *target + "/x"); !link.empty()) {
        return refuse("a hard link through the symbolic link '" + link + "'");
      }
      archive_entry_set_hardlink(entry, (rootfs + "/" + *target).c_str());
    }
    archive_entry_set_pathname(entry, (rootfs + "/" + *relative).c_str());
    if (archive_write_header(writer.get(), entry) < ARCHIVE_WARN) {
      return refuse("cannot extract it: " + errorOf(writer.get()));
    }
    for (;;) {
      const void* block = nullptr;
      size_t size = 0;
      la_int64_t offset = 0;
      status = archive_read_data_block(reader.get(), &block, &size, &offset);
      if (status == ARCHIVE_EOF) break;
      if (status < ARCHIVE_WARN) {
        return Error{"cannot read the layer '" + tarball + "': " + errorOf(reader.get())};
      }
      if (archive_write_data_block(writer.get(), block, size, offset) < ARCHIVE_WARN) {
        return refuse("cannot extract it: " + errorOf(writer.get()));
      }
    }
    if (archive_write_finish_entry(writer.get()) < ARCHIVE_WARN) {
      return refuse("cannot extract it: " + errorOf(writer.get()));
    }
  }
  if (archive_write_close(writer.get()) < ARCHIVE_WARN) {
    return Error{"cannot extract the layer '" + tarball + "': " + errorOf(writer.get())};
  }
  return {};
}

}  // namespace mesos::internal::slave::provisioner
