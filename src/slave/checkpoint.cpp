#include "slave/checkpoint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <glog/logging.h>

namespace mesos::internal::slave::checkpoint {

namespace {

// A record's header: its length and the CRC-32 of its bytes, little-endian.
constexpr size_t kHeaderBytes = 8;
// No record of ours comes near this; a longer one is corruption.
constexpr uint32_t kMaxRecordBytes = 64u << 20;

Error sysError(const std::string& what, int code) {
  return Error{what + ": " + std::strerror(code), code};
}

std::string parentOf(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

Result<void> makeParents(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(parentOf(path), error);
  if (error) return Error{"cannot create " + parentOf(path) + ": " + error.message(), error.value()};
  return {};
}

Result<void> syncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return sysError("cannot open " + dir, errno);
  int synced = ::fsync(fd);
  int code = errno;
  ::close(fd);
  if (synced != 0) return sysError("cannot sync " + dir, code);
  return {};
}

Result<void> writeAll(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sysError("cannot write " + path, errno);
    data += n;
    size -= static_cast<size_t>(n);
  }
  return {};
}

void putLittleEndian(uint32_t value, char* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

uint32_t getLittleEndian(const char* in) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= uint32_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return value;
}

}  // namespace

uint32_t crc32(const std::string& data) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> entries{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      entries[i] = c;
    }
    return entries;
  }();
  uint32_t crc = 0xffffffffu;
  for (unsigned char byte : data) crc = table[(crc ^ byte) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

Result<void> write(const std::string& path, const std::string& content) {
  if (auto made = makeParents(path); !made) return made;
  std::string temporary = path + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return sysError("cannot create " + temporary, errno);
  Result<void> written = writeAll(fd, content.data(), content.size(), temporary);
  if (written && ::fsync(fd) != 0) written = sysError("cannot sync " + temporary, errno);
  ::close(fd);
  if (written && ::rename(temporary.c_str(), path.c_str()) != 0) {
    written = sysError("cannot rename " + temporary + " to " + path, errno);
  }
  if (!written) {
    ::unlink(temporary.c_str());
    return written;
  }
  return syncDirectory(parentOf(path));
}

Result<void> write(const std::string& path, const google::protobuf::Message& message) {
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    return Error{"cannot serialize the " + message.GetTypeName() + " for " + path +
                 " (required fields missing: " + message.InitializationErrorString() + ")"};
  }
  return write(path, bytes);
}

Result<std::string> read(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return sysError("cannot open " + path, errno);
  std::string content;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int code = errno;
      ::close(fd);
      return sysError("cannot read " + path, code);
    }
    if (n == 0) break;
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

Result<void> read(const std::string& path, google::protobuf::Message* message) {
  auto bytes = read(path);
  if (!bytes) return bytes.error();
  if (!message->ParseFromString(*bytes)) {
    return Error{path + " is not a whole " + message->GetTypeName() + " (" +
                 std::to_string(bytes->size()) + " bytes: truncated or corrupt)"};
  }
  return {};
}

Result<Records> readRecords(const std::string& path) {
  auto bytes = read(path);
  if (!bytes) return bytes.error();
  Records records;
  const std::string& data = *bytes;
  size_t offset = 0;
  while (offset < data.size()) {
    // A file system may make a file longer before the appended bytes reach
    // the disk: a crash then leaves zeros where the last record should be.
    if (data.find_first_not_of('\0', offset) == std::string::npos) {
      records.torn = true;
      break;
    }
    if (data.size() - offset < kHeaderBytes) {
      records.torn = true;
      break;
    }
    uint32_t length = getLittleEndian(data.data() + offset);
    uint32_t crc = getLittleEndian(data.data() + offset + 4);
    if (length > kMaxRecordBytes) {
      return Error{path + ": the record at byte " + std::to_string(offset) + " claims " +
                   std::to_string(length) + " bytes: corrupt"};
    }
    if (data.size() - offset - kHeaderBytes < length) {
      records.torn = true;
      break;
    }
    std::string record = data.substr(offset + kHeaderBytes, length);
    if (crc32(record) != crc) {
      // A torn append leaves a short record, never a whole one with a bad
      // checksum, except as the very last thing in the file.
      if (offset + kHeaderBytes + length == data.size()) {
        records.torn = true;
        break;
      }
      return Error{path + ": the record at byte " + std::to_string(offset) +
                   " does not match its checksum: corrupt"};
    }
    records.records.push_back(std::move(record));
    offset += kHeaderBytes + length;
    records.validBytes = offset;
  }
  return records;
}

Result<RecordLog> RecordLog::open(const std::string& path, uint64_t validBytes) {
  if (auto made = makeParents(path); !made) return made.error();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return sysError("cannot open " + path, errno);
  if (::ftruncate(fd, static_cast<off_t>(validBytes)) != 0) {
    int code = errno;
    ::close(fd);
    return sysError("cannot prepare " + path + " for appending", code);
  }
  bool created = validBytes == 0;
  RecordLog log(path, fd, validBytes);
  if (created) {
    if (auto synced = syncDirectory(parentOf(path)); !synced) return synced.error();
  }
  return log;
}

RecordLog::RecordLog(RecordLog&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), size_(other.size_) {
  other.fd_ = -1;
}

RecordLog& RecordLog::operator=(RecordLog&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    size_ = other.size_;
    other.fd_ = -1;
  }
  return *this;
}

RecordLog::~RecordLog() {
  if (fd_ >= 0) ::close(fd_);
}

Result<void> RecordLog::append(const google::protobuf::Message& record) {
  std::string bytes;
  if (!record.SerializeToString(&bytes)) {
    return Error{"cannot serialize the " + record.GetTypeName() + " for " + path_};
  }
  std::string framed(kHeaderBytes, '\0');
  putLittleEndian(static_cast<uint32_t>(bytes.size()), framed.data());
  putLittleEndian(crc32(bytes), framed.data() + 4);
  framed += bytes;
  Result<void> written;
  for (size_t done = 0; done < framed.size() && written;) {
    ssize_t n = ::pwrite(fd_, framed.data() + done, framed.size() - done,
                         static_cast<off_t>(size_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      written = sysError("cannot write " + path_, errno);
    } else {
      done += static_cast<size_t>(n);
    }
  }
  if (written && ::fdatasync(fd_) != 0) written = sysError("cannot sync " + path_, errno);
  if (!written) {
    // Whatever part of the record reached the file goes: the next append
    // overwrites it anyway (it writes at size_), and a restart must not
    // find it in the middle of the log.
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
      PLOG(WARNING) << "Cannot cut the partial record off " << path_;
    }
    return written;
  }
  size_ += framed.size();
  return {};
}

}  // namespace mesos::internal::slave::checkpoint
