// exec/task_cgroup.hpp: what the default executor reads from the cgroups
// isolator's variables, and the cgroup it makes for a task (below this
// process's own cgroup, as below the executor's container's).
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "exec/task_cgroup.hpp"
#include "slave/containerizer/isolators/cgroups/cgroups.hpp"

namespace mesos::internal {
namespace {

TEST(TaskCgroupConfigTest, ReadsTheIsolatorsVariables) {
  EXPECT_FALSE(taskCgroupsConfig({{"PATH", "/bin"}}));
  EXPECT_FALSE(taskCgroupsConfig({{cgroups::kHierarchyVariable, ""}}));
  auto v1 = taskCgroupsConfig({{cgroups::kHierarchyVariable, "/cg"},
                               {cgroups::kControllersVariable, "cpu,cpuacct,memory"}});
  ASSERT_TRUE(v1);
  EXPECT_EQ("/cg", v1->hierarchy);
  EXPECT_EQ((std::vector<std::string>{"cpu", "cpuacct", "memory"}), v1->controllers);
  auto v2 = taskCgroupsConfig(
      {{cgroups::kHierarchyVariable, "/cg"}, {cgroups::kControllersVariable, ""}});
  ASSERT_TRUE(v2);
  EXPECT_TRUE(v2->controllers.empty());
}

TEST(TaskCgroupTest, ATaskGetsACgroupBelowThisProcesssOwnUnlessItsIdCannotNameOne) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups";
  auto layout = cgroups::Layout::detect();
  if (!layout) GTEST_SKIP() << "no cgroups: " << layout.error().message;
  const bool v1 = layout->version() == cgroups::Version::kV1;
  if (v1 && !layout->has("memory")) GTEST_SKIP() << "no memory controller";
  const TaskCgroupsConfig config{cgroups::kDefaultHierarchy, v1 ? std::vector<std::string>{"memory"}
                                                                : std::vector<std::string>{}};
  const std::string id = "task_cgroup_test_" + std::to_string(::getpid());

  auto made = makeTaskCgroup(config, id);
  if (!made && made.error().code == EACCES) GTEST_SKIP() << made.error().message;
  ASSERT_TRUE(made) << made.error().message;
  const std::string self = layout->self(v1 ? "memory" : "").value_or("/");
  const std::string dir =
      layout->root(v1 ? "memory" : "") + (self == "/" ? "" : self) + "/task/" + id;
  EXPECT_EQ((std::vector<std::string>{dir}), made->dirs());
  EXPECT_TRUE(std::filesystem::is_directory(dir)) << dir;
  EXPECT_EQ((std::vector<std::string>{dir + "/cgroup.procs"}), joinFilesOf(*made));

  // "tasks" (v1) or "cgroup.procs" (both) are control files of task/.
  auto control = makeTaskCgroup(config, v1 ? "tasks" : "cgroup.procs");
  ASSERT_FALSE(control);
  EXPECT_NE(std::string::npos, control.error().message.find("is the name of a cgroup control file"))
      << control.error().message;
  auto invalid = makeTaskCgroup(config, "../escape");
  ASSERT_FALSE(invalid);
  EXPECT_NE(std::string::npos, invalid.error().message.find("task id '../escape' is not valid"))
      << invalid.error().message;

  auto removed = cgroups::remove(*made);
  EXPECT_TRUE(removed) << removed.error().message;
  if (auto parent = layout->cgroup(kTaskCgroupsParent, config.controllers)) {
    (void)cgroups::remove(*parent);
  }
}

}  // namespace
}  // namespace mesos::internal
