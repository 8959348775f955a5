// --registry=file: the registry in files under <--work_dir>/registry, for a
// master without --zk. "header" says how many shards there are; each shard
// is a file "shard-<n>" replaced whole (written aside, synced, renamed, the
// directory synced), so a crash leaves either the old or the new content;
// "maintenance" (the maintenance schedule and machines) and "settings"
// (quota and weights) are replaced alike.
// A lock on "lock" keeps a second master off the same directory.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "master/registrar/storage.hpp"
#include "registry.pb.h"

namespace mesos::internal::master::registrar {

namespace {

std::string errnoText(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

Result<std::optional<std::string>> readFile(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) return std::optional<std::string>();
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{errnoText("cannot read", path)};
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return Error{errnoText("cannot read", path)};
  return std::optional<std::string>(content.str());
}

// Replaces `path` with `content`: written aside and synced, then renamed.
Result<void> replaceFile(const std::string& path, const std::string& content) {
  std::string aside = path + ".new";
  int fd = ::open(aside.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Error{errnoText("cannot create", aside)};
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Error error{errnoText("cannot write", aside)};
      ::close(fd);
      ::unlink(aside.c_str());
      return error;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Error error{errnoText("cannot sync", aside)};
    ::close(fd);
    ::unlink(aside.c_str());
    return error;
  }
  ::close(fd);
  if (::rename(aside.c_str(), path.c_str()) != 0) {
    Error error{errnoText("cannot rename to", path)};
    ::unlink(aside.c_str());
    return error;
  }
  return {};
}

Result<void> syncDirectory(const std::string& directory) {
  int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error{errnoText("cannot open", directory)};
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Error{errnoText("cannot sync", directory)};
  return {};
}

class FileStorage : public Storage {
 public:
  explicit FileStorage(std::string directory) : directory_(std::move(directory)) {}
  ~FileStorage() override {
    if (lock_ >= 0) ::close(lock_);
  }

  std::string describe() const override { return "files under " + directory_; }
  bool durable() const override { return true; }

  process::Future<Result<Contents>> recover(uint32_t shards) override {
    return recoverNow(shards);
  }

  process::Future<Result<process::Nothing>> write(
      std::vector<std::pair<uint32_t, std::string>> shards,
      Nodes nodes) override {
    for (const auto& [index, content] : shards) {
      if (auto done = replaceFile(shardPath(index), content); !done) {
        return Result<process::Nothing>(done.error());
      }
    }
    for (const auto& [name, content] : nodes) {
      if (auto done = replaceFile(directory_ + "/" + name, content); !done) {
        return Result<process::Nothing>(done.error());
      }
    }
    if (auto synced = syncDirectory(directory_); !synced) {
      return Result<process::Nothing>(synced.error());
    }
    return Result<process::Nothing>(process::Nothing{});
  }

 private:
  std::string shardPath(uint32_t index) const {
    char name[32];
    std::snprintf(name, sizeof(name), "/shard-%04u", index);
    return directory_ + name;
  }

  Result<Contents> recoverNow(uint32_t shards) {
    std::error_code error;
    std::filesystem::create_directories(directory_, error);
    if (error) return Error{"cannot make " + directory_ + ": " + error.message()};
    std::string lockPath = directory_ + "/lock";
    lock_ = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock_ < 0) return Error{errnoText("cannot open", lockPath)};
    if (::flock(lock_, LOCK_EX | LOCK_NB) != 0) {
      return Error{errno == EWOULDBLOCK
                       ? "another master holds " + directory_ + " (its lock " + lockPath +
                             " is taken); give each master its own --work_dir, or use --zk"
                       : errnoText("cannot lock", lockPath)};
    }
    std::string headerPath = directory_ + "/header";
    auto header = readFile(headerPath);
    if (!header) return header.error();
    registry::Header parsed;
    if (!header.value()) {
      parsed.set_format(1);
      parsed.set_shards(shards);
      if (auto made = replaceFile(headerPath, parsed.SerializeAsString()); !made) {
        return made.error();
      }
      if (auto synced = syncDirectory(directory_); !synced) return synced.error();
    } else if (!parsed.ParseFromString(**header) || parsed.format() != 1 ||
               parsed.shards() == 0 || parsed.shards() > 65536) {
      return Error{"the registry's header " + headerPath +
                   " is corrupt or of an unknown format; refusing to start from it"};
    }
    Contents contents{std::vector<std::string>(parsed.shards()), {}};
    for (uint32_t i = 0; i < parsed.shards(); ++i) {
      auto content = readFile(shardPath(i));
      if (!content) return content.error();
      if (*content) contents.shards[i] = std::move(**content);
    }
    for (const char* name : kNodeNames) {
      auto node = readFile(directory_ + "/" + name);
      if (!node) return node.error();
      if (*node) contents.nodes[name] = std::move(**node);
    }
    return contents;
  }

  std::string directory_;
  int lock_ = -1;
};

}  // namespace

std::unique_ptr<Storage> fileStorage(std::string directory) {
  return std::make_unique<FileStorage>(std::move(directory));
}

}  // namespace mesos::internal::master::registrar
