// Interoperability with mesos-go's v1 HTTP scheduler client (api/v1/lib's
// httpsched over httpcli, as Debian packages it): a framework on it runs a
// command task through our master's POST /api/v1/scheduler.
//
// mesos-master and two mesos-slaves run as processes (two, so that the
// probe has an offer to decline); the Go probe
// go_v1_scheduler (tests/interop/go/src/mesosinterop/go_v1_scheduler, whose
// header comment describes the run) subscribes, accepts one offer with a
// LAUNCH of `echo hello-v1 && sleep 1`, declines the others, acknowledges
// the task's updates and tears the framework down, once with protobuf and
// once with JSON both ways. The test checks the probe's steps (its stdout,
// its exit status; its stderr holds one line per HTTP exchange, shown on
// failure), what the master recorded (/master/state: the framework, torn
// down, with its task finished) and the task's output in its sandbox.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "interop/go_probes.hpp"
#include "common/json.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

// The probe's own bound, and ours around it and around the master's state.
constexpr auto kProbeTimeout = 60s;
constexpr auto kLimit = 90s;

const char* const kTask = "go-v1-task";

std::string text(const json::Value& value) { return value.isString() ? value.string() : ""; }

std::vector<std::string> lines(const std::string& output) {
  std::vector<std::string> result;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// The probe's lines that start with `first` (their words).
std::vector<std::vector<std::string>> linesOf(const std::vector<std::string>& all,
                                              const std::string& first) {
  std::vector<std::vector<std::string>> found;
  for (const std::string& line : all) {
    auto w = words(line);
    if (!w.empty() && w[0] == first) found.push_back(w);
  }
  return found;
}

// Where `line` is in `all` (-1 when it is not).
long indexOf(const std::vector<std::string>& all, const std::string& line) {
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i] == line) return static_cast<long>(i);
  }
  return -1;
}

class MesosGoV1Test : public DaemonsFixture, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::string missing = MESOS_INTEROP_GO_MISSING;
    if (!missing.empty()) GTEST_SKIP() << "mesos-go interop probes not built: " << missing;
    probe_ = std::string(MESOS_INTEROP_GO_BIN) + "/go_v1_scheduler";
    if (access(probe_.c_str(), X_OK) != 0) {
      GTEST_SKIP() << probe_ << " is missing (" << std::strerror(errno)
                   << "); the mesos-interop-go target builds it with tests/interop/go/build.sh, "
                      "which needs golang-go and golang-github-mesos-mesos-go-dev";
    }
    master_ = startMaster({"--allocation_interval=100ms"});
    for (const char* name : {"slave1", "slave2"}) {
      ASSERT_GT(startSlave(master_, name, {"--resources=cpus:2;mem:512;disk:512"}), 0);
    }
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 2; }, kLimit);
    ASSERT_TRUE(registered) << "the slaves did not register:\n"
                            << readFile(dir_ + "/slave1.log") << readFile(dir_ + "/slave2.log");
  }

  // The framework `id` in the master's /master/state, live or completed
  // (Null when none), and which list it is in.
  json::Value framework(const std::string& id, std::string* list = nullptr) {
    json::Value state = getJson(master_, "/master/state");
    for (const char* name : {"frameworks", "completed_frameworks"}) {
      if (!state[name].isArray()) continue;
      for (const json::Value& f : state[name].array()) {
        if (text(f["id"]) != id) continue;
        if (list != nullptr) *list = name;
        return f;
      }
    }
    return json::Value();
  }

  // The task go-v1-task of framework `f` (Null when none).
  static json::Value task(const json::Value& f) {
    for (const char* name : {"tasks", "completed_tasks"}) {
      if (!f[name].isArray()) continue;
      for (const json::Value& t : f[name].array()) {
        if (text(t["id"]) == kTask) return t;
      }
    }
    return json::Value();
  }

  // The contents of the file `name` in go-v1-task's sandbox, found under
  // the slaves' work directories ("" when there is none).
  std::string sandboxFile(const std::string& name) {
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(dir_, error);
         it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (error) break;
      const std::filesystem::path& path = it->path();
      if (path.filename() == name &&
          path.string().find(std::string("/executors/") + kTask + "/runs/") != std::string::npos &&
          path.string().find("/latest/") == std::string::npos) {
        return readFile(path.string());
      }
    }
    return "";
  }

  std::string probe_;
  process::Address master_;
};

TEST_P(MesosGoV1Test, SubscribesLaunchesATaskAndTearsDown) {
  const std::string encoding = GetParam();
  ChildResult run = runChild({probe_, "--master=" + master_.toString(), "--encoding=" + encoding,
                              "--timeout=" + std::to_string(kProbeTimeout.count()) + "s"},
                             kLimit);
  const std::string seen = run.describe() + "\n--- master.log (end) ---\n" +
                           [&] {
                             std::string log = readFile(dir_ + "/master.log");
                             return log.size() > 4000 ? log.substr(log.size() - 4000) : log;
                           }();
  ASSERT_TRUE(run.exitedWith(0)) << seen;
  const std::vector<std::string> out = lines(run.out);

  // The SUBSCRIBE answer as Apache's master gives it: 200, the stream id, a
  // chunked body of the encoding asked for. (The client refuses a missing
  // stream id or another Content-Type itself; this names what came.)
  const std::string contentType =
      encoding == "json" ? "application/json" : "application/x-protobuf";
  std::string subscribeAnswer;
  for (const std::string& line : lines(run.err)) {
    if (line.starts_with("http: SUBSCRIBE ")) subscribeAnswer = line;
  }
  EXPECT_NE(std::string::npos, subscribeAnswer.find("-> 200 OK")) << seen;
  EXPECT_NE(std::string::npos, subscribeAnswer.find("Content-Type: " + contentType + ";")) << seen;
  EXPECT_NE(std::string::npos, subscribeAnswer.find("Mesos-Stream-Id: ")) << seen;
  EXPECT_NE(std::string::npos, subscribeAnswer.find("Transfer-Encoding: chunked")) << seen;

  // The steps, in order.
  ASSERT_FALSE(out.empty()) << seen;
  EXPECT_EQ("subscribing http://" + master_.toString() + "/api/v1/scheduler " + encoding, out[0]);
  auto subscribed = linesOf(out, "subscribed");
  ASSERT_EQ(1u, subscribed.size()) << seen;
  ASSERT_EQ(3u, subscribed[0].size()) << seen;
  const std::string frameworkId = subscribed[0][1];
  EXPECT_FALSE(frameworkId.empty());
  EXPECT_GT(std::stod(subscribed[0][2]), 0) << "heartbeat_interval_seconds\n" << seen;
  EXPECT_EQ(1, indexOf(out, "subscribed " + frameworkId + " " + subscribed[0][2])) << seen;

  auto launched = linesOf(out, "launched");
  ASSERT_EQ(1u, launched.size()) << seen;
  ASSERT_EQ(4u, launched[0].size()) << seen;
  const std::string agentId = launched[0][2];
  const std::string offerId = launched[0][3];
  EXPECT_EQ(kTask, launched[0][1]);
  // The offer it took came in an OFFERS event, from one of our slaves.
  EXPECT_GE(indexOf(out, "offer " + offerId + " " + agentId), 0) << seen;
  json::Value slaves = getJson(master_, "/master/state")["slaves"];
  ASSERT_TRUE(slaves.isArray() && slaves.array().size() == 2) << json::stringify(slaves);
  EXPECT_TRUE(text(slaves.array()[0]["id"]) == agentId || text(slaves.array()[1]["id"]) == agentId)
      << json::stringify(slaves);
  // Every other offer was declined: at least the other slave's.
  auto offers = linesOf(out, "offer");
  EXPECT_GE(offers.size(), 2u) << seen;
  for (const auto& offer : offers) {
    if (offer[1] == offerId) continue;
    EXPECT_GE(indexOf(out, "declined " + offer[1]), 0) << seen;
  }

  const std::string taskId = kTask;
  const long running = indexOf(out, "status " + taskId + " TASK_RUNNING");
  const long runningAcked = indexOf(out, "acknowledged " + taskId + " TASK_RUNNING");
  const long finished = indexOf(out, "status " + taskId + " TASK_FINISHED");
  const long finishedAcked = indexOf(out, "acknowledged " + taskId + " TASK_FINISHED");
  const long teardown = indexOf(out, "teardown");
  EXPECT_LT(indexOf(out, "launched " + taskId + " " + agentId + " " + offerId), running) << seen;
  EXPECT_GE(running, 0) << seen;
  EXPECT_EQ(running + 1, runningAcked) << seen;
  EXPECT_LT(runningAcked, finished) << seen;
  EXPECT_EQ(finished + 1, finishedAcked) << seen;
  EXPECT_EQ(finishedAcked + 1, teardown) << seen;
  EXPECT_EQ("done", out.back()) << seen;

  // The master: the framework, torn down, with its finished task, and
  // nothing of it left on the slaves' books.
  std::string list;
  json::Value f;
  bool recorded = waitUntil(
      [&] {
        f = framework(frameworkId, &list);
        return list == "completed_frameworks" && text(task(f)["state"]) == "TASK_FINISHED";
      },
      kLimit);
  EXPECT_TRUE(recorded) << "framework " << frameworkId << " in " << list << ": "
                        << json::stringify(f) << "\n" << seen;
  EXPECT_EQ("go-v1-probe", text(f["name"]));
  EXPECT_EQ(agentId, text(task(f)["slave_id"]));
  EXPECT_TRUE(waitUntil(
      [&] {
        json::Value s = getJson(master_, "/master/state")["slaves"];
        if (!s.isArray() || s.array().size() != 2) return false;
        for (const json::Value& slave : s.array()) {
          const json::Value& cpus = slave["used_resources"]["cpus"];
          if (!cpus.isNumber() || cpus.number() != 0) return false;
        }
        return true;
      },
      kLimit))
      << json::stringify(getJson(master_, "/master/state")["slaves"]);

  // The task ran the command it was given.
  EXPECT_NE(std::string::npos, sandboxFile("stdout").find("hello-v1\n")) << sandboxFile("stdout");
}

INSTANTIATE_TEST_SUITE_P(Encodings, MesosGoV1Test, ::testing::Values("protobuf", "json"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "protobuf" ? std::string("Protobuf")
                                                           : std::string("Json");
                         });

}  // namespace
}  // namespace mesos::test
