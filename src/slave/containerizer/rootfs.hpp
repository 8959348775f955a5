// Entering a container's root filesystem (the filesystem/linux part of the
// launch helper, mesos-containerizer --rootfs): in the helper's own mount
// namespace, the root filesystem gets /proc, /sys, a minimal /dev, the
// sandbox and the volumes mounted into it, becomes the process's root
// (pivot_root, the host's tree detached), and the process moves to the
// working directory. Nothing mounted here shows on the host, and all of it
// goes when the mount namespace's last process ends.
#pragma once

#include <string>
#include <vector>

namespace mesos::internal::slave {

struct RootfsVolume {
  std::string source;  // on the host (a directory or a file)
  // Absolute: in the root filesystem (the host's when there is none).
  // Relative: in the sandbox.
  std::string target;
  bool readOnly = false;
};

struct RootfsSpec {
  std::string rootfs;   // the root filesystem's directory on the host
  std::string sandbox;  // the sandbox on the host; empty: none
  std::string sandboxTarget = "/mnt/mesos/sandbox";
  std::vector<RootfsVolume> volumes;
  std::string workingDirectory;  // inside; empty: the sandbox's target, else /
};

// A root filesystem the provisioner left unmounted (the overlay backend, for
// the slave): its overlayfs mount options are in the file
// overlayOptionsFile(rootfs), and the launch helper mounts it in the
// container's own mount namespace. The host's mount table then holds no
// mount per container: a new mount namespace copies the host's table, so a
// thousand host mounts would make every launch copy (and later drop) a
// thousand mounts, and each would propagate into every container's
// namespace that is its slave.
std::string overlayOptionsFile(const std::string& rootfs);

// Whether `path` is a mount point in this mount namespace (its mount id
// differs from its parent's). Needs statx's mount id (Linux 5.8); false
// when it is not there to ask.
bool isMountPoint(const std::string& path);

// When `rootfs` is no mount point here and overlayOptionsFile(rootfs)
// exists: mounts overlayfs at `rootfs` with the options the file holds. The
// file must be root's and writable by root only (the slave's provisioner
// wrote it). "" on success or when there is nothing to mount, else why not.
// REQUIRES as enterRootfs().
std::string mountProvisionedRootfs(const std::string& rootfs);

// Parses --volume's value: SOURCE:TARGET[:ro|:rw]. Empty string on success,
// else what is wrong.
std::string parseVolume(const std::string& value, RootfsVolume* volume);

// Without a root filesystem of its own: mounts the volumes in the host's
// tree, as the caller's mount namespace sees it. A relative target is made
// in the sandbox (walked as makeMountPoint() does: a symlink a fetched
// archive left there leads nowhere); an absolute one must exist already,
// as in Apache Mesos (nothing is made on the host's tree). REQUIRES as
// enterRootfs().
std::string mountVolumes(const RootfsSpec& spec);

// Mounts /proc, /sys, /dev, the sandbox and the volumes into the root
// filesystem, and leaves the process on the host's root: the command
// executor stays there and starts its task in it (pivotInto()). REQUIRES as
// enterRootfs().
std::string prepareRootfs(const RootfsSpec& spec);

// Makes `root`, prepared already, the process's root (pivot_root; the
// host's tree detached) and moves to `workingDirectory` in it. REQUIRES as
// enterRootfs().
std::string pivotInto(const std::string& root, const std::string& workingDirectory);

// Does it all: prepareRootfs(), then pivotInto() the working directory
// (empty: the sandbox's target, else /). REQUIRES: the caller is in a mount namespace of its own
// whose mounts do not propagate to the host's (MS_SLAVE or MS_PRIVATE),
// and is root. Returns "" or one line naming the step that failed and why
// (errno text); on failure the process should exit: it is half inside.
std::string enterRootfs(const RootfsSpec& spec);

}  // namespace mesos::internal::slave
