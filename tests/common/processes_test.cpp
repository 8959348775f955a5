#include "common/processes.hpp"

#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

namespace mesos::internal {
namespace {

TEST(ProcessesTest, ParsesStatWithParenthesesInTheName) {
  const char* text =
      "4242 (a (b)) c) S 1 4242 4241 34816 4242 4194560 975 0 0 0 17 5 0 0 20 0 3 0 "
      "123456 10846208 812 18446744073709551615 1 1 0 0 0 0 0 3670020 1266777851 0 0 0 17 1 0 "
      "0 0 0 0\n";
  auto entry = parseProcessStat(4242, text);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->pid, 4242);
  EXPECT_EQ(entry->ppid, 1);
  EXPECT_EQ(entry->pgid, 4242);
  EXPECT_EQ(entry->sid, 4241);
  EXPECT_FALSE(entry->zombie);
  EXPECT_EQ(entry->userTicks, 17u);
  EXPECT_EQ(entry->systemTicks, 5u);
  EXPECT_EQ(entry->threads, 3u);
  EXPECT_EQ(entry->rssPages, 812u);
}

TEST(ProcessesTest, ZombiesAndGarbage) {
  auto zombie = parseProcessStat(7, "7 (sh) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0");
  ASSERT_TRUE(zombie.has_value());
  EXPECT_TRUE(zombie->zombie);
  EXPECT_FALSE(parseProcessStat(8, "8 no parenthesis S 1 2 3").has_value());
  EXPECT_FALSE(parseProcessStat(9, "9 (x) ").has_value());
}

TEST(ProcessesTest, ReadsItself) {
  auto self = readProcess(::getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_EQ(self->ppid, ::getppid());
  EXPECT_GE(self->threads, 1u);
  EXPECT_GT(self->rssPages, 0u);
  auto table = processTable();
  EXPECT_TRUE(std::any_of(table.begin(), table.end(),
                          [](const ProcessEntry& e) { return e.pid == ::getpid(); }));
}

// A container led by 100: its child 101 made a session of its own (setsid)
// and 102 (child of 101) is in it; 103 is in 100's session after 100's
// child exited (re-parented to 1); 200 is someone else's.
TEST(ProcessesTest, ContainerMembersFollowSessionsAndTheTree) {
  auto entry = [](pid_t pid, pid_t ppid, pid_t pgid, pid_t sid, bool zombie = false) {
    ProcessEntry e;
    e.pid = pid;
    e.ppid = ppid;
    e.pgid = pgid;
    e.sid = sid;
    e.zombie = zombie;
    return e;
  };
  std::vector<ProcessEntry> table = {entry(1, 0, 1, 1),         entry(100, 1, 100, 100),
                                     entry(101, 100, 101, 101), entry(102, 101, 101, 101),
                                     entry(103, 1, 100, 100),   entry(104, 100, 100, 100, true),
                                     entry(200, 1, 200, 200)};
  auto pids = [](const std::vector<const ProcessEntry*>& members) {
    std::vector<pid_t> out;
    for (const ProcessEntry* m : members) out.push_back(m->pid);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(pids(containerMembers(table, 100)), (std::vector<pid_t>{100, 101, 102, 103}));
  // Without its leader only the leader's session is known.
  table.erase(table.begin() + 1);
  EXPECT_EQ(pids(containerMembers(table, 100)), (std::vector<pid_t>{103}));
}

}  // namespace
}  // namespace mesos::internal
