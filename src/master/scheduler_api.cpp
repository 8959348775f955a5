// POST /api/v1/scheduler: Apache Mesos's v1 scheduler HTTP API
// (docs/scheduler-http-api.md). SUBSCRIBE opens the framework's event
// stream (a SchedulerStream whose pid stands for the scheduler's); every
// other call is checked here, then served as the same v0 Call would be
// (Master::schedulerCall).
#include <string>
#include <string_view>

#include <glog/logging.h>

#include "common/protobuf_json.hpp"
#include "common/uuid.hpp"
#include "common/v1.hpp"
#include "master/master.hpp"
#include "master/media_types.hpp"
#include "process/dispatch.hpp"
#include "master/scheduler_stream.hpp"
#include "v1/scheduler.pb.h"

namespace mesos::internal::master {

using process::Future;
using process::http::Request;
using process::http::Response;
using V1Call = v1::scheduler::Call;

namespace {

using media::accepts;
using media::answer;
using media::kJson;
using media::kProtobuf;

// The sub-message each call type needs, as Apache Mesos requires it.
std::optional<std::string> validate(const V1Call& call) {
  if (!call.has_type() || call.type() == V1Call::UNKNOWN) return "Expecting 'type' to be present";
  if (call.type() != V1Call::SUBSCRIBE && !call.has_framework_id()) {
    return "Expecting 'framework_id' to be present";
  }
  auto need = [&](bool present, const char* field) -> std::optional<std::string> {
    if (present) return std::nullopt;
    return "Expecting '" + std::string(field) + "' to be present";
  };
  switch (call.type()) {
    case V1Call::SUBSCRIBE: {
      if (auto missing = need(call.has_subscribe(), "subscribe")) return missing;
      const v1::FrameworkInfo& info = call.subscribe().framework_info();
      if (call.has_framework_id() && !(info.has_id() && info.id().value() ==
                                                             call.framework_id().value())) {
        return "'framework_id' differs from 'subscribe.framework_info.id'";
      }
      return std::nullopt;
    }
    case V1Call::ACCEPT: return need(call.has_accept(), "accept");
    case V1Call::DECLINE: return need(call.has_decline(), "decline");
    case V1Call::KILL: return need(call.has_kill(), "kill");
    case V1Call::SHUTDOWN: return need(call.has_shutdown(), "shutdown");
    case V1Call::ACKNOWLEDGE: return need(call.has_acknowledge(), "acknowledge");
    case V1Call::RECONCILE: return need(call.has_reconcile(), "reconcile");
    case V1Call::ACKNOWLEDGE_OPERATION_STATUS:
      return need(call.has_acknowledge_operation_status(), "acknowledge_operation_status");
    case V1Call::RECONCILE_OPERATIONS:
      return need(call.has_reconcile_operations(), "reconcile_operations");
    case V1Call::MESSAGE: return need(call.has_message(), "message");
    case V1Call::REQUEST: return need(call.has_request(), "request");
    case V1Call::ACCEPT_INVERSE_OFFERS:
      return need(call.has_accept_inverse_offers(), "accept_inverse_offers");
    case V1Call::DECLINE_INVERSE_OFFERS:
      return need(call.has_decline_inverse_offers(), "decline_inverse_offers");
    case V1Call::UPDATE_FRAMEWORK: {
      if (auto missing = need(call.has_update_framework(), "update_framework")) return missing;
      const v1::FrameworkInfo& info = call.update_framework().framework_info();
      if (!info.has_id() || info.id().value() != call.framework_id().value()) {
        return "'framework_id' differs from 'update_framework.framework_info.id'";
      }
      return std::nullopt;
    }
    case V1Call::TEARDOWN:
    case V1Call::REVIVE:
    case V1Call::SUPPRESS: return std::nullopt;
    default:
      return "Call " + V1Call::Type_Name(call.type()) + " is not served by this master";
  }
}

}  // namespace

Future<Response> Master::schedulerCallEndpoint(const Request& request) {
  if (request.method != "POST") {
    return Response{405, "text/plain", "Expecting a POST request\n", {{"Allow", "POST"}}};
  }
  if (!leading_) {
    // To the leader's own /api/v1/scheduler (its delegate path: the
    // leader's actor id may not be this one's).
    Response redirect = redirectEndpoint(request).get();
    if (redirect.status == 307) redirect.headers.back().second += "/api/v1/scheduler";
    return redirect;
  }
  V1Call call;
  if (auto refused = media::parseCall(request, &call, "scheduler::Call")) return *refused;
  if (auto error = validate(call)) {
    return answer(400, "Failed to validate scheduler::Call: " + *error);
  }
  if (auto refused = checkSchedulerPrincipal(request, call)) return *refused;
  metrics_.messages["Call"]++;
  if (call.type() == V1Call::SUBSCRIBE) return subscribe(request, call);

  Framework* f = framework(call.framework_id().value());
  if (f == nullptr) {
    return answer(403, "Framework '" + call.framework_id().value() + "' is not subscribed");
  }
  auto stream = httpSchedulers_.find(f->pid.id);
  if (stream != httpSchedulers_.end() && f->pid == stream->second.stream.pid()) {
    const std::string& streamId = request.header("mesos-stream-id");
    if (streamId != stream->second.streamId) {
      return answer(403, streamId.empty()
                             ? "All non-subscribe calls must carry the 'Mesos-Stream-Id' header"
                             : "The 'Mesos-Stream-Id' header does not match the stream of "
                               "framework " + f->id.value());
    }
  } else if (!f->active) {
    return answer(403, "Framework '" + f->id.value() + "' is not subscribed");
  } else {
    // A framework registered through the v0 protocol may send its Calls
    // here too (mesos-go's v0 driver does, without naming itself): only
    // from its scheduler's address, where Apache Mesos refuses them all.
    auto peer = process::Address::parse(request.peer);
    if (!peer || !runtime().speaksFor(peer->ip, f->pid.address.ip)) {
      LOG(WARNING) << "Refusing a " << V1Call::Type_Name(call.type()) << " call for framework "
                   << f->id.value() << " from " << request.peer
                   << ": the framework is not subscribed over HTTP and its scheduler is at "
                   << f->pid;
      return answer(403, "Framework '" + f->id.value() +
                             "' is not subscribed over HTTP, and this request does not come from "
                             "its scheduler's address");
    }
  }
  if (call.type() == V1Call::UPDATE_FRAMEWORK) {
    // Answered once applied, as Apache Mesos does: 200, or 400 with the
    // reason (403 when an ACL refuses a role).
    const auto& update = call.update_framework();
    FrameworkInfo info = devolve<FrameworkInfo>(update.framework_info());
    if (auto error = updateFramework(*f, std::move(info),
                                     {update.suppressed_roles().begin(),
                                      update.suppressed_roles().end()})) {
      bool denied = error->rfind("Not authorized", 0) == 0;
      return answer(denied ? 403 : 400,
                    denied ? *error : "Failed to validate scheduler::Call: " + *error);
    }
    return Response::ok("", "text/plain");
  }
  if (call.type() == V1Call::SUPPRESS || call.type() == V1Call::REVIVE) {
    const auto& roles =
        call.type() == V1Call::SUPPRESS ? call.suppress().roles() : call.revive().roles();
    if (auto unknown = unknownRoles(*f, {roles.begin(), roles.end()})) {
      return answer(400, "Failed to validate scheduler::Call: " + *unknown);
    }
  }
  schedulerCall(f->pid, devolve<scheduler::Call>(call));
  return Response::accepted();
}

Future<Response> Master::subscribe(const Request& request, const V1Call& call) {
  std::optional<SchedulerStream::Encoding> encoding;
  if (accepts(request, kJson)) {
    encoding = SchedulerStream::Encoding::kJson;
  } else if (accepts(request, kProtobuf)) {
    encoding = SchedulerStream::Encoding::kProtobuf;
  } else {
    return answer(406, "Expecting 'Accept' to allow " + std::string(kJson) + " or " +
                           std::string(kProtobuf));
  }
  FrameworkInfo info = devolve<FrameworkInfo>(call.subscribe().framework_info());
  if (auto error = validateFrameworkInfo(info)) {
    return answer(400, "Failed to validate scheduler::Call: " + *error);
  }
  if (auto error = suppressedOutside(
          info, {call.subscribe().suppressed_roles().begin(),
                 call.subscribe().suppressed_roles().end()})) {
    return answer(400, "Failed to validate scheduler::Call: " + *error);
  }
  if (auto denied = authorizeFramework(info)) return answer(403, *denied);
  bool resubscribing = info.has_id() && !info.id().value().empty();
  if (resubscribing && registry_.completedFramework(info.id().value()) != nullptr) {
    return answer(403, "Framework " + info.id().value() +
                           " was removed; subscribe without an id to register anew");
  }

  auto pipe = std::make_shared<process::http::Pipe>();
  std::string streamId = uuidToString(randomUuid());
  HttpScheduler scheduler{streamId, runtime().spawn<SchedulerStream>(self(), pipe, *encoding,
                                                                    kHeartbeatInterval)};
  process::UPID pid = scheduler.stream.pid();
  link(pid);
  httpSchedulers_.emplace(pid.id, std::move(scheduler));
  LOG(INFO) << (resubscribing ? "Re-subscribing framework " + info.id().value() + " ("
                              : "Subscribing framework (")
            << info.name() << ") over HTTP: stream " << streamId << ", events through "
            << pid;
  const auto& given = call.subscribe().suppressed_roles();
  std::vector<std::string> suppressed(given.begin(), given.end());
  if (resubscribing) {
    reregisterWith(pid, info, true, suppressed);
  } else {
    registerWith(pid, info, suppressed);
  }
  Response response{200, SchedulerStream::mediaType(*encoding), "", {}};
  response.headers.emplace_back("Mesos-Stream-Id", streamId);
  response.stream = std::move(pipe);
  return response;
}

bool Master::isSchedulerStream(const UPID& pid) const {
  auto it = httpSchedulers_.find(pid.id);
  return it != httpSchedulers_.end() && it->second.stream.pid() == pid;
}

void Master::closeSchedulerStream(const UPID& pid) {
  auto it = httpSchedulers_.find(pid.id);
  if (it == httpSchedulers_.end() || it->second.stream.pid() != pid) return;
  process::dispatch(it->second.stream.pid(), &SchedulerStream::close, std::string());
}

bool Master::schedulerStreamEnded(const UPID& pid) {
  auto it = httpSchedulers_.find(pid.id);
  if (it == httpSchedulers_.end() || it->second.stream.pid() != pid) return false;
  // It terminated (that is why we are told): reset() does not wait long.
  httpSchedulers_.erase(it);
  return true;
}

}  // namespace mesos::internal::master
