// What the protocol compatibility tests (compat_test.cpp, compat_v1_test.cpp)
// share: loading mesos-go's .proto files, and a field default as text.
#pragma once

#include <string>

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

}  // namespace mesos::test
