// Extracting one image layer (a tar stream, plain or compressed) into a
// directory of the store, with the layer's whiteouts written the way
// overlayfs reads them. Used by the mesos-provisioner helper (it links
// libarchive; the slave does not).
#pragma once

#include <string>

#include "mesos/result.hpp"

namespace mesos::internal::slave::provisioner {

// Name prefixes of whiteout entries in image layers (OCI image spec).
inline constexpr char kWhiteoutPrefix[] = ".wh.";
inline constexpr char kOpaqueWhiteout[] = ".wh..wh..opq";
inline constexpr char kOpaqueXattr[] = "trusted.overlay.opaque";

// Extracts the layer `tarball` into `rootfs` (an existing, empty directory),
// keeping owners (when root), modes, times and extended attributes.
// Whiteouts are converted: `.wh.NAME` becomes a character device 0/0 named
// NAME, and `.wh..wh..opq` sets trusted.overlay.opaque=y on its directory.
// Without the rights for those (not root), the whiteout entries are kept
// as empty files of their own names; the copy backend reads both forms.
// Fails, naming the entry, for an absolute name, a name with "..", a name
// or hard link that goes through a symbolic link, or a tar that cannot be
// read; what was extracted so far is left for the caller to remove.
Result<void> extractLayer(const std::string& tarball, const std::string& rootfs);

}  // namespace mesos::internal::slave::provisioner
