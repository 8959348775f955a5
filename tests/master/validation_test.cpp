// Task validation in the master for what it does not run (ContainerInfo)
// and for health checks that cannot work: TASK_ERROR naming the field, while
// the valid tasks of the same launch go to the slave.
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

class TaskValidationTest : public MasterFixture {
 protected:
  void SetUp() override {
    start();
    scheduler_ = &scheduler("scheduler(1)");
    slave_ = &slave("slave(1)");
    frameworkId_ = registerFramework(*scheduler_);
    slaveId_ = registerSlave(*slave_, "cpus:8;mem:8192");
  }

  // Launches `tasks` on the scheduler's latest offer.
  void launchAll(const std::vector<TaskInfo>& tasks) {
    auto offers = scheduler_->received<ResourceOffersMessage>();
    ASSERT_FALSE(offers.empty());
    launch(*scheduler_, frameworkId_, {offers.back().offers(0).id()}, tasks);
  }

  TaskInfo task(const std::string& id) { return commandTask(id, slaveId_, "cpus:0.5;mem:64"); }

  static HealthCheck commandCheck() {
    HealthCheck check;
    check.set_type(HealthCheck::COMMAND);
    check.mutable_command()->set_value("true");
    return check;
  }

  // The one status the scheduler got for `id`: TASK_ERROR mentioning `words`.
  void expectError(const std::string& id, const std::string& words) {
    std::vector<TaskStatus> got;
    for (const auto& m : scheduler_->received<StatusUpdateMessage>()) {
      if (m.update().status().task_id().value() == id) got.push_back(m.update().status());
    }
    ASSERT_EQ(1u, got.size()) << id;
    EXPECT_EQ(TASK_ERROR, got[0].state()) << id;
    EXPECT_EQ(TaskStatus::REASON_TASK_INVALID, got[0].reason()) << id;
    EXPECT_NE(std::string::npos, got[0].message().find(words)) << id << ": " << got[0].message();
  }

  // The task ids the slave was asked to run.
  std::vector<std::string> launched() {
    std::vector<std::string> ids;
    for (const auto& run : slave_->received<RunTaskMessage>()) {
      ids.push_back(run.task().task_id().value());
    }
    return ids;
  }

  Peer* scheduler_ = nullptr;
  Peer* slave_ = nullptr;
  FrameworkID frameworkId_;
  SlaveID slaveId_;
};

TEST_F(TaskValidationTest, ContainersSlavesCannotRunAreRefusedNamingTheField) {
  TaskInfo commandContainer = task("command-container");
  commandContainer.mutable_command()->mutable_container()->set_image("busybox");

  TaskInfo docker = task("docker");
  docker.clear_command();
  docker.mutable_executor()->mutable_executor_id()->set_value("e1");
  docker.mutable_executor()->mutable_command()->set_value("./executor");
  docker.mutable_executor()->mutable_container()->set_type(ContainerInfo::DOCKER);
  docker.mutable_executor()->mutable_container()->mutable_docker()->set_image("-x");

  // A custom executor in a Docker container of its own goes to the slave.
  TaskInfo dockerExecutor = task("docker-executor");
  dockerExecutor.clear_command();
  *dockerExecutor.mutable_executor() = docker.executor();
  dockerExecutor.mutable_executor()->mutable_executor_id()->set_value("e2");
  dockerExecutor.mutable_executor()->mutable_container()->mutable_docker()->set_image("x");

  TaskInfo image = task("image");
  image.mutable_container()->set_type(ContainerInfo::MESOS);
  image.mutable_container()->mutable_mesos()->mutable_image()->set_type(Image::DOCKER);
  image.mutable_container()->mutable_mesos()->mutable_image()->mutable_docker()->set_name("b");

  TaskInfo appc = task("appc");
  appc.mutable_container()->set_type(ContainerInfo::MESOS);
  appc.mutable_container()->mutable_mesos()->mutable_image()->set_type(Image::APPC);
  appc.mutable_container()->mutable_mesos()->mutable_image()->mutable_appc()->set_name("b");

  TaskInfo unnamed = task("unnamed");
  unnamed.mutable_container()->set_type(ContainerInfo::MESOS);
  unnamed.mutable_container()->mutable_mesos()->mutable_image()->set_type(Image::DOCKER);
  unnamed.mutable_container()->mutable_mesos()->mutable_image()->mutable_docker()->set_name("");

  TaskInfo climbing = task("climbing");
  climbing.mutable_container()->set_type(ContainerInfo::MESOS);
  Volume* volume = climbing.mutable_container()->add_volumes();
  volume->set_container_path("data");
  volume->set_host_path("../../other-sandbox");
  volume->set_mode(Volume::RW);

  TaskInfo volumes = task("volumes");
  volumes.mutable_container()->set_type(ContainerInfo::MESOS);
  volume = volumes.mutable_container()->add_volumes();
  volume->set_container_path("/data");
  volume->set_host_path("/srv/data");
  volume->set_mode(Volume::RO);

  TaskInfo plain = task("plain");
  launchAll(
      {commandContainer, docker, dockerExecutor, image, appc, unnamed, climbing, volumes, plain});

  expectError("command-container", "TaskInfo.command.container is not supported");
  expectError("docker", "ExecutorInfo.container.docker.image '-x' must start with a letter");
  expectError("appc", "TaskInfo.container.mesos.image.type APPC is not supported yet");
  expectError("unnamed", "TaskInfo.container.mesos.image.docker.name is empty");
  expectError("climbing", "TaskInfo.container.volumes[0]: a path holds '..'");
  EXPECT_EQ((std::vector<std::string>{"docker-executor", "image", "volumes", "plain"}),
            launched());
}

TEST_F(TaskValidationTest, DockerCommandTasksGoToTheSlaveAndBadDockerFieldsAreNamed) {
  auto docker = [&](const std::string& id, const std::string& image) {
    TaskInfo t = task(id);
    t.mutable_container()->set_type(ContainerInfo::DOCKER);
    t.mutable_container()->mutable_docker()->set_image(image);
    return t;
  };
  TaskInfo good = docker("good", "registry:5000/team/app:v2");
  Parameter* parameter = good.mutable_container()->mutable_docker()->add_parameters();
  parameter->set_key("memory-swap");
  parameter->set_value("-1");

  TaskInfo noImage = docker("no-image", "");
  TaskInfo option = docker("option", "--privileged");
  TaskInfo badKey = docker("bad-key", "busybox");
  parameter = badKey.mutable_container()->mutable_docker()->add_parameters();
  parameter->set_key("-v");
  parameter->set_value("/:/host");
  TaskInfo noDockerInfo = task("no-docker-info");
  noDockerInfo.mutable_container()->set_type(ContainerInfo::DOCKER);
  TaskInfo hostPorts = docker("host-ports", "busybox");
  auto* mapping = hostPorts.mutable_container()->mutable_docker()->add_port_mappings();
  mapping->set_host_port(31000);
  mapping->set_container_port(80);

  launchAll({good, noImage, option, badKey, noDockerInfo, hostPorts});

  expectError("no-image", "TaskInfo.container.docker.image is empty");
  expectError("option", "TaskInfo.container.docker.image '--privileged'");
  expectError("bad-key", "TaskInfo.container.docker.parameters[0].key '-v'");
  expectError("no-docker-info", "TaskInfo.container.docker is unset");
  expectError("host-ports", "TaskInfo.container.docker.port_mappings need docker.network BRIDGE");
  EXPECT_EQ((std::vector<std::string>{"good"}), launched());
}

TEST_F(TaskValidationTest, HealthChecksThatCannotWorkAreRefused) {
  TaskInfo noCommand = task("no-command");
  *noCommand.mutable_health_check() = commandCheck();
  noCommand.mutable_health_check()->clear_command();

  TaskInfo noHttp = task("no-http");
  noHttp.mutable_health_check()->set_type(HealthCheck::HTTP);

  TaskInfo noTcp = task("no-tcp");
  noTcp.mutable_health_check()->set_type(HealthCheck::TCP);

  TaskInfo unknown = task("unknown");
  *unknown.mutable_health_check() = commandCheck();
  unknown.mutable_health_check()->set_type(HealthCheck::UNKNOWN);

  TaskInfo negative = task("negative");
  *negative.mutable_health_check() = commandCheck();
  negative.mutable_health_check()->set_interval_seconds(-5);

  TaskInfo infinite = task("infinite");
  *infinite.mutable_health_check() = commandCheck();
  infinite.mutable_health_check()->set_delay_seconds(std::numeric_limits<double>::infinity());

  TaskInfo https = task("https");
  https.mutable_health_check()->set_type(HealthCheck::HTTP);
  https.mutable_health_check()->mutable_http()->set_port(443);
  https.mutable_health_check()->mutable_http()->set_scheme("https");

  TaskInfo good = task("good");
  *good.mutable_health_check() = commandCheck();

  launchAll({noCommand, noHttp, noTcp, unknown, negative, infinite, https, good});

  expectError("no-command", "invalid health check: HealthCheck.type is COMMAND but "
                            "HealthCheck.command is not set");
  expectError("no-http", "HealthCheck.http is not set");
  expectError("no-tcp", "HealthCheck.tcp is not set");
  expectError("unknown", "HealthCheck.type UNKNOWN");
  expectError("negative", "HealthCheck.interval_seconds is -5");
  expectError("infinite", "HealthCheck.delay_seconds is inf");
  expectError("https", "HealthCheck.http.scheme 'https'");
  ASSERT_EQ(std::vector<std::string>{"good"}, launched());
  auto runs = slave_->received<RunTaskMessage>();
  EXPECT_EQ("true", runs[0].task().health_check().command().value())
      << "the slave gets the check as sent";
}

TEST_F(TaskValidationTest, TasksWithAnExecutorGetTheSameHealthCheckValidation) {
  auto withExecutor = [&](const std::string& id) {
    TaskInfo t = task(id);
    t.clear_command();
    t.mutable_executor()->mutable_executor_id()->set_value("executor-" + id);
    t.mutable_executor()->mutable_command()->set_value("./executor");
    *t.mutable_health_check() = commandCheck();
    return t;
  };
  TaskInfo valid = withExecutor("valid");
  TaskInfo invalid = withExecutor("invalid");
  invalid.mutable_health_check()->mutable_command()->clear_value();
  launchAll({valid, invalid});
  expectError("invalid", "HealthCheck.command has no value");
  ASSERT_EQ(std::vector<std::string>{"valid"}, launched());
}

TEST_F(TaskValidationTest, HealthCheckWithoutARequiredPortIsRefused) {
  TaskInfo t = task("portless");
  t.mutable_health_check()->set_type(HealthCheck::TCP);
  t.mutable_health_check()->mutable_tcp();  // port is a required field
  launchAll({t});
  expectError("portless", "health_check.tcp.port");
  EXPECT_TRUE(launched().empty());
}

TEST_F(TaskValidationTest, NegativeKillPolicyGracePeriodIsRefused) {
  TaskInfo negative = task("negative");
  negative.mutable_kill_policy()->mutable_grace_period()->set_nanoseconds(-1);
  TaskInfo zero = task("zero");
  zero.mutable_kill_policy()->mutable_grace_period()->set_nanoseconds(0);
  TaskInfo five = task("five");
  five.mutable_kill_policy()->mutable_grace_period()->set_nanoseconds(5000000000);
  launchAll({negative, zero, five});
  expectError("negative", "Task's 'kill_policy.grace_period' must be non-negative");
  ASSERT_EQ((std::vector<std::string>{"zero", "five"}), launched());
  auto runs = slave_->received<RunTaskMessage>();
  EXPECT_EQ(5000000000, runs[1].task().kill_policy().grace_period().nanoseconds())
      << "the slave gets the kill policy as sent";
}

TEST_F(TaskValidationTest, NetworksAreTakenByNameAndWhatCniCannotDoIsRefused) {
  auto withNetworks = [&](const std::string& id, const std::vector<std::string>& names) {
    TaskInfo t = task(id);
    t.mutable_container()->set_type(ContainerInfo::MESOS);
    for (const std::string& name : names)
      t.mutable_container()->add_network_infos()->set_name(name);
    return t;
  };
  TaskInfo named = withNetworks("named", {"apps", "storage"});
  named.mutable_container()->set_hostname("web-1");
  named.mutable_container()->mutable_network_infos(0)->add_ip_addresses()->set_protocol(
      NetworkInfo::IPv4);
  TaskInfo nameless = withNetworks("nameless", {""});
  TaskInfo twice = withNetworks("twice", {"apps", "apps"});
  TaskInfo address = withNetworks("address", {"apps"});
  address.mutable_container()->mutable_network_infos(0)->add_ip_addresses()->set_ip_address(
      "10.0.0.7");
  TaskInfo groups = withNetworks("groups", {"apps"});
  groups.mutable_container()->mutable_network_infos(0)->add_groups("web");
  TaskInfo hostname = withNetworks("hostname", {});
  hostname.mutable_container()->set_hostname("web-1");
  launchAll({named, nameless, twice, address, groups, hostname});

  expectError("nameless", "TaskInfo.container.network_infos[0].name is empty");
  expectError("twice", "TaskInfo.container.network_infos[1]: network 'apps' is named twice");
  expectError("address", "asking for address 10.0.0.7 is not supported");
  expectError("groups", "TaskInfo.container.network_infos[0].groups is not supported yet");
  expectError("hostname", "TaskInfo.container.hostname needs network_infos");
  EXPECT_EQ((std::vector<std::string>{"named"}), launched());
}

}  // namespace
}  // namespace mesos::test
