// Quota and weights (docs/quota.md) end to end: a real mesos-master and
// mesos-slave, the endpoints over HTTP, and a restart of the master on the
// same --work_dir (the file registry) that keeps them.
#include <signal.h>

#include <chrono>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "support/daemon.hpp"
#include "support/net.hpp"
#include "support/raw_peer.hpp"

namespace mesos::test {
namespace {

// A JSON number, or a huge negative number for anything else (a missing field fails the
// comparison instead of aborting the test program).
double num(const json::Value& value) { return value.isNumber() ? value.number() : -1e300; }

using namespace std::chrono_literals;

class QuotaDaemonsTest : public DaemonsFixture {
 protected:
  std::optional<HttpResponse> send(const process::Address& master, const std::string& method,
                                   const std::string& path, const std::string& body) {
    RawPeer peer(master);
    if (!peer.write(method + " " + path +
                    " HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                    "Accept: application/json\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body)) {
      return std::nullopt;
    }
    return peer.readResponse();
  }
  // The role's entry in /roles (null when absent).
  json::Value role(const process::Address& master, const std::string& name) {
    json::Value roles = getJson(master, "/roles");
    if (!roles.isObject()) return json::Value();
    if (!roles["roles"].isArray()) return json::Value();
    for (const json::Value& entry : roles["roles"].array()) {
      if (entry["name"].string() == name) return entry;
    }
    return json::Value();
  }
};

TEST_F(QuotaDaemonsTest, QuotaAndWeightsThroughARestart) {
  const std::string workDir = dir_ + "/master";
  process::Address master = startMaster({"--work_dir=" + workDir, "--registry=file"});
  pid_t masterPid = daemons_.back();
  startSlave(master, "slave", {"--resources=cpus:4;mem:1024"});
  ASSERT_TRUE(waitUntil([&] { return metric(master, "master/slaves_active") == 1; }, 30s));

  // More than the agent has: refused unless forced.
  std::string set = R"({"role": "prod", "guarantee": [{"name": "cpus", "type": "SCALAR",
                        "scalar": {"value": 8}}]})";
  auto refused = send(master, "POST", "/quota", set);
  ASSERT_TRUE(refused);
  EXPECT_EQ(409, refused->status) << refused->body;
  auto update = send(master, "POST", "/api/v1", R"({"type": "UPDATE_QUOTA", "update_quota": {
      "quota_configs": [{"role": "prod", "guarantees": {"cpus": {"value": 2}},
                         "limits": {"cpus": {"value": 3}}}]}})");
  ASSERT_TRUE(update);
  ASSERT_EQ(200, update->status) << update->body;
  auto weights = send(master, "PUT", "/weights", R"([{"role": "prod", "weight": 2}])");
  ASSERT_TRUE(weights);
  ASSERT_EQ(200, weights->status) << weights->body;
  json::Value prod = role(master, "prod");
  ASSERT_TRUE(prod.isObject());
  EXPECT_EQ(2, num(prod["weight"]));
  EXPECT_EQ(3, num(prod["quota"]["limit"]["cpus"]));

  ::kill(masterPid, SIGTERM);
  EXPECT_EQ(0, waitForExit(masterPid, 30s));
  reaped(masterPid);
  process::Address again = startMaster({"--work_dir=" + workDir, "--registry=file"});
  // Until it has read its registry, the new master answers 503.
  json::Value quota;
  ASSERT_TRUE(waitUntil(
      [&] {
        quota = getJson(again, "/quota");
        return quota.isObject();
      },
      30s));
  ASSERT_TRUE(quota["configs"].isArray());
  ASSERT_EQ(1u, quota["configs"].array().size());
  EXPECT_EQ("prod", quota["configs"].array()[0]["role"].string());
  EXPECT_EQ(2, num(quota["configs"].array()[0]["guarantees"]["cpus"]["value"]));
  json::Value kept = role(again, "prod");
  ASSERT_TRUE(kept.isObject());
  EXPECT_EQ(2, num(kept["weight"]));

  auto removed = send(again, "DELETE", "/quota/prod", "");
  ASSERT_TRUE(removed);
  EXPECT_EQ(200, removed->status) << removed->body;
  // No configs left: the list is left out, as protobuf's JSON leaves it.
  EXPECT_FALSE(getJson(again, "/quota")["configs"].isArray());
}

}  // namespace
}  // namespace mesos::test
