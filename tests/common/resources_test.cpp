// mesos::Resources: parsing the slave's --resources syntax, validation, and
// the arithmetic the master and allocator rely on (the paper's resource
// vectors, fixed-point scalars, range and set algebra).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "mesos/resources.hpp"

namespace mesos {
namespace {

Resources parsed(const std::string& text, const std::string& role = "*") {
  auto result = Resources::parse(text, role);
  EXPECT_TRUE(result.ok()) << text << ": " << (result.ok() ? "" : result.error().message);
  return result.ok() ? result.value() : Resources();
}

Resource scalar(const std::string& name, double value, const std::string& role = "*") {
  Resource resource;
  resource.set_name(name);
  resource.set_type(Value::SCALAR);
  resource.mutable_scalar()->set_value(value);
  resource.set_role(role);
  return resource;
}

Resource ranges(const std::string& name, std::initializer_list<std::pair<uint64_t, uint64_t>> list) {
  Resource resource;
  resource.set_name(name);
  resource.set_type(Value::RANGES);
  auto* out = resource.mutable_ranges();
  for (const auto& [begin, end] : list) {
    auto* range = out->add_range();
    range->set_begin(begin);
    range->set_end(end);
  }
  return resource;
}

Resource set(const std::string& name, std::initializer_list<std::string> items) {
  Resource resource;
  resource.set_name(name);
  resource.set_type(Value::SET);
  for (const auto& item : items) resource.mutable_set()->add_item(item);
  return resource;
}

std::string rangesText(const Value::Ranges& ranges) {
  std::string out;
  for (const auto& range : ranges.range()) {
    if (!out.empty()) out += ",";
    out += std::to_string(range.begin()) + "-" + std::to_string(range.end());
  }
  return out;
}

TEST(ResourcesTest, ParsesTheSlaveDefaultSyntax) {
  Resources resources = parsed("cpus:4;mem:2048;disk:10000;ports:[31000-32000]");
  EXPECT_EQ(4u, resources.size());
  EXPECT_DOUBLE_EQ(4, resources.scalar("cpus"));
  EXPECT_DOUBLE_EQ(2048, resources.scalar("mem"));
  EXPECT_DOUBLE_EQ(10000, resources.scalar("disk"));
  EXPECT_EQ("31000-32000", rangesText(resources.ranges("ports")));
  for (const auto& resource : resources) EXPECT_EQ("*", resource.role());
  EXPECT_EQ("cpus(*):4; disk(*):10000; mem(*):2048; ports(*):[31000-32000]", resources.toString());
}

TEST(ResourcesTest, ParsesRolesSetsAndWhitespace) {
  Resources resources = parsed(" cpus(ads) : 2 ; cpus:1.5;  disks:{ sda , sdb };ports:[ 1-2 , 5 - 9 ] ;");
  EXPECT_DOUBLE_EQ(3.5, resources.scalar("cpus"));
  EXPECT_DOUBLE_EQ(2, resources.role("ads").scalar("cpus"));
  EXPECT_DOUBLE_EQ(1.5, resources.role("*").scalar("cpus"));
  EXPECT_EQ("1-2,5-9", rangesText(resources.ranges("ports")));
  EXPECT_TRUE(resources.contains(Resources(set("disks", {"sda", "sdb"}))));
  EXPECT_EQ("cpus(*):1.5; cpus(ads):2; disks(*):{sda, sdb}; ports(*):[1-2, 5-9]", resources.toString());
}

TEST(ResourcesTest, ParseUsesTheDefaultRole) {
  Resources resources = parsed("cpus:2;mem(*):10", "prod");
  EXPECT_DOUBLE_EQ(2, resources.role("prod").scalar("cpus"));
  EXPECT_DOUBLE_EQ(10, resources.role("*").scalar("mem"));
}

TEST(ResourcesTest, ParseMergesRepeatedEntries) {
  Resources resources = parsed("cpus:1;cpus:2;ports:[1-5];ports:[6-10]");
  EXPECT_EQ(2u, resources.size());
  EXPECT_DOUBLE_EQ(3, resources.scalar("cpus"));
  EXPECT_EQ("1-10", rangesText(resources.ranges("ports")));
}

TEST(ResourcesTest, ParseEmptyTextIsEmpty) {
  EXPECT_TRUE(parsed("").empty());
  EXPECT_TRUE(parsed(" ; ;").empty());
}

TEST(ResourcesTest, ParseErrorsNameTheEntry) {
  struct Case {
    const char* text;
    const char* expected;  // a substring of the message
  };
  const Case cases[] = {
      {"cpus:abc", "'cpus:abc'"},
      {"cpus:4;mem", "'mem'"},
      {"cpus:-1", "negative"},
      {"cpus:nan", "'cpus:nan'"},
      {"cpus:inf", "'cpus:inf'"},
      {":4", "missing name"},
      {"cpus:", "missing value"},
      {"cpus():1", "empty role"},
      {"cpus(ads:1", "')'"},
      {"ports:[5-1]", "begins after it ends"},
      {"ports:[1-5,3-7]", "overlapping"},
      {"ports:[1-x]", "'ports:[1-x]'"},
      {"ports:[1]", "begin-end"},
      {"ports:[1-2", "']'"},
      {"ports:[-1-2]", "'ports:[-1-2]'"},
      {"disks:{a,,b}", "empty item"},
      {"disks:{a,a}", "duplicate"},
      {"disks:{a", "'}'"},
      {"cpus:1;cpus:{a}", "different type"},
      {"cpus:1e3", "'cpus:1e3'"},
  };
  for (const auto& c : cases) {
    auto result = Resources::parse(c.text);
    ASSERT_FALSE(result.ok()) << c.text;
    EXPECT_NE(std::string::npos, result.error().message.find(c.expected))
        << c.text << " -> " << result.error().message;
  }
}

TEST(ResourcesTest, ValidateChecksTypeAndValue) {
  EXPECT_TRUE(Resources::validate(scalar("cpus", 1)).ok());
  EXPECT_TRUE(Resources::validate(ranges("ports", {{1, 2}, {3, 4}})).ok());
  EXPECT_TRUE(Resources::validate(set("disks", {"a"})).ok());

  Resource noName = scalar("", 1);
  EXPECT_FALSE(Resources::validate(noName).ok());

  Resource negative = scalar("cpus", -0.5);
  auto result = Resources::validate(negative);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(std::string::npos, result.error().message.find("cpus"));

  EXPECT_FALSE(Resources::validate(scalar("cpus", std::nan(""))).ok());
  EXPECT_FALSE(Resources::validate(scalar("cpus", INFINITY)).ok());

  Resource mismatched = scalar("cpus", 1);
  mismatched.set_type(Value::RANGES);
  EXPECT_FALSE(Resources::validate(mismatched).ok());

  Resource both = scalar("cpus", 1);
  both.mutable_set()->add_item("x");
  EXPECT_FALSE(Resources::validate(both).ok());

  EXPECT_FALSE(Resources::validate(ranges("ports", {{5, 1}})).ok());
  EXPECT_FALSE(Resources::validate(ranges("ports", {{10, 20}, {1, 10}})).ok());
  EXPECT_FALSE(Resources::validate(set("disks", {"a", "a"})).ok());

  Resource text;
  text.set_name("x");
  text.set_type(Value::TEXT);
  EXPECT_FALSE(Resources::validate(text).ok());

  Resource emptyRole = scalar("cpus", 1, "");
  EXPECT_FALSE(Resources::validate(emptyRole).ok());

  google::protobuf::RepeatedPtrField<Resource> list;
  *list.Add() = scalar("cpus", 1);
  EXPECT_TRUE(Resources::validate(list).ok());
  *list.Add() = scalar("mem", -1);
  auto listResult = Resources::validate(list);
  ASSERT_FALSE(listResult.ok());
  EXPECT_NE(std::string::npos, listResult.error().message.find("mem"));
}

TEST(ResourcesTest, InvalidAndEmptyResourcesAreNotAdded) {
  Resources resources;
  resources += scalar("cpus", -1);
  resources += scalar("cpus", 0);
  resources += ranges("ports", {});
  resources += set("disks", {});
  resources += ranges("ports", {{9, 3}});
  EXPECT_TRUE(resources.empty());
}

// The example in section 3.2 of the paper (and the DRF paper): a cluster of
// <9 CPUs, 18 GB>; framework A's tasks need <1 CPU, 4 GB>, B's <3 CPUs, 1 GB>.
// DRF gives A three tasks and B two (equal dominant shares of 2/3), leaving
// 9 - 3*1 - 2*3 = 0 CPUs and 18 - 3*4 - 2*1 = 4 GB.
TEST(ResourcesTest, DrfExampleVectors) {
  Resources cluster = parsed("cpus:9;mem:18432");
  Resources taskA = parsed("cpus:1;mem:4096");
  Resources taskB = parsed("cpus:3;mem:1024");

  Resources left = cluster;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(left.contains(taskA)) << i;
    left -= taskA;
  }
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(left.contains(taskB)) << i;
    left -= taskB;
  }
  EXPECT_DOUBLE_EQ(0, left.scalar("cpus"));
  EXPECT_DOUBLE_EQ(4096, left.scalar("mem"));
  EXPECT_EQ(parsed("mem:4096"), left);  // the exhausted cpus entry is gone
  EXPECT_FALSE(left.contains(taskA));
  EXPECT_FALSE(left.contains(taskB));

  // Adding the tasks back restores the cluster exactly.
  Resources back = left + taskA + taskA + taskA + taskB + taskB;
  EXPECT_EQ(cluster, back);

  // Dominant shares: A's is memory (4/18 per task), B's CPU (3/9 per task).
  double shareA = 3 * taskA.scalar("mem") / cluster.scalar("mem");
  double shareB = 2 * taskB.scalar("cpus") / cluster.scalar("cpus");
  EXPECT_DOUBLE_EQ(2.0 / 3.0, shareA);
  EXPECT_DOUBLE_EQ(2.0 / 3.0, shareB);
}

TEST(ResourcesTest, ScalarsAreFixedPoint) {
  Resources sum;
  for (int i = 0; i < 10; ++i) sum += scalar("cpus", 0.1);
  EXPECT_EQ(1.0, sum.scalar("cpus"));  // exactly, not 0.9999999999999999
  EXPECT_EQ(Resources(scalar("cpus", 1)), sum);

  Resources left = sum;
  for (int i = 0; i < 10; ++i) left -= scalar("cpus", 0.1);
  EXPECT_TRUE(left.empty());

  EXPECT_EQ(0.333, Resources(scalar("cpus", 1.0 / 3)).scalar("cpus"));
  EXPECT_EQ(0.667, Resources(scalar("cpus", 2.0 / 3)).scalar("cpus"));
  EXPECT_TRUE(Resources(scalar("cpus", 0.0004)).empty());  // rounds to zero
  EXPECT_EQ("cpus(*):0.125", Resources(scalar("cpus", 0.125)).toString());
  EXPECT_EQ("cpus(*):0.5", Resources(scalar("cpus", 0.5)).toString());

  Resources three = parsed("cpus:0.1;cpus:0.2");
  EXPECT_EQ(0.3, three.scalar("cpus"));
  EXPECT_TRUE(three.contains(parsed("cpus:0.3")));
  EXPECT_FALSE(three.contains(parsed("cpus:0.301")));
}

TEST(ResourcesTest, SubtractionStopsAtZero) {
  Resources resources = parsed("cpus:1;mem:10");
  resources -= parsed("cpus:5");
  EXPECT_EQ(parsed("mem:10"), resources);
  resources -= parsed("disk:5");  // absent: nothing happens
  EXPECT_EQ(parsed("mem:10"), resources);
}

TEST(ResourcesTest, RolesAreSeparate) {
  Resources resources = parsed("cpus(ads):2;cpus:3");
  EXPECT_EQ(2u, resources.size());
  EXPECT_FALSE(resources.contains(parsed("cpus:4")));
  EXPECT_TRUE(resources.contains(parsed("cpus:3")));
  EXPECT_FALSE(resources.contains(parsed("cpus(other):1")));
  EXPECT_DOUBLE_EQ(5, resources.scalar("cpus"));

  Resources flat = resources.flatten();
  EXPECT_EQ(1u, flat.size());
  EXPECT_EQ(parsed("cpus:5"), flat);
  EXPECT_EQ(parsed("cpus(x):5"), resources.flatten("x"));

  EXPECT_EQ(parsed("cpus(ads):2"), resources.role("ads"));
  EXPECT_TRUE(resources.role("nobody").empty());

  Resources left = resources - parsed("cpus(ads):2");
  EXPECT_EQ(parsed("cpus:3"), left);
}

TEST(ResourcesTest, TypesAreSeparate) {
  Resources resources = Resources(scalar("x", 1)) + Resources(set("x", {"a"}));
  EXPECT_EQ(2u, resources.size());
  EXPECT_DOUBLE_EQ(1, resources.scalar("x"));
  EXPECT_FALSE(Resources(scalar("x", 1)).contains(Resources(set("x", {"a"}))));
}

TEST(ResourcesTest, RangesAreNormalizedOnAdd) {
  Resources resources;
  resources += ranges("ports", {{10, 20}});
  resources += ranges("ports", {{1, 5}});
  resources += ranges("ports", {{6, 9}});     // adjacent on both sides
  resources += ranges("ports", {{15, 30}});   // overlapping
  resources += ranges("ports", {{40, 40}});
  EXPECT_EQ("1-30,40-40", rangesText(resources.ranges("ports")));
  EXPECT_EQ("ports(*):[1-30, 40-40]", resources.toString());

  // Unsorted input in one resource.
  EXPECT_EQ("1-2,7-8", rangesText(Resources(ranges("p", {{7, 8}, {1, 2}})).ranges("p")));
}

TEST(ResourcesTest, RangeSubtraction) {
  Resources ports = Resources(ranges("ports", {{1, 100}}));
  EXPECT_EQ("1-9,21-100", rangesText((ports - Resources(ranges("ports", {{10, 20}}))).ranges("ports")));
  EXPECT_EQ("2-100", rangesText((ports - Resources(ranges("ports", {{1, 1}}))).ranges("ports")));
  EXPECT_EQ("1-99", rangesText((ports - Resources(ranges("ports", {{100, 100}}))).ranges("ports")));
  EXPECT_EQ("51-100", rangesText((ports - Resources(ranges("ports", {{0, 50}}))).ranges("ports")));
  EXPECT_EQ("1-49", rangesText((ports - Resources(ranges("ports", {{50, 500}}))).ranges("ports")));
  EXPECT_EQ("1-100", rangesText((ports - Resources(ranges("ports", {{200, 300}}))).ranges("ports")));
  EXPECT_EQ("1-4,6-9,11-100",
            rangesText((ports - Resources(ranges("ports", {{5, 5}, {10, 10}}))).ranges("ports")));
  EXPECT_TRUE((ports - Resources(ranges("ports", {{0, 1000}}))).empty());
  EXPECT_TRUE((ports - ports).empty());

  Resources split = Resources(ranges("ports", {{1, 10}, {20, 30}}));
  EXPECT_EQ("1-4,26-30", rangesText((split - Resources(ranges("ports", {{5, 25}}))).ranges("ports")));
}

TEST(ResourcesTest, RangesAtTheEdgesOfUint64) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  Resources resources = Resources(ranges("r", {{kMax - 5, kMax}})) + Resources(ranges("r", {{0, kMax - 6}}));
  EXPECT_EQ("0-" + std::to_string(kMax), rangesText(resources.ranges("r")));
  Resources left = resources - Resources(ranges("r", {{kMax, kMax}}));
  EXPECT_EQ("0-" + std::to_string(kMax - 1), rangesText(left.ranges("r")));
  left = resources - Resources(ranges("r", {{0, 0}}));
  EXPECT_EQ("1-" + std::to_string(kMax), rangesText(left.ranges("r")));
  // Adding the same top range twice must not wrap around.
  Resources top = Resources(ranges("r", {{kMax, kMax}})) + Resources(ranges("r", {{kMax, kMax}}));
  EXPECT_EQ(std::to_string(kMax) + "-" + std::to_string(kMax), rangesText(top.ranges("r")));
}

TEST(ResourcesTest, RangeContainment) {
  Resources ports = parsed("ports:[1-10,20-30]");
  EXPECT_TRUE(ports.contains(parsed("ports:[1-10]")));
  EXPECT_TRUE(ports.contains(parsed("ports:[2-3,25-30]")));
  EXPECT_TRUE(ports.contains(parsed("ports:[20-20]")));
  EXPECT_FALSE(ports.contains(parsed("ports:[10-20]")));
  EXPECT_FALSE(ports.contains(parsed("ports:[0-1]")));
  EXPECT_FALSE(ports.contains(parsed("ports:[30-31]")));
  EXPECT_FALSE(ports.contains(parsed("ports:[11-11]")));
  EXPECT_TRUE(ports.contains(Resources()));
  // Adjacent ranges merged on add count as one.
  EXPECT_TRUE(parsed("ports:[1-5];ports:[6-10]").contains(parsed("ports:[4-7]")));
}

TEST(ResourcesTest, SetArithmetic) {
  Resources disks = Resources(set("disks", {"sda", "sdb"})) + Resources(set("disks", {"sdb", "sdc"}));
  EXPECT_EQ(1u, disks.size());
  EXPECT_EQ("disks(*):{sda, sdb, sdc}", disks.toString());
  EXPECT_TRUE(disks.contains(Resources(set("disks", {"sdc", "sda"}))));
  EXPECT_FALSE(disks.contains(Resources(set("disks", {"sdd"}))));

  Resources left = disks - Resources(set("disks", {"sdb", "sdz"}));
  EXPECT_EQ("disks(*):{sda, sdc}", left.toString());
  EXPECT_TRUE((left - Resources(set("disks", {"sda", "sdc"}))).empty());
}

TEST(ResourcesTest, EqualityIgnoresOrder) {
  EXPECT_EQ(parsed("cpus:1;mem:2;ports:[1-2]"), parsed("ports:[1-2];mem:2;cpus:1"));
  EXPECT_EQ(parsed("cpus:1;mem:2").toString(), parsed("mem:2;cpus:1").toString());
  EXPECT_FALSE(parsed("cpus:1;mem:2") == parsed("cpus:1"));
  EXPECT_FALSE(parsed("cpus:1") == parsed("cpus:1;mem:2"));
  EXPECT_FALSE(parsed("cpus:1") == parsed("cpus:2"));
  EXPECT_FALSE(parsed("cpus:1") == parsed("cpus(r):1"));
  EXPECT_EQ(Resources(), Resources());
}

TEST(ResourcesTest, ContainsNeedsEveryResource) {
  Resources offer = parsed("cpus:4;mem:1024;ports:[31000-31010]");
  EXPECT_TRUE(offer.contains(parsed("cpus:4;mem:1024")));
  EXPECT_TRUE(offer.contains(parsed("cpus:0.5;ports:[31005-31005]")));
  EXPECT_FALSE(offer.contains(parsed("cpus:4.001")));
  EXPECT_FALSE(offer.contains(parsed("cpus:1;gpus:1")));
  EXPECT_TRUE(offer.contains(offer));
}

TEST(ResourcesTest, ProtoRoundTrip) {
  Resources resources = parsed("cpus:2;mem:512;ports:[1-3];disks:{a}");
  auto proto = resources.proto();
  EXPECT_EQ(4, proto.size());
  EXPECT_TRUE(Resources::validate(proto).ok());
  EXPECT_EQ(resources, Resources(proto));

  // A resource without an explicit role is the default role "*".
  Resource noRole;
  noRole.set_name("cpus");
  noRole.set_type(Value::SCALAR);
  noRole.mutable_scalar()->set_value(1);
  EXPECT_EQ(parsed("cpus:1"), Resources(noRole));
}

TEST(ResourcesTest, ReservedResourcesAreDistinct) {
  Resource reserved = scalar("cpus", 1, "ads");
  reserved.mutable_reservation()->set_principal("alice");
  Resources resources = Resources(reserved) + parsed("cpus(ads):2");
  EXPECT_EQ(2u, resources.size());
  EXPECT_FALSE(parsed("cpus(ads):5").contains(Resources(reserved)));
  EXPECT_TRUE(resources.contains(Resources(reserved)));
  EXPECT_EQ(parsed("cpus:3"), resources.flatten());
}

}  // namespace
}  // namespace mesos
