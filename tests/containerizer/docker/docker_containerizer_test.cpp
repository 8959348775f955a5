// The Docker containerizer end to end: a dockerd the suite starts itself (on
// a unix socket in a scratch directory, with no bridge and no iptables
// rules), an image imported from busybox-static, and mesos-master and
// mesos-slave processes, the slave with --containerizers=docker,mesos.
// Tasks come from mesos-execute --containerizer=docker or from a scheduler
// driver in this process; every container uses the host's network
// (loopback only). Real processes: waits have real-time bounds.
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "containerizer/provisioner/image_helpers.hpp"
#include "process/runtime.hpp"
#include "support/cluster.hpp"
#include "support/daemon.hpp"
#include "support/subprocess.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace images = mesos::internal::slave::provisioner::testing;

constexpr char kImage[] = "mesos-test/busybox:1";

// The path of `program` in PATH ("" when absent).
std::string which(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = dir + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// A dockerd of the test's own: its data, state and socket in a scratch
// directory. Stopped (its containers removed first) and its directory
// removed when destroyed.
class Dockerd {
 public:
  Dockerd() {
    char dir[] = "/tmp/mesos-dockerd-XXXXXX";
    if (::mkdtemp(dir) == nullptr) {
      error_ = "cannot make a scratch directory";
      return;
    }
    dir_ = dir;
    const std::string dockerd = which("dockerd");
    if (dockerd.empty() || which("docker").empty()) {
      error_ = "needs dockerd and docker (Debian's docker.io; scripts/install-deps.sh)";
      return;
    }
    for (const char* driver : {"overlay2", "vfs"}) {
      if (start(dockerd, driver)) {
        driver_ = driver;
        error_.clear();
        return;
      }
    }
  }

  ~Dockerd() {
    if (pid_ > 0) {
      images::Ran ids = docker({"ps", "-aq"});
      std::stringstream lines(ids.out);
      std::string id;
      while (std::getline(lines, id)) {
        if (!id.empty()) docker({"rm", "-f", "-v", id});
      }
      stopDaemon();
    }
    if (!dir_.empty()) {
      images::unmountBelow(dir_);
      std::error_code ignored;
      fs::remove_all(dir_, ignored);
    }
  }

  const std::string& error() const { return error_; }
  std::string socket() const { return dir_ + "/sock"; }
  const std::string& driver() const { return driver_; }

  // `docker -H unix://SOCKET args...`, run to its end.
  images::Ran docker(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {"docker", "-H", "unix://" + socket()};
    argv.insert(argv.end(), args.begin(), args.end());
    return images::run(argv, dir_);
  }

  // The container `name` as `docker inspect` shows it (Null when absent).
  json::Value inspect(const std::string& name) const {
    images::Ran ran = docker({"container", "inspect", "--", name});
    if (ran.status != 0) return json::Value();
    auto parsed = json::parse(ran.out);
    if (!parsed || !parsed->isArray() || parsed->array().empty()) return json::Value();
    return parsed->array().at(0);
  }

  bool exists(const std::string& name) const { return !inspect(name).isNull(); }

 private:
  bool start(const std::string& dockerd, const std::string& driver) {
    std::error_code ignored;
    fs::remove_all(dir_ + "/data", ignored);
    pid_ = startDaemon({dockerd, "--data-root=" + dir_ + "/data", "--exec-root=" + dir_ + "/exec",
                        "--pidfile=" + dir_ + "/pid", "-H", "unix://" + socket(),
                        "--bridge=none", "--iptables=false", "--ip6tables=false",
                        "--ip-masq=false", "--storage-driver=" + driver},
                       dir_ + "/dockerd-" + driver + ".log");
    if (pid_ <= 0) {
      error_ = "cannot start dockerd";
      return false;
    }
    int exited = 0;
    bool up = waitUntil([&] { return docker({"info"}).status == 0; }, 60s, pid_, &exited);
    if (up) return true;
    error_ = "dockerd (--storage-driver=" + driver + ") did not come up within 60 s: " +
             lastLine(readFile(dir_ + "/dockerd-" + driver + ".log"));
    stopDaemon();
    return false;
  }

  void stopDaemon() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    waitForExit(pid_, 30s);
    pid_ = -1;
  }

  static std::string lastLine(std::string text) {
    while (!text.empty() && text.back() == '\n') text.pop_back();
    size_t start = text.rfind('\n');
    return start == std::string::npos ? text : text.substr(start + 1);
  }

  std::string dir_;
  std::string error_;
  std::string driver_;
  pid_t pid_ = -1;
};

class DockerContainerizerTest : public DaemonsFixture {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) {
      skip_ = "dockerd needs root";
      return;
    }
    const std::string busybox = which("busybox");
    if (busybox.empty()) {
      skip_ = "needs busybox (busybox-static; scripts/install-deps.sh)";
      return;
    }
    dockerd_ = new Dockerd();
    if (!dockerd_->error().empty()) {
      skip_ = dockerd_->error();
      return;
    }
    // The image: busybox and a few of its applets, imported as one layer.
    images::ScratchDir scratch;
    const std::string root = scratch.path() + "/root";
    fs::create_directories(root + "/bin");
    fs::copy_file(busybox, root + "/bin/busybox");
    for (const char* applet : {"sh", "cat", "echo", "sleep", "ls", "true", "false", "test", "["}) {
      fs::create_symlink("busybox", root + "/bin/" + applet);
    }
    images::Ran tar = images::run({"tar", "-C", root, "-cf", scratch.path() + "/image.tar", "."},
                                  scratch.path());
    if (tar.status != 0) {
      setupError_ = "tar: " + tar.err;
      return;
    }
    images::Ran imported = dockerd_->docker({"import", scratch.path() + "/image.tar", kImage});
    if (imported.status != 0) setupError_ = "docker import: " + imported.err;
  }

  static void TearDownTestSuite() {
    delete dockerd_;
    dockerd_ = nullptr;
  }

  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_EQ("", setupError_);
    DaemonsFixture::SetUp();
    if (IsSkipped()) return;
    master_ = startMaster({"--allocation_interval=100ms"});
  }

  void TearDown() override {
    if (HasFailure() && !dir_.empty()) {
      ADD_FAILURE() << "updates:\n" << updates() << "slave log:\n" << readFile(dir_ + "/slave.log");
    }
    if (driver_) {
      driver_->stop();
      driver_->join();
      driver_.reset();
    }
    DaemonsFixture::TearDown();
    // The next test starts without this one's containers.
    if (dockerd_ != nullptr && dockerd_->error().empty()) {
      images::Ran ids = dockerd_->docker({"ps", "-aq"});
      std::stringstream lines(ids.out);
      std::string id;
      while (std::getline(lines, id)) {
        if (!id.empty()) dockerd_->docker({"rm", "-f", "-v", id});
      }
    }
  }

  pid_t startSlaveWith(std::vector<std::string> extra = {},
                       const std::string& containerizers = "docker,mesos", uint16_t port = 0) {
    std::vector<std::string> flags = {"--resources=cpus:2;mem:512;disk:512",
                                      "--containerizers=" + containerizers,
                                      "--docker_socket=" + dockerd_->socket()};
    flags.insert(flags.end(), extra.begin(), extra.end());
    pid_t pid = startSlave(master_, "slave", flags, port);
    EXPECT_GT(pid, 0);
    EXPECT_TRUE(waitUntil([&] { return metric(master_, "master/slaves_active") == 1; }, 30s))
        << "the slave did not register within 30 s";
    return pid;
  }

  ChildResult execute(const std::string& name, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {MESOS_EXECUTE_PATH, "--master=" + master_.toString(),
                                     "--name=" + name, "--resources=cpus:0.1;mem:32",
                                     "--containerizer=docker"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runChild(args, 120s);
  }

  // The run directory (sandbox) of executor `name`'s latest run, "" if none.
  std::string sandbox(const std::string& name) const {
    std::error_code error;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ + "/slave/slaves", error)) {
      const fs::path path = entry.path();
      if (path.parent_path().filename() == "runs" &&
          path.parent_path().parent_path().filename() == name && path.filename() != "latest") {
        return path.string();
      }
    }
    return "";
  }

  // The container id of executor `name`'s run (its sandbox's name).
  std::string containerId(const std::string& name) const {
    return fs::path(sandbox(name)).filename().string();
  }

  void startFramework(bool checkpoint = false) {
    runtime_ = std::move(process::Runtime::create({})).value();
    scheduler_.onOffers = [](SchedulerDriver*, const std::vector<Offer>&) {};
    FrameworkInfo info;
    info.set_user("");
    info.set_checkpoint(checkpoint);
    info.set_name("docker containerizer test");
    driver_ = std::make_unique<MesosSchedulerDriver>(&scheduler_, info, master_.toString(), true,
                                                     runtime_.get());
    ASSERT_EQ(DRIVER_RUNNING, driver_->start());
  }

  // Launches `command` as task `id` in a DOCKER container of kImage;
  // `edit` may change the task first.
  void launchDockerTask(const std::string& id, const std::string& command,
                        const std::string& resources,
                        const std::function<void(TaskInfo*)>& edit = nullptr) {
    auto offers = scheduler_.awaitKind("offers", 60s);
    ASSERT_TRUE(offers && !offers->offers.empty()) << "no offer within 60 s";
    const Offer& offer = offers->offers.front();
    TaskInfo task = commandTask(offer, id, command, resources);
    task.mutable_container()->set_type(ContainerInfo::DOCKER);
    task.mutable_container()->mutable_docker()->set_image(kImage);
    if (edit) edit(&task);
    driver_->launchTasks(offer.id(), {task}, Filters());
  }

  std::string updates() {
    std::string text;
    scheduler_.await(
        [&](const RecordingScheduler::Event& e) {
          if (e.kind == "status") {
            text += e.status.task_id().value() + " " + TaskState_Name(e.status.state()) + ": " +
                    e.status.message() + "\n";
          }
          return false;
        },
        0ms);
    return text;
  }

  static Dockerd* dockerd_;
  static std::string skip_;
  static std::string setupError_;

  process::Address master_;
  RecordingScheduler scheduler_;
  std::unique_ptr<process::Runtime> runtime_;
  std::unique_ptr<MesosSchedulerDriver> driver_;
};

Dockerd* DockerContainerizerTest::dockerd_ = nullptr;
std::string DockerContainerizerTest::skip_;
std::string DockerContainerizerTest::setupError_;

TEST_F(DockerContainerizerTest, ATaskRunsInItsImageAndWritesToTheSandboxAsMesosContainerId) {
  ASSERT_GT(startSlaveWith(), 0);
  // Each check is a condition of the task's success: the image's busybox,
  // none of the host's files, the sandbox at MESOS_SANDBOX.
  ChildResult run = execute(
      "inside", {"--docker_image=" + std::string(kImage),
                 "--command=[ -x /bin/busybox ] && [ ! -e /etc/debian_version ] && "
                 "[ \"$MESOS_SANDBOX\" = /mnt/mesos/sandbox ] && [ -f \"$MESOS_SANDBOX/stdout\" ] "
                 "&& echo seen-inside && echo to-stderr >&2"});
  EXPECT_TRUE(run.exitedWith(0)) << run.describe() << readFile(dir_ + "/slave.log");
  EXPECT_NE(run.out.find("TASK_FINISHED"), std::string::npos) << run.describe();
  const std::string directory = sandbox("inside");
  ASSERT_NE("", directory);
  EXPECT_NE(readFile(directory + "/stdout").find("seen-inside"), std::string::npos)
      << readFile(directory + "/stderr");
  EXPECT_NE(readFile(directory + "/stderr").find("to-stderr"), std::string::npos);
  // Named after the container id, and kept (--docker_remove_delay: 6 hours).
  json::Value container = dockerd_->inspect("mesos-" + containerId("inside"));
  ASSERT_FALSE(container.isNull()) << dockerd_->docker({"ps", "-a"}).out;
  EXPECT_FALSE(container["State"]["Running"].boolean());
  EXPECT_EQ(0, container["State"]["ExitCode"].integer());
}

TEST_F(DockerContainerizerTest, ANonZeroExitFailsTheTaskWithTheStatus) {
  ASSERT_GT(startSlaveWith(), 0);
  ChildResult run =
      execute("exits", {"--docker_image=" + std::string(kImage), "--command=exit 3"});
  // mesos-execute exits with the command's status, read from the update.
  EXPECT_TRUE(run.exitedWith(3)) << run.describe();
  EXPECT_NE(run.out.find("TASK_FAILED"), std::string::npos) << run.describe();
  EXPECT_NE(run.out.find("exited with status 3"), std::string::npos) << run.describe();
}

TEST_F(DockerContainerizerTest, AMissingImageFailsTheTaskWithDockersReason) {
  ASSERT_GT(startSlaveWith(), 0);
  ChildResult run =
      execute("missing", {"--docker_image=mesos-test/nothing:1", "--command=true"});
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.out.find("TASK_FAILED"), std::string::npos) << run.describe();
  EXPECT_NE(run.out.find("Failed to pull image 'mesos-test/nothing:1'"), std::string::npos)
      << run.describe();
  EXPECT_NE(run.out.find("Error"), std::string::npos) << run.describe();  // docker's own words
}

TEST_F(DockerContainerizerTest, ASlaveWithoutDockerFailsADockerTaskNamingTheFlag) {
  ASSERT_GT(startSlaveWith({}, "mesos"), 0);
  ChildResult run = execute("nodocker", {"--docker_image=" + std::string(kImage), "--command=true"});
  EXPECT_TRUE(run.exitedWith(1)) << run.describe();
  EXPECT_NE(run.out.find("TASK_FAILED"), std::string::npos) << run.describe();
  EXPECT_NE(run.out.find("--containerizers=mesos"), std::string::npos) << run.describe();
  EXPECT_EQ("", sandbox("nodocker"));  // nothing was launched
}

TEST_F(DockerContainerizerTest, AKilledTaskIsKilledItsContainerStoppedAndItsLimitsAreDockers) {
  ASSERT_GT(startSlaveWith({"--docker_stop_timeout=1secs"}), 0);
  startFramework();
  launchDockerTask("sleeper", "sleep 1000", "cpus:0.5;mem:64");
  auto running = scheduler_.awaitStatus("sleeper", TASK_RUNNING, 60s);
  ASSERT_TRUE(running) << updates();
  const std::string name = "mesos-" + containerId("sleeper");
  json::Value container = dockerd_->inspect(name);
  ASSERT_FALSE(container.isNull()) << name;
  EXPECT_TRUE(container["State"]["Running"].boolean());
  EXPECT_EQ(64 * 1024 * 1024, container["HostConfig"]["Memory"].integer());
  EXPECT_EQ(512, container["HostConfig"]["CpuShares"].integer());
  EXPECT_EQ("host", container["HostConfig"]["NetworkMode"].string());

  driver_->killTask([] {
    TaskID id;
    id.set_value("sleeper");
    return id;
  }());
  auto killed = scheduler_.awaitStatus("sleeper", TASK_KILLED, 60s);
  ASSERT_TRUE(killed) << updates();
  container = dockerd_->inspect(name);
  ASSERT_FALSE(container.isNull());
  EXPECT_FALSE(container["State"]["Running"].boolean());
}

// A checkpointing framework's task: its executor and container run on while
// the slave is down; the restarted slave takes the executor over, its
// orphan sweep keeps the container (and removes a real orphan), and a kill
// still reaches the container.
TEST_F(DockerContainerizerTest, ARunningTaskOutlivesASlaveRestartAndItsContainerIsKept) {
  const uint16_t port = freePort();
  pid_t slave = startSlaveWith({}, "docker,mesos", port);
  ASSERT_GT(slave, 0);
  startFramework(/*checkpoint=*/true);
  launchDockerTask("survivor", "sleep 1000", "cpus:0.1;mem:32");
  ASSERT_TRUE(scheduler_.awaitStatus("survivor", TASK_RUNNING, 60s)) << updates();
  const std::string name = "mesos-" + containerId("survivor");
  ASSERT_TRUE(dockerd_->exists(name));

  ASSERT_EQ(0, ::kill(slave, SIGKILL));
  ASSERT_EQ(128 + SIGKILL, waitForExit(slave, 30s));
  reaped(slave);
  ASSERT_EQ(0, dockerd_->docker({"create", "--name=mesos-orphan-3", "--net=host", kImage, "true"})
                   .status);
  slave = startSlave(master_, "slave",
                     {"--resources=cpus:2;mem:512;disk:512", "--containerizers=docker,mesos",
                      "--docker_socket=" + dockerd_->socket()},
                     port);
  ASSERT_GT(slave, 0);
  // The sweep has run once the orphan is gone.
  ASSERT_TRUE(waitUntil([&] { return !dockerd_->exists("mesos-orphan-3"); }, 30s, slave))
      << readFile(dir_ + "/slave.log");
  json::Value container = dockerd_->inspect(name);
  ASSERT_FALSE(container.isNull()) << "the recovered task's container was removed";
  EXPECT_TRUE(container["State"]["Running"].boolean());
  EXPECT_TRUE(waitUntil(
      [&] { return readFile(dir_ + "/slave.log").find("Re-registered with master") !=
                   std::string::npos; },
      60s, slave));

  TaskID id;
  id.set_value("survivor");
  driver_->killTask(id);
  ASSERT_TRUE(scheduler_.awaitStatus("survivor", TASK_KILLED, 60s)) << updates();
  EXPECT_FALSE(dockerd_->inspect(name)["State"]["Running"].boolean());
}

TEST_F(DockerContainerizerTest, VolumesParametersAndVariablesReachTheContainer) {
  ASSERT_GT(startSlaveWith(), 0);
  const std::string shared = dir_ + "/shared";
  fs::create_directories(shared);
  images::writeText(shared + "/given", "from-the-host\n");
  startFramework();
  // Each check is a condition of the task's success.
  launchDockerTask(
      "mounts",
      "[ \"$(cat /given/given)\" = from-the-host ] && ! echo x > /given/written && "
      "echo made > /cache/file && [ \"$GREETING\" = 'a b=c' ]",
      "cpus:0.1;mem:32", [&](TaskInfo* task) {
        ContainerInfo* container = task->mutable_container();
        Volume* given = container->add_volumes();
        given->set_container_path("/given");
        given->set_host_path(shared);
        given->set_mode(Volume::RO);
        Volume* cache = container->add_volumes();
        cache->set_container_path("/cache");
        cache->set_host_path("cache");  // below the sandbox
        cache->set_mode(Volume::RW);
        Parameter* label = container->mutable_docker()->add_parameters();
        label->set_key("label");
        label->set_value("team=mesos");
        auto* variable = task->mutable_command()->mutable_environment()->add_variables();
        variable->set_name("GREETING");
        variable->set_value("a b=c");
      });
  ASSERT_TRUE(scheduler_.awaitStatus("mounts", TASK_FINISHED, 60s))
      << updates() << readFile(sandbox("mounts") + "/stderr");
  EXPECT_EQ("made\n", readFile(sandbox("mounts") + "/cache/file"));
  EXPECT_FALSE(fs::exists(shared + "/written"));
  json::Value container = dockerd_->inspect("mesos-" + containerId("mounts"));
  ASSERT_FALSE(container.isNull());
  EXPECT_EQ("mesos", container["Config"]["Labels"]["team"].string());
}

TEST_F(DockerContainerizerTest, AStoppedContainerIsRemovedAfterTheRemoveDelay) {
  ASSERT_GT(startSlaveWith({"--docker_remove_delay=1secs"}), 0);
  ChildResult run = execute("removed", {"--docker_image=" + std::string(kImage), "--command=true"});
  ASSERT_TRUE(run.exitedWith(0)) << run.describe() << readFile(dir_ + "/slave.log");
  const std::string name = "mesos-" + containerId("removed");
  EXPECT_TRUE(waitUntil([&] { return !dockerd_->exists(name); }, 30s))
      << name << " was not removed: " << dockerd_->docker({"ps", "-a"}).out;
}

TEST_F(DockerContainerizerTest, AnOrphanContainerIsRemovedAtStartUpButOthersAreNot) {
  // Left by an earlier run: named as the slave names its containers.
  ASSERT_EQ(0, dockerd_->docker({"create", "--name=mesos-orphan-1", "--net=host", kImage, "true"})
                   .status);
  ASSERT_EQ(0, dockerd_->docker({"create", "--name=someone-elses", "--net=host", kImage, "true"})
                   .status);
  ASSERT_TRUE(dockerd_->exists("mesos-orphan-1"));
  ASSERT_GT(startSlaveWith(), 0);
  EXPECT_TRUE(waitUntil([&] { return !dockerd_->exists("mesos-orphan-1"); }, 30s))
      << dockerd_->docker({"ps", "-a"}).out;
  EXPECT_TRUE(dockerd_->exists("someone-elses"));
}

TEST_F(DockerContainerizerTest, WithoutKillOrphansTheOrphanStays) {
  ASSERT_EQ(0, dockerd_->docker({"create", "--name=mesos-orphan-2", "--net=host", kImage, "true"})
                   .status);
  ASSERT_GT(startSlaveWith({"--docker_kill_orphans=false"}), 0);
  // A task run to its end: the slave had time to sweep, had it meant to.
  ChildResult run = execute("after", {"--docker_image=" + std::string(kImage), "--command=true"});
  ASSERT_TRUE(run.exitedWith(0)) << run.describe();
  EXPECT_TRUE(dockerd_->exists("mesos-orphan-2"));
}

}  // namespace
}  // namespace mesos::test
