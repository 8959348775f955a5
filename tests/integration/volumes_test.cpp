// Persistent volumes end to end (docs/persistent-volumes.md): mesos-master
// and mesos-slave processes, a framework of role "eng" (principal "ops") on
// the scheduler driver in this process:
//   - RESERVE + CREATE + LAUNCH in one ACCEPT; three task runs on the
//     volume each find the file the ones before wrote;
//   - kill -9 of the slave, then of the master: the slave comes back with
//     its checkpointed reservation and volume, re-registers with the new
//     master, and the volume is offered again with its reservation and
//     disk.persistence; a fourth run still finds the three lines;
//   - DESTROY removes the volume's directory;
//   - a damaged resources.info stops the slave with one line naming it.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "process/runtime.hpp"
#include "support/cluster.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// `text` (the --resources syntax) dynamically reserved for "eng" by "ops".
Resources reserved(const std::string& text) {
  Resources out;
  const Resources plain = Resources::parse(text).value();
  for (Resource resource : plain) {
    resource.set_role("eng");
    resource.mutable_reservation()->set_principal("ops");
    out += resource;
  }
  return out;
}

// The volume "v1": 64 MB of reserved disk, at "data" in the sandbox.
Resource volumeV1() {
  Resource disk = *reserved("disk:64").begin();
  disk.mutable_disk()->mutable_persistence()->set_id("v1");
  disk.mutable_disk()->mutable_persistence()->set_principal("ops");
  disk.mutable_disk()->mutable_volume()->set_container_path("data");
  disk.mutable_disk()->mutable_volume()->set_mode(Volume::RW);
  return disk;
}

// The offered volume v1, when the offer holds it.
std::optional<Resource> offeredVolume(const Offer& offer) {
  for (const Resource& resource : offer.resources()) {
    if (resource.has_disk() && resource.disk().has_persistence() &&
        resource.disk().persistence().id() == "v1") {
      return resource;
    }
  }
  return std::nullopt;
}

// The end of the file at `path`, for a failure's message.
std::string tail(const std::string& path) {
  std::string text = readFile(path);
  return text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

Offer::Operation operation(Offer::Operation::Type type) {
  Offer::Operation out;
  out.set_type(type);
  return out;
}

// A framework of role "eng", principal "ops", checkpointing, on its own
// runtime; the test takes its offers one at a time and declines the rest.
struct Framework {
  RecordingScheduler scheduler;
  std::unique_ptr<process::Runtime> runtime;
  std::unique_ptr<MesosSchedulerDriver> driver;
  std::set<std::string> seen;  // offer ids taken or declined

  explicit Framework(const process::Address& master)
      : runtime(std::move(process::Runtime::create({})).value()) {
    scheduler.onOffers = [](SchedulerDriver*, const std::vector<Offer>&) {};
    FrameworkInfo info;
    info.set_user("");
    info.set_name("volumes");
    info.set_role("eng");
    info.set_principal("ops");
    info.set_checkpoint(true);
    driver = std::make_unique<MesosSchedulerDriver>(&scheduler, info, master.toString(), true,
                                                    runtime.get());
  }

  ~Framework() {
    driver->stop();
    driver->join();
  }

  // The first new offer `wanted` accepts (others are declined), or none
  // within the bound.
  std::optional<Offer> take(const std::function<bool(const Offer&)>& wanted,
                            std::chrono::seconds bound = 60s) {
    std::optional<Offer> chosen;
    std::vector<OfferID> unwanted;
    scheduler.await(
        [&](const RecordingScheduler::Event& e) {
          if (e.kind != "offers") return false;
          for (const Offer& offer : e.offers) {
            if (!seen.insert(offer.id().value()).second) continue;
            if (!chosen && wanted(offer)) {
              chosen = offer;
            } else {
              unwanted.push_back(offer.id());
            }
          }
          return chosen.has_value();
        },
        bound);
    Filters filters;
    filters.set_refuse_seconds(0);
    for (const OfferID& id : unwanted) driver->declineOffer(id, filters);
    return chosen;
  }

  void accept(const Offer& offer, const std::vector<Offer::Operation>& operations) {
    Filters filters;
    filters.set_refuse_seconds(0);
    driver->acceptOffers({offer.id()}, operations, filters);
  }

  // A task appending `line` to data/log and checking the log then has
  // `lines` lines, on reserved cpus and mem and the volume.
  static TaskInfo task(const Offer& offer, const std::string& id, int lines,
                       const Resource& volume) {
    TaskInfo info = commandTask(offer, id,
                                "echo " + id + " >> data/log && test $(wc -l < data/log) -eq " +
                                    std::to_string(lines));
    *info.mutable_resources() = reserved("cpus:0.1;mem:32").proto();
    *info.add_resources() = volume;
    return info;
  }

  bool finished(const std::string& taskId) {
    auto done = scheduler.await(
        [&](const RecordingScheduler::Event& e) {
          return e.kind == "status" && e.status.task_id().value() == taskId &&
                 (e.status.state() == TASK_FINISHED || e.status.state() == TASK_FAILED ||
                  e.status.state() == TASK_ERROR || e.status.state() == TASK_LOST);
        },
        60s);
    EXPECT_TRUE(done) << taskId << " did not end within 60 s";
    if (!done) return false;
    EXPECT_EQ(TASK_FINISHED, done->status.state()) << taskId << ": " << done->status.message();
    return done->status.state() == TASK_FINISHED;
  }
};

class VolumesTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    masterPort_ = freePort();
    startMasterProcess();
    slavePort_ = freePort();
    startSlaveProcess();
  }

  void startMasterProcess() {
    master_ = process::Address{0x7f000001, masterPort_};
    masterPid_ = start({MESOS_MASTER_PATH, "--ip=127.0.0.1", "--port=" + std::to_string(masterPort_),
                        "--allocation_interval=100ms"},
                       "master");
    ASSERT_GT(masterPid_, 0);
    ASSERT_TRUE(waitUntil([&] { return connectable(master_); }, 30s, masterPid_))
        << readFile(dir_ + "/master.log");
  }

  void startSlaveProcess() {
    slavePid_ = startSlave(master_, "slave", {"--resources=cpus:2;mem:512;disk:512"}, slavePort_);
    ASSERT_GT(slavePid_, 0);
    ASSERT_TRUE(waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 60s,
                          slavePid_))
        << "the slave did not register:\n" << readFile(dir_ + "/slave.log");
  }

  void killMinus9(pid_t pid) {
    ASSERT_EQ(0, ::kill(pid, SIGKILL));
    ASSERT_EQ(128 + SIGKILL, waitForExit(pid, 30s));
    reaped(pid);
  }

  std::string volumeDir() const { return dir_ + "/slave/volumes/roles/eng/v1"; }

  // Whether the slave's /state shows the volume among its reserved
  // resources.
  bool slaveShowsVolume() {
    json::Value state = getJson(process::Address{0x7f000001, slavePort_}, "/state");
    const json::Value& eng = state["reserved_resources_full"]["eng"];
    if (!eng.isArray()) return false;
    for (const json::Value& resource : eng.array()) {
      if (resource["disk"]["persistence"]["id"].isString() &&
          resource["disk"]["persistence"]["id"].string() == "v1") {
        return true;
      }
    }
    return false;
  }

  static bool offeredAsCreated(const Offer& offer) {
    auto volume = offeredVolume(offer);
    return volume && volume->role() == "eng" && volume->reservation().principal() == "ops" &&
           volume->disk().persistence().principal() == "ops" &&
           volume->disk().volume().container_path() == "data";
  }

  uint16_t masterPort_ = 0;
  uint16_t slavePort_ = 0;
  process::Address master_;
  pid_t masterPid_ = -1;
  pid_t slavePid_ = -1;
};

TEST_F(VolumesTest, AVolumeKeepsAFileAcrossThreeTaskRunsAndRestartsUntilDestroyed) {
  {
    Framework framework(master_);
    ASSERT_EQ(DRIVER_RUNNING, framework.driver->start());

    auto offer = framework.take([](const Offer& o) { return !o.resources().empty(); });
    ASSERT_TRUE(offer) << "no offer";
    Offer::Operation reserve = operation(Offer::Operation::RESERVE);
    *reserve.mutable_reserve()->mutable_resources() =
        reserved("cpus:0.5;mem:128;disk:64").proto();
    Offer::Operation create = operation(Offer::Operation::CREATE);
    *create.mutable_create()->add_volumes() = volumeV1();
    Offer::Operation launch = operation(Offer::Operation::LAUNCH);
    *launch.mutable_launch()->add_task_infos() = Framework::task(*offer, "run1", 1, volumeV1());
    framework.accept(*offer, {reserve, create, launch});
    ASSERT_TRUE(framework.finished("run1")) << readFile(dir_ + "/slave.log");

    for (int run = 2; run <= 3; ++run) {
      auto next = framework.take(offeredAsCreated);
      ASSERT_TRUE(next) << "the volume was not offered again";
      Offer::Operation again = operation(Offer::Operation::LAUNCH);
      *again.mutable_launch()->add_task_infos() =
          Framework::task(*next, "run" + std::to_string(run), run, *offeredVolume(*next));
      framework.accept(*next, {again});
      ASSERT_TRUE(framework.finished("run" + std::to_string(run)));
    }
    EXPECT_EQ("run1\nrun2\nrun3\n", readFile(volumeDir() + "/log"));
  }

  // The slave, then the master, killed and started again: the slave
  // re-registers with a master that knows nothing, bringing its checkpoint.
  killMinus9(slavePid_);
  slavePid_ = startSlave(master_, "slave", {"--resources=cpus:2;mem:512;disk:512"}, slavePort_);
  ASSERT_GT(slavePid_, 0);
  ASSERT_TRUE(waitUntil([&] { return slaveShowsVolume(); }, 60s, slavePid_))
      << readFile(dir_ + "/slave.log");
  killMinus9(masterPid_);
  startMasterProcess();
  ASSERT_TRUE(waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 60s,
                        slavePid_))
      << "the slave did not re-register:\n" << readFile(dir_ + "/slave.log");

  Framework framework(master_);
  ASSERT_EQ(DRIVER_RUNNING, framework.driver->start());
  auto offer = framework.take(offeredAsCreated);
  ASSERT_TRUE(offer) << "the volume was not offered after the restarts";
  Resource volume = *offeredVolume(*offer);
  Offer::Operation launch = operation(Offer::Operation::LAUNCH);
  *launch.mutable_launch()->add_task_infos() = Framework::task(*offer, "run4", 4, volume);
  framework.accept(*offer, {launch});
  ASSERT_TRUE(framework.finished("run4"));

  auto last = framework.take(offeredAsCreated);
  ASSERT_TRUE(last);
  Offer::Operation destroy = operation(Offer::Operation::DESTROY);
  *destroy.mutable_destroy()->add_volumes() = *offeredVolume(*last);
  Offer::Operation unreserve = operation(Offer::Operation::UNRESERVE);
  // The disk the volume was on, back to every role.
  *unreserve.mutable_unreserve()->mutable_resources() = reserved("disk:64").proto();
  framework.accept(*last, {destroy, unreserve});
  EXPECT_TRUE(waitUntil([&] { return !fs::exists(fs::symlink_status(volumeDir())); }, 60s))
      << "DESTROY left " << volumeDir() << "\n" << tail(dir_ + "/master.log")
      << tail(dir_ + "/slave.log");
  EXPECT_TRUE(waitUntil([&] { return !slaveShowsVolume(); }, 30s));
}

TEST_F(VolumesTest, ADamagedResourcesCheckpointStopsTheSlaveNamingIt) {
  killMinus9(slavePid_);
  const std::string info = dir_ + "/slave/meta/resources/resources.info";
  fs::create_directories(fs::path(info).parent_path());
  std::ofstream(info, std::ios::trunc) << "\xff\xfe garbage";
  ChildResult refused = runChild(
      {MESOS_SLAVE_PATH, "--master=" + master_.toString(), "--ip=127.0.0.1",
       "--port=" + std::to_string(slavePort_), "--work_dir=" + dir_ + "/slave",
       "--resources=cpus:2;mem:512;disk:512",
       "--launcher_dir=" + fs::path(MESOS_EXECUTOR_PATH).parent_path().string()},
      60s);
  EXPECT_TRUE(refused.exitedWith(1)) << refused.describe();
  EXPECT_NE(refused.err.find(info), std::string::npos) << refused.describe();
}

}  // namespace
}  // namespace mesos::test
