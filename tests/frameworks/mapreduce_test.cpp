// The MapReduce framework end to end: a real master and four real slaves
// (nodes 127.0.0.2 .. 127.0.0.5, racks r1 r1 r2 r2), input put into the
// block store with mesos-dfs, jobs run with mesos-mapreduce, and every
// result checked against answers computed here.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

const std::string kMapReduce = MESOS_BINARY_DIR "/frameworks/mapreduce/mesos-mapreduce";
const std::string kDfs = MESOS_BINARY_DIR "/frameworks/dfs/mesos-dfs";
const std::vector<std::string> kHosts = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"};
const std::vector<std::string> kRacks = {"r1", "r1", "r2", "r2"};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The concatenated part-NNNNN files of an output directory, in order.
std::string readParts(const std::string& dir) {
  std::vector<std::string> parts;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("part-", 0) == 0) parts.push_back(entry.path().string());
  }
  std::sort(parts.begin(), parts.end());
  std::string all;
  for (const std::string& part : parts) all += readFile(part);
  return all;
}

// "word<TAB>count" lines into a map.
std::map<std::string, int64_t> counts(const std::string& text) {
  std::map<std::string, int64_t> out;
  for (const std::string& line : lines(text)) {
    size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    out[line.substr(0, tab)] += std::stoll(line.substr(tab + 1));
  }
  return out;
}

class MapReduceTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    if (!std::filesystem::exists(kMapReduce) || !std::filesystem::exists(kDfs)) {
      GTEST_SKIP() << kMapReduce << " or " << kDfs << " is not built";
    }
    root_ = dir_ + "/dfs";
  }

  // A master (quick to notice a dead slave) and the four nodes.
  void startCluster() {
    master_ = startMaster({"--slave_ping_timeout=1secs", "--max_slave_ping_timeouts=3"});
    for (size_t i = 0; i < kHosts.size(); ++i) {
      slaves_.push_back(startSlave(master_, "slave-" + kHosts[i],
                                   {"--ip=" + kHosts[i], "--hostname=" + kHosts[i],
                                    "--attributes=rack:" + kRacks[i],
                                    "--resources=cpus:2;mem:1024;disk:4096"}));
    }
    ASSERT_TRUE(waitUntil([&] { return metric(master_, "master/slaves_active") == 4; }, 60s))
        << "the four slaves did not register within 60 s";
  }

  std::string nodes(const std::vector<size_t>& which) const {
    std::string out;
    for (size_t i : which) out += (out.empty() ? "" : ",") + kHosts[i] + ":" + kRacks[i];
    return out;
  }

  // Generates text into <dir>/<name>.txt (answers in <name>.answers) and
  // puts it into the store as /<name>.
  void putText(const std::string& name, int lines, const std::string& nodeList, int replication,
               int blockSize, int seed = 1) {
    const std::string text = dir_ + "/" + name + ".txt";
    ChildResult generated = runChild({kDfs, "generate", "--output=" + text,
                                      "--answers=" + dir_ + "/" + name + ".answers",
                                      "--lines=" + std::to_string(lines),
                                      "--seed=" + std::to_string(seed)},
                                     60s);
    ASSERT_TRUE(generated.exitedWith(0)) << generated.describe();
    ChildResult put = runChild({kDfs, "put", text, "/" + name, "--root=" + root_,
                                "--nodes=" + nodeList, "--replication=" + std::to_string(replication),
                                "--block_size=" + std::to_string(blockSize)},
                               60s);
    ASSERT_TRUE(put.exitedWith(0)) << put.describe();
  }

  std::vector<std::string> trackerFlags(double localityWait) const {
    return {"--master=" + master_.toString(), "--dfs_root=" + root_,
            "--locality_wait=" + std::to_string(localityWait), "--speculation_floor=3"};
  }

  ChildResult run(const std::vector<std::string>& jobFlags, double localityWait = 5) {
    std::vector<std::string> args = {kMapReduce, "run", "--json", "--timeout=80"};
    for (const std::string& flag : trackerFlags(localityWait)) args.push_back(flag);
    for (const std::string& flag : jobFlags) args.push_back(flag);
    return runChild(args, 100s);
  }

  // The JSON report a command printed last on stdout.
  static json::Value report(const ChildResult& result) {
    std::vector<std::string> out = lines(result.out);
    for (auto it = out.rbegin(); it != out.rend(); ++it) {
      if (it->rfind("{", 0) == 0) {
        auto parsed = json::parse(*it);
        if (parsed) return parsed.value();
      }
    }
    return json::Value();
  }

  // A JobTracker on a free port; its address ("127.0.0.1:P").
  std::string startJobTracker(double localityWait, pid_t* pid) {
    uint16_t port = freePort();
    std::vector<std::string> args = {kMapReduce, "jobtracker", "--ip=127.0.0.1",
                                     "--port=" + std::to_string(port)};
    for (const std::string& flag : trackerFlags(localityWait)) args.push_back(flag);
    *pid = start(args, "jobtracker-" + std::to_string(port));
    process::Address address{0x7f000001, port};
    EXPECT_TRUE(waitUntil([&] { return connectable(address); }, 30s, *pid))
        << "the JobTracker did not listen";
    return "127.0.0.1:" + std::to_string(port);
  }

  void stopJobTracker(pid_t pid) {
    kill(pid, SIGTERM);
    EXPECT_EQ(0, waitForExit(pid, 30s));
    reaped(pid);
  }

  ChildResult client(const std::string& tracker, const std::vector<std::string>& args) {
    std::vector<std::string> all = {kMapReduce};
    all.insert(all.end(), args.begin(), args.end());
    all.push_back("--jobtracker=" + tracker);
    return runChild(all, 100s);
  }

  void expectWordCounts(const std::string& outputDir, const std::string& name) {
    auto expected = counts(readFile(dir_ + "/" + name + ".answers"));
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(expected, counts(readParts(outputDir)));
  }

  process::Address master_;
  std::vector<pid_t> slaves_;
  std::string root_;
};

TEST_F(MapReduceTest, WordCountIsCorrect) {
  startCluster();
  putText("words", 20000, nodes({0, 1, 2, 3}), 3, 60000);
  ChildResult result = run({"--job=wordcount", "--input=/words", "--output=" + dir_ + "/out",
                            "--reduces=3"});
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  json::Value job = report(result);
  EXPECT_EQ("succeeded", job["state"].string());
  EXPECT_EQ(20000, job["map_input_records"].integer());
  EXPECT_EQ(job["maps"]["total"].integer(), job["maps"]["done"].integer());
  EXPECT_GT(job["maps"]["total"].integer(), 10);
  expectWordCounts(dir_ + "/out", "words");
}

TEST_F(MapReduceTest, GrepIsCorrect) {
  startCluster();
  putText("words", 10000, nodes({0, 1, 2, 3}), 2, 40000);
  const std::string pattern = "lo[a-z]*";
  ChildResult result = run({"--job=grep", "--pattern=" + pattern, "--input=/words",
                            "--output=" + dir_ + "/out", "--reduces=2"});
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  std::map<std::string, int64_t> expected;
  std::regex regex(pattern);
  for (const std::string& line : lines(readFile(dir_ + "/words.txt"))) {
    for (std::sregex_iterator it(line.begin(), line.end(), regex), end; it != end; ++it) {
      ++expected[it->str()];
    }
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(expected, counts(readParts(dir_ + "/out")));
}

TEST_F(MapReduceTest, SortIsCorrectAndTotallyOrdered) {
  startCluster();
  putText("words", 10000, nodes({0, 1, 2, 3}), 2, 40000);
  ChildResult result = run({"--job=sort", "--input=/words", "--output=" + dir_ + "/out",
                            "--reduces=3"});
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  std::vector<std::string> expected = lines(readFile(dir_ + "/words.txt"));
  std::sort(expected.begin(), expected.end());
  std::vector<std::string> sorted = lines(readParts(dir_ + "/out"));
  EXPECT_EQ(expected.size(), sorted.size());
  EXPECT_TRUE(expected == sorted) << "the parts, concatenated, are not the sorted input";
  // The range partitioner spreads the lines: no reduce got nearly all.
  for (int r = 0; r < 3; ++r) {
    auto part = lines(readFile(dir_ + "/out/part-0000" + std::to_string(r)));
    EXPECT_LT(part.size(), expected.size() * 3 / 4) << "part " << r;
  }
}

TEST_F(MapReduceTest, StreamingJobIntoTheStore) {
  startCluster();
  putText("words", 5000, nodes({0, 1, 2, 3}), 2, 30000);
  ChildResult result =
      run({"--job=streaming", "--input=/words", "--output=dfs:/out/wc", "--reduces=2",
           "--map_command=tr ' ' '\\n' | awk 'NF { print $1 \"\\t1\" }'",
           "--reduce_command=awk -F'\\t' '{ c[$1] += $2 } END { for (k in c) print k \"\\t\" c[k] }'"});
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  EXPECT_EQ("dfs:/out/wc", report(result)["output"]["location"].string());
  std::string all;
  for (const char* part : {"/out/wc/part-00000", "/out/wc/part-00001"}) {
    ChildResult cat = runChild({kDfs, "cat", part, "--root=" + root_}, 30s);
    ASSERT_TRUE(cat.exitedWith(0)) << cat.describe();
    all += cat.out;
  }
  EXPECT_EQ(counts(readFile(dir_ + "/words.answers")), counts(all));
}

// Two concurrent jobs whose blocks (one copy each) are on two of the four
// nodes, one per rack: without delay scheduling the other two nodes' slots
// take map tasks at once (rack-local or remote); with it the jobs wait for
// the nodes holding their blocks.
TEST_F(MapReduceTest, DelaySchedulingRaisesLocality) {
  startCluster();
  putText("a", 12000, nodes({0, 2}), 1, 20000, 1);
  putText("b", 12000, nodes({0, 2}), 1, 20000, 2);

  auto runBoth = [&](double wait, int64_t* nodeLocal, int64_t* launched) {
    pid_t pid;
    std::string tracker = startJobTracker(wait, &pid);
    std::string suffix = wait == 0 ? "-nowait" : "-wait";
    std::vector<std::string> ids;
    for (const std::string name : {"a", "b"}) {
      ChildResult submitted = client(tracker, {"submit", "--job=wordcount", "--input=/" + name,
                                               "--output=" + dir_ + "/out-" + name + suffix});
      ASSERT_TRUE(submitted.exitedWith(0)) << submitted.describe();
      ids.push_back(lines(submitted.out).at(0));
    }
    *nodeLocal = 0;
    *launched = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      ChildResult waited = client(tracker, {"wait", ids[i], "--json", "--timeout=60"});
      ASSERT_TRUE(waited.exitedWith(0)) << waited.describe();
      json::Value locality = report(waited)["locality"];
      *nodeLocal += locality["node_local"].integer();
      *launched += locality["node_local"].integer() + locality["rack_local"].integer() +
                   locality["remote"].integer();
      expectWordCounts(dir_ + "/out-" + std::string(i == 0 ? "a" : "b") + suffix,
                       i == 0 ? "a" : "b");
    }
    stopJobTracker(pid);
  };

  int64_t localWithout = 0, launchedWithout = 0, localWith = 0, launchedWith = 0;
  runBoth(0, &localWithout, &launchedWithout);
  runBoth(5, &localWith, &launchedWith);
  std::cout << "node-local map attempts: without delay scheduling " << localWithout << "/"
            << launchedWithout << ", with --locality_wait=5 " << localWith << "/"
            << launchedWith << std::endl;
  EXPECT_GT(localWith, localWithout);
  EXPECT_LT(localWithout, launchedWithout);
  EXPECT_GE(localWith * 10, launchedWith * 9) << "expected at least 90% node-local";
}

// `local`: the same job without Mesos (the baseline of the paper's §6.2), on
// worker threads of the command's own process; no master is running. Its
// counts are the generator's, and a sort's parts are the sorted input.
TEST_F(MapReduceTest, LocalRunsAJobWithoutMesos) {
  putText("words", 8000, nodes({0, 1, 2, 3}), 2, 20000);
  ChildResult counted =
      runChild({kMapReduce, "local", "--json", "--dfs_root=" + root_, "--slots=3",
                "--job=wordcount", "--input=/words", "--output=" + dir_ + "/wc", "--reduces=3"},
               100s);
  ASSERT_TRUE(counted.exitedWith(0)) << counted.describe();
  expectWordCounts(dir_ + "/wc", "words");
  json::Value wc = report(counted);
  EXPECT_EQ("succeeded", wc["state"].string());
  EXPECT_GT(wc["maps"]["total"].integer(), 3) << counted.out;  // more maps than slots
  EXPECT_EQ(8000, wc["map_input_records"].integer()) << counted.out;
  EXPECT_EQ(0, wc["remote_block_reads"].integer()) << counted.out;

  ChildResult sorted = runChild({kMapReduce, "local", "--dfs_root=" + root_, "--job=sort",
                                 "--input=/words", "--output=" + dir_ + "/sorted", "--reduces=2"},
                                100s);
  ASSERT_TRUE(sorted.exitedWith(0)) << sorted.describe();
  std::vector<std::string> expected = lines(readFile(dir_ + "/words.txt"));
  std::sort(expected.begin(), expected.end());
  EXPECT_TRUE(expected == lines(readParts(dir_ + "/sorted"))) << "not the sorted input";
}

// A failing task fails a local job (no retries), with the command's error,
// and an output that exists already is refused before anything runs.
TEST_F(MapReduceTest, LocalReportsAFailedTaskAndRefusesAnUsedOutput) {
  putText("words", 2000, nodes({0, 1}), 1, 20000);
  ChildResult failed = runChild(
      {kMapReduce, "local", "--json", "--dfs_root=" + root_, "--job=streaming", "--input=/words",
       "--output=" + dir_ + "/f", "--map_command=echo broken >&2; exit 3"},
      100s);
  EXPECT_TRUE(failed.exitedWith(1)) << failed.describe();
  json::Value failure = report(failed);
  EXPECT_EQ("failed", failure["state"].string()) << failed.out;
  EXPECT_NE(std::string::npos, failure["error"].string().find("broken")) << failed.out;

  std::filesystem::create_directories(dir_ + "/used");
  std::ofstream(dir_ + "/used/part-00000") << "x\n";
  ChildResult refused = runChild({kMapReduce, "local", "--dfs_root=" + root_, "--job=wordcount",
                                  "--input=/words", "--output=" + dir_ + "/used"},
                                 100s);
  EXPECT_TRUE(refused.exitedWith(1)) << refused.describe();
  EXPECT_NE(std::string::npos, refused.err.find("exists and is not empty")) << refused.err;
}

// --hosts, a static partition (the baseline of the paper's Fig. 8): the
// JobTracker uses only its host's offers, so its TaskTracker runs there
// alone, and the job is still correct, its blocks read from the nodes that
// hold them.
TEST_F(MapReduceTest, HostsConfineTheJobTrackerToItsStaticPartition) {
  startCluster();
  putText("a", 12000, nodes({0, 2}), 1, 20000, 1);
  ChildResult result =
      run({"--hosts=" + kHosts[1], "--job=wordcount", "--input=/a", "--output=" + dir_ + "/out"});
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  expectWordCounts(dir_ + "/out", "a");
  json::Value locality = report(result)["locality"];
  EXPECT_EQ(0, locality["node_local"].integer()) << result.out;  // node 1 holds no block
  EXPECT_GT(locality["rack_local"].integer() + locality["remote"].integer(), 0) << result.out;
  for (size_t i = 0; i < kHosts.size(); ++i) {
    // The slave and the TaskTracker remove files while this walks (a job's
    // map outputs): increment(error) skips what vanished instead of throwing.
    size_t trackers = 0;
    std::error_code error;
    for (std::filesystem::recursive_directory_iterator it(dir_ + "/slave-" + kHosts[i], error), end;
         !error && it != end; it.increment(error)) {
      if (it->path().filename() == "tasktracker") ++trackers;
    }
    if (i == 1) {
      EXPECT_GT(trackers, 0u) << "no TaskTracker on its own host " << kHosts[i];
    } else {
      EXPECT_EQ(0u, trackers) << "a TaskTracker on " << kHosts[i] << ", outside --hosts";
    }
  }
}

// Fair sharing among jobs: a short job submitted while a long one fills
// every slot gets the next free slots (it runs fewer attempts), instead of
// waiting behind all the long job's maps as it would in FIFO order.
TEST_F(MapReduceTest, FairSharingLetsAShortJobThrough) {
  startCluster();
  putText("long", 4800, nodes({0, 1, 2, 3}), 2, 5000, 1);  // ~48 blocks
  putText("short", 300, nodes({0, 1, 2, 3}), 2, 5000, 2);  // ~3 blocks
  pid_t pid;
  std::string tracker = startJobTracker(0, &pid);
  // 12 slots; 48 maps of 2 s: about 8 s of maps.
  ChildResult submitted = client(
      tracker, {"submit", "--job=streaming", "--input=/long", "--output=" + dir_ + "/out-long",
                "--map_command=sleep 2; cat", "--reduces=1"});
  ASSERT_TRUE(submitted.exitedWith(0)) << submitted.describe();
  const std::string longId = lines(submitted.out).at(0);
  ASSERT_TRUE(waitUntil(
      [&] {
        ChildResult status = client(tracker, {"status", longId, "--json"});
        return report(status)["locality"]["node_local"].integer() +
                   report(status)["locality"]["rack_local"].integer() +
                   report(status)["locality"]["remote"].integer() >= 12;
      },
      60s));
  ChildResult shortJob = client(tracker, {"submit", "--job=wordcount", "--input=/short",
                                          "--output=" + dir_ + "/out-short"});
  ASSERT_TRUE(shortJob.exitedWith(0)) << shortJob.describe();
  ChildResult waited = client(tracker, {"wait", lines(shortJob.out).at(0), "--json", "--timeout=60"});
  ASSERT_TRUE(waited.exitedWith(0)) << waited.describe();
  expectWordCounts(dir_ + "/out-short", "short");
  json::Value longJob = report(client(tracker, {"status", longId, "--json"}));
  std::cout << "the short job took " << report(waited)["seconds"].number()
            << " s; the long job had " << longJob["maps"]["done"].integer() << " of "
            << longJob["maps"]["total"].integer() << " maps done" << std::endl;
  EXPECT_EQ("running", longJob["state"].string());
  EXPECT_LT(longJob["maps"]["done"].integer() + 12, longJob["maps"]["total"].integer())
      << "the short job waited behind the long job's maps";
  stopJobTracker(pid);
}

// A slave dies (SIGKILL) while a job runs: its running attempts are lost
// and the map outputs it served are gone; the job still completes with the
// right counts.
TEST_F(MapReduceTest, SurvivesASlaveKilledMidJob) {
  startCluster();
  putText("words", 12000, nodes({0, 1, 2, 3}), 2, 12000);
  pid_t pid;
  std::string tracker = startJobTracker(1, &pid);
  // Each map takes a second, so the job is still running when the slave dies.
  ChildResult submitted = client(
      tracker, {"submit", "--job=streaming", "--input=/words", "--output=" + dir_ + "/out",
                "--reduces=2", "--map_command=sleep 1; tr ' ' '\\n' | awk 'NF { print $1 \"\\t1\" }'",
                "--reduce_command=awk -F'\\t' '{ c[$1] += $2 } END { for (k in c) print k \"\\t\" c[k] }'"});
  ASSERT_TRUE(submitted.exitedWith(0)) << submitted.describe();
  const std::string id = lines(submitted.out).at(0);

  // Wait until some maps are done, then kill 127.0.0.3.
  ASSERT_TRUE(waitUntil(
      [&] {
        ChildResult status = client(tracker, {"status", id, "--json"});
        return report(status)["maps"]["done"].integer() >= 4;
      },
      60s));
  kill(slaves_[1], SIGKILL);
  waitForExit(slaves_[1], 30s);
  reaped(slaves_[1]);

  ChildResult waited = client(tracker, {"wait", id, "--json", "--timeout=80"});
  ASSERT_TRUE(waited.exitedWith(0)) << waited.describe() << readFile(dir_ + "/jobtracker-" +
                                                                    tracker.substr(10) + ".log");
  json::Value job = report(waited);
  std::cout << "after the kill: recomputed maps " << job["recomputed_maps"].integer()
            << ", failed attempts " << job["attempts"]["failed"].integer()
            << ", speculative attempts " << job["attempts"]["speculative"].integer()
            << ", job time " << job["seconds"].number() << " s" << std::endl;
  expectWordCounts(dir_ + "/out", "words");
  EXPECT_GT(job["recomputed_maps"].integer() + job["attempts"]["failed"].integer() +
                job["attempts"]["speculative"].integer(),
            0)
      << "the job went on as if no slave had died";
  stopJobTracker(pid);
}

// The first attempt of map 0 hangs (a straggler): a speculative attempt on
// another node finishes it, long before the straggler would have.
TEST_F(MapReduceTest, SpeculatesAStraggler) {
  startCluster();
  putText("words", 3000, nodes({0, 1, 2, 3}), 2, 20000);
  ChildResult result = run(
      {"--job=streaming", "--input=/words", "--output=" + dir_ + "/out",
       "--map_command=if [ \"$MAPREDUCE_TASK\" = job-1-m0-a1 ]; then sleep 120; fi; "
       "tr ' ' '\\n' | awk 'NF { print $1 \"\\t1\" }'",
       "--reduce_command=awk -F'\\t' '{ c[$1] += $2 } END { for (k in c) print k \"\\t\" c[k] }'"});
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  json::Value job = report(result);
  EXPECT_GE(job["attempts"]["speculative"].integer(), 1);
  EXPECT_LT(job["seconds"].number(), 60);
  expectWordCounts(dir_ + "/out", "words");
}

// One map attempt fails (the first to create a marker directory): it is
// retried and the job succeeds. A map command that always fails fails the
// job after four attempts of one task, with the command's error.
TEST_F(MapReduceTest, RetriesFailedTasksAndGivesUpAfterFourAttempts) {
  startCluster();
  putText("words", 3000, nodes({0, 1, 2, 3}), 2, 20000);
  const std::string wordcount = "tr ' ' '\\n' | awk 'NF { print $1 \"\\t1\" }'";
  const std::string sum = "awk -F'\\t' '{ c[$1] += $2 } END { for (k in c) print k \"\\t\" c[k] }'";
  ChildResult once = run({"--job=streaming", "--input=/words", "--output=" + dir_ + "/out",
                          "--map_command=if mkdir " + dir_ + "/failed 2>/dev/null; then exit 3; fi; " +
                              wordcount,
                          "--reduce_command=" + sum});
  ASSERT_TRUE(once.exitedWith(0)) << once.describe();
  EXPECT_EQ(1, report(once)["attempts"]["failed"].integer());
  expectWordCounts(dir_ + "/out", "words");

  ChildResult always = run({"--job=streaming", "--input=/words", "--output=" + dir_ + "/never",
                            "--map_command=echo no luck >&2; exit 3"});
  EXPECT_TRUE(always.exitedWith(1)) << always.describe();
  json::Value job = report(always);
  EXPECT_EQ("failed", job["state"].string());
  EXPECT_NE(std::string::npos, job["error"].string().find("failed 4 times")) << job["error"].string();
  EXPECT_NE(std::string::npos, job["error"].string().find("no luck")) << job["error"].string();
}

TEST_F(MapReduceTest, MissingInputFailsClearlyAndRunsNothing) {
  startCluster();
  ChildResult result = run({"--job=wordcount", "--input=/no/such/file",
                            "--output=" + dir_ + "/out"});
  EXPECT_TRUE(result.exitedWith(1)) << result.describe();
  EXPECT_NE(std::string::npos, result.err.find("no such file '/no/such/file'")) << result.err;
  EXPECT_EQ(1u, lines(result.err).size()) << "one line of error:\n" << result.err;

  pid_t pid;
  std::string tracker = startJobTracker(5, &pid);
  ChildResult submitted = client(tracker, {"submit", "--job=wordcount", "--input=/no/such/file",
                                           "--output=" + dir_ + "/out"});
  EXPECT_TRUE(submitted.exitedWith(1)) << submitted.describe();
  EXPECT_NE(std::string::npos, submitted.err.find("no such file '/no/such/file'"))
      << submitted.err;
  ChildResult status = client(tracker, {"status", "--json"});
  EXPECT_TRUE(status.exitedWith(0)) << status.describe();
  EXPECT_EQ("", status.out) << "the JobTracker holds no job";
  // Nothing runs on the cluster: no task was ever launched.
  json::Value state = getJson(master_, "/master/state");
  int64_t tasks = 0;
  if (state["frameworks"].isArray()) {
    for (const json::Value& framework : state["frameworks"].array()) {
      if (framework["tasks"].isArray()) tasks += static_cast<int64_t>(framework["tasks"].array().size());
    }
  }
  EXPECT_EQ(0, tasks);
  stopJobTracker(pid);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/out"));
}

}  // namespace
}  // namespace mesos::test
