// Framework capabilities as Apache Mesos 1.x clients declare them: every
// value of Apache's enum registers, a value this master does not know is
// ignored rather than fatal, a MULTI_ROLE framework's first role shows as
// its role, and roles that cannot be honoured are refused with the reason.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/master_fixture.hpp"

namespace mesos::test {
namespace {

using Capability = FrameworkInfo::Capability;

class CapabilitiesTest : public MasterFixture {
 protected:
  // The framework's entry in /master/state.
  json::Value stateOf(const FrameworkID& id) {
    json::Value state = get("/master/state");
    for (const json::Value& framework : state["frameworks"].array()) {
      if (framework["id"].string() == id.value()) return framework;
    }
    ADD_FAILURE() << "framework " << id.value() << " not in /master/state";
    return json::Value();
  }

  // What the master answers a registration that it refuses.
  std::string refusal(const FrameworkInfo& info) {
    Peer& scheduler = this->scheduler("refused-" + std::to_string(++refused_));
    RegisterFrameworkMessage message;
    *message.mutable_framework() = info;
    scheduler.post(master(), message);
    runtime_->settle();
    EXPECT_TRUE(scheduler.received<FrameworkRegisteredMessage>().empty());
    auto errors = scheduler.received<FrameworkErrorMessage>();
    return errors.empty() ? std::string() : errors.back().message();
  }

  int refused_ = 0;
};

TEST_F(CapabilitiesTest, EveryApacheCapabilityAndAnUnknownOneRegister) {
  start();
  FrameworkInfo info = frameworkInfo("modern");
  for (Capability::Type type :
       {Capability::REVOCABLE_RESOURCES, Capability::TASK_KILLING_STATE,
        Capability::GPU_RESOURCES, Capability::SHARED_RESOURCES, Capability::PARTITION_AWARE,
        Capability::RESERVATION_REFINEMENT, Capability::REGION_AWARE}) {
    info.add_capabilities()->set_type(type);
  }
  // A capability from a newer client: field 10 holding {type: 99}, as a
  // later Apache Mesos would send it.
  std::string bytes = info.SerializeAsString() + std::string("\x52\x02\x08\x63", 4);
  FrameworkInfo withUnknown;
  ASSERT_TRUE(withUnknown.ParseFromString(bytes));
  ASSERT_EQ(withUnknown.capabilities_size(), 8);
  EXPECT_FALSE(withUnknown.capabilities(7).has_type());

  Peer& scheduler = this->scheduler("modern");
  FrameworkID id = registerFramework(scheduler, withUnknown);
  std::vector<std::string> shown;
  json::Value framework = stateOf(id);
  for (const json::Value& name : framework["capabilities"].array()) {
    shown.push_back(name.string());
  }
  EXPECT_EQ(shown, (std::vector<std::string>{"REVOCABLE_RESOURCES", "TASK_KILLING_STATE",
                                             "GPU_RESOURCES", "SHARED_RESOURCES",
                                             "PARTITION_AWARE", "RESERVATION_REFINEMENT",
                                             "REGION_AWARE"}));
}

TEST_F(CapabilitiesTest, AMultiRoleFrameworkWithOneRoleHasThatRole) {
  start();
  FrameworkInfo info = frameworkInfo("multi");
  info.clear_role();
  info.add_capabilities()->set_type(Capability::MULTI_ROLE);
  info.add_roles("analytics");
  Peer& scheduler = this->scheduler("multi");
  FrameworkID id = registerFramework(scheduler, info);
  EXPECT_EQ(stateOf(id)["role"].string(), "analytics");
}

TEST_F(CapabilitiesTest, RolesThatCannotBeHonouredAreRefusedWithTheReason) {
  start();
  FrameworkInfo twice = frameworkInfo("twice");
  twice.clear_role();
  twice.add_capabilities()->set_type(Capability::MULTI_ROLE);
  twice.add_roles("a");
  twice.add_roles("b");
  twice.add_roles("a");
  EXPECT_EQ(refusal(twice), "FrameworkInfo.roles names role 'a' twice");

  FrameworkInfo badRole = frameworkInfo("bad-role");
  badRole.clear_role();
  badRole.add_capabilities()->set_type(Capability::MULTI_ROLE);
  badRole.add_roles("a");
  badRole.add_roles("b/../c");
  EXPECT_NE(refusal(badRole).find("'b/../c'"), std::string::npos) << refusal(badRole);

  FrameworkInfo undeclared = frameworkInfo("undeclared");
  undeclared.clear_role();
  undeclared.add_roles("a");
  EXPECT_EQ(refusal(undeclared),
            "FrameworkInfo.roles needs the MULTI_ROLE capability (or use FrameworkInfo.role)");

  FrameworkInfo both = frameworkInfo("both", "a");
  both.add_capabilities()->set_type(Capability::MULTI_ROLE);
  both.add_roles("a");
  EXPECT_EQ(refusal(both),
            "FrameworkInfo.role must not be set with the MULTI_ROLE capability (use roles)");
}

}  // namespace
}  // namespace mesos::test
