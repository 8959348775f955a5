// Wire and JSON compatibility with Apache Mesos's v1 scheduler API, as
// mesos-go's api/v1/lib defines it: every message and enum of its
// scheduler.proto, and every one of its mesos.proto that Call and Event
// reach, exists in ours (mesos.v1.scheduler / mesos.v1) with the same field
// names, numbers, labels, types and defaults. Names matter here, unlike v0:
// they are the keys of the JSON encoding.
#include <filesystem>
#include <set>
#include <string>

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include "protocol/descriptors.hpp"

#include "mesos.pb.h"
#include "v1/mesos.pb.h"
#include "v1/scheduler.pb.h"

namespace mesos::test {
namespace {

namespace pb = google::protobuf;

constexpr const char* kGoSource = "/usr/share/gocode/src";
constexpr const char* kSchedulerProto = "github.com/mesos/mesos-go/api/v1/lib/scheduler/scheduler.proto";

// mesos-go's packages are "mesos" and "mesos.scheduler"; ours add ".v1".
template <typename D>
std::string ourName(const D* theirs) {
  const std::string& package = theirs->file()->package();
  std::string local = theirs->full_name().substr(package.size() + 1);
  return (package == "mesos.scheduler" ? "mesos.v1.scheduler." : "mesos.v1.") + local;
}

const pb::DescriptorPool* ourPool() { return pb::DescriptorPool::generated_pool(); }

// What Apache Mesos added to the v1 scheduler API after the mesos-go
// version Debian ships: operation feedback (1.6), UPDATE_FRAMEWORK (1.9)
// and the HOST_PATH and CSI_VOLUME volume sources (1.6, 1.11).
// Ours has them; theirs does not, which is all the counts below may differ
// by.
const std::set<std::string>& newerInApache() {
  static const std::set<std::string> names = {
      "mesos.v1.scheduler.Event.update_operation_status",
      "mesos.v1.scheduler.Event.UpdateOperationStatus",
      "mesos.v1.scheduler.Event.UPDATE_OPERATION_STATUS",
      "mesos.v1.scheduler.Call.acknowledge_operation_status",
      "mesos.v1.scheduler.Call.reconcile_operations",
      "mesos.v1.scheduler.Call.update_framework",
      "mesos.v1.scheduler.Call.AcknowledgeOperationStatus",
      "mesos.v1.scheduler.Call.ReconcileOperations",
      "mesos.v1.scheduler.Call.UpdateFramework",
      "mesos.v1.scheduler.Call.ACKNOWLEDGE_OPERATION_STATUS",
      "mesos.v1.scheduler.Call.RECONCILE_OPERATIONS",
      "mesos.v1.scheduler.Call.UPDATE_FRAMEWORK",
      "mesos.v1.Offer.Operation.id",
      "mesos.v1.Offer.Operation.Reserve.source",
      "mesos.v1.Volume.Source.host_path",
      "mesos.v1.Volume.Source.HostPath",
      "mesos.v1.Volume.Source.HOST_PATH",
      "mesos.v1.Volume.Source.CSI_VOLUME",
  };
  return names;
}

// How many of `mine`'s `count` entries are in newerInApache() (full names
// as `name(i)` gives them).
template <typename F>
int newer(int count, F name) {
  int out = 0;
  for (int i = 0; i < count; ++i) out += newerInApache().count(name(i)) ? 1 : 0;
  return out;
}

void compareEnum(const pb::EnumDescriptor* theirs, int* checked) {
  SCOPED_TRACE(theirs->full_name());
  const pb::EnumDescriptor* mine = ourPool()->FindEnumTypeByName(ourName(theirs));
  ASSERT_NE(nullptr, mine) << "missing enum " << ourName(theirs);
  EXPECT_EQ(theirs->value_count(),
            mine->value_count() - newer(mine->value_count(), [&](int i) {
              return mine->full_name().substr(0, mine->full_name().rfind('.') + 1) +
                     mine->value(i)->name();
            }));
  expectSameValues(theirs, mine, checked);
}

void compareMessage(const pb::Descriptor* theirs, int* checked) {
  SCOPED_TRACE(theirs->full_name());
  const pb::Descriptor* mine = ourPool()->FindMessageTypeByName(ourName(theirs));
  ASSERT_NE(nullptr, mine) << "missing message " << ourName(theirs);
  EXPECT_EQ(theirs->field_count(),
            mine->field_count() -
                newer(mine->field_count(), [&](int i) { return mine->field(i)->full_name(); }))
      << "fields of " << mine->full_name();
  for (int i = 0; i < theirs->field_count(); ++i) {
    const pb::FieldDescriptor* field = theirs->field(i);
    const pb::FieldDescriptor* match = mine->FindFieldByNumber(field->number());
    ASSERT_NE(nullptr, match) << "missing field " << field->name() << " = " << field->number();
    ASSERT_EQ(field->message_type() != nullptr, match->message_type() != nullptr) << field->name();
    ASSERT_EQ(field->enum_type() != nullptr, match->enum_type() != nullptr) << field->name();
    expectSameField(
        field, match, [](const auto* type) { return ourName(type); },
        [](const auto* type) { return type->full_name(); });
    ++*checked;
  }
  EXPECT_EQ(theirs->nested_type_count(),
            mine->nested_type_count() - newer(mine->nested_type_count(), [&](int i) {
              return mine->nested_type(i)->full_name();
            }));
  EXPECT_EQ(theirs->enum_type_count(), mine->enum_type_count());
  for (int i = 0; i < theirs->nested_type_count(); ++i) compareMessage(theirs->nested_type(i), checked);
  for (int i = 0; i < theirs->enum_type_count(); ++i) compareEnum(theirs->enum_type(i), checked);
}

// The top-level types of `pool` that `message` reaches through its fields
// (and its nested types' fields), by full name.
void reach(const pb::Descriptor* message, const pb::DescriptorPool* pool, std::set<std::string>* seen) {
  auto top = [](const pb::Descriptor* d) {
    while (d->containing_type() != nullptr) d = d->containing_type();
    return d;
  };
  const pb::Descriptor* outer = top(message);
  if (!seen->insert(outer->full_name()).second) return;
  std::vector<const pb::Descriptor*> pending{outer};
  while (!pending.empty()) {
    const pb::Descriptor* d = pending.back();
    pending.pop_back();
    for (int i = 0; i < d->nested_type_count(); ++i) pending.push_back(d->nested_type(i));
    for (int i = 0; i < d->field_count(); ++i) {
      const pb::FieldDescriptor* field = d->field(i);
      if (field->message_type() != nullptr) reach(field->message_type(), pool, seen);
      if (const pb::EnumDescriptor* e = field->enum_type()) {
        if (e->containing_type() != nullptr) {
          reach(e->containing_type(), pool, seen);
        } else {
          seen->insert(e->full_name());
        }
      }
    }
  }
}

TEST(ProtocolCompatV1Test, MatchesMesosGoDefinitions) {
  if (!std::filesystem::exists(std::string(kGoSource) + "/" + kSchedulerProto)) {
    GTEST_SKIP() << "mesos-go's v1 .proto files are missing: install golang-github-mesos-mesos-go-dev";
  }
  // Referencing a type links its file into the generated pool.
  ASSERT_EQ("mesos.v1.scheduler.Call", v1::scheduler::Call::descriptor()->full_name());
  ASSERT_EQ("mesos.v1.Offer", v1::Offer::descriptor()->full_name());

  pb::compiler::DiskSourceTree tree;
  tree.MapPath("", kGoSource);
  tree.MapPath("google/protobuf", "/usr/include/google/protobuf");
  ProtoErrors errors;
  pb::compiler::Importer importer(&tree, &errors);
  const pb::FileDescriptor* scheduler = importer.Import(kSchedulerProto);
  ASSERT_NE(nullptr, scheduler) << errors.errors;
  ASSERT_EQ("mesos.scheduler", scheduler->package());

  int checked = 0;
  for (int i = 0; i < scheduler->message_type_count(); ++i) {
    compareMessage(scheduler->message_type(i), &checked);
  }
  for (int i = 0; i < scheduler->enum_type_count(); ++i) compareEnum(scheduler->enum_type(i), &checked);

  std::set<std::string> reached;
  reach(scheduler->FindMessageTypeByName("Call"), importer.pool(), &reached);
  reach(scheduler->FindMessageTypeByName("Event"), importer.pool(), &reached);
  int types = 0;
  for (const std::string& name : reached) {
    if (name.rfind("mesos.scheduler.", 0) == 0) continue;
    if (const pb::Descriptor* message = importer.pool()->FindMessageTypeByName(name)) {
      compareMessage(message, &checked);
    } else {
      const pb::EnumDescriptor* e = importer.pool()->FindEnumTypeByName(name);
      ASSERT_NE(nullptr, e) << name;
      compareEnum(e, &checked);
    }
    ++types;
  }
  EXPECT_GT(types, 45) << "reached suspiciously few types of mesos.proto";
  EXPECT_GT(checked, 500) << "compared suspiciously few fields";
}

// v1 renames v0's fields but keeps their numbers and types, which is what
// lets common/v1.hpp convert through the wire format.
TEST(ProtocolCompatV1Test, SameWireAsV0) {
  auto expectSameWire = [](const pb::Descriptor* v0, const pb::Descriptor* v1) {
    SCOPED_TRACE(v1->full_name());
    for (int i = 0; i < v1->field_count(); ++i) {
      const pb::FieldDescriptor* field = v1->field(i);
      const pb::FieldDescriptor* old = v0->FindFieldByNumber(field->number());
      if (old == nullptr) continue;  // newer than our v0 file
      EXPECT_EQ(old->type(), field->type()) << field->name() << " / " << old->name();
      EXPECT_EQ(old->is_repeated(), field->is_repeated()) << field->name();
    }
  };
  expectSameWire(Offer::descriptor(), v1::Offer::descriptor());
  expectSameWire(TaskInfo::descriptor(), v1::TaskInfo::descriptor());
  expectSameWire(TaskStatus::descriptor(), v1::TaskStatus::descriptor());
  expectSameWire(FrameworkInfo::descriptor(), v1::FrameworkInfo::descriptor());
  expectSameWire(Resource::descriptor(), v1::Resource::descriptor());
  expectSameWire(Offer::Operation::descriptor(), v1::Offer::Operation::descriptor());
  EXPECT_EQ("agent_id", v1::Offer::descriptor()->FindFieldByNumber(3)->name());
  EXPECT_EQ("slave_id", Offer::descriptor()->FindFieldByNumber(3)->name());
}

}  // namespace
}  // namespace mesos::test
