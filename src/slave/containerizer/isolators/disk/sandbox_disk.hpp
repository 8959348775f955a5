// What the disk isolators (disk/du, disk/xfs) hold a sandbox to.
#pragma once

#include <cstdint>
#include <optional>

#include "mesos/resources.hpp"

namespace mesos::internal::isolation {

// The container's `disk` resource, in bytes; none when it has none. Its
// persistent volumes are not the sandbox's: a volume is linked into the
// sandbox (not walked, not in its project) and has disk of its own
// (docs/persistent-volumes.md).
inline std::optional<uint64_t> sandboxDiskLimit(const Resources& resources) {
  double mb = 0;
  for (const Resource& resource : resources) {
    if (resource.name() == "disk" && !Resources::isPersistentVolume(resource)) {
      mb += resource.scalar().value();
    }
  }
  if (mb <= 0) return std::nullopt;
  return static_cast<uint64_t>(mb * 1024 * 1024);
}

}  // namespace mesos::internal::isolation
