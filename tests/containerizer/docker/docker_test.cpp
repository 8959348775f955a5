// The Docker client's argument vectors and checks (docker.hpp): what
// `docker run` gets for a task, and what a framework may not send.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "slave/containerizer/docker/docker.hpp"

namespace mesos::internal::docker {
namespace {

ContainerInfo dockerContainer(const std::string& image) {
  ContainerInfo container;
  container.set_type(ContainerInfo::DOCKER);
  container.mutable_docker()->set_image(image);
  return container;
}

RunSpec spec(ContainerInfo container) {
  RunSpec spec;
  spec.name = "mesos-c1";
  spec.container = std::move(container);
  spec.command.set_shell(true);
  spec.command.set_value("echo hi");
  spec.resources = Resources::parse("cpus:0.5;mem:64").value();
  spec.sandbox = "/work/sandbox";
  return spec;
}

bool contains(const std::vector<std::string>& argv, const std::vector<std::string>& run) {
  return std::search(argv.begin(), argv.end(), run.begin(), run.end()) != argv.end();
}

const Endpoint kEndpoint{"docker", "/run/d.sock"};

TEST(DockerArgumentsTest, RunNamesLimitsMountsAndRunsTheShellCommandAfterTheImage) {
  auto argv = runArguments(kEndpoint, spec(dockerContainer("busybox:1.36")));
  ASSERT_TRUE(argv) << argv.error().message;
  EXPECT_TRUE(contains(*argv, {"docker", "-H", "unix:///run/d.sock", "run", "--name=mesos-c1"}));
  EXPECT_TRUE(contains(*argv, {"--cpu-shares=512"}));
  EXPECT_TRUE(contains(*argv, {"--memory=" + std::to_string(64 * 1024 * 1024)}));
  EXPECT_TRUE(contains(*argv, {"-v", "/work/sandbox:/mnt/mesos/sandbox"}));
  EXPECT_TRUE(contains(*argv, {"-e", "MESOS_SANDBOX=/mnt/mesos/sandbox"}));
  EXPECT_TRUE(contains(*argv, {"-e", "MESOS_CONTAINER_NAME=mesos-c1"}));
  EXPECT_TRUE(contains(*argv, {"--net=host"}));
  // The image, then the command: nothing after the image is docker's.
  EXPECT_EQ((std::vector<std::string>{"--entrypoint=/bin/sh", "busybox:1.36", "-c", "echo hi"}),
            std::vector<std::string>(argv->end() - 4, argv->end()));
  EXPECT_TRUE(contains(*argv, {"--entrypoint=/bin/sh", "busybox:1.36", "-c", "echo hi"}));
}

TEST(DockerArgumentsTest, AProgramWithArgumentsFollowsTheImageAsGiven) {
  RunSpec run = spec(dockerContainer("busybox"));
  run.command.set_shell(false);
  run.command.set_value("/bin/echo");
  run.command.add_arguments("--rm");
  run.command.add_arguments("x y");
  auto argv = runArguments(kEndpoint, run);
  ASSERT_TRUE(argv) << argv.error().message;
  EXPECT_EQ((std::vector<std::string>{"busybox", "/bin/echo", "--rm", "x y"}),
            std::vector<std::string>(argv->end() - 4, argv->end()));
  EXPECT_EQ(std::find(argv->begin(), argv->end(), "--entrypoint=/bin/sh"), argv->end());
}

// A custom executor's token: its value is docker's own environment's, never
// an argument.
TEST(DockerArgumentsTest, APassedVariableIsNamedWithoutItsValue) {
  RunSpec run = spec(dockerContainer("busybox"));
  run.environment["MESOS_EXECUTOR_ID"] = "e1";
  run.passedVariables = {"MESOS_EXECUTOR_AUTHENTICATION_TOKEN"};
  auto argv = runArguments(kEndpoint, run);
  ASSERT_TRUE(argv) << argv.error().message;
  EXPECT_TRUE(contains(*argv, {"-e", "MESOS_EXECUTOR_ID=e1"}));
  EXPECT_TRUE(contains(*argv, {"-e", "MESOS_EXECUTOR_AUTHENTICATION_TOKEN"}));

  run.environment["MESOS_EXECUTOR_AUTHENTICATION_TOKEN"] = "secret";
  EXPECT_FALSE(runArguments(kEndpoint, run));
  run.environment.erase("MESOS_EXECUTOR_AUTHENTICATION_TOKEN");
  run.passedVariables = {"A=B"};
  EXPECT_FALSE(runArguments(kEndpoint, run));
}

TEST(DockerArgumentsTest, AHealthCheckCommandIsExecutedInTheContainerWithItsVariablesByName) {
  CommandInfo shell;
  shell.set_value("test -f /ready");
  auto* variable = shell.mutable_environment()->add_variables();
  variable->set_name("SECRET");
  variable->set_value("never-in-argv");
  const std::vector<std::string> argv = execArguments(kEndpoint, "mesos-c1", shell);
  std::vector<std::string> expected = daemonArguments(kEndpoint);
  expected.insert(expected.end(),
                  {"exec", "-e", "SECRET", "mesos-c1", "sh", "-c", "test -f /ready"});
  EXPECT_EQ(expected, argv);

  CommandInfo plain;
  plain.set_shell(false);
  plain.set_value("/bin/test");
  for (const char* argument : {"test", "-f", "/ready"}) plain.add_arguments(argument);
  expected = daemonArguments(kEndpoint);
  expected.insert(expected.end(), {"exec", "mesos-c1", "/bin/test", "-f", "/ready"});
  EXPECT_EQ(expected, execArguments(kEndpoint, "mesos-c1", plain));
}

TEST(DockerArgumentsTest, TinyResourcesGetDockersFloors) {
  RunSpec run = spec(dockerContainer("busybox"));
  run.resources = Resources::parse("cpus:0.001;mem:1").value();
  auto argv = runArguments(kEndpoint, run);
  ASSERT_TRUE(argv) << argv.error().message;
  EXPECT_TRUE(contains(*argv, {"--cpu-shares=2"}));
  EXPECT_TRUE(contains(*argv, {"--memory=" + std::to_string(kMinMemoryBytes)}));
}

TEST(DockerArgumentsTest, VolumesNetworkingParametersAndVariables) {
  ContainerInfo container = dockerContainer("registry:5000/team/app@sha256:abc");
  Volume* data = container.add_volumes();
  data->set_container_path("/data");
  data->set_host_path("/srv/data");
  data->set_mode(Volume::RO);
  Volume* cache = container.add_volumes();
  cache->set_container_path("/cache");
  cache->set_host_path("cache");
  cache->set_mode(Volume::RW);
  container.mutable_docker()->set_network(ContainerInfo::DockerInfo::BRIDGE);
  auto* mapping = container.mutable_docker()->add_port_mappings();
  mapping->set_host_port(31000);
  mapping->set_container_port(80);
  mapping->set_protocol("tcp");
  container.mutable_docker()->set_privileged(true);
  Parameter* parameter = container.mutable_docker()->add_parameters();
  parameter->set_key("memory-swap");
  parameter->set_value("-1");
  container.set_hostname("app-1");
  RunSpec run = spec(container);
  run.resources = Resources::parse("cpus:0.5;mem:64;ports:[30000-30010, 31000-31000]").value();
  auto* variable = run.command.mutable_environment()->add_variables();
  variable->set_name("GREETING");
  variable->set_value("a b=c");
  auto argv = runArguments(kEndpoint, run);
  ASSERT_TRUE(argv) << argv.error().message;
  EXPECT_TRUE(contains(*argv, {"-v", "/srv/data:/data:ro"}));
  EXPECT_TRUE(contains(*argv, {"-v", "/work/sandbox/cache:/cache:rw"}));
  EXPECT_TRUE(contains(*argv, {"--net=bridge"}));
  EXPECT_TRUE(contains(*argv, {"-p", "31000:80/tcp"}));
  EXPECT_TRUE(contains(*argv, {"--hostname=app-1"}));
  EXPECT_TRUE(contains(*argv, {"--privileged"}));
  EXPECT_TRUE(contains(*argv, {"--memory-swap=-1"}));
  EXPECT_TRUE(contains(*argv, {"-e", "GREETING=a b=c"}));

  // A host port the task's resources do not hold is not the task's.
  run.resources = Resources::parse("cpus:0.5;mem:64;ports:[30000-30999]").value();
  auto unheld = runArguments(kEndpoint, run);
  ASSERT_FALSE(unheld);
  EXPECT_NE(std::string::npos,
            unheld.error().message.find("host port 31000 is not in the task's ports"))
      << unheld.error().message;
  run.resources = Resources::parse("cpus:0.5;mem:64").value();
  EXPECT_FALSE(runArguments(kEndpoint, run));
}

TEST(DockerArgumentsTest, TheOtherCommandsEndTheirOptionsBeforeWhatTheyName) {
  EXPECT_EQ((std::vector<std::string>{"docker", "-H", "unix:///run/d.sock", "pull", "--", "busybox"}),
            pullArguments(kEndpoint, "busybox"));
  EXPECT_EQ((std::vector<std::string>{"docker", "-H", "unix:///run/d.sock", "stop", "-t", "7", "--",
                                      "mesos-c1"}),
            stopArguments(kEndpoint, "mesos-c1", std::chrono::seconds(7)));
  EXPECT_EQ((std::vector<std::string>{"docker", "-H", "unix:///run/d.sock", "rm", "-f", "-v", "--",
                                      "mesos-c1"}),
            removeArguments(kEndpoint, "mesos-c1"));
  EXPECT_EQ(
      (std::vector<std::string>{"docker", "-H", "unix:///run/d.sock", "update", "--cpu-shares=717",
                                "--memory=134217728", "--memory-swap=268435456", "--", "mesos-c1"}),
      updateArguments(kEndpoint, "mesos-c1", Resources::parse("cpus:0.7;mem:128").value()));
  auto list = listArguments(kEndpoint);
  EXPECT_TRUE(contains(list, {"ps", "-a"}));
  EXPECT_TRUE(contains(list, {"--filter", "name=mesos-"}));
}

TEST(DockerValidationTest, ImagesThatCouldBeReadAsOptionsAreRefused) {
  for (const char* image : {"", "-v", "--privileged", "busy box", "a=b", "busybox\n", ".hidden",
                            "x;rm"}) {
    auto valid = validateContainer(dockerContainer(image), "TaskInfo.container");
    EXPECT_FALSE(valid) << "'" << image << "'";
    if (!valid) {
      EXPECT_EQ(0u, valid.error().message.find("TaskInfo.container.docker.image"))
          << valid.error().message;
    }
  }
  for (const char* image : {"busybox", "busybox:1.36", "registry:5000/team/app:v2",
                            "app@sha256:0123abcd", "my_repo/app-x.y"}) {
    EXPECT_TRUE(validateContainer(dockerContainer(image), "c")) << image;
  }
}

TEST(DockerValidationTest, ParametersAreLongOptionsTheExecutorDoesNotOwn) {
  for (const char* key : {"", "-v", "--memory", "Memory", "mem ory", "name", "rm", "detach",
                          "memory=1"}) {
    ContainerInfo container = dockerContainer("busybox");
    Parameter* parameter = container.mutable_docker()->add_parameters();
    parameter->set_key(key);
    parameter->set_value("1");
    auto valid = validateContainer(container, "TaskInfo.container");
    EXPECT_FALSE(valid) << "'" << key << "'";
    if (!valid) {
      EXPECT_NE(std::string::npos,
                valid.error().message.find("TaskInfo.container.docker.parameters[0].key"))
          << valid.error().message;
    }
  }
  ContainerInfo container = dockerContainer("busybox");
  Parameter* parameter = container.mutable_docker()->add_parameters();
  parameter->set_key("cap-add");
  parameter->set_value("--privileged");  // a value: part of --cap-add=--privileged
  EXPECT_TRUE(validateContainer(container, "c"));
}

TEST(DockerValidationTest, VolumesPortsAndHostnamesAreChecked) {
  ContainerInfo relative = dockerContainer("busybox");
  Volume* volume = relative.add_volumes();
  volume->set_container_path("data");
  volume->set_host_path("/srv");
  volume->set_mode(Volume::RW);
  EXPECT_FALSE(validateContainer(relative, "c"));

  ContainerInfo colon = dockerContainer("busybox");
  volume = colon.add_volumes();
  volume->set_container_path("/data");
  volume->set_host_path("/srv:/etc");
  volume->set_mode(Volume::RW);
  EXPECT_FALSE(validateContainer(colon, "c"));

  ContainerInfo climbing = dockerContainer("busybox");
  volume = climbing.add_volumes();
  volume->set_container_path("/data");
  volume->set_host_path("../../other");
  volume->set_mode(Volume::RW);
  EXPECT_FALSE(validateContainer(climbing, "c"));

  ContainerInfo hostPorts = dockerContainer("busybox");
  auto* mapping = hostPorts.mutable_docker()->add_port_mappings();
  mapping->set_host_port(31000);
  mapping->set_container_port(80);
  auto ports = validateContainer(hostPorts, "c");
  ASSERT_FALSE(ports);
  EXPECT_NE(std::string::npos, ports.error().message.find("BRIDGE"));

  ContainerInfo named = dockerContainer("busybox");
  named.set_hostname("app");
  EXPECT_FALSE(validateContainer(named, "c"));  // HOST networking has the host's name
  named.mutable_docker()->set_network(ContainerInfo::DockerInfo::BRIDGE);
  EXPECT_TRUE(validateContainer(named, "c"));
  named.set_hostname("-x");
  EXPECT_FALSE(validateContainer(named, "c"));

  ContainerInfo cni = dockerContainer("busybox");
  cni.add_network_infos()->set_name("apps");
  EXPECT_FALSE(validateContainer(cni, "c"));
}

TEST(DockerOutputTest, InspectAndListAreRead) {
  auto inspected = parseInspect(
      R"([{"Id":"abc","Name":"/mesos-c1","State":{"Running":true,"Pid":42,"ExitCode":0,)"
      R"("Error":""}}])");
  ASSERT_TRUE(inspected) << inspected.error().message;
  EXPECT_EQ("abc", inspected->id);
  EXPECT_EQ("mesos-c1", inspected->name);
  EXPECT_TRUE(inspected->running);
  EXPECT_EQ(42, inspected->pid);
  auto exited = parseInspect(R"([{"Id":"abc","State":{"Running":false,"Pid":0,"ExitCode":3}}])");
  ASSERT_TRUE(exited);
  EXPECT_FALSE(exited->running);
  EXPECT_EQ(3, exited->exitCode);
  EXPECT_FALSE(parseInspect("[]"));
  EXPECT_FALSE(parseInspect("Error: No such container"));
  EXPECT_EQ((std::vector<std::string>{"mesos-a", "mesos-b"}),
            parseList("mesos-a\nother-mesos-x\nmesos-b\n\n"));
}

TEST(DockerOutputTest, RunCapturesTheProgramsOutputAndReason) {
  auto ran = run({"/bin/sh", "-c", "echo out; echo first >&2; echo 'the reason' >&2; exit 3"});
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_FALSE(ran->succeeded());
  EXPECT_EQ("out\n", ran->out);
  EXPECT_EQ("the reason", ran->reason());
  auto missing = run({"/nonexistent/docker", "info"});
  ASSERT_FALSE(missing);
  EXPECT_NE(std::string::npos, missing.error().message.find("/nonexistent/docker"));
}

}  // namespace
}  // namespace mesos::internal::docker
