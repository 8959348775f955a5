// LXC isolation end to end: mesos-master and mesos-slave processes, the
// slave with --isolation=lxc, and mesos-execute. A command task finishes
// (its executor, inside the container, reached the slave over TCP) and
// printed that it ran in the container; a task past its memory limit fails
// with the memory reason; nothing of either container is left.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "slave/containerizer/isolators/cgroups/cgroups.hpp"
#include "slave/containerizer/isolators/lxc/lxc_isolator.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace cgroups = mesos::internal::cgroups;
namespace fs = std::filesystem;

bool onPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

class LxcTest : public DaemonsFixture {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to run LXC containers";
    if (!onPath("lxc-execute")) GTEST_SKIP() << "lxc-execute is not on PATH (Debian package lxc)";
    auto layout = cgroups::Layout::detect();
    if (!layout) GTEST_SKIP() << "no cgroups: " << layout.error().message;
    for (const char* controller : {"cpu", "memory"}) {
      if (!layout->has(controller)) GTEST_SKIP() << "no cgroup " << controller << " controller";
    }
    auto bases = internal::isolation::lxcCgroupBases(cgroups::kDefaultHierarchy);
    ASSERT_TRUE(bases.ok()) << bases.error().message;
    bases_ = *bases;
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    root_ = "mesos_lxc_it_" + std::to_string(::getpid());
    lxcPath_ = std::string(internal::isolation::kDefaultLxcPath) + "/" + root_;
    master_ = startMaster({"--allocation_interval=100ms"});
    startSlave(master_, "slave",
               {"--resources=cpus:2;mem:512;disk:512", "--isolation=lxc",
                "--cgroups_root=" + root_});
    bool registered = waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s);
    ASSERT_TRUE(registered) << "the slave did not register within 30 s: "
                            << readFile(dir_ + "/slave.log");
  }

  void TearDown() override {
    DaemonsFixture::TearDown();
    if (root_.empty()) return;
    for (const std::string& base : bases_) ::rmdir((base + "/" + root_).c_str());
    std::error_code ec;
    fs::remove_all(lxcPath_, ec);
    fs::remove_all("/run/lxc/lock" + lxcPath_, ec);
    // Their parents, when no one else's containers are there.
    for (fs::path dir = fs::path(lxcPath_).parent_path(); dir != "/"; dir = dir.parent_path()) {
      ::rmdir(dir.c_str());
      ::rmdir(("/run/lxc/lock" + dir.string()).c_str());
    }
  }

  // What is left of containers: cgroups under the root in any hierarchy,
  // configs in the lxcpath. Empty when nothing.
  std::string leftovers() {
    std::string left;
    std::error_code ec;
    for (const std::string& base : bases_) {
      for (fs::directory_iterator it(base + "/" + root_, ec), end; !ec && it != end;
           it.increment(ec)) {
        if (it->is_directory()) left += it->path().string() + " ";
      }
    }
    for (fs::directory_iterator it(lxcPath_, ec), end; !ec && it != end; it.increment(ec)) {
      left += it->path().string() + " ";
    }
    return left;
  }

  // Every stdout a task wrote in the slave's sandboxes.
  std::string taskOutput() {
    std::string printed;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ + "/slave")) {
      if (entry.path().filename() == "stdout") printed += readFile(entry.path().string());
    }
    return printed;
  }

  std::vector<std::string> bases_;
  std::string root_;
  std::string lxcPath_;
  process::Address master_;
};

TEST_F(LxcTest, ATaskRunsInsideAnLxcContainerAndFinishes) {
  ChildResult run = runChild(
      {MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--name=inside",
       "--command=echo \"container=$container pidns=$(readlink /proc/self/ns/pid) "
       "cgroupns=$(readlink /proc/self/ns/cgroup)\"; test \"$container\" = lxc",
       "--resources=cpus:0.1;mem:32"},
      90s);
  EXPECT_TRUE(run.exitedWith(0)) << run.describe() << readFile(dir_ + "/slave.log");
  EXPECT_NE(run.out.find("TASK_FINISHED"), std::string::npos) << run.describe();

  std::string printed = taskOutput();
  EXPECT_NE(printed.find("container=lxc "), std::string::npos) << printed;
  // Namespaces of its own: not the test's (the slave's) PID and cgroup ones.
  EXPECT_NE(printed.find("pidns=pid:["), std::string::npos) << printed;
  EXPECT_EQ(printed.find("pidns=" + fs::read_symlink("/proc/self/ns/pid").string()),
            std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("cgroupns=" + fs::read_symlink("/proc/self/ns/cgroup").string()),
            std::string::npos)
      << printed;

  bool clean = waitUntil([&] { return leftovers().empty(); }, 30s);
  EXPECT_TRUE(clean) << "left: " << leftovers();
}

TEST_F(LxcTest, ATaskPastItsMemoryLimitFailsWithTheMemoryReason) {
  ChildResult run = runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                              "--name=hog", "--command=tail /dev/zero",
                              "--resources=cpus:0.1;mem:48"},
                             90s);
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.out.find("Received status update TASK_FAILED for task hog: Memory limit exceeded"),
            std::string::npos)
      << run.describe();
  EXPECT_NE(run.out.find("reason: REASON_CONTAINER_LIMITATION_MEMORY"), std::string::npos)
      << run.describe();

  bool clean = waitUntil([&] { return leftovers().empty(); }, 30s);
  EXPECT_TRUE(clean) << "left: " << leftovers();
}

}  // namespace
}  // namespace mesos::test
