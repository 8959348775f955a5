// What the protocol compatibility tests (compat_test.cpp, compat_v1_test.cpp)
// share: loading mesos-go's .proto files, and a field default as text.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/descriptor.h>

namespace mesos::test {

// Collects what protobuf's importer reports about the files it loads.
class ProtoErrors : public google::protobuf::compiler::MultiFileErrorCollector {
 public:
  void AddError(const std::string& file, int line, int, const std::string& message) override {
    errors += file + ":" + std::to_string(line) + ": " + message + "\n";
  }
  std::string errors;
};

// A field's default value as text ("" for messages), to compare two
// definitions of one field.
inline std::string defaultText(const google::protobuf::FieldDescriptor* f) {
  using F = google::protobuf::FieldDescriptor;
  switch (f->cpp_type()) {
    case F::CPPTYPE_INT32: return std::to_string(f->default_value_int32());
    case F::CPPTYPE_INT64: return std::to_string(f->default_value_int64());
    case F::CPPTYPE_UINT32: return std::to_string(f->default_value_uint32());
    case F::CPPTYPE_UINT64: return std::to_string(f->default_value_uint64());
    case F::CPPTYPE_DOUBLE: return std::to_string(f->default_value_double());
    case F::CPPTYPE_FLOAT: return std::to_string(f->default_value_float());
    case F::CPPTYPE_BOOL: return f->default_value_bool() ? "true" : "false";
    case F::CPPTYPE_ENUM: return f->default_value_enum()->name();
    case F::CPPTYPE_STRING: return f->default_value_string();
    case F::CPPTYPE_MESSAGE: return "";
  }
  return "";
}

// Expects `mine` to hold every value of `theirs` with its number, and the
// same first value (proto2's default for an unset field) unless
// `sameFirst` is false; counts each value in *checked.
inline void expectSameValues(const google::protobuf::EnumDescriptor* theirs,
                             const google::protobuf::EnumDescriptor* mine, int* checked,
                             bool sameFirst = true) {
  for (int i = 0; i < theirs->value_count(); ++i) {
    const google::protobuf::EnumValueDescriptor* value = theirs->value(i);
    const google::protobuf::EnumValueDescriptor* match = mine->FindValueByName(value->name());
    ASSERT_NE(nullptr, match) << "missing value " << value->name();
    EXPECT_EQ(value->number(), match->number()) << value->name();
    ++*checked;
  }
  if (sameFirst) {
    EXPECT_EQ(theirs->value(0)->name(), mine->value(0)->name());
  }
}

// Expects `mine` to be `theirs` on the wire and in JSON: name, label, type,
// default, and the same message or enum type, as `theirType` names their
// type and `ourType` ours (each maps a Descriptor or an EnumDescriptor to a
// name the two can be compared by).
// `sameLabel` false: Apache made a required field optional later (either
// side then parses what the other sends).
template <typename TheirType, typename OurType>
void expectSameField(const google::protobuf::FieldDescriptor* theirs,
                     const google::protobuf::FieldDescriptor* mine, TheirType theirType,
                     OurType ourType, bool sameLabel = true) {
  EXPECT_EQ(theirs->name(), mine->name());
  if (sameLabel) {
    EXPECT_EQ(theirs->label(), mine->label()) << theirs->name();
  }
  EXPECT_EQ(theirs->type(), mine->type()) << theirs->name();
  if (theirs->message_type() != nullptr && mine->message_type() != nullptr) {
    EXPECT_EQ(theirType(theirs->message_type()), ourType(mine->message_type())) << theirs->name();
  }
  if (theirs->enum_type() != nullptr && mine->enum_type() != nullptr) {
    EXPECT_EQ(theirType(theirs->enum_type()), ourType(mine->enum_type())) << theirs->name();
  }
  EXPECT_EQ(theirs->has_default_value(), mine->has_default_value()) << theirs->name();
  if (theirs->has_default_value() && mine->has_default_value()) {
    EXPECT_EQ(defaultText(theirs), defaultText(mine)) << theirs->name();
  }
}

}  // namespace mesos::test
