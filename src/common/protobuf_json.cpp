#include "common/protobuf_json.hpp"

#include <cstdint>
#include <memory>
#include <vector>

#include <glog/logging.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include "common/base64.hpp"
#include "common/json.hpp"

namespace mesos {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::util::TypeResolver;

constexpr const char* kTypeUrlPrefix = "type.googleapis.com";

void appendString(std::string* out, const std::string& text) {
  *out += json::stringify(json::Value(text));
}

void appendMessage(std::string* out, const Message& message);

// One value of `field`: element `index` of a repeated field, or the field
// itself when index < 0.
void appendValue(std::string* out, const Message& message, const Reflection* reflection,
                 const FieldDescriptor* field, int index) {
  const bool repeated = index >= 0;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      *out += std::to_string(repeated ? reflection->GetRepeatedInt32(message, field, index)
                                      : reflection->GetInt32(message, field));
      return;
    case FieldDescriptor::CPPTYPE_INT64:
      *out += std::to_string(repeated ? reflection->GetRepeatedInt64(message, field, index)
                                      : reflection->GetInt64(message, field));
      return;
    case FieldDescriptor::CPPTYPE_UINT32:
      *out += std::to_string(repeated ? reflection->GetRepeatedUInt32(message, field, index)
                                      : reflection->GetUInt32(message, field));
      return;
    case FieldDescriptor::CPPTYPE_UINT64:
      *out += std::to_string(repeated ? reflection->GetRepeatedUInt64(message, field, index)
                                      : reflection->GetUInt64(message, field));
      return;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      *out += json::stringify(json::Value(repeated ? reflection->GetRepeatedDouble(message, field, index)
                                                   : reflection->GetDouble(message, field)));
      return;
    case FieldDescriptor::CPPTYPE_FLOAT:
      *out += json::stringify(json::Value(static_cast<double>(
          repeated ? reflection->GetRepeatedFloat(message, field, index)
                   : reflection->GetFloat(message, field))));
      return;
    case FieldDescriptor::CPPTYPE_BOOL:
      *out += (repeated ? reflection->GetRepeatedBool(message, field, index)
                        : reflection->GetBool(message, field))
                  ? "true"
                  : "false";
      return;
    case FieldDescriptor::CPPTYPE_ENUM: {
      int number = repeated ? reflection->GetRepeatedEnumValue(message, field, index)
                            : reflection->GetEnumValue(message, field);
      const auto* value = field->enum_type()->FindValueByNumber(number);
      if (value != nullptr) {
        appendString(out, value->name());
      } else {
        *out += std::to_string(number);
      }
      return;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& text =
          repeated ? reflection->GetRepeatedStringReference(message, field, index, &scratch)
                   : reflection->GetStringReference(message, field, &scratch);
      if (field->type() == FieldDescriptor::TYPE_BYTES) {
        *out += '"';
        base64::append(out, text);
        *out += '"';
      } else {
        appendString(out, text);
      }
      return;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      appendMessage(out, repeated ? reflection->GetRepeatedMessage(message, field, index)
                                  : reflection->GetMessage(message, field));
      return;
  }
  LOG(FATAL) << "unhandled protobuf field type " << field->cpp_type_name();
}

void appendMessage(std::string* out, const Message& message) {
  const Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);  // set fields and non-empty repeated ones
  *out += '{';
  bool first = true;
  for (const FieldDescriptor* field : fields) {
    if (!first) *out += ',';
    first = false;
    appendString(out, field->name());
    *out += ':';
    if (field->is_map()) {
      // As protobuf's JSON: an object of the entries, keys as strings
      // (QuotaConfig's guarantees: {"cpus": {"value": 1}}).
      const FieldDescriptor* key = field->message_type()->map_key();
      const FieldDescriptor* value = field->message_type()->map_value();
      *out += '{';
      int count = reflection->FieldSize(message, field);
      for (int i = 0; i < count; ++i) {
        if (i > 0) *out += ',';
        const Message& entry = reflection->GetRepeatedMessage(message, field, i);
        std::string name;
        appendValue(&name, entry, entry.GetReflection(), key, -1);
        if (name.empty() || name.front() != '"') name = '"' + name + '"';
        *out += name;
        *out += ':';
        appendValue(out, entry, entry.GetReflection(), value, -1);
      }
      *out += '}';
    } else if (field->is_repeated()) {
      *out += '[';
      int count = reflection->FieldSize(message, field);
      for (int i = 0; i < count; ++i) {
        if (i > 0) *out += ',';
        appendValue(out, message, reflection, field, i);
      }
      *out += ']';
    } else {
      appendValue(out, message, reflection, field, -1);
    }
  }
  *out += '}';
}

// protobuf's messages carry a newline and a caret under the offending
// character; keep the first line.
std::string firstLine(std::string_view text) {
  text = text.substr(0, text.find('\n'));
  while (!text.empty() && (text.front() == ':' || text.front() == ' ')) text.remove_prefix(1);
  std::string line(text);
  while (!line.empty() && (line.back() == ' ' || line.back() == '.')) line.pop_back();
  return line;
}

}  // namespace

std::string toJson(const Message& message) {
  std::string out;
  appendMessage(&out, message);
  return out;
}

Result<void> fromJson(std::string_view json, Message* message) {
  const Descriptor* descriptor = message->GetDescriptor();
  const DescriptorPool* pool = descriptor->file()->pool();
  // The resolver only reads the pool (itself thread-safe); the generated
  // pool's is kept, any other pool gets one per call.
  static TypeResolver* const generated = google::protobuf::util::NewTypeResolverForDescriptorPool(
      kTypeUrlPrefix, DescriptorPool::generated_pool());
  std::unique_ptr<TypeResolver> own;
  TypeResolver* resolver = generated;
  if (pool != DescriptorPool::generated_pool()) {
    own.reset(google::protobuf::util::NewTypeResolverForDescriptorPool(kTypeUrlPrefix, pool));
    resolver = own.get();
  }

  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  std::string binary;
  auto status = google::protobuf::util::JsonToBinaryString(
      resolver, std::string(kTypeUrlPrefix) + "/" + descriptor->full_name(),
      google::protobuf::StringPiece(json.data(), json.size()), &binary, options);
  if (!status.ok()) {
    return Error{"invalid JSON for " + descriptor->full_name() + ": " +
                 firstLine(std::string_view(status.message().data(), status.message().size()))};
  }
  message->Clear();
  if (!message->ParsePartialFromString(binary)) {
    return Error{"invalid JSON for " + descriptor->full_name() + ": could not decode it"};
  }
  if (!message->IsInitialized()) {
    return Error{"invalid JSON for " + descriptor->full_name() +
                 ": missing required fields: " + message->InitializationErrorString()};
  }
  return {};
}

}  // namespace mesos
