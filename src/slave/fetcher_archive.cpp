#include "slave/fetcher_archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "common/strings.hpp"
#include "slave/fetcher_io.hpp"

namespace mesos::internal::slave::fetcher {

namespace {

struct ReadDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriteDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};
using Reader = std::unique_ptr<archive, ReadDeleter>;
using Writer = std::unique_ptr<archive, WriteDeleter>;

std::string errorOf(archive* a) {
  const char* text = archive_error_string(a);
  return text != nullptr ? text : "unknown error";
}

// Where the link at `linkPath` (contained, normalized) points, relative to
// the sandbox; an error when `target` is absolute or climbs out.
Result<std::string> resolveLinkTarget(const std::string& linkPath, const std::string& target) {
  if (target.empty()) return Error{"it is a symbolic link to nothing"};
  if (target[0] == '/') return Error{"it is a symbolic link to the absolute path '" + target + "'"};
  std::vector<std::string> parts = strings::splitNonEmpty(linkPath, '/');
  parts.pop_back();  // the link's own name
  for (const std::string& part : strings::splitNonEmpty(target, '/')) {
    if (part == ".") continue;
    if (part == "..") {
      if (parts.empty())
        return Error{"it is a symbolic link to '" + target + "', outside the sandbox"};
      parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string resolved;
  for (const std::string& part : parts) resolved += (resolved.empty() ? "" : "/") + part;
  return resolved;
}

std::string withoutGzSuffix(const std::string& name) { return name.substr(0, name.size() - 3); }

// Writes the one stream of a gzip file next to it.
Result<void> gunzip(const std::string& sandbox, int sandboxFd, const std::string& file) {
  const std::string display = "'" + file + "'";
  Reader reader(archive_read_new());
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_format_raw(reader.get());
  if (archive_read_open_filename(reader.get(), (sandbox + "/" + file).c_str(), 1 << 16) !=
      ARCHIVE_OK) {
    return Error{"cannot read " + display + ": " + errorOf(reader.get())};
  }
  archive_entry* entry = nullptr;
  if (archive_read_next_header(reader.get(), &entry) != ARCHIVE_OK) {
    return Error{"cannot read " + display + ": " + errorOf(reader.get())};
  }
  size_t slash = file.rfind('/');
  std::string directory = slash == std::string::npos ? "" : file.substr(0, slash);
  std::string name = withoutGzSuffix(file.substr(slash + 1));
  auto dir = openDirectoryBelow(sandboxFd, directory, sandbox);
  if (!dir) return dir.error();
  uint64_t total = 0;
  auto written = replaceFileAt(dir->get(), name, 0644, [&](int fd) -> Result<void> {
    char buffer[1 << 16];
    for (;;) {
      la_ssize_t n = archive_read_data(reader.get(), buffer, sizeof(buffer));
      if (n < 0) return Error{"cannot decompress " + display + ": " + errorOf(reader.get())};
      if (n == 0) return {};
      auto ok = writeChecked(fd, buffer, static_cast<size_t>(n), sandbox + "/" + file);
      if (!ok) return Error{"cannot decompress " + display + ": " + ok.error().message};
      total += static_cast<uint64_t>(n);
    }
  });
  if (!written) return written.error();
  std::fprintf(stderr, "mesos-fetcher: decompressed '%s' into '%s' (%s)\n", file.c_str(),
               (directory.empty() ? name : directory + "/" + name).c_str(),
               humanBytes(total).c_str());
  return {};
}

// The first of `links` (paths of links this archive made) that `path`
// goes through, or "" when none.
std::string linkOnTheWay(const std::string& path, const std::vector<std::string>& links) {
  for (size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    for (const std::string& link : links) {
      if (link == prefix) return link;
    }
  }
  return "";
}

// Checks one entry and makes its names the normalized ones. Returns false
// (and no error) for an entry to skip: the archive's own top directory.
Result<bool> admit(archive_entry* entry, const std::string& display,
                   std::vector<std::string>* symlinks) {
  const char* raw = archive_entry_pathname_utf8(entry);
  if (raw == nullptr) raw = archive_entry_pathname(entry);
  if (raw == nullptr) return Error{display + " holds an entry without a readable name"};
  std::string path = raw;
  mode_t type = archive_entry_filetype(entry);
  auto contained = containedPath(path);
  if (!contained) {
    std::string normalized;
    for (const std::string& part : strings::splitNonEmpty(path, '/')) {
      if (part != ".") normalized += part;
    }
    if (type == AE_IFDIR && !path.empty() && path[0] != '/' && normalized.empty()) return false;
    return Error{display + " holds '" + path + "': " + contained.error().message};
  }
  archive_entry_set_pathname(entry, contained->c_str());
  if (std::string link = linkOnTheWay(*contained, *symlinks); !link.empty()) {
    return Error{display + " holds '" + path + "', which goes through its symbolic link '" + link +
                 "'"};
  }

  if (const char* hardlink = archive_entry_hardlink(entry); hardlink != nullptr) {
    auto target = containedPath(hardlink);
    if (!target) {
      return Error{display + " holds '" + path + "', a hard link to " + target.error().message};
    }
    if (std::string link = linkOnTheWay(*target, *symlinks); !link.empty()) {
      return Error{display + " holds '" + path + "', a hard link to '" + hardlink +
                   "' through its symbolic link '" + link + "'"};
    }
    archive_entry_set_hardlink(entry, target->c_str());
    return true;
  }
  if (type == AE_IFLNK) {
    const char* target = archive_entry_symlink(entry);
    auto resolved = resolveLinkTarget(*contained, target != nullptr ? target : "");
    if (!resolved) return Error{display + " holds '" + path + "': " + resolved.error().message};
    symlinks->push_back(*contained);
    return true;
  }
  if (type != AE_IFREG && type != AE_IFDIR) {
    return Error{display + " holds '" + path +
                 "', which is a device, FIFO or socket; only files, directories and links are "
                 "extracted"};
  }
  archive_entry_set_perm(entry, archive_entry_perm(entry) & 0777);
  return true;
}

// Every link in `symlinks` must still lead inside the sandbox once all the
// links it may go through exist.
Result<void> checkLinks(const std::string& sandbox, const std::vector<std::string>& symlinks,
                        const std::string& display) {
  char root[PATH_MAX];
  if (::realpath(sandbox.c_str(), root) == nullptr) {
    return Error{"cannot resolve the sandbox '" + sandbox + "': " + std::strerror(errno)};
  }
  std::string rootPath = root;
  for (const std::string& link : symlinks) {
    char resolved[PATH_MAX];
    std::string full = sandbox + "/" + link;
    if (::realpath(full.c_str(), resolved) == nullptr) continue;  // dangling: leads nowhere
    std::string target = resolved;
    if (target == rootPath || target.rfind(rootPath + "/", 0) == 0) continue;
    ::unlink(full.c_str());
    return Error{display + " holds '" + link + "', a symbolic link that leads to '" + target +
                 "', outside the sandbox (removed)"};
  }
  return {};
}

}  // namespace

Result<void> extract(const std::string& sandbox, int sandboxFd, const std::string& file,
                     ArchiveKind kind) {
  if (kind == ArchiveKind::kGzip) return gunzip(sandbox, sandboxFd, file);
  const std::string display = "archive '" + file + "'";

  if (::fchdir(sandboxFd) != 0) {
    return Error{"cannot enter the sandbox '" + sandbox + "': " + std::strerror(errno)};
  }
  Reader reader(archive_read_new());
  archive_read_support_filter_all(reader.get());
  if (kind == ArchiveKind::kZip) {
    archive_read_support_format_zip(reader.get());
  } else {
    archive_read_support_format_tar(reader.get());
    archive_read_support_format_gnutar(reader.get());
  }
  if (archive_read_open_filename(reader.get(), file.c_str(), 1 << 16) != ARCHIVE_OK) {
    return Error{"cannot read " + display + ": " + errorOf(reader.get())};
  }
  Writer writer(archive_write_disk_new());
  archive_write_disk_set_options(
      writer.get(), ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                        ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
  struct stat self {};
  if (::stat(file.c_str(), &self) == 0) {
    // An entry of the same name never overwrites the archive being read.
    archive_write_disk_set_skip_file(writer.get(), static_cast<la_int64_t>(self.st_dev),
                                     static_cast<la_int64_t>(self.st_ino));
  }

  std::vector<std::string> symlinks;
  size_t entries = 0;
  uint64_t bytes = 0;
  auto unpack = [&]() -> Result<void> {
    for (;;) {
      archive_entry* entry = nullptr;
      int status = archive_read_next_header(reader.get(), &entry);
      if (status == ARCHIVE_EOF) break;
      if (status < ARCHIVE_WARN)
        return Error{"cannot read " + display + ": " + errorOf(reader.get())};
      auto admitted = admit(entry, display, &symlinks);
      if (!admitted) return admitted.error();
      if (!*admitted) continue;
      std::string name = archive_entry_pathname(entry);
      if (archive_entry_size_is_set(entry) && archive_entry_size(entry) > 0) {
        auto available = availableBytes(sandboxFd);
        if (!available) return available.error();
        if (static_cast<uint64_t>(archive_entry_size(entry)) > *available) {
          return Error{display + " holds '" + name + "' of " +
                       std::to_string(archive_entry_size(entry)) +
                       " bytes; the sandbox's file "
                       "system has " +
                       std::to_string(*available) + " free"};
        }
      }
      if (archive_write_header(writer.get(), entry) < ARCHIVE_WARN) {
        return Error{"cannot extract '" + name + "' from " + display + ": " +
                     errorOf(writer.get())};
      }
      for (;;) {
        const void* block = nullptr;
        size_t size = 0;
        la_int64_t offset = 0;
        status = archive_read_data_block(reader.get(), &block, &size, &offset);
        if (status == ARCHIVE_EOF) break;
        if (status < ARCHIVE_WARN) {
          return Error{"cannot read " + display + ": " + errorOf(reader.get())};
        }
        auto available = availableBytes(sandboxFd);
        if (!available) return available.error();
        if (size > *available) {
          return Error{"cannot extract '" + name + "' from " + display + ": the sandbox's file " +
                       "system has " + std::to_string(*available) + " bytes free; " +
                       std::to_string(size) + " more do not fit"};
        }
        if (archive_write_data_block(writer.get(), block, size, offset) < ARCHIVE_WARN) {
          return Error{"cannot extract '" + name + "' from " + display + ": " +
                       errorOf(writer.get())};
        }
        bytes += size;
      }
      if (archive_write_finish_entry(writer.get()) < ARCHIVE_WARN) {
        return Error{"cannot extract '" + name + "' from " + display + ": " +
                     errorOf(writer.get())};
      }
      ++entries;
    }
    if (archive_write_close(writer.get()) < ARCHIVE_WARN) {
      return Error{"cannot extract " + display + ": " + errorOf(writer.get())};
    }
    return {};
  };
  Result<void> unpacked = unpack();
  // Also after a failure: no link made so far may be left leading out.
  Result<void> links = checkLinks(sandbox, symlinks, display);
  if (!unpacked) return unpacked.error();
  if (!links) return links.error();
  std::fprintf(stderr, "mesos-fetcher: extracted %zu entries (%s) from '%s' into the sandbox\n",
               entries, humanBytes(bytes).c_str(), file.c_str());
  return {};
}

}  // namespace mesos::internal::slave::fetcher
