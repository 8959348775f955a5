// The v1 HTTP API's JSON codec (common/protobuf_json.hpp) and the v0 <-> v1
// conversions (common/v1.hpp).
#include "common/protobuf_json.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "common/json.hpp"
#include "common/v1.hpp"
#include "mesos.pb.h"
#include "v1/mesos.pb.h"
#include "v1/scheduler.pb.h"

namespace mesos::test {
namespace {

v1::scheduler::Call subscribeCall() {
  v1::scheduler::Call call;
  call.set_type(v1::scheduler::Call::SUBSCRIBE);
  v1::FrameworkInfo* framework = call.mutable_subscribe()->mutable_framework_info();
  framework->set_user("alice");
  framework->set_name("v1 \"framework\"\n");
  framework->set_failover_timeout(3600.5);
  framework->add_capabilities()->set_type(v1::FrameworkInfo::Capability::MULTI_ROLE);
  return call;
}

TEST(ProtobufJsonTest, WritesFieldNamesAndEnumNames) {
  Result<json::Value> parsed = json::parse(toJson(subscribeCall()));
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const json::Value& value = *parsed;
  EXPECT_EQ("SUBSCRIBE", value["type"].string());
  const json::Value& framework = value["subscribe"]["framework_info"];
  EXPECT_EQ("alice", framework["user"].string());
  EXPECT_EQ("v1 \"framework\"\n", framework["name"].string());
  EXPECT_EQ(3600.5, framework["failover_timeout"].number());
  ASSERT_TRUE(framework["capabilities"].isArray());
  EXPECT_EQ("MULTI_ROLE", framework["capabilities"].array().at(0)["type"].string());
  // Unset fields are left out, defaults included.
  EXPECT_TRUE(framework["checkpoint"].isNull());
  EXPECT_TRUE(framework["role"].isNull());
  EXPECT_TRUE(value["framework_id"].isNull());
}

TEST(ProtobufJsonTest, RoundTrips) {
  v1::scheduler::Call call = subscribeCall();
  v1::scheduler::Call back;
  Result<void> result = fromJson(toJson(call), &back);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(call.SerializeAsString(), back.SerializeAsString());
  EXPECT_EQ(toJson(call), toJson(back));
}

TEST(ProtobufJsonTest, BytesAreBase64) {
  v1::scheduler::Event event;
  event.set_type(v1::scheduler::Event::MESSAGE);
  v1::scheduler::Event::Message* message = event.mutable_message();
  message->mutable_agent_id()->set_value("a1");
  message->mutable_executor_id()->set_value("e1");
  // Every length modulo 3, and bytes that are not UTF-8.
  const std::pair<std::string, const char*> cases[] = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
      {std::string("\xff\x00\xfe\x01", 4), "/wD+AQ=="}};
  for (const auto& [data, expected] : cases) {
    message->set_data(data);
    std::string text = toJson(event);
    Result<json::Value> parsed = json::parse(text);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(expected, (*parsed)["message"]["data"].string());
    v1::scheduler::Event back;
    Result<void> result = fromJson(text, &back);
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(data, back.message().data());
  }
}

TEST(ProtobufJsonTest, SixtyFourBitIntegersAreNumbers) {
  v1::Value value;
  value.set_type(v1::Value::RANGES);
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  v1::Value::Range* range = value.mutable_ranges()->add_range();
  range->set_begin(31000);
  range->set_end(max);
  range = value.mutable_ranges()->add_range();
  range->set_begin((uint64_t{1} << 53) + 1);  // not exact as a double
  range->set_end(uint64_t{1} << 63);
  std::string text = toJson(value);
  EXPECT_NE(std::string::npos, text.find("\"begin\":31000,\"end\":18446744073709551615")) << text;
  EXPECT_NE(std::string::npos, text.find("\"begin\":9007199254740993,\"end\":9223372036854775808"))
      << text;
  v1::Value back;
  Result<void> result = fromJson(text, &back);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(value.SerializeAsString(), back.SerializeAsString());

  v1::TimeInfo time;
  time.set_nanoseconds(std::numeric_limits<int64_t>::min());
  EXPECT_EQ("{\"nanoseconds\":-9223372036854775808}", toJson(time));
  v1::TimeInfo timeBack;
  ASSERT_TRUE(fromJson(toJson(time), &timeBack).ok());
  EXPECT_EQ(time.nanoseconds(), timeBack.nanoseconds());
  // Strings are accepted for 64-bit integers, as protobuf's JSON writes them.
  ASSERT_TRUE(fromJson("{\"nanoseconds\":\"12345678901234\"}", &timeBack).ok());
  EXPECT_EQ(12345678901234, timeBack.nanoseconds());
}

TEST(ProtobufJsonTest, DoublesAreNumbers) {
  v1::scheduler::Event event;
  event.set_type(v1::scheduler::Event::SUBSCRIBED);
  event.mutable_subscribed()->mutable_framework_id()->set_value("f1");
  event.mutable_subscribed()->set_heartbeat_interval_seconds(15);
  EXPECT_EQ(
      "{\"type\":\"SUBSCRIBED\",\"subscribed\":{\"framework_id\":{\"value\":\"f1\"},"
      "\"heartbeat_interval_seconds\":15.0}}",
      toJson(event));
}

TEST(ProtobufJsonTest, ParsesEnumNamesAndNumbers) {
  v1::scheduler::Call call;
  ASSERT_TRUE(fromJson(R"({"type":"DECLINE","framework_id":{"value":"f"},)"
                       R"("decline":{"offer_ids":[{"value":"o1"},{"value":"o2"}]}})",
                       &call).ok());
  EXPECT_EQ(v1::scheduler::Call::DECLINE, call.type());
  ASSERT_EQ(2, call.decline().offer_ids_size());
  EXPECT_EQ("o2", call.decline().offer_ids(1).value());
  ASSERT_TRUE(fromJson(R"({"type":5})", &call).ok());
  EXPECT_EQ(v1::scheduler::Call::REVIVE, call.type());
  EXPECT_FALSE(call.has_decline()) << "the message is cleared first";
}

TEST(ProtobufJsonTest, IgnoresUnknownFieldsAsMesosDoes) {
  v1::scheduler::Call call;
  Result<void> result = fromJson(R"({"type":"REVIVE","no_such_field":{"x":[1,2]}})", &call);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(v1::scheduler::Call::REVIVE, call.type());
  // An enum name from a newer Mesos leaves an optional field unset.
  result = fromJson(R"({"type":"FROM_THE_FUTURE"})", &call);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_FALSE(call.has_type());
}

TEST(ProtobufJsonTest, BadJsonIsOneClearLine) {
  v1::scheduler::Call call;
  for (const char* bad : {"{\"type\":", "not json", "[1,2]", "{\"type\":{}}",
                          "{\"subscribe\":{\"framework_info\":{\"user\":\"u\",\"name\":[]}}}"}) {
    Result<void> result = fromJson(bad, &call);
    ASSERT_FALSE(result.ok()) << bad;
    const std::string& message = result.error().message;
    EXPECT_EQ(0u, message.find("invalid JSON for mesos.v1.scheduler.Call: ")) << message;
    EXPECT_EQ(std::string::npos, message.find('\n')) << message;
    EXPECT_GT(message.size(), std::string("invalid JSON for mesos.v1.scheduler.Call: ").size() + 3)
        << message;
  }
}

TEST(ProtobufJsonTest, MissingRequiredFieldIsAnError) {
  v1::scheduler::Call call;
  // Subscribe.framework_info and FrameworkInfo.user/name are required.
  Result<void> result = fromJson(R"({"type":"SUBSCRIBE","subscribe":{"framework_info":{"user":"u"}}})", &call);
  ASSERT_FALSE(result.ok());
  // protobuf's parser names the path: "(subscribe.framework_info): missing field name".
  EXPECT_NE(std::string::npos, result.error().message.find("subscribe.framework_info"))
      << result.error().message;
  EXPECT_NE(std::string::npos, result.error().message.find("name")) << result.error().message;
  EXPECT_EQ(std::string::npos, result.error().message.find('\n')) << result.error().message;
  // An unknown enum name in a required field leaves it missing.
  v1::Value value;
  result = fromJson(R"({"type":"NO_SUCH_TYPE"})", &value);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(std::string::npos, result.error().message.find("type")) << result.error().message;
}

Offer v0Offer() {
  Offer offer;
  offer.mutable_id()->set_value("o1");
  offer.mutable_framework_id()->set_value("f1");
  offer.mutable_slave_id()->set_value("s1");
  offer.set_hostname("host1");
  Resource* cpus = offer.add_resources();
  cpus->set_name("cpus");
  cpus->set_type(Value::SCALAR);
  cpus->mutable_scalar()->set_value(1.5);
  Resource* ports = offer.add_resources();
  ports->set_name("ports");
  ports->set_type(Value::RANGES);
  Value::Range* range = ports->mutable_ranges()->add_range();
  range->set_begin(31000);
  range->set_end(32000);
  Attribute* rack = offer.add_attributes();
  rack->set_name("rack");
  rack->set_type(Value::TEXT);
  rack->mutable_text()->set_value("r1");
  offer.add_executor_ids()->set_value("e1");
  return offer;
}

TEST(V1Test, OfferEvolvesAndDevolvesToItself) {
  Offer offer = v0Offer();
  v1::Offer evolved = evolve<v1::Offer>(offer);
  EXPECT_EQ("s1", evolved.agent_id().value());
  EXPECT_EQ("host1", evolved.hostname());
  ASSERT_EQ(2, evolved.resources_size());
  EXPECT_EQ(1.5, evolved.resources(0).scalar().value());
  EXPECT_EQ(32000u, evolved.resources(1).ranges().range(0).end());
  Offer back = devolve<Offer>(evolved);
  EXPECT_EQ(offer.SerializeAsString(), back.SerializeAsString());
  EXPECT_EQ(offer.DebugString(), back.DebugString());
}

TEST(V1Test, EvolvedMessageSaysAgentIdInJson) {
  Offer offer = v0Offer();
  EXPECT_NE(std::string::npos, toJson(offer).find("\"slave_id\""));
  std::string text = toJson(evolve<v1::Offer>(offer));
  Result<json::Value> parsed = json::parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ("s1", (*parsed)["agent_id"]["value"].string()) << text;
  EXPECT_TRUE((*parsed)["slave_id"].isNull()) << text;
  EXPECT_EQ("SCALAR", (*parsed)["resources"].array().at(0)["type"].string());
}

TEST(V1Test, PartialMessagesConvert) {
  TaskStatus status;
  status.mutable_task_id()->set_value("t1");  // state (required) missing
  v1::TaskStatus evolved = evolve<v1::TaskStatus>(status);
  EXPECT_EQ("t1", evolved.task_id().value());
  EXPECT_FALSE(evolved.IsInitialized());
}

}  // namespace
}  // namespace mesos::test
