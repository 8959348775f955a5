// RFC 4122 version 4 UUIDs as status updates carry them.
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/uuid.hpp"

namespace mesos {
namespace {

TEST(UuidTest, RandomUuidIsVersion4Variant10) {
  for (int i = 0; i < 100; ++i) {
    std::string uuid = randomUuid();
    ASSERT_EQ(16u, uuid.size());
    EXPECT_EQ(0x40, static_cast<unsigned char>(uuid[6]) & 0xf0);
    EXPECT_EQ(0x80, static_cast<unsigned char>(uuid[8]) & 0xc0);
    EXPECT_TRUE(isValidUuid(uuid));
  }
}

TEST(UuidTest, RandomUuidsDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) EXPECT_TRUE(seen.insert(randomUuid()).second);
}

TEST(UuidTest, ThreadsGetDifferentUuids) {
  std::vector<std::vector<std::string>> perThread(4);
  std::vector<std::thread> threads;
  for (auto& out : perThread) {
    threads.emplace_back([&out] {
      for (int i = 0; i < 1000; ++i) out.push_back(randomUuid());
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<std::string> all;
  for (const auto& out : perThread) all.insert(out.begin(), out.end());
  EXPECT_EQ(4000u, all.size());
}

TEST(UuidTest, ToString) {
  std::string bytes;
  for (int i = 0; i < 16; ++i) bytes += static_cast<char>(i * 17);
  EXPECT_EQ("00112233-4455-6677-8899-aabbccddeeff", uuidToString(bytes));
  EXPECT_EQ("", uuidToString("short"));
  EXPECT_EQ("", uuidToString(std::string(17, 'x')));

  // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx, lower-case hex, y one of 8, 9, a, b.
  std::string text = uuidToString(randomUuid());
  ASSERT_EQ(36u, text.size()) << text;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      EXPECT_EQ('-', text[i]) << text;
    } else {
      EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(text[i])) || (text[i] >= 'a' && text[i] <= 'f'))
          << text;
    }
  }
  EXPECT_EQ('4', text[14]) << text;
  EXPECT_NE(std::string::npos, std::string("89ab").find(text[19])) << text;
}

TEST(UuidTest, Validity) {
  EXPECT_FALSE(isValidUuid(""));
  EXPECT_FALSE(isValidUuid(std::string(15, '\x80')));
  EXPECT_FALSE(isValidUuid(std::string(16, '\0')));  // variant bits 00
  std::string uuid = randomUuid();
  uuid[8] = static_cast<char>(0xc0);  // variant 11: reserved
  EXPECT_FALSE(isValidUuid(uuid));
  uuid[8] = static_cast<char>(0xbf);
  EXPECT_TRUE(isValidUuid(uuid));
}

}  // namespace
}  // namespace mesos
