// filesystem/linux: every container gets a mount namespace of its own, and
// the volumes of its ContainerInfo are bind mounts in it, made by the
// launch helper before anything of the container runs:
//   - Volume.source HOST_PATH, or an absolute legacy host_path, is that
//     path on the host; SANDBOX_PATH (SELF), or a relative host_path, is a
//     directory in the sandbox (made when missing, owned as the sandbox);
//   - an absolute container_path is that path in the container's tree (it
//     must exist on the host: nothing is made there); a relative one is in
//     the sandbox (made when missing);
//   - mode RO mounts it read-only: writes fail (EROFS) whatever the file
//     permissions say.
// A container from an image (ContainerConfig::rootfs, provisioned by the
// slave) runs in that root filesystem, with /proc, /sys, a minimal /dev,
// the sandbox at /mnt/mesos/sandbox and the volumes (absolute targets in
// the image's tree, made there when missing) mounted into it; the command
// executor stays on the host's root and starts its task in it.
// Mounts end with the container's mount namespace: nothing is left on the
// host after the container, whatever killed it. So the isolator keeps no
// state, and recovery and cleanup have nothing to do.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "mesos/isolator.hpp"
#include "mesos/result.hpp"

namespace mesos::internal::isolation {

class LinuxFilesystemIsolator : public mesos::isolation::Isolator {
 public:
  // Fails when the slave cannot make mount namespaces (not root).
  static Result<std::unique_ptr<LinuxFilesystemIsolator>> create();

  std::string name() const override { return "filesystem/linux"; }
  Result<void> recover(const std::map<std::string, pid_t>&) override { return {}; }
  Result<mesos::isolation::LaunchRequirements> prepare(
      const mesos::isolation::ContainerConfig& config) override;
  Result<void> isolate(const ContainerID&, pid_t) override { return {}; }
  Result<void> update(const ContainerID&, const Resources&) override { return {}; }
  Result<void> usage(const ContainerID&, ResourceStatistics*) override { return {}; }
  Result<void> kill(const ContainerID&) override { return {}; }
  Result<void> cleanup(const ContainerID&) override { return {}; }

 private:
  LinuxFilesystemIsolator() = default;
};

}  // namespace mesos::internal::isolation
