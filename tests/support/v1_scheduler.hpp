// Helpers for tests of the v1 scheduler HTTP API (POST /api/v1/scheduler)
// against a real master (MasterFixture): a subscription's event stream read
// off a real TCP connection, and calls, each on a connection of its own.
#pragma once

#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/protobuf_json.hpp"
#include "common/v1.hpp"
#include "support/master_fixture.hpp"
#include "support/raw_peer.hpp"
#include "v1/scheduler.pb.h"

namespace mesos::test {

using V1Call = v1::scheduler::Call;
using V1Event = v1::scheduler::Event;

inline constexpr const char* kProtobuf = "application/x-protobuf";
inline constexpr const char* kJson = "application/json";

// A scalar resource, unreserved.
inline v1::Resource v1Scalar(const std::string& name, double value) {
  v1::Resource resource;
  resource.set_name(name);
  resource.set_type(v1::Value::SCALAR);
  resource.mutable_scalar()->set_value(value);
  return resource;
}

// `resource` with one more reservation on its stack: for `role`.
inline v1::Resource reservedFor(
    v1::Resource resource, const std::string& role,
    v1::Resource::ReservationInfo::Type type = v1::Resource::ReservationInfo::DYNAMIC,
    const std::string& principal = "") {
  v1::Resource::ReservationInfo* reservation = resource.add_reservations();
  reservation->set_type(type);
  reservation->set_role(role);
  if (!principal.empty()) reservation->set_principal(principal);
  return resource;
}

inline std::string post(const std::string& body, const std::string& contentType,
                 const std::string& extraHeaders = "") {
  return "POST /api/v1/scheduler HTTP/1.1\r\nHost: test\r\nContent-Type: " + contentType +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extraHeaders + "\r\n" +
         body;
}

inline std::string encode(const V1Call& call, const std::string& contentType) {
  return contentType == kJson ? toJson(call) : call.SerializeAsString();
}

// A v1 scheduler's subscription: the connection that carries its events.
class Subscription {
 public:
  Subscription(const process::Address& master, const V1Call& subscribe,
               const std::string& encoding = kProtobuf)
      : peer_(master), encoding_(encoding) {
    CHECK(peer_.connected());
    CHECK(peer_.write(post(encode(subscribe, encoding), encoding, "Accept: " + encoding + "\r\n")));
    auto head = peer_.readStreamHead();
    if (!head) return;
    status_ = head->status;
    streamId_ = head->headers["mesos-stream-id"];
    contentType_ = head->headers["content-type"];
  }

  int status() const { return status_; }
  const std::string& streamId() const { return streamId_; }
  const std::string& contentType() const { return contentType_; }

  // The next event (its record's raw text in *raw); nullopt when the
  // stream ends or nothing comes within the socket timeout.
  std::optional<V1Event> next(std::string* raw = nullptr) {
    for (;;) {
      size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        size_t size = std::stoul(buffer_.substr(0, newline));
        if (buffer_.size() >= newline + 1 + size) {
          std::string record = buffer_.substr(newline + 1, size);
          buffer_.erase(0, newline + 1 + size);
          if (raw != nullptr) *raw = record;
          V1Event event;
          if (encoding_ == kJson) {
            auto parsed = fromJson(record, &event);
            EXPECT_TRUE(parsed) << parsed.error().message << ": " << record;
          } else {
            EXPECT_TRUE(event.ParseFromString(record));
          }
          return event;
        }
      }
      auto chunk = peer_.readChunk();
      if (!chunk || chunk->empty()) {
        ended_ = true;
        return std::nullopt;
      }
      buffer_ += *chunk;
    }
  }

  // The next event that is not a HEARTBEAT, which must be of `type`.
  V1Event expect(V1Event::Type type, std::string* raw = nullptr) {
    for (;;) {
      auto event = next(raw);
      if (!event) {
        ADD_FAILURE() << "the stream ended (or went quiet) before a "
                      << V1Event::Type_Name(type);
        return V1Event();
      }
      if (event->type() == V1Event::HEARTBEAT && type != V1Event::HEARTBEAT) continue;
      EXPECT_EQ(V1Event::Type_Name(type), V1Event::Type_Name(event->type()))
          << event->DebugString();
      return *event;
    }
  }

  // The next event of `type`, skipping the others (offers and rescinds
  // that come and go with the allocator's timers).
  V1Event await(V1Event::Type type) {
    for (int skipped = 0; skipped < 100; ++skipped) {
      auto event = next();
      if (!event) break;
      if (event->type() == type) return *event;
    }
    ADD_FAILURE() << "no " << V1Event::Type_Name(type) << " came";
    return V1Event();
  }

  // True once the stream ended (the last chunk, or the connection closed).
  bool ends() {
    while (!ended_) {
      if (!next()) return ended_;
    }
    return true;
  }

  void hangUp() { peer_.reset(); }

 private:
  RawPeer peer_;
  std::string encoding_;
  int status_ = 0;
  std::string streamId_;
  std::string contentType_;
  std::string buffer_;
  bool ended_ = false;
};

class V1SchedulerFixture : public MasterFixture {
 protected:
  static V1Call subscribeCall(const std::string& name = "v1-framework",
                              const std::string& frameworkId = "") {
    V1Call call;
    call.set_type(V1Call::SUBSCRIBE);
    v1::FrameworkInfo* info = call.mutable_subscribe()->mutable_framework_info();
    *info = evolve<v1::FrameworkInfo>(frameworkInfo(name));
    info->set_failover_timeout(3600);
    if (!frameworkId.empty()) {
      info->mutable_id()->set_value(frameworkId);
      call.mutable_framework_id()->set_value(frameworkId);
    }
    return call;
  }

  // A call on a connection of its own: the status, the body in *body.
  int call(const V1Call& call, const std::string& streamId,
           const std::string& contentType = kProtobuf, std::string* body = nullptr) {
    return send(encode(call, contentType), contentType,
                streamId.empty() ? "" : "Mesos-Stream-Id: " + streamId + "\r\n", body);
  }

  int send(const std::string& payload, const std::string& contentType,
           const std::string& extraHeaders, std::string* body = nullptr) {
    RawPeer peer(runtime_->address());
    EXPECT_TRUE(peer.write(post(payload, contentType, extraHeaders)));
    auto response = peer.readResponse();
    if (!response) return 0;
    if (body != nullptr) *body = response->body;
    return response->status;
  }

  V1Call frameworkCall(V1Call::Type type, const v1::FrameworkID& id) {
    V1Call call;
    call.set_type(type);
    *call.mutable_framework_id() = id;
    return call;
  }

  // Waits for the master to have handled what a call asked.
  void settle() { runtime_->settle(); }
};

}  // namespace mesos::test
