// The launch helper's root filesystem (mesos-containerizer --rootfs,
// slave/containerizer/rootfs.hpp): a real program in a real root filesystem
// made by the test from Debian's busybox-static, as root.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "slave/containerizer/rootfs.hpp"
#include "slave/paths.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines of this process's mountinfo that name `path`.
size_t mountsUnder(const std::string& path) {
  std::istringstream lines(slurp("/proc/self/mountinfo"));
  size_t count = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find(path) != std::string::npos) ++count;
  }
  return count;
}

TEST(RootfsVolumeTest, ParsesSourceTargetAndMode) {
  internal::slave::RootfsVolume volume;
  EXPECT_EQ(internal::slave::parseVolume("/srv/data:/data:ro", &volume), "");
  EXPECT_EQ(volume.source, "/srv/data");
  EXPECT_EQ(volume.target, "/data");
  EXPECT_TRUE(volume.readOnly);
  EXPECT_EQ(internal::slave::parseVolume("/srv/data:/data", &volume), "");
  EXPECT_FALSE(volume.readOnly);
  EXPECT_NE(internal::slave::parseVolume("/srv:/data:rx", &volume), "");
  EXPECT_NE(internal::slave::parseVolume("relative:/data", &volume), "");
  EXPECT_EQ(internal::slave::parseVolume("/srv:data", &volume), "");  // in the sandbox
  EXPECT_EQ(volume.target, "data");
  EXPECT_NE(internal::slave::parseVolume("/srv:", &volume), "");
  EXPECT_NE(internal::slave::parseVolume("/srv:a/../..", &volume), "");
  EXPECT_NE(internal::slave::parseVolume("/srv:/a/../../etc", &volume), "");
  EXPECT_NE(internal::slave::parseVolume("/srv", &volume), "");
}

class RootfsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "entering a root filesystem needs root";
    if (!fs::exists("/bin/busybox")) GTEST_SKIP() << "no /bin/busybox (Debian's busybox-static)";
    char pattern[] = "/tmp/mesos-rootfs-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    rootfs_ = dir_ + "/rootfs";
    sandbox_ = dir_ + "/sandbox";
    volume_ = dir_ + "/volume";
    for (const std::string& d : {rootfs_ + "/bin", rootfs_ + "/etc", sandbox_, volume_}) {
      fs::create_directories(d);
    }
    fs::copy_file("/bin/busybox", rootfs_ + "/bin/busybox");
    ChildResult installed = runChild({"/bin/busybox", "--install", "-s", rootfs_ + "/bin"}, 30s);
    ASSERT_TRUE(installed.exitedWith(0)) << installed.describe();
    // busybox --install links to its own path: make them relative.
    for (const auto& entry : fs::directory_iterator(rootfs_ + "/bin")) {
      if (!entry.is_symlink()) continue;
      fs::remove(entry.path());
      fs::create_symlink("busybox", entry.path());
    }
    std::ofstream(rootfs_ + "/etc/os-release") << "ID=mesos-test-image\n";
    std::ofstream(volume_ + "/given") << "from the host\n";
    helper_ =
        internal::slave::launcherBinaryPath(MESOS_BINARY_DIR "/src/slave", "mesos-containerizer");
    before_ = mountsUnder(dir_);
  }

  void TearDown() override {
    if (dir_.empty()) return;
    EXPECT_EQ(mountsUnder(dir_), before_) << "mounts left on the host:\n"
                                          << slurp("/proc/self/mountinfo");
    fs::remove_all(dir_);
  }

  ChildResult run(std::vector<std::string> flags, const std::string& script) {
    std::vector<std::string> args = {helper_};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", "/bin/sh", "-c", script});
    return runChild(args, 60s);
  }

  std::string dir_, rootfs_, sandbox_, volume_, helper_;
  size_t before_ = 0;
};

TEST_F(RootfsTest, TheProgramSeesTheImageItsSandboxAndItsVolumes) {
  ChildResult result =
      run({"--unshare=pid", "--rootfs=" + rootfs_, "--sandbox=" + sandbox_,
           "--volume=" + volume_ + ":/data/ro:ro", "--volume=" + volume_ + ":/data/rw"},
          "cat /etc/os-release > os; pwd > pwd; echo $$ > pid; cat /data/ro/given > given; "
          "touch /data/ro/x 2> ro.err; echo written > /data/rw/y; echo null > /dev/null && "
          "echo dev-ok > dev; ls /proc | grep -c '^[0-9]' > procs");
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  EXPECT_EQ(slurp(sandbox_ + "/os"), "ID=mesos-test-image\n");
  EXPECT_EQ(slurp(sandbox_ + "/pwd"), "/mnt/mesos/sandbox\n");
  EXPECT_EQ(slurp(sandbox_ + "/pid"), "1\n");
  EXPECT_EQ(slurp(sandbox_ + "/given"), "from the host\n");
  EXPECT_NE(slurp(sandbox_ + "/ro.err").find("Read-only"), std::string::npos)
      << slurp(sandbox_ + "/ro.err");
  EXPECT_FALSE(fs::exists(volume_ + "/x"));
  EXPECT_EQ(slurp(volume_ + "/y"), "written\n");
  EXPECT_EQ(slurp(sandbox_ + "/dev"), "dev-ok\n");
  EXPECT_LE(std::stoi(slurp(sandbox_ + "/procs")), 3);
  // The host's tree is not reachable: /etc is the image's.
  EXPECT_FALSE(fs::exists(rootfs_ + "/etc/passwd"));
}

// What the container has mounted is what it needs, each once: its root,
// /proc, a read-only sysfs of its own without the host's cgroup
// hierarchies below it (which a task running as root could otherwise write
// to, moving itself out of its cgroups), /dev with its devpts and shm, the
// sandbox. The devices are nodes made in /dev, not mounts.
TEST_F(RootfsTest, TheContainerMountsOnlyWhatItNeedsAndNotTheHostsCgroups) {
  ChildResult result =
      run({"--unshare=pid", "--rootfs=" + rootfs_, "--sandbox=" + sandbox_},
          "cut -d' ' -f5 /proc/self/mountinfo > mounts; ls -A /sys/fs/cgroup > cgroups; "
          "touch /sys/x 2> sys.err; head -c 4 /dev/zero | wc -c > zero; "
          "echo x > /dev/null && echo ok > null");
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  EXPECT_EQ(slurp(sandbox_ + "/mounts"),
            "/\n/proc\n/sys\n/dev\n/dev/pts\n/dev/shm\n/mnt/mesos/sandbox\n");
  EXPECT_EQ(slurp(sandbox_ + "/cgroups"), "");
  EXPECT_NE(slurp(sandbox_ + "/sys.err").find("Read-only"), std::string::npos)
      << slurp(sandbox_ + "/sys.err");
  EXPECT_EQ(slurp(sandbox_ + "/zero"), "4\n");
  EXPECT_EQ(slurp(sandbox_ + "/null"), "ok\n");
}

// The slave's overlay root filesystems are left unmounted by the
// provisioner, with their options in a file beside them: the helper mounts
// them in the container's own mount namespace, so the host's mount table
// never holds one mount per container.
TEST_F(RootfsTest, AnOverlayLeftToTheHelperIsMountedInTheContainersNamespaceOnly) {
  if (slurp("/proc/filesystems").find("overlay") == std::string::npos) {
    GTEST_SKIP() << "the kernel has no overlayfs";
  }
  const std::string image = dir_ + "/container/rootfs";
  const std::string upper = dir_ + "/container/upper";
  for (const std::string& d : {image, upper, dir_ + "/container/work"}) fs::create_directories(d);
  const std::string options = internal::slave::overlayOptionsFile(image);
  std::ofstream(options) << "lowerdir=" << rootfs_ << ",upperdir=" << upper << ",workdir=" << dir_
                         << "/container/work";
  fs::permissions(options, fs::perms(0644));
  ChildResult result = run({"--unshare=pid", "--rootfs=" + image, "--sandbox=" + sandbox_},
                           "cat /etc/os-release > os; echo made > /etc/made");
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  EXPECT_EQ(slurp(sandbox_ + "/os"), "ID=mesos-test-image\n");
  // The write went to the container's upper directory, not the image.
  EXPECT_EQ(slurp(upper + "/etc/made"), "made\n");
  EXPECT_FALSE(fs::exists(rootfs_ + "/etc/made"));
  // Nothing was ever mounted at the root filesystem on the host (TearDown
  // checks nothing is left): it is the empty directory it was.
  EXPECT_FALSE(internal::slave::isMountPoint(image));
  EXPECT_TRUE(fs::is_empty(image));

  // The options must be root's alone: a file others may write is refused.
  fs::permissions(options, fs::perms(0666));
  ChildResult refused = run({"--unshare=pid", "--rootfs=" + image}, "true");
  EXPECT_TRUE(refused.exitedWith(127)) << refused.describe();
  EXPECT_NE(refused.err.find("only root may write"), std::string::npos) << refused.err;
}

TEST_F(RootfsTest, AWorkingDirectoryAndNoSandbox) {
  fs::create_directories(rootfs_ + "/work");
  ChildResult result = run({"--rootfs=" + rootfs_, "--working_dir=/work"}, "pwd");
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  EXPECT_EQ(result.out, "/work\n");
  // One the image lacks is made, as Docker makes it.
  ChildResult missing = run({"--rootfs=" + rootfs_, "--working_dir=/made/here"}, "pwd");
  ASSERT_TRUE(missing.exitedWith(0)) << missing.describe();
  EXPECT_EQ(missing.out, "/made/here\n");
  std::ofstream(rootfs_ + "/file") << "not a directory\n";
  ChildResult impossible = run({"--rootfs=" + rootfs_, "--working_dir=/file/sub"}, "pwd");
  EXPECT_TRUE(impossible.exitedWith(127)) << impossible.describe();
  EXPECT_NE(impossible.err.find("working directory /file/sub"), std::string::npos)
      << impossible.err;
}

// The command executor's model: its helper prepares the root filesystem
// but stays on the host's root (--task_rootfs); the task's helper, started
// from there, enters it (--chroot), with MESOS_SANDBOX as seen inside.
TEST_F(RootfsTest, APreparedRootFilesystemIsEnteredByTheTasksHelper) {
  std::vector<std::string> args = {helper_,
                                   "--task_rootfs=" + rootfs_,
                                   "--sandbox=" + sandbox_,
                                   "--volume=" + volume_ + ":/data:ro",
                                   "--",
                                   "/bin/sh",
                                   "-c",
                                   "test -e /etc/debian_version && echo outside > " + sandbox_ +
                                       "/where && exec " + helper_ + " --chroot=" + rootfs_ +
                                       " -- /bin/sh -c 'cat /etc/os-release /data/given > "
                                       "\"$MESOS_SANDBOX/seen\"; pwd >> \"$MESOS_SANDBOX/seen\"'"};
  if (!fs::exists("/etc/debian_version")) GTEST_SKIP() << "the host is not Debian";
  ChildResult result = runChild(args, 60s);
  ASSERT_TRUE(result.exitedWith(0)) << result.describe();
  EXPECT_EQ(slurp(sandbox_ + "/where"), "outside\n");
  EXPECT_EQ(slurp(sandbox_ + "/seen"), "ID=mesos-test-image\nfrom the host\n/mnt/mesos/sandbox\n");
}

// The image's user is the image's: looked up in its own /etc/passwd.
TEST_F(RootfsTest, TheImagesUserIsLookedUpInTheImage) {
  std::ofstream(rootfs_ + "/etc/passwd") << "root:x:0:0::/root:/bin/sh\n"
                                         << "app:x:4321:4322:App:/home/app:/bin/sh\n";
  std::ofstream(rootfs_ + "/etc/group") << "root:x:0:\nstaff:x:50:\n";
  ChildResult named = run({"--rootfs=" + rootfs_, "--sandbox=" + sandbox_, "--image_user=app"},
                          "echo $(id -u):$(id -g):$HOME:$USER");
  ASSERT_TRUE(named.exitedWith(0)) << named.describe();
  EXPECT_EQ(named.out, "4321:4322:/home/app:app\n");
  ChildResult withGroup =
      run({"--rootfs=" + rootfs_, "--image_user=app:staff"}, "echo $(id -u):$(id -g)");
  ASSERT_TRUE(withGroup.exitedWith(0)) << withGroup.describe();
  EXPECT_EQ(withGroup.out, "4321:50\n");
  ChildResult numbers =
      run({"--rootfs=" + rootfs_, "--image_user=777:778"}, "echo $(id -u):$(id -g)");
  ASSERT_TRUE(numbers.exitedWith(0)) << numbers.describe();
  EXPECT_EQ(numbers.out, "777:778\n");
  ChildResult unknown = run({"--rootfs=" + rootfs_, "--image_user=ghost"}, "true");
  EXPECT_TRUE(unknown.exitedWith(127)) << unknown.describe();
  EXPECT_NE(unknown.err.find("no user 'ghost' in the image's /etc/passwd"), std::string::npos)
      << unknown.err;
  ChildResult both = run({"--rootfs=" + rootfs_, "--image_user=app", "--user=root"}, "true");
  EXPECT_TRUE(both.exitedWith(127)) << both.describe();
}

// An image's symlink must not lead a mount onto the host's tree: the
// helper has not entered the root filesystem when it makes mount points.
TEST_F(RootfsTest, ASymlinkInTheImageCannotLeadAMountOntoTheHost) {
  const std::string outside = dir_ + "/outside";
  fs::create_directories(outside);
  fs::create_directory_symlink(outside, rootfs_ + "/mnt");
  ChildResult result = run({"--rootfs=" + rootfs_, "--sandbox=" + sandbox_}, "true");
  EXPECT_TRUE(result.exitedWith(127)) << result.describe();
  EXPECT_NE(result.err.find("symlink"), std::string::npos) << result.err;
  EXPECT_TRUE(fs::is_empty(outside)) << "a mount point was made outside the root filesystem";

  fs::remove(rootfs_ + "/mnt");
  fs::create_directory_symlink(outside, rootfs_ + "/data");
  result = run({"--rootfs=" + rootfs_, "--volume=" + volume_ + ":/data/v"}, "true");
  EXPECT_TRUE(result.exitedWith(127)) << result.describe();
  EXPECT_TRUE(fs::is_empty(outside));
}

TEST_F(RootfsTest, AMissingRootFilesystemOrBadVolumeIsOneLine) {
  ChildResult result = run({"--rootfs=" + dir_ + "/nosuch"}, "true");
  EXPECT_TRUE(result.exitedWith(127)) << result.describe();
  EXPECT_NE(result.err.find("cannot use root filesystem"), std::string::npos) << result.err;
  result = run({"--rootfs=" + rootfs_, "--volume=/srv:../data"}, "true");
  EXPECT_TRUE(result.exitedWith(127)) << result.describe();
  EXPECT_NE(result.err.find("--volume=/srv:../data"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace mesos::test
