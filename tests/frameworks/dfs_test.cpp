// The block store through its command line, mesos-dfs: line-aligned blocks,
// rack-aware replicas in per-node directories, remote reads counted, nodes
// taken from a master's /master/state.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

const std::string kDfs = MESOS_BINARY_DIR "/frameworks/dfs/mesos-dfs";
const std::string kNodes = "127.0.0.2:r1,127.0.0.3:r1,127.0.0.4:r2,127.0.0.5:r2";

class DfsTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    if (!std::filesystem::exists(kDfs)) GTEST_SKIP() << kDfs << " is not built";
    root_ = dir_ + "/dfs";
  }

  ChildResult dfs(std::vector<std::string> args) {
    args.insert(args.begin(), kDfs);
    args.push_back("--root=" + root_);
    return runChild(args, 60s);
  }

  // Every block line of `mesos-dfs stat`: its length and its hosts.
  struct Block {
    uint64_t length = 0;
    std::vector<std::string> hosts;
    std::vector<std::string> racks;
  };
  static std::vector<Block> blocks(const std::string& stat) {
    std::vector<Block> out;
    std::regex line(R"(block \d+ offset \d+ length (\d+) records \d+ hosts (\S+))");
    std::istringstream in(stat);
    for (std::string text; std::getline(in, text);) {
      std::smatch match;
      if (!std::regex_search(text, match, line)) continue;
      Block block;
      block.length = std::stoull(match[1]);
      std::regex holder(R"(([^,(]+)\(([^)]*)\))");
      std::string hosts = match[2];
      for (std::sregex_iterator it(hosts.begin(), hosts.end(), holder), end; it != end; ++it) {
        block.hosts.push_back((*it)[1]);
        block.racks.push_back((*it)[2]);
      }
      out.push_back(block);
    }
    return out;
  }

  std::string root_;
};

TEST_F(DfsTest, PutSplitsAtLinesAndReplicatesAcrossRacks) {
  const std::string text = dir_ + "/text";
  ASSERT_TRUE(runChild({kDfs, "generate", "--output=" + text, "--lines=3000"}, 60s).exitedWith(0));
  ChildResult put = dfs({"put", text, "/data/text", "--nodes=" + kNodes, "--block_size=4000"});
  ASSERT_TRUE(put.exitedWith(0)) << put.describe();

  ChildResult stat = dfs({"stat", "/data/text"});
  ASSERT_TRUE(stat.exitedWith(0)) << stat.describe();
  std::vector<Block> all = blocks(stat.out);
  ASSERT_GT(all.size(), 10u);
  std::set<std::string> firsts;
  for (const Block& block : all) {
    EXPECT_LE(block.length, 4000u);
    ASSERT_EQ(3u, block.hosts.size());
    EXPECT_EQ(3u, std::set<std::string>(block.hosts.begin(), block.hosts.end()).size());
    // HDFS placement: the second copy in another rack, the third beside it.
    EXPECT_NE(block.racks[0], block.racks[1]);
    EXPECT_EQ(block.racks[1], block.racks[2]);
    firsts.insert(block.hosts[0]);
  }
  EXPECT_EQ(4u, firsts.size()) << "first copies spread over every node";

  // Each node's directory holds whole lines only.
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root_ + "/nodes")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    std::string data = readFile(entry.path().string());
    ASSERT_FALSE(data.empty());
    EXPECT_EQ('\n', data.back()) << entry.path();
  }
  EXPECT_EQ(3 * all.size(), files);

  ChildResult cat = dfs({"cat", "/data/text"});
  ASSERT_TRUE(cat.exitedWith(0)) << cat.describe();
  EXPECT_TRUE(cat.out == readFile(text)) << "cat gives back the file";

  ChildResult ls = dfs({"ls"});
  EXPECT_NE(std::string::npos, ls.out.find("/data/text")) << ls.out;
}

TEST_F(DfsTest, ReadsFromANodeWithoutACopyAreRemoteAndCounted) {
  const std::string text = dir_ + "/text";
  ASSERT_TRUE(runChild({kDfs, "generate", "--output=" + text, "--lines=500"}, 60s).exitedWith(0));
  ASSERT_TRUE(dfs({"put", text, "/t", "--nodes=127.0.0.2:r1,127.0.0.4:r2", "--replication=1",
                   "--block_size=2000", "--writer=127.0.0.2"})
                  .exitedWith(0));
  // Every first copy is on the writer's node: reading there is all local.
  ChildResult local = dfs({"cat", "/t", "--host=127.0.0.2"});
  ASSERT_TRUE(local.exitedWith(0)) << local.describe();
  EXPECT_NE(std::string::npos, local.err.find("remote block reads: 0 of")) << local.err;
  // From another node every block is a remote read, and it still works.
  ChildResult remote = dfs({"cat", "/t", "--host=127.0.0.4"});
  ASSERT_TRUE(remote.exitedWith(0)) << remote.describe();
  EXPECT_TRUE(remote.out == readFile(text));
  std::smatch match;
  ASSERT_TRUE(std::regex_search(remote.err, match, std::regex(R"(remote block reads: (\d+) of (\d+))")))
      << remote.err;
  EXPECT_EQ(match[1], match[2]);
  EXPECT_NE("0", match[1].str());
  EXPECT_FALSE(readFile(root_ + "/remote-reads.log").empty());
}

TEST_F(DfsTest, ALineLongerThanABlockMakesOneBigBlock) {
  const std::string text = dir_ + "/long";
  {
    std::ofstream out(text);
    out << "short\n" << std::string(5000, 'x') << "\nshort again\n";
  }
  ASSERT_TRUE(dfs({"put", text, "/long", "--nodes=" + kNodes, "--block_size=100"}).exitedWith(0));
  std::vector<Block> all = blocks(dfs({"stat", "/long"}).out);
  ASSERT_EQ(3u, all.size());
  EXPECT_EQ(5001u, all[1].length);
  EXPECT_TRUE(dfs({"cat", "/long"}).out == readFile(text));
}

TEST_F(DfsTest, RemoveAndMissingFilesGiveClearErrors) {
  const std::string text = dir_ + "/text";
  ASSERT_TRUE(runChild({kDfs, "generate", "--output=" + text, "--lines=100"}, 60s).exitedWith(0));
  ASSERT_TRUE(dfs({"put", text, "/x", "--nodes=" + kNodes}).exitedWith(0));
  ChildResult again = dfs({"put", text, "/x", "--nodes=" + kNodes});
  EXPECT_TRUE(again.exitedWith(1));
  EXPECT_NE(std::string::npos, again.err.find("already exists")) << again.err;
  ASSERT_TRUE(dfs({"rm", "/x"}).exitedWith(0));
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root_ + "/nodes")) {
    if (entry.is_regular_file()) ++files;
  }
  EXPECT_EQ(0u, files) << "rm removes every copy";
  ChildResult stat = dfs({"stat", "/x"});
  EXPECT_TRUE(stat.exitedWith(1));
  EXPECT_NE(std::string::npos, stat.err.find("no such file '/x'")) << stat.err;
  ChildResult noNodes = dfs({"put", text, "/y"});
  EXPECT_TRUE(noNodes.exitedWith(1));
  EXPECT_NE(std::string::npos, noNodes.err.find("--nodes")) << noNodes.err;
}

// A cluster whose machines keep their own roots: 127.0.0.4's copies live
// only under its root, served by `mesos-dfs serve`; a reader elsewhere gets
// them over HTTP with --peer_port (and a clear error without).
TEST_F(DfsTest, ReadsCopiesOfOtherMachinesFromTheirServers) {
  const std::string text = dir_ + "/text";
  ASSERT_TRUE(runChild({kDfs, "generate", "--output=" + text, "--lines=500"}, 60s).exitedWith(0));
  ASSERT_TRUE(dfs({"put", text, "/t", "--nodes=127.0.0.2:r1,127.0.0.4:r2", "--replication=1",
                   "--block_size=2000"})
                  .exitedWith(0));
  const std::string other = dir_ + "/machine-4";
  std::filesystem::create_directories(other + "/nodes");
  std::filesystem::rename(root_ + "/nodes/127.0.0.4", other + "/nodes/127.0.0.4");

  ChildResult without = dfs({"cat", "/t", "--host=127.0.0.2"});
  EXPECT_TRUE(without.exitedWith(1));
  EXPECT_NE(std::string::npos, without.err.find("has no readable copy")) << without.err;

  uint16_t port = freePort();
  pid_t server = start({kDfs, "serve", "--root=" + other, "--ip=127.0.0.4",
                        "--port=" + std::to_string(port)},
                       "serve");
  process::Address address{0x7f000004, port};
  ASSERT_TRUE(waitUntil([&] { return connectable(address); }, 30s, server));
  ChildResult with = dfs({"cat", "/t", "--host=127.0.0.2", "--peer_port=" + std::to_string(port)});
  ASSERT_TRUE(with.exitedWith(0)) << with.describe();
  EXPECT_TRUE(with.out == readFile(text));
  EXPECT_EQ(std::string::npos, with.err.find("remote block reads: 0 of")) << with.err;
}

TEST_F(DfsTest, TakesTheNodesFromTheMaster) {
  process::Address master = startMaster();
  startSlave(master, "slave-2", {"--ip=127.0.0.2", "--hostname=127.0.0.2", "--attributes=rack:r1"});
  startSlave(master, "slave-4", {"--ip=127.0.0.4", "--hostname=127.0.0.4", "--attributes=rack:r2"});
  ASSERT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 2; }, 60s));
  const std::string text = dir_ + "/text";
  ASSERT_TRUE(runChild({kDfs, "generate", "--output=" + text, "--lines=100"}, 60s).exitedWith(0));
  ChildResult put = dfs({"put", text, "/m", "--master=" + master.toString(), "--replication=2"});
  ASSERT_TRUE(put.exitedWith(0)) << put.describe();
  EXPECT_NE(std::string::npos, put.out.find("127.0.0.2:r1,127.0.0.4:r2")) << put.out;
}

}  // namespace
}  // namespace mesos::test
