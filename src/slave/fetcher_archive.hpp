// Extraction of fetched archives (libarchive), so that nothing lands outside
// the sandbox: every entry is checked before it is written, and refused,
// failing the whole extraction, when
//   - its path is absolute or has a ".." component,
//   - it is a symbolic link whose target is absolute or climbs out of the
//     sandbox from where the link is, or a hard link to such a path,
//   - it is a device, a FIFO or a socket,
//   - its path goes through a symbolic link already there (libarchive's
//     SECURE_SYMLINKS), or
//   - its bytes do not fit in the sandbox's free disk space.
// After extraction every symbolic link made is resolved once more; one that
// leads out of the sandbox (through other links) is removed and fails it.
// Entries are extracted without owners, set-id bits or ACLs, with the
// slave's umask.
//
// Blocking; only the helper process calls it (it changes the working
// directory).
#pragma once

#include <string>

#include "mesos/result.hpp"
#include "slave/fetcher_plan.hpp"

namespace mesos::internal::slave::fetcher {

// Extracts the file `file` (a containedPath() relative to `sandbox`) of
// kind `kind` (not kNone): a tar (compressed with gzip, bzip2 or xz, or not)
// or zip archive into the sandbox's top directory; a gzip file into the
// same directory as `file`, named without its ".gz". `sandboxFd` is the
// sandbox, open. The error names the archive and, when one is at fault, the
// entry ("'x.tar.gz' holds '../../etc/passwd', which climbs out with '..'";
// "cannot read 'x.tar.gz': Truncated tar archive").
Result<void> extract(const std::string& sandbox, int sandboxFd, const std::string& file,
                     ArchiveKind kind);

}  // namespace mesos::internal::slave::fetcher
