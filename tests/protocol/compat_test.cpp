// Wire compatibility with Apache Mesos v0 as mesos-go 0.0.6 defines it: every
// message and enum in mesos-go's mesosproto .proto files must exist in ours
// with the same field names, numbers, labels, types and defaults, since that
// is what goes on the wire.
#include <filesystem>
#include <string>
#include <vector>

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include "protocol/descriptors.hpp"

#include "mesos.pb.h"
#include "messages.pb.h"
#include "scheduler.pb.h"

namespace mesos::test {
namespace {

namespace pb = google::protobuf;

constexpr const char* kGoCode = "/usr/share/gocode/src/github.com";
constexpr const char* kMesosProto = "/usr/share/gocode/src/github.com/mesos/mesos-go/api/v0/mesosproto";

// A type's name within its package ("mesosproto.Offer.Operation" and
// "mesos.Offer.Operation" are both "Offer.Operation").
template <typename D>
std::string localName(const D* d) {
  const std::string& package = d->file()->package();
  return d->full_name().substr(package.empty() ? 0 : package.size() + 1);
}

// Messages Apache Mesos renamed after the version mesos-go copied (names are
// not on the wire; numbers and types are): theirs -> ours.
std::string renamed(const std::string& name) {
  if (name == "HealthCheck.HTTP") return "HealthCheck.HTTPCheckInfo";  // Apache 1.1
  return name;
}

// What Apache Mesos 1.x changed after mesos-go copied: the capability's
// `type` became optional, and its enum gained UNKNOWN = 0 in front, so that
// a capability a master does not know is ignored rather than a missing
// required field. Each other side still parses what the other sends.
// Likewise Offer.Operation's `type` (an unknown operation is refused by
// name, not taken for a malformed call), ExecutorInfo's `command` (a
// DEFAULT executor has none) and a reservation's `principal` (a STATIC
// reservation has none).
bool madeOptional(const std::string& message, const std::string& field) {
  return (message == "FrameworkInfo.Capability" && field == "type") ||
         (message == "Offer.Operation" && field == "type") ||
         (message == "ExecutorInfo" && field == "command") ||
         (message == "Resource.ReservationInfo" && field == "principal");
}
bool gainedUnknownFirst(const std::string& name) {
  return name == "FrameworkInfo.Capability.Type" || name == "Offer.Operation.Type";
}

const pb::Descriptor* ours(const std::string& name) {
  const pb::DescriptorPool* pool = pb::DescriptorPool::generated_pool();
  for (const char* package : {"mesos.", "mesos.internal.", "mesos.scheduler."}) {
    if (auto* d = pool->FindMessageTypeByName(package + name)) return d;
  }
  return nullptr;
}

const pb::EnumDescriptor* oursEnum(const std::string& name) {
  const pb::DescriptorPool* pool = pb::DescriptorPool::generated_pool();
  for (const char* package : {"mesos.", "mesos.internal.", "mesos.scheduler."}) {
    if (auto* d = pool->FindEnumTypeByName(package + name)) return d;
  }
  return nullptr;
}

void compareEnum(const pb::EnumDescriptor* theirs, int* checked) {
  SCOPED_TRACE(theirs->full_name());
  const pb::EnumDescriptor* mine = oursEnum(localName(theirs));
  ASSERT_NE(nullptr, mine) << "missing enum";
  expectSameValues(theirs, mine, checked, !gainedUnknownFirst(localName(theirs)));
}

void compareMessage(const pb::Descriptor* theirs, int* checked) {
  SCOPED_TRACE(theirs->full_name());
  const pb::Descriptor* mine = ours(renamed(localName(theirs)));
  ASSERT_NE(nullptr, mine) << "missing message";
  for (int i = 0; i < theirs->field_count(); ++i) {
    const pb::FieldDescriptor* field = theirs->field(i);
    const pb::FieldDescriptor* match = mine->FindFieldByNumber(field->number());
    ASSERT_NE(nullptr, match) << "missing field " << field->name() << " = " << field->number();
    ASSERT_EQ(field->message_type() != nullptr, match->message_type() != nullptr) << field->name();
    ASSERT_EQ(field->enum_type() != nullptr, match->enum_type() != nullptr) << field->name();
    // Message types Apache renamed keep their wire form (renamed()).
    expectSameField(
        field, match, [](const auto* type) { return renamed(localName(type)); },
        [](const auto* type) { return localName(type); },
        !madeOptional(localName(theirs), field->name()));
    ++*checked;
  }
  for (int i = 0; i < theirs->nested_type_count(); ++i) compareMessage(theirs->nested_type(i), checked);
  for (int i = 0; i < theirs->enum_type_count(); ++i) compareEnum(theirs->enum_type(i), checked);
}

TEST(ProtocolCompatTest, MatchesMesosGoDefinitions) {
  if (!std::filesystem::exists(std::string(kMesosProto) + "/messages.proto")) {
    GTEST_SKIP() << "mesos-go's .proto files are missing: install golang-github-mesos-mesos-go-dev";
  }
  // Referencing a type links its file into the generated pool.
  ASSERT_EQ("mesos.scheduler.Call", scheduler::Call::descriptor()->full_name());
  // mesos-go's files declare no syntax; protobuf warns about that on stderr.
  pb::LogHandler* previous = pb::SetLogHandler(nullptr);
  int checked = 0;
  // scheduler.proto imports mesos.proto by another path, so it gets a pool of
  // its own (one pool cannot hold the same file under two names).
  for (std::vector<const char*> files : {std::vector<const char*>{"mesos.proto", "messages.proto",
                                                                  "authentication.proto"},
                                         std::vector<const char*>{"scheduler/scheduler.proto"}}) {
    pb::compiler::DiskSourceTree tree;
    tree.MapPath("", kMesosProto);
    tree.MapPath("github.com/mesos/mesos-go/mesosproto", kMesosProto);
    tree.MapPath("github.com", kGoCode);
    tree.MapPath("google/protobuf", "/usr/include/google/protobuf");
    ProtoErrors errors;
    pb::compiler::Importer importer(&tree, &errors);
    for (const char* file : files) {
      const pb::FileDescriptor* theirs = importer.Import(file);
      ASSERT_NE(nullptr, theirs) << file << ":\n" << errors.errors;
      if (std::string(file) == "scheduler/scheduler.proto" || files.size() > 1) {
        for (int i = 0; i < theirs->message_type_count(); ++i) {
          compareMessage(theirs->message_type(i), &checked);
        }
        for (int i = 0; i < theirs->enum_type_count(); ++i) {
          compareEnum(theirs->enum_type(i), &checked);
        }
      }
    }
  }
  pb::SetLogHandler(previous);
  EXPECT_GT(checked, 500) << "compared suspiciously few fields";
}

TEST(ProtocolCompatTest, FactsThatMatterOnTheWire) {
  EXPECT_EQ(5.0, Filters().refuse_seconds());
  EXPECT_EQ("mesos.internal.RegisterFrameworkMessage",
            internal::RegisterFrameworkMessage::descriptor()->full_name());
  const pb::FieldDescriptor* filters =
      internal::LaunchTasksMessage::descriptor()->FindFieldByName("filters");
  ASSERT_NE(nullptr, filters);
  EXPECT_TRUE(filters->is_required());
  EXPECT_EQ(pb::FieldDescriptor::TYPE_BYTES,
            internal::StatusUpdate::descriptor()->FindFieldByName("uuid")->type());
  EXPECT_EQ(2, internal::RegisterSlaveMessage::descriptor()->FindFieldByName("version")->number());
}

}  // namespace
}  // namespace mesos::test
