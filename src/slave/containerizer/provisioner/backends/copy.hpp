// The copy backend: the layers copied, bottom first, into <directory>/rootfs,
// each layer's whiteouts applied as it is copied (a character device 0/0 or
// a `.wh.NAME` file removes NAME; a directory marked opaque, by the
// trusted.overlay.opaque xattr or a `.wh..wh..opq` file, loses what lower
// layers put in it). Works on any file system and without root (owners are
// then the caller's), at the cost of a full copy per container. Hard links
// within a layer stay hard links.
#pragma once

#include "slave/containerizer/provisioner/backends/backend.hpp"

namespace mesos::internal::slave::provisioner {

class CopyBackend : public Backend {
 public:
  std::string name() const override { return "copy"; }
  Result<std::string> provision(const std::vector<std::string>& layers,
                                const std::string& directory) override;
};

}  // namespace mesos::internal::slave::provisioner
