#include "slave/containerizer/isolators/filesystem/linux_filesystem_isolator.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mesos::internal::isolation {

namespace {

// Whether `path` has a ".." component.
bool climbs(const std::string& path) {
  return ("/" + path + "/").find("/../") != std::string::npos;
}

// Makes the directory `relative` below `sandbox`, one component at a time,
// never through a symlink (what the fetcher extracted there is the
// framework's), owned as the sandbox is. Returns its path.
Result<std::string> sandboxDirectory(const std::string& sandbox, const std::string& relative) {
  struct stat owner {};
  if (::stat(sandbox.c_str(), &owner) != 0) {
    return Error{"cannot find the sandbox " + sandbox + ": " + std::strerror(errno)};
  }
  int dir = ::open(sandbox.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return Error{"cannot open the sandbox " + sandbox + ": " + std::strerror(errno)};
  std::string walked = sandbox;
  size_t start = 0;
  while (start < relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos) end = relative.size();
    const std::string name = relative.substr(start, end - start);
    start = end + 1;
    if (name.empty() || name == ".") continue;
    walked += "/" + name;
    if (::mkdirat(dir, name.c_str(), 0755) == 0) {
      (void)::fchownat(dir, name.c_str(), owner.st_uid, owner.st_gid, AT_SYMLINK_NOFOLLOW);
    } else if (errno != EEXIST) {
      int error = errno;
      ::close(dir);
      return Error{"cannot create " + walked + ": " + std::strerror(error)};
    }
    int next = ::openat(dir, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int error = errno;
    ::close(dir);
    if (next < 0) {
      return Error{walked + " is a symlink or not a directory (" + std::strerror(error) + ")"};
    }
    dir = next;
  }
  ::close(dir);
  return walked;
}

}  // namespace

Result<std::unique_ptr<LinuxFilesystemIsolator>> LinuxFilesystemIsolator::create() {
  if (::geteuid() != 0) {
    return Error{"needs root: only root can give a container a mount namespace of its own"};
  }
  return std::unique_ptr<LinuxFilesystemIsolator>(new LinuxFilesystemIsolator());
}

Result<mesos::isolation::LaunchRequirements> LinuxFilesystemIsolator::prepare(
    const mesos::isolation::ContainerConfig& config) {
  mesos::isolation::LaunchRequirements requirements;
  requirements.namespaces.push_back("mnt");
  const ContainerInfo& container = config.executor.container();
  for (int i = 0; i < container.volumes_size(); ++i) {
    const Volume& volume = container.volumes(i);
    const std::string& target = volume.container_path();
    const std::string name = "volume " + target;
    if (volume.has_image()) return Error{name + ": image volumes are not supported"};
    // Where it comes from: Volume.source (a host path, or a path in the
    // sandbox) or the older host_path (absolute: the host's; relative: the
    // sandbox's).
    std::string host = volume.host_path();
    bool inSandbox = !host.empty() && host[0] != '/';
    if (volume.has_source()) {
      const Volume::Source& source = volume.source();
      if (!host.empty()) return Error{name + ": has both host_path and source"};
      if (source.type() == Volume::Source::HOST_PATH) {
        host = source.host_path().path();
        if (host.empty() || host[0] != '/') {
          return Error{name + ": source.host_path.path '" + host + "' is not absolute"};
        }
        if (source.host_path().mount_propagation().mode() == MountPropagation::BIDIRECTIONAL) {
          return Error{name + ": BIDIRECTIONAL mount propagation is not supported"};
        }
      } else if (source.type() == Volume::Source::SANDBOX_PATH) {
        host = source.sandbox_path().path();
        if (source.sandbox_path().type() != Volume::Source::SandboxPath::SELF) {
          return Error{name + ": only SELF sandbox paths (no nested containers here)"};
        }
        if (host.empty() || host[0] == '/') {
          return Error{name + ": source.sandbox_path.path '" + host + "' is not relative"};
        }
        inSandbox = true;
      } else {
        return Error{name + ": source type " + Volume::Source::Type_Name(source.type()) +
                     " is not supported (HOST_PATH and SANDBOX_PATH are)"};
      }
    }
    if (host.empty() || target.empty()) return Error{name + ": needs a source and container_path"};
    if (climbs(host) || climbs(target)) return Error{name + ": a path holds '..'"};
    mesos::isolation::LaunchRequirements::Mount mount;
    mount.readOnly = volume.mode() == Volume::RO;
    mount.target = target;
    if (!inSandbox) {
      struct stat info {};
      if (::stat(host.c_str(), &info) != 0) {
        return Error{name + ": host path " + host + ": " + std::strerror(errno)};
      }
      mount.source = host;
    } else {
      auto made = sandboxDirectory(config.directory, host);
      if (!made) return Error{name + ": " + made.error().message};
      mount.source = *made;
    }
    requirements.mounts.push_back(std::move(mount));
  }
  // A container from an image: the volumes go into its root filesystem.
  requirements.rootfs = config.rootfs;
  requirements.rootfsForTask = !config.rootfs.empty() && !config.executorInRootfs;
  return requirements;
}

}  // namespace mesos::internal::isolation
