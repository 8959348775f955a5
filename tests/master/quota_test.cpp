// Quota and weights at run time (docs/quota.md, docs/roles.md) against a
// real master with stand-in schedulers and slaves on the paused clock:
// /quota, /weights and the v1 calls with Apache's checks and messages, the
// limits in real offers, /roles, the ACLs, and what survives a master
// failover.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "common/protobuf_json.hpp"
#include "support/master_fixture.hpp"
#include "support/net.hpp"
#include "support/raw_peer.hpp"
#include "v1/master.pb.h"

namespace mesos::test {
namespace {

// A JSON number, or a huge negative number for anything else (a missing field fails the
// comparison instead of aborting the test program).
double num(const json::Value& value) { return value.isNumber() ? value.number() : -1e300; }

using Call = v1::master::Call;
using V1Response = v1::master::Response;

std::string basic(const std::string& principal) {
  if (principal == "ops") return "Authorization: Basic b3BzOm9wcy1zZWNyZXQ=\r\n";
  if (principal == "alice") return "Authorization: Basic YWxpY2U6YWxpY2Utc2VjcmV0\r\n";
  return "";
}

class QuotaEndpointsTest : public MasterFixture {
 protected:
  void TearDown() override {
    MasterFixture::TearDown();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  HttpResponse request(const std::string& method, const std::string& path,
                       const std::string& body = "", const std::string& principal = "") {
    RawPeer peer(runtime_->address());
    EXPECT_TRUE(peer.write(method + " " + path +
                           " HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                           "Accept: application/json\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n" + basic(principal) + "\r\n" +
                           body));
    auto response = peer.readResponse();
    EXPECT_TRUE(response.has_value()) << "no answer to " << method << " " << path;
    runtime_->settle();
    return response.value_or(HttpResponse{});
  }
  HttpResponse call(const std::string& json, const std::string& principal = "") {
    return request("POST", "/api/v1", json, principal);
  }
  quota::QuotaStatus quotaStatus(const std::string& principal = "") {
    HttpResponse answer = request("GET", "/quota", "", principal);
    EXPECT_EQ(200, answer.status) << answer.body;
    quota::QuotaStatus status;
    EXPECT_TRUE(fromJson(answer.body, &status)) << answer.body;
    return status;
  }
  // The role's object in /roles, or null.
  json::Value role(const std::string& name, const std::string& principal = "") {
    HttpResponse answer = request("GET", "/roles", "", principal);
    EXPECT_EQ(200, answer.status) << answer.body;
    auto parsed = json::parse(answer.body);
    EXPECT_TRUE(parsed.ok()) << answer.body;
    if (!parsed.ok() || !(*parsed)["roles"].isArray()) return json::Value();
    for (const json::Value& entry : (*parsed)["roles"].array()) {
      if (entry["name"].string() == name) return entry;
    }
    return json::Value();
  }
  std::string tempDir() {
    dir_ = std::filesystem::temp_directory_path() /
           ("quota-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    return dir_;
  }
  double offeredCpus(Peer& scheduler) {
    double cpus = 0;
    for (const auto& message : scheduler.received<ResourceOffersMessage>()) {
      for (const Offer& offer : message.offers()) {
        cpus += Resources(offer.resources()).scalar("cpus");
      }
    }
    return cpus;
  }

  std::string dir_;
};

TEST_F(QuotaEndpointsTest, SetShowAndRemoveTheOldWay) {
  start();
  Peer& a = slave("a");
  registerSlave(a, "cpus:8;mem:8192");
  HttpResponse set = request(
      "POST", "/quota",
      R"({"role": "prod", "guarantee": [{"name": "cpus", "type": "SCALAR", "scalar": {"value": 2}}]})");
  ASSERT_EQ(200, set.status) << set.body;
  quota::QuotaStatus status = quotaStatus();
  ASSERT_EQ(1, status.configs_size());
  EXPECT_EQ("prod", status.configs(0).role());
  // As Apache's: the old request's guarantee is the limit too.
  EXPECT_EQ(2, status.configs(0).guarantees().at("cpus").value());
  EXPECT_EQ(2, status.configs(0).limits().at("cpus").value());
  // The JSON is Apache's: maps as objects.
  HttpResponse raw = request("GET", "/quota");
  EXPECT_NE(std::string::npos, raw.body.find(R"("guarantees":{"cpus":{"value":2)")) << raw.body;

  HttpResponse again = request(
      "POST", "/quota",
      R"({"role": "prod", "guarantee": [{"name": "cpus", "type": "SCALAR", "scalar": {"value": 1}}]})");
  EXPECT_EQ(400, again.status);
  EXPECT_NE(std::string::npos, again.body.find("which already has quota")) << again.body;
  // More than the cluster holds: 409, unless forced.
  std::string big =
      R"({"role": "dev", "guarantee": [{"name": "cpus", "type": "SCALAR", "scalar": {"value": 100}}])";
  HttpResponse overcommit = request("POST", "/quota", big + "}");
  EXPECT_EQ(409, overcommit.status);
  EXPECT_NE(std::string::npos, overcommit.body.find("exceed cluster capacity")) << overcommit.body;
  EXPECT_EQ(200, request("POST", "/quota", big + R"(, "force": true})").status);

  EXPECT_EQ(200, request("DELETE", "/quota/dev").status);
  HttpResponse none = request("DELETE", "/quota/dev");
  EXPECT_EQ(400, none.status);
  EXPECT_NE(std::string::npos, none.body.find("Role 'dev' has no quota set")) << none.body;
  EXPECT_EQ(1, quotaStatus().configs_size());
}

TEST_F(QuotaEndpointsTest, UpdateQuotaIsCheckedWithApachesRules) {
  start();
  registerSlave(slave("a"), "cpus:8;mem:8192");
  auto update = [&](const std::string& configs, bool force = false) {
    return call(std::string(R"({"type": "UPDATE_QUOTA", "update_quota": {"force": )") +
                (force ? "true" : "false") + R"(, "quota_configs": [)" + configs + "]}}");
  };
  HttpResponse star = update(R"({"role": "*", "guarantees": {"cpus": {"value": 1}}})");
  EXPECT_EQ(400, star.status);
  EXPECT_NE(std::string::npos, star.body.find("'*' role")) << star.body;
  HttpResponse badRole = update(R"({"role": "a//b", "guarantees": {}})");
  EXPECT_EQ(400, badRole.status);
  EXPECT_NE(std::string::npos, badRole.body.find("Invalid 'QuotaConfig.role'")) << badRole.body;
  HttpResponse above = update(
      R"({"role": "r", "guarantees": {"cpus": {"value": 4}}, "limits": {"cpus": {"value": 2}}})");
  EXPECT_EQ(400, above.status);
  EXPECT_NE(std::string::npos, above.body.find("is not contained within the 'QuotaConfig.limits'"))
      << above.body;
  // A child's guarantee must fit in its parent's.
  HttpResponse child = update(R"({"role": "eng", "guarantees": {"cpus": {"value": 1}}},
                                 {"role": "eng/web", "guarantees": {"cpus": {"value": 2}}})");
  EXPECT_EQ(400, child.status);
  EXPECT_NE(std::string::npos, child.body.find("Parent role 'eng'")) << child.body;
  HttpResponse capacity = update(R"({"role": "r", "guarantees": {"cpus": {"value": 9}}})");
  EXPECT_EQ(400, capacity.status);
  EXPECT_NE(std::string::npos, capacity.body.find("use 'force' flag")) << capacity.body;
  EXPECT_EQ(0, quotaStatus().configs_size());  // all or nothing: none stored

  ASSERT_EQ(200, update(R"({"role": "eng", "guarantees": {"cpus": {"value": 3}}},
                           {"role": "eng/web", "guarantees": {"cpus": {"value": 2}},
                            "limits": {"cpus": {"value": 4}}})")
                     .status);
  HttpResponse got = call(R"({"type": "GET_QUOTA"})");
  ASSERT_EQ(200, got.status);
  V1Response response;
  ASSERT_TRUE(fromJson(got.body, &response)) << got.body;
  EXPECT_EQ(V1Response::GET_QUOTA, response.type());
  EXPECT_EQ(2, response.get_quota().status().configs_size());
  // An empty config removes a role's quota (children first).
  ASSERT_EQ(200, update(R"({"role": "eng/web"}, {"role": "eng"})").status);
  EXPECT_EQ(0, quotaStatus().configs_size());
}

TEST_F(QuotaEndpointsTest, LimitsHoldInOffersAndRolesShowsThem) {
  start();
  registerSlave(slave("a"), "cpus:4;mem:4096");
  registerSlave(slave("b"), "cpus:4;mem:4096");
  ASSERT_EQ(200, call(R"({"type": "UPDATE_QUOTA", "update_quota": {"quota_configs": [
                          {"role": "capped", "limits": {"cpus": {"value": 3}}}]}})")
                     .status);
  Peer& s = scheduler("s");
  FrameworkID frameworkId = registerFramework(s, frameworkInfo("s", "capped"));
  advance(flags_.allocation_interval);
  EXPECT_DOUBLE_EQ(3, offeredCpus(s));

  json::Value capped = role("capped");
  ASSERT_TRUE(capped.isObject());
  EXPECT_EQ(3, num(capped["quota"]["limit"]["cpus"]));
  EXPECT_EQ(3, num(capped["quota"]["consumed"]["cpus"]));
  EXPECT_EQ(3, num(capped["offered"]["cpus"]));
  ASSERT_TRUE(capped["frameworks"].isArray());
  EXPECT_EQ(1u, capped["frameworks"].array().size());

  // A limit below what the role's tasks hold needs force (its offers do
  // not count: they would be rescinded).
  std::optional<Offer> withCpus;
  for (const auto& message : s.received<ResourceOffersMessage>()) {
    for (const Offer& offer : message.offers()) {
      if (Resources(offer.resources()).scalar("cpus") >= 2) withCpus = offer;
    }
  }
  ASSERT_TRUE(withCpus.has_value());
  launch(s, frameworkId, {withCpus->id()},
         {commandTask("t", withCpus->slave_id(), "cpus:2;mem:128")});
  HttpResponse below = call(R"({"type": "UPDATE_QUOTA", "update_quota": {"quota_configs": [
                               {"role": "capped", "limits": {"cpus": {"value": 1}}}]}})");
  EXPECT_EQ(400, below.status);
  EXPECT_NE(std::string::npos, below.body.find("is already consuming 'cpus:2; mem:128'"))
      << below.body;
}

// A limit lowered below what a role holds with its outstanding offers
// rescinds the offers of the role and of its sub-roles (not another
// role's), and what they held is offered again within the limit.
TEST_F(QuotaEndpointsTest, LoweringALimitRescindsTheRolesOffers) {
  start();
  // One agent each, in turn: the framework with the lowest share gets the
  // agent that comes.
  Peer& eng = scheduler("eng");
  registerFramework(eng, frameworkInfo("eng", "eng"));
  registerSlave(slave("a"), "cpus:4;mem:4096");
  Peer& web = scheduler("web");
  registerFramework(web, frameworkInfo("web", "eng/web"));
  registerSlave(slave("b"), "cpus:4;mem:4096");
  Peer& other = scheduler("other");
  registerFramework(other, frameworkInfo("other", "other"));
  registerSlave(slave("c"), "cpus:4;mem:4096");
  advance(flags_.allocation_interval);
  for (Peer* framework : {&eng, &web, &other}) {
    ASSERT_DOUBLE_EQ(4, offeredCpus(*framework)) << framework->id();
  }
  const std::string engOffer = eng.received<ResourceOffersMessage>()[0].offers(0).id().value();
  const std::string webOffer = web.received<ResourceOffersMessage>()[0].offers(0).id().value();

  // Without force: offers do not count as consumption.
  ASSERT_EQ(200, call(R"({"type": "UPDATE_QUOTA", "update_quota": {"quota_configs": [
                          {"role": "eng", "limits": {"cpus": {"value": 1}}}]}})")
                     .status);
  auto rescinded = [](Peer& framework) {
    std::vector<std::string> ids;
    for (const auto& message : framework.received<RescindResourceOfferMessage>()) {
      ids.push_back(message.offer_id().value());
    }
    return ids;
  };
  EXPECT_EQ(std::vector<std::string>{engOffer}, rescinded(eng));
  EXPECT_EQ(std::vector<std::string>{webOffer}, rescinded(web));
  EXPECT_TRUE(rescinded(other).empty());
  // What came back is offered again within the limit: at most one cpu in
  // all to eng and its sub-role. (When the re-offer comes depends on when
  // the allocator hears of the rescinds: not asserted.)
  advance(flags_.allocation_interval);
  EXPECT_LE(num(role("eng")["offered"]["cpus"]), 1);
  EXPECT_LE(offeredCpus(eng) + offeredCpus(web), 9);
  EXPECT_EQ(1, num(role("eng")["quota"]["consumed"]["cpus"]));
}

// POST /quota (the old way) sets a limit too: the role's offers above it
// are rescinded.
TEST_F(QuotaEndpointsTest, QuotaSetTheOldWayRescindsOffersAboveIt) {
  start();
  Peer& s = scheduler("s");
  registerFramework(s, frameworkInfo("s", "capped"));
  registerSlave(slave("a"), "cpus:4;mem:4096");
  advance(flags_.allocation_interval);
  ASSERT_DOUBLE_EQ(4, offeredCpus(s));
  ASSERT_EQ(200, request("POST", "/quota", R"({"role": "capped", "guarantee": [
                             {"name": "cpus", "type": "SCALAR", "scalar": {"value": 2}}]})")
                     .status);
  EXPECT_EQ(1u, s.received<RescindResourceOfferMessage>().size());
  advance(flags_.allocation_interval);
  EXPECT_DOUBLE_EQ(6, offeredCpus(s));
}

TEST_F(QuotaEndpointsTest, WeightsAreSetShownAndChecked) {
  flags_.weights = "flagged=3";
  start();
  HttpResponse put = request("PUT", "/weights", R"([{"role": "web", "weight": 2.5}])");
  ASSERT_EQ(200, put.status) << put.body;
  HttpResponse got = request("GET", "/weights");
  ASSERT_EQ(200, got.status);
  EXPECT_NE(std::string::npos, got.body.find(R"({"weight":2.5,"role":"web"})")) << got.body;
  EXPECT_NE(std::string::npos, got.body.find(R"("role":"flagged")")) << got.body;
  EXPECT_EQ(2.5, num(role("web")["weight"]));

  HttpResponse zero = request("PUT", "/weights", R"([{"role": "web", "weight": 0}])");
  EXPECT_EQ(400, zero.status);
  EXPECT_NE(std::string::npos, zero.body.find("Weights must be positive")) << zero.body;
  HttpResponse notArray = request("PUT", "/weights", R"({"role": "web"})");
  EXPECT_EQ(400, notArray.status);

  ASSERT_EQ(200, call(R"({"type": "UPDATE_WEIGHTS", "update_weights": {"weight_infos": [
                          {"role": "web", "weight": 4}]}})")
                     .status);
  HttpResponse weights = call(R"({"type": "GET_WEIGHTS"})");
  V1Response response;
  ASSERT_TRUE(fromJson(weights.body, &response)) << weights.body;
  ASSERT_EQ(2, response.get_weights().weight_infos_size());
  HttpResponse roles = call(R"({"type": "GET_ROLES"})");
  ASSERT_TRUE(fromJson(roles.body, &response)) << roles.body;
  bool seen = false;
  for (const v1::Role& entry : response.get_roles().roles()) {
    if (entry.name() == "web") {
      seen = true;
      EXPECT_EQ(4, entry.weight());
    }
  }
  EXPECT_TRUE(seen) << roles.body;
}

TEST_F(QuotaEndpointsTest, TheAclsRefuse) {
  flags_.security.authenticate_http_readwrite = true;
  flags_.security.authenticate_http_readonly = true;
  flags_.security.http_credentials =
      R"({"credentials": [{"principal": "ops", "secret": "ops-secret"},
                          {"principal": "alice", "secret": "alice-secret"}]})";
  std::string acls;
  for (const char* acl : {"get_quotas", "update_quotas", "update_weights", "view_roles"}) {
    acls += std::string(acls.empty() ? "" : ", ") + "\"" + acl +
            R"(": [{"principals": {"values": ["ops"]}, "roles": {"type": "ANY"}},
                   {"principals": {"type": "ANY"}, "roles": {"type": "NONE"}}])";
  }
  flags_.security.acls = "{" + acls + "}";
  start();
  registerSlave(slave("a"), "cpus:8;mem:8192");
  std::string set =
      R"({"role": "prod", "guarantee": [{"name": "cpus", "type": "SCALAR", "scalar": {"value": 1}}]})";
  EXPECT_EQ(401, request("POST", "/quota", set).status);
  HttpResponse denied = request("POST", "/quota", set, "alice");
  EXPECT_EQ(403, denied.status);
  EXPECT_NE(std::string::npos, denied.body.find("update_quotas")) << denied.body;
  ASSERT_EQ(200, request("POST", "/quota", set, "ops").status);
  EXPECT_EQ(1, quotaStatus("ops").configs_size());
  EXPECT_EQ(0, quotaStatus("alice").configs_size());
  EXPECT_EQ(403, request("DELETE", "/quota/prod", "", "alice").status);

  std::string weights = R"([{"role": "prod", "weight": 2}])";
  EXPECT_EQ(403, request("PUT", "/weights", weights, "alice").status);
  ASSERT_EQ(200, request("PUT", "/weights", weights, "ops").status);
  EXPECT_TRUE(role("prod", "ops").isObject());
  EXPECT_TRUE(role("prod", "alice").isNull());
  EXPECT_EQ("[]", request("GET", "/weights", "", "alice").body);
}

// Quota and weights are in the registry (here the file registry; the
// ZooKeeper node's fencing is in registrar_test.cpp): a new master reads
// them before it allocates, and enforces them.
TEST_F(QuotaEndpointsTest, QuotaAndWeightsSurviveAMasterFailover) {
  flags_.registry = "file";
  flags_.work_dir = tempDir();
  start();
  registerSlave(slave("a"), "cpus:4;mem:4096");
  ASSERT_EQ(200, call(R"({"type": "UPDATE_QUOTA", "update_quota": {"quota_configs": [
                          {"role": "capped", "limits": {"cpus": {"value": 1}}}]}})")
                     .status);
  ASSERT_EQ(200, request("PUT", "/weights", R"([{"role": "capped", "weight": 3}])").status);
  EXPECT_TRUE(std::filesystem::exists(*flags_.work_dir + "/registry/settings"));

  master_.reset();
  auto allocator = internal::master::createAllocator(flags_);
  ASSERT_TRUE(allocator.ok());
  master_ = runtime_->spawn<internal::master::Master>(flags_, std::move(allocator).value());
  runtime_->settle();

  quota::QuotaStatus status = quotaStatus();
  ASSERT_EQ(1, status.configs_size());
  EXPECT_EQ(1, status.configs(0).limits().at("cpus").value());
  EXPECT_EQ(3, num(role("capped")["weight"]));
  // The new master's allocator has the limit.
  Peer& b = slave("b");
  registerSlave(b, "cpus:4;mem:4096");
  Peer& s = scheduler("s");
  registerFramework(s, frameworkInfo("s", "capped"));
  advance(flags_.allocation_interval);
  EXPECT_DOUBLE_EQ(1, offeredCpus(s));
}

}  // namespace
}  // namespace mesos::test
