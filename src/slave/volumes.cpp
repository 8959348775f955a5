#include "slave/volumes.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/ids.hpp"
#include "common/roles.hpp"
#include "messages.pb.h"
#include "slave/checkpoint.hpp"

namespace mesos::internal::slave::volumes {

namespace {

std::string cause(int code) { return std::strerror(code); }

// A descriptor closed when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// Empties the directory open as `dirFd` (`shown`: its path, for errors);
// never follows a link: each entry is opened relative to its parent with
// O_NOFOLLOW, and a link is unlinked like a file.
Result<void> emptyDirectory(int dirFd, const std::string& shown) {
  int scan = ::dup(dirFd);
  if (scan < 0) return Error{"cannot read " + shown + ": " + cause(errno)};
  DIR* dir = ::fdopendir(scan);
  if (dir == nullptr) {
    int code = errno;
    ::close(scan);
    return Error{"cannot read " + shown + ": " + cause(code)};
  }
  std::vector<std::string> names;
  while (dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  for (const std::string& name : names) {
    const std::string path = shown + "/" + name;
    struct stat s {};
    if (::fstatat(dirFd, name.c_str(), &s, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return Error{"cannot remove " + path + ": " + cause(errno)};
    }
    if (S_ISDIR(s.st_mode)) {
      Fd child(::openat(dirFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (child.get() < 0) return Error{"cannot remove " + path + ": " + cause(errno)};
      if (auto emptied = emptyDirectory(child.get(), path); !emptied) return emptied;
      if (::unlinkat(dirFd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
        return Error{"cannot remove " + path + ": " + cause(errno)};
      }
    } else if (::unlinkat(dirFd, name.c_str(), 0) != 0 && errno != ENOENT) {
      return Error{"cannot remove " + path + ": " + cause(errno)};
    }
  }
  return {};
}

bool validComponent(const std::string& component) {
  return !component.empty() && component != "." && component != "..";
}

}  // namespace

std::string resourcesInfoPath(const std::string& workDir) {
  return workDir + "/meta/resources/resources.info";
}

std::string volumePath(const std::string& workDir, const std::string& role,
                       const std::string& id) {
  std::string directory = role;
  for (char& c : directory) {
    if (c == '/') c = ' ';
  }
  return workDir + "/volumes/roles/" + directory + "/" + id;
}

std::string volumePath(const std::string& workDir, const Resource& volume) {
  return volumePath(workDir, volume.role(), volume.disk().persistence().id());
}

Result<Resources> readCheckpointed(const std::string& workDir) {
  const std::string path = resourcesInfoPath(workDir);
  CheckpointResourcesMessage message;
  if (auto read = checkpoint::read(path, &message); !read) {
    if (read.error().code == ENOENT) return Resources();
    return read.error();
  }
  if (auto valid = Resources::validate(message.resources()); !valid) {
    return Error{path + " holds invalid resources: " + valid.error().message};
  }
  for (const Resource& resource : message.resources()) {
    if (!Resources::isPersistentVolume(resource)) continue;
    if (auto valid = validateVolume(resource); !valid) {
      return Error{path + " holds an invalid volume: " + valid.error().message};
    }
  }
  return Resources(message.resources());
}

std::map<std::string, Resource> byKey(const Resources& resources) {
  std::map<std::string, Resource> out;
  for (const Resource& resource : resources) {
    if (!Resources::isPersistentVolume(resource)) continue;
    out[resource.role() + "/" + resource.disk().persistence().id()] = resource;
  }
  return out;
}

Result<void> validateVolume(const Resource& volume) {
  if (volume.role() == "*") {
    return Error{"volume '" + volume.disk().persistence().id() + "' is not reserved for a role"};
  }
  if (auto valid = roles::validate(volume.role()); !valid) return valid.error();
  return validateId("persistence id", volume.disk().persistence().id());
}

Result<void> createVolume(const std::string& path) {
  std::string partial;
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    partial = slash == std::string::npos ? path : path.substr(0, slash);
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      return Error{"cannot create the volume directory " + partial + ": " + cause(errno)};
    }
    if (slash == std::string::npos) break;
  }
  struct stat s {};
  if (::lstat(path.c_str(), &s) != 0 || !S_ISDIR(s.st_mode)) {
    return Error{"the volume " + path + " is not a directory"};
  }
  return {};
}

Result<void> removeVolume(const std::string& path) {
  Fd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.get() < 0) {
    if (errno == ENOENT) return {};
    return Error{"cannot remove the volume " + path + ": " + cause(errno)};
  }
  if (auto emptied = emptyDirectory(dir.get(), path); !emptied) return emptied;
  if (::rmdir(path.c_str()) != 0 && errno != ENOENT) {
    return Error{"cannot remove the volume " + path + ": " + cause(errno)};
  }
  return {};
}

Result<void> giveVolume(const std::string& path, const std::string& user) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  int error = ::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (found == nullptr) {
    if (error != 0) return Error{"cannot look up user '" + user + "': " + cause(error)};
    return Error{"user '" + user + "' does not exist on this slave"};
  }
  if (::lchown(path.c_str(), found->pw_uid, found->pw_gid) != 0) {
    return Error{"cannot give the volume " + path + " to user '" + user + "': " + cause(errno)};
  }
  return {};
}

Result<void> linkVolume(const std::string& sandbox, const std::string& containerPath,
                        const std::string& target) {
  std::vector<std::string> components;
  for (size_t start = 0; start <= containerPath.size();) {
    size_t slash = containerPath.find('/', start);
    if (slash == std::string::npos) slash = containerPath.size();
    components.push_back(containerPath.substr(start, slash - start));
    start = slash + 1;
  }
  // A trailing slash ("data/") names the same place.
  if (components.size() > 1 && components.back().empty()) components.pop_back();
  if (containerPath.empty() || containerPath[0] == '/') {
    return Error{"container path '" + containerPath +
                 "' must be relative to the sandbox (no image to mount an absolute path in)"};
  }
  for (const std::string& component : components) {
    if (!validComponent(component)) {
      return Error{"container path '" + containerPath + "' must not hold empty, '.' or '..' parts"};
    }
  }

  Fd dir(::open(sandbox.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return Error{"cannot open the sandbox " + sandbox + ": " + cause(errno)};
  std::string shown = sandbox;
  for (size_t i = 0; i + 1 < components.size(); ++i) {
    const std::string& name = components[i];
    shown += "/" + name;
    if (::mkdirat(dir.get(), name.c_str(), 0755) != 0 && errno != EEXIST) {
      return Error{"cannot create " + shown + ": " + cause(errno)};
    }
    int next = ::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) return Error{"cannot use " + shown + " on the way to the volume: " + cause(errno)};
    dir.reset(next);
  }
  const std::string& last = components.back();
  shown += "/" + last;
  if (::symlinkat(target.c_str(), dir.get(), last.c_str()) == 0) return {};
  if (errno != EEXIST) return Error{"cannot link " + shown + " to the volume: " + cause(errno)};
  std::vector<char> existing(target.size() + 2);
  ssize_t length = ::readlinkat(dir.get(), last.c_str(), existing.data(), existing.size());
  if (length >= 0 && std::string(existing.data(), static_cast<size_t>(length)) == target) {
    return {};
  }
  return Error{shown + " exists already: the volume cannot be linked there"};
}

}  // namespace mesos::internal::slave::volumes
