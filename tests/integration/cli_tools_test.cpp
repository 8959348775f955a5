// mesos-ps, mesos-cat, mesos-tail and mesos-resolve (docs/cli.md) as users
// run them: separate processes against mesos-master and mesos-slave
// processes, with tasks started by mesos-execute. Real processes, so waits
// have generous real-time bounds.
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
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

std::string tool(const std::string& name) {
  return std::string(MESOS_BINARY_DIR) + "/src/cli/" + name;
}

ChildResult run(const std::string& name, const std::vector<std::string>& flags) {
  std::vector<std::string> args = {tool(name)};
  args.insert(args.end(), flags.begin(), flags.end());
  return runChild(args, 30s);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// The row of mesos-ps output whose TASK column is `task`, split at spaces
// (empty when there is none).
std::vector<std::string> psRow(const std::string& output, const std::string& task) {
  for (const std::string& line : lines(output)) {
    auto columns = words(line);
    if (columns.size() > 1 && columns[1] == task) return columns;
  }
  return {};
}

// The entry of mesos-ps output under the column `title` in the row of
// task `task`: columns start where their titles do ("" when there is no
// such row or column).
std::string psColumn(const std::string& output, const std::string& task,
                     const std::string& title) {
  auto table = lines(output);
  if (table.empty()) return "";
  const std::string& header = table[0];
  size_t start = header.find(title);
  if (start == std::string::npos) return "";
  size_t end = header.find_first_not_of(' ', header.find(' ', start));
  for (size_t i = 1; i < table.size(); ++i) {
    auto columns = words(table[i]);
    if (columns.size() < 2 || columns[1] != task) continue;
    std::string entry = table[i].substr(std::min(start, table[i].size()),
                                        end == std::string::npos ? std::string::npos : end - start);
    entry.erase(entry.find_last_not_of(' ') + 1);
    return entry;
  }
  return "";
}

// Seconds in mesos-ps's TIME ("0:01:02.50"), or -1 when it is no time.
double cpuSeconds(const std::string& time) {
  std::smatch match;
  static const std::regex kTime(R"(^(\d+):(\d\d):(\d\d)\.(\d\d)$)");
  if (!std::regex_match(time, match, kTime)) return -1;
  return std::stoi(match[1]) * 3600 + std::stoi(match[2]) * 60 + std::stoi(match[3]) +
         std::stoi(match[4]) / 100.0;
}

// A failure the tools report: status 1, nothing on stdout, one line on
// stderr that holds `what`.
::testing::AssertionResult failsSaying(const ChildResult& result, const std::string& what) {
  if (!result.exitedWith(1) || !result.out.empty() ||
      result.err.find(what) == std::string::npos ||
      result.err.find('\n') != result.err.size() - 1) {
    return ::testing::AssertionFailure() << "expected status 1 and one line with '" << what
                                         << "', got " << result.describe();
  }
  return ::testing::AssertionSuccess();
}

bool toolsBuilt() {
  for (const char* name : {"mesos-ps", "mesos-cat", "mesos-tail", "mesos-resolve"}) {
    if (!std::filesystem::exists(tool(name))) return false;
  }
  return true;
}

// A master and one slave; tasks come from mesos-execute.
class CliTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    if (!toolsBuilt()) GTEST_SKIP() << "the CLI tools are not built";
    master_ = startMaster({"--allocation_interval=100ms"});
    masterFlag_ = "--master=" + master_.toString();
    slave_ = startSlave(master_, "slave", {"--resources=cpus:4;mem:1024;disk:1024"});
    ASSERT_GT(slave_, 0);
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s";
  }

  void TearDown() override {
    for (pid_t pid : executes_) {
      ::kill(pid, SIGTERM);
      waitForExit(pid, 30s);
    }
    DaemonsFixture::TearDown();
  }

  // Runs mesos-execute to the end: the task `name` running `command`, in
  // the framework `framework`.
  ChildResult execute(const std::string& framework, const std::string& name,
                      const std::string& command) {
    return runChild({MESOS_EXECUTE_PATH, masterFlag_, "--framework_name=" + framework,
                     "--name=" + name, "--command=" + command,
                     "--resources=cpus:0.5;mem:64;disk:16"},
                    60s);
  }

  // Starts mesos-execute in the background (stopped at the end of the
  // test) and waits until its task runs. False when it does not within 30 s.
  bool launch(const std::string& framework, const std::string& name, const std::string& command) {
    pid_t pid = startDaemon({MESOS_EXECUTE_PATH, masterFlag_, "--framework_name=" + framework,
                             "--name=" + name, "--command=" + command,
                             "--resources=cpus:0.5;mem:64;disk:16"},
                            dir_ + "/execute-" + name + ".log");
    if (pid <= 0) return false;
    executes_.push_back(pid);
    return waitUntil([&] { return taskState(name) == "TASK_RUNNING"; }, 30s);
  }

  // The framework named `name`, registered or completed (Null when none).
  json::Value framework(const std::string& name) {
    json::Value state = getJson(master_, "/master/state");
    for (const char* list : {"frameworks", "completed_frameworks"}) {
      if (!state[list].isArray()) continue;
      for (const json::Value& f : state[list].array()) {
        if (f["name"].isString() && f["name"].string() == name) return f;
      }
    }
    return json::Value();
  }

  std::string frameworkId(const std::string& name) {
    json::Value f = framework(name);
    return f["id"].isString() ? f["id"].string() : "";
  }

  // The state of the task `id` of any framework ("" when unknown).
  std::string taskState(const std::string& id) {
    json::Value state = getJson(master_, "/master/state");
    for (const char* frameworks : {"frameworks", "completed_frameworks"}) {
      if (!state[frameworks].isArray()) continue;
      for (const json::Value& f : state[frameworks].array()) {
        for (const char* tasks : {"tasks", "completed_tasks"}) {
          if (!f[tasks].isArray()) continue;
          for (const json::Value& task : f[tasks].array()) {
            if (task["id"].isString() && task["id"].string() == id) return task["state"].string();
          }
        }
      }
    }
    return "";
  }

  std::string slaveHostname() {
    json::Value slaves = getJson(master_, "/master/state")["slaves"];
    if (!slaves.isArray() || slaves.array().empty()) return "";
    return slaves.array()[0]["hostname"].string();
  }

  process::Address master_;
  std::string masterFlag_;
  pid_t slave_ = -1;
  std::vector<pid_t> executes_;
};

TEST_F(CliTest, PsListsTasksWithTheirColumnsAndFilters) {
  ASSERT_TRUE(execute("batch", "done", "true").exitedWith(0));
  ASSERT_TRUE(launch("service", "sleeper", "sleep 60"));
  const std::string service = frameworkId("service");
  const std::string batch = frameworkId("batch");
  const std::string user = framework("service")["user"].string();
  const std::string host = slaveHostname();
  ASSERT_FALSE(service.empty());
  ASSERT_FALSE(batch.empty());

  ChildResult ps = run("mesos-ps", {masterFlag_});
  ASSERT_TRUE(ps.exitedWith(0)) << ps.describe();
  EXPECT_EQ("", ps.err);
  auto output = lines(ps.out);
  ASSERT_EQ(2u, output.size()) << ps.out;  // the header and the live task
  EXPECT_EQ((std::vector<std::string>{"FRAMEWORK", "TASK", "NAME", "STATE", "HOST", "USER", "CPUS",
                                      "MEM", "DISK", "RSS/LIMIT", "TIME"}),
            words(output[0]));
  auto row = words(output[1]);
  ASSERT_GE(row.size(), 11u) << ps.out;
  EXPECT_EQ((std::vector<std::string>{service, "sleeper", "sleeper", "TASK_RUNNING", host, user,
                                      "0.5", "64.0", "MB", "16.0", "MB"}),
            std::vector<std::string>(row.begin(), row.begin() + 11));
  // Columns line up under their titles.
  EXPECT_EQ(output[0].find("STATE"), output[1].find("TASK_RUNNING")) << ps.out;
  // The running task's usage, from its slave (CliTest.PsShowsWhatRunningTasksUse
  // checks the numbers).
  EXPECT_NE("-", psColumn(ps.out, "sleeper", "RSS/LIMIT")) << ps.out;
  EXPECT_LE(0, cpuSeconds(psColumn(ps.out, "sleeper", "TIME"))) << ps.out;

  // --all adds the tasks that ended, of frameworks that ended too; they use
  // nothing now.
  ChildResult all = run("mesos-ps", {masterFlag_, "--all"});
  ASSERT_TRUE(all.exitedWith(0)) << all.describe();
  EXPECT_EQ((std::vector<std::string>{batch, "done", "done", "TASK_FINISHED", host, user, "0.5",
                                      "64.0", "MB", "16.0", "MB", "-", "-"}),
            psRow(all.out, "done"))
      << all.out;
  EXPECT_FALSE(psRow(all.out, "sleeper").empty()) << all.out;

  // Each filter keeps the task that matches and drops the one that does not.
  struct Case {
    std::vector<std::string> flags;
    bool sleeper;
    bool done;
  };
  for (const Case& c : std::vector<Case>{
           {{"--state=running"}, true, false},
           {{"--state=TASK_FINISHED"}, false, true},
           {{"--state=finished,Running"}, true, true},
           {{"--framework=" + service}, true, false},
           {{"--framework=batch"}, false, true},
           {{"--task=sleeper"}, true, false},
           {{"--task=nothing"}, false, false},
           {{"--host=" + host}, true, true},
           {{"--host=elsewhere"}, false, false},
           {{"--user=" + user}, true, true},
           {{"--user=nobody-at-all"}, false, false},
       }) {
    std::vector<std::string> flags = {masterFlag_, "--all"};
    flags.insert(flags.end(), c.flags.begin(), c.flags.end());
    ChildResult filtered = run("mesos-ps", flags);
    SCOPED_TRACE(c.flags[0]);
    ASSERT_TRUE(filtered.exitedWith(0)) << filtered.describe();
    EXPECT_EQ(c.sleeper, !psRow(filtered.out, "sleeper").empty()) << filtered.out;
    EXPECT_EQ(c.done, !psRow(filtered.out, "done").empty()) << filtered.out;
    EXPECT_EQ("FRAMEWORK", words(lines(filtered.out).at(0)).at(0)) << filtered.out;
  }

  EXPECT_TRUE(failsSaying(run("mesos-ps", {masterFlag_, "--state=runing"}),
                          "--state: 'runing' is not a task state"));
}

// The lines of `text` that hold `what`.
std::vector<std::string> linesWith(const std::string& text, const std::string& what) {
  std::vector<std::string> out;
  for (const std::string& line : lines(text)) {
    if (line.find(what) != std::string::npos) out.push_back(line);
  }
  return out;
}

TEST_F(CliTest, PsWatchPrintsEachTaskStateChangeAsItHappens) {
  const std::string header = "TIME  FRAMEWORK  TASK  NAME  STATE  HOST\n";
  const std::string log = dir_ + "/watch.log";  // stdout and stderr
  const std::string runningLog = dir_ + "/watch-running.log";
  pid_t all = startDaemon({tool("mesos-ps"), masterFlag_, "--watch"}, log);
  pid_t running = startDaemon({tool("mesos-ps"), masterFlag_, "--watch", "--state=running"},
                              runningLog);
  ASSERT_GT(all, 0);
  ASSERT_GT(running, 0);
  // The header comes once the stream is open: what happens after it is
  // printed.
  ASSERT_TRUE(waitUntil([&] { return readFile(log) == header; }, 30s, all)) << readFile(log);
  ASSERT_TRUE(waitUntil([&] { return readFile(runningLog) == header; }, 30s, running))
      << readFile(runningLog);

  const std::string go = dir_ + "/go";
  ASSERT_TRUE(launch("watched", "watched", "while [ ! -e " + go + " ]; do sleep 0.1; done"));
  const std::string id = frameworkId("watched");
  ASSERT_FALSE(id.empty());
  const std::string host = slaveHostname();
  auto ran = [&](const std::string& file) {
    return linesWith(readFile(file), "  TASK_RUNNING  ").size() == 1;
  };
  ASSERT_TRUE(waitUntil([&] { return ran(log); }, 30s, all)) << readFile(log);
  ASSERT_TRUE(waitUntil([&] { return ran(runningLog); }, 30s, running)) << readFile(runningLog);

  // TIME FRAMEWORK TASK NAME STATE HOST, staging first.
  auto output = lines(readFile(log));
  ASSERT_EQ(3u, output.size()) << readFile(log);
  static const std::regex kTime(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)");
  const std::vector<std::string> states = {"TASK_STAGING", "TASK_RUNNING"};
  for (size_t i = 0; i < states.size(); ++i) {
    auto columns = words(output[i + 1]);
    ASSERT_EQ(6u, columns.size()) << output[i + 1];
    EXPECT_TRUE(std::regex_match(columns[0], kTime)) << output[i + 1];
    EXPECT_EQ((std::vector<std::string>{id, "watched", "watched", states[i], host}),
              std::vector<std::string>(columns.begin() + 1, columns.end()));
  }
  // --state=running: the running line only.
  auto filtered = lines(readFile(runningLog));
  ASSERT_EQ(2u, filtered.size()) << readFile(runningLog);
  EXPECT_EQ(output[2], filtered[1]);

  // Interrupted: status 0, nothing more said.
  ::kill(running, SIGINT);
  EXPECT_EQ(0, waitForExit(running, 30s));
  EXPECT_EQ(2u, lines(readFile(runningLog)).size()) << readFile(runningLog);

  // The task ends: its last line.
  std::ofstream(go).put('\n');
  ASSERT_TRUE(waitUntil([&] { return lines(readFile(log)).size() == 4; }, 30s, all))
      << readFile(log);
  auto last = words(lines(readFile(log))[3]);
  ASSERT_EQ(6u, last.size());
  EXPECT_EQ((std::vector<std::string>{id, "watched", "watched", "TASK_FINISHED", host}),
            std::vector<std::string>(last.begin() + 1, last.end()));
  ::kill(all, SIGINT);
  EXPECT_EQ(0, waitForExit(all, 30s));
}

// A master that asks credentials of /api/v1 refuses the watch (mesos-ps
// sends none): status 1, one line saying so. A master that goes away ends
// it: status 1, one line.
TEST_F(CliTest, PsWatchFailsWhenRefusedOrWhenTheStreamEnds) {
  const std::string credentials = dir_ + "/credentials";
  std::ofstream(credentials) << "operator secret\n";
  process::Address guarded = startMaster(
      {"--authenticate_http_readwrite", "--http_credentials=" + credentials});
  EXPECT_TRUE(failsSaying(run("mesos-ps", {"--master=" + guarded.toString(), "--watch"}),
                          "refused SUBSCRIBE to its event stream (/api/v1): HTTP 401"));

  process::Address lone = startMaster();
  pid_t master = daemons_.back();
  const std::string log = dir_ + "/watch.log";
  pid_t watch = startDaemon({tool("mesos-ps"), "--master=" + lone.toString(), "--watch"}, log);
  ASSERT_GT(watch, 0);
  ASSERT_TRUE(waitUntil([&] { return readFile(log) == "TIME  FRAMEWORK  TASK  NAME  STATE  HOST\n"; },
                        30s, watch))
      << readFile(log);
  ::kill(master, SIGTERM);
  EXPECT_EQ(0, waitForExit(master, 30s));
  reaped(master);
  EXPECT_EQ(1, waitForExit(watch, 30s));
  auto output = lines(readFile(log));
  ASSERT_EQ(2u, output.size()) << readFile(log);
  EXPECT_TRUE(output[1].starts_with("mesos-ps: ")) << output[1];
  // Closed at the end of a record, or cut off.
  EXPECT_TRUE(output[1].find("the master at " + lone.toString() + " ended its event stream") !=
                  std::string::npos ||
              output[1].find("lost the event stream of the master at " + lone.toString()) !=
                  std::string::npos)
      << output[1];

  EXPECT_TRUE(failsSaying(run("mesos-ps", {masterFlag_, "--watch", "--all"}), "give one"));
}

TEST_F(CliTest, PsShowsWhatRunningTasksUse) {
  // Some CPU time first, then a long sleep.
  ASSERT_TRUE(launch("busy", "busy",
                     "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 60"));
  std::string time;
  ChildResult ps;
  ASSERT_TRUE(waitUntil(
      [&] {
        ps = run("mesos-ps", {masterFlag_});
        time = psColumn(ps.out, "busy", "TIME");
        return cpuSeconds(time) > 0;
      },
      30s))
      << "no CPU time for the busy task within 30 s: " << ps.describe();
  EXPECT_TRUE(ps.exitedWith(0)) << ps.describe();
  EXPECT_EQ("", ps.err);

  // Resident memory against the limit: the task's 64 MB and its executor's
  // share on top.
  const std::string memory = psColumn(ps.out, "busy", "RSS/LIMIT");
  std::smatch match;
  static const std::regex kMemory(R"(^(\d+\.\d) (B|KB|MB|GB)/(\d+\.\d) (B|KB|MB|GB)$)");
  ASSERT_TRUE(std::regex_match(memory, match, kMemory)) << ps.out;
  auto bytes = [](const std::string& number, const std::string& unit) {
    double scale = unit == "GB" ? 1 << 30 : unit == "MB" ? 1 << 20 : unit == "KB" ? 1 << 10 : 1;
    return std::stod(number) * scale;
  };
  const double rss = bytes(match[1], match[2]);
  const double limit = bytes(match[3], match[4]);
  EXPECT_GT(rss, 0) << memory;
  EXPECT_GE(limit, 64.0 * (1 << 20)) << memory;

  // A slave that does not answer: the task is listed, its usage is "-",
  // and a line on stderr names the slave. The master still answers.
  ::kill(slave_, SIGSTOP);
  ChildResult stopped = run("mesos-ps", {masterFlag_, "--timeout=1secs"});
  ::kill(slave_, SIGCONT);
  ASSERT_TRUE(stopped.exitedWith(0)) << stopped.describe();
  EXPECT_EQ("TASK_RUNNING", psColumn(stopped.out, "busy", "STATE")) << stopped.out;
  EXPECT_EQ("-", psColumn(stopped.out, "busy", "RSS/LIMIT")) << stopped.out;
  EXPECT_EQ("-", psColumn(stopped.out, "busy", "TIME")) << stopped.out;
  EXPECT_NE(std::string::npos, stopped.err.find("cannot reach slave ")) << stopped.err;
  EXPECT_NE(std::string::npos, stopped.err.find("its tasks show '-' for RSS/LIMIT and TIME"))
      << stopped.err;

  // And once it answers again, so are the numbers.
  ChildResult again = run("mesos-ps", {masterFlag_});
  ASSERT_TRUE(again.exitedWith(0)) << again.describe();
  EXPECT_LE(cpuSeconds(time), cpuSeconds(psColumn(again.out, "busy", "TIME"))) << again.out;
}

TEST_F(CliTest, CatPrintsATasksSandboxFiles) {
  ASSERT_TRUE(execute("greeter", "hello", "echo hello from the task; echo oops >&2; "
                                          "printf '\\303\\251\\377\\001\\n'")
                  .exitedWith(0));
  const std::string id = frameworkId("greeter");
  ASSERT_FALSE(id.empty());

  // Bytes that are not UTF-8 come out as they went in.
  ChildResult cat = run("mesos-cat", {masterFlag_, "--framework=" + id, "--task=hello"});
  ASSERT_TRUE(cat.exitedWith(0)) << cat.describe();
  EXPECT_EQ("hello from the task\n\xc3\xa9\xff\x01\n", cat.out);
  EXPECT_EQ("", cat.err);

  ChildResult err =
      run("mesos-cat", {masterFlag_, "--framework=" + id, "--task=hello", "--file=stderr"});
  ASSERT_TRUE(err.exitedWith(0)) << err.describe();
  EXPECT_NE(std::string::npos, err.out.find("oops\n")) << err.out;

  // A file larger than one read (64 KiB), whole, and its last lines.
  ASSERT_TRUE(execute("counter", "count", "seq 1 20000").exitedWith(0));
  const std::string counter = frameworkId("counter");
  std::string numbers;
  for (int i = 1; i <= 20000; ++i) numbers += std::to_string(i) + "\n";
  ChildResult large = run("mesos-cat", {masterFlag_, "--framework=" + counter, "--task=count"});
  ASSERT_TRUE(large.exitedWith(0)) << large.describe();
  EXPECT_TRUE(large.out == numbers) << large.out.size() << " bytes instead of " << numbers.size();
  ChildResult last = run("mesos-tail", {masterFlag_, "--framework=" + counter, "--task=count",
                                        "-n", "3"});
  ASSERT_TRUE(last.exitedWith(0)) << last.describe();
  EXPECT_EQ("19998\n19999\n20000\n", last.out);
  ChildResult most = run("mesos-tail", {masterFlag_, "--framework=" + counter, "--task=count",
                                        "--lines=19999"});
  ASSERT_TRUE(most.exitedWith(0)) << most.describe();
  EXPECT_TRUE(most.out == numbers.substr(2)) << most.out.substr(0, 20);

  EXPECT_TRUE(failsSaying(run("mesos-cat", {masterFlag_, "--framework=" + id, "--task=nope"}),
                          "framework " + id + " has no task 'nope'"));
  EXPECT_TRUE(failsSaying(run("mesos-cat", {masterFlag_, "--framework=nope", "--task=hello"}),
                          "knows no framework 'nope'"));
  EXPECT_TRUE(failsSaying(
      run("mesos-cat", {masterFlag_, "--framework=" + id, "--task=hello", "--file=missing"}),
      "no file 'missing' in the task's sandbox"));
}

TEST_F(CliTest, TailFollowsATaskUntilItEnds) {
  const std::string go = dir_ + "/go";
  const std::string finish = dir_ + "/finish";
  ASSERT_TRUE(launch("writer", "writer",
                     "echo line-1; echo line-2; "
                     "while [ ! -e " + go + " ]; do sleep 0.1; done; echo line-3; "
                     "while [ ! -e " + finish + " ]; do sleep 0.1; done; echo line-4"));
  const std::string id = frameworkId("writer");
  ASSERT_FALSE(id.empty());
  const std::vector<std::string> task = {masterFlag_, "--framework=" + id, "--task=writer"};
  auto withTask = [&](std::vector<std::string> flags) {
    flags.insert(flags.begin(), task.begin(), task.end());
    flags.insert(flags.begin(), tool("mesos-tail"));
    return flags;
  };
  ASSERT_TRUE(waitUntil(
      [&] { return run("mesos-cat", task).out == "line-1\nline-2\n"; }, 30s));

  // Without -f: the last lines, then done.
  ChildResult last = runChild(withTask({"-n", "1"}), 30s);
  ASSERT_TRUE(last.exitedWith(0)) << last.describe();
  EXPECT_EQ("line-2\n", last.out);

  const std::string log = dir_ + "/tail.log";
  const std::string interruptedLog = dir_ + "/interrupted.log";
  pid_t tail = startDaemon(withTask({"-f", "--interval=100ms"}), log);
  pid_t interrupted = startDaemon(withTask({"-f", "-n1", "--interval=100ms"}), interruptedLog);
  ASSERT_GT(tail, 0);
  ASSERT_GT(interrupted, 0);
  int status = 0;
  ASSERT_TRUE(waitUntil([&] { return readFile(log) == "line-1\nline-2\n"; }, 30s, tail, &status))
      << readFile(log);
  ASSERT_TRUE(waitUntil([&] { return readFile(interruptedLog) == "line-2\n"; }, 30s, interrupted))
      << readFile(interruptedLog);

  // A line the task writes later comes out while the task still runs.
  std::ofstream(go).put('\n');
  ASSERT_TRUE(
      waitUntil([&] { return readFile(log) == "line-1\nline-2\nline-3\n"; }, 30s, tail, &status))
      << readFile(log);
  EXPECT_EQ("TASK_RUNNING", taskState("writer"));

  // SIGINT ends a follow with status 0.
  ASSERT_TRUE(waitUntil([&] { return readFile(interruptedLog) == "line-2\nline-3\n"; }, 30s,
                        interrupted))
      << readFile(interruptedLog);
  ::kill(interrupted, SIGINT);
  EXPECT_EQ(0, waitForExit(interrupted, 30s));

  // The task ends: the last line comes out and mesos-tail stops by itself.
  std::ofstream(finish).put('\n');
  EXPECT_EQ(0, waitForExit(tail, 30s));
  EXPECT_EQ("line-1\nline-2\nline-3\nline-4\n", readFile(log));
  EXPECT_EQ("TASK_FINISHED", taskState("writer"));

  EXPECT_TRUE(failsSaying(run("mesos-tail", {masterFlag_, "--framework=" + id, "--task=nope"}),
                          "has no task 'nope'"));
}

TEST_F(CliTest, TailFollowsAFileThatIsTruncated) {
  const std::string go = dir_ + "/go";
  ASSERT_TRUE(launch("truncator", "truncator",
                     "echo old-1 > out.txt; echo old-2 >> out.txt; "
                     "while [ ! -e " + go + " ]; do sleep 0.1; done; "
                     ": > out.txt; echo new-1 >> out.txt; sleep 60"));
  const std::string id = frameworkId("truncator");
  ASSERT_FALSE(id.empty());
  const std::vector<std::string> task = {masterFlag_, "--framework=" + id, "--task=truncator",
                                         "--file=out.txt"};
  ASSERT_TRUE(waitUntil([&] { return run("mesos-cat", task).out == "old-1\nold-2\n"; }, 30s));

  std::vector<std::string> follow = {tool("mesos-tail"), "-f", "--interval=100ms"};
  follow.insert(follow.end(), task.begin(), task.end());
  const std::string log = dir_ + "/tail.log";  // its stdout and stderr
  pid_t tail = startDaemon(follow, log);
  ASSERT_GT(tail, 0);
  ASSERT_TRUE(waitUntil([&] { return readFile(log) == "old-1\nold-2\n"; }, 30s, tail))
      << readFile(log);

  // The task empties the file and writes it anew, shorter than before:
  // mesos-tail says so and prints the new content.
  std::ofstream(go).put('\n');
  const std::string expected =
      "old-1\nold-2\nmesos-tail: out.txt: file truncated\nnew-1\n";
  EXPECT_TRUE(waitUntil([&] { return readFile(log) == expected; }, 30s, tail)) << readFile(log);
  ::kill(tail, SIGINT);
  EXPECT_EQ(0, waitForExit(tail, 30s));
  EXPECT_EQ(expected, readFile(log));
}

TEST_F(CliTest, ResolveNamesAStandaloneMaster) {
  for (const std::string& given :
       {master_.toString(), "master@" + master_.toString(), "localhost:" +
                                                                std::to_string(master_.port)}) {
    ChildResult resolved = run("mesos-resolve", {given});
    EXPECT_TRUE(resolved.exitedWith(0)) << resolved.describe();
    EXPECT_EQ(master_.toString() + "\n", resolved.out) << given;
  }
  ChildResult flag = run("mesos-resolve", {masterFlag_});
  EXPECT_TRUE(flag.exitedWith(0)) << flag.describe();
  EXPECT_EQ(master_.toString() + "\n", flag.out);
}

TEST(CliFlagsTest, EveryToolHasHelpAndOneLineErrors) {
  if (!toolsBuilt()) GTEST_SKIP() << "the CLI tools are not built";
  for (const std::string name : {"mesos-ps", "mesos-cat", "mesos-tail", "mesos-resolve"}) {
    SCOPED_TRACE(name);
    ChildResult help = run(name, {"--help"});
    EXPECT_TRUE(help.exitedWith(0)) << help.describe();
    EXPECT_EQ(0u, help.out.find("Usage: " + name)) << help.out;
    EXPECT_NE(std::string::npos, help.out.find("--timeout=VALUE")) << help.out;
    EXPECT_TRUE(failsSaying(run(name, {"--bogus=1"}), "bogus"));
  }

  const std::string unreachable = "127.0.0.1:" + std::to_string(freePort());
  const std::string cannotReach = "cannot reach the master at " + unreachable;
  const std::vector<std::string> task = {"--framework=f", "--task=t"};
  EXPECT_TRUE(failsSaying(run("mesos-ps", {}), "missing --master"));
  EXPECT_TRUE(failsSaying(run("mesos-ps", {"--master=" + unreachable}), cannotReach));
  EXPECT_TRUE(failsSaying(run("mesos-ps", {"--master=host:port"}), "bad master address"));
  EXPECT_TRUE(failsSaying(run("mesos-cat", {"--master=" + unreachable}), "missing --framework"));
  EXPECT_TRUE(failsSaying(run("mesos-cat", {"--master=" + unreachable, "--framework=f"}),
                          "missing --task"));
  EXPECT_TRUE(failsSaying(run("mesos-cat", {"--master=" + unreachable, task[0], task[1]}),
                          cannotReach));
  EXPECT_TRUE(failsSaying(run("mesos-tail", {"--master=" + unreachable, task[0], task[1], "-x"}),
                          "unknown option '-x'"));
  EXPECT_TRUE(failsSaying(run("mesos-tail", {"--master=" + unreachable, task[0], task[1], "-n"}),
                          "-n needs a number"));
  EXPECT_TRUE(failsSaying(
      run("mesos-tail", {"--master=" + unreachable, task[0], task[1], "-f"}), cannotReach));
  EXPECT_TRUE(failsSaying(run("mesos-resolve", {}), "missing <master>"));
  EXPECT_TRUE(failsSaying(run("mesos-resolve", {"a:1", "b:2"}), "give one <master>"));
  EXPECT_TRUE(failsSaying(run("mesos-resolve", {unreachable}), cannotReach));
  EXPECT_TRUE(failsSaying(run("mesos-resolve", {"--timeout=0secs", unreachable}),
                          "--timeout must be positive"));
}

}  // namespace
}  // namespace mesos::test
