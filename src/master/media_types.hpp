// What the master's v1 HTTP APIs (scheduler_api.cpp, operator_api.cpp)
// share about their requests: the two encodings, reading Content-Type and
// Accept, and a plain-text error answer.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <google/protobuf/message.h>

#include "common/protobuf_json.hpp"
#include "process/http.hpp"

namespace mesos::internal::master::media {

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kProtobuf = "application/x-protobuf";

// `message` as a plain-text answer with `status`.
inline process::http::Response answer(int status, const std::string& message) {
  return process::http::Response{status, "text/plain", message + "\n", {}};
}

// A media type without its parameters, trimmed ("application/json;
// charset=utf-8" is "application/json").
inline std::string_view bareType(std::string_view type) {
  type = type.substr(0, type.find(';'));
  while (!type.empty() && type.front() == ' ') type.remove_prefix(1);
  while (!type.empty() && type.back() == ' ') type.remove_suffix(1);
  return type;
}

// Whether the Accept header takes `type`: no header, or one listing the
// type itself, "application/*" or "*/*".
inline bool accepts(const process::http::Request& request, std::string_view type) {
  if (!request.hasHeader("accept")) return true;
  std::string_view rest = request.header("accept");
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view listed = bareType(rest.substr(0, comma));
    if (listed == type || listed == "*/*" || listed == "application/*") return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

// Reads the request's body into `call` by its Content-Type (JSON or
// protobuf) and checks its required fields; the error answer when it
// cannot (400 naming what failed, 415 for another media type). `label`
// names the call in errors ("master::Call").
inline std::optional<process::http::Response> parseCall(const process::http::Request& request,
                                                        google::protobuf::Message* call,
                                                        const std::string& label) {
  std::string_view type = bareType(request.header("content-type"));
  if (type == kProtobuf) {
    if (!call->ParsePartialFromString(request.body)) {
      return answer(400, "Failed to parse body into Call: not a protobuf " +
                             call->GetDescriptor()->full_name());
    }
  } else if (type == kJson) {
    if (auto parsed = fromJson(request.body, call); !parsed) {
      return answer(400, "Failed to parse body into Call: " + parsed.error().message);
    }
  } else {
    return answer(415, "Expecting 'Content-Type' of " + std::string(kJson) + " or " +
                           std::string(kProtobuf));
  }
  if (!call->IsInitialized()) {
    return answer(400, "Failed to validate " + label + ": missing required fields: " +
                           call->InitializationErrorString());
  }
  return std::nullopt;
}

}  // namespace mesos::internal::master::media
