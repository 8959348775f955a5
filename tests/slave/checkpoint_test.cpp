// The slave's checkpoint files: whole files replaced atomically, and the
// append-only record logs of the status update streams, read back after a
// crash that tore the last record, refused when corrupt, and left whole by
// an append that a full disk refused (on a small tmpfs the test fills).
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "messages.pb.h"
#include "slave/checkpoint.hpp"
#include "support/small_disk.hpp"

namespace mesos::internal::slave::checkpoint {
namespace {

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/mesos-checkpoint-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static StatusUpdateRecord update(const std::string& taskId, const std::string& uuid) {
    StatusUpdateRecord record;
    record.set_type(StatusUpdateRecord::UPDATE);
    StatusUpdate* update = record.mutable_update();
    update->mutable_framework_id()->set_value("F1");
    update->mutable_status()->mutable_task_id()->set_value(taskId);
    update->mutable_status()->set_state(TASK_RUNNING);
    update->set_timestamp(1);
    update->set_uuid(uuid);
    return record;
  }

  static void truncate(const std::string& path, uint64_t size) {
    ASSERT_EQ(0, ::truncate(path.c_str(), static_cast<off_t>(size)));
  }

  std::string dir_;
};

TEST(Crc32Test, MatchesTheStandardCheckValue) {
  EXPECT_EQ(0xcbf43926u, crc32("123456789"));
  EXPECT_EQ(0u, crc32(""));
}

TEST_F(CheckpointTest, AFileIsReplacedWholeWithItsDirectoriesMade) {
  const std::string path = dir_ + "/meta/slaves/S1/slave.info";
  SlaveInfo info;
  info.set_hostname("h1");
  info.mutable_id()->set_value("S1");
  ASSERT_TRUE(write(path, info).ok());
  info.set_hostname("h2");
  ASSERT_TRUE(write(path, info).ok());
  SlaveInfo back;
  auto read = checkpoint::read(path, &back);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ("h2", back.hostname());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  ASSERT_TRUE(write(dir_ + "/pids/forked.pid", "1234\n").ok());
  EXPECT_EQ("1234\n", *checkpoint::read(dir_ + "/pids/forked.pid"));
}

TEST_F(CheckpointTest, AMissingTruncatedOrGarbageFileIsAnErrorNamingIt) {
  SlaveInfo info;
  auto missing = read(dir_ + "/none", &info);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(ENOENT, missing.error().code);
  EXPECT_NE(std::string::npos, missing.error().message.find(dir_ + "/none"));

  const std::string path = dir_ + "/slave.info";
  info.set_hostname("a-long-enough-host-name");
  info.mutable_id()->set_value("S1");
  ASSERT_TRUE(write(path, info).ok());
  truncate(path, 5);
  auto truncated = read(path, &info);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(std::string::npos, truncated.error().message.find(path));

  ASSERT_TRUE(write(path, std::string("\xff\xff\xff\xff garbage", 12)).ok());
  EXPECT_FALSE(read(path, &info).ok());
}

TEST_F(CheckpointTest, RecordsComeBackInOrderAndAppendingResumes) {
  const std::string path = dir_ + "/tasks/t1/task.updates";
  {
    auto log = RecordLog::open(path);
    ASSERT_TRUE(log.ok()) << log.error().message;
    ASSERT_TRUE(log.value().append(update("t1", "u1")).ok());
    ASSERT_TRUE(log.value().append(update("t1", "u2")).ok());
  }
  auto records = readRecords(path);
  ASSERT_TRUE(records.ok()) << records.error().message;
  ASSERT_EQ(2u, records->records.size());
  EXPECT_FALSE(records->torn);
  EXPECT_EQ(std::filesystem::file_size(path), records->validBytes);
  {
    auto log = RecordLog::open(path, records->validBytes);
    ASSERT_TRUE(log.ok());
    StatusUpdateRecord ack;
    ack.set_type(StatusUpdateRecord::ACK);
    ack.set_uuid("u1");
    ASSERT_TRUE(log.value().append(ack).ok());
  }
  records = readRecords(path);
  ASSERT_EQ(3u, records->records.size());
  std::vector<std::string> seen;
  for (const std::string& bytes : records->records) {
    StatusUpdateRecord record;
    ASSERT_TRUE(record.ParseFromString(bytes));
    seen.push_back(record.type() == StatusUpdateRecord::ACK ? "ack " + record.uuid()
                                                            : record.update().uuid());
  }
  EXPECT_EQ((std::vector<std::string>{"u1", "u2", "ack u1"}), seen);
}

TEST_F(CheckpointTest, ATornLastRecordIsLeftOutAndCutOffOnTheNextAppend) {
  const std::string path = dir_ + "/task.updates";
  uint64_t whole = 0;
  {
    auto log = RecordLog::open(path);
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE(log.value().append(update("t1", "u1")).ok());
    whole = std::filesystem::file_size(path);
    ASSERT_TRUE(log.value().append(update("t1", "u2")).ok());
  }
  // Every place a crash could cut the second append.
  const uint64_t full = std::filesystem::file_size(path);
  std::string bytes = *read(path);
  for (uint64_t cut = whole + 1; cut < full; ++cut) {
    ASSERT_TRUE(write(path, bytes.substr(0, cut)).ok());
    auto records = readRecords(path);
    ASSERT_TRUE(records.ok()) << "cut at " << cut << ": " << records.error().message;
    EXPECT_EQ(1u, records->records.size()) << "cut at " << cut;
    EXPECT_TRUE(records->torn) << "cut at " << cut;
    EXPECT_EQ(whole, records->validBytes);
  }
  // Appending again starts where the whole records end.
  auto records = readRecords(path);
  {
    auto log = RecordLog::open(path, records->validBytes);
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE(log.value().append(update("t1", "u3")).ok());
  }
  records = readRecords(path);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(2u, records->records.size());
  EXPECT_FALSE(records->torn);
  StatusUpdateRecord last;
  ASSERT_TRUE(last.ParseFromString(records->records[1]));
  EXPECT_EQ("u3", last.update().uuid());
}

TEST_F(CheckpointTest, ATailOfZerosIsATornRecord) {
  const std::string path = dir_ + "/task.updates";
  {
    auto log = RecordLog::open(path);
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE(log.value().append(update("t1", "u1")).ok());
  }
  const uint64_t whole = std::filesystem::file_size(path);
  std::string bytes = *read(path);
  // The size reached the disk, the record did not: any number of zeros.
  for (size_t zeros : {1, 7, 8, 9, 200}) {
    ASSERT_TRUE(write(path, bytes + std::string(zeros, '\0')).ok());
    auto records = readRecords(path);
    ASSERT_TRUE(records.ok()) << zeros << " zeros: " << records.error().message;
    EXPECT_EQ(1u, records->records.size()) << zeros << " zeros";
    EXPECT_TRUE(records->torn) << zeros << " zeros";
    EXPECT_EQ(whole, records->validBytes);
  }
}

TEST_F(CheckpointTest, AnAppendTheDiskRefusesLeavesTheLogWhole) {
  mesos::test::SmallDisk disk(dir_ + "/disk", 64 << 10);
  if (!disk.missing().empty()) GTEST_SKIP() << disk.missing();
  const std::string path = disk.dir() + "/task.updates";
  auto log = RecordLog::open(path);
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE(log.value().append(update("t1", "u1")).ok());
  const uint64_t whole = std::filesystem::file_size(path);
  ASSERT_TRUE(disk.fill());

  // Longer than what is left of the file's last block: partly written, then
  // refused; the part is cut off again.
  StatusUpdateRecord big = update("t1", "u2");
  big.mutable_update()->mutable_status()->set_message(std::string(20000, 'm'));
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto appended = log.value().append(big);
    ASSERT_FALSE(appended.ok());
    EXPECT_EQ(ENOSPC, appended.error().code);
    EXPECT_NE(std::string::npos, appended.error().message.find(path)) << appended.error().message;
    EXPECT_NE(std::string::npos, appended.error().message.find("No space left on device"))
        << appended.error().message;
    EXPECT_EQ(whole, std::filesystem::file_size(path)) << "attempt " << attempt;
  }
  auto records = readRecords(path);
  ASSERT_TRUE(records.ok()) << records.error().message;
  EXPECT_EQ(1u, records->records.size());
  EXPECT_FALSE(records->torn);

  // Space again: appending goes on where the whole records end.
  disk.free();
  ASSERT_TRUE(log.value().append(big).ok());
  ASSERT_TRUE(log.value().append(update("t1", "u3")).ok());
  records = readRecords(path);
  ASSERT_TRUE(records.ok()) << records.error().message;
  ASSERT_EQ(3u, records->records.size());
  EXPECT_FALSE(records->torn);
  StatusUpdateRecord second;
  ASSERT_TRUE(second.ParseFromString(records->records[1]));
  EXPECT_EQ("u2", second.update().uuid());
}

TEST_F(CheckpointTest, ACorruptRecordInTheMiddleIsAnErrorNamingFileAndOffset) {
  const std::string path = dir_ + "/task.updates";
  {
    auto log = RecordLog::open(path);
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE(log.value().append(update("t1", "u1")).ok());
    ASSERT_TRUE(log.value().append(update("t1", "u2")).ok());
  }
  std::string bytes = *read(path);
  bytes[10] = static_cast<char>(bytes[10] ^ 0x55);  // inside the first record
  ASSERT_TRUE(write(path, bytes).ok());
  auto records = readRecords(path);
  ASSERT_FALSE(records.ok());
  EXPECT_NE(std::string::npos, records.error().message.find(path));
  EXPECT_NE(std::string::npos, records.error().message.find("byte 0"));

  // A length no record can have.
  ASSERT_TRUE(write(path, std::string("\xff\xff\xff\x7f\0\0\0\0", 8) + "x").ok());
  EXPECT_FALSE(readRecords(path).ok());
}

}  // namespace
}  // namespace mesos::internal::slave::checkpoint
