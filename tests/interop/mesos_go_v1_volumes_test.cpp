// Interoperability of offer operations with mesos-go's v1 HTTP scheduler
// client (api/v1/lib's httpsched over httpcli, as Debian packages it): a
// framework on it reserves resources, makes a persistent volume, runs tasks
// on it, then destroys and unreserves it, through our master's
// POST /api/v1/scheduler (docs/reservations.md, docs/persistent-volumes.md).
//
// mesos-master and two mesos-slaves run as processes; the Go probe
// go_v1_volumes (tests/interop/go/src/mesosinterop/go_v1_volumes, whose
// header comment describes the run) is a framework of role "db" with
// principal "go-v1-ops" that sends one ACCEPT with RESERVE, CREATE and a
// LAUNCH of a task writing into the volume; LAUNCHes a task reading it back
// from a later offer holding the volume; sends one ACCEPT with DESTROY and
// UNRESERVE; checks that the next offer holds nothing reserved; and tears
// down. It runs with both encodings, and with the reservations written both
// as `role` + `reservation` and as `reservations` (the
// RESERVATION_REFINEMENT capability). The test checks the probe's steps,
// what /master/state said during the run (printed by the probe) and after,
// the slaves' /state, that the volume's directory is gone, and what the
// reading task printed.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "interop/go_probes.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

// The probe's own bound, and ours around it and around the daemons' state.
constexpr auto kProbeTimeout = 90s;
constexpr auto kLimit = 120s;

const char* const kWriter = "go-v1-writer";
const char* const kReader = "go-v1-reader";
const char* const kRole = "db";
const char* const kPrincipal = "go-v1-ops";
const char* const kVolume = "go-v1-volume";
// Each slave's --resources, and the reservation the probe makes on one.
const char* const kSlaveResources = "cpus:2;mem:512;disk:512";
const char* const kReserved = "cpus 0.2 mem 64 disk 64";

std::string text(const json::Value& value) { return value.isString() ? value.string() : ""; }

double number(const json::Value& value) { return value.isNumber() ? value.number() : -1; }

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

// Where `line` is in `all` at or after `from` (-1 when it is not).
long indexOf(const std::vector<std::string>& all, const std::string& line, long from = 0) {
  for (size_t i = static_cast<size_t>(std::max(from, 0L)); i < all.size(); ++i) {
    if (all[i] == line) return static_cast<long>(i);
  }
  return -1;
}

// The JSON the probe printed on its line `at` ("state <agent>
// reserved_resources <JSON>"), Null when that line is not one.
json::Value stateLine(const std::vector<std::string>& all, long at, const std::string& agentId) {
  if (at < 0 || static_cast<size_t>(at) >= all.size()) return json::Value();
  const std::string prefix = "state " + agentId + " reserved_resources ";
  if (!all[static_cast<size_t>(at)].starts_with(prefix)) return json::Value();
  auto parsed = json::parse(all[static_cast<size_t>(at)].substr(prefix.size()));
  return parsed ? *parsed : json::Value();
}

using Param = std::tuple<std::string, std::string>;  // encoding, reservation format

class MesosGoV1VolumesTest : public DaemonsFixture, public ::testing::WithParamInterface<Param> {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::string missing = MESOS_INTEROP_GO_MISSING;
    if (!missing.empty()) GTEST_SKIP() << "mesos-go interop probes not built: " << missing;
    probe_ = std::string(MESOS_INTEROP_GO_BIN) + "/go_v1_volumes";
    if (access(probe_.c_str(), X_OK) != 0) {
      GTEST_SKIP() << probe_ << " is missing (" << std::strerror(errno)
                   << "); the mesos-interop-go target builds it with tests/interop/go/build.sh, "
                      "which needs golang-go and golang-github-mesos-mesos-go-dev";
    }
    master_ = startMaster({"--allocation_interval=100ms"});
    for (const char* name : {"slave1", "slave2"}) {
      uint16_t port = freePort("127.0.0.1");
      ASSERT_GT(startSlave(master_, name, {std::string("--resources=") + kSlaveResources}, port),
                0);
      ports_[name] = port;
    }
    bool registered =
        waitUntil([&] { return metric(master_, "master/slaves_active") == 2; }, kLimit);
    ASSERT_TRUE(registered) << "the slaves did not register:\n"
                            << readFile(dir_ + "/slave1.log") << readFile(dir_ + "/slave2.log");
  }

  // The framework `id` in the master's /master/state, live or completed
  // (Null when none), and which list it is in.
  json::Value framework(const std::string& id, std::string* list) {
    json::Value state = getJson(master_, "/master/state");
    for (const char* name : {"frameworks", "completed_frameworks"}) {
      if (!state[name].isArray()) continue;
      for (const json::Value& f : state[name].array()) {
        if (text(f["id"]) != id) continue;
        *list = name;
        return f;
      }
    }
    return json::Value();
  }

  // The task `id` of framework `f` (Null when none).
  static json::Value task(const json::Value& f, const std::string& id) {
    for (const char* name : {"tasks", "completed_tasks"}) {
      if (!f[name].isArray()) continue;
      for (const json::Value& t : f[name].array()) {
        if (text(t["id"]) == id) return t;
      }
    }
    return json::Value();
  }

  // The name ("slave1", "slave2") of the slave `agentId` ("" when neither).
  std::string slaveName(const std::string& agentId) {
    json::Value slaves = getJson(master_, "/master/state")["slaves"];
    if (!slaves.isArray()) return "";
    for (const json::Value& s : slaves.array()) {
      if (text(s["id"]) != agentId) continue;
      for (const auto& [name, port] : ports_) {
        if (number(s["port"]) == port) return name;
      }
    }
    return "";
  }

  // Whether the resources object `r` ("cpus", "mem", "disk") is a whole
  // slave's, unreserved.
  static bool whole(const json::Value& r) {
    return number(r["cpus"]) == 2 && number(r["mem"]) == 512 && number(r["disk"]) == 512;
  }

  // Whether no slave holds a reservation or a volume, and both are whole
  // and unused, in the master's /master/state and in the slaves' /state.
  bool nothingReserved() {
    json::Value slaves = getJson(master_, "/master/state")["slaves"];
    if (!slaves.isArray() || slaves.array().size() != 2) return false;
    for (const json::Value& s : slaves.array()) {
      if (!s["reserved_resources"].isObject() || !s["reserved_resources"].object().empty() ||
          !whole(s["unreserved_resources"]) || number(s["used_resources"]["cpus"]) != 0) {
        return false;
      }
    }
    for (const auto& [name, port] : ports_) {
      json::Value state = getJson(process::Address{0x7f000001, port}, "/state");
      if (!state["reserved_resources_full"].isObject() ||
          !state["reserved_resources_full"].object().empty() ||
          !state["reserved_resources"].isObject() ||
          !state["reserved_resources"].object().empty() ||
          !whole(state["unreserved_resources"])) {
        return false;
      }
    }
    return true;
  }

  // The contents of the file `name` in the sandbox of task `taskId`, found
  // under the slaves' work directories ("" when there is none).
  std::string sandboxFile(const std::string& taskId, const std::string& name) {
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(dir_, error);
         it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (error) break;
      const std::filesystem::path& path = it->path();
      if (path.filename() == name &&
          path.string().find("/executors/" + taskId + "/runs/") != std::string::npos &&
          path.string().find("/latest/") == std::string::npos) {
        return readFile(path.string());
      }
    }
    return "";
  }

  std::string probe_;
  process::Address master_;
  std::map<std::string, uint16_t> ports_;  // slave name -> its port
};

TEST_P(MesosGoV1VolumesTest, ReservesCreatesLaunchesDestroysAndUnreserves) {
  const std::string encoding = std::get<0>(GetParam());
  const std::string format = std::get<1>(GetParam());
  ChildResult run = runChild({probe_, "--master=" + master_.toString(), "--encoding=" + encoding,
                              "--format=" + format, std::string("--role=") + kRole,
                              std::string("--principal=") + kPrincipal,
                              "--timeout=" + std::to_string(kProbeTimeout.count()) + "s"},
                             kLimit);
  const std::string seen = run.describe() + "\n--- master.log (end) ---\n" + [&] {
    std::string log = readFile(dir_ + "/master.log");
    return log.size() > 6000 ? log.substr(log.size() - 6000) : log;
  }();
  ASSERT_TRUE(run.exitedWith(0)) << seen;
  const std::vector<std::string> out = lines(run.out);

  ASSERT_FALSE(out.empty()) << seen;
  EXPECT_EQ("subscribing http://" + master_.toString() + "/api/v1/scheduler " + encoding + " " +
                format,
            out[0]);
  auto subscribed = linesOf(out, "subscribed");
  ASSERT_EQ(1u, subscribed.size()) << seen;
  ASSERT_EQ(3u, subscribed[0].size()) << seen;
  const std::string frameworkId = subscribed[0][1];

  // 1. RESERVE, CREATE and LAUNCH of the writer in one ACCEPT.
  auto reserved = linesOf(out, "reserved");
  ASSERT_EQ(1u, reserved.size()) << seen;
  ASSERT_GE(reserved[0].size(), 3u) << seen;
  const std::string firstOffer = reserved[0][1];
  const std::string agentId = reserved[0][2];
  const long reservedAt = indexOf(out, "reserved " + firstOffer + " " + agentId + " " + kReserved);
  ASSERT_GE(reservedAt, 0) << seen;
  EXPECT_GE(indexOf(out, "offer " + firstOffer + " " + agentId), 0) << seen;
  EXPECT_EQ(reservedAt + 1,
            indexOf(out, std::string("created ") + kVolume + " " + firstOffer + " data"))
      << seen;
  EXPECT_EQ(reservedAt + 2, indexOf(out, std::string("launched ") + kWriter + " " + agentId + " " +
                                             firstOffer))
      << seen;
  const std::string slave = slaveName(agentId);
  ASSERT_FALSE(slave.empty()) << agentId << " is none of our slaves\n" << seen;

  // Each task: RUNNING then FINISHED, each acknowledged.
  auto ran = [&](const std::string& task, long after) {
    const long running = indexOf(out, "status " + task + " TASK_RUNNING", after);
    const long finished = indexOf(out, "status " + task + " TASK_FINISHED", after);
    EXPECT_GT(running, after) << task << "\n" << seen;
    EXPECT_EQ(running + 1, indexOf(out, "acknowledged " + task + " TASK_RUNNING")) << seen;
    EXPECT_GT(finished, running) << task << "\n" << seen;
    const long acked = indexOf(out, "acknowledged " + task + " TASK_FINISHED");
    EXPECT_EQ(finished + 1, acked) << seen;
    return acked;
  };
  const long writerDone = ran(kWriter, reservedAt + 2);

  // 2. The volume offered again with its reservation, as the framework
  // writes reservations; the master's state shows the reservation; the
  // reader is launched on that offer.
  auto reservations = linesOf(out, "reservation");
  ASSERT_EQ(2u, reservations.size()) << seen;
  const std::string volumeOffer = reservations[0][1];
  const std::string releaseOffer = reservations[1][1];
  auto reservationLine = [&](const std::string& offer) {
    return "reservation " + offer + " " + agentId + " " + kReserved + " role " + kRole +
           " principal " + kPrincipal + " labels purpose=go-v1-probe format " + format;
  };
  auto volumeLine = [&](const std::string& offer) {
    return "volume " + offer + " " + agentId + " " + kVolume + " principal " + kPrincipal +
           " path data mode RW";
  };
  const long volumeAt = indexOf(out, reservationLine(volumeOffer));
  EXPECT_GT(volumeAt, writerDone) << seen;
  EXPECT_EQ(volumeAt + 1, indexOf(out, volumeLine(volumeOffer))) << seen;
  json::Value during = stateLine(out, volumeAt + 2, agentId);
  ASSERT_TRUE(during.isObject()) << "no /master/state line after the volume's offer\n" << seen;
  EXPECT_EQ(1u, during.object().size()) << json::stringify(during);
  EXPECT_DOUBLE_EQ(0.2, number(during[kRole]["cpus"])) << json::stringify(during);
  EXPECT_EQ(64, number(during[kRole]["mem"])) << json::stringify(during);
  EXPECT_EQ(64, number(during[kRole]["disk"])) << json::stringify(during);
  const long readerAt = indexOf(out, std::string("launched ") + kReader + " " + agentId + " " +
                                         volumeOffer);
  EXPECT_EQ(volumeAt + 3, readerAt) << seen;
  const long readerDone = ran(kReader, readerAt);

  // 3. DESTROY and UNRESERVE in one ACCEPT, then an offer of the whole
  // slave with nothing reserved, and nothing reserved in the master's state.
  const long releaseAt = indexOf(out, reservationLine(releaseOffer));
  EXPECT_GT(releaseAt, readerDone) << seen;
  EXPECT_EQ(releaseAt + 1, indexOf(out, volumeLine(releaseOffer))) << seen;
  EXPECT_EQ(releaseAt + 2,
            indexOf(out, std::string("destroyed ") + kVolume + " " + releaseOffer))
      << seen;
  EXPECT_EQ(releaseAt + 3, indexOf(out, "unreserved " + releaseOffer + " " + kReserved)) << seen;
  auto freed = linesOf(out, "unreserved-offer");
  ASSERT_EQ(1u, freed.size()) << seen;
  const std::string freedOffer = freed[0][1];
  const long freedAt = indexOf(out, "unreserved-offer " + freedOffer + " " + agentId +
                                        " cpus 2 mem 512 disk 512");
  EXPECT_GT(freedAt, releaseAt + 3) << seen;
  json::Value after = stateLine(out, freedAt + 1, agentId);
  EXPECT_TRUE(after.isObject() && after.object().empty())
      << "/master/state after UNRESERVE: " << json::stringify(after) << "\n" << seen;

  // 4. TEARDOWN.
  EXPECT_EQ(freedAt + 2, indexOf(out, "teardown")) << seen;
  EXPECT_EQ("done", out.back()) << seen;

  // Every offer was used or declined.
  for (const auto& offer : linesOf(out, "offer")) {
    ASSERT_EQ(3u, offer.size()) << seen;
    if (offer[1] == firstOffer || offer[1] == volumeOffer || offer[1] == releaseOffer ||
        offer[1] == freedOffer) {
      EXPECT_EQ(agentId, offer[2]) << seen;
      continue;
    }
    EXPECT_GE(indexOf(out, "declined " + offer[1]), 0) << seen;
  }

  // The master: the framework, torn down, with its role and principal and
  // both tasks finished on the slave it reserved on.
  std::string list;
  json::Value f;
  bool recorded = waitUntil(
      [&] {
        f = framework(frameworkId, &list);
        return list == "completed_frameworks" &&
               text(task(f, kWriter)["state"]) == "TASK_FINISHED" &&
               text(task(f, kReader)["state"]) == "TASK_FINISHED";
      },
      kLimit);
  EXPECT_TRUE(recorded) << "framework " << frameworkId << " in " << list << ": "
                        << json::stringify(f) << "\n" << seen;
  EXPECT_EQ("go-v1-volumes", text(f["name"]));
  EXPECT_EQ(kRole, text(f["role"])) << json::stringify(f);
  EXPECT_EQ(kPrincipal, text(f["principal"])) << json::stringify(f);
  EXPECT_EQ(agentId, text(task(f, kWriter)["slave_id"]));
  EXPECT_EQ(agentId, text(task(f, kReader)["slave_id"]));

  // Nothing reserved and no volume anywhere, and the volume's directory
  // removed by the slave.
  EXPECT_TRUE(waitUntil([&] { return nothingReserved(); }, kLimit))
      << "/master/state slaves: " << json::stringify(getJson(master_, "/master/state")["slaves"])
      << "\n" << slave << " /state: "
      << json::stringify(getJson(process::Address{0x7f000001, ports_[slave]}, "/state"));
  const std::string volumeDir =
      dir_ + "/" + slave + "/volumes/roles/" + kRole + "/" + kVolume;
  EXPECT_TRUE(waitUntil([&] { return !std::filesystem::exists(volumeDir); }, kLimit))
      << volumeDir << " is still there";

  // The reader found what the writer wrote.
  EXPECT_NE(std::string::npos, sandboxFile(kReader, "stdout").find("hello\n"))
      << sandboxFile(kReader, "stdout") << sandboxFile(kReader, "stderr");
}

INSTANTIATE_TEST_SUITE_P(
    EncodingsAndFormats, MesosGoV1VolumesTest,
    ::testing::Combine(::testing::Values("protobuf", "json"),
                       ::testing::Values("pre-refinement", "refinement")),
    [](const ::testing::TestParamInfo<Param>& info) {
      return std::string(std::get<0>(info.param) == "protobuf" ? "Protobuf" : "Json") +
             (std::get<1>(info.param) == "refinement" ? "Refinement" : "PreRefinement");
    });

}  // namespace
}  // namespace mesos::test
