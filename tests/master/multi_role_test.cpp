// MULTI_ROLE frameworks (docs/roles.md) through a real master, over the v1
// scheduler API and the v0 protocol: offers for each role with
// Resource.allocation_info, launches in either role (the role taken from
// the offers where the framework does not say it), UPDATE_FRAMEWORK
// changing roles and suppressed roles, per-role SUPPRESS and REVIVE, and
// what is refused, with the reason.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/master_fixture.hpp"
#include "support/net.hpp"
#include "support/v1_scheduler.hpp"

namespace mesos::test {
namespace {

using namespace std::chrono_literals;

class MultiRoleTest : public V1SchedulerFixture {
 protected:
  static V1Call subscribeRoles(const std::vector<std::string>& roles,
                               const std::vector<std::string>& suppressed = {}) {
    V1Call call = subscribeCall("multi");
    v1::FrameworkInfo* info = call.mutable_subscribe()->mutable_framework_info();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    info->clear_role();
#pragma GCC diagnostic pop
    info->add_capabilities()->set_type(v1::FrameworkInfo::Capability::MULTI_ROLE);
    for (const std::string& role : roles) info->add_roles(role);
    for (const std::string& role : suppressed) call.mutable_subscribe()->add_suppressed_roles(role);
    return call;
  }

  // Offers from the stream until one per role in `roles` came, by role.
  static std::map<std::string, v1::Offer> offersFor(Subscription& stream,
                                                    const std::set<std::string>& roles) {
    std::map<std::string, v1::Offer> byRole;
    for (int events = 0; events < 10 && byRole.size() < roles.size(); events++) {
      V1Event offers = stream.await(V1Event::OFFERS);
      for (const v1::Offer& offer : offers.offers().offers()) {
        EXPECT_TRUE(offer.has_allocation_info()) << offer.DebugString();
        byRole[offer.allocation_info().role()] = offer;
      }
    }
    return byRole;
  }

  V1Call update(const v1::FrameworkID& id, const std::vector<std::string>& roles,
                const std::vector<std::string>& suppressed = {}) {
    V1Call call = frameworkCall(V1Call::UPDATE_FRAMEWORK, id);
    v1::FrameworkInfo* info = call.mutable_update_framework()->mutable_framework_info();
    *info = subscribeRoles(roles).subscribe().framework_info();
    *info->mutable_id() = id;
    for (const std::string& role : suppressed) {
      call.mutable_update_framework()->add_suppressed_roles(role);
    }
    return call;
  }

  json::Value frameworkState(const std::string& id) {
    json::Value state = get("/master/state");
    for (const json::Value& framework : state["frameworks"].array()) {
      if (framework["id"].string() == id) return framework;
    }
    ADD_FAILURE() << "framework " << id << " is not in /master/state";
    return json::Value();
  }
};

TEST_F(MultiRoleTest, OffersForEachRoleCarryItAndALaunchRunsInTheOffersRole) {
  start();
  Peer& agent = slave("slave");
  SlaveID slaveId = registerSlave(agent, "cpus(a):1;mem(a):256;cpus(b):2;mem(b):512");
  V1Call subscribe = subscribeRoles({"a", "b"});
  subscribe.mutable_subscribe()->mutable_framework_info()->add_capabilities()->set_type(
      v1::FrameworkInfo::Capability::RESERVATION_REFINEMENT);
  Subscription stream(runtime_->address(), subscribe);
  ASSERT_EQ(200, stream.status());
  const v1::FrameworkID id = stream.expect(V1Event::SUBSCRIBED).subscribed().framework_id();

  auto offers = offersFor(stream, {"a", "b"});
  ASSERT_EQ(2u, offers.size());
  for (const auto& [role, offer] : offers) {
    double cpus = 0;
    for (const v1::Resource& resource : offer.resources()) {
      ASSERT_TRUE(resource.has_allocation_info()) << resource.DebugString();
      EXPECT_EQ(role, resource.allocation_info().role());
      // Each role is offered its own reservation only.
      ASSERT_EQ(1, resource.reservations_size());
      EXPECT_EQ(role, resource.reservations(0).role());
      if (resource.name() == "cpus") cpus += resource.scalar().value();
    }
    EXPECT_EQ(role == "a" ? 1.0 : 2.0, cpus);
  }

  // A task in b's offer that does not name its allocation role runs in b.
  V1Call accept = frameworkCall(V1Call::ACCEPT, id);
  *accept.mutable_accept()->add_offer_ids() = offers["b"].id();
  v1::Offer::Operation* launch = accept.mutable_accept()->add_operations();
  launch->set_type(v1::Offer::Operation::LAUNCH);
  *launch->mutable_launch()->add_task_infos() =
      evolve<v1::TaskInfo>(commandTask("in-b", slaveId, "cpus(b):1;mem(b):128", "sleep 100"));
  ASSERT_EQ(202, call(accept, stream.streamId()));
  settle();
  auto runs = agent.received<RunTaskMessage>();
  ASSERT_EQ(1u, runs.size());
  for (const Resource& resource : runs[0].task().resources()) {
    EXPECT_EQ("b", resource.allocation_info().role()) << resource.DebugString();
  }

  json::Value framework = frameworkState(id.value());
  ASSERT_EQ(2u, framework["roles"].array().size());
  EXPECT_EQ("a", framework["roles"].array().at(0).string());
  EXPECT_EQ("b", framework["roles"].array().at(1).string());
  ASSERT_EQ(1u, framework["tasks"].array().size());
  EXPECT_EQ("b", framework["tasks"].array().at(0)["role"].string());

  // /roles counts the task in b, and a's outstanding offer in a.
  json::Value roles = get("/roles");
  std::map<std::string, json::Value> byName;
  for (const json::Value& role : roles["roles"].array()) byName[role["name"].string()] = role;
  ASSERT_TRUE(byName.count("a") && byName.count("b")) << json::stringify(roles);
  EXPECT_EQ(1.0, byName["b"]["resources"]["cpus"].number());
  EXPECT_EQ(1.0, byName["a"]["resources"]["cpus"].number());
}

TEST_F(MultiRoleTest, OperationsMayNotMixRolesAndReservationsFollowTheAllocationRole) {
  start();
  Peer& agent = slave("slave");
  SlaveID slaveId = registerSlave(agent, "cpus:2;mem:1024");
  Subscription stream(runtime_->address(), subscribeRoles({"a", "b"}));
  ASSERT_EQ(200, stream.status());
  const v1::FrameworkID id = stream.expect(V1Event::SUBSCRIBED).subscribed().framework_id();
  V1Event event = stream.await(V1Event::OFFERS);
  ASSERT_EQ(1, event.offers().offers_size());
  const v1::Offer offer = event.offers().offers(0);
  const std::string role = offer.allocation_info().role();
  const std::string other = role == "a" ? "b" : "a";

  // A task whose resources say another allocation role than the offer's,
  // and a reservation for the other role: refused as a whole, with both
  // reasons.
  V1Call accept = frameworkCall(V1Call::ACCEPT, id);
  *accept.mutable_accept()->add_offer_ids() = offer.id();
  v1::Offer::Operation* reserve = accept.mutable_accept()->add_operations();
  reserve->set_type(v1::Offer::Operation::RESERVE);
  *reserve->mutable_reserve()->add_resources() = reservedFor(v1Scalar("cpus", 1), other);
  v1::Offer::Operation* launch = accept.mutable_accept()->add_operations();
  launch->set_type(v1::Offer::Operation::LAUNCH);
  v1::TaskInfo task = evolve<v1::TaskInfo>(commandTask("mixed", slaveId, "cpus:1;mem:128"));
  for (v1::Resource& resource : *task.mutable_resources()) {
    resource.mutable_allocation_info()->set_role(other);
  }
  *launch->mutable_launch()->add_task_infos() = task;
  ASSERT_EQ(202, call(accept, stream.streamId()));
  V1Event error = stream.await(V1Event::UPDATE);
  EXPECT_EQ(v1::TASK_ERROR, error.update().status().state());
  const std::string& message = error.update().status().message();
  EXPECT_NE(std::string::npos,
            message.find("resources allocated to role '" + other +
                         "' in offers allocated to role '" + role + "'"))
      << message;
  EXPECT_NE(std::string::npos,
            message.find("cannot reserve for role '" + other + "' resources offered to role '" +
                         role + "'"))
      << message;
  EXPECT_EQ(0u, agent.count<RunTaskMessage>());
  EXPECT_EQ(0u, agent.count<CheckpointResourcesMessage>());
}

TEST_F(MultiRoleTest, UpdateFrameworkChangesRolesAndRescindsOffersOfARoleLeft) {
  start();
  Peer& agent = slave("slave");
  registerSlave(agent, "cpus(a):1;mem(a):256;cpus(b):1;mem(b):256;cpus(c):1;mem(c):256");
  Subscription stream(runtime_->address(), subscribeRoles({"a", "b"}));
  ASSERT_EQ(200, stream.status());
  const v1::FrameworkID id = stream.expect(V1Event::SUBSCRIBED).subscribed().framework_id();
  auto offers = offersFor(stream, {"a", "b"});
  ASSERT_EQ(2u, offers.size());

  // What is refused changes nothing: a suppressed role it does not have,
  // another user.
  std::string body;
  EXPECT_EQ(400, call(update(id, {"b", "c"}, {"x"}), stream.streamId(), kProtobuf, &body));
  EXPECT_NE(std::string::npos, body.find("Suppressed role 'x' is not one of the framework's roles"))
      << body;
  V1Call otherUser = update(id, {"b", "c"});
  otherUser.mutable_update_framework()->mutable_framework_info()->set_user("someone-else");
  EXPECT_EQ(400, call(otherUser, stream.streamId(), kProtobuf, &body));
  EXPECT_NE(std::string::npos, body.find("Updating 'FrameworkInfo.user' is unsupported")) << body;
  EXPECT_EQ(2u, frameworkState(id.value())["roles"].array().size());

  // It leaves a and takes c: a's offer is rescinded, c's reservation is
  // offered.
  ASSERT_EQ(200, call(update(id, {"b", "c"}), stream.streamId()));
  V1Event rescind = stream.await(V1Event::RESCIND);
  EXPECT_EQ(offers["a"].id().value(), rescind.rescind().offer_id().value());
  auto more = offersFor(stream, {"c"});
  ASSERT_EQ(1u, more.count("c"));
  json::Value framework = frameworkState(id.value());
  ASSERT_EQ(2u, framework["roles"].array().size());
  EXPECT_EQ("b", framework["roles"].array().at(0).string());
  EXPECT_EQ("c", framework["roles"].array().at(1).string());

  // Nothing of a comes again, even once every offer is declined.
  for (const v1::Offer& offer : {offers["b"], more["c"]}) {
    V1Call decline = frameworkCall(V1Call::DECLINE, id);
    *decline.mutable_decline()->add_offer_ids() = offer.id();
    decline.mutable_decline()->mutable_filters()->set_refuse_seconds(0);
    ASSERT_EQ(202, call(decline, stream.streamId()));
  }
  advance(1s);
  auto again = offersFor(stream, {"b", "c"});
  EXPECT_EQ(0u, again.count("a"));
  EXPECT_EQ(2u, again.size());
}

TEST_F(MultiRoleTest, SuppressedRolesGetNoOffersUntilRevived) {
  start();
  Peer& agent = slave("slave");
  registerSlave(agent, "cpus(a):1;mem(a):256;cpus(b):1;mem(b):256");
  // Subscribed with b suppressed: only a is offered.
  Subscription stream(runtime_->address(), subscribeRoles({"a", "b"}, {"b"}));
  ASSERT_EQ(200, stream.status());
  const v1::FrameworkID id = stream.expect(V1Event::SUBSCRIBED).subscribed().framework_id();
  auto offers = offersFor(stream, {"a"});
  ASSERT_EQ(1u, offers.count("a"));

  // SUPPRESS and REVIVE name roles it has, or are refused.
  V1Call suppress = frameworkCall(V1Call::SUPPRESS, id);
  suppress.mutable_suppress()->add_roles("zz");
  std::string body;
  EXPECT_EQ(400, call(suppress, stream.streamId(), kProtobuf, &body));
  EXPECT_NE(std::string::npos, body.find("does not have role 'zz'")) << body;

  // a suppressed too, its offer declined: nothing comes.
  suppress.mutable_suppress()->set_roles(0, "a");
  ASSERT_EQ(202, call(suppress, stream.streamId()));
  V1Call decline = frameworkCall(V1Call::DECLINE, id);
  *decline.mutable_decline()->add_offer_ids() = offers["a"].id();
  decline.mutable_decline()->mutable_filters()->set_refuse_seconds(0);
  ASSERT_EQ(202, call(decline, stream.streamId()));
  advance(1s);
  advance(1s);
  EXPECT_TRUE(frameworkState(id.value())["offers"].array().empty());

  // Reviving b offers b's reservation, and only that.
  V1Call revive = frameworkCall(V1Call::REVIVE, id);
  revive.mutable_revive()->add_roles("b");
  ASSERT_EQ(202, call(revive, stream.streamId()));
  advance(1s);
  json::Value framework = frameworkState(id.value());
  ASSERT_EQ(1u, framework["offers"].array().size());
  for (const json::Value& offer : framework["offers"].array()) {
    EXPECT_EQ(1.0, offer["resources"]["cpus"].number());
  }
  auto revived = offersFor(stream, {"b"});
  EXPECT_EQ(1u, revived.count("b"));
  EXPECT_EQ(0u, revived.count("a"));
}

TEST_F(MultiRoleTest, AV0FrameworkOfTwoRolesRegistersAndRevivesOneRole) {
  start();
  Peer& agent = slave("slave");
  registerSlave(agent, "cpus(a):1;mem(a):256;cpus(b):1;mem(b):256");
  FrameworkInfo info = frameworkInfo("v0-multi");
  info.clear_role();
  info.add_capabilities()->set_type(FrameworkInfo::Capability::MULTI_ROLE);
  info.add_roles("a");
  info.add_roles("b");
  Peer& scheduler = this->scheduler("v0");
  FrameworkID id = registerFramework(scheduler, info);
  std::set<std::string> roles;
  for (const auto& message : scheduler.received<ResourceOffersMessage>()) {
    for (const Offer& offer : message.offers()) roles.insert(offer.allocation_info().role());
  }
  EXPECT_EQ((std::set<std::string>{"a", "b"}), roles);

  // Suppress a (the v0 message with roles); decline both: only b comes back
  // after REVIVE of b.
  SuppressOffersMessage suppress;
  *suppress.mutable_framework_id() = id;
  suppress.add_roles("a");
  scheduler.post(master(), suppress);
  runtime_->settle();
  std::vector<OfferID> all;
  for (const auto& message : scheduler.received<ResourceOffersMessage>()) {
    for (const Offer& offer : message.offers()) all.push_back(offer.id());
  }
  launch(scheduler, id, all, {}, 0);
  ReviveOffersMessage revive;
  *revive.mutable_framework_id() = id;
  revive.add_roles("b");
  scheduler.post(master(), revive);
  advance(1s);
  auto messages = scheduler.received<ResourceOffersMessage>();
  std::multiset<std::string> after;
  for (size_t i = 0; i < messages.size(); i++) {
    for (const Offer& offer : messages[i].offers()) after.insert(offer.allocation_info().role());
  }
  // Two at the start (a and b), one more since: b.
  EXPECT_EQ(1u, after.count("a"));
  EXPECT_EQ(2u, after.count("b"));
}

TEST_F(MultiRoleTest, ASubRoleIsOfferedItsParentsReservationAndRefinesIt) {
  start();
  Peer& agent = slave("slave");
  registerSlave(agent, "cpus(eng):2;mem(eng):512");
  V1Call subscribe = subscribeRoles({"eng/web"});
  subscribe.mutable_subscribe()->mutable_framework_info()->add_capabilities()->set_type(
      v1::FrameworkInfo::Capability::RESERVATION_REFINEMENT);
  Subscription stream(runtime_->address(), subscribe);
  ASSERT_EQ(200, stream.status());
  const v1::FrameworkID id = stream.expect(V1Event::SUBSCRIBED).subscribed().framework_id();
  v1::Offer offer = offersFor(stream, {"eng/web"})["eng/web"];
  ASSERT_GT(offer.resources_size(), 0);
  for (const v1::Resource& resource : offer.resources()) {
    ASSERT_EQ(1, resource.reservations_size()) << resource.DebugString();
    EXPECT_EQ("eng", resource.reservations(0).role());
  }

  // It refines one cpu of eng's reservation to its own role.
  V1Call accept = frameworkCall(V1Call::ACCEPT, id);
  *accept.mutable_accept()->add_offer_ids() = offer.id();
  accept.mutable_accept()->mutable_filters()->set_refuse_seconds(0);
  v1::Offer::Operation* reserve = accept.mutable_accept()->add_operations();
  reserve->set_type(v1::Offer::Operation::RESERVE);
  *reserve->mutable_reserve()->add_resources() = reservedFor(
      reservedFor(v1Scalar("cpus", 1), "eng", v1::Resource::ReservationInfo::STATIC), "eng/web");
  ASSERT_EQ(202, call(accept, stream.streamId()));
  settle();
  ASSERT_EQ(1u, agent.count<CheckpointResourcesMessage>());
  advance(1s);
  v1::Offer refined = offersFor(stream, {"eng/web"})["eng/web"];
  double own_cpus = 0;
  for (const v1::Resource& resource : refined.resources()) {
    if (resource.name() == "cpus" && resource.reservations_size() == 2) {
      EXPECT_EQ("eng/web", resource.reservations(1).role());
      own_cpus += resource.scalar().value();
    }
  }
  EXPECT_EQ(1.0, own_cpus);
}

// The slaves running a framework's tasks hear of its new FrameworkInfo on
// UPDATE_FRAMEWORK (Apache's UpdateFrameworkMessage.framework_info); a
// slave where it runs nothing hears nothing.
TEST_F(MultiRoleTest, TheSlavesRunningItsTasksHearOfItsNewRoles) {
  start();
  Peer& busy = slave("busy");
  SlaveID busyId = registerSlave(busy, "cpus(a):1;mem(a):256");
  Peer& idle = slave("idle");
  registerSlave(idle, "cpus(b):1;mem(b):256");
  Subscription stream(runtime_->address(), subscribeRoles({"a", "b"}));
  ASSERT_EQ(200, stream.status());
  const v1::FrameworkID id = stream.expect(V1Event::SUBSCRIBED).subscribed().framework_id();
  auto offers = offersFor(stream, {"a", "b"});
  ASSERT_EQ(2u, offers.size());
  V1Call accept = frameworkCall(V1Call::ACCEPT, id);
  *accept.mutable_accept()->add_offer_ids() = offers["a"].id();
  v1::Offer::Operation* launch = accept.mutable_accept()->add_operations();
  launch->set_type(v1::Offer::Operation::LAUNCH);
  *launch->mutable_launch()->add_task_infos() =
      evolve<v1::TaskInfo>(commandTask("in-a", busyId, "cpus(a):1;mem(a):128", "sleep 100"));
  ASSERT_EQ(202, call(accept, stream.streamId()));
  settle();
  ASSERT_EQ(1u, busy.count<RunTaskMessage>());

  ASSERT_EQ(200, call(update(id, {"a", "c"}), stream.streamId()));
  settle();
  ASSERT_EQ(1u, busy.count<UpdateFrameworkMessage>());
  UpdateFrameworkMessage told = busy.received<UpdateFrameworkMessage>()[0];
  EXPECT_EQ(id.value(), told.framework_id().value());
  EXPECT_EQ("", told.pid()) << "an HTTP scheduler is reached through the master";
  ASSERT_TRUE(told.has_framework_info());
  EXPECT_EQ(id.value(), told.framework_info().id().value());
  ASSERT_EQ(2, told.framework_info().roles_size());
  EXPECT_EQ("c", told.framework_info().roles(1));
  EXPECT_EQ(0u, idle.count<UpdateFrameworkMessage>());
}

// As Apache Mesos's allocator: a slave that does not declare MULTI_ROLE is
// offered to no MULTI_ROLE framework, one without HIERARCHICAL_ROLE to no
// hierarchical role; other frameworks get it.
TEST_F(MultiRoleTest, ASlaveWithoutTheRoleCapabilitiesIsOfferedOnlyToPlainRoles) {
  start();
  Peer& old = slave("old");
  SlaveID oldId = registerSlave(old, "cpus:1;mem:256", {SlaveInfo::Capability::AGENT_DRAINING});
  Peer& modern = slave("modern");
  SlaveID modernId = registerSlave(modern, "cpus:1;mem:256");
  auto offeredSlaves = [](Peer& scheduler) {
    std::set<std::string> slaves;
    for (const ResourceOffersMessage& message : scheduler.received<ResourceOffersMessage>()) {
      for (const Offer& offer : message.offers()) slaves.insert(offer.slave_id().value());
    }
    return slaves;
  };

  Peer& multi = scheduler("multi");
  FrameworkInfo multiInfo = frameworkInfo("multi");
  multiInfo.clear_role();
  multiInfo.add_roles("a");
  multiInfo.add_capabilities()->set_type(FrameworkInfo::Capability::MULTI_ROLE);
  registerFramework(multi, multiInfo);
  advance(1s);
  EXPECT_EQ(std::set<std::string>{modernId.value()}, offeredSlaves(multi));

  Peer& web = scheduler("web");
  registerFramework(web, frameworkInfo("web", "eng/web"));
  advance(1s);
  advance(1s);
  EXPECT_TRUE(offeredSlaves(web).empty()) << "the old slave was offered to a hierarchical role";

  Peer& plain = scheduler("plain");
  registerFramework(plain, frameworkInfo("plain", "eng"));
  advance(1s);
  EXPECT_EQ(std::set<std::string>{oldId.value()}, offeredSlaves(plain));
  EXPECT_EQ(std::set<std::string>{modernId.value()}, offeredSlaves(multi));
}

}  // namespace
}  // namespace mesos::test
