// Role names: what Apache Mesos 1.x accepts, and its words for what it does not.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/roles.hpp"
#include "mesos/resources.hpp"

namespace mesos {
namespace {

TEST(RolesTest, AcceptsStarPlainAndHierarchicalNames) {
  for (const char* role : {"*", "prod", "eng/backend", "a/b/c", "web-1", "x.y", "a/.b", "_"}) {
    EXPECT_TRUE(roles::validate(role).ok()) << role;
  }
}

TEST(RolesTest, RefusesWhatApachesRefusesInItsWords) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "Role names cannot be the empty string"},
      {"/eng", "Role '/eng' cannot start with a slash"},
      {"eng/", "Role 'eng/' cannot end with a slash"},
      {"eng//backend", "Role 'eng//backend' cannot contain two adjacent slashes"},
      {".", "Role '.' cannot include '.' as a component"},
      {"eng/..", "Role 'eng/..' cannot include '..' as a component"},
      {"eng/*", "Role 'eng/*' cannot include '*' as a component"},
      {"eng/-x", "Role component '-x' is invalid because it starts with a dash"},
      {"a b", "Role component 'a b' is invalid because it contains backspace or whitespace"},
      {"a\tb", "Role component 'a\tb' is invalid because it contains backspace or whitespace"},
      {"a\x7f", "Role component 'a\x7f' is invalid because it contains backspace or whitespace"},
  };
  for (const auto& [role, message] : cases) {
    auto valid = roles::validate(role);
    ASSERT_FALSE(valid.ok()) << role;
    EXPECT_EQ(message, valid.error().message);
  }
}

TEST(RolesTest, ResourcesCarryOnlyValidRoles) {
  EXPECT_TRUE(Resources::parse("cpus(eng/backend):1;mem(*):2").ok());
  auto bad = Resources::parse("cpus(eng/):1");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string::npos, bad.error().message.find("Role 'eng/' cannot end with a slash"))
      << bad.error().message;
  Resource resource;
  resource.set_name("cpus");
  resource.set_type(Value::SCALAR);
  resource.mutable_scalar()->set_value(1);
  resource.set_role("../x");
  auto invalid = Resources::validate(resource);
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ("resource 'cpus': Role '../x' cannot include '..' as a component",
            invalid.error().message);
}

}  // namespace
}  // namespace mesos
