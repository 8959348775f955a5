// mesos::json: the strict parser (with error offsets), the compact writer and
// protobuf rendering as the HTTP endpoints use it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "common/json.hpp"
#include "mesos.pb.h"

namespace mesos::json {
namespace {

Value parsed(const std::string& text) {
  auto result = parse(text);
  EXPECT_TRUE(result.ok()) << text << ": " << (result.ok() ? "" : result.error().message);
  return result.ok() ? result.value() : Value();
}

// The offset reported for bad input, or -1 when it parsed.
long errorOffset(const std::string& text) {
  auto result = parse(text);
  if (result.ok()) return -1;
  const std::string prefix = "JSON parse error at offset ";
  const std::string& message = result.error().message;
  EXPECT_EQ(0u, message.find(prefix)) << message;
  return std::stol(message.substr(prefix.size()));
}

TEST(JsonTest, ParsesScalars) {
  EXPECT_TRUE(parsed("null").isNull());
  EXPECT_EQ(Value(true), parsed("true"));
  EXPECT_EQ(Value(false), parsed(" false "));
  EXPECT_EQ(Value(0), parsed("0"));
  EXPECT_EQ(Value(-12), parsed("-12"));
  EXPECT_EQ(Value(1.5), parsed("1.5"));
  EXPECT_EQ(Value(-0.25), parsed("-2.5e-1"));
  EXPECT_EQ(Value(100.0), parsed("1E2"));
  EXPECT_EQ(Value("hi"), parsed("\"hi\""));
}

TEST(JsonTest, IntegersStayIntegers) {
  Value max = parsed("9223372036854775807");
  ASSERT_TRUE(max.isInteger());
  EXPECT_EQ(std::numeric_limits<int64_t>::max(), max.integer());
  Value min = parsed("-9223372036854775808");
  ASSERT_TRUE(min.isInteger());
  EXPECT_EQ(std::numeric_limits<int64_t>::min(), min.integer());
  // Beyond int64_t: a double.
  Value big = parsed("18446744073709551615");
  EXPECT_FALSE(big.isInteger());
  EXPECT_DOUBLE_EQ(18446744073709551615.0, big.number());
  // "1.0" is a double, "1" an integer.
  EXPECT_FALSE(parsed("1.0").isInteger());
  EXPECT_TRUE(parsed("1").isInteger());
  EXPECT_EQ(1, parsed("1.9").integer());
}

TEST(JsonTest, ParsesNestedStructures) {
  Value value = parsed(R"( { "a" : [1, 2.5, "x", null, true, {"b": []}], "c": {} } )");
  ASSERT_TRUE(value.isObject());
  ASSERT_TRUE(value["a"].isArray());
  const Array& a = value["a"].array();
  ASSERT_EQ(6u, a.size());
  EXPECT_EQ(1, a[0].integer());
  EXPECT_DOUBLE_EQ(2.5, a[1].number());
  EXPECT_EQ("x", a[2].string());
  EXPECT_TRUE(a[3].isNull());
  EXPECT_TRUE(a[4].boolean());
  EXPECT_TRUE(a[5]["b"].array().empty());
  EXPECT_TRUE(value["c"].object().empty());
  EXPECT_TRUE(value["missing"].isNull());
  EXPECT_TRUE(value["a"]["not an object"].isNull());
}

TEST(JsonTest, ParsesStringEscapes) {
  EXPECT_EQ("\"\\/\b\f\n\r\t", parsed(R"("\"\\\/\b\f\n\r\t")").string());
  EXPECT_EQ("A\xc3\xa9", parsed(R"("\u0041\u00e9")").string());
  EXPECT_EQ("\xe2\x82\xac", parsed(R"("\u20AC")").string());
  EXPECT_EQ("\xf0\x9f\x98\x80", parsed(R"("\ud83d\ude00")").string());  // surrogate pair
  EXPECT_EQ(std::string("a\0b", 3), parsed(R"("a\u0000b")").string());
  EXPECT_EQ("\xc3\xa9t\xc3\xa9", parsed("\"\xc3\xa9t\xc3\xa9\"").string());  // raw UTF-8
}

TEST(JsonTest, ErrorsNameTheOffset) {
  EXPECT_EQ(0, errorOffset(""));
  EXPECT_EQ(3, errorOffset("   "));
  EXPECT_EQ(0, errorOffset("nul"));
  EXPECT_EQ(0, errorOffset("True"));
  EXPECT_EQ(5, errorOffset("{\"a\" 1}"));
  EXPECT_EQ(7, errorOffset("{\"a\":1,}"));    // trailing comma
  EXPECT_EQ(3, errorOffset("[1,]"));
  EXPECT_EQ(3, errorOffset("[1 2]"));
  EXPECT_EQ(1, errorOffset("{a:1}"));         // unquoted key
  EXPECT_EQ(4, errorOffset("\"abc"));         // unterminated: at the end
  EXPECT_EQ(2, errorOffset("\"a\nb\""));      // raw control character
  EXPECT_EQ(2, errorOffset(R"("\x")"));       // bad escape
  EXPECT_EQ(5, errorOffset(R"("\u12G4")"));
  EXPECT_EQ(1, errorOffset(R"("\ud83d")"));   // lone high surrogate
  EXPECT_EQ(1, errorOffset(R"("\ude00")"));   // lone low surrogate
  EXPECT_EQ(1, errorOffset("01"));            // leading zero
  EXPECT_EQ(1, errorOffset("-"));
  EXPECT_EQ(2, errorOffset("1."));
  EXPECT_EQ(2, errorOffset("1e"));
  EXPECT_EQ(0, errorOffset("+1"));
  EXPECT_EQ(0, errorOffset(".5"));
  EXPECT_EQ(0, errorOffset("NaN"));
  EXPECT_EQ(0, errorOffset("1e999"));         // out of range
  EXPECT_EQ(2, errorOffset("1 2"));           // trailing garbage
  EXPECT_EQ(4, errorOffset("{}  x"));
  EXPECT_EQ(1, errorOffset("\"\xff\""));      // invalid UTF-8
  EXPECT_EQ(1, errorOffset("\"\xc0\xaf\""));  // overlong
  EXPECT_EQ(0, errorOffset("'a'"));

  auto result = parse("[1,]");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ("JSON parse error at offset 3: expected a value (found ']')", result.error().message);
}

TEST(JsonTest, DeepNestingIsRefused) {
  std::string deep(100000, '[');
  auto result = parse(deep);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(std::string::npos, result.error().message.find("nesting"));
  std::string ok = std::string(100, '[') + std::string(100, ']');
  EXPECT_TRUE(parse(ok).ok());
}

TEST(JsonTest, TinyNumbersUnderflowToZero) {
  EXPECT_EQ(Value(0.0), parsed("1e-400"));
}

TEST(JsonTest, StringifyIsCompactAndSorted) {
  Object object;
  object["b"] = Value(Array{1, 2.5, "s", nullptr, false});
  object["a"] = Value(Object{{"z", 1}, {"y", Object{}}});
  object["c"] = Value(Array{});
  EXPECT_EQ(R"({"a":{"y":{},"z":1},"b":[1,2.5,"s",null,false],"c":[]})", stringify(Value(object)));
}

TEST(JsonTest, StringifyEscapes) {
  EXPECT_EQ(R"("a\"b\\c\nd\te\r\b\f")", stringify(Value("a\"b\\c\nd\te\r\b\f")));
  EXPECT_EQ(R"("\u0000\u0001\u001f\u007f")", stringify(Value(std::string("\0\x01\x1f\x7f", 4))));
  EXPECT_EQ("\"/\"", stringify(Value("/")));
  EXPECT_EQ("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", stringify(Value("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80")));
  // Bytes that are not UTF-8 are written as Latin-1 escapes: still valid JSON.
  std::string text = stringify(Value(std::string("\xff\xfe", 2)));
  EXPECT_EQ(R"("\u00ff\u00fe")", text);
  EXPECT_TRUE(parse(text).ok());
}

TEST(JsonTest, StringifyNumbers) {
  EXPECT_EQ("0", stringify(Value(0)));
  EXPECT_EQ("-9223372036854775808", stringify(Value(std::numeric_limits<int64_t>::min())));
  EXPECT_EQ("18446744073709551615", std::to_string(std::numeric_limits<uint64_t>::max()));
  EXPECT_EQ("2.0", stringify(Value(2.0)));
  EXPECT_EQ("0.1", stringify(Value(0.1)));
  EXPECT_EQ("-1.5", stringify(Value(-1.5)));
  EXPECT_EQ("1e+300", stringify(Value(1e300)));
  EXPECT_EQ("null", stringify(Value(std::nan(""))));
  EXPECT_EQ("null", stringify(Value(INFINITY)));
  EXPECT_EQ("4294967295", stringify(Value(4294967295u)));
  EXPECT_TRUE(Value(uint64_t{18446744073709551615ULL}).isNumber());
  EXPECT_FALSE(Value(uint64_t{18446744073709551615ULL}).isInteger());
}

TEST(JsonTest, DoublesRoundTrip) {
  const double values[] = {0.1, 1.0 / 3, 2.0 / 3, 1e-300, 123456789.123456789, 5e-324,
                           std::numeric_limits<double>::max(), -0.0, 4.35, 0.30000000000000004};
  for (double d : values) {
    Value back = parsed(stringify(Value(d)));
    ASSERT_FALSE(back.isInteger()) << d;
    EXPECT_EQ(d, back.number()) << stringify(Value(d));
  }
}

TEST(JsonTest, RoundTrips) {
  const char* texts[] = {
      "null", "true", "[]", "{}", "[[],{}]", R"({"a":1,"b":[true,false,null],"c":"\u0001"})",
      R"({"nested":{"deeper":{"x":-1.25,"y":"\"quoted\""}}})", R"(["\u00e9","\n"])",
  };
  for (const char* text : texts) {
    Value value = parsed(text);
    std::string once = stringify(value);
    EXPECT_EQ(value, parsed(once)) << text;
    EXPECT_EQ(once, stringify(parsed(once))) << text;
  }
  EXPECT_EQ(R"({"a":1,"b":2})", stringify(parsed(R"( { "b" : 2 , "a" : 1 } )")));
}

TEST(JsonTest, DuplicateKeysKeepTheLast) {
  EXPECT_EQ(2, parsed(R"({"a":1,"a":2})")["a"].integer());
}

TEST(JsonTest, Equality) {
  EXPECT_EQ(Value(Array{1, "a"}), Value(Array{1, "a"}));
  EXPECT_FALSE(Value(1) == Value(1.0));
  EXPECT_FALSE(Value(Object{{"a", 1}}) == Value(Object{{"a", 2}}));
  EXPECT_EQ(Value(), Value(nullptr));
}

TEST(JsonTest, AccessorsCheck) {
  Value number(3);
  EXPECT_DEATH((void)number.string(), "not a string");
  EXPECT_DEATH((void)Value("x").object(), "not an object");
  EXPECT_DOUBLE_EQ(3.0, number.number());
}

TEST(JsonTest, FromProtoTaskInfo) {
  TaskInfo task;
  task.set_name("sleep");
  task.mutable_task_id()->set_value("task-1");
  task.mutable_slave_id()->set_value("S0");
  Resource* cpus = task.add_resources();
  cpus->set_name("cpus");
  cpus->set_type(mesos::Value::SCALAR);
  cpus->mutable_scalar()->set_value(0.5);
  Resource* ports = task.add_resources();
  ports->set_name("ports");
  ports->set_type(mesos::Value::RANGES);
  auto* range = ports->mutable_ranges()->add_range();
  range->set_begin(31000);
  range->set_end(31001);
  task.mutable_command()->set_value("sleep 10");
  task.mutable_command()->add_arguments("a");
  task.mutable_command()->add_arguments("b");
  task.set_data(std::string("\x01\xff", 2));

  Value json = fromProto(task);
  EXPECT_EQ("sleep", json["name"].string());
  EXPECT_EQ("task-1", json["task_id"]["value"].string());
  EXPECT_EQ("S0", json["slave_id"]["value"].string());
  ASSERT_EQ(2u, json["resources"].array().size());
  const Value& first = json["resources"].array()[0];
  EXPECT_EQ("cpus", first["name"].string());
  EXPECT_EQ("SCALAR", first["type"].string());  // enums by name
  EXPECT_EQ(Value(0.5), first["scalar"]["value"]);
  EXPECT_FALSE(first.object().count("role"));  // unset, even with a default
  const Value& second = json["resources"].array()[1];
  EXPECT_EQ("RANGES", second["type"].string());
  EXPECT_EQ(Value(31000), second["ranges"]["range"].array()[0]["begin"]);  // uint64 as a number
  EXPECT_EQ(Value(Array{"a", "b"}), json["command"]["arguments"]);
  EXPECT_FALSE(json["command"].object().count("shell"));  // default true, but unset
  EXPECT_EQ(std::string("\x01\xff", 2), json["data"].string());  // bytes as they are
  EXPECT_FALSE(json.object().count("executor"));
  EXPECT_FALSE(json.object().count("labels"));

  EXPECT_EQ(
      R"({"command":{"arguments":["a","b"],"value":"sleep 10"},"data":"\u0001\u00ff","name":"sleep",)"
      R"("resources":[{"name":"cpus","scalar":{"value":0.5},"type":"SCALAR"},)"
      R"({"name":"ports","ranges":{"range":[{"begin":31000,"end":31001}]},"type":"RANGES"}],)"
      R"("slave_id":{"value":"S0"},"task_id":{"value":"task-1"}})",
      stringify(json));
}

TEST(JsonTest, FromProtoOffer) {
  Offer offer;
  offer.mutable_id()->set_value("O1");
  offer.mutable_framework_id()->set_value("F1");
  offer.mutable_slave_id()->set_value("S1");
  offer.set_hostname("host");
  Resource* mem = offer.add_resources();
  mem->set_name("mem");
  mem->set_type(mesos::Value::SCALAR);
  mem->mutable_scalar()->set_value(1024);
  mem->set_role("*");  // explicitly set: shown
  Attribute* rack = offer.add_attributes();
  rack->set_name("rack");
  rack->set_type(mesos::Value::TEXT);
  rack->mutable_text()->set_value("r1");

  Value json = fromProto(offer);
  EXPECT_EQ("host", json["hostname"].string());
  EXPECT_EQ("O1", json["id"]["value"].string());
  EXPECT_EQ("F1", json["framework_id"]["value"].string());
  EXPECT_EQ("*", json["resources"].array()[0]["role"].string());
  EXPECT_EQ(Value(1024.0), json["resources"].array()[0]["scalar"]["value"]);
  EXPECT_EQ("TEXT", json["attributes"].array()[0]["type"].string());
  EXPECT_EQ("r1", json["attributes"].array()[0]["text"]["value"].string());
  EXPECT_FALSE(json.object().count("executor_ids"));  // empty repeated: left out
  EXPECT_FALSE(json.object().count("url"));
  // What fromProto renders, parse reads back.
  EXPECT_EQ(json, parsed(stringify(json)));
}

TEST(JsonTest, FromProtoLargeUnsignedAndStatus) {
  mesos::Value::Range range;
  range.set_begin(std::numeric_limits<uint64_t>::max());
  range.set_end(5);
  Value json = fromProto(range);
  EXPECT_FALSE(json["begin"].isInteger());  // too large for int64: a double
  EXPECT_DOUBLE_EQ(18446744073709551615.0, json["begin"].number());
  EXPECT_EQ(Value(5), json["end"]);

  TaskStatus status;
  status.mutable_task_id()->set_value("t");
  status.set_state(TASK_RUNNING);
  status.set_healthy(true);
  Value statusJson = fromProto(status);
  EXPECT_EQ("TASK_RUNNING", statusJson["state"].string());
  EXPECT_EQ(Value(true), statusJson["healthy"]);
}

}  // namespace
}  // namespace mesos::json
