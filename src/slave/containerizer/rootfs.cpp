#include "slave/containerizer/rootfs.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace mesos::internal::slave {

namespace {

std::string failed(const std::string& what, int error) {
  return what + ": " + std::strerror(error);
}

// Whether `path` is absolute and has no ".." component: a target the
// framework gave cannot climb out of the root filesystem by itself (a
// symlink inside the image still could; see below).
bool contained(const std::string& path) {
  if (path.empty() || path[0] != '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (path.compare(start, end - start, "..") == 0 && end - start == 2) return false;
    start = end + 1;
  }
  return true;
}

// Makes the mount point `inside` (below `root`) for `source`: directories
// down to it, and an empty file at the end when the source is a file. The
// walk goes one component at a time from the root and refuses a symlink on
// the way: a root filesystem comes from an image, and a link there to an
// absolute path would lead onto the host's tree (we are not inside yet).
// Nothing of the container runs yet, so the path stays as checked until it
// is mounted on.
std::string makeMountPoint(const std::string& root, const std::string& inside,
                           const std::string& source) {
  if (!contained(inside)) return "mount target '" + inside + "' is not an absolute path inside";
  struct stat info {};
  if (::stat(source.c_str(), &info) != 0) return failed("cannot find " + source, errno);
  std::vector<std::string> components;
  for (size_t start = 1; start < inside.size();) {
    size_t end = inside.find('/', start);
    if (end == std::string::npos) end = inside.size();
    if (end > start && inside.compare(start, end - start, ".") != 0) {
      components.push_back(inside.substr(start, end - start));
    }
    start = end + 1;
  }
  if (components.empty()) return "mount target '" + inside + "' is the root itself";
  int dir = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return failed("cannot open " + root, errno);
  std::string walked;
  for (size_t i = 0; i < components.size(); ++i) {
    const std::string& name = components[i];
    walked += "/" + name;
    const bool last = i + 1 == components.size();
    if (last && !S_ISDIR(info.st_mode)) {
      int fd = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
      int error = errno;
      ::close(dir);
      if (fd < 0) {
        return error == ELOOP ? "mount target '" + inside + "' is a symlink"
                              : failed("cannot create " + root + walked, error);
      }
      ::close(fd);
      return "";
    }
    if (::mkdirat(dir, name.c_str(), 0755) != 0 && errno != EEXIST) {
      int error = errno;
      ::close(dir);
      return failed("cannot create " + root + walked, error);
    }
    int next = ::openat(dir, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int error = errno;
    ::close(dir);
    if (next < 0) {
      return error == ELOOP || error == ENOTDIR
                 ? "mount target '" + inside + "' goes through '" + walked +
                       "', which is a symlink or not a directory"
                 : failed("cannot open " + root + walked, error);
    }
    dir = next;
  }
  ::close(dir);
  return "";
}

std::string bind(const std::string& source, const std::string& target, bool readOnly) {
  if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
    return failed("cannot bind " + source + " at " + target, errno);
  }
  if (readOnly && ::mount(nullptr, target.c_str(), nullptr,
                          MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0) {
    return failed("cannot make " + target + " read-only", errno);
  }
  return "";
}

// /dev: a tmpfs holding the usual character devices (bound from the
// host's), a new devpts instance, /dev/shm and the fd links.
std::string mountDev(const std::string& root) {
  const std::string dev = root + "/dev";
  if (auto error = makeMountPoint(root, "/dev", "/dev"); !error.empty()) return error;
  if (::mount("tmpfs", dev.c_str(), "tmpfs", MS_NOSUID | MS_NOEXEC | MS_STRICTATIME,
              "mode=755,size=65536k") != 0) {
    return failed("cannot mount a tmpfs at " + dev, errno);
  }
  // Each device is made with mknod (no mount to make, none to tear down);
  // where that is not allowed (a slave in a user namespace), the host's
  // node is bound instead.
  for (const char* name : {"null", "zero", "full", "random", "urandom", "tty"}) {
    const std::string host = std::string("/dev/") + name;
    struct stat device {};
    if (::stat(host.c_str(), &device) != 0 || !S_ISCHR(device.st_mode)) continue;
    const std::string node = dev + "/" + name;
    if (::mknod(node.c_str(), S_IFCHR | 0666, device.st_rdev) == 0) {
      if (::chmod(node.c_str(), 0666) != 0) return failed("cannot open up " + node, errno);
      continue;
    }
    if (errno != EPERM) return failed("cannot make " + node, errno);
    int fd = ::open(node.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return failed("cannot create " + node, errno);
    ::close(fd);
    if (auto error = bind(host, node, false); !error.empty()) return error;
  }
  const std::string pts = dev + "/pts";
  const std::string shm = dev + "/shm";
  if (::mkdir(pts.c_str(), 0755) != 0) return failed("cannot create " + pts, errno);
  if (::mount("devpts", pts.c_str(), "devpts", MS_NOSUID | MS_NOEXEC,
              "newinstance,ptmxmode=0666,mode=0620") != 0) {
    return failed("cannot mount devpts at " + pts, errno);
  }
  if (::symlink("pts/ptmx", (dev + "/ptmx").c_str()) != 0) return failed("cannot link ptmx", errno);
  if (::mkdir(shm.c_str(), 01777) != 0) return failed("cannot create " + shm, errno);
  if (::mount("tmpfs", shm.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
    return failed("cannot mount a tmpfs at " + shm, errno);
  }
  const std::pair<const char*, const char*> links[] = {{"/proc/self/fd", "fd"},
                                                       {"/proc/self/fd/0", "stdin"},
                                                       {"/proc/self/fd/1", "stdout"},
                                                       {"/proc/self/fd/2", "stderr"}};
  for (const auto& [to, name] : links) {
    if (::symlink(to, (dev + "/" + name).c_str()) != 0) {
      return failed(std::string("cannot link /dev/") + name, errno);
    }
  }
  return "";
}

}  // namespace

std::string overlayOptionsFile(const std::string& rootfs) { return rootfs + ".overlay"; }

bool isMountPoint(const std::string& path) {
  struct statx self {
  }, parent{};
  if (::statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &self) != 0 ||
      ::statx(AT_FDCWD, (path + "/..").c_str(), 0, STATX_MNT_ID, &parent) != 0) {
    return false;
  }
  if ((self.stx_mask & STATX_MNT_ID) == 0 || (parent.stx_mask & STATX_MNT_ID) == 0) return false;
  return self.stx_mnt_id != parent.stx_mnt_id;
}

std::string mountProvisionedRootfs(const std::string& rootfs) {
  const std::string file = overlayOptionsFile(rootfs);
  int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? "" : failed("cannot open " + file, errno);
  struct stat info {};
  std::string options;
  std::string error;
  if (::fstat(fd, &info) != 0) {
    error = failed("cannot stat " + file, errno);
  } else if (!S_ISREG(info.st_mode) || info.st_uid != 0 || (info.st_mode & 022) != 0) {
    error = file + " is not a regular file that only root may write";
  } else {
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof(buffer))) > 0 && options.size() < sizeof(buffer)) {
      options.append(buffer, static_cast<size_t>(n));
    }
    if (n < 0) error = failed("cannot read " + file, errno);
  }
  ::close(fd);
  if (!error.empty()) return error;
  if (options.empty() || options.size() >= 4096) return file + " holds no overlayfs options";
  if (isMountPoint(rootfs)) return "";  // mounted already (the command executor's namespace)
  if (::mount("overlay", rootfs.c_str(), "overlay", 0, options.c_str()) != 0) {
    return failed("cannot mount the image's overlayfs at " + rootfs, errno);
  }
  return "";
}

std::string parseVolume(const std::string& value, RootfsVolume* volume) {
  size_t first = value.find(':');
  if (first == std::string::npos || first == 0) return "expected SOURCE:TARGET[:ro|:rw]";
  size_t second = value.find(':', first + 1);
  volume->source = value.substr(0, first);
  volume->target =
      value.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  volume->readOnly = false;
  if (second != std::string::npos) {
    std::string mode = value.substr(second + 1);
    if (mode != "ro" && mode != "rw") return "mode '" + mode + "' is neither ro nor rw";
    volume->readOnly = mode == "ro";
  }
  if (volume->source[0] != '/') return "source '" + volume->source + "' is not absolute";
  if (volume->target.empty() || !contained("/" + volume->target)) {
    return "target '" + volume->target + "' is empty or holds '..'";
  }
  return "";
}

std::string mountVolumes(const RootfsSpec& spec) {
  for (const RootfsVolume& volume : spec.volumes) {
    std::string target = volume.target;
    if (target[0] == '/') {
      struct stat info {};
      if (::stat(target.c_str(), &info) != 0) {
        return failed("mount target " + target +
                          " (on the host, the container having no root "
                          "filesystem of its own) must exist",
                      errno);
      }
    } else {
      if (spec.sandbox.empty()) return "a relative mount target '" + target + "' needs a sandbox";
      if (auto error = makeMountPoint(spec.sandbox, "/" + target, volume.source); !error.empty()) {
        return error;
      }
      target = spec.sandbox + "/" + target;
    }
    if (auto error = bind(volume.source, target, volume.readOnly); !error.empty()) return error;
  }
  return "";
}

std::string prepareRootfs(const RootfsSpec& spec) {
  const std::string& root = spec.rootfs;
  struct stat info {};
  if (::stat(root.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return failed("cannot use root filesystem " + root, errno != 0 ? errno : ENOTDIR);
  }
  if (auto error = mountProvisionedRootfs(root); !error.empty()) return error;
  // pivot_root wants the new root to be a mount point (an overlayfs root
  // is one already).
  if (!isMountPoint(root)) {
    if (auto error = bind(root, root, false); !error.empty()) return error;
  }
  const std::string proc = root + "/proc";
  if (auto error = makeMountPoint(root, "/proc", "/proc"); !error.empty()) return error;
  if (::mount("proc", proc.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    return failed("cannot mount /proc at " + proc, errno);
  }
  const std::string sys = root + "/sys";
  if (auto error = makeMountPoint(root, "/sys", "/sys"); !error.empty()) return error;
  // A sysfs of its own, read-only, with nothing mounted below it: the
  // host's cgroup hierarchies under /sys/fs/cgroup stay out of reach (a
  // recursive bind would bring them in, writable). Where a new sysfs is
  // not allowed, the host's /sys alone is bound, read-only.
  constexpr unsigned long sysFlags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
  if (::mount("sysfs", sys.c_str(), "sysfs", sysFlags, nullptr) != 0 &&
      (errno != EPERM || ::mount("/sys", sys.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
       ::mount(nullptr, sys.c_str(), nullptr, MS_BIND | MS_REMOUNT | sysFlags, nullptr) != 0)) {
    return failed("cannot mount /sys at " + sys, errno);
  }
  if (auto error = mountDev(root); !error.empty()) return error;
  if (!spec.sandbox.empty()) {
    if (auto error = makeMountPoint(root, spec.sandboxTarget, spec.sandbox); !error.empty()) {
      return error;
    }
    if (auto error = bind(spec.sandbox, root + spec.sandboxTarget, false); !error.empty()) {
      return error;
    }
  }
  for (const RootfsVolume& volume : spec.volumes) {
    // A relative target is in the sandbox, as the container sees it.
    const std::string target =
        volume.target[0] == '/' ? volume.target : spec.sandboxTarget + "/" + volume.target;
    if (auto error = makeMountPoint(root, target, volume.source); !error.empty()) return error;
    if (auto error = bind(volume.source, root + target, volume.readOnly); !error.empty()) {
      return error;
    }
  }
  return "";
}

std::string pivotInto(const std::string& root, const std::string& workingDirectory) {
  // pivot_root wants the new root to be a mount point: already so after
  // prepareRootfs(), also when a prepared root filesystem is entered from
  // another mount namespace; a plain directory (--chroot) is bound onto
  // itself.
  if (auto error = mountProvisionedRootfs(root); !error.empty()) return error;
  if (!isMountPoint(root)) {
    if (auto error = bind(root, root, false); !error.empty()) return error;
  }
  // The root filesystem becomes "/", the host's tree is stacked below it
  // and detached (pivot_root(".", ".")).
  if (::chdir(root.c_str()) != 0) return failed("cannot enter " + root, errno);
  if (::syscall(SYS_pivot_root, ".", ".") != 0)
    return failed("cannot pivot_root to " + root, errno);
  if (::umount2(".", MNT_DETACH) != 0) return failed("cannot detach the host's root", errno);
  // A working directory the image names but does not have is made, as
  // Docker does (inside: the host's tree is gone).
  if (::chdir(workingDirectory.c_str()) != 0 && errno == ENOENT) {
    for (size_t end = workingDirectory.find('/', 1);; end = workingDirectory.find('/', end + 1)) {
      const std::string prefix = workingDirectory.substr(0, end);
      if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) break;
      if (end == std::string::npos) break;
    }
  }
  if (::chdir(workingDirectory.c_str()) != 0) {
    return failed("cannot enter working directory " + workingDirectory + " in the root filesystem",
                  errno);
  }
  return "";
}

std::string enterRootfs(const RootfsSpec& spec) {
  if (auto error = prepareRootfs(spec); !error.empty()) return error;
  std::string workdir = spec.workingDirectory;
  if (workdir.empty()) workdir = spec.sandbox.empty() ? "/" : spec.sandboxTarget;
  return pivotInto(spec.rootfs, workdir);
}

}  // namespace mesos::internal::slave
