// Between the v0 types (mesos.*, mesos.scheduler.*) and Apache Mesos's v1
// types (mesos.v1.*, mesos.v1.scheduler.*). The two are the same on the
// wire (v1 renames fields, e.g. slave_id -> agent_id, never renumbers them),
// so a message converts by serializing it and parsing the bytes as the other
// type.
#pragma once

#include <string>
#include <type_traits>

#include <glog/logging.h>
#include <google/protobuf/message.h>

namespace mesos {

namespace v1_internal {

template <typename To, typename From>
To convert(const From& from) {
  static_assert(std::is_base_of_v<google::protobuf::Message, From> &&
                    std::is_base_of_v<google::protobuf::Message, To>,
                "evolve/devolve convert protobuf messages");
  std::string wire;
  // Partial: a message missing required fields converts to one missing the
  // same fields, for the caller's validation to report.
  CHECK(from.SerializePartialToString(&wire)) << from.GetTypeName();
  To to;
  CHECK(to.ParsePartialFromString(wire))
      << from.GetTypeName() << " is not wire-compatible with " << to.GetTypeName();
  return to;
}

}  // namespace v1_internal

// A v0 message as its v1 counterpart: evolve<v1::Offer>(offer). Fields the
// v1 type lacks are kept as unknown fields and come back on devolve.
template <typename To, typename From>
To evolve(const From& from) {
  return v1_internal::convert<To>(from);
}

// A v1 message as its v0 counterpart: devolve<Offer>(v1Offer).
template <typename To, typename From>
To devolve(const From& from) {
  return v1_internal::convert<To>(from);
}

}  // namespace mesos
