// The Docker containerizer end to end: a dockerd the suite starts itself (on
// a unix socket in a scratch directory, with no bridge and no iptables
// rules), an image imported from busybox-static, and mesos-master and
// mesos-slave processes, the slave with --containerizers=docker,mesos.
// Tasks come from mesos-execute --containerizer=docker or from a scheduler
// driver in this process; their containers use the host's network
// (loopback only), but for the BRIDGE test's, whose dockerd runs in a
// network namespace of the test's own. Images to pull come from a
// docker-registry on loopback. Real processes: waits have real-time bounds.
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "containerizer/provisioner/image_helpers.hpp"
#include "mesos/resources.hpp"
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

// Every `program` in PATH, in PATH's order.
std::vector<std::string> everyInPath(const std::string& program) {
  std::vector<std::string> found;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = dir + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) found.push_back(candidate);
  }
  return found;
}

// The path of `program` in PATH ("" when absent).
std::string which(const std::string& program) {
  std::vector<std::string> found = everyInPath(program);
  return found.empty() ? "" : found.front();
}

// "Docker version 20.10.24+dfsg1" of `program --version`'s
// "Docker version 20.10.24+dfsg1, build 297e128" ("" when it does not run).
std::string versionOf(const std::string& program) {
  images::ScratchDir scratch;
  images::Ran ran = images::run({program, "--version"}, scratch.path());
  if (ran.status != 0) return "";
  return ran.out.substr(0, ran.out.find(','));
}

// The docker program of dockerd's own release (Debian's docker.io ships
// both): another docker earlier in PATH may speak a newer API than this
// daemon. "" when none matches.
std::string dockerProgramFor(const std::string& dockerd) {
  const std::string version = versionOf(dockerd);
  if (version.empty()) return "";
  for (const std::string& docker : everyInPath("docker")) {
    if (versionOf(docker) == version) return docker;
  }
  return "";
}

// A network namespace of the test's own (`ip netns add`), its loopback up;
// deleted, with what is left in it, when destroyed.
class NetworkNamespace {
 public:
  explicit NetworkNamespace(std::string name) : name_(std::move(name)) {
    if (which("ip").empty() || which("nsenter").empty()) {
      error_ = "needs ip (iproute2) and nsenter (util-linux)";
      return;
    }
    images::ScratchDir scratch;
    images::Ran added = images::run({"ip", "netns", "add", name_}, scratch.path());
    if (added.status != 0) {
      error_ = "ip netns add " + name_ + ": " + added.err;
      return;
    }
    added_ = true;
    images::Ran up = images::run({"ip", "netns", "exec", name_, "ip", "link", "set", "lo", "up"},
                                 scratch.path());
    if (up.status != 0) error_ = "cannot bring up lo in " + name_ + ": " + up.err;
  }

  ~NetworkNamespace() {
    if (!added_) return;
    images::ScratchDir scratch;
    images::run({"ip", "netns", "delete", name_}, scratch.path());
  }

  const std::string& name() const { return name_; }
  const std::string& error() const { return error_; }
  std::string path() const { return "/run/netns/" + name_; }

 private:
  std::string name_;
  std::string error_;
  bool added_ = false;
};

// A dockerd of the test's own: its data, state and socket in a scratch
// directory; with `netns`, it runs in that network namespace (nsenter) with
// Docker's default bridge there, else in the host's with no bridge.
// Stopped (its containers removed first) and its directory removed when
// destroyed.
class Dockerd {
 public:
  explicit Dockerd(const NetworkNamespace* netns = nullptr) : netns_(netns) {
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
    program_ = dockerProgramFor(dockerd);
    if (program_.empty()) {
      error_ = "no docker program in PATH is of " + dockerd + "'s release (" + versionOf(dockerd) +
               "; Debian's docker.io ships both)";
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
  // The docker program of this daemon's release (the slave's --docker).
  const std::string& program() const { return program_; }
  const std::string& log() const { return log_; }

  // `docker -H unix://SOCKET args...`, run to its end.
  images::Ran docker(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {program_, "-H", "unix://" + socket()};
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
    // In a network namespace, only the namespace's address changes: the
    // mounts (its data, the cgroups) are the host's. No iptables rules
    // anywhere: a port mapping is Docker's userland proxy.
    std::vector<std::string> argv;
    if (netns_ != nullptr) argv = {which("nsenter"), "--net=" + netns_->path()};
    argv.insert(argv.end(),
                {dockerd, "--data-root=" + dir_ + "/data", "--exec-root=" + dir_ + "/exec",
                 "--pidfile=" + dir_ + "/pid", "-H", "unix://" + socket(), "--iptables=false",
                 "--ip6tables=false", "--ip-masq=false", "--storage-driver=" + driver});
    if (netns_ == nullptr) argv.push_back("--bridge=none");
    log_ = dir_ + "/dockerd-" + driver + ".log";
    pid_ = startDaemon(argv, log_);
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

  const NetworkNamespace* netns_;
  std::string dir_;
  std::string error_;
  std::string driver_;
  std::string program_;
  std::string log_;
  pid_t pid_ = -1;
};

// Imports, as `tag` into `dockerd`, one layer of busybox (`busybox`), links
// to a few of its applets, and `files` (path below / to contents). "" or
// what failed.
std::string importBusybox(const Dockerd& dockerd, const std::string& busybox,
                          const std::string& tag,
                          const std::vector<std::pair<std::string, std::string>>& files = {}) {
  images::ScratchDir scratch;
  const std::string root = scratch.path() + "/root";
  fs::create_directories(root + "/bin");
  fs::copy_file(busybox, root + "/bin/busybox");
  for (const char* applet :
       {"sh", "cat", "echo", "sleep", "ls", "true", "false", "test", "[", "mkdir", "httpd"}) {
    fs::create_symlink("busybox", root + "/bin/" + applet);
  }
  for (const auto& [path, contents] : files) images::writeText(root + "/" + path, contents);
  images::Ran tar =
      images::run({"tar", "-C", root, "-cf", scratch.path() + "/image.tar", "."}, scratch.path());
  if (tar.status != 0) return "tar: " + tar.err;
  images::Ran imported = dockerd.docker({"import", scratch.path() + "/image.tar", tag});
  if (imported.status != 0) return "docker import: " + imported.err;
  return "";
}

// Imports, as `tag`, busybox (as importBusybox() does) and the program
// `program` with the shared libraries `ldd` says it loads, each at its path
// on this host, so that it runs in the image as it does here. "" or what
// failed. `libraryPath` gets the directories of those libraries.
std::string importProgram(const Dockerd& dockerd, const std::string& busybox,
                          const std::string& program, const std::string& tag,
                          std::string* libraryPath) {
  images::ScratchDir scratch;
  images::Ran ldd = images::run({"ldd", program}, scratch.path());
  if (ldd.status != 0) return "ldd " + program + ": " + ldd.err;
  std::vector<std::string> files = {program};
  std::stringstream lines(ldd.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::stringstream words(line);
    std::string word;
    while (words >> word) {
      if (!word.empty() && word[0] == '/') files.push_back(word);
    }
  }
  const std::string root = scratch.path() + "/root";
  std::set<std::string> directories;
  for (const std::string& file : files) {
    const fs::path path = fs::path(file).lexically_normal();
    const fs::path target = fs::path(root) / path.relative_path();
    std::error_code error;
    fs::create_directories(target.parent_path(), error);
    // The file's contents, whatever links lead to it.
    if (!fs::copy_file(file, target, fs::copy_options::overwrite_existing, error)) {
      return "cannot copy " + file + ": " + error.message();
    }
    if (file != program) directories.insert(path.parent_path().string());
  }
  fs::create_directories(root + "/bin");
  fs::create_directories(root + "/tmp");
  fs::copy_file(busybox, root + "/bin/busybox");
  for (const char* applet : {"sh", "cat", "echo", "sleep", "true", "test", "["}) {
    fs::create_symlink("busybox", root + "/bin/" + applet);
  }
  libraryPath->clear();
  for (const std::string& directory : directories) {
    *libraryPath += (libraryPath->empty() ? "" : ":") + directory;
  }
  images::Ran tar =
      images::run({"tar", "-C", root, "-cf", scratch.path() + "/image.tar", "."}, scratch.path());
  if (tar.status != 0) return "tar: " + tar.err;
  images::Ran imported = dockerd.docker({"import", scratch.path() + "/image.tar", tag});
  if (imported.status != 0) return "docker import: " + imported.err;
  return "";
}

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
    busybox_ = busybox;
    dockerd_ = new Dockerd();
    if (!dockerd_->error().empty()) {
      skip_ = dockerd_->error();
      return;
    }
    setupError_ = importBusybox(*dockerd_, busybox, kImage);
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

  // The slave's flags but --resources (resources_), --containerizers and
  // the daemon's (daemon_, else the suite's).
  std::vector<std::string> slaveFlags(const std::string& containerizers) const {
    const Dockerd* daemon = daemon_ != nullptr ? daemon_ : dockerd_;
    return {"--resources=" + resources_, "--containerizers=" + containerizers,
            "--docker_socket=" + daemon->socket(), "--docker=" + daemon->program()};
  }

  pid_t startSlaveWith(std::vector<std::string> extra = {},
                       const std::string& containerizers = "docker,mesos", uint16_t port = 0) {
    std::vector<std::string> flags = slaveFlags(containerizers);
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

  void startFramework(bool checkpoint = false, const std::string& role = "") {
    runtime_ = std::move(process::Runtime::create({})).value();
    scheduler_.onOffers = [](SchedulerDriver*, const std::vector<Offer>&) {};
    FrameworkInfo info;
    info.set_user("");
    info.set_checkpoint(checkpoint);
    if (!role.empty()) info.set_role(role);
    info.set_name("docker containerizer test");
    driver_ = std::make_unique<MesosSchedulerDriver>(&scheduler_, info, master_.toString(), true,
                                                     runtime_.get());
    ASSERT_EQ(DRIVER_RUNNING, driver_->start());
  }

  // An offer not used yet (60 s), marked used.
  std::optional<Offer> newOffer() {
    auto offers = scheduler_.await(
        [&](const RecordingScheduler::Event& e) {
          return e.kind == "offers" && !e.offers.empty() &&
                 usedOffers_.count(e.offers.front().id().value()) == 0;
        },
        60s);
    if (!offers) return std::nullopt;
    usedOffers_.insert(offers->offers.front().id().value());
    return offers->offers.front();
  }

  // Launches `command` as task `id` in a DOCKER container of kImage on an
  // offer not used yet; `edit` may change the task first.
  void launchDockerTask(const std::string& id, const std::string& command,
                        const std::string& resources,
                        const std::function<void(TaskInfo*)>& edit = nullptr) {
    const std::optional<Offer> offer = newOffer();
    ASSERT_TRUE(offer) << "no new offer within 60 s";
    TaskInfo task = commandTask(*offer, id, command, resources);
    task.mutable_container()->set_type(ContainerInfo::DOCKER);
    task.mutable_container()->mutable_docker()->set_image(kImage);
    if (edit) edit(&task);
    Filters filters;
    filters.set_refuse_seconds(0);  // what is left comes back for the next task
    driver_->launchTasks(offer->id(), {task}, filters);
  }

  // Launches task `id` (cpus:0.1;mem:32) of the custom executor
  // `executorId` (cpus:0.1;mem:32), whose container is DOCKER `image`
  // running the shell command `command`, on an offer not used yet; `edit`
  // may change the task first (offer_ is the offer).
  void launchExecutorTask(const std::string& id, const std::string& executorId,
                          const std::string& image, const std::string& command,
                          const std::function<void(TaskInfo*)>& edit = nullptr) {
    const std::optional<Offer> offer = newOffer();
    if (offer) offer_ = *offer;
    ASSERT_TRUE(offer) << "no new offer within 60 s";
    TaskInfo task = commandTask(*offer, id, "unused", "cpus:0.1;mem:32");
    task.clear_command();
    ExecutorInfo* executor = task.mutable_executor();
    executor->mutable_executor_id()->set_value(executorId);
    *executor->mutable_framework_id() = offer->framework_id();
    executor->mutable_command()->set_value(command);
    auto resources = Resources::parse("cpus:0.1;mem:32");
    *executor->mutable_resources() = resources->proto();
    executor->mutable_container()->set_type(ContainerInfo::DOCKER);
    executor->mutable_container()->mutable_docker()->set_image(image);
    if (edit) edit(&task);
    Filters filters;
    filters.set_refuse_seconds(0);
    driver_->launchTasks(offer->id(), {task}, filters);
  }

  // The image of hello-executor (docs/writing-a-framework.md's example,
  // built against the executor library), imported once; the shell command
  // that runs it there (and first shows what it was given).
  std::string helloImage() {
    if (helloImageError_.empty() && helloCommand_.empty()) {
      std::string libraryPath;
      helloImageError_ = importProgram(*dockerd_, busybox_, MESOS_HELLO_EXECUTOR_PATH,
                                       kHelloImage, &libraryPath);
      helloCommand_ = "echo \"executor in $MESOS_SANDBOX of $MESOS_DIRECTORY\" && "
                      "LD_LIBRARY_PATH=" + libraryPath + " exec " +
                      std::string(MESOS_HELLO_EXECUTOR_PATH);
    }
    return helloImageError_;
  }

  // Reserves 64 MB of the slave's disk for role "eng" and creates
  // persistent volume v1 on it at "data" in the sandbox, through the
  // master's operator endpoints; `volume` gets it as JSON. Skips the test
  // without curl.
  void createVolume(std::string* volume) {
    const std::string curl = "/usr/bin/curl";
    if (::access(curl.c_str(), X_OK) != 0) GTEST_SKIP() << "needs curl (scripts/install-deps.sh)";
    json::Value state = getJson(master_, "/state");
    const std::string slaveId = state["slaves"].array().at(0)["id"].string();
    const std::string disk =
        "{\"name\":\"disk\",\"type\":\"SCALAR\",\"scalar\":{\"value\":64},\"role\":\"eng\","
        "\"reservation\":{\"principal\":\"ops\"}";
    *volume = disk +
              ",\"disk\":{\"persistence\":{\"id\":\"v1\",\"principal\":\"ops\"},"
              "\"volume\":{\"container_path\":\"data\",\"mode\":\"RW\"}}}";
    auto post = [&](const std::string& endpoint, const std::string& field,
                    const std::string& value) {
      return runChild({curl, "-sS", "-w", "%{http_code}", "--data-urlencode", "slaveId=" + slaveId,
                       "--data-urlencode", field + "=[" + value + "]",
                       "http://" + master_.toString() + "/master/" + endpoint},
                      30s);
    };
    ChildResult reserved = post("reserve", "resources", disk + "}");
    ASSERT_EQ("202", reserved.out) << reserved.describe();
    ChildResult created = post("create-volumes", "volumes", *volume);
    ASSERT_EQ("202", created.out) << created.describe();
  }

  // What the volume's file `file` holds on the host ("" if none).
  std::string volumeFile(const std::string& file) const {
    std::error_code error;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ + "/slave/volumes", error)) {
      if (entry.path().filename() == file) return readFile(entry.path().string());
    }
    return "";
  }

  // The image of test-executor (its tasks last the seconds their data
  // says), imported once; the shell command that runs it there.
  std::string testExecutorImage() {
    if (testImageError_.empty() && testCommand_.empty()) {
      std::string libraryPath;
      testImageError_ = importProgram(*dockerd_, busybox_, MESOS_TEST_EXECUTOR_PATH,
                                      kTestExecutorImage, &libraryPath);
      testCommand_ =
          "LD_LIBRARY_PATH=" + libraryPath + " exec " + std::string(MESOS_TEST_EXECUTOR_PATH);
    }
    return testImageError_;
  }

  // Whether container `name`'s limits become `shares` cpu shares and `mib`
  // MiB of memory within 30 s (and says what they were if not).
  ::testing::AssertionResult awaitLimits(const std::string& name, int64_t shares, int64_t mib) {
    json::Value container;
    auto limited = [&] {
      container = dockerd_->inspect(name);
      return !container.isNull() && container["HostConfig"]["CpuShares"].integer() == shares &&
             container["HostConfig"]["Memory"].integer() == mib * 1024 * 1024;
    };
    if (waitUntil(limited, 30s)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << name << " is not at " << shares << " cpu shares and " << mib
           << " MiB: " << json::stringify(container["HostConfig"]) << readFile(dir_ + "/slave.log");
  }

  // Task `id`'s first TASK_RUNNING update that reports its health (60 s).
  std::optional<RecordingScheduler::Event> awaitHealth(const std::string& id) {
    return scheduler_.await(
        [&](const RecordingScheduler::Event& e) {
          return e.kind == "status" && e.status.task_id().value() == id &&
                 e.status.state() == TASK_RUNNING && e.status.has_healthy();
        },
        60s);
  }

  void stopFramework() {
    driver_->stop();
    driver_->join();
    driver_.reset();
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

  static constexpr char kHelloImage[] = "mesos-test/hello-executor:1";
  static constexpr char kTestExecutorImage[] = "mesos-test/test-executor:1";
  static Dockerd* dockerd_;
  static std::string busybox_;
  static std::string helloImageError_;
  static std::string helloCommand_;
  static std::string testImageError_;
  static std::string testCommand_;
  static std::string skip_;
  static std::string setupError_;

  const Dockerd* daemon_ = nullptr;  // the slave's, when not the suite's
  std::string resources_ = "cpus:2;mem:512;disk:512";
  std::set<std::string> usedOffers_;
  Offer offer_;  // the offer launchExecutorTask() uses, for its `edit`

  process::Address master_;
  RecordingScheduler scheduler_;
  std::unique_ptr<process::Runtime> runtime_;
  std::unique_ptr<MesosSchedulerDriver> driver_;
};

Dockerd* DockerContainerizerTest::dockerd_ = nullptr;
std::string DockerContainerizerTest::busybox_;
std::string DockerContainerizerTest::skip_;
std::string DockerContainerizerTest::setupError_;
std::string DockerContainerizerTest::helloImageError_;
std::string DockerContainerizerTest::helloCommand_;
std::string DockerContainerizerTest::testImageError_;
std::string DockerContainerizerTest::testCommand_;

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

// The task's health checks run in its container: a COMMAND through `docker
// exec` (it sees the image's files and its own variables, which the host
// does not), and too many failures in a row kill the task.
TEST_F(DockerContainerizerTest, ACommandHealthCheckRunsInTheContainerAndFailuresKillTheTask) {
  ASSERT_GT(startSlaveWith({"--docker_stop_timeout=1secs"}), 0);
  startFramework();
  auto check = [](const std::string& command, uint32_t failures) {
    HealthCheck health;
    health.set_type(HealthCheck::COMMAND);
    health.mutable_command()->set_value(command);
    auto* variable = health.mutable_command()->mutable_environment()->add_variables();
    variable->set_name("CHECK_VARIABLE");
    variable->set_value("given to the check");
    health.set_delay_seconds(0);
    health.set_interval_seconds(0.2);
    health.set_timeout_seconds(20);
    health.set_consecutive_failures(failures);
    return health;
  };
  // True only inside: the image has busybox and no /etc/debian_version
  // (this Debian host has one).
  const std::string inside =
      "[ -x /bin/busybox ] && [ ! -e /etc/debian_version ] && "
      "[ \"$CHECK_VARIABLE\" = \"given to the check\" ]";
  launchDockerTask("healthy", "sleep 1000", "cpus:0.1;mem:32",
                   [&](TaskInfo* task) { *task->mutable_health_check() = check(inside, 3); });
  auto healthy = awaitHealth("healthy");
  ASSERT_TRUE(healthy) << updates() << readFile(dir_ + "/slave.log");
  EXPECT_TRUE(healthy->status.healthy()) << healthy->status.message();
  EXPECT_EQ(TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED, healthy->status.reason());

  launchDockerTask("sick", "sleep 1000", "cpus:0.1;mem:32", [&](TaskInfo* task) {
    *task->mutable_health_check() = check("[ -e /etc/debian_version ]", 2);
  });
  auto unhealthy = awaitHealth("sick");
  ASSERT_TRUE(unhealthy) << updates();
  EXPECT_FALSE(unhealthy->status.healthy());
  auto killed = scheduler_.awaitStatus("sick", TASK_KILLED, 60s);
  ASSERT_TRUE(killed) << updates();
  EXPECT_EQ(TaskStatus::REASON_TASK_HEALTH_CHECK_STATUS_UPDATED, killed->status.reason());
  EXPECT_NE(killed->status.message().find("2 failed health check(s) in a row"), std::string::npos)
      << killed->status.message();
  json::Value container = dockerd_->inspect("mesos-" + containerId("sick"));
  ASSERT_FALSE(container.isNull());
  EXPECT_FALSE(container["State"]["Running"].boolean());
  // The healthy one was never killed.
  container = dockerd_->inspect("mesos-" + containerId("healthy"));
  ASSERT_FALSE(container.isNull());
  EXPECT_TRUE(container["State"]["Running"].boolean());
}

// An HTTP check of a container with a network of its own (NONE: only its
// loopback) reaches the server on the container's loopback: the port is
// free on this host's, so only the container's can answer.
TEST_F(DockerContainerizerTest, AnHttpHealthCheckProbesTheContainersOwnLoopback) {
  ASSERT_GT(startSlaveWith(), 0);
  startFramework();
  const uint16_t port = freePort();
  launchDockerTask(
      "web",
      "mkdir -p /www && echo up > /www/index.html && exec httpd -f -p 127.0.0.1:" +
          std::to_string(port) + " -h /www",
      "cpus:0.1;mem:32", [&](TaskInfo* task) {
        task->mutable_container()->mutable_docker()->set_network(ContainerInfo::DockerInfo::NONE);
        HealthCheck health;
        health.set_type(HealthCheck::HTTP);
        health.mutable_http()->set_port(port);
        health.mutable_http()->set_path("/index.html");
        health.set_delay_seconds(0);
        health.set_interval_seconds(0.2);
        health.set_timeout_seconds(20);
        health.set_grace_period_seconds(30);  // httpd may take a moment to listen
        *task->mutable_health_check() = health;
      });
  auto healthy = awaitHealth("web");
  ASSERT_TRUE(healthy) << updates() << readFile(dir_ + "/slave.log");
  EXPECT_TRUE(healthy->status.healthy()) << healthy->status.message();
  EXPECT_EQ("none",
            dockerd_->inspect("mesos-" + containerId("web"))["HostConfig"]["NetworkMode"].string());
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
  slave = startSlave(master_, "slave", slaveFlags("docker,mesos"), port);
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

// A persistent volume (reserved and created by the operator) of a Docker
// task: docker run mounts it at its path in the sandbox the container sees
// (`-v`), where the task's file lands in the volume on the host; the host's
// sandbox holds no link to the host's path, which does not exist in the
// container.
TEST_F(DockerContainerizerTest, APersistentVolumeIsMountedIntoTheTasksContainer) {
  ASSERT_GT(startSlaveWith(), 0);
  std::string volume;
  createVolume(&volume);
  if (IsSkipped() || HasFatalFailure()) return;

  const std::string task =
      "--task={\"name\":\"kept\",\"task_id\":{\"value\":\"kept\"},\"resources\":[{\"name\":"
      "\"cpus\",\"type\":\"SCALAR\",\"scalar\":{\"value\":0.1}},{\"name\":\"mem\",\"type\":"
      "\"SCALAR\",\"scalar\":{\"value\":32}}," +
      volume +
      "],\"command\":{\"value\":\"echo kept > $MESOS_SANDBOX/data/file\"},"
      "\"container\":{\"type\":\"DOCKER\",\"docker\":{\"image\":\"" +
      std::string(kImage) + "\"}}}";
  ChildResult run =
      runChild({MESOS_EXECUTE_PATH, "--master=" + master_.toString(), "--role=eng", task}, 120s);
  ASSERT_TRUE(run.exitedWith(0)) << run.describe() << readFile(dir_ + "/slave.log");
  EXPECT_EQ("kept\n", volumeFile("file")) << "the task's file is not in the volume on the host";
  EXPECT_FALSE(fs::is_symlink(sandbox("kept") + "/data"));

  json::Value container = dockerd_->inspect("mesos-" + containerId("kept"));
  ASSERT_FALSE(container.isNull());
  std::map<std::string, bool> writable;  // the volume's mounts by destination
  for (const json::Value& mount : container["Mounts"].array()) {
    if (mount["Source"].string().starts_with(dir_ + "/slave/volumes/")) {
      writable[mount["Destination"].string()] = mount["RW"].boolean();
    }
  }
  EXPECT_EQ((std::map<std::string, bool>{{"/mnt/mesos/sandbox/data", true}}), writable)
      << json::stringify(container["Mounts"]);
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

// DockerInfo.force_pull_image against a real registry: a tag pushed
// again with other contents reaches a task only when it asks for a pull;
// without, the daemon's copy runs.
TEST_F(DockerContainerizerTest, ForcePullImageFetchesATagPushedAgainAndOtherwiseTheCopyRuns) {
  if (!images::haveProgram(images::Registry::kProgram)) {
    GTEST_SKIP() << "needs " << images::Registry::kProgram << " (Debian's docker-registry)";
  }
  images::Registry registry(dir_);
  ASSERT_EQ("", registry.error());
  // Loopback registries are plain HTTP to dockerd (127.0.0.0/8 is insecure
  // by default).
  const std::string tag = registry.hostPort() + "/mesos-test/versioned:v1";
  ASSERT_EQ("", importBusybox(*dockerd_, busybox_, tag, {{"version", "version-1\n"}}));
  images::Ran pushed = dockerd_->docker({"push", tag});
  ASSERT_EQ(0, pushed.status) << pushed.err << registry.log();
  // The daemon no longer has it: the first task pulls it.
  ASSERT_EQ(0, dockerd_->docker({"image", "rm", tag}).status);

  ASSERT_GT(startSlaveWith(), 0);
  startFramework();
  auto withImage = [&](bool forcePull) {
    return [&tag, forcePull](TaskInfo* task) {
      task->mutable_container()->mutable_docker()->set_image(tag);
      task->mutable_container()->mutable_docker()->set_force_pull_image(forcePull);
    };
  };
  launchDockerTask("pulled", "cat /version", "cpus:0.1;mem:32", withImage(false));
  ASSERT_TRUE(scheduler_.awaitStatus("pulled", TASK_FINISHED, 60s))
      << updates() << readFile(sandbox("pulled") + "/stderr");
  EXPECT_NE(std::string::npos, readFile(sandbox("pulled") + "/stdout").find("version-1"));
  images::Ran first = dockerd_->docker({"image", "inspect", "--format={{.Id}}", tag});
  ASSERT_EQ(0, first.status) << "the task ran, but the daemon has no " << tag;

  // The tag pushed again with new contents; the daemon's tag is then put
  // back on its first image.
  ASSERT_EQ("", importBusybox(*dockerd_, busybox_, tag, {{"version", "version-2\n"}}));
  pushed = dockerd_->docker({"push", tag});
  ASSERT_EQ(0, pushed.status) << pushed.err;
  std::string firstId = first.out;
  while (!firstId.empty() && firstId.back() == '\n') firstId.pop_back();
  ASSERT_EQ(0, dockerd_->docker({"tag", firstId, tag}).status);

  launchDockerTask("cached", "cat /version", "cpus:0.1;mem:32", withImage(false));
  ASSERT_TRUE(scheduler_.awaitStatus("cached", TASK_FINISHED, 60s))
      << updates() << readFile(sandbox("cached") + "/stderr");
  EXPECT_NE(std::string::npos, readFile(sandbox("cached") + "/stdout").find("version-1"))
      << readFile(sandbox("cached") + "/stdout");

  launchDockerTask("forced", "cat /version", "cpus:0.1;mem:32", withImage(true));
  ASSERT_TRUE(scheduler_.awaitStatus("forced", TASK_FINISHED, 60s))
      << updates() << readFile(sandbox("forced") + "/stderr");
  EXPECT_NE(std::string::npos, readFile(sandbox("forced") + "/stdout").find("version-2"))
      << readFile(sandbox("forced") + "/stdout");
  // The daemon's tag now names the new image.
  images::Ran now = dockerd_->docker({"image", "inspect", "--format={{.Id}}", tag});
  EXPECT_NE(first.out, now.out);
}

TEST_F(DockerContainerizerTest, AnImageTheRegistryLacksFailsTheTaskWithTheRegistrysReason) {
  if (!images::haveProgram(images::Registry::kProgram)) {
    GTEST_SKIP() << "needs " << images::Registry::kProgram << " (Debian's docker-registry)";
  }
  images::Registry registry(dir_);
  ASSERT_EQ("", registry.error());
  const std::string image = registry.hostPort() + "/mesos-test/absent:v1";
  ASSERT_GT(startSlaveWith(), 0);
  startFramework();
  launchDockerTask("absent", "true", "cpus:0.1;mem:32", [&](TaskInfo* task) {
    task->mutable_container()->mutable_docker()->set_image(image);
  });
  auto failed = scheduler_.awaitStatus("absent", TASK_FAILED, 60s);
  ASSERT_TRUE(failed) << updates();
  EXPECT_EQ(TaskStatus::REASON_CONTAINER_LAUNCH_FAILED, failed->status.reason());
  const std::string& message = failed->status.message();
  EXPECT_NE(std::string::npos, message.find("Failed to pull image '" + image + "'")) << message;
  EXPECT_NE(std::string::npos, message.find("manifest unknown")) << message;  // the registry's
  EXPECT_FALSE(dockerd_->exists("mesos-" + containerId("absent")));
}

// BRIDGE networking with a port mapping, in a network namespace of the
// test's own: that namespace's dockerd puts the container on its default
// bridge and maps the task's host port (one of its ports resources) with
// its userland proxy; a client in the namespace gets the task's answer.
// The slave stays in the host's namespace: it reaches the daemon through
// its unix socket.
TEST_F(DockerContainerizerTest, ABridgedTaskAnswersOnItsMappedHostPort) {
  NetworkNamespace netns("mesos-docker-test-" + std::to_string(::getpid()));
  if (!netns.error().empty()) GTEST_SKIP() << netns.error();
  Dockerd bridged(&netns);
  if (!bridged.error().empty()) {
    GTEST_SKIP() << "dockerd with its default bridge in a network namespace: " << bridged.error();
  }
  ASSERT_EQ("", importBusybox(bridged, busybox_, kImage));
  daemon_ = &bridged;
  resources_ = "cpus:2;mem:512;disk:512;ports:[31000-31009]";
  ASSERT_GT(startSlaveWith(), 0);
  startFramework();
  launchDockerTask(
      "web",
      "busybox mkdir -p /www && echo answer-from-$(busybox hostname) > /www/index.html && "
      "exec busybox httpd -f -p 8080 -h /www",
      "cpus:0.1;mem:32;ports:[31005-31005]", [](TaskInfo* task) {
        ContainerInfo* container = task->mutable_container();
        container->set_hostname("web-1");
        auto* docker = container->mutable_docker();
        docker->set_network(ContainerInfo::DockerInfo::BRIDGE);
        auto* mapping = docker->add_port_mappings();
        mapping->set_host_port(31005);
        mapping->set_container_port(8080);
        mapping->set_protocol("tcp");
      });
  ASSERT_TRUE(scheduler_.awaitStatus("web", TASK_RUNNING, 60s))
      << updates() << readFile(sandbox("web") + "/stderr");
  const std::string name = "mesos-" + containerId("web");
  json::Value container = bridged.inspect(name);
  ASSERT_FALSE(container.isNull()) << name;
  EXPECT_EQ("bridge", container["HostConfig"]["NetworkMode"].string());
  const json::Value& bindings = container["HostConfig"]["PortBindings"]["8080/tcp"];
  ASSERT_TRUE(bindings.isArray() && !bindings.array().empty()) << json::stringify(container);
  EXPECT_EQ("31005", bindings.array().at(0)["HostPort"].string());

  // Inside the namespace only; httpd may not listen yet when the container
  // runs: a bounded wait. (busybox-static's wget crashes with its own -T:
  // timeout(1) bounds each try.)
  images::Ran answer;
  EXPECT_TRUE(waitUntil(
      [&] {
        answer = images::run({"ip", "netns", "exec", netns.name(), "timeout", "10", busybox_,
                              "wget", "-q", "-O", "-", "http://127.0.0.1:31005/"},
                             dir_);
        return answer.status == 0;
      },
      30s))
      << "wget exited with " << answer.status << ": " << answer.err
      << readFile(sandbox("web") + "/stderr") << bridged.docker({"ps", "-a"}).out;
  EXPECT_EQ("answer-from-web-1\n", answer.out);

  TaskID id;
  id.set_value("web");
  driver_->killTask(id);
  EXPECT_TRUE(scheduler_.awaitStatus("web", TASK_KILLED, 60s)) << updates();
  daemon_ = nullptr;
}

// A host port the task's resources do not hold is not the task's: the
// executor refuses to map it, as Apache's does.
TEST_F(DockerContainerizerTest, APortMappingOutsideTheTasksPortsFailsTheTask) {
  resources_ = "cpus:2;mem:512;disk:512;ports:[31000-31009]";
  ASSERT_GT(startSlaveWith(), 0);
  startFramework();
  launchDockerTask("unheld", "true", "cpus:0.1;mem:32;ports:[31001-31001]", [](TaskInfo* task) {
    auto* docker = task->mutable_container()->mutable_docker();
    docker->set_network(ContainerInfo::DockerInfo::BRIDGE);
    auto* mapping = docker->add_port_mappings();
    mapping->set_host_port(31002);
    mapping->set_container_port(80);
  });
  auto failed = scheduler_.awaitStatus("unheld", TASK_FAILED, 60s);
  ASSERT_TRUE(failed) << updates();
  EXPECT_NE(std::string::npos,
            failed->status.message().find("host port 31002 is not in the task's ports"))
      << failed->status.message();
  EXPECT_FALSE(dockerd_->exists("mesos-" + containerId("unheld")));
}

// /monitor/statistics of a Docker task counts its Docker container (its
// cgroups, as Apache's does) besides the executor: a busy loop in the
// container shows as CPU time, which mesos-docker-executor alone never
// reaches.
TEST_F(DockerContainerizerTest, MonitorStatisticsCountTheDockerContainersUsage) {
  const uint16_t port = freePort();
  ASSERT_GT(startSlaveWith({}, "docker,mesos", port), 0);
  startFramework();
  launchDockerTask("busy", "while :; do :; done", "cpus:0.5;mem:64");
  ASSERT_TRUE(scheduler_.awaitStatus("busy", TASK_RUNNING, 60s)) << updates();
  const process::Address slave{0x7f000001, port};
  json::Value statistics;
  EXPECT_TRUE(waitUntil(
      [&] {
        json::Value all = getJson(slave, "/monitor/statistics");
        if (!all.isArray() || all.array().size() != 1) return false;
        statistics = all.array().at(0)["statistics"];
        return statistics["cpus_user_time_secs"].isNumber() &&
               statistics["cpus_user_time_secs"].number() >= 1.0;
      },
      60s))
      << json::stringify(getJson(slave, "/monitor/statistics"));
  // At least the container's shell.
  EXPECT_GE(statistics["processes"].integer(), 1) << json::stringify(statistics);
  EXPECT_GT(statistics["mem_total_bytes"].integer(), 0) << json::stringify(statistics);

  TaskID id;
  id.set_value("busy");
  driver_->killTask(id);
  EXPECT_TRUE(scheduler_.awaitStatus("busy", TASK_KILLED, 60s)) << updates();
}

// A custom executor in a Docker container of its own: the slave runs its
// image with the executor's command (hello-executor, which registers over
// libprocess and finishes its task), the sandbox at /mnt/mesos/sandbox,
// its output in the sandbox's files and the limits of its resources. The
// executor outlives its task; its framework's end shuts it down, and its
// container is then removed (--docker_remove_delay).
TEST_F(DockerContainerizerTest, ACustomExecutorRunsInItsImageAndItsContainerGoesWithIt) {
  ASSERT_EQ("", helloImage());
  ASSERT_GT(startSlaveWith({"--docker_remove_delay=1secs"}), 0);
  startFramework();
  launchExecutorTask("hello", "hello-exec", kHelloImage, helloCommand_);
  auto finished = scheduler_.awaitStatus("hello", TASK_FINISHED, 60s);
  ASSERT_TRUE(finished) << updates() << readFile(sandbox("hello-exec") + "/stderr");
  EXPECT_EQ("hello from hello-executor", finished->status.message());
  EXPECT_TRUE(scheduler_.awaitStatus("hello", TASK_RUNNING, 0ms));

  const std::string directory = sandbox("hello-exec");
  ASSERT_NE("", directory);
  EXPECT_NE(std::string::npos,
            readFile(directory + "/stdout")
                .find("executor in /mnt/mesos/sandbox of /mnt/mesos/sandbox"))
      << readFile(directory + "/stdout") << readFile(directory + "/stderr");
  const std::string name = "mesos-" + containerId("hello-exec");
  json::Value container = dockerd_->inspect(name);
  ASSERT_FALSE(container.isNull()) << dockerd_->docker({"ps", "-a"}).out;
  EXPECT_TRUE(container["State"]["Running"].boolean());
  EXPECT_EQ(kHelloImage, container["Config"]["Image"].string());
  EXPECT_EQ("host", container["HostConfig"]["NetworkMode"].string());
  // Its task has finished: the executor's own resources (cpus:0.1;mem:32).
  EXPECT_TRUE(awaitLimits(name, 102, 32));
  bool mounted = false;
  for (const json::Value& mount : container["Mounts"].array()) {
    if (mount["Destination"].string() == "/mnt/mesos/sandbox") {
      mounted = mount["Source"].string() == directory;
    }
  }
  EXPECT_TRUE(mounted) << json::stringify(container["Mounts"]);
  std::set<std::string> environment;
  for (const json::Value& variable : container["Config"]["Env"].array()) {
    environment.insert(variable.string());
  }
  EXPECT_EQ(1u, environment.count("MESOS_SANDBOX=/mnt/mesos/sandbox"));
  EXPECT_EQ(1u, environment.count("MESOS_EXECUTOR_ID=hello-exec"));
  EXPECT_EQ(1u, environment.count("MESOS_CONTAINER_NAME=" + name));
  // None of the slave's own (HOME, its PATH...): Docker's PATH only.
  for (const std::string& variable : environment) {
    EXPECT_TRUE(variable.starts_with("MESOS_") || variable.starts_with("LIBPROCESS_") ||
                variable.starts_with("PATH=/usr/local/sbin:"))
        << variable;
  }

  // The framework's end shuts the executor down: its container stops, and
  // goes a second later.
  stopFramework();
  EXPECT_TRUE(waitUntil([&] { return !dockerd_->exists(name); }, 60s))
      << name << " was not removed: " << dockerd_->docker({"ps", "-a"}).out
      << readFile(dir_ + "/slave.log");
}

// A custom executor's container has the limits of the executor and its
// tasks: a task sent to the running executor raises them (docker update),
// a task that ends lowers them.
TEST_F(DockerContainerizerTest, ACustomExecutorsContainerLimitsFollowItsTasks) {
  ASSERT_EQ("", testExecutorImage());
  ASSERT_GT(startSlaveWith(), 0);
  startFramework();
  auto lasting = [](const std::string& resources) {
    return [resources](TaskInfo* task) {
      task->set_data("60");
      *task->mutable_resources() = Resources::parse(resources)->proto();
    };
  };
  launchExecutorTask("first", "growing-exec", kTestExecutorImage, testCommand_,
                     lasting("cpus:0.1;mem:32"));
  ASSERT_TRUE(scheduler_.awaitStatus("first", TASK_RUNNING, 60s))
      << updates() << readFile(sandbox("growing-exec") + "/stderr");
  const std::string name = "mesos-" + containerId("growing-exec");
  // The executor's cpus:0.1;mem:32 and its first task's, as docker run set them.
  EXPECT_TRUE(awaitLimits(name, 205, 64));

  launchExecutorTask("second", "growing-exec", kTestExecutorImage, testCommand_,
                     lasting("cpus:0.5;mem:64"));
  ASSERT_TRUE(scheduler_.awaitStatus("second", TASK_RUNNING, 60s)) << updates();
  EXPECT_TRUE(awaitLimits(name, 717, 128));

  driver_->killTask([] {
    TaskID id;
    id.set_value("second");
    return id;
  }());
  ASSERT_TRUE(scheduler_.awaitStatus("second", TASK_KILLED, 60s)) << updates();
  EXPECT_TRUE(awaitLimits(name, 205, 64));
  json::Value container = dockerd_->inspect(name);
  ASSERT_FALSE(container.isNull());
  EXPECT_TRUE(container["State"]["Running"].boolean());
}

// A custom executor in Docker whose first task brings a persistent volume
// has it mounted in its container (docker run -v): what the executor
// writes there lands in the volume on the host.
TEST_F(DockerContainerizerTest, ACustomExecutorsPersistentVolumeIsMountedIntoItsContainer) {
  ASSERT_EQ("", testExecutorImage());
  ASSERT_GT(startSlaveWith(), 0);
  std::string volume;
  createVolume(&volume);
  if (IsSkipped() || HasFatalFailure()) return;
  startFramework(false, "eng");
  launchExecutorTask("stored", "storing-exec", kTestExecutorImage,
                     "echo stored > $MESOS_SANDBOX/data/file && " + testCommand_,
                     [&](TaskInfo* task) {
                       task->set_data("0");
                       for (const Resource& resource : offer_.resources()) {
                         if (resource.has_disk() && resource.disk().has_persistence()) {
                           *task->add_resources() = resource;
                         }
                       }
                     });
  ASSERT_TRUE(scheduler_.awaitStatus("stored", TASK_FINISHED, 60s))
      << updates() << readFile(sandbox("storing-exec") + "/stderr");
  EXPECT_EQ("stored\n", volumeFile("file")) << "the executor's file is not in the volume";
  json::Value container = dockerd_->inspect("mesos-" + containerId("storing-exec"));
  ASSERT_FALSE(container.isNull());
  bool mounted = false;
  for (const json::Value& mount : container["Mounts"].array()) {
    mounted = mounted || (mount["Destination"].string() == "/mnt/mesos/sandbox/data" &&
                          mount["Source"].string().starts_with(dir_ + "/slave/volumes/"));
  }
  EXPECT_TRUE(mounted) << json::stringify(container["Mounts"]);
}

// An executor that never registers is killed by the slave: its container
// stops with it (its `docker run` alone would leave it running), and stays,
// stopped, for --docker_remove_delay.
TEST_F(DockerContainerizerTest, ACustomExecutorThatNeverRegistersHasItsContainerStopped) {
  ASSERT_GT(startSlaveWith({"--executor_registration_timeout=3secs"}), 0);
  startFramework();
  launchExecutorTask("mute", "mute-exec", kImage, "exec sleep 1000");
  auto failed = scheduler_.awaitStatus("mute", TASK_FAILED, 60s);
  ASSERT_TRUE(failed) << updates();
  EXPECT_EQ(TaskStatus::REASON_EXECUTOR_REGISTRATION_TIMEOUT, failed->status.reason());
  const std::string name = "mesos-" + containerId("mute-exec");
  EXPECT_TRUE(waitUntil(
      [&] {
        json::Value container = dockerd_->inspect(name);
        return !container.isNull() && !container["State"]["Running"].boolean();
      },
      30s))
      << json::stringify(dockerd_->inspect(name)) << readFile(dir_ + "/slave.log");
}

TEST_F(DockerContainerizerTest, ACustomExecutorsMissingImageFailsItsTaskWithDockersReason) {
  ASSERT_GT(startSlaveWith(), 0);
  startFramework();
  launchExecutorTask("lost", "lost-exec", "mesos-test/nothing:1", "true");
  auto failed = scheduler_.awaitStatus("lost", TASK_FAILED, 60s);
  ASSERT_TRUE(failed) << updates();
  EXPECT_EQ(TaskStatus::REASON_CONTAINER_LAUNCH_FAILED, failed->status.reason());
  EXPECT_NE(std::string::npos,
            failed->status.message().find("Failed to pull image 'mesos-test/nothing:1': "))
      << failed->status.message();
  EXPECT_FALSE(dockerd_->exists("mesos-" + containerId("lost-exec")));
}

// docker run's own failure (an option the daemon refuses) before the
// executor registers fails its task as a launch failure, in docker's words.
TEST_F(DockerContainerizerTest, ACustomExecutorsContainerDockerCannotRunFailsItsTask) {
  ASSERT_GT(startSlaveWith(), 0);
  startFramework();
  launchExecutorTask("refused", "refused-exec", kImage, "true", [](TaskInfo* task) {
    Parameter* parameter =
        task->mutable_executor()->mutable_container()->mutable_docker()->add_parameters();
    parameter->set_key("ulimit");
    parameter->set_value("not-a-limit");
  });
  auto failed = scheduler_.awaitStatus("refused", TASK_FAILED, 60s);
  ASSERT_TRUE(failed) << updates();
  EXPECT_EQ(TaskStatus::REASON_CONTAINER_LAUNCH_FAILED, failed->status.reason());
  EXPECT_NE(std::string::npos,
            failed->status.message().find("docker run exited with status 125"))
      << failed->status.message();
  EXPECT_NE(std::string::npos, failed->status.message().find("ulimit")) << failed->status.message();
}

TEST_F(DockerContainerizerTest, ACustomDockerExecutorOnASlaveWithoutDockerIsRefused) {
  ASSERT_GT(startSlaveWith({}, "mesos"), 0);
  startFramework();
  launchExecutorTask("nowhere", "nowhere-exec", kImage, "true");
  auto failed = scheduler_.awaitStatus("nowhere", TASK_FAILED, 60s);
  ASSERT_TRUE(failed) << updates();
  EXPECT_EQ(TaskStatus::REASON_CONTAINER_LAUNCH_FAILED, failed->status.reason());
  EXPECT_NE(std::string::npos, failed->status.message().find("The executor's ContainerInfo is DOCKER"))
      << failed->status.message();
  EXPECT_NE(std::string::npos, failed->status.message().find("--containerizers=mesos"))
      << failed->status.message();
  EXPECT_EQ("", sandbox("nowhere-exec"));
}

// A checkpointing framework's custom executor in Docker: it and its
// container run on while the slave is down; the restarted slave takes it
// over (the orphan sweep keeps its container), it takes a second task, and
// the framework's end still removes its container.
TEST_F(DockerContainerizerTest, ACustomExecutorInDockerOutlivesASlaveRestart) {
  ASSERT_EQ("", helloImage());
  const uint16_t port = freePort();
  pid_t slave = startSlaveWith({"--docker_remove_delay=1secs"}, "docker,mesos", port);
  ASSERT_GT(slave, 0);
  startFramework(/*checkpoint=*/true);
  launchExecutorTask("first", "kept-exec", kHelloImage, helloCommand_);
  ASSERT_TRUE(scheduler_.awaitStatus("first", TASK_FINISHED, 60s))
      << updates() << readFile(sandbox("kept-exec") + "/stderr");
  const std::string name = "mesos-" + containerId("kept-exec");
  ASSERT_TRUE(dockerd_->exists(name));

  // The offers made so far go with the slave: the next task takes one made
  // after its restart.
  scheduler_.await(
      [&](const RecordingScheduler::Event& e) {
        for (const Offer& offer : e.offers) usedOffers_.insert(offer.id().value());
        return false;
      },
      0ms);
  ASSERT_EQ(0, ::kill(slave, SIGKILL));
  ASSERT_EQ(128 + SIGKILL, waitForExit(slave, 30s));
  reaped(slave);
  std::vector<std::string> flags = slaveFlags("docker,mesos");
  flags.push_back("--docker_remove_delay=1secs");
  slave = startSlave(master_, "slave", flags, port);
  ASSERT_GT(slave, 0);
  ASSERT_TRUE(waitUntil(
      [&] { return readFile(dir_ + "/slave.log").find("Re-registered with master") !=
                   std::string::npos; },
      60s, slave))
      << readFile(dir_ + "/slave.log");
  json::Value container = dockerd_->inspect(name);
  ASSERT_FALSE(container.isNull()) << "the recovered executor's container was removed";
  EXPECT_TRUE(container["State"]["Running"].boolean());

  // The same executor takes the next task.
  launchExecutorTask("second", "kept-exec", kHelloImage, helloCommand_);
  ASSERT_TRUE(scheduler_.awaitStatus("second", TASK_FINISHED, 60s))
      << updates() << readFile(dir_ + "/slave.log");
  EXPECT_EQ(name, "mesos-" + containerId("kept-exec"));

  stopFramework();
  EXPECT_TRUE(waitUntil([&] { return !dockerd_->exists(name); }, 60s, slave))
      << dockerd_->docker({"ps", "-a"}).out << readFile(dir_ + "/slave.log");
}

}  // namespace
}  // namespace mesos::test
