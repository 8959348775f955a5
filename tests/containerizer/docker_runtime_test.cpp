// docker/runtime's rules (Apache Mesos's): which command a container from
// an image runs, and its environment.
#include <gtest/gtest.h>

#include "slave/containerizer/isolators/docker/runtime_isolator.hpp"

namespace mesos::internal::isolation {
namespace {

using Image = mesos::isolation::ContainerConfig::Image;

std::vector<std::string> argvOf(const CommandInfo& command) {
  return {command.arguments().begin(), command.arguments().end()};
}

CommandInfo program(const std::vector<std::string>& arguments) {
  CommandInfo command;
  command.set_shell(false);
  for (const std::string& argument : arguments) command.add_arguments(argument);
  return command;
}

TEST(DockerRuntimeTest, AShellCommandOrAValueIgnoresTheImage) {
  Image image{{"/entry"}, {"cmd"}, {}, "", ""};
  CommandInfo shell;
  shell.set_value("echo hi");
  auto ran = imageCommand(shell, image);
  ASSERT_TRUE(ran);
  EXPECT_TRUE(ran->shell());
  EXPECT_EQ("echo hi", ran->value());
  CommandInfo given = program({"ls", "-l"});
  given.set_value("/bin/ls");
  ran = imageCommand(given, image);
  ASSERT_TRUE(ran);
  EXPECT_EQ("/bin/ls", ran->value());
  EXPECT_EQ((std::vector<std::string>{"ls", "-l"}), argvOf(*ran));
}

TEST(DockerRuntimeTest, TheEntrypointRunsWithTheArgumentsElseWithCmd) {
  Image image{{"/entry", "-x"}, {"a", "b"}, {}, "", ""};
  auto ran = imageCommand(program({}), image);
  ASSERT_TRUE(ran);
  EXPECT_EQ("/entry", ran->value());
  EXPECT_EQ((std::vector<std::string>{"/entry", "-x", "a", "b"}), argvOf(*ran));
  ran = imageCommand(program({"c"}), image);
  ASSERT_TRUE(ran);
  EXPECT_EQ((std::vector<std::string>{"/entry", "-x", "c"}), argvOf(*ran));
}

TEST(DockerRuntimeTest, WithoutAnEntrypointCmdsFirstWordIsTheProgram) {
  Image image{{}, {"/bin/app", "--default"}, {}, "", ""};
  auto ran = imageCommand(program({}), image);
  ASSERT_TRUE(ran);
  EXPECT_EQ("/bin/app", ran->value());
  EXPECT_EQ((std::vector<std::string>{"/bin/app", "--default"}), argvOf(*ran));
  ran = imageCommand(program({"--mine"}), image);
  ASSERT_TRUE(ran);
  EXPECT_EQ((std::vector<std::string>{"/bin/app", "--mine"}), argvOf(*ran));
}

TEST(DockerRuntimeTest, NothingToRunIsAnError) {
  auto ran = imageCommand(program({}), Image{});
  ASSERT_FALSE(ran);
  EXPECT_NE(std::string::npos, ran.error().message.find("neither Entrypoint nor Cmd"));
}

TEST(DockerRuntimeTest, TheImagesEnvironmentGoesUnderTheFrameworks) {
  Image image{{}, {}, {"PATH=/image/bin", "GREETING=hi", "broken", "=x"}, "", ""};
  CommandInfo command;
  auto* variable = command.mutable_environment()->add_variables();
  variable->set_name("GREETING");
  variable->set_value("mine");
  CommandInfo merged = withImageEnvironment(command, image);
  std::map<std::string, std::string> seen;
  for (const auto& v : merged.environment().variables()) seen[v.name()] = v.value();
  EXPECT_EQ((std::map<std::string, std::string>{{"PATH", "/image/bin"}, {"GREETING", "mine"}}),
            seen);
}

}  // namespace
}  // namespace mesos::internal::isolation
