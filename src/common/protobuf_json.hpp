// Protobuf messages as the JSON of Apache Mesos's v1 HTTP API, both ways.
//
// Unlike json::fromProto (json.hpp), which renders /state and writes bytes
// fields raw, this is the wire encoding of `application/json` requests and
// responses: bytes are base64 and every value round-trips.
#pragma once

#include <string>
#include <string_view>

#include <google/protobuf/message.h>

#include "mesos/result.hpp"

namespace mesos {

// Compact JSON for `message`: the .proto field names (snake_case), enums by
// value name (an enum number with no name is written as the number), bytes
// base64-encoded (RFC 4648, padded), every integer type (64-bit included) as
// a JSON number, doubles and floats as numbers (NaN and infinities as null),
// repeated fields as arrays, unset fields left out (so a proto2 default that
// was never set does not appear). Missing required fields are not checked.
std::string toJson(const google::protobuf::Message& message);

// Parses `json` into `message` (cleared first): keys are the .proto field
// names (or protobuf's lowerCamel JSON names), enums by name or number,
// integers as numbers or strings, bytes as base64. As Apache Mesos does, a
// key naming no field is ignored and an unknown enum name leaves its
// (optional) field unset. On failure returns an Error with one line naming
// the message type and the problem (bad syntax, wrong type, missing required
// field); `message` is then unspecified.
Result<void> fromJson(std::string_view json, google::protobuf::Message* message);

}  // namespace mesos
