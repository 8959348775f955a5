// A v1 scheduler over real TCP for tests (docs/scheduler-http-api.md): the
// requests of POST /api/v1/scheduler in either encoding, and Subscription,
// the connection that carries a framework's events. Used by the scheduler
// API's tests and by tests that need a real v1 framework (operation
// feedback in the operator API's).
//
// Every read is bounded by RawPeer's socket timeout: a master that never
// answers fails the test instead of hanging it.
#pragma once

#include <optional>
#include <string>

#include <glog/logging.h>
#include <gtest/gtest.h>

#include "common/protobuf_json.hpp"
#include "common/v1.hpp"
#include "support/master_fixture.hpp"
#include "support/raw_peer.hpp"
#include "support/record_stream.hpp"
#include "v1/scheduler.pb.h"

namespace mesos::test::v1scheduler {

inline constexpr const char* kProtobuf = "application/x-protobuf";
inline constexpr const char* kJson = "application/json";

// The request that POSTs `body` of `contentType`; `extraHeaders` are whole
// lines ("Name: value\r\n").
inline std::string post(const std::string& body, const std::string& contentType,
                        const std::string& extraHeaders = "") {
  return "POST /api/v1/scheduler HTTP/1.1\r\nHost: test\r\nContent-Type: " + contentType +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extraHeaders + "\r\n" +
         body;
}

inline std::string encode(const v1::scheduler::Call& call, const std::string& contentType) {
  return contentType == kJson ? toJson(call) : call.SerializeAsString();
}

// POSTs `payload` on a connection of its own: the answer's status (0 when
// none came), its body in *body.
inline int send(const process::Address& master, const std::string& payload,
                const std::string& contentType, const std::string& extraHeaders,
                std::string* body = nullptr) {
  RawPeer peer(master);
  EXPECT_TRUE(peer.write(post(payload, contentType, extraHeaders)));
  auto response = peer.readResponse();
  if (!response) return 0;
  if (body != nullptr) *body = response->body;
  return response->status;
}

// A v1 scheduler's subscription: the connection that carries its events.
class Subscription {
 public:
  using Event = v1::scheduler::Event;

  Subscription(const process::Address& master, const v1::scheduler::Call& subscribe,
               const std::string& encoding = kProtobuf)
      : master_(master), peer_(master), encoding_(encoding) {
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

  // Makes `call` for this framework (with its Mesos-Stream-Id, in its
  // encoding) on a connection of its own: the answer's status.
  int call(const v1::scheduler::Call& call, std::string* body = nullptr) {
    return send(master_, encode(call, encoding_), encoding_,
                "Mesos-Stream-Id: " + streamId_ + "\r\n", body);
  }

  // The next event (its record's raw text in *raw); nullopt when the
  // stream ends or nothing comes within the socket timeout.
  std::optional<Event> next(std::string* raw = nullptr) { return events_.next(raw); }

  // The next event that is not a HEARTBEAT, which must be of `type`.
  Event expect(Event::Type type, std::string* raw = nullptr) { return events_.expect(type, raw); }

  // The next event of `type`, skipping the others (offers and rescinds
  // that come and go with the allocator's timers).
  Event await(Event::Type type) {
    for (int skipped = 0; skipped < 100; ++skipped) {
      auto event = next();
      if (!event) break;
      if (event->type() == type) return *event;
    }
    ADD_FAILURE() << "no " << Event::Type_Name(type) << " came";
    return Event();
  }

  // True once the stream ended (the last chunk, or the connection closed).
  bool ends() {
    while (!events_.ended()) {
      if (!next()) return events_.ended();
    }
    return true;
  }

  void hangUp() { peer_.reset(); }

 private:
  process::Address master_;
  RawPeer peer_;
  std::string encoding_;
  int status_ = 0;
  std::string streamId_;
  std::string contentType_;
  RecordStream<Event> events_{peer_, encoding_ == kJson};
};

}  // namespace mesos::test::v1scheduler

namespace mesos::test {

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

// A real master (MasterFixture) with v1 schedulers: their SUBSCRIBE and
// calls, each call on a connection of its own.
class V1SchedulerFixture : public MasterFixture {
 protected:
  using V1Call = v1::scheduler::Call;
  using V1Event = v1::scheduler::Event;
  using Subscription = v1scheduler::Subscription;
  static constexpr const char* kProtobuf = v1scheduler::kProtobuf;
  static constexpr const char* kJson = v1scheduler::kJson;

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
    return send(v1scheduler::encode(call, contentType), contentType,
                streamId.empty() ? "" : "Mesos-Stream-Id: " + streamId + "\r\n", body);
  }

  int send(const std::string& payload, const std::string& contentType,
           const std::string& extraHeaders, std::string* body = nullptr) {
    return v1scheduler::send(runtime_->address(), payload, contentType, extraHeaders, body);
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
