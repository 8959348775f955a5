// How /state renders resources: summed over roles, and the reserved part
// kept apart by role (Apache Mesos's reserved_resources and
// unreserved_resources).
#include <gtest/gtest.h>

#include <string>

#include "common/state_json.hpp"

namespace mesos {
namespace {

Resources parsed(const std::string& text) {
  auto result = Resources::parse(text);
  EXPECT_TRUE(result.ok()) << text;
  return result.ok() ? result.value() : Resources();
}

TEST(StateJsonTest, ResourcesAreSummedOverRoles) {
  json::Value all = json::fromResources(
      parsed("cpus:2;cpus(prod):1;mem:1024;ports:[31000-31009];ports(prod):[40000-40001];"
             "zones:{a};zones(prod):{b}"));
  EXPECT_EQ(3, all["cpus"].number());
  EXPECT_EQ(1024, all["mem"].number());
  EXPECT_EQ(0, all["disk"].number());
  EXPECT_EQ(0, all["gpus"].number());
  EXPECT_EQ("[31000-31009, 40000-40001]", all["ports"].string());
  EXPECT_EQ("{a, b}", all["zones"].string());
}

TEST(StateJsonTest, ReservedResourcesAreKeptApartByRole) {
  Resources resources = parsed("cpus:2;cpus(prod):1;mem:1024;mem(dev):64;disk(prod):10");
  json::Value reserved = json::reservedResources(resources);
  ASSERT_TRUE(reserved.isObject());
  ASSERT_EQ(2u, reserved.object().size());
  EXPECT_EQ(1, reserved["prod"]["cpus"].number());
  EXPECT_EQ(10, reserved["prod"]["disk"].number());
  EXPECT_EQ(0, reserved["prod"]["mem"].number());
  EXPECT_EQ(64, reserved["dev"]["mem"].number());
  EXPECT_EQ(0, reserved["dev"]["cpus"].number());
  json::Value unreserved = json::unreservedResources(resources);
  EXPECT_EQ(2, unreserved["cpus"].number());
  EXPECT_EQ(1024, unreserved["mem"].number());
  EXPECT_EQ(0, unreserved["disk"].number());
}

TEST(StateJsonTest, NothingReservedIsAnEmptyObject) {
  json::Value reserved = json::reservedResources(parsed("cpus:2;mem:1024"));
  ASSERT_TRUE(reserved.isObject());
  EXPECT_TRUE(reserved.object().empty());
}

}  // namespace
}  // namespace mesos
