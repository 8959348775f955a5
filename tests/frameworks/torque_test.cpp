// The Torque-style batch queue on a real cluster: a master and slaves as
// processes (each slave its own "machine", 127.0.0.N, cpus:2), the real
// mesos-torque-server, its node executors and the mesos-qsub, mesos-qstat
// and mesos-qdel commands. A job's output files and exit status must be
// right; the held node set must grow with the queue and shrink when idle
// (as the master sees it); walltime and qdel must kill; a 2-node job must
// see both nodes in PBS_NODEFILE; a malformed -l must be refused with
// nothing queued or held.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

const std::string kPrograms = MESOS_BINARY_DIR "/frameworks/torque/";

class TorqueTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    if (!std::filesystem::exists(kPrograms + "mesos-torque-server")) {
      GTEST_SKIP() << "frameworks/torque is not built";
    }
    master_ = startMaster(masterFlags());
  }

  virtual std::vector<std::string> masterFlags() { return {"--allocation_interval=100ms"}; }

  // Starts the slaves of nodes 127.0.0.2 .. 127.0.0.<1+count> (cpus:2 each)
  // and waits until the master counts them all.
  void startNodes(int count) {
    for (int n = 2; n < 2 + count; n++) {
      const std::string host = "127.0.0." + std::to_string(n);
      slaves_[host] = startSlave(master_, "slave-" + host,
                                 {"--ip=" + host, "--hostname=" + host, "--attributes=rack:r1",
                                  "--resources=cpus:2;mem:1024;disk:1024"});
    }
    bool up = waitUntil([&] { return metric(master_, "master/slaves_active") == count; }, 30s);
    std::string logs;
    for (int n = 2; n < 2 + count && !up; n++) {
      logs += readFile(dir_ + "/slave-127.0.0." + std::to_string(n) + ".log");
    }
    ASSERT_TRUE(up) << count << " slaves did not register within 30 s:\n" << logs;
  }

  // Starts mesos-torque-server with `flags` and waits until it registered
  // and serves.
  void startServer(const std::vector<std::string>& flags = {}) {
    server_ = process::Address{0x7f000001, freePort()};
    std::vector<std::string> args = {kPrograms + "mesos-torque-server",
                                     "--master=" + master_.toString(), "--ip=127.0.0.1",
                                     "--port=" + std::to_string(server_.port), "--node_mem=128"};
    args.insert(args.end(), flags.begin(), flags.end());
    pid_t pid = start(args, "server");
    bool up = waitUntil(
        [&] {
          json::Value registered = status()["registered"];
          return registered.isBool() && registered.boolean();
        },
        30s, pid);
    ASSERT_TRUE(up) << "the server did not serve within 30 s:\n" << readFile(dir_ + "/server.log");
  }

  ChildResult command(const std::string& name, const std::vector<std::string>& args) {
    std::vector<std::string> all = {kPrograms + name, "--server=" + server_.toString()};
    all.insert(all.end(), args.begin(), args.end());
    return runChild(all, 60s);
  }

  // Writes `script` to <dir>/<name>.sh and submits it with `args`, output
  // into the test's directory; the job id.
  int64_t submit(const std::string& name, const std::string& script,
                 const std::vector<std::string>& args = {}) {
    std::string path = dir_ + "/" + name + ".sh";
    std::ofstream(path) << script;
    std::vector<std::string> all = {"-N", name, "-o", dir_, "-e", dir_, "-d", dir_};
    all.insert(all.end(), args.begin(), args.end());
    all.push_back(path);
    ChildResult result = command("mesos-qsub", all);
    EXPECT_TRUE(result.exitedWith(0)) << result.describe();
    return result.exitedWith(0) ? std::stoll(result.out) : -1;
  }

  json::Value status() { return getJson(server_, "/status"); }
  json::Value job(int64_t id) { return getJson(server_, "/jobs/" + std::to_string(id)); }

  bool waitForState(int64_t id, const std::string& state, std::chrono::seconds bound = 60s) {
    return waitUntil(
        [&] {
          json::Value value = job(id)["state"];
          return value.isString() && value.string() == state;
        },
        bound);
  }

  // The cpus this framework holds and its task count, as the master sees it.
  std::pair<double, size_t> held() {
    json::Value state = getJson(master_, "/master/state");
    if (!state["frameworks"].isArray()) return {-1, 0};
    for (const json::Value& framework : state["frameworks"].array()) {
      if (!framework["name"].isString() || framework["name"].string() != "torque") continue;
      json::Value cpus = framework["used_resources"]["cpus"];
      size_t tasks = framework["tasks"].isArray() ? framework["tasks"].array().size() : 0;
      return {cpus.isNumber() ? cpus.number() : 0.0, tasks};
    }
    return {-1, 0};
  }

  int64_t serverCount(const std::string& key) {
    json::Value value = status()[key];
    return value.isNumber() ? value.integer() : -1;
  }

  process::Address master_;
  process::Address server_;
  std::map<std::string, pid_t> slaves_;  // by host
};

TEST_F(TorqueTest, JobWritesItsOutputFilesAndKeepsItsExitStatus) {
  startNodes(1);
  startServer();
  std::string script = dir_ + "/first.sh";
  std::ofstream(script) << "#!/bin/sh\n#PBS -l walltime=00:05:00\n"
                        << "echo \"out $PBS_JOBNAME $PBS_JOBID\"\necho to-stderr >&2\nexit 7\n";
  ChildResult run = command("mesos-qsub", {"-N", "first", "-o", dir_, "-e", dir_, "-d", dir_, "-W",
                                           "block=true", script});
  ASSERT_TRUE(run.exitedWith(7)) << run.describe();
  EXPECT_EQ("1\n", run.out);

  EXPECT_EQ("out first 1\n", readFile(dir_ + "/first.o1"));
  EXPECT_EQ("to-stderr\n", readFile(dir_ + "/first.e1"));
  json::Value done = job(1);
  EXPECT_EQ("C", done["state"].string());
  EXPECT_EQ(7, done["exit_status"].integer());
  EXPECT_EQ("00:05:00", done["walltime"].string());

  ChildResult qstat = command("mesos-qstat", {});
  ASSERT_TRUE(qstat.exitedWith(0)) << qstat.describe();
  EXPECT_NE(std::string::npos, qstat.out.find("first")) << qstat.out;
  EXPECT_NE(std::string::npos, qstat.out.find(" C 127.0.0.2")) << qstat.out;
  ChildResult full = command("mesos-qstat", {"-f", "1"});
  ASSERT_TRUE(full.exitedWith(0)) << full.describe();
  EXPECT_NE(std::string::npos, full.out.find("exit_status = 7")) << full.out;
}

TEST_F(TorqueTest, HeldNodesGrowWithTheQueueAndAreGivenBackWhenIdle) {
  startNodes(3);
  startServer({"--max_nodes=2", "--idle_timeout=1"});
  // Nothing queued: nothing held, offers suppressed.
  EXPECT_EQ(0, status()["held"]["nodes"].integer());
  EXPECT_EQ(0.0, held().first);
  EXPECT_TRUE(status()["suppressed"].boolean());

  // Three one-cpu jobs that wait for a gate: the queue wants three nodes,
  // --max_nodes allows two, so two run and one waits.
  std::string gate = dir_ + "/gate";
  std::string script = "#!/bin/sh\nwhile [ ! -e " + gate + " ]; do sleep 0.1; done\necho done\n";
  std::vector<int64_t> ids;
  for (int i = 0; i < 3; i++) ids.push_back(submit("gated" + std::to_string(i), script));
  bool grown = waitUntil(
      [&] {
        json::Value now = status();
        return now["held"]["nodes"].isNumber() && now["held"]["nodes"].integer() == 2 &&
               now["running"].integer() == 2 && now["queued"].integer() == 1;
      },
      60s);
  ASSERT_TRUE(grown) << readFile(dir_ + "/server.log");
  auto [cpus, tasks] = held();
  EXPECT_EQ(2.0, cpus);  // two nodes of one cpu each, as the master counts them
  EXPECT_EQ(2u, tasks);
  std::set<std::string> hosts;
  json::Value now = status();
  ASSERT_TRUE(now["nodes"].isArray());
  for (const json::Value& node : now["nodes"].array()) hosts.insert(node["hostname"].string());
  EXPECT_EQ(2u, hosts.size());  // one node per slave

  // The gate opens: all three complete (the third on a freed node), and
  // with nothing queued the idle nodes go back.
  std::ofstream(gate) << "open\n";
  for (int64_t id : ids) {
    ASSERT_TRUE(waitForState(id, "C")) << "job " << id;
    EXPECT_EQ(0, job(id)["exit_status"].integer());
  }
  bool shrunk = waitUntil(
      [&] {
        return held() == std::pair<double, size_t>{0.0, 0} && serverCount("queued") == 0 &&
               status()["held"]["nodes"].integer() == 0;
      },
      60s);
  EXPECT_TRUE(shrunk) << "still held: " << held().first << " cpus, " << held().second << " tasks";
  EXPECT_TRUE(status()["suppressed"].boolean());
}

TEST_F(TorqueTest, BackfillsOnlyJobsThatDoNotDelayTheFirstWaitingJob) {
  startNodes(1);
  startServer({"--max_nodes=1", "--node_cpus=2"});
  std::string gate = dir_ + "/gate";
  std::string gated = "#!/bin/sh\nwhile [ ! -e " + gate + " ]; do sleep 0.1; done\n";
  // A holds one of the node's two cpus for up to a minute; B needs both,
  // so it waits for A (its reservation: A's walltime end).
  int64_t a = submit("a", gated, {"-l", "walltime=00:01:00"});
  ASSERT_TRUE(waitForState(a, "R"));
  int64_t b = submit("b", "#!/bin/sh\ntrue\n", {"-l", "nodes=1:ppn=2,walltime=00:01:00"});
  // C fits beside A and ends before B's reservation: it is backfilled.
  int64_t c = submit("c", "#!/bin/sh\ntrue\n", {"-l", "walltime=00:00:10"});
  ASSERT_TRUE(waitForState(c, "C"));
  // D fits beside A too, but its walltime would delay B: it waits.
  int64_t d = submit("d", "#!/bin/sh\ntrue\n", {"-l", "walltime=00:10:00"});
  ASSERT_TRUE(waitUntil([&] { return serverCount("queued") == 2; }, 30s));
  EXPECT_EQ("Q", job(b)["state"].string());
  EXPECT_EQ("Q", job(d)["state"].string());
  EXPECT_EQ("R", job(a)["state"].string());

  // A ends: B runs, then D, in order.
  std::ofstream(gate) << "open\n";
  ASSERT_TRUE(waitForState(d, "C"));
  EXPECT_EQ("C", job(b)["state"].string());
  EXPECT_EQ(0, job(b)["exit_status"].integer());
  EXPECT_EQ(0, job(d)["exit_status"].integer());
}

TEST_F(TorqueTest, WalltimeIsEnforced) {
  startNodes(1);
  startServer();
  auto begin = std::chrono::steady_clock::now();
  int64_t id = submit("slow", "#!/bin/sh\necho started\nsleep 60\necho never\n",
                      {"-l", "walltime=00:00:02"});
  ASSERT_TRUE(waitForState(id, "C", 45s));
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 40s);
  json::Value done = job(id);
  EXPECT_NE(0, done["exit_status"].integer());
  EXPECT_NE(std::string::npos, done["comment"].string().find("walltime"))
      << done["comment"].string();
  EXPECT_EQ("started\n", readFile(dir_ + "/slow.o" + std::to_string(id)));
}

TEST_F(TorqueTest, TwoNodeJobGetsBothNodesInItsNodefile) {
  startNodes(2);
  startServer();
  int64_t id = submit("pair", "#!/bin/sh\ncat \"$PBS_NODEFILE\"\necho \"np=$PBS_NP\"\n",
                      {"-l", "nodes=2:ppn=1"});
  ASSERT_TRUE(waitForState(id, "C"));
  EXPECT_EQ(0, job(id)["exit_status"].integer());
  std::istringstream lines(readFile(dir_ + "/pair.o" + std::to_string(id)));
  std::multiset<std::string> seen;
  std::string line;
  while (std::getline(lines, line)) seen.insert(line);
  EXPECT_EQ((std::multiset<std::string>{"127.0.0.2", "127.0.0.3", "np=2"}), seen);
}

TEST_F(TorqueTest, MalformedResourceRequestIsRefusedAndNothingIsHeld) {
  startNodes(1);
  startServer({"--max_nodes=1"});
  std::string script = dir_ + "/bad.sh";
  std::ofstream(script) << "#!/bin/sh\necho never\n";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"nodes=two", "nodes=two"},
      {"walltime=1:99", "walltime=1:99"},
      {"mem=lots", "mem=lots"},
      {"gpus=1", "unknown resource 'gpus'"},
      {"nodes=2", "more than the 1 node(s)"},  // refused by the server
  };
  for (const auto& [request, message] : bad) {
    ChildResult result = command("mesos-qsub", {"-l", request, "-o", dir_, "-e", dir_, script});
    EXPECT_TRUE(result.exitedWith(2)) << request << ": " << result.describe();
    EXPECT_NE(std::string::npos, result.err.find(message)) << request << ": " << result.err;
    EXPECT_EQ(1, std::count(result.err.begin(), result.err.end(), '\n')) << result.err;
  }
  json::Value jobs = getJson(server_, "/jobs")["jobs"];
  ASSERT_TRUE(jobs.isArray());
  EXPECT_TRUE(jobs.array().empty());
  EXPECT_EQ(0, status()["held"]["nodes"].integer());
  EXPECT_EQ((std::pair<double, size_t>{0.0, 0}), held());
  EXPECT_TRUE(status()["suppressed"].boolean());

  // The commands' own errors: a clear line and status 2 without a server.
  ChildResult noServer = runChild({kPrograms + "mesos-qstat"}, 30s);
  EXPECT_TRUE(noServer.exitedWith(2)) << noServer.describe();
  EXPECT_NE(std::string::npos, noServer.err.find("MESOS_TORQUE_URL")) << noServer.err;
  for (const char* name : {"mesos-qsub", "mesos-qstat", "mesos-qdel", "mesos-torque-server"}) {
    ChildResult help = runChild({kPrograms + name, "--help"}, 30s);
    EXPECT_TRUE(help.exitedWith(0)) << name << ": " << help.describe();
    EXPECT_NE(std::string::npos, help.out.find(name)) << name << ": " << help.out;
  }
}

TEST_F(TorqueTest, QdelKillsARunningJob) {
  startNodes(1);
  startServer();
  int64_t id = submit("victim", "#!/bin/sh\necho started\nsleep 60\necho never\n");
  std::string output = dir_ + "/victim.o" + std::to_string(id);
  ASSERT_TRUE(waitUntil([&] { return readFile(output) == "started\n"; }, 60s))
      << readFile(dir_ + "/server.log");
  EXPECT_EQ("R", job(id)["state"].string());

  ChildResult qdel = command("mesos-qdel", {std::to_string(id)});
  ASSERT_TRUE(qdel.exitedWith(0)) << qdel.describe();
  ASSERT_TRUE(waitForState(id, "C", 30s));
  json::Value done = job(id);
  EXPECT_NE(0, done["exit_status"].integer());
  EXPECT_NE(std::string::npos, done["comment"].string().find("deleted"))
      << done["comment"].string();
  EXPECT_EQ("started\n", readFile(output));
  EXPECT_EQ(0, status()["running"].integer());

  ChildResult again = command("mesos-qdel", {std::to_string(id)});
  EXPECT_TRUE(again.exitedWith(1)) << again.describe();
  EXPECT_NE(std::string::npos, again.err.find("already completed")) << again.err;
  ChildResult unknown = command("mesos-qdel", {"99"});
  EXPECT_TRUE(unknown.exitedWith(1)) << unknown.describe();
  EXPECT_NE(std::string::npos, unknown.err.find("unknown job 99")) << unknown.err;
}

// A master whose role "batch" is guaranteed two nodes' worth (cpus:2 and
// mem:256 for nodes of cpus:1 and mem:128).
class TorqueRoleTest : public TorqueTest {
 protected:
  std::vector<std::string> masterFlags() override {
    return {"--allocation_interval=100ms", "--roles=batch", "--guarantees=batch:cpus:2;mem:256"};
  }
};

TEST_F(TorqueRoleTest, HoldsNoMoreThanItsRolesGuarantee) {
  startNodes(3);
  startServer({"--role=batch", "--idle_timeout=1"});
  EXPECT_EQ(2, status()["max_nodes"].integer());

  std::string script = dir_ + "/wide.sh";
  std::ofstream(script) << "#!/bin/sh\necho never\n";
  ChildResult wide = command("mesos-qsub", {"-l", "nodes=3", "-o", dir_, "-e", dir_, script});
  EXPECT_TRUE(wide.exitedWith(2)) << wide.describe();
  EXPECT_NE(std::string::npos, wide.err.find("guarantee of role 'batch'")) << wide.err;

  std::string gate = dir_ + "/gate";
  std::string gated = "#!/bin/sh\nwhile [ ! -e " + gate + " ]; do sleep 0.1; done\n";
  std::vector<int64_t> ids;
  for (int i = 0; i < 3; i++) ids.push_back(submit("batch" + std::to_string(i), gated));
  bool full = waitUntil(
      [&] {
        return serverCount("running") == 2 && held() == std::pair<double, size_t>{2.0, 2};
      },
      60s);
  ASSERT_TRUE(full) << readFile(dir_ + "/server.log");
  EXPECT_EQ(1, serverCount("queued"));
  EXPECT_TRUE(status()["suppressed"].boolean());  // it wants no more than it may hold
  std::ofstream(gate) << "open\n";
  for (int64_t id : ids) ASSERT_TRUE(waitForState(id, "C")) << "job " << id;
}

// A master that removes a silent slave after two missed pings of 1 s.
class TorqueNodeLossTest : public TorqueTest {
 protected:
  std::vector<std::string> masterFlags() override {
    return {"--allocation_interval=100ms", "--slave_ping_timeout=1secs",
            "--max_slave_ping_timeouts=2"};
  }
};

TEST_F(TorqueNodeLossTest, LostNodeEndsItsJobAndTheQueueMovesToAnotherNode) {
  startNodes(2);
  startServer({"--max_nodes=1"});
  std::string gate = dir_ + "/never";
  int64_t stuck = submit("stuck", "#!/bin/sh\nwhile [ ! -e " + gate + " ]; do sleep 0.1; done\n");
  ASSERT_TRUE(waitForState(stuck, "R"));
  int64_t next = submit("next", "#!/bin/sh\necho ok\n");
  EXPECT_EQ("Q", job(next)["state"].string());  // --max_nodes=1: it waits

  std::string lost = job(stuck)["hosts"].array().at(0).string();
  pid_t slave = slaves_.at(lost);
  ::kill(slave, SIGKILL);
  ::waitpid(slave, nullptr, 0);
  reaped(slave);

  ASSERT_TRUE(waitForState(stuck, "C", 60s)) << readFile(dir_ + "/server.log");
  json::Value ended = job(stuck);
  EXPECT_EQ(-1, ended["exit_status"].integer());
  EXPECT_NE(std::string::npos, ended["comment"].string().find("node " + lost + " lost"))
      << ended["comment"].string();
  // The queue gets a node on the other slave and goes on.
  ASSERT_TRUE(waitForState(next, "C", 60s)) << readFile(dir_ + "/server.log");
  EXPECT_EQ(0, job(next)["exit_status"].integer());
  EXPECT_NE(lost, job(next)["hosts"].array().at(0).string());
  EXPECT_EQ("ok\n", readFile(dir_ + "/next.o" + std::to_string(next)));
}

}  // namespace
}  // namespace mesos::test
