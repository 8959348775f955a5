// Dynamic reservations and persistent volumes on the slave
// (docs/persistent-volumes.md), against the fake master on the paused
// clock: CheckpointResourcesMessage is checkpointed to
// meta/resources/resources.info and makes (or removes) the volumes'
// directories; only the master is heard; what does not fit is ignored; a
// restarted slave sends what it checkpointed and refuses a damaged file; a
// task finds its volume as a link at its container path, owned by its user;
// disk/du does not count the volume as the sandbox's.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "slave/containerizer/isolators/disk/disk_du_isolator.hpp"
#include "slave/checkpoint.hpp"
#include "slave/slave_fixture.hpp"
#include "slave/volumes.hpp"

namespace mesos::internal::slave::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class SlaveVolumesTest : public SlaveTestBase {
 protected:
  // `text` (the --resources syntax) dynamically reserved for `role` by
  // "ops".
  static Resources reserved(const std::string& text, const std::string& role) {
    Resources out;
    const Resources plain = Resources::parse(text).value();
  for (Resource resource : plain) {
      resource.set_role(role);
      resource.mutable_reservation()->set_principal("ops");
      out += resource;
    }
    return out;
  }

  // Volume `id` on `mb` of disk reserved for `role`, at `path` in sandboxes.
  static Resource volume(const std::string& id, double mb, const std::string& role = "eng",
                         const std::string& path = "data") {
    Resource disk = *reserved("disk:" + std::to_string(mb), role).begin();
    disk.mutable_disk()->mutable_persistence()->set_id(id);
    disk.mutable_disk()->mutable_persistence()->set_principal("ops");
    disk.mutable_disk()->mutable_volume()->set_container_path(path);
    disk.mutable_disk()->mutable_volume()->set_mode(Volume::RW);
    return *Resources(disk).begin();
  }

  static CheckpointResourcesMessage toCheckpoint(const Resources& resources) {
    CheckpointResourcesMessage message;
    *message.mutable_resources() = resources.proto();
    return message;
  }

  std::string volumeDir(const std::string& role, const std::string& id) const {
    return volumes::volumePath(workDir_, role, id);
  }

  Resources checkpointedOnDisk() const {
    auto read = volumes::readCheckpointed(workDir_);
    EXPECT_TRUE(read.ok()) << read.error().message;
    return read.ok() ? *read : Resources();
  }

  // The newest run's sandbox of the executor `executorId` of F1.
  std::string sandbox(const std::string& executorId) const {
    return workDir_ + "/slaves/S1/frameworks/F1/executors/" + executorId + "/runs/latest";
  }
};

TEST_F(SlaveVolumesTest, TheMastersResourcesAreCheckpointedAndTheirVolumesMade) {
  startRegisteredSlave();
  Resources sent = reserved("cpus:1", "eng/backend") + volume("v1", 64, "eng/backend");
  fromMaster(toCheckpoint(sent));
  runtime_->settle();

  EXPECT_EQ(sent, checkpointedOnDisk());
  // Apache's layout: the role's '/' is a space.
  EXPECT_EQ(workDir_ + "/volumes/roles/eng backend/v1", volumeDir("eng/backend", "v1"));
  EXPECT_TRUE(fs::is_directory(volumeDir("eng/backend", "v1")));

  json::Value s = state();
  EXPECT_EQ(4096.0, s["resources"]["disk"].number());
  EXPECT_EQ(64.0, s["reserved_resources"]["eng/backend"]["disk"].number());
  EXPECT_EQ(1.0, s["reserved_resources"]["eng/backend"]["cpus"].number());
  EXPECT_EQ(4032.0, s["unreserved_resources"]["disk"].number());
  ASSERT_TRUE(s["reserved_resources_full"]["eng/backend"].isArray());
  bool found = false;
  for (const json::Value& r : s["reserved_resources_full"]["eng/backend"].array()) {
    if (r["disk"]["persistence"]["id"].isString()) {
      EXPECT_EQ("v1", r["disk"]["persistence"]["id"].string());
      EXPECT_EQ("data", r["disk"]["volume"]["container_path"].string());
      found = true;
    }
  }
  EXPECT_TRUE(found) << json::stringify(s["reserved_resources_full"]);
  EXPECT_TRUE(s["unreserved_resources_full"].isArray());
}

TEST_F(SlaveVolumesTest, ACheckpointFromAnyoneButTheMasterIsIgnored) {
  startRegisteredSlave();
  auto* impostor = startExecutor("impostor");
  impostor->post(slave_.pid(), toCheckpoint(volume("v1", 64)));
  runtime_->settle();

  EXPECT_FALSE(fs::exists(volumes::resourcesInfoPath(workDir_)));
  EXPECT_FALSE(fs::exists(volumeDir("eng", "v1")));
  EXPECT_TRUE(state()["reserved_resources"].object().empty());
}

TEST_F(SlaveVolumesTest, ResourcesTheSlaveWasNotStartedWithAreIgnored) {
  startRegisteredSlave();
  Resources kept = volume("v1", 64);
  fromMaster(toCheckpoint(kept));
  runtime_->settle();
  ASSERT_EQ(kept, checkpointedOnDisk());

  fromMaster(toCheckpoint(volume("v2", 99999)));
  runtime_->settle();
  EXPECT_EQ(kept, checkpointedOnDisk());
  EXPECT_FALSE(fs::exists(volumeDir("eng", "v2")));
  EXPECT_TRUE(fs::is_directory(volumeDir("eng", "v1")));
  EXPECT_EQ(64.0, state()["reserved_resources"]["eng"]["disk"].number());
}

TEST_F(SlaveVolumesTest, DestroyRemovesTheVolumeWithoutFollowingItsLinks) {
  startRegisteredSlave();
  fromMaster(toCheckpoint(volume("v1", 64)));
  runtime_->settle();
  const std::string dir = volumeDir("eng", "v1");
  ASSERT_TRUE(fs::is_directory(dir));
  fs::create_directories(dir + "/a/b");
  std::ofstream(dir + "/a/b/file") << "data\n";
  const std::string outside = workDir_ + "/outside";
  fs::create_directories(outside);
  std::ofstream(outside + "/precious") << "keep me\n";
  fs::create_directory_symlink(outside, dir + "/a/escape");
  fs::create_symlink(outside + "/precious", dir + "/link");

  // DESTROY: the reservation stays, the volume goes.
  fromMaster(toCheckpoint(reserved("disk:64", "eng")));
  runtime_->settle();
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir)));
  EXPECT_TRUE(fs::exists(outside + "/precious"));
  EXPECT_EQ(reserved("disk:64", "eng"), checkpointedOnDisk());
}

TEST_F(SlaveVolumesTest, ARestartedSlaveSendsWhatItCheckpointedAndRemakesAMissingVolume) {
  Resources sent = reserved("cpus:1", "eng") + volume("v1", 64);
  ASSERT_TRUE(checkpoint::write(volumes::resourcesInfoPath(workDir_), toCheckpoint(sent)).ok());
  auto registering = runtime_->hooks().await<RegisterSlaveMessage>();
  startRegisteredSlave();
  ASSERT_TRUE(registering.isReady());
  EXPECT_EQ(sent, Resources(registering.get().checkpointed_resources()));
  // What the master applies them to: what the slave was started with.
  EXPECT_EQ(4096.0, Resources(registering.get().slave().resources()).scalar("disk"));
  EXPECT_TRUE(Resources(registering.get().slave().resources()).role("eng").empty());
  EXPECT_TRUE(fs::is_directory(volumeDir("eng", "v1")));
  EXPECT_EQ(1.0, state()["reserved_resources"]["eng"]["cpus"].number());
}

TEST_F(SlaveVolumesTest, ADamagedOrUnfittingCheckpointStopsTheSlaveNamingTheFile) {
  const std::string path = volumes::resourcesInfoPath(workDir_);
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::trunc) << "\xff\xfe garbage";
  SlaveOptions options;
  options.master = master_.pid();
  options.machine = MachineFacts{4, 8192, 100000};
  auto refused = Slave::create(flags(), std::move(options));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(path), std::string::npos) << refused.error().message;

  ASSERT_TRUE(checkpoint::write(path, toCheckpoint(volume("v1", 99999))).ok());
  SlaveOptions again;
  again.master = master_.pid();
  again.machine = MachineFacts{4, 8192, 100000};
  auto unfitting = Slave::create(flags(), std::move(again));
  ASSERT_FALSE(unfitting.ok());
  EXPECT_NE(unfitting.error().message.find(path), std::string::npos)
      << unfitting.error().message;
  EXPECT_NE(unfitting.error().message.find("--resources"), std::string::npos)
      << unfitting.error().message;
}

// A command task writes through its volume's link; the volume keeps what
// it wrote, and disk/du does not count it as the sandbox's.
TEST_F(SlaveVolumesTest, ATaskFindsItsVolumeAtItsContainerPath) {
  startRegisteredSlave();
  Resource v1 = volume("v1", 64, "eng", "state/data");
  fromMaster(toCheckpoint(Resources(v1)));
  runtime_->settle();

  TaskInfo task = commandTask("t1", "echo hello >> state/data/log && "
                                    "head -c 2000000 /dev/zero > state/data/big");
  *task.add_resources() = v1;
  fromMaster(runTask(task));
  awaitTerminalUpdate();
  ASSERT_EQ(TASK_FINISHED, master_->updates().back().status().state())
      << master_->updates().back().status().message();

  const std::string dir = volumeDir("eng", "v1");
  EXPECT_EQ("hello\n", readFile(dir + "/log"));
  const std::string link = sandbox("t1") + "/state/data";
  ASSERT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(dir, fs::read_symlink(link).string());
  EXPECT_LT(isolation::DiskDuIsolator::measure(sandbox("t1")), 1000000u);
}

TEST_F(SlaveVolumesTest, ATaskWithAVolumeTheSlaveDoesNotHoldFails) {
  startRegisteredSlave();
  TaskInfo task = commandTask("t1", "true");
  *task.add_resources() = volume("v9", 64);
  fromMaster(runTask(task));
  runtime_->settle();
  auto updates = master_->updates();
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(TASK_FAILED, updates.back().status().state());
  EXPECT_EQ(TaskStatus::REASON_CONTAINER_LAUNCH_FAILED, updates.back().status().reason());
  EXPECT_NE(updates.back().status().message().find("v9"), std::string::npos)
      << updates.back().status().message();
}

TEST_F(SlaveVolumesTest, AVolumeInUseIsKeptWhenDestroyed) {
  startRegisteredSlave();
  Resource v1 = volume("v1", 64);
  fromMaster(toCheckpoint(Resources(v1)));
  runtime_->settle();
  TaskInfo task = customTask("t1", "e1", "sleep 60");
  *task.add_resources() = v1;
  fromMaster(runTask(task));
  runtime_->settle();
  ASSERT_TRUE(fs::is_symlink(sandbox("e1") + "/data"));

  fromMaster(toCheckpoint(Resources()));
  runtime_->settle();
  EXPECT_TRUE(fs::is_directory(volumeDir("eng", "v1")));
  EXPECT_TRUE(checkpointedOnDisk().empty());
}

TEST_F(SlaveVolumesTest, TheVolumeIsGivenToTheTasksUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
  passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user 'nobody' on this machine";
  startRegisteredSlave();
  Resource v1 = volume("v1", 64);
  fromMaster(toCheckpoint(Resources(v1)));
  runtime_->settle();
  TaskInfo task = commandTask("t1", "true");
  task.mutable_command()->set_user("nobody");
  *task.add_resources() = v1;
  fromMaster(runTask(task));
  runtime_->settle();
  struct stat s {};
  ASSERT_EQ(0, ::stat(volumeDir("eng", "v1").c_str(), &s));
  EXPECT_EQ(nobody->pw_uid, s.st_uid);
}

TEST(VolumePathsTest, ContainerPathsMustStayInsideTheSandbox) {
  char pattern[] = "/tmp/mesos-volume-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  fs::create_directories(dir + "/sandbox");
  fs::create_directories(dir + "/volume");
  fs::create_directories(dir + "/elsewhere");
  fs::create_directory_symlink(dir + "/elsewhere", dir + "/sandbox/trap");
  for (const std::string bad : {"/abs", "../up", "a/../b", "", "trap/inside"}) {
    EXPECT_FALSE(volumes::linkVolume(dir + "/sandbox", bad, dir + "/volume").ok()) << bad;
  }
  EXPECT_TRUE(fs::is_empty(dir + "/elsewhere"));
  EXPECT_TRUE(volumes::linkVolume(dir + "/sandbox", "x/y", dir + "/volume").ok());
  EXPECT_TRUE(volumes::linkVolume(dir + "/sandbox", "x/y", dir + "/volume").ok())
      << "the same link again is fine";
  EXPECT_FALSE(volumes::linkVolume(dir + "/sandbox", "x/y", dir + "/elsewhere").ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mesos::internal::slave::test
