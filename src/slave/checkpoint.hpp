// The slave's checkpoints: files it reads back when it starts again after a
// crash or an upgrade (docs/recovery.md). Written so that a crash at any
// instant leaves either the old content or the new, never a mix:
//   - whole files (infos, pids) go to a temporary file beside the target,
//     are synced, then renamed over it;
//   - the status update streams are append-only logs of records, each a
//     header (length, CRC-32) and a serialized message; a record torn by a
//     crash in the middle of an append is found and left out.
// All calls block on the disk (an fsync: about a millisecond on a local
// disk): the slave makes them for checkpointing frameworks only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <google/protobuf/message.h>

#include "mesos/result.hpp"

namespace mesos::internal::slave::checkpoint {

// Replaces `path` with `content`, durably and atomically, making missing
// parent directories. Fails naming the file and the cause.
Result<void> write(const std::string& path, const std::string& content);
Result<void> write(const std::string& path, const google::protobuf::Message& message);

// What write() wrote. Fails naming the file: missing (Error::code ENOENT),
// unreadable, or, for a message, not a whole message of that type.
Result<std::string> read(const std::string& path);
Result<void> read(const std::string& path, google::protobuf::Message* message);

// The records of a log, as readRecords() found them.
struct Records {
  std::vector<std::string> records;  // the serialized messages, in order
  uint64_t validBytes = 0;           // where the last whole record ends
  bool torn = false;                 // a partial record follows validBytes
};

// Reads every whole record of the log at `path`. A partial record at the
// end (a crash during an append), or a tail of zeros (a crash after the file
// grew but before its new bytes were written), sets `torn` and is left out. Fails naming
// the file and the offset when a whole record is corrupt (its CRC does not
// match, or its length cannot be): that is not a crash's doing.
Result<Records> readRecords(const std::string& path);

// Appends records to a log, each synced to disk before append() returns.
class RecordLog {
 public:
  // Opens (creating it and its directories when missing) the log at `path`
  // for appending after its first `validBytes` bytes (what readRecords()
  // found whole; the torn rest is cut off). Fails naming the file.
  static Result<RecordLog> open(const std::string& path, uint64_t validBytes = 0);

  RecordLog(RecordLog&& other) noexcept;
  RecordLog& operator=(RecordLog&& other) noexcept;
  RecordLog(const RecordLog&) = delete;
  RecordLog& operator=(const RecordLog&) = delete;
  ~RecordLog();

  // Appends `record` and syncs it. Fails naming the file and the cause
  // (ENOSPC: "No space left on device"); the log is then as it was before
  // (a partly written record is cut off again), and appending may go on.
  Result<void> append(const google::protobuf::Message& record);
  const std::string& path() const { return path_; }

 private:
  RecordLog(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;  // where the whole records end: the next append goes here
};

// CRC-32 (IEEE 802.3, as zlib computes it) of `data`.
uint32_t crc32(const std::string& data);

}  // namespace mesos::internal::slave::checkpoint
