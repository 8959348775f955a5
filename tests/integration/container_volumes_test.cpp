// Containers with volumes and namespaces end to end: mesos-master and
// mesos-slave processes, the slave with
// --isolation=filesystem/linux,namespaces/pid,posix/cpu, and mesos-execute
// --volumes running command tasks in them (as root).
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class ContainerVolumesTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "mount and pid namespaces need root";
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    host_ = dir_ + "/host";
    fs::create_directories(host_);
    std::ofstream(host_ + "/given") << "from the host\n";
    master_ = startMaster({"--allocation_interval=100ms"});
  }

  void startSlaveWith(const std::string& isolation) {
    ASSERT_GT(
        startSlave(master_, "slave",
                   {"--resources=cpus:2;mem:512;disk:512", "--isolation=" + isolation}, freePort()),
        0);
    ASSERT_TRUE(waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s))
        << "the slave did not register within 30 s";
  }

  ChildResult execute(const std::string& name, const std::string& volumes,
                      const std::string& command) {
    return runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--name=" + name,
                     "--resources=cpus:0.1;mem:32", "--volumes=" + volumes, "--command=" + command},
                    90s);
  }

  process::Address master_;
  std::string host_;
};

TEST_F(ContainerVolumesTest, ATaskSeesItsVolumesAndCannotWriteAReadOnlyOne) {
  ASSERT_NO_FATAL_FAILURE(startSlaveWith("filesystem/linux,namespaces/pid,posix/cpu"));
  const std::string volumes = "[{\"container_path\":\"data\",\"host_path\":\"" + host_ +
                              "\",\"mode\":\"RO\"},{\"container_path\":\"scratch\","
                              "\"host_path\":\"work\",\"mode\":\"RW\"}]";
  // Every check is a condition of the task's success: the executor is pid 1
  // of the container (not the host's init), the read-only volume reads and
  // refuses a write, the sandbox's `work` shows at `scratch`.
  ChildResult run = execute("mounted", volumes,
                            "grep -q mesos-executor /proc/1/cmdline && "
                            "[ \"$(cat data/given)\" = 'from the host' ] && "
                            "! touch data/x 2>/dev/null && echo kept > scratch/out && "
                            "[ \"$(cat work/out)\" = kept ]");
  EXPECT_TRUE(run.exitedWith(0)) << run.describe();
  EXPECT_NE(run.out.find("TASK_FINISHED"), std::string::npos) << run.describe();
  EXPECT_FALSE(fs::exists(host_ + "/x"));
}

// Volume.source, as Apache Mesos's volume/host_path and volume/sandbox_path
// isolators take it: a HOST_PATH read-only, a SANDBOX_PATH (SELF) read-write
// at an absolute path of the container's tree (/mnt, the host's, under the
// container's own mount namespace).
TEST_F(ContainerVolumesTest, VolumeSourcesHostPathAndSandboxPathAreMounted) {
  ASSERT_NO_FATAL_FAILURE(startSlaveWith("filesystem/linux,namespaces/pid,posix/cpu"));
  const std::string volumes =
      "[{\"container_path\":\"data\",\"mode\":\"RO\",\"source\":{\"type\":\"HOST_PATH\","
      "\"host_path\":{\"path\":\"" +
      host_ +
      "\"}}},{\"container_path\":\"/mnt\",\"mode\":\"RW\",\"source\":{\"type\":"
      "\"SANDBOX_PATH\",\"sandbox_path\":{\"type\":\"SELF\",\"path\":\"shared/dir\"}}}]";
  ChildResult run = execute("sourced", volumes,
                            "[ \"$(cat data/given)\" = 'from the host' ] && "
                            "! touch data/x 2>/dev/null && echo kept > /mnt/out && "
                            "[ \"$(cat shared/dir/out)\" = kept ]");
  EXPECT_TRUE(run.exitedWith(0)) << run.describe();
  EXPECT_NE(run.out.find("TASK_FINISHED"), std::string::npos) << run.describe();
  EXPECT_FALSE(fs::exists(host_ + "/x"));
  // The host's /mnt never saw the task's file: the mount was the container's.
  EXPECT_FALSE(fs::exists("/mnt/out"));
}

// What the master refuses of Volume.source, naming the field.
TEST_F(ContainerVolumesTest, UnsupportedVolumeSourcesAreRefusedNamingTheField) {
  ASSERT_NO_FATAL_FAILURE(startSlaveWith("filesystem/linux,posix/cpu"));
  struct Case {
    std::string volume;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"{\"container_path\":\"d\",\"mode\":\"RW\",\"source\":{\"type\":\"DOCKER_VOLUME\","
       "\"docker_volume\":{\"name\":\"v\"}}}",
       "volumes[0].source.type DOCKER_VOLUME"},
      {"{\"container_path\":\"d\",\"mode\":\"RW\",\"source\":{\"type\":\"SANDBOX_PATH\","
       "\"sandbox_path\":{\"type\":\"PARENT\",\"path\":\"p\"}}}",
       "volumes[0].source.sandbox_path.type PARENT"},
      {"{\"container_path\":\"d\",\"mode\":\"RW\",\"source\":{\"type\":\"HOST_PATH\","
       "\"host_path\":{\"path\":\"relative\"}}}",
       "volumes[0].source.host_path.path 'relative' is not absolute"},
      {"{\"container_path\":\"d\",\"mode\":\"RW\",\"host_path\":\"/tmp\",\"source\":{"
       "\"type\":\"HOST_PATH\",\"host_path\":{\"path\":\"/tmp\"}}}",
       "volumes[0] has both host_path and source"},
      {"{\"container_path\":\"d\",\"mode\":\"RW\",\"source\":{\"type\":\"SANDBOX_PATH\","
       "\"sandbox_path\":{\"type\":\"SELF\",\"path\":\"../up\"}}}",
       "a path holds '..'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.volume);
    ChildResult run = execute("refused", "[" + c.volume + "]", "true");
    EXPECT_TRUE(run.exitedWith(1)) << run.describe();
    EXPECT_NE(run.out.find("TASK_ERROR"), std::string::npos) << run.describe();
    EXPECT_NE(run.out.find(c.says), std::string::npos) << run.describe();
  }
}

TEST_F(ContainerVolumesTest, VolumesOnASlaveWithoutTheIsolatorFailTheTaskSayingWhy) {
  ASSERT_NO_FATAL_FAILURE(startSlaveWith("posix/cpu"));
  ChildResult run = execute(
      "unmounted",
      "[{\"container_path\":\"data\",\"host_path\":\"" + host_ + "\",\"mode\":\"RO\"}]", "true");
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.out.find("TASK_FAILED"), std::string::npos) << run.describe();
  EXPECT_NE(run.out.find("filesystem/linux"), std::string::npos) << run.describe();
}

TEST_F(ContainerVolumesTest, ABadVolumesFlagIsOneLine) {
  ChildResult run = execute("bad", "{\"container_path\":\"data\"}", "true");
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.err.find("--volumes: expected a JSON array"), std::string::npos) << run.describe();
}

}  // namespace
}  // namespace mesos::test
