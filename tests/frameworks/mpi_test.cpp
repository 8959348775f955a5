// mesos-mpirun on a real cluster: a master and two slaves as processes,
// each slave its own "machine" (127.0.0.2 and 127.0.0.3, cpus:2 each), real
// MPICH programs of ours run by Hydra's proxies as tasks. The answers must
// be right; a killed rank, a missing program and a gang larger than the
// role's guarantee must fail with a clear message and leave nothing
// running; two gangs that each hold half of the cluster must both finish.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
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

const std::string kPrograms = MESOS_BINARY_DIR "/frameworks/mpi/";
const std::string kMpirun = kPrograms + "mesos-mpirun";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Whether `pid` is a live process (a zombie counts as ended).
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

// Live processes whose command line mentions `text`.
std::vector<pid_t> processesMentioning(const std::string& text) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = readFile(entry.path().string() + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    pid_t pid = static_cast<pid_t>(std::stol(name));
    if (cmdline.find(text) != std::string::npos && alive(pid)) found.push_back(pid);
  }
  return found;
}

class MpiTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    // Short pings, so that the master reports a killed slave in seconds.
    master_ = startMaster({"--allocation_interval=100ms", "--slave_ping_timeout=1secs",
                           "--max_slave_ping_timeouts=3"});
  }

  // Starts the slave of node 127.0.0.<n> with cpus:2 and waits until the
  // master counts `active` slaves.
  void startNode(int n, int64_t active) {
    const std::string host = "127.0.0." + std::to_string(n);
    slaves_[n] = startSlave(master_, "slave-" + host,
                            {"--ip=" + host, "--hostname=" + host,
                             "--resources=cpus:2;mem:1024;disk:1024"});
    bool up = waitUntil([&] { return metric(master_, "master/slaves_active") == active; }, 30s);
    ASSERT_TRUE(up) << "slave " << host << " did not register within 30 s";
  }

  std::vector<std::string> mpirun(const std::vector<std::string>& args) {
    std::vector<std::string> all = {kMpirun, "--master=" + master_.toString(),
                                    "--mem_per_rank=64", "--timeout=60"};
    all.insert(all.end(), args.begin(), args.end());
    return all;
  }

  // No task of any framework is running and the slaves' resources are all
  // free, as the master sees it (waits a little: the last updates may still
  // be on their way). What is still in use otherwise.
  std::string busy() {
    std::string what;
    waitUntil(
        [&] {
          what.clear();
          json::Value state = getJson(master_, "/master/state");
          if (!state.isObject()) {
            what = "no /master/state";
            return false;
          }
          for (const json::Value& framework : state["frameworks"].array()) {
            for (const json::Value& task : framework["tasks"].array()) {
              what += "task " + task["id"].string() + " is " + task["state"].string() + "; ";
            }
          }
          for (const json::Value& slave : state["slaves"].array()) {
            const json::Value& used = slave["used_resources"];
            if (used["cpus"].number() > 0 || used["mem"].number() > 0) {
              what += "slave " + slave["hostname"].string() + " has cpus " +
                      std::to_string(used["cpus"].number()) + " in use; ";
            }
          }
          return what.empty();
        },
        15s);
    return what;
  }

  // Starts mesos-mpi-hold on 4 ranks (output in <dir>/mpirun.log) and
  // waits until every rank has written "<pid> <proxy pid>". Its pid.
  pid_t startHeldJob(std::vector<pid_t>* ranks, std::vector<pid_t>* proxies) {
    holdDir_ = dir_ + "/hold";
    ::mkdir(holdDir_.c_str(), 0755);
    log_ = dir_ + "/mpirun.log";
    pid_t pid = startDaemon(mpirun({"-n", "4", kPrograms + "mesos-mpi-hold", holdDir_}), log_);
    if (pid <= 0) return pid;
    ranks->assign(4, 0);
    proxies->assign(4, 0);
    bool up = waitUntil(
        [&] {
          for (int r = 0; r < 4; ++r) {
            std::istringstream line(readFile(holdDir_ + "/rank-" + std::to_string(r) + ".pid"));
            if (!(line >> (*ranks)[r] >> (*proxies)[r])) return false;
          }
          return true;
        },
        60s, pid);
    if (!up) {
      ADD_FAILURE() << "the four ranks did not start:\n" << readFile(log_);
      ::kill(pid, SIGKILL);
      waitForExit(pid, 30s);
      return -1;
    }
    return pid;
  }

  // Whether every one of `pids` has ended (waits up to 15 s), and nothing
  // else started from the job's directory runs.
  bool allEnded(const std::vector<pid_t>& pids) {
    return waitUntil(
        [&] {
          for (pid_t pid : pids) {
            if (alive(pid)) return false;
          }
          return processesMentioning(holdDir_).empty();
        },
        15s);
  }

  process::Address master_;
  std::map<int, pid_t> slaves_;  // by node number
  std::string holdDir_;
  std::string log_;
};

TEST_F(MpiTest, PiOverFourRanksOnTwoSlaves) {
  startNode(2, 1);
  startNode(3, 2);
  ChildResult run = runChild(mpirun({"-n", "4", kPrograms + "mesos-mpi-pi"}), 90s);
  ASSERT_TRUE(run.exitedWith(0)) << run.describe();
  // 10^7 midpoint intervals: pi to about 13 digits.
  EXPECT_NE(std::string::npos, run.out.find("pi = 3.1415926535")) << run.describe();
  EXPECT_NE(std::string::npos, run.out.find("10000000 intervals, 4 ranks")) << run.describe();
  // One task per node, two ranks each.
  EXPECT_EQ(2u, count(run.out, "on node 127.0.0.2\n")) << run.describe();
  EXPECT_EQ(2u, count(run.out, "on node 127.0.0.3\n")) << run.describe();
  EXPECT_NE(std::string::npos, run.err.find("the MPI job succeeded (4 ranks)")) << run.describe();
  EXPECT_EQ("", busy());
}

TEST_F(MpiTest, RingOverFourRanksOnTwoSlaves) {
  startNode(2, 1);
  startNode(3, 2);
  ChildResult run = runChild(mpirun({"-n", "4", kPrograms + "mesos-mpi-ring", "5"}), 90s);
  ASSERT_TRUE(run.exitedWith(0)) << run.describe();
  // Each lap adds 1 + 2 + 3 + 4.
  EXPECT_NE(std::string::npos, run.out.find("ring: 4 ranks, 5 laps, token 50 (expected 50): ok"))
      << run.describe();
  EXPECT_EQ(2u, count(run.out, "on node 127.0.0.2\n")) << run.describe();
  EXPECT_EQ(2u, count(run.out, "on node 127.0.0.3\n")) << run.describe();
  EXPECT_EQ("", busy());
}

TEST_F(MpiTest, AKilledRankFailsTheJobAndFreesEverySlot) {
  startNode(2, 1);
  startNode(3, 2);
  std::vector<pid_t> ranks;
  std::vector<pid_t> proxies;
  pid_t mpirunPid = startHeldJob(&ranks, &proxies);
  ASSERT_GT(mpirunPid, 0);

  ASSERT_EQ(0, ::kill(ranks[1], SIGKILL));
  int status = waitForExit(mpirunPid, 60s);
  std::string output = readFile(log_);
  EXPECT_EQ(1, status) << output;
  // Hydra names a killed rank and its node; we say the job failed. Which
  // rank it names first is Hydra's race: the one we killed, or another
  // that its cleanup killed just before it noticed.
  bool named = false;
  for (const std::string node : {"127.0.0.2", "127.0.0.3"}) {
    for (pid_t rank : ranks) {
      named = named || output.find("the MPI job failed: rank process " + std::to_string(rank) +
                                   " on " + node + " ended with exit code 9 (Killed (signal 9))") !=
                           std::string::npos;
    }
  }
  EXPECT_TRUE(named) << output;

  EXPECT_EQ("", busy());
  std::vector<pid_t> all = ranks;
  all.insert(all.end(), proxies.begin(), proxies.end());
  EXPECT_TRUE(allEnded(all)) << "a rank or a hydra_pmi_proxy is still running";
}

TEST_F(MpiTest, ASlaveLostMidRunFailsTheJob) {
  startNode(2, 1);
  startNode(3, 2);
  std::vector<pid_t> ranks;
  std::vector<pid_t> proxies;
  pid_t mpirunPid = startHeldJob(&ranks, &proxies);
  ASSERT_GT(mpirunPid, 0);

  // The slave of node 3 dies; its executor and ranks run on until the
  // gang is torn down (on a real cluster the whole machine would be gone).
  ASSERT_EQ(0, ::kill(slaves_[3], SIGKILL));
  waitForExit(slaves_[3], 30s);
  reaped(slaves_[3]);
  int status = waitForExit(mpirunPid, 60s);
  std::string output = readFile(log_);
  EXPECT_EQ(1, status) << output;
  // The slave's death ends its executor and so the proxy there: mpiexec
  // may notice first, or the master's verdict may come first; either way
  // the failure line names the node's task and that it was lost.
  const size_t failed = output.find("the MPI job failed: ");
  ASSERT_NE(std::string::npos, failed) << output;
  const std::string line = output.substr(failed, output.find('\n', failed) - failed);
  EXPECT_NE(std::string::npos, line.find("'ranks-2-3' (ranks 2-3 on 127.0.0.3)")) << output;
  EXPECT_TRUE(line.find("ended TASK_LOST") != std::string::npos ||
              line.find("slave 127.0.0.3 (") != std::string::npos)
      << output;
  EXPECT_EQ("", busy());
  std::vector<pid_t> all = ranks;
  all.insert(all.end(), proxies.begin(), proxies.end());
  EXPECT_TRUE(allEnded(all)) << "a rank or a hydra_pmi_proxy is still running";
}

TEST_F(MpiTest, KillingMpirunLeavesNothingRunning) {
  startNode(2, 1);
  startNode(3, 2);
  std::vector<pid_t> ranks;
  std::vector<pid_t> proxies;
  pid_t mpirunPid = startHeldJob(&ranks, &proxies);
  ASSERT_GT(mpirunPid, 0);

  // No chance to clean up: mpiexec dies with it, the proxies lose their
  // control connection and end their ranks, the tasks end.
  ASSERT_EQ(0, ::kill(mpirunPid, SIGKILL));
  waitForExit(mpirunPid, 30s);
  std::vector<pid_t> all = ranks;
  all.insert(all.end(), proxies.begin(), proxies.end());
  EXPECT_TRUE(allEnded(all)) << "a rank or a hydra_pmi_proxy is still running";
  EXPECT_EQ("", busy());
}

TEST_F(MpiTest, AFailedProxyTaskTearsDownTheGang) {
  startNode(2, 1);
  startNode(3, 2);
  // The proxy task of node 127.0.0.3 fails as soon as node 127.0.0.2's has
  // started, whose ranks then wait in MPI_Init for ranks that never come.
  const std::string holdDir = dir_ + "/hold";
  ASSERT_EQ(0, ::mkdir(holdDir.c_str(), 0755));
  const std::string wrapper = dir_ + "/failing-proxy.sh";
  {
    std::ofstream script(wrapper);
    script << "#!/bin/sh\n"
           << "echo $$ > " << dir_ << "/proxy-$MESOS_MPI_NODE.pid\n"
           << "if [ \"$MESOS_MPI_NODE\" = 127.0.0.3 ]; then\n"
           << "  for i in $(seq 600); do\n"
           << "    [ -s " << dir_ << "/proxy-127.0.0.2.pid ] && break; sleep 0.05\n"
           << "  done\n"
           << "  exit 3\n"
           << "fi\n"
           << "exec " << kPrograms << "mesos-mpi-proxy \"$@\"\n";
  }
  ASSERT_EQ(0, ::chmod(wrapper.c_str(), 0755));
  ChildResult run = runChild(mpirun({"--proxy_wrapper=" + wrapper, "-n", "4",
                                     kPrograms + "mesos-mpi-hold", holdDir}),
                             90s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(std::string::npos,
            run.err.find("the MPI job failed: task 'ranks-2-3' (ranks 2-3 on 127.0.0.3) ended "
                         "TASK_FAILED (Command exited with status 3)"))
      << run.describe();
  EXPECT_EQ("", busy());
  // The healthy node's proxy (the wrapper's pid) and its ranks are gone.
  std::istringstream proxy(readFile(dir_ + "/proxy-127.0.0.2.pid"));
  pid_t proxyPid = 0;
  ASSERT_TRUE(proxy >> proxyPid) << run.describe();
  bool gone = waitUntil([&] { return !alive(proxyPid) && processesMentioning(holdDir).empty(); },
                        15s);
  EXPECT_TRUE(gone) << "node 127.0.0.2's proxy or ranks are still running";
}

TEST_F(MpiTest, AProgramThatDoesNotExistFailsClearly) {
  startNode(2, 1);
  startNode(3, 2);
  const std::string missing = dir_ + "/no-such-program";
  ChildResult checked = runChild(mpirun({"-n", "4", missing}), 60s);
  EXPECT_TRUE(checked.exitedWith(1)) << checked.describe();
  EXPECT_NE(std::string::npos,
            checked.err.find("the MPI program '" + missing + "' does not exist"))
      << checked.describe();

  // Not checked here: the proxies fail to start it on the nodes.
  ChildResult unchecked = runChild(mpirun({"--nocheck_program", "-n", "4", missing}), 90s);
  EXPECT_TRUE(unchecked.exitedWith(1)) << unchecked.describe();
  EXPECT_NE(std::string::npos,
            unchecked.err.find("the MPI job failed: the MPI program could not be started: " +
                               missing + " (No such file or directory)"))
      << unchecked.describe();
  EXPECT_EQ("", busy());
}

// No master at --master: the driver would retry for ever; --timeout bounds
// the wait for registration as it bounds the wait for a gang.
TEST_F(MpiTest, NoMasterFailsAtTheTimeout) {
  const std::string nobody = "127.0.0.1:" + std::to_string(freePort());
  ChildResult run = runChild({kMpirun, "--master=" + nobody, "--timeout=2", "-n", "2",
                              kPrograms + "mesos-mpi-pi"},
                             60s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(std::string::npos,
            run.err.find("the MPI job failed: could not register with the master within 2 s"))
      << run.describe();
}

TEST_F(MpiTest, AGangLargerThanTheRolesGuaranteeIsRefused) {
  // A master of our own, with a guarantee for role "hpc".
  process::Address master = startMaster({"--allocation_interval=100ms",
                                         "--guarantees=hpc:cpus:2;mem:512"});
  ChildResult run = runChild({kMpirun, "--master=" + master.toString(), "--role=hpc",
                              "--timeout=30", "-n", "4", kPrograms + "mesos-mpi-pi"},
                             60s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(std::string::npos, run.err.find("-n 4 needs cpus 4, more than role 'hpc' is "
                                            "guaranteed"))
      << run.describe();
}

TEST_F(MpiTest, TwoGangsHoldingHalfTheClusterEachBothComplete) {
  // Gang A holds node 2's offer; gang B registers; node 3 comes and goes
  // to B (the lower share). Each holds half of what it needs: only the
  // gang timeout's release and back-off lets one of them complete first.
  startNode(2, 1);
  const std::string logA = dir_ + "/gang-a.log";
  const std::string logB = dir_ + "/gang-b.log";
  pid_t a = startDaemon(mpirun({"--gang_timeout=2", "-n", "4", kPrograms + "mesos-mpi-pi",
                                "50000000"}),
                        logA);
  ASSERT_GT(a, 0);
  bool holding = waitUntil(
      [&] { return readFile(logA).find("holding offers for 2 of 4 ranks") != std::string::npos; },
      30s, a);
  ASSERT_TRUE(holding) << readFile(logA);
  pid_t b = startDaemon(mpirun({"--gang_timeout=2", "-n", "4", kPrograms + "mesos-mpi-pi",
                                "50000000"}),
                        logB);
  ASSERT_GT(b, 0);
  bool registered = waitUntil(
      [&] { return readFile(logB).find("registered as framework") != std::string::npos; }, 30s,
      b);
  ASSERT_TRUE(registered) << readFile(logB);
  startNode(3, 2);

  int statusA = waitForExit(a, 90s);
  int statusB = waitForExit(b, 90s);
  std::string outA = readFile(logA);
  std::string outB = readFile(logB);
  EXPECT_EQ(0, statusA) << outA;
  EXPECT_EQ(0, statusB) << outB;
  EXPECT_NE(std::string::npos, outA.find("pi = 3.1415926535")) << outA;
  EXPECT_NE(std::string::npos, outB.find("pi = 3.1415926535")) << outB;
  // At least one of them let go of its half.
  EXPECT_GE(count(outA + outB, "releasing them and backing off"), 1u) << outA << outB;
  EXPECT_EQ("", busy());
}

}  // namespace
}  // namespace mesos::test
